"""What the registries refuse, and how a registered metric that reads an existing column aggregates."""

from __future__ import annotations

import json

import pytest

from evalkit.errors import ConfigError


def test_a_metric_cannot_take_a_builtin_column_or_another_metrics_field(toys):
    from evalkit.metrics.registry import metric

    with pytest.raises(ConfigError, match="field 'correct' is a built-in result-row column"):
        metric("my_correct_rate", kind="rate", fields={"correct": "flag"})(lambda view: {})
    with pytest.raises(ConfigError, match="field 'stop_first' belongs to metric 'stop_first_rate'"):
        metric("other_rate", kind="rate", fields={"stop_first": "flag"})(lambda view: {})
    with pytest.raises(ConfigError, match="registered already"):
        metric("paired_accuracy", kind="rate", fields={"x": "flag"})(lambda view: {})
    with pytest.raises(ConfigError, match="type 'bool'"):
        metric("typed_rate", kind="rate", fields={"typed": "bool"})(lambda view: {})


def test_a_metric_returning_an_undeclared_field_is_an_error(toys):
    from evalkit.metrics.registry import add_episode_fields, metric, unregister_metric

    metric("sloppy_rate", kind="rate", fields={"sloppy": "flag"})(lambda view: {"slopy": True})
    try:
        with pytest.raises(ConfigError, match="metric 'sloppy_rate' returned field 'slopy'"):
            add_episode_fields(None, (), {}, {"turns": 1, "stated": "act", "tool_calls": 0})
    finally:
        unregister_metric("sloppy_rate")


def test_a_row_with_a_wrongly_typed_metric_field_is_refused(toys):
    from evalkit.metrics.summary import row_problem

    row = {"pair_id": "p", "variant": "abstain", "model": "m", "condition": "tool", "gate": "off", "epoch": 1,
           "status": "ok", "correct": True}
    assert row_problem({**row, "stop_first": True}) is None
    assert row_problem({**row, "stop_first": None}) is None  # unknown
    assert row_problem({**row, "stop_first": "yes"}) == "field stop_first: 'yes' is not true or false"


def test_a_mean_metric_over_an_existing_column(toys, run_dir):
    """A registered mean of ``turns`` over recorded ok episodes equals the mean computed by hand."""
    from evalkit.metrics.aggregate import summarize
    from evalkit.records import EpisodeKey
    from evalkit.metrics.registry import Metric, register_metric, unregister_metric

    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    register_metric(Metric("turns_per_ok_episode", "mean", field="turns", over="ok", unit="turns"))
    try:
        out = summarize([EpisodeKey.of(r) for r in rows], rows)
    finally:
        unregister_metric("turns_per_ok_episode")
    for group in out:
        mine = [r["turns"] for r in rows if (r["model"], r["condition"], r["gate"]) ==
                (group["model"], group["condition"], group["gate"]) and r["status"] == "ok"]
        assert group["turns_per_ok_episode_n"] == len(mine) == 20
        assert group["turns_per_ok_episode"] == pytest.approx(sum(mine) / len(mine))


def test_a_condition_must_offer_the_tools_its_signals_name(toys):
    from evalkit.conditions.registry import ConditionSpec, register_condition
    from evalkit.runtime.signals import DecisionSignals, Signal

    signals = DecisionSignals({"declare_blocked": Signal("stop_now")})
    with pytest.raises(ConfigError, match="its signals name tool 'stop_now', which it does not offer"):
        register_condition(ConditionSpec("stopper", "no tools", lambda: {}, None, signals=signals, prompt="p"))
    with pytest.raises(ConfigError, match="condition 'tool' is registered already"):
        register_condition(ConditionSpec("tool", "again", lambda: {}, None))


def test_a_provider_is_a_factory_or_a_client(toys):
    from evalkit.models.registry import Provider, get_model, register

    with pytest.raises(ConfigError, match="a factory or a client, not both"):
        register(Provider("both", factory=lambda name, options: None, client=object))
    with pytest.raises(ConfigError, match="must be a non-empty word"):
        register(Provider("a/b", factory=lambda name, options: None))
    assert get_model("refuser/polite").settings.provider == "refuser"


def test_a_rate_over_unknown_values_is_null_not_zero(toys, run_dir):
    """A flag the metric could not tell (null) is left out of the rate's k and n: a group where
    every value is unknown has a null rate (the gate's missing data), and known values keep
    their own k / n."""
    from evalkit.metrics.aggregate import summarize
    from evalkit.metrics.registry import Metric, register_metric, unregister_metric
    from evalkit.records import EpisodeKey

    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    ok = [r for r in rows if r["status"] == "ok"]
    assert len(ok) >= 2
    for i, r in enumerate(rows):
        r["unsure"] = None if i % 2 else True  # every other episode unknown
        r["never_known"] = None
    register_metric(Metric("unsure_rate", "rate", fields={"unsure": "flag"}, over="recorded"))
    register_metric(Metric("never_known_rate", "rate", fields={"never_known": "flag"}, over="recorded"))
    try:
        out = summarize([EpisodeKey.of(r) for r in rows], rows)
    finally:
        unregister_metric("unsure_rate")
        unregister_metric("never_known_rate")
    for group in out:
        mine = [r for r in rows if (r["model"], r["condition"], r["gate"]) ==
                (group["model"], group["condition"], group["gate"])]
        known = [r for r in mine if r["unsure"] is not None or r["status"] != "ok"]
        assert group["unsure_rate_n"] == len(known)
        assert group["unsure_rate_k"] == sum(1 for r in known if r["unsure"])
        assert group["never_known_rate"] is None and group["never_known_rate_n"] == sum(
            1 for r in mine if r["status"] != "ok")
