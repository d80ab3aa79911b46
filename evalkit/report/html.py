"""The self-contained HTML report of a run directory.

:func:`render_report` reads ``summary.json``, ``results.parquet`` (or ``results.jsonl``)
and ``config.json`` and writes ``report.html``: one file with its CSS and charts inlined,
rendered by jinja2 with autoescaping on, so model text is always shown as text (field
case C23: no ``|safe`` on model or tool content).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalkit.errors import RunError
from evalkit.harness.store import write_atomic

_TEMPLATES = Path(__file__).resolve().parent / "templates"


def _env():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined,
    )
    env.filters["pct"] = lambda v: "n/a" if v is None else f"{100 * v:.1f}%"
    env.filters["num"] = lambda v: "n/a" if v is None else f"{v:.3f}"
    return env


def _load_rows(run_dir: Path) -> list[dict[str, Any]]:
    parquet = run_dir / "results.parquet"
    if parquet.exists():
        import pandas as pd

        frame = pd.read_parquet(parquet)
        return json.loads(frame.to_json(orient="records"))
    jsonl = run_dir / "results.jsonl"
    if jsonl.exists():
        return [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines() if line.strip()]
    return []


def render_report(run_dir: str | Path) -> Path:
    """Render ``run_dir/report.html``.

    Args:
        run_dir: A run directory written by :func:`evalkit.harness.run.run`.

    Returns:
        Path of the report.

    Raises:
        RunError: when ``summary.json`` is missing or unreadable.
    """
    from evalkit.report.charts import paired_accuracy_chart

    root = Path(run_dir)
    if not root.is_dir():
        raise RunError(f"{root}: no such run directory")
    try:
        summary = json.loads((root / "summary.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunError(f"{root}: no summary.json (is this a run directory written by `evalkit run`?)") from None
    except json.JSONDecodeError as exc:
        raise RunError(f"{root / 'summary.json'}: not valid JSON ({exc.msg})") from None
    config: dict[str, Any] = {}
    if (root / "config.json").exists():
        config = json.loads((root / "config.json").read_text(encoding="utf-8"))
    rows = _load_rows(root)
    summary_rows = summary.get("rows", [])
    columns = [(r["model"], r["condition"]) for r in summary_rows]
    cells: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    pair_info: dict[str, dict[str, Any]] = {}
    for r in rows:
        pair_info.setdefault(r["pair_id"], {"trigger": r["trigger"], "phase": r["phase"], "domain": r["domain"],
                                            "split": r["split"]})
        cell = cells.setdefault(r["pair_id"], {}).setdefault((r["model"], r["condition"]), {})
        cell[r["variant"]] = r
    html = _env().get_template("report.html.j2").render(
        summary=summary,
        rows=summary_rows,
        config=config,
        chart=paired_accuracy_chart(summary_rows) if summary_rows else None,
        columns=columns,
        cells=cells,
        pairs=pair_info,
        run_dir=str(root),
    )
    out = root / "report.html"
    write_atomic(out, html)
    return out
