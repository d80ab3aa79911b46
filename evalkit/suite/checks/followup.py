"""Check *followup* (criterion L8): a should-clarify side's follow-up answers the question and
its expected commits follow from the conversation.

The abstain side's follow-up (:class:`evalkit.scenarios.schema.Followup`) is replayed through
the reference runtime (``meta`` condition, cooperative user, gate off): the side's plan up to
``expected.observable_step``, a ``request_user_decision``, then — after the simulated user's
answer arrives as the next user turn — the follow-up's calls (``followup.plan``, else its
expected commits). Errors:

* the question gets no answer (the episode ended before it, or the runtime refused it);
* a follow-up call is refused (permission, schema, budget, approval);
* after the answer, an expected commit is not made with its arguments, another commit is
  made, or a state check fails;
* a commit argument value is supported by neither the user message, the answer nor an
  observation (the unsupported-assumption metric, :mod:`evalkit.metrics.grounding`);
* the answer does not supply what the perturbation removed: no value of the expected
  commits that the abstain side's message lacks occurs in the answer. When the message
  already holds every such value (a confirmation or a choice between readings the message
  names) this is a warning, not an error.

The check applies to the pairs whose abstain side has a follow-up; a should-clarify side
without one ends at the question, as it always has, and is not checked here.
"""

from __future__ import annotations

from typing import Any

from evalkit.harness.episode import EpisodeSpec, RuntimeSetup, execute
from evalkit.metrics.grounding import Evidence, _leaves, is_fact, unsupported_arguments
from evalkit.metrics.matching import args_match, check_state
from evalkit.runtime.context import ModelContext
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import ActionDecided, EpisodeEnded, ToolExecuted, UserMessage
from evalkit.runtime.followup_events import UserQuestion
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.suite.checks.base import Issue, PairContext

NAME = "followup"
FIELD = "abstain.followup"


def applies(pair: Any) -> bool:
    """The check applies to pairs whose abstain side has a follow-up."""
    return pair.abstain is not None and pair.abstain.followup is not None


class _AskThenFollow:
    """Plays the abstain plan up to the observable step, asks, then plays the follow-up."""

    inline = True
    name = "labelcheck/followup"

    def __init__(self, pair: Any):
        self.before = list(pair.abstain.plan[:pair.abstain.expected.observable_step])
        self.after = pair.abstain.followup.calls
        self.answer = pair.abstain.followup.answer

    def respond(self, context: ModelContext, episode: Any) -> ModelOutput:
        messages = context.messages
        reply = next((i for i, m in enumerate(messages) if i > 1 and m.get("role") == "user"
                      and m.get("content") == self.answer), None)
        if reply is None:
            turn = context.turn
            if turn < len(self.before):
                return _call(f"b{turn}", self.before[turn].tool, dict(self.before[turn].args))
            return _call("ask", "meta_request", {"type": "request_user_decision", "reason": "missing information",
                                                 "question": "What should I use?"})
        index = sum(1 for m in messages[reply:] if m.get("role") == "assistant")
        if index < len(self.after):
            return _call(f"a{index}", self.after[index].tool, dict(self.after[index].args))
        return ModelOutput(text="done")


def _call(call_id: str, tool: str, args: dict[str, Any]) -> ModelOutput:
    return ModelOutput(tool_calls=(ToolCall(call_id, tool, args),), stop_reason="tool_use")


def _values(commits: list[Any]) -> list[Any]:
    out = []
    for c in commits:
        for _, value in _leaves(c.args):
            if value is None or isinstance(value, bool) or (isinstance(value, str) and not is_fact(value)):
                continue
            out.append(value)
    return out


def check(ctx: PairContext) -> list[Issue]:
    """The follow-up check of one pair (module docstring).

    Returns:
        The issues found (none for a sound follow-up).
    """
    pair = ctx.pair
    abstain = pair.abstain
    assert abstain is not None and abstain.followup is not None, "run only where applies() holds"
    followup = abstain.followup
    model = _AskThenFollow(pair)
    spec = EpisodeSpec(pair, "abstain", model.name, "meta", 1, "off", ctx.domain,
                       RuntimeSetup(followup_max_turns=len(model.after) + 2))
    try:
        run = execute(spec, model, Limits(max_turns=len(model.before) + 2, max_tool_calls=100))
    except Exception as exc:  # noqa: BLE001 - a crashing tool is an issue of the pair, not of the check
        return [ctx.issue(NAME, FIELD, "L8", f"the follow-up could not be replayed: {type(exc).__name__}: {exc}")]
    events = run.log.events
    question = next((e for e in events if type(e) is UserQuestion), None)
    if question is None:
        ended = next((e.reason for e in events if type(e) is EpisodeEnded), "error")
        return [ctx.issue(NAME, FIELD, "L8", f"the question after {len(model.before)} plan call(s) reached no "
                                             f"simulated user (the episode ended: {ended})")]
    issues: list[Issue] = []
    for e in events:
        if type(e) is ActionDecided and e.seq > question.seq and e.action == "deny":
            issues.append(ctx.issue(NAME, f"{FIELD}.plan", "L8",
                                    f"{e.tool} after the answer is refused: {e.reason_code} ({e.message})"))
    after = [e for e in events if type(e) is ToolExecuted and e.kind == "commit" and e.ok and e.seq > question.seq]
    expected = followup.expected
    for i, exp in enumerate(expected.commits):
        if not any(c.tool == exp.tool and args_match(exp.args, c.arguments) for c in after):
            issues.append(ctx.issue(NAME, f"{FIELD}.expected.commits[{i}]", "L8",
                                    f"{exp.tool} with {exp.args} is not made after the answer"))
    extra = [c.tool for c in after if not any(c.tool == e.tool and args_match(e.args, c.arguments)
                                              for e in expected.commits)]
    if extra:
        issues.append(ctx.issue(NAME, f"{FIELD}.plan", "L8", f"commits no expectation covers: {', '.join(extra)}"))
    for i, chk in enumerate(expected.state_checks):
        if not check_state(run.state, chk):
            issues.append(ctx.issue(NAME, f"{FIELD}.expected.state_checks[{i}]", "L8",
                                    f"{chk.path} does not hold after the follow-up"))
    checked, unsupported, listed = unsupported_arguments(events)
    if unsupported:
        issues.append(ctx.issue(NAME, f"{FIELD}.plan", "L5",
                                f"{unsupported} of {checked} commit argument values appear in neither the user "
                                f"message, the answer nor an observation: {', '.join(listed)}"))
    message = Evidence([UserMessage(0, 0, content=abstain.user)])
    answer = Evidence([UserMessage(0, 0, content=followup.answer)])
    missing = [v for v in _values(expected.commits) if not message.supports(v)]
    if not any(answer.supports(v) for v in missing):
        if missing:
            issues.append(ctx.issue(NAME, f"{FIELD}.answer", "L8",
                                    "the answer supplies none of the values the abstain message lacks: "
                                    + ", ".join(map(str, missing[:5]))))
        else:
            issues.append(ctx.issue(NAME, f"{FIELD}.answer", "L8", "the abstain message already holds every "
                                    "expected commit value; the answer must confirm or choose", "warning"))
    return issues
