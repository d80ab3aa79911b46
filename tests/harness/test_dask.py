"""The Dask executor gives the same result rows as the local executor for the same plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.harness.dask_executor import MAX_BATCH, batches
from evalkit.harness.run import RunConfig
from evalkit.pipeline import run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TIMING = {"latency_s", "wall_s", "duration_s", "created", "started", "finished"}


def _rows(out: Path) -> dict[tuple, dict]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    keyed = {}
    for row in rows:
        key = (row["pair_id"], row["variant"], row["model"], row["condition"], row["gate"], row["epoch"])
        keyed[key] = {k: v for k, v in row.items() if k not in TIMING and not k.endswith("_s")}
    return keyed


def test_batches_cover_every_key_once_in_order():
    keys = [("p", str(i)) for i in range(1000)]
    cut = batches(keys, workers=2)
    assert [k for b in cut for k in b] == keys
    assert len(cut) == 16 and max(map(len, cut)) == MAX_BATCH  # 1000 / 64 -> 16 batches
    assert batches(keys[:5], workers=2) == [[k] for k in keys[:5]]
    assert batches([], workers=4) == []


@pytest.mark.slow
def test_dask_local_cluster_matches_local_executor(tmp_path, monkeypatch):
    pytest.importorskip("dask.distributed")
    import evalkit.harness.run as run_module

    common = dict(suites=[str(FIXTURES / "suites" / "mini.yaml")], tasks_dir=str(FIXTURES / "tasks"),
                  models=["scripted/oracle", "scripted/always_act"], epochs=2, report=False, selfcheck=False,
                  bootstrap_samples=100)
    local = run(RunConfig(out=str(tmp_path / "local"), **common))
    monkeypatch.setattr(run_module, "execute_plan", None)  # the dask run must not touch the local executor
    dask = run(RunConfig(out=str(tmp_path / "dask"), executor="dask", **common))  # LocalCluster on 127.0.0.1
    rows_local, rows_dask = _rows(tmp_path / "local"), _rows(tmp_path / "dask")
    assert len(rows_local) == local["n_episodes_planned"] > 20
    assert rows_dask == rows_local
    assert sorted(p.name for p in (tmp_path / "dask" / "traces").iterdir()) == \
        sorted(p.name for p in (tmp_path / "local" / "traces").iterdir())
    assert dask["rows"] == local["rows"]


def test_a_malformed_scheduler_address_is_a_one_line_option_error():
    import pytest
    from pydantic import ValidationError

    from evalkit.harness.run import RunConfig

    for bad in ("not a url", "tcp://host", "tcp://:8786"):
        with pytest.raises(ValidationError, match="expected tcp://HOST:PORT|not a scheduler address"):
            RunConfig(executor="dask", scheduler_address=bad)
    assert RunConfig(executor="dask", scheduler_address="tcp://127.0.0.1:8786").scheduler_address
