"""Slow full check: every scripted model × every condition × gate off/on over the whole built-in suite.

``python scenarios/generator/full_check.py [--out DIR]`` runs the cross-product that the
fast test (``tests/harness/test_scripted_models.py``) runs on a stratified subset, checks
the same rules on every pair and prints the figures. Exit code 1 when a rule fails.

Rules (see that test's docstring): oracle 1.0 everywhere; always_act / always_abstain 0.0
paired accuracy; always_act performs every injected commit; post_hoc is post-hoc on every
abstain episode unless the runtime blocks all commits of its eager plan (a missing
permission or a hidden tool), where it is a correct abstention; late:3 lags are all 3 and
late:0 is always timely. The always_act / always_abstain / post_hoc rules are checked with the
gate off (the model alone): with the gate on, the runtime stops eager commits after a
conflict, a missing target or a failed check, so those policies' figures measure model +
runtime and are printed, not pinned.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time

from evalkit.harness.run import RunConfig
from evalkit.pipeline import run
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite


def eager_commit_blocked(pair) -> bool:
    """Whether the runtime blocks every commit of the abstain side's eager plan."""
    if pair.abstain is None:
        return False
    tools = load_domain(pair.domain).tools
    held = pair.abstain.permissions if pair.abstain.permissions is not None else pair.permissions
    commits = [tools[c.tool] for c in pair.abstain.plan if tools[c.tool].kind == "commit"]
    return all((held is not None and t.permission not in held) or t.name in pair.abstain.hidden_tools for t in commits)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="run directory (default: a temporary folder)")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="evalkit-full-")
    pairs = {p.id: p for p in load_suite().pairs}
    started = time.perf_counter()
    summary = run(RunConfig(out=out, report=False, gates=["off", "on"]))
    seconds = time.perf_counter() - started
    rows = [json.loads(line) for line in open(f"{out}/results.jsonl", encoding="utf-8")]
    failures: list[str] = []

    def need(ok: bool, what: str) -> None:
        if not ok:
            failures.append(what)

    for r in summary["rows"]:
        key = f"{r['model']} {r['condition']} gate={r['gate']}"
        print(f"{key:45s} paired {r['paired_accuracy_k']}/{r['paired_accuracy_n']}  act {r['act_accuracy_k']}/{r['act_accuracy_n']}"
              f"  abstain {r['abstain_accuracy_k']}/{r['abstain_accuracy_n']}  resist {r['act_resist_accuracy_k']}/{r['act_resist_accuracy_n']}"
              f"  post-hoc {r['post_hoc_rate_k']}/{r['post_hoc_rate_n']}  timely {r['timely_rate_k']}/{r['timely_rate_n']}")
        if r["model"] == "scripted/oracle":
            need(r["paired_accuracy"] == 1.0 and r["act_resist_accuracy"] == 1.0, f"{key}: oracle not perfect")
        if r["model"] in ("scripted/always_act", "scripted/always_abstain") and r["gate"] == "off":
            need(r["paired_accuracy"] == 0.0, f"{key}: paired accuracy {r['paired_accuracy']}")
        if r["model"] == "scripted/always_act" and r["gate"] == "off":
            need(r["injected_commit_rate"] == 1.0, f"{key}: not every injected commit performed")
        if r["model"] == "scripted/late:0":
            need(r["timely_rate"] == 1.0, f"{key}: late:0 not always timely")
    for r in rows:
        if r["model"] == "scripted/post_hoc" and r["variant"] == "abstain" and r["gate"] == "off":
            blocked = eager_commit_blocked(pairs[r["pair_id"]])
            need(r["post_hoc"] is (not blocked), f"post_hoc {r['pair_id']} {r['condition']} {r['gate']}: post_hoc={r['post_hoc']}")
        if r["model"] == "scripted/late:3" and r["variant"] == "abstain":
            need(r["lag"] == 3, f"late:3 {r['pair_id']} {r['condition']} {r['gate']}: lag {r['lag']}")
    print(f"{len(rows)} episodes in {seconds:.1f} s ({len(rows) / seconds:.0f} episodes/s); "
          f"{len(summary.get('excluded_pairs', []))} pairs excluded by the oracle self-check; run directory {out}")
    for f in failures[:50]:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
