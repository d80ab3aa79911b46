"""A plugin's faults stop the run with one clear error (exit 2) and never cost a written row:
a metric value not of its field's declared type is caught when the episode is scored, and the
result-row rewrite at the end of a run keeps every well-formed row the run wrote."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evalkit.errors import ConfigError

BUILTIN = Path(__file__).resolve().parents[2] / "scenarios" / "builtin.yaml"
ROW = {"turns": 1, "stated": "act", "tool_calls": 0}


def _evalkit(*args: str, plugins: str, path: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(path), env.get("PYTHONPATH", "")) if p)
    env["EVALKIT_PLUGINS"] = plugins
    return subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def _module(folder: Path, name: str, body: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.py").write_text(textwrap.dedent(body), encoding="utf-8")


@pytest.mark.parametrize("ftype, value, shown", [
    ("flag", 1, "got 1 (int)"),
    ("flag", "no", "got 'no' (str)"),
    ("measure", -0.5, "got -0.5 (float)"),
    ("measure", float("nan"), "got nan (float)"),
    ("count", 2.5, "got 2.5 (float)"),
    ("text", 3, "got 3 (int)"),
])
def test_a_metric_value_of_the_wrong_type_is_an_error_naming_metric_field_and_value(ftype, value, shown):
    from evalkit.metrics.registry import MetricValueError, add_episode_fields, metric, unregister_metric

    kind = "count" if ftype in ("count", "measure") else "rate" if ftype == "flag" else "count"
    if ftype == "text":
        metric("labelled", kind="count", fields={"label_text": "text", "label_n": "count"}, field="label_n")(
            lambda view: {"label_text": value})
        name, field = "labelled", "label_text"
    else:
        metric("wrong_typed", kind=kind, fields={"wrong": ftype})(lambda view: {"wrong": value})
        name, field = "wrong_typed", "wrong"
    try:
        with pytest.raises(MetricValueError, match=rf"metric '{name}': field '{field}' \(declared {ftype}\) " + re.escape(shown)):
            add_episode_fields(None, (), {}, dict(ROW))
    finally:
        unregister_metric(name)


def test_numpy_scalars_become_python_values():
    np = pytest.importorskip("numpy")
    from evalkit.metrics.registry import add_episode_fields, metric, unregister_metric

    metric("np_typed", kind="count", fields={"np_flag": "flag", "np_count": "count", "np_measure": "measure"},
           field="np_count")(lambda view: {"np_flag": np.bool_(True), "np_count": np.int64(3),
                                           "np_measure": np.float32(0.5)})
    row = dict(ROW)
    try:
        add_episode_fields(None, (), {}, row)
    finally:
        unregister_metric("np_typed")
    assert (row["np_flag"], row["np_count"], row["np_measure"]) == (True, 3, 0.5)
    assert (type(row["np_flag"]), type(row["np_count"]), type(row["np_measure"])) == (bool, int, float)
    json.dumps(row, allow_nan=False)


def test_a_mean_over_a_text_field_is_refused_at_registration():
    from evalkit.metrics.registry import Metric, register_metric

    with pytest.raises(ConfigError, match="metric 'note_mean': kind: a mean aggregates a number; field 'note' is text"):
        register_metric(Metric("note_mean", "mean", fields={"note": "text"}))


BAD_METRIC = """
from evalkit.metrics.registry import metric

@metric("bad_flag_rate", kind="rate", fields={"bad_flag": "flag"})
def bad_flag(view):
    # a plugin bug: an int where a flag is declared, on the always_act model's episodes only
    return {"bad_flag": 1 if view.spec.model == "scripted/always_act" else True}
"""

FIXED_METRIC = BAD_METRIC.replace("1 if", "False if")


def test_a_run_with_a_wrongly_typed_metric_stops_with_exit_2_and_resumes_once_fixed(tmp_path):
    plugins = tmp_path / "plugins"
    _module(plugins, "bad_metric", BAD_METRIC)
    out = tmp_path / "run"
    args = ("run", "--model", "scripted/oracle", "--model", "scripted/always_act", "--condition", "tool",
            "--limit", "3", "--no-selfcheck", "--no-report", "--out", str(out))
    first = _evalkit(*args, plugins="bad_metric", path=plugins, cwd=tmp_path)
    assert first.returncode == 2, first.stderr
    assert "metric 'bad_flag_rate': field 'bad_flag' (declared flag) got 1 (int)" in first.stderr
    assert "Traceback" not in first.stderr
    written = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert all(r["model"] == "scripted/oracle" and r["bad_flag"] is True for r in written)
    assert not (out / "summary.json").exists()

    _module(plugins, "bad_metric", FIXED_METRIC)
    again = _evalkit("run", "--resume", str(out), plugins="bad_metric", path=plugins, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 12  # 3 pairs x 2 sides x 2 models, every row kept
    assert {r["model"]: r["bad_flag"] for r in rows} == {"scripted/oracle": True, "scripted/always_act": False}
    summary = json.loads((out / "summary.json").read_text())
    assert all(r["missing"] == 0 for r in summary["rows"])


@pytest.mark.parametrize("name, declaration, message", [
    ("Bad-Name", {"kind": "rate", "fields": {"x": "flag"}}, "name: 'Bad-Name' is not an identifier"),
    ("", {"kind": "rate", "fields": {"x": "flag"}}, "name: '' is not an identifier"),
    ("avg_x", {"kind": "average", "fields": {"x": "measure"}}, "kind: 'average' is not one of rate, mean, count"),
    ("x_rate", {"kind": "rate", "fields": {"x": "flag"}, "over": "all"}, "over: 'all' is not one of"),
    ("x_rate", {"kind": "rate", "fields": {"x": "flag"}, "direction": "up"}, "direction: 'up' is not higher"),
    ("x_mean", {"kind": "mean", "fields": {"x": "measure"}, "low": 5, "high": 1}, "low, high: 5 is not below 1"),
    ("x_rate", {"kind": "rate", "fields": {"x": "flag"}, "variants": ("abstian",)},
     "variants: 'abstian' is not a variant kind"),
    ("x_rate", {"kind": "rate", "fields": {"x": "flag", "y": "flag"}, "field": "z"},
     "field: 'z' is not one of its fields"),
    ("x_rate", {"kind": "rate", "fields": {"x": "flag"}, "label": "paired acc"},
     "label 'paired acc' is the label of metric 'paired_accuracy'"),
])
def test_a_broken_metric_declaration_is_refused_naming_the_attribute(name, declaration, message):
    from evalkit.metrics.registry import get_metric, metric

    with pytest.raises(ConfigError, match=re.escape(f"metric {name!r}: {message}")):
        metric(name, **declaration)(lambda view: {})
    assert get_metric(name) is None


def test_the_end_of_a_run_keeps_a_row_that_fails_a_field_check(tmp_path):
    """A well-formed row whose metric field is of the wrong type (written by an earlier evalkit,
    or edited by hand) stays in results.jsonl; it is not counted and its episode runs again on
    resume; only a line that is not a JSON object is left out."""
    from evalkit.harness.config import load_config
    from evalkit.harness.run_reader import ResultsWarning
    from evalkit.harness.store import RunStore
    from evalkit.metrics.registry import metric, unregister_metric
    from evalkit.pipeline import finish, run
    from evalkit.harness.config import RunConfig

    metric("good_flag_rate", kind="rate", fields={"good_flag": "flag"})(lambda view: {"good_flag": True})
    try:
        out = tmp_path / "run"
        run(RunConfig(models=["scripted/oracle"], conditions=["tool"], limit=2, out=str(out), selfcheck=False,
                      report=False))
        lines = (out / "results.jsonl").read_text().splitlines()
        rows = [json.loads(line) for line in lines]
        rows[0]["good_flag"] = 1  # a field check fails
        (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + "[1, 2]\n")
        store = RunStore(out)
        plan = [tuple(r[k] for k in ("pair_id", "variant", "model", "condition", "gate", "epoch")) for r in rows]
        with pytest.warns(ResultsWarning, match="a result row not counted: field good_flag: 1 is not true or false"):
            summary = finish(store, plan, load_config(out))
        kept = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        assert kept == rows  # every row, in plan order; the JSON array line left out
        assert summary["rows"][0]["missing"] == 1 and summary["rows"][0]["completed"] == len(rows) - 1
        assert store.completed_keys() == set(plan[1:])  # the unusable row's episode runs again on resume
    finally:
        unregister_metric("good_flag_rate")


def _tool(name: str):
    from evalkit.runtime.tools import ToolSpec

    return ToolSpec(name=name, kind="lookup", domain="meta", description="stop",
                    parameters={"type": "object", "properties": {}, "additionalProperties": False})


def _handler(answers, tools, **options):
    from evalkit.conditions.handlers import PlainToolHandler

    return PlainToolHandler(answers, tools, **options)


@pytest.mark.parametrize("declaration, message", [
    ({"name": "Bad Name"}, "condition 'Bad Name': name: 'Bad Name' is not an identifier"),
    ({"prompt": None}, "condition 'stopper': prompt: none given and no file"),
    ({"prompt": "  "}, "condition 'stopper': prompt: empty"),
    ({"handler": None}, "condition 'stopper': handler: none given, while it offers meta tools (stop_now)"),
    ({"signals": {"declare_blocked": ("stop_now", {}), "request_user_decision": ("stop_now", {})}},
     "condition 'stopper': signals: 'declare_blocked' and 'request_user_decision' are both calls of tool 'stop_now'"),
    ({"signals": {"declare_blokced": ("stop_now", {})}}, "condition 'stopper': signals: 'declare_blokced' is not a "
                                                         "meta type"),
])
def test_a_broken_condition_declaration_is_refused_naming_the_field(declaration, message):
    from evalkit.conditions.registry import CONDITIONS, ConditionSpec, register_condition
    from evalkit.runtime.signals import DecisionSignals, Signal

    signals = {mtype: Signal(tool, fixed=fixed)
               for mtype, (tool, fixed) in declaration.pop("signals", {"declare_blocked": ("stop_now", {})}).items()}
    fields = {"name": "stopper", "description": "d", "meta_tools": lambda: {"stop_now": _tool("stop_now")},
              "handler": _handler, "signals": DecisionSignals(signals), "prompt": "Stop with stop_now.", **declaration}
    with pytest.raises(ConfigError, match=re.escape(message)):
        register_condition(ConditionSpec(**fields))
    assert fields["name"] not in CONDITIONS


def test_a_meta_tool_named_like_a_task_tool_stops_the_run_naming_condition_tool_and_domain(tmp_path):
    """Not an oracle self-check exclusion, nor an error per episode: exit 2 before any episode."""
    from evalkit.conditions.registry import ConditionSpec, register_condition, unregister_condition
    from evalkit.harness.config import RunConfig
    from evalkit.pipeline import run
    from evalkit.runtime.signals import DecisionSignals, Signal
    from evalkit.scenarios.domains import load_domain
    from evalkit.scenarios.loader import load_suite

    pair = load_suite([BUILTIN]).pairs[0]
    task_tool = sorted(load_domain(pair.domain).tools)[0]
    register_condition(ConditionSpec("clashing", "a meta tool named like a task tool",
                                     lambda: {task_tool: _tool(task_tool)}, _handler,
                                     signals=DecisionSignals({"declare_blocked": Signal(task_tool)}), prompt="p"))
    try:
        for selfcheck in (True, False):
            with pytest.raises(ConfigError, match=re.escape(
                    f"condition 'clashing': meta tool {task_tool!r} has the name of a task tool of domain "
                    f"{pair.domain!r}")):
                run(RunConfig(suites=[str(BUILTIN)], pair_ids=[pair.id], models=["scripted/oracle"],
                              conditions=["clashing"], out=str(tmp_path / f"run{selfcheck}"), selfcheck=selfcheck,
                              report=False))
            assert not (tmp_path / f"run{selfcheck}" / "results.jsonl").exists()
    finally:
        unregister_condition("clashing")


def test_a_provider_name_cannot_be_registered_twice():
    from evalkit.models.registry import Provider, get_provider, register, unregister

    with pytest.raises(ConfigError, match="provider 'openai' is registered already"):
        register(Provider("openai", factory=lambda name, options: None))
    assert get_provider("openai").live
    with pytest.raises(ConfigError, match="provider name 'My Provider' must be a non-empty word"):
        register(Provider("My Provider", factory=lambda name, options: None))
    with pytest.raises(ConfigError, match="provider 'notcall': factory 3 is not callable"):
        register(Provider("notcall", factory=3))
    unregister("notcall")


@pytest.mark.parametrize("factory, message", [
    (lambda name, options: None, "provider 'faulty': its factory returned None for model 'm1'"),
    (lambda name, options: 1 / 0, "provider 'faulty': its factory failed for model 'm1': ZeroDivisionError"),
])
def test_a_provider_factory_that_fails_is_a_config_error_naming_it(factory, message):
    from evalkit.models.registry import Provider, get_model, register, unregister

    register(Provider("faulty", factory=factory))
    try:
        with pytest.raises(ConfigError, match=re.escape(message)):
            get_model("faulty/m1")
    finally:
        unregister("faulty")


def test_a_metric_function_that_raises_is_an_error_naming_the_metric():
    from evalkit.metrics.registry import MetricValueError, add_episode_fields, metric, unregister_metric

    metric("crashing_rate", kind="rate", fields={"crashing": "flag"})(lambda view: view.row["no_such_column"])
    try:
        with pytest.raises(MetricValueError, match="metric 'crashing_rate': its episode function raised KeyError"):
            add_episode_fields(None, (), {}, dict(ROW))
    finally:
        unregister_metric("crashing_rate")


def test_only_a_plugin_module_not_found_gets_the_pythonpath_hint(tmp_path, monkeypatch):
    """A module that is there but raises on import (a missing dependency, a syntax error, any
    exception) is named with the real error; the PYTHONPATH hint is for a module not found."""
    import evalkit.plugins as plugins

    _module(tmp_path, "p1_needs_dep", "import p1_no_such_dependency\n")
    _module(tmp_path, "p1_bad_syntax", "def broken(:\n    pass\n")
    _module(tmp_path, "p1_raises", "raise RuntimeError('no config for the plugin')\n")
    _module(tmp_path / "p1_pkg", "__init__", "")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "_loaded", set())
    monkeypatch.setattr(plugins, "_failed", {})
    monkeypatch.setenv("EVALKIT_PLUGINS", "p1_needs_dep,p1_bad_syntax,p1_raises,p1_pkg.absent,p1_absent.sub")
    try:
        with pytest.raises(ConfigError) as caught:
            plugins.load_env_modules()
    finally:
        sys.modules.pop("p1_pkg", None)
    needs_dep, bad_syntax, raises, absent_sub, absent_pkg = caught.value.problems
    assert needs_dep == ("EVALKIT_PLUGINS: module 'p1_needs_dep' cannot be imported: it raised ModuleNotFoundError: "
                         "No module named 'p1_no_such_dependency'")
    assert bad_syntax.startswith("EVALKIT_PLUGINS: module 'p1_bad_syntax' cannot be imported: it raised SyntaxError: ")
    assert "p1_bad_syntax.py, line 1" in bad_syntax and "PYTHONPATH" not in bad_syntax
    assert raises == ("EVALKIT_PLUGINS: module 'p1_raises' cannot be imported: it raised RuntimeError: no config for "
                      "the plugin")
    assert absent_sub == ("EVALKIT_PLUGINS: module 'p1_pkg.absent' cannot be imported: ModuleNotFoundError: No module "
                          "named 'p1_pkg.absent' (is its folder on PYTHONPATH?)")
    assert absent_pkg == ("EVALKIT_PLUGINS: module 'p1_absent.sub' cannot be imported: ModuleNotFoundError: No module "
                          "named 'p1_absent' (is its folder on PYTHONPATH?)")
    assert str(caught.value).startswith("5 plugins cannot be loaded:\n  EVALKIT_PLUGINS: module 'p1_needs_dep'")


def test_a_plugin_that_calls_sys_exit_on_import_is_an_error_naming_it(tmp_path, monkeypatch):
    import evalkit.plugins as plugins

    _module(tmp_path, "p1_exits", "import sys\nsys.exit(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "_loaded", set())
    monkeypatch.setattr(plugins, "_failed", {})
    monkeypatch.setenv("EVALKIT_PLUGINS", "p1_exits")
    with pytest.raises(ConfigError) as caught:
        plugins.load_env_modules()
    assert caught.value.problems == ["EVALKIT_PLUGINS: module 'p1_exits' cannot be imported: it raised SystemExit: 3"]
