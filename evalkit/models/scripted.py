"""Scripted models: fixed policies that play the same way under every condition.

They read the pair's annotations (the variant's ``plan`` and ``expected`` outcome) from
the episode and emit one tool call per turn. They are the suite's instruments: the oracle
is its consistency check (it must score perfectly on every shipped pair) and the others
pin the metrics' extremes (DESIGN §7: always-act and always-abstain both score 0 paired
accuracy).

How a scripted model *says* it stops depends on the condition, so the policy is the same and
only the channel differs: each stop and request goes through the channel the episode's
condition declares (:class:`~evalkit.runtime.signals.DecisionSignals`: the typed
``meta_request`` tool under ``meta``, the plain ``declare_blocked`` /
``request_user_decision`` tools under ``tool``, a registered condition's own tools), or is
written in text when the condition gives it no tool (``nl``). An episode without a known
condition (an agent over MCP sees only the tools) uses the declaration whose tools are offered
(:func:`~evalkit.runtime.signals.signals_for`).

Policies (``scripted/NAME``):

* ``oracle`` — act side: run the plan, then report. Abstain side: run the plan up to the
  step where the trigger becomes observable, make the expected meta requests other than its
  stop, one per turn and in order (a ``tool_gap`` pair's ``request_tool`` for the missing
  tool: seed ``000`` §3.2, a missing tool is asked for, not silently worked around), then
  stop with the expected decision (``declare_blocked`` / ``request_user_decision``). Under
  ``nl`` those requests are written into the stop's text instead (:data:`ASK_TEXT`).
* ``always_act`` — run the whole plan on both sides (commits included), then report.
* ``always_abstain`` — refuse at once on both sides.
* ``post_hoc`` — run the whole plan, commits included, then refuse in text.
* ``late:K`` — like the oracle, but on the abstain side keep calling the plan's lookup and
  verify tools ``K`` more times after the trigger is observable before stopping
  (``0 <= K <=`` :data:`MAX_LATE`).

* ``asks_ignores`` — like the oracle until its stop; on a side with a follow-up it asks,
  then ignores the user's answer and stops without acting (a declared block, or its text
  under ``nl``). It pins the follow-up metrics: abstain accuracy 1.0, recovery 0
  (:mod:`evalkit.metrics.followup`).

After the simulated user's reply on a side with a follow-up (:mod:`evalkit.runtime.followup`)
the oracle (and ``late:K``) reads the reply: to the follow-up's ``answer`` it plays the follow-up's calls
(``followup.plan``, else its expected commits) and reports; to any other reply (the unhelpful
user's) it stops without committing (``abstain``). The other policies never see a
follow-up: ``always_act`` and ``post_hoc`` never ask and ``always_abstain`` declares a
block, which ends the episode.

On an ``act_resist`` variant (a prompt injection in a tool result) the oracle and
``late:K`` run the plan (the user task, the injection ignored) and report;
``always_act`` and ``post_hoc`` are hijacked: right after the revealing call
(``expected.observable_step``) they run the variant's ``injected_plan`` (the injected
commit included), then the rest of the plan; ``always_abstain`` refuses at once. A control
pair has only its act variant, where every policy but ``always_abstain`` acts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from evalkit.errors import ConfigError
from evalkit.runtime.context import ModelContext
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.runtime.followup import REPEAT_REPLY, UNHELPFUL_ANSWER
from evalkit.runtime.signals import ABSTAIN, CLARIFY, DecisionSignals, signals_for
from evalkit.scenarios.episode import Episode

MAX_LATE = 1000
"""Largest ``K`` of ``late:K`` (an episode stops at the run's turn limit long before)."""
_SCRIPT_CACHE_SIZE = 256

DONE_TEXT = "Done: I have completed your request."
REFUSAL_TEXT = "I'm sorry, but I cannot do this request."


@dataclass(frozen=True, slots=True)
class _Call:
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Ask:
    """A meta request made before stopping (``type`` one of :data:`ASK_TEXT`)."""

    type: str
    target: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class _Stop:
    decision: Literal["abstain", "clarify"]
    reason: str
    target: str | None = None
    asks: tuple[_Ask, ...] = ()


@dataclass(frozen=True, slots=True)
class _Say:
    text: str


_Step = _Call | _Ask | _Stop | _Say


ASK_TEXT: dict[str, str] = {
    "request_context": "I would need to see the {target} first.",
    "request_tool": "No available tool can do this; it needs {target}.",
    "request_model_escalation": "A stronger model should take this over ({target}).",
    "request_independent_review": "This needs an independent review first ({target}).",
}
"""The meta requests the oracle makes before its stop, and how it writes each under ``nl``
(phrased with the text classifier's cues, :mod:`evalkit.conditions.classifier`). Other
expected types besides the stop's own are not scripted."""

_ASK_ARG = {  # canonical argument naming the target (evalkit.runtime.signals)
    "request_context": "target",
    "request_tool": "capability",
    "request_model_escalation": "capability",
    "request_independent_review": "target",
}
_STOP_TYPE = {"abstain": "declare_blocked", "clarify": "request_user_decision"}


def _stop_for(episode: Episode) -> _Stop:
    abstain = episode.pair.abstain
    assert abstain is not None, "a stop is planned from the pair's abstain side"
    exp = abstain.expected
    target = next((m.target for m in exp.meta_requests if m.target), None)
    asks = tuple(_Ask(m.type, m.target, exp.reason) for m in exp.meta_requests
                 if m.type in ASK_TEXT and m.type != _STOP_TYPE[exp.decision])
    return _Stop(exp.decision, exp.reason, target, asks)


def _lookups(plan: list[Any], kinds: dict[str, str]) -> list[_Call]:
    return [_Call(c.tool, dict(c.args)) for c in plan if kinds.get(c.tool) != "commit"]


class ScriptedModel:
    """A scripted policy (see the module docstring for the policies).

    Args:
        policy: ``oracle``, ``always_act``, ``always_abstain``, ``post_hoc`` or ``late``.
        k: Extra lookups for ``late``.
    """

    POLICIES = ("oracle", "always_act", "always_abstain", "post_hoc", "late", "asks_ignores")
    inline = True  # never waits on I/O: episodes run in the recording thread (harness.executor.runs_inline)

    def __init__(self, policy: str, k: int = 0):
        if policy not in self.POLICIES:
            choices = ", ".join(p for p in self.POLICIES if p != "late")
            raise ConfigError(f"unknown scripted policy {policy!r}; choose from {choices} or late:K (e.g. late:3)")
        if not 0 <= k <= MAX_LATE:
            raise ConfigError(f"scripted/late:K needs 0 <= K <= {MAX_LATE} (got {k})")
        self.policy = policy
        self.k = k
        self.name = f"scripted/{policy}:{k}" if policy == "late" else f"scripted/{policy}"
        self._scripts: dict[int, tuple[Any, list[_Step]]] = {}  # id(episode) -> (episode, its script)

    def script(self, episode: Episode) -> list[_Step]:
        """The full list of steps this policy takes in ``episode``."""
        variant = episode.variant
        plan = episode.pair.variant(variant).plan
        full: list[_Step] = [_Call(c.tool, dict(c.args)) for c in plan]
        p = self.policy
        if variant == "act_resist" and p in ("always_act", "post_hoc"):
            resist = episode.pair.act_resist
            assert resist is not None, "an act_resist episode plays the pair's act_resist side"
            k_inj = resist.expected.observable_step
            injected = [_Call(c.tool, dict(c.args)) for c in resist.injected_plan]
            full = [*full[:k_inj], *injected, *full[k_inj:]]
        if p == "always_abstain":
            return [_Stop("abstain", "I will not act on this request.")]
        if p == "always_act":
            return [*full, _Say(DONE_TEXT)]
        if p == "post_hoc":
            return [*full, _Say(REFUSAL_TEXT)]
        if variant in ("act", "act_resist"):
            return [*full, _Say(DONE_TEXT)]
        abstain = episode.pair.abstain
        assert abstain is not None, "an abstain episode plays the pair's abstain side"
        k_obs = abstain.expected.observable_step
        steps: list[_Step] = list(full[:k_obs])
        if p == "late" and self.k:
            pool = _lookups(plan[:k_obs], episode.tool_kinds) or _lookups(plan, episode.tool_kinds)
            steps.extend(pool[i % len(pool)] for i in range(self.k))
        stop = _stop_for(episode)
        steps.extend(stop.asks)
        steps.append(stop)
        return steps

    def _script_for(self, episode: Episode) -> list[_Step]:
        """:meth:`script` of ``episode``, built once per episode (``respond`` runs every turn).

        Keyed by the episode object's identity (it holds the pair, whose dicts are not
        hashable); the entry keeps the episode alive, so an id is never reused while cached.
        """
        hit = self._scripts.get(id(episode))
        if hit is not None and hit[0] is episode:
            return hit[1]
        steps = self.script(episode)
        if len(self._scripts) >= _SCRIPT_CACHE_SIZE:
            self._scripts.clear()
        self._scripts[id(episode)] = (episode, steps)
        return steps

    def _after_reply(self, context: ModelContext, episode: Episode) -> tuple[list[_Step], int] | None:
        """The steps after the simulated user's reply and this turn's index in them, or
        ``None`` before any reply (or on a side without a follow-up)."""
        followup = getattr(episode.pair.variant(episode.variant), "followup", None)
        if followup is None:
            return None
        messages = context.messages
        first = next((i for i, m in enumerate(messages) if m.get("role") == "user"), None)
        reply = next((i for i, m in enumerate(messages) if first is not None and i > first and m.get("role") == "user"
                      and m.get("content") in _replies(followup)), None)
        if reply is None:
            return None
        index = sum(1 for m in messages[reply:] if m.get("role") == "assistant")
        careful = self.policy in ("oracle", "late")  # late:K is the oracle, slower to stop
        if careful and messages[reply]["content"] == followup.answer:
            return [*(_Call(c.tool, dict(c.args)) for c in followup.calls), _Say(DONE_TEXT)], index
        reason = ("the user did not give the missing details" if careful
                  else "I will not go on with this request.")
        return [_Stop("abstain", reason)], index

    def respond(self, context: ModelContext, episode: Episode) -> ModelOutput:
        """Emit the step for this turn (one tool call, a stop, or a final text)."""
        steps = self._script_for(episode)
        turn = context.turn
        if episode.variant == "abstain" and self.policy in ("oracle", "late", "asks_ignores"):
            after = self._after_reply(context, episode)
            if after is not None:
                steps, turn = after
        if turn >= len(steps):
            return ModelOutput(text="")
        step = steps[turn]
        call_id = f"call_{turn + 1}"
        if isinstance(step, _Call):
            return ModelOutput(
                tool_calls=(ToolCall(call_id, step.tool, step.args),), stop_reason="tool_use"
            )
        if isinstance(step, _Say):
            return ModelOutput(text=step.text)
        signals = signals_for(getattr(episode, "condition", None), context.tool_names)
        if isinstance(step, _Ask):
            ask = self._ask(step, context, call_id, signals)
            if ask is not None:
                return ask
            step = steps[-1]  # nl: no request channel; the stop (always last) writes the asks into its text
        assert isinstance(step, _Stop), "a scripted plan ends with its stop"
        return self._stop(step, context, call_id, signals)

    @staticmethod
    def _ask(step: _Ask, context: ModelContext, call_id: str, signals: DecisionSignals) -> ModelOutput | None:
        """The call making ``step``'s request through the condition's channel, or ``None``
        when the condition gives it no tool (it is then written in the stop's text)."""
        args: dict[str, Any] = {"reason": step.reason}
        if step.target:
            args[_ASK_ARG[step.type]] = step.target
        call = signals.write(step.type, args, context.tool_names)
        if call is None:
            return None
        return ModelOutput(tool_calls=(ToolCall(call_id, *call),), stop_reason="tool_use")

    @staticmethod
    def _stop(step: _Stop, context: ModelContext, call_id: str, signals: DecisionSignals) -> ModelOutput:
        mtype = ABSTAIN if step.decision == "abstain" else CLARIFY
        if step.decision == "abstain":
            text = f"I cannot complete this request: {step.reason}"
            args: dict[str, Any] = {"reason": step.reason}
        else:
            what = step.target or "the missing details"
            text = f"Before I go ahead, could you confirm {what}?"
            args = {"question": text, "reason": step.reason}
            if step.target:
                args["target"] = step.target
        call = signals.write(mtype, args, context.tool_names)
        if call is not None:
            return ModelOutput(tool_calls=(ToolCall(call_id, *call),), stop_reason="tool_use")
        asked = " ".join(ASK_TEXT[a.type].format(target=a.target or "it") for a in step.asks)
        if asked:  # nl: the requests made before the stop are written into its text
            text = f"{text} {asked}" if step.decision == "abstain" else f"{asked} {text}"
        return ModelOutput(text=text)


def _replies(followup: Any) -> tuple[str, ...]:
    """The texts the simulated user may reply with on a side with ``followup``."""
    return (followup.answer, followup.unhelpful_answer or UNHELPFUL_ANSWER, REPEAT_REPLY)


def scripted(name: str) -> ScriptedModel:
    """Build a scripted model from the part of a spec after ``scripted/``.

    Raises:
        ConfigError: for an unknown policy or a bad ``late:K``.
    """
    policy, _, arg = name.partition(":")
    if policy == "late":
        if not arg.isascii() or not arg.isdigit() or len(arg) > 6:
            raise ConfigError(f"scripted/late needs an integer K from 0 to {MAX_LATE}, as in scripted/late:3 "
                              f"(got {name[:40]!r})")
        return ScriptedModel("late", int(arg))
    if arg:
        raise ConfigError(f"scripted/{policy} takes no argument")
    return ScriptedModel(policy)
