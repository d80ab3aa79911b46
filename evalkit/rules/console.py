"""Terminal output of the ``evalkit rules`` commands (rich tables and one-line summaries).

The numbers come from the functions the commands call (:func:`evalkit.rules.replay.replay`,
:func:`evalkit.rules.distill.distill`, :func:`evalkit.rules.evaluate.evaluate_rules`); this
module only formats them. ``rich`` is imported when a table is printed.
"""

from __future__ import annotations

from typing import Any

REPLAY_ROWS = 200
"""Regression rows printed by ``rules replay`` (all of them go to ``--json``)."""

MISMATCH_ROWS = 20
"""Type-mismatch lines printed by ``rules replay`` (all of them go to ``--json``)."""


def _console() -> Any:
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=200)


def print_tables(tables: list[Any]) -> None:
    """Print rich tables to stdout (200 columns wide when not a terminal)."""
    console = _console()
    for table in tables:
        console.print(table)


def print_replay(report: dict[str, Any]) -> None:
    """The regressions of a replay as a table, then a one-line verdict."""
    from rich.table import Table

    rules = report["rules"]
    label = f"{rules.get('id')}@{rules.get('version')}"
    if report["regressions"]:
        table = Table(title=f"regressions: a rule of {label} matches before a commit that executed",
                      title_justify="left")
        for col in ("episode", "side", "model", "commit", "seq", "rule", "then", "source"):
            if col in ("source", "episode"):
                table.add_column(col, overflow="fold")  # ids and paths are shown whole, never cut
            else:
                table.add_column(col, no_wrap=True)
        shown = 0
        for ep in report["regressions"]:
            for m in ep["matches"]:
                if shown < REPLAY_ROWS:
                    table.add_row(ep["episode_id"], ep["variant"] or "?", ep["model"] or "?", m["tool"], str(m["seq"]),
                                  m["rule_id"], m["then"], ep["source"])
                shown += 1
        if shown > REPLAY_ROWS:
            table.caption = f"first {REPLAY_ROWS} of {shown} matches shown (--json FILE writes them all)"
        print_tables([table])
    print(f"replayed {report['n_episodes']} episode(s), {report['n_commits']} executed commit(s), against {label}: "
          + (f"{report['n_regression_episodes']} episode(s) with a regression ({report['n_matches']} commit(s) a rule "
             f"would have stopped: " + ", ".join(f"{k} {v}" for k, v in report["by_rule"].items()) + ")"
             if report["regressions"] else "no regression"))
    mismatches = report.get("type_mismatches") or []
    if mismatches:
        print(f"{len(mismatches)} rule test(s) not applied because an argument has another JSON type than the test "
              "needs (a non-match, not a regression):")
        for t in mismatches[:MISMATCH_ROWS]:
            print(f"  {t['episode_id']} seq {t['seq']} {t['tool']}: rule {t['rule_id']}: {t['reason']} ({t['source']})")
        if len(mismatches) > MISMATCH_ROWS:
            print(f"  … and {len(mismatches) - MISMATCH_ROWS} more (--json FILE writes them all)")


def print_draft(draft: Any, path: Any) -> None:
    """The rules of a draft with their evidence counts, the rejected candidates, and the file."""
    from rich.table import Table

    source = draft.source
    mis = source.get("misactions", {})
    print(f"misaction episodes in {source.get('run')}: {mis.get('wrong_commit', 0)} wrong commit(s), "
          f"{mis.get('late_abstention', 0)} late abstention(s); {len(draft.rules)} candidate rule(s) proposed, "
          f"{len(draft.rejected)} rejected")
    if draft.rules:
        table = Table(title="candidate rules (draft: never active until copied into a rule set)", title_justify="left")
        for col in ("rule", "when", "then", "evidence", "act-side matches"):
            table.add_column(col, justify="right" if col in ("evidence", "act-side matches") else "left")
        for rule in draft.rules:
            ev = draft.evidence[rule.id]
            table.add_row(rule.id, rule.when.describe(), rule.then, str(len(ev.episodes)),
                          f"{ev.act_side_matches} of {ev.act_side_checked}")
        print_tables([table])
    for rej in draft.rejected[:20]:
        print(f"  rejected ({len(rej.episodes)} episode(s)): {rej.reason}")
    if path is not None:
        print(f"wrote {path}")
