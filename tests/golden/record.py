"""Re-record the golden run of the scripted models (``expected.json.xz``).

Usage, from the repository root (with this checkout's evalkit importable)::

    python tests/golden/record.py            # runs the golden job in a temporary folder
    python tests/golden/record.py --from DIR # records an existing run made with the same arguments

Re-record only when a change of *values* is intended and understood — a scripted policy, a
scorer, a metric, the classifier, the built-in suite or task domains that change what the
scripted models do or score — and say so in the commit that changes the data (the test's
failure report lists which episodes and fields moved; check they are the ones meant to).
A change of *shape* that keeps the values (a field renamed, a JSON string become a typed object,
a field added or removed) is declared in ``golden_changes.py`` instead, so the recorded values
keep guarding the refactoring; after re-recording, delete the entries the new data absorbs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from golden_lib import EXPECTED, RUN_ARGS, dump, read_run, run_golden  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="run_dir", type=Path,
                        help="an existing run directory made with: evalkit " + " ".join(RUN_ARGS))
    parser.add_argument("--out", type=Path, default=EXPECTED, help=f"golden file (default: {EXPECTED})")
    args = parser.parse_args(argv)
    if args.run_dir is not None:
        rows, summary = read_run(args.run_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="evalkit-golden-") as tmp:
            rows, summary = read_run(run_golden(Path(tmp) / "run"))
    size = dump(rows, summary, args.out)
    print(f"recorded {len(rows)} episodes and the summary in {args.out} ({size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
