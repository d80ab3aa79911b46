"""Replaying recorded traces against a rule set, with no model call (DESIGN §8).

``evalkit rules replay TRACES... --rules FILE`` reads recorded episodes and asks, for each
commit that executed, whether a rule of the set would have stopped it (the same fold and
matcher as the live gate: :func:`evalkit.rules.matcher.scan_log`). Every such episode is a
**regression**: the rule set says stop, and the recorded agent committed anyway.

Two input formats, told apart by the first line of each ``.jsonl`` file:

1. **evalkit event logs** — ``RUN/traces/*.jsonl`` as written by ``evalkit run``: one event
   per line, each with a ``type`` (:mod:`evalkit.runtime.events`). A run directory or any
   folder is read as all ``*.jsonl`` files under it (a run directory: under ``traces/``).
2. **the import format** (``evalkit-trace/1``), for traces recorded elsewhere: one episode
   per line, validated by :class:`TraceEpisode`::

       {"episode_id": "ep-1", "domain": "shop", "variant": "abstain",
        "steps": [{"tool": "search_catalog", "kind": "lookup", "arguments": {"query": "X-1"},
                   "signals": ["missing_target"]},
                  {"tool": "place_order", "kind": "commit", "arguments": {"sku": "X-2"}}]}

   A step is one tool call that ran: ``tool``, ``kind`` (``lookup``/``verify``/``commit``),
   ``arguments`` (object, default ``{}``), ``ok`` (default ``true``: a failed commit changed
   nothing and is not checked), ``signals`` (the observation's signals, default ``[]``;
   a signal stays unresolved until the same tool with the same arguments runs without it,
   as in :mod:`evalkit.runtime.view`) and an optional ``result``. ``domain`` and
   ``variant`` (``act``, ``abstain``, ``act_resist``) are optional, ``meta`` holds anything
   else (model, source, …). Unknown fields are errors, so a typo is not silently ignored.

Bad input is one :class:`~evalkit.errors.ConfigError` line naming the file, the line and
the field (exit code 2 in the CLI).

Argument tests are typed as in JSON (:mod:`evalkit.rules.schema`): a commit whose
``quantity`` is the string ``"500"`` does not match ``quantity: {gt: 100}``. Such a
non-match is not silent: the report lists it under ``type_mismatches`` (the episode, the
commit, the rule, the field and why) and the CLI prints one line per commit after the
regressions. It is not a regression and does not change the exit code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit.errors import ConfigError, EvalkitError
from evalkit.rules.matcher import scan
from evalkit.runtime.events import Event, EpisodeStarted, EventLog, ToolExecuted
from evalkit.runtime.gate import StoppingRules

IMPORT_FORMAT = "evalkit-trace/1"


class TraceStep(BaseModel):
    """One executed tool call of an imported trace (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(min_length=1)
    kind: Literal["lookup", "verify", "commit"]
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool = True
    signals: tuple[str, ...] = ()
    result: Any = None


class TraceEpisode(BaseModel):
    """One episode of the import format: an id, optional context and its tool calls in order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    episode_id: str = Field(min_length=1)
    domain: str = ""
    variant: Literal["act", "abstain", "act_resist"] | None = None
    steps: tuple[TraceStep, ...]
    meta: dict[str, Any] = Field(default_factory=dict)

    def events(self) -> list[Event]:
        """The episode as evalkit events: an ``episode_started`` then one ``tool_executed``
        per step (turn ``i + 1``), so the live gate's fold applies unchanged."""
        out: list[Event] = [EpisodeStarted(seq=0, turn=0, episode_id=self.episode_id, variant=self.variant or "",
                                           domain=self.domain, model=str(self.meta.get("model", "")),
                                           tools=tuple(dict.fromkeys(s.tool for s in self.steps)))]
        for i, step in enumerate(self.steps, 1):
            out.append(ToolExecuted(seq=i, turn=i, call_id=f"step_{i}", tool=step.tool, kind=step.kind,
                                    arguments=dict(step.arguments), ok=step.ok, result=step.result,
                                    signals=tuple(step.signals)))
        return out


@dataclass(frozen=True)
class RecordedEpisode:
    """One episode read for replay.

    Attributes:
        episode_id: Its id. ``source``: ``FILE`` (evalkit log) or ``FILE:LINE`` (import format).
        fmt: ``evalkit`` or ``import``. ``variant``, ``model``, ``condition``, ``gate``: what
            the trace says (empty when unknown).
        events: The events, in log order.
    """

    episode_id: str
    source: str
    fmt: str
    events: tuple[Event, ...] = field(repr=False)
    variant: str = ""
    model: str = ""
    condition: str = ""
    gate: str = ""


def _superseded(path: Path, root: Path) -> bool:
    """Whether ``path`` lies in a run directory's ``superseded/`` folder (under ``root``): the event
    log of an errored episode that a resumed run ran again, whose episode is read from ``traces/``."""
    rel = path.relative_to(root).parts[:-1]
    return any(part == "superseded" and (root.joinpath(*rel[:i]) / "config.json").is_file()
               for i, part in enumerate(rel))


def trace_files(paths: Iterable[str | Path]) -> list[Path]:
    """The trace files named by ``paths``: files as given; a folder's ``*.jsonl`` files
    (under ``traces/`` when it is a run directory), sorted, leaving out the logs a resumed run
    superseded (``RUN/superseded/``).

    Raises:
        ConfigError: for a path that does not exist, or when no trace file is found.
    """
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            root = p / "traces" if (p / "traces").is_dir() else p
            out.extend(sorted(f for f in root.rglob("*.jsonl") if f.is_file() and not _superseded(f, root)))
        else:
            raise ConfigError(f"{p}: no such trace file or folder")
    if not out:
        raise ConfigError("no trace files found (give evalkit trace files, run directories or import-format .jsonl files)")
    return list(dict.fromkeys(out))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _first_line(path: Path, text: str) -> tuple[int, Any]:
    for lineno, line in enumerate(text.split("\n"), 1):
        if line.strip():
            try:
                return lineno, json.loads(line, parse_constant=_no_constant)
            except ValueError as exc:
                raise ConfigError(f"{path}:{lineno}: not valid JSON ({exc})") from None
    raise ConfigError(f"{path}: empty trace file")


def _validation_line(path: Path, lineno: int, data: Any, exc: ValidationError) -> ConfigError:
    err = exc.errors()[0]
    loc = ".".join(str(part) for part in err["loc"])
    eid = data.get("episode_id") if isinstance(data, dict) else None
    where = f"episode {eid}: " if isinstance(eid, str) and eid else ""
    return ConfigError(f"{path}:{lineno}: {where}" + (f"field {loc}: " if loc else "") + err["msg"])


def _import_episodes(path: Path, text: str) -> list[RecordedEpisode]:
    out = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line, parse_constant=_no_constant)
        except ValueError as exc:
            raise ConfigError(f"{path}:{lineno}: not valid JSON ({exc})") from None
        try:
            ep = TraceEpisode.model_validate(data)
        except ValidationError as exc:
            raise _validation_line(path, lineno, data, exc) from None
        out.append(RecordedEpisode(ep.episode_id, f"{path}:{lineno}", "import", tuple(ep.events()),
                                   variant=ep.variant or "", model=str(ep.meta.get("model", ""))))
    return out


def load_trace_file(path: str | Path) -> list[RecordedEpisode]:
    """The episodes of one trace file, in either format (see the module docstring).

    Raises:
        ConfigError: naming the file and line of the first problem.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: cannot read the trace: {getattr(exc, 'strerror', None) or exc}") from None
    lineno, first = _first_line(p, text)
    if isinstance(first, dict) and "type" in first:
        try:
            log = EventLog.from_jsonl(text, source=str(p))
        except EvalkitError as exc:
            raise ConfigError(str(exc)) from None
        start = next((e for e in log if type(e) is EpisodeStarted), None)
        get = (lambda name: str(getattr(start, name, "") or "")) if start is not None else (lambda name: "")
        return [RecordedEpisode(get("episode_id") or p.stem, str(p), "evalkit", log.events, variant=get("variant"),
                                model=get("model"), condition=get("condition"), gate=get("gate"))]
    if isinstance(first, dict) and ("steps" in first or "episode_id" in first):
        return _import_episodes(p, text)
    raise ConfigError(f"{p}:{lineno}: not a trace: expected an evalkit event (with a `type` field) or an "
                      f"{IMPORT_FORMAT} episode (with `episode_id` and `steps`)")


def load_traces(paths: Iterable[str | Path]) -> list[RecordedEpisode]:
    """Every episode in ``paths`` (files or folders, see :func:`trace_files`).

    Raises:
        ConfigError: for a missing path, no trace at all, or a malformed file (file and line).
    """
    out: list[RecordedEpisode] = []
    for path in trace_files(paths):
        try:
            episodes = load_trace_file(path)
        except RecursionError:
            raise ConfigError(f"{path}: nested too deeply to be a trace") from None
        out.extend(episodes)
    return out


def replay(episodes: Iterable[RecordedEpisode], rules: StoppingRules) -> dict[str, Any]:
    """Replay ``episodes`` against ``rules`` and list the regressions.

    Args:
        episodes: Recorded episodes (:func:`load_traces`).
        rules: The rule set (:class:`evalkit.rules.RuleSet`).

    Returns:
        ``{"rules", "n_episodes", "n_commits", "n_regression_episodes", "n_matches",
        "by_rule", "regressions", "n_type_mismatches", "type_mismatches"}``: ``n_commits``
        counts the successful commits checked; ``by_rule`` maps a rule id to the commits it
        matched; ``regressions`` has one entry per episode with a match — ``episode_id``,
        ``source``, ``format``, ``variant``, ``model``, ``condition``, ``gate`` and
        ``matches`` (``seq``, ``turn``, ``tool``, ``rule_id``, ``then``, ``message``), in
        input order; ``type_mismatches`` has one entry per commit and rule that did not
        match only because of an argument's JSON type — ``episode_id``, ``source``, ``seq``,
        ``turn``, ``tool``, ``rule_id``, ``field`` (``args.NAME``), ``value`` and ``reason``.
    """
    identity = getattr(rules, "identity", None)
    report: dict[str, Any] = {"rules": identity() if identity is not None else {}, "n_episodes": 0,
                              "n_commits": 0, "n_regression_episodes": 0, "n_matches": 0, "by_rule": {},
                              "regressions": [], "n_type_mismatches": 0, "type_mismatches": []}
    by_rule: dict[str, int] = {}
    for ep in episodes:
        report["n_episodes"] += 1
        report["n_commits"] += sum(1 for e in ep.events if type(e) is ToolExecuted and e.kind == "commit" and e.ok)
        found = scan(ep.events, rules)
        report["type_mismatches"].extend(
            {"episode_id": ep.episode_id, "source": ep.source, "seq": t.seq, "turn": t.turn, "tool": t.tool,
             "rule_id": t.rule_id, "field": t.field, "value": t.value, "reason": t.reason}
            for t in found.type_mismatches)
        matches = found.matches
        if not matches:
            continue
        for m in matches:
            by_rule[m.rule_id] = by_rule.get(m.rule_id, 0) + 1
        report["regressions"].append({
            "episode_id": ep.episode_id, "source": ep.source, "format": ep.fmt, "variant": ep.variant,
            "model": ep.model, "condition": ep.condition, "gate": ep.gate,
            "matches": [{"seq": m.seq, "turn": m.turn, "tool": m.tool, "rule_id": m.rule_id, "then": m.then,
                         "message": m.message} for m in matches],
        })
    report["n_regression_episodes"] = len(report["regressions"])
    report["n_matches"] = sum(by_rule.values())
    report["n_type_mismatches"] = len(report["type_mismatches"])
    report["by_rule"] = dict(sorted(by_rule.items()))
    return report
