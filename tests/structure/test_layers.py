"""The layer order of DESIGN §1, enforced by import-linter's layers contract in pyproject.toml.

Every import counts, at module top level or inside a function (grimp reads both). The contract
is run through import-linter's Python API; a broken contract fails the test with
import-linter's own description: the layers and each offending import chain with its line.
The second test copies the package, adds one backward import inside a function and checks
that the contract breaks on the copy, naming that import.

Run as a script (``python tests/structure/test_layers.py PYPROJECT``) it checks the
``evalkit`` package found first on ``sys.path`` and prints the violations (exit code 1).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"


def contract_violations(config_file: str | Path) -> str | None:
    """Run the import-linter contracts of ``config_file`` on the ``evalkit`` package first on
    ``sys.path``.

    Returns:
        ``None`` when every contract is kept, else import-linter's report: each broken
        contract with the offending import chains and their line numbers (or the error that
        kept the contracts from running).
    """
    from importlinter.application import output
    from importlinter.application.use_cases import lint_imports
    from importlinter.configuration import configure

    configure()
    with output.console.capture() as captured:
        kept = lint_imports(str(config_file), cache_dir=None, no_logo=True)
    return None if kept else captured.get()


def test_the_package_keeps_the_layer_order():
    import importlinter.api

    config = importlinter.api.read_configuration(str(PYPROJECT))
    (contract,) = config["contracts_options"]
    assert contract["type"] == "layers" and contract["containers"] == ["evalkit"]
    assert contract["exhaustive"] == "True"  # a new top-level module must be given a layer
    assert "ignore_imports" not in contract  # no exemption
    # `rules` is split over two layers, module by module: each of its modules must have one
    listed = {tail for layer in contract["layers"] for tail in layer.split(":") if tail.strip().startswith("rules.")}
    modules = {f"rules.{p.stem}" for p in (ROOT / "evalkit" / "rules").glob("*.py") if p.stem != "__init__"}
    assert {t.strip() for t in listed} == modules
    violations = contract_violations(PYPROJECT)
    assert violations is None, f"imports against the layer order (DESIGN §1):\n{violations}"


def test_a_backward_import_inside_a_function_breaks_the_contract(tmp_path):
    shutil.copytree(ROOT / "evalkit", tmp_path / "evalkit", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    policy = tmp_path / "evalkit" / "runtime" / "policy.py"
    lines = policy.read_text(encoding="utf-8").splitlines()
    lines += ["", "", "def _backward():", "    from evalkit.report.html import render_report", "",
              "    return render_report"]
    policy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    line = len(lines) - 2  # the import's line number

    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), str(tmp_path / "pyproject.toml")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "evalkit.runtime is not allowed to import evalkit.report" in proc.stdout
    assert f"evalkit.runtime.policy -> evalkit.report.html (l.{line})" in proc.stdout
    assert proc.stdout.count("is not allowed to import") == 1  # that import is the only violation


if __name__ == "__main__":
    found = contract_violations(sys.argv[1])
    print(found or "kept")
    sys.exit(1 if found else 0)
