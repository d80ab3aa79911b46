"""``evalkit rules distill RUN``: candidate stopping rules from a run's misactions (DESIGN §8).

A misaction episode is one of (definitions of :mod:`evalkit.metrics.scoring`):

* ``wrong_commit`` — on the should-abstain side, a critical commit executed; the call a rule
  should stop is the first critical commit;
* ``late_abstention`` — a correct abstention with ``lag > max_lag``: the agent kept calling
  task tools after the trigger became observable; the call a rule should stop is the first
  call of that late tail (the last ``lag`` task-tool calls) that ran.

For each, the runtime's fold (:mod:`evalkit.runtime.view`) is replayed up to that call, and
what a rule can see there is recorded: the unresolved signal (the most recent one, with the
tool that reported it), the call's tool (a commit by name, a lookup or verify by its name
prefix, e.g. ``get_``), its arguments and the domain. Misactions with the same signal,
source prefix, tool and expected decision form one candidate rule::

    when: {signal: conflict, source_prefix: get_, tool_prefix: get_, domain: [shop]}
    then: abstain

Every candidate is then checked against the run itself: it must match each of its evidence
episodes at the misaction call, and it must not match any call of a correct act-side
episode (a rule that stops good commits is a regression). When a commit candidate without
a signal would also stop good calls, an argument test that separates the evidence from the
good calls of that tool is tried (``gt`` above the largest good value, ``lt`` below the
smallest, else ``in`` the evidence values); a candidate that still stops a good call is not
proposed but listed under ``rejected`` with the reason.

The result is a draft rule set (:mod:`evalkit.rules.draft`): every rule with its evidence
episodes, refused by every ``--rules`` option until a person copies the rules into a
versioned rule set. This module reads run directories, so :mod:`evalkit.rules` does not
import it.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from evalkit.errors import ConfigError, EvalkitError, RunError
from evalkit.rules.draft import DraftRuleSet, EvidenceEpisode, Misaction, RejectedCandidate, RuleEvidence
from evalkit.rules.loader import load_draft
from evalkit.rules.schema import Rule, When
from evalkit.runtime.events import ActionDecided, Event, EventLog, ToolExecuted
from evalkit.runtime.gate import Situation
from evalkit.runtime.view import View, apply
from evalkit.conditions.registry import CONDITIONS, get_condition
from evalkit.scenarios.loader import load_suite
from evalkit.harness.atomic import write_output

DRAFT_NAME = "rules-draft.yaml"
_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class _Point:
    """A misaction call and what a rule could see there."""

    row: dict[str, Any]
    misaction: Misaction
    call: ToolExecuted
    signal: tuple[str, str] | None  # (signal, source tool)
    signals: tuple[str, ...]
    domain: str
    situation: Situation  # what the gate would have matched the call against


def _meta_tool_names() -> set[str]:
    return {name for c in CONDITIONS for name in get_condition(c).meta_tools()}


def prefix(tool: str) -> str:
    """A tool's name prefix up to and including its first ``_`` (``get_order`` → ``get_``);
    the whole name when it has none."""
    head, sep, _ = tool.partition("_")
    return head + sep if sep else tool


def _good(row: dict[str, Any]) -> bool:
    return row.get("status") == "ok" and bool(row.get("correct"))


def _critical_tools(run_dir: Path, manifest: dict[str, Any]) -> dict[str, set[str]]:
    """Pair id → its abstain side's critical tools (empty: every commit), from the run's suite;
    ``{}`` when the suite cannot be loaded any more (then every commit counts)."""
    cfg = manifest.get("config", {})
    try:
        suite = load_suite(cfg.get("suites") or [], tasks_dir=Path(cfg["tasks_dir"]) if cfg.get("tasks_dir") else None)
    except (EvalkitError, OSError):
        return {}
    return {p.id: set(p.abstain.expected.critical_tools or []) for p in suite.pairs if p.abstain is not None}


def _point(row: dict[str, Any], events: tuple[Event, ...], misaction: Misaction, critical: set[str] | None,
           meta_tools: set[str]) -> _Point | None:
    target: ToolExecuted | None = None
    if misaction == "wrong_commit":
        target = next((e for e in events if type(e) is ToolExecuted and e.kind == "commit" and e.ok
                       and (not critical or e.tool in critical)), None)
    else:
        decided = [e for e in events if type(e) is ActionDecided and e.tool not in meta_tools]
        tail = {e.call_id for e in decided[len(decided) - int(row.get("lag") or 0):]} if row.get("lag") else set()
        target = next((e for e in events if type(e) is ToolExecuted and e.call_id in tail), None)
    if target is None:
        return None
    view = View()
    for e in events:
        if e is target:
            break
        view = apply(view, e)
    opened = view.open_signals
    last = (opened[-1][0], opened[-1][1]) if opened else None
    return _Point(row, misaction, target, last, tuple(f"{s[0]}@{s[1]}" for s in opened), view.domain,
                  Situation(target.tool, target.kind, target.arguments, view.domain, opened))


_Good = tuple[dict[str, Any], tuple[Situation, ...]]
"""A correct act-side episode: its row and the situation of every call that ran."""


def _good_episode(row: dict[str, Any], events: tuple[Event, ...]) -> _Good:
    """Fold the log once and keep the situation of each successful call (as in
    :func:`evalkit.rules.matcher.scan_log` with every kind)."""
    view = View()
    situations = []
    for e in events:
        if type(e) is ToolExecuted and e.ok:
            situations.append(Situation(e.tool, e.kind, e.arguments, view.domain, view.open_signals))
        view = apply(view, e)
    return row, tuple(situations)


def _rule(rule_id: str, when: dict[str, Any], then: str, message: str, trigger: str | None) -> Rule:
    return Rule.model_validate({"id": rule_id, "when": when, "then": then, "message": message, "trigger": trigger})


def _good_hits(rule: Rule, good: list[_Good]) -> list[str]:
    """Correct act-side episodes in which ``rule`` would have stopped a call. (A candidate's id
    never fired in the run, so no earlier answer to it can let a call through.)"""
    return [r["episode_id"] for r, situations in good if any(rule.when.holds(s) for s in situations)]


def _separating_args(points: list[_Point], tool: str, good: list[_Good]) -> list[dict[str, Any]]:
    """Argument tests that hold for every evidence call of ``tool`` and for none of the good
    calls of ``tool`` (see the module docstring), in the order they are tried."""
    good_args = [st.arguments for _, situations in good for st in situations if st.tool == tool]
    names = sorted(set.intersection(*(set(p.call.arguments) for p in points))) if points else []
    out = []
    for name in names:
        bad = [p.call.arguments[name] for p in points]
        ok_vals = [a[name] for a in good_args if name in a]
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in bad + ok_vals)
        if numeric and ok_vals:
            if min(bad) > max(ok_vals):
                out.append({name: {"gt": max(ok_vals)}})
            elif max(bad) < min(ok_vals):
                out.append({name: {"lt": min(ok_vals)}})
        try:
            if not any(v in ok_vals for v in bad):
                out.append({name: {"in": sorted(set(bad), key=json.dumps) if all(
                    isinstance(v, (str, int, float, bool)) for v in bad) else list(bad)}})
        except TypeError:
            continue
    return out


def _message(when: dict[str, Any], then: str, points: list[_Point]) -> str:
    kinds = Counter(p.misaction for p in points)
    what = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in kinds.items())
    step = "ask the user before going on" if then == "clarify" else "stop and tell the user why"
    return (f"Stopped by a rule distilled from {len(points)} misaction episode(s) ({what}) in which "
            f"{When.model_validate(when).describe()}; {step}.")


def _slug(text: str) -> str:
    return _SLUG.sub("-", text).strip("-") or "rule"


def _evidence(p: _Point) -> EvidenceEpisode:
    r = p.row
    detail = (f"{p.call.tool} ran (seq {p.call.seq})"
              + (f" with {', '.join(p.signals)} unresolved" if p.signals else " with no unresolved signal")
              + (f"; lag {r.get('lag')}" if p.misaction == "late_abstention" else "; a critical commit"))
    return EvidenceEpisode(episode_id=r["episode_id"], pair_id=r.get("pair_id", ""), variant=r.get("variant", ""),
                           model=r.get("model", ""), condition=r.get("condition", ""), gate=r.get("gate", ""),
                           epoch=int(r.get("epoch", 1)), trigger=str(r.get("trigger") or ""),
                           misaction=p.misaction, tool=p.call.tool, seq=p.call.seq, signals=p.signals, detail=detail)


def _read(run_dir: Path) -> tuple[list[dict[str, Any]], dict[str, Any], int]:
    from evalkit.harness.run_reader import RunReader

    reader = RunReader(run_dir)
    if not reader.jsonl.is_file():
        raise RunError(f"{run_dir}: no results.jsonl (is this a run directory written by `evalkit run`?)")
    rows = list(reader.latest().values())
    manifest = reader.manifest() or {}
    max_lag = int(manifest.get("config", {}).get("max_lag", 1))
    return rows, manifest, max_lag


def _events(run_dir: Path, episode_id: str) -> tuple[Event, ...]:
    from evalkit.harness.run_reader import RunReader

    path = RunReader(run_dir).trace_path(episode_id)
    try:
        if path is None:
            raise FileNotFoundError(episode_id)
        return EventLog.load(path).events
    except OSError:
        raise RunError(f"{path}: missing trace of a recorded episode") from None


def distill(run_dir: str | Path) -> DraftRuleSet:
    """Propose candidate rules from the misaction episodes of a run (module docstring).

    Args:
        run_dir: A run directory written by ``evalkit run``.

    Returns:
        The :class:`DraftRuleSet` (rules in order of evidence size, with their evidence,
        and the rejected candidates).

    Raises:
        RunError: when the directory holds no results or a trace is missing or malformed.
    """
    root = Path(run_dir)
    rows, manifest, max_lag = _read(root)
    critical = _critical_tools(root, manifest)
    meta_tools = _meta_tool_names()
    good: list[_Good] = []
    points: list[_Point] = []
    counts: Counter[str] = Counter()
    for r in rows:
        if r["variant"] in ("act", "act_resist") and _good(r):
            good.append(_good_episode(r, _events(root, r["episode_id"])))
        elif r["variant"] == "abstain":
            kind: Misaction
            if r.get("critical_commits"):
                kind = "wrong_commit"
            elif _good(r) and r.get("timely") is False:
                kind = "late_abstention"
            else:
                continue
            counts[kind] += 1
            p = _point(r, _events(root, r["episode_id"]), kind, critical.get(r["pair_id"]), meta_tools)
            if p is not None:
                points.append(p)
    groups: dict[tuple, list[_Point]] = defaultdict(list)
    for p in points:
        then = "clarify" if p.row.get("expected_decision") == "clarify" else "abstain"
        tool_key = ("tool", p.call.tool) if p.call.kind == "commit" else ("tool_prefix", prefix(p.call.tool))
        sig = (p.signal[0], prefix(p.signal[1])) if p.signal else None
        groups[(sig, tool_key, then)].append(p)
    rules: list[Rule] = []
    evidence: dict[str, RuleEvidence] = {}
    rejected: list[RejectedCandidate] = []
    used: set[str] = set()
    for (sig, (tool_field, tool_value), then), members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        when: dict[str, Any] = {}
        if sig is not None:
            when.update({"signal": sig[0], "source_prefix": sig[1]})
        when[tool_field] = tool_value
        when["domain"] = sorted({p.domain for p in members if p.domain}) or None
        if when["domain"] is None:
            del when["domain"]
        trigger = Counter(str(p.row.get("trigger") or "") for p in members).most_common(1)[0][0] or None
        stem = f"distilled-{_slug(tool_value)}" + (f"-after-{_slug(sig[0])}" if sig else "")
        rule_id, n = f"{stem}-v1", 2
        while rule_id in used:
            rule_id, n = f"{stem}-{n}-v1", n + 1
        tries = [when]
        if tool_field == "tool":
            tries += [{**when, "args": args} for args in _separating_args(members, tool_value, good)]
        chosen = None
        hits: list[str] = []
        for attempt in tries:
            candidate = _rule(rule_id, attempt, then, _message(attempt, then, members), trigger)
            hits = _good_hits(candidate, good)
            covered = [p for p in members if candidate.when.holds(p.situation)]
            if not hits and covered:
                chosen = (candidate, covered)
                break
        episodes = tuple(p.row["episode_id"] for p in members)
        if chosen is None:
            example = f", e.g. {hits[0]}" if hits else ""
            rejected.append(RejectedCandidate(
                when=when, then=then, episodes=episodes,
                reason=f"would also stop calls in {len(hits)} correct act-side episode(s){example}; no argument test "
                       "separates the evidence from them" if hits else "does not match its evidence episodes"))
            continue
        rule, covered = chosen
        used.add(rule_id)
        rules.append(rule)
        evidence[rule_id] = RuleEvidence(episodes=tuple(_evidence(p) for p in covered), act_side_matches=0,
                                         act_side_checked=len(good))
    source_rules = manifest.get("rules") or None
    base = (source_rules or {}).get("id") or "evalkit"
    now = _dt.datetime.now(_dt.timezone.utc)
    return DraftRuleSet(
        draft=True,
        id=f"{base}-draft",
        version=f"draft-{now:%Y%m%d}",
        description=(f"Candidate stopping rules distilled from {sum(counts.values())} misaction episode(s) of run "
                     f"{root}. Review each rule with its evidence; copy the ones you adopt into a versioned rule "
                     "set (new version, changelog entry). A draft is never active."),
        source={"run": str(root), "created": now.isoformat(timespec="seconds"), "rules": source_rules,
                "gates": sorted({str(r.get("gate")) for r in rows}), "max_lag": max_lag,
                "misactions": dict(counts), "act_side_episodes_checked": len(good)},
        rules=tuple(rules),
        evidence=evidence,
        rejected=tuple(rejected),
    )


def draft_yaml(draft: DraftRuleSet) -> str:
    """The draft as YAML, with a header saying what it is and how to adopt a rule."""
    data = draft.model_dump(mode="json", by_alias=True, exclude={"sha256"})
    data["rules"] = [r.model_dump(mode="json", by_alias=True, exclude_none=True) for r in draft.rules]
    for rule in data["rules"]:
        if not rule["when"].get("args"):
            rule["when"].pop("args", None)
        else:
            rule["when"]["args"] = {k: {op: v for op, v in t.items() if v is not None}
                                    for k, t in rule["when"]["args"].items()}
    header = ("# DRAFT stopping rules written by `evalkit rules distill` - never active.\n"
              "# `--rules` refuses this file. To adopt a rule, copy it (without its evidence) into a versioned\n"
              "# rule set with a new version and changelog entry, then compare the two sets with `evalkit rules eval`.\n")
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def write_draft(draft: DraftRuleSet, path: str | Path) -> Path:
    """Write ``draft`` as YAML to ``path`` and check that it loads back as a valid draft.

    Raises:
        ConfigError: when the written file does not validate (a bug, never silent).
    """
    out = Path(path)
    write_output(out, draft_yaml(draft))
    try:
        load_draft(out)
    except ConfigError as exc:
        raise ConfigError(f"the draft written to {out} does not validate: {exc}") from None
    return out
