"""Odd gate configs: a bound or a regression setting written as a string or a boolean, an
integer too large for a number, and an empty file are each one config error naming the file
and the field, never a silent coercion (``min: true`` is not 1.0) or a traceback."""

from __future__ import annotations

import pytest

from evalkit.gate.config import GateConfigError, load_gate_config


def error(tmp_path, text: str) -> GateConfigError:
    path = tmp_path / "gate.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GateConfigError) as info:
        load_gate_config(path)
    assert "\n" not in str(info.value) and str(info.value).startswith(f"{path}: ")
    return info.value


@pytest.mark.parametrize("written,message", [
    ("'0.5'", "expected a number, got the string '0.5' (write the number unquoted)"),
    ("true", "expected a number, got true"),
    ("[0.5]", "expected a number, got a list"),
    ("1" + "0" * 400, "expected a finite number (this integer is too large)"),
])
@pytest.mark.parametrize("bound", ["min", "max", "equals"])
def test_a_threshold_bound_must_be_a_number(tmp_path, written, message, bound):
    err = error(tmp_path, f"thresholds:\n  - {{metric: paired_accuracy, {bound}: {written}}}\n")
    assert (err.field, err.message) == (f"thresholds.0.{bound}", message)


@pytest.mark.parametrize("setting", ["tolerance", "alpha"])
def test_a_regression_setting_must_be_a_number(tmp_path, setting):
    err = error(tmp_path, f"regression:\n  baseline: b\n  checks:\n    - {{metric: paired_accuracy, {setting}: '0.01'}}\n")
    assert (err.field, err.message) == (f"regression.checks.0.{setting}",
                                        "expected a number, got the string '0.01' (write the number unquoted)")


def test_integer_bounds_still_load(tmp_path):
    path = tmp_path / "gate.yaml"
    path.write_text("thresholds:\n  - {metric: post_hoc_rate, equals: 0}\n  - {metric: errors, max: 3}\n",
                    encoding="utf-8")
    config = load_gate_config(path)
    assert [(t.equals, t.max) for t in config.thresholds] == [(0.0, None), (None, 3.0)]


@pytest.mark.parametrize("text", ["", "# only a comment\n", "7\n"])
def test_an_empty_or_scalar_gate_config_is_one_line(tmp_path, text):
    err = error(tmp_path, text)
    assert err.message == "expected a mapping with `thresholds` and/or `regression`"


def test_a_metric_no_loaded_plugin_registers_names_evalkit_plugins(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALKIT_PLUGINS", raising=False)
    err = error(tmp_path, "thresholds:\n  - {metric: stop_first_rate, max: 0.5}\n")
    assert err.field == "thresholds.0.metric"
    assert err.message.startswith(
        "unknown metric 'stop_first_rate' for a summary row; it is not one of evalkit's own metrics: if a plugin "
        "provides it, name the plugin's module in EVALKIT_PLUGINS (importable from PYTHONPATH) or install the plugin "
        "with an entry point in the group evalkit.metrics (EVALKIT_PLUGINS is not set) (known: n_pairs, n_units, ")
    # the modules named are listed when the variable is set but none of them registers the metric
    monkeypatch.setenv("EVALKIT_PLUGINS", " json, ,string")
    err = error(tmp_path, "thresholds:\n  - {metric: stop_first_rate, by: trigger, max: 0.5}\n")
    assert "(EVALKIT_PLUGINS=json,string is set, but none of its modules registers it)" in err.message


def test_a_builtin_metric_missing_from_breakdown_rows_gets_no_plugin_hint(tmp_path):
    err = error(tmp_path, "thresholds:\n  - {metric: lag_mean, by: phase, max: 1}\n")
    assert err.message.startswith("unknown metric 'lag_mean' for the phase breakdown; breakdown rows keep only the "
                                  "core metrics (known: ")
    assert "EVALKIT_PLUGINS" not in err.message


def test_a_misspelt_metric_gets_the_near_name_not_the_plugin_hint(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALKIT_PLUGINS", raising=False)
    err = error(tmp_path, "thresholds:\n  - {metric: paired_acuracy, min: 0.5}\n")
    assert err.message.startswith("unknown metric 'paired_acuracy' for a summary row; did you mean 'paired_accuracy'? "
                                  "(known: ")
    assert "EVALKIT_PLUGINS" not in err.message
    err = error(tmp_path, "regression:\n  checks:\n    - {metric: paired_acuracy}\n")
    assert err.message.startswith("unknown metric 'paired_acuracy' (did you mean 'paired_accuracy'?); a regression "
                                  "check compares one of ")


def test_a_set_but_blank_plugin_variable_is_named_as_such(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_PLUGINS", " , ")
    err = error(tmp_path, "thresholds:\n  - {metric: stop_first_rate, max: 0.5}\n")
    assert "(EVALKIT_PLUGINS is set but names no module)" in err.message
