"""Machine checks of a pair's labels (criteria in ``docs/labels.md``).

Each check is a function over one pair's :class:`~evalkit.suite.checks.base.PairContext`
(the pair, its domain, its file and its shared plan runs) returning
:class:`~evalkit.suite.checks.base.Issue` records, each naming the file, the pair, the
field, the criterion (``L1`` … ``L8``) and the severity. :data:`CHECKS` lists them in the
order ``evalkit suite validate`` prints them:

* ``perturbation`` — what differs between the sides, against ``perturbation.kinds`` (L1, L7);
* ``contradiction`` — identical input, opposite labels (L2);
* ``scope`` — the act side passes the runtime's checks and the gate with the shipped rules (L3);
* ``trigger`` — the sides differ in a kind of perturbation the trigger can arise from (L4);
* ``observability`` — the trigger is observable at ``expected.observable_step`` (L4);
* ``grounding`` — every commit argument of the acting plans is supported (L5);
* ``followup`` — a should-clarify side's follow-up answers what is missing and its expected
  commits follow from the conversation (L8, L5).

:func:`check_pairs` runs them over ``(pair, file)`` items (importers and tests use it);
:func:`check_suite` over a loaded :class:`~evalkit.scenarios.loader.Suite`. Each pair's
plans run at most once per (plan, world, gate) and are shared by the checks.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from evalkit.harness.episode import RuntimeSetup
from evalkit.paths import builtin_dir
from evalkit.rules import load_rule_set
from evalkit.suite.checks import contradiction, followup, grounding, observability, perturbation, scope, trigger
from evalkit.suite.checks.base import CRITERIA, CheckOptions, Issue, PairContext
from evalkit.suite.checks.runs import PairRuns
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.schema import Pair

__all__ = ["CHECKS", "CRITERIA", "Check", "CheckOptions", "CheckReport", "Issue", "check_pairs", "check_suite"]


@dataclass(frozen=True)
class Check:
    """One registered check.

    Attributes:
        name: Its name in messages and the census.
        criteria: The label criteria it tests.
        run: ``PairContext -> list[Issue]``.
        applies: Whether the check applies to a pair (the census counts only those).
    """

    name: str
    criteria: tuple[str, ...]
    run: Callable[[PairContext], list[Issue]]
    applies: Callable[[Pair], bool]


CHECKS: dict[str, Check] = {c.name: c for c in (
    Check(perturbation.NAME, ("L1", "L7"), perturbation.check, lambda p: True),
    Check(contradiction.NAME, ("L2",), contradiction.check, lambda p: p.abstain is not None),
    Check(scope.NAME, ("L3",), scope.check, lambda p: True),
    Check(trigger.NAME, ("L4",), trigger.check, lambda p: not p.is_control),
    Check(observability.NAME, ("L4",), observability.check, lambda p: not p.is_control),
    Check(grounding.NAME, ("L5",), grounding.check, lambda p: True),
    Check(followup.NAME, ("L8", "L5"), followup.check, followup.applies),
)}
"""The checks, by name, in report order."""


@dataclass
class CheckReport:
    """The outcome of the checks over a set of pairs.

    Attributes:
        issues: Every issue, in pair order then check order.
        counts: ``{check: {applicable, passed, clean, errors, warnings}}``: pairs the check
            applies to, those with no error, those with no issue at all, and the issues.
        declared_kinds: ``Counter`` of the declared ``perturbation.kinds`` over the pairs.
        inferred_kinds: ``Counter`` of the kinds that differ between the sides, as computed.
        kinds_by_trigger: ``{trigger: Counter}`` of the kinds that differ, per trigger.
        pairs: Pairs checked.
    """

    issues: list[Issue] = field(default_factory=list)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    declared_kinds: Counter = field(default_factory=Counter)
    inferred_kinds: Counter = field(default_factory=Counter)
    kinds_by_trigger: dict[str, Counter] = field(default_factory=dict)
    pairs: int = 0

    @property
    def errors(self) -> list[Issue]:
        """The issues of severity ``error``."""
        return [i for i in self.issues if i.severity == "error"]

    def flagged(self, severity: str | None = "error") -> dict[str, list[str]]:
        """``{check: [pair ids with an issue of this severity (any when None)]}``."""
        out: dict[str, list[str]] = {name: [] for name in self.counts}
        for i in self.issues:
            if (severity is None or i.severity == severity) and i.pair_id not in out[i.check]:
                out[i.check].append(i.pair_id)
        return out

    def reasons(self, severity: str | None = "error") -> dict[str, list[str]]:
        """``{pair id: [one line per issue of this severity (any when None)]}``, in pair order:
        the reasons an importer gives for the pairs it excludes."""
        out: dict[str, list[str]] = {}
        for i in self.issues:
            if severity is None or i.severity == severity:
                out.setdefault(i.pair_id, []).append(f"{i.check} [{i.criterion}] {i.field}: {i.message}")
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (``evalkit suite validate --json``)."""
        return {"pairs": self.pairs, "criteria": CRITERIA, "counts": self.counts,
                "perturbation_kinds": {"declared": dict(self.declared_kinds), "inferred": dict(self.inferred_kinds),
                                       "inferred_by_trigger": {t: dict(c) for t, c in self.kinds_by_trigger.items()}},
                "issues": [i.as_dict() for i in self.issues]}


def _is_under(file: str, root: Path) -> bool:
    try:
        Path(file).resolve().relative_to(root)
        return True
    except ValueError:
        return False


def check_pairs(
    items: Iterable[tuple[Pair, str]],
    *,
    tasks_dir: Path | None = None,
    options: CheckOptions | None = None,
    names: Iterable[str] | None = None,
) -> CheckReport:
    """Run the checks over pairs.

    Args:
        items: ``(pair, file)`` in report order (each pair already loaded and checked
            against its domain, as :func:`~evalkit.scenarios.loader.load_suite` does).
        tasks_dir: Folder of task domains (default: the built-in ``tasks/``).
        options: Severities and runtime setup (:class:`CheckOptions`).
        names: Checks to run (default: all of :data:`CHECKS`).

    Returns:
        The :class:`CheckReport`.

    Raises:
        KeyError: for an unknown check name.
        evalkit.errors.TaskError: for a pair whose domain cannot be loaded.
        evalkit.errors.ConfigError: when the shipped rule set cannot be read (no ``setup``).
    """
    options = options or CheckOptions()
    selected = [CHECKS[n] for n in (names or CHECKS)]
    setup = options.setup
    if setup is None:
        setup = RuntimeSetup(rules=load_rule_set("default"))
    builtin_root = builtin_dir("scenarios").resolve()
    report = CheckReport(counts={c.name: {"applicable": 0, "passed": 0, "clean": 0, "errors": 0, "warnings": 0}
                                 for c in selected})
    for pair, file in items:
        report.pairs += 1
        domain = load_domain(pair.domain, tasks_dir)
        ctx = PairContext(pair, domain, file, PairRuns(pair, domain, setup), _is_under(file, builtin_root), options)
        if pair.perturbation is not None:
            report.declared_kinds.update(pair.perturbation.kinds)
        if ctx.other is not None:
            kinds = list(perturbation.changes(ctx, ctx.other))
            report.inferred_kinds.update(kinds)
            report.kinds_by_trigger.setdefault(pair.trigger, Counter()).update(kinds)
        for c in selected:
            if not c.applies(pair):
                continue
            found = c.run(ctx)
            counts = report.counts[c.name]
            counts["applicable"] += 1
            errors = sum(i.severity == "error" for i in found)
            counts["errors"] += errors
            counts["warnings"] += len(found) - errors
            counts["passed"] += not errors
            counts["clean"] += not found
            report.issues.extend(found)
    return report


def check_suite(suite: Any, *, tasks_dir: Path | None = None, options: CheckOptions | None = None,
                names: Iterable[str] | None = None) -> CheckReport:
    """:func:`check_pairs` over a loaded :class:`~evalkit.scenarios.loader.Suite`."""
    return check_pairs(((p, suite.sources[p.id]) for p in suite.pairs), tasks_dir=tasks_dir, options=options,
                       names=names)
