"""A hostile model or a failure while recording costs one episode, never the run (adversarial
round 1, items 1 and 3): every planned episode gets a row, every trace loads, the summary and
the results table are written, and an infinite price is refused before any work.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

import evalkit.harness.run as run_module
from evalkit.errors import ConfigError
from evalkit.harness.run import RunConfig
from evalkit.pipeline import run
from evalkit.models.registry import register_provider
from evalkit.runtime.events import ErrorRaised, EventLog
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.usage import Usage


class Hostile:
    """``hostiletest/tokens``: usage 10**20; ``/none``: respond returns None; ``/text``:
    surrogates in text, a call with NaN arguments, then a refusal; ``/inf_price``: a model
    whose price is infinite."""

    max_connections = 1

    def __init__(self, kind: str):
        self.name = f"hostiletest/{kind}"
        self.kind = kind

    def describe(self) -> dict:
        if self.kind == "inf_price":
            return {"price": {"input_per_mtok": math.inf, "output_per_mtok": 0.0}}
        return {}

    def respond(self, context, episode):
        if self.kind == "tokens":
            return ModelOutput(text="I can't do that.", usage=Usage(input_tokens=10**20, output_tokens=1e30))
        if self.kind == "none":
            return None
        if context.turn == 0:
            return ModelOutput(text="let me look \ud800",
                               tool_calls=(ToolCall("c1", "find_item", {"name": math.nan}, '{"name": NaN}'),))
        return ModelOutput(text="I can't do that \udfff, the item is unknown.")


register_provider("hostiletest", lambda name, options: Hostile(name))


def _config(tmp_path, mini_suite, mini_tasks, models, **kw) -> RunConfig:
    return RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=models, conditions=["nl"],
                     out=str(tmp_path / "run"), report=False, selfcheck=False, bootstrap_samples=100, **kw)


def _rows(out) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_hostile_models_become_error_rows_and_the_run_finishes(tmp_path, mini_suite, mini_tasks):
    config = _config(tmp_path, mini_suite, mini_tasks,
                     ["hostiletest/tokens", "hostiletest/none", "hostiletest/text", "scripted/oracle"])
    summary = run(config)
    out = tmp_path / "run"
    rows = _rows(out)
    per_model = summary["n_episodes_planned"] // 4
    assert len(rows) == summary["n_episodes_planned"] == summary["n_episodes_completed"]
    errors = {r["model"]: r["error"] for r in rows if r["status"] == "error"}
    assert set(errors) == {"hostiletest/tokens", "hostiletest/none"}
    assert summary["n_errors"] == 2 * per_model
    assert errors["hostiletest/tokens"] == ("model error: invalid model output: input_tokens is "
                                            f"{10**20}; token counts are integers from 0 to 100,000,000")
    assert errors["hostiletest/none"] == "model error: invalid model output: respond() returned a NoneType, " \
                                         "not a ModelOutput"
    text_rows = [r for r in rows if r["model"] == "hostiletest/text"]
    assert all(r["status"] == "ok" and r["parse_failures"] == 1 for r in text_rows)
    assert all(r["final_text"] == "I can't do that \ufffd, the item is unknown." for r in text_rows)
    table = pd.read_parquet(out / "results.parquet")
    assert len(table) == len(rows) and table["input_tokens"].max() < 10**9
    for path in (out / "traces").glob("*.jsonl"):
        EventLog.load(path)  # every trace is strict JSON in UTF-8
    by_model = {(r["model"], r["gate"]): r for r in summary["rows"]}
    assert by_model[("hostiletest/none", "off")]["error_rate"] == 1.0
    assert by_model[("scripted/oracle", "off")]["paired_accuracy"] == 1.0
    # a failed model call took time no event records: its episode's latency is unknown, and not in the mean
    assert all(r["latency_s"] is None for r in rows if r["model"] == "hostiletest/none")
    assert by_model[("hostiletest/none", "off")]["latency_n"] == 0
    assert by_model[("hostiletest/none", "off")]["latency_s_mean"] is None
    assert by_model[("scripted/oracle", "off")]["latency_n"] == per_model // len({r["gate"] for r in rows})


def test_a_failure_while_recording_one_episode_is_an_error_row(tmp_path, mini_suite, mini_tasks, monkeypatch):
    real = run_module.score_episode
    failed: list[str] = []

    def flaky(spec, log, *args, **kw):
        if not failed and spec.variant == "abstain":
            failed.append(spec.episode_id)
            raise ValueError("boom \ud800")
        return real(spec, log, *args, **kw)

    monkeypatch.setattr(run_module, "score_episode", flaky)
    summary = run(_config(tmp_path, mini_suite, mini_tasks, ["scripted/oracle"]))
    out = tmp_path / "run"
    rows = _rows(out)
    assert len(rows) == summary["n_episodes_planned"] and summary["n_errors"] == 1
    (bad,) = [r for r in rows if r["status"] == "error"]
    assert bad["episode_id"] == failed[0] and bad["error"] == "recording error: ValueError: boom \ufffd"
    trace = EventLog.load(out / "traces" / f"{failed[0]}.jsonl")
    assert [e.message for e in trace if isinstance(e, ErrorRaised)] == ["recording error: ValueError: boom \ufffd"]
    assert (out / "summary.json").is_file() and (out / "results.parquet").is_file()


def test_a_row_that_is_not_json_is_an_error_row(tmp_path, mini_suite, mini_tasks, monkeypatch):
    real = run_module.score_episode

    def overflowing(spec, log, *args, **kw):
        row = real(spec, log, *args, **kw)
        if spec.variant == "act" and row["status"] == "ok":
            row["cost_usd"] = math.inf  # as a price near 1e308 times the tokens would give
        return row

    monkeypatch.setattr(run_module, "score_episode", overflowing)
    summary = run(_config(tmp_path, mini_suite, mini_tasks, ["scripted/oracle"]))
    rows = _rows(tmp_path / "run")
    assert len(rows) == summary["n_episodes_planned"]
    assert {r["variant"] for r in rows if r["status"] == "error"} == {"act"}
    assert all(r["error"].startswith("recording error: ValueError: Out of range float values")
               for r in rows if r["status"] == "error")


def test_an_infinite_price_is_refused_before_any_work(tmp_path, mini_suite, mini_tasks, monkeypatch):
    with pytest.raises(ConfigError, match=r"model hostiletest/inf_price: price input_per_mtok is inf"):
        run(_config(tmp_path, mini_suite, mini_tasks, ["hostiletest/inf_price"]))
    assert not (tmp_path / "run").exists()
    model_config = tmp_path / "models.yaml"
    model_config.write_text("models:\n  openai/test-model:\n    price: {input_per_mtok: 1.0, output_per_mtok: .inf}\n")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    config = _config(tmp_path, mini_suite, mini_tasks, ["openai/test-model"], model_config_file=str(model_config),
                     base_url="http://127.0.0.1:9/v1", cache=False)
    with pytest.raises(ConfigError, match=r"models.yaml: field models.openai/test-model.price.output_per_mtok: a number that is "
                                          r"not finite \(inf\)"):
        run(config)
    assert not (tmp_path / "run").exists()


def test_a_tool_choice_naming_no_offered_tool_is_refused_before_any_work(tmp_path, mini_suite, mini_tasks, monkeypatch):
    """A forced tool the run never offers would make every call fail at the provider."""
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    model_config = tmp_path / "models.yaml"
    model_config.write_text("models:\n  openai/test-model:\n    tool_choice: by_item\n")
    config = _config(tmp_path, mini_suite, mini_tasks, ["openai/test-model"], model_config_file=str(model_config),
                     base_url="http://127.0.0.1:9/v1", cache=False)
    config.conditions = ["nl", "meta"]
    with pytest.raises(ConfigError, match=r"model openai/test-model: tool_choice 'by_item' names a tool that no "
                                          r"episode of condition 'nl' is offered \(it offers .*buy_item"):
        run(config)
    assert not (tmp_path / "run").exists()
    from evalkit.harness.run import check_tool_choice

    class Live:
        class settings:
            tool_choice = "request_user_decision"
    check_tool_choice({"openai/x": Live()}, {"meta": {"buy_item", "request_user_decision"}})  # a meta tool: offered
    with pytest.raises(ConfigError, match="condition 'nl' is offered"):  # ... not in a condition without it
        check_tool_choice({"openai/x": Live()}, {"meta": {"buy_item", "request_user_decision"}, "nl": {"buy_item"}})
    with pytest.raises(ConfigError, match="no tools"):
        check_tool_choice({"openai/x": Live()}, {"nl": set()})


@pytest.mark.parametrize("spec, message", [
    ("scripted/oracel", "unknown scripted policy 'oracel'; choose from oracle, always_act, always_abstain, post_hoc, "
                        "asks_ignores or late:K (e.g. late:3)"),
    ("opnai/gpt-4o-mini", "unknown model provider 'opnai' in 'opnai/gpt-4o-mini'; known: "),
    ("scripted", "model spec 'scripted' must look like PROVIDER/NAME, e.g. scripted/oracle"),
])
def test_a_misspelt_model_is_refused_before_the_suite_is_read(tmp_path, mini_suite, mini_tasks, monkeypatch, spec,
                                                              message):
    """The suite is read and self-checked (seconds for the built-in library) only for models that exist."""
    read = []

    def load_suite(*args, **kwargs):
        read.append(args)
        raise AssertionError("the suite was read before the models were checked")

    monkeypatch.setattr(run_module, "load_suite", load_suite)
    config = _config(tmp_path, mini_suite, mini_tasks, ["scripted/oracle", spec])
    config.selfcheck = True  # as `evalkit run` does: the self-check is the costly part of preparing a run
    with pytest.raises(ConfigError) as err:
        run(config)
    assert str(err.value).startswith(message) and read == []
    assert not (tmp_path / "run").exists()


def _hiding_suite(tmp_path, mini_suite, hides: dict[str, list[str]]):
    """The mini suite with ``check_stock`` hidden on the listed variants of each listed pair."""
    import yaml

    data = yaml.safe_load(mini_suite.read_text(encoding="utf-8"))
    for pair in data["pairs"]:
        for variant in hides.get(pair["id"], []):
            pair[variant]["hidden_tools"] = ["check_stock"]
    path = tmp_path / "hiding.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_a_tool_choice_every_variant_hides_is_refused_before_any_work(tmp_path, mini_suite, mini_tasks, monkeypatch):
    """The domain has the forced tool, but every episode of the run has it taken away."""
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    model_config = tmp_path / "models.yaml"
    model_config.write_text("models:\n  openai/test-model:\n    tool_choice: check_stock\n")
    suite = _hiding_suite(tmp_path, mini_suite, {"mini-missing-target": ["act", "abstain"]})
    config = _config(tmp_path, suite, mini_tasks, ["openai/test-model"], model_config_file=str(model_config),
                     base_url="http://127.0.0.1:9/v1", cache=False)
    config.conditions, config.pair_ids = ["tool"], ["mini-missing-target"]
    with pytest.raises(ConfigError) as err:
        run(config)
    assert str(err.value).startswith(
        "model openai/test-model: tool_choice 'check_stock' names a tool that no episode of condition 'tool' is "
        "offered: the run's domains have it, but every variant of the run's pairs hides it (hidden_tools) (it offers "
        "buy_item, declare_blocked, find_item, ")
    assert not (tmp_path / "run").exists()


def test_a_tool_some_variant_offers_passes_the_tool_choice_check(tmp_path, mini_suite, mini_tasks):
    from evalkit.harness.run import check_tool_choice, offered_tools
    from evalkit.scenarios.loader import load_suite

    class Live:
        class settings:
            tool_choice = "check_stock"

    domains = {"mini": {"find_item", "check_stock", "buy_item"}}
    # hidden on one side only: the other side's episodes are offered it (their calls may be forced)
    suite = load_suite([_hiding_suite(tmp_path, mini_suite, {"mini-missing-target": ["abstain"]})],
                       tasks_dir=mini_tasks).select(pair_ids=["mini-missing-target"])
    offered = offered_tools(suite, domains, ["nl", "meta"])
    task = {"find_item", "check_stock", "buy_item"}
    assert offered == {"nl": task, "meta": task | {"meta_request"}}
    check_tool_choice({"openai/x": Live()}, offered, domains=domains["mini"])
    # hidden on both sides of one pair, offered by another pair of the run
    suite = load_suite([_hiding_suite(tmp_path, mini_suite, {"mini-missing-target": ["act", "abstain"]})],
                       tasks_dir=mini_tasks)
    check_tool_choice({"openai/x": Live()}, offered_tools(suite, domains, ["nl"]), domains=domains["mini"])
    with pytest.raises(ConfigError, match="every variant of the run's pairs hides it"):
        check_tool_choice({"openai/x": Live()}, offered_tools(suite.select(pair_ids=["mini-missing-target"]), domains,
                                                              ["nl"]), domains=domains["mini"])


class Closable(Hostile):
    """``closetest/NAME``: a model that records when it is closed (as a local model server stops)."""

    closed: list[str] = []

    def __init__(self, kind: str):
        super().__init__(kind)
        self.name = f"closetest/{kind}"

    def close(self) -> None:
        Closable.closed.append(self.name)


register_provider("closetest", lambda name, options: Closable(name))


def test_a_run_that_fails_while_preparing_closes_its_models(tmp_path, mini_suite, mini_tasks, monkeypatch):
    """Models are made before the suite is read: a bad suite still closes them, and the run directory stays unmade."""
    Closable.closed.clear()

    def load_suite(*args, **kwargs):
        raise ConfigError("suite.yaml: pair p1: field variants: broken")

    monkeypatch.setattr(run_module, "load_suite", load_suite)
    config = _config(tmp_path, mini_suite, mini_tasks, ["closetest/a", "closetest/b"])
    with pytest.raises(ConfigError, match="pair p1: field variants"):
        run(config)
    assert sorted(Closable.closed) == ["closetest/a", "closetest/b"]
    assert not (tmp_path / "run").exists()


def test_a_bad_later_model_spec_closes_the_models_made_before_it(tmp_path, mini_suite, mini_tasks):
    Closable.closed.clear()
    config = _config(tmp_path, mini_suite, mini_tasks, ["closetest/a", "closetest/b", "warp/c"])
    with pytest.raises(ConfigError, match="unknown model provider 'warp'"):
        run(config)
    assert sorted(Closable.closed) == ["closetest/a", "closetest/b"]
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("judge, message", [
    ("warp/judge", "--judge 'warp/judge': unknown model provider 'warp'; a judge is a live model of openai, "
                   "anthropic, local"),
    ("scripted/oracle", "--judge 'scripted/oracle': 'scripted' is not a live provider; a judge is a live model of "
                        "openai, anthropic, local"),
    ("openai/gpt-4o-mini", "--judge 'openai/gpt-4o-mini': set the OPENAI_API_KEY environment variable (or give "
                           "--base-url for a self-hosted endpoint)"),
    ("openai/", "--judge 'openai/' must look like PROVIDER/NAME, e.g. openai/gpt-4o-mini"),
])
def test_a_bad_judge_is_refused_before_the_suite_is_read_and_closes_the_models(tmp_path, mini_suite, mini_tasks,
                                                                               monkeypatch, judge, message):
    """Like a misspelt --model: the suite is never read, the models already made are closed, no run directory."""
    Closable.closed.clear()
    read = []

    def load_suite(*args, **kwargs):
        read.append(args)
        raise AssertionError("the suite was read before the judges were checked")

    monkeypatch.setattr(run_module, "load_suite", load_suite)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = _config(tmp_path, mini_suite, mini_tasks, ["closetest/a", "closetest/b"], judges=[judge])
    config.selfcheck = True
    with pytest.raises(ConfigError) as err:
        run(config)
    assert str(err.value) == message and read == []
    assert sorted(Closable.closed) == ["closetest/a", "closetest/b"]
    assert not (tmp_path / "run").exists()


def test_a_judge_made_before_a_failing_one_is_closed(tmp_path, mini_suite, mini_tasks, monkeypatch):
    from evalkit.conditions.judge.panel import Judge

    closed = []
    monkeypatch.setattr(Judge, "close", lambda self: closed.append((self.spec, self._model is not None)))
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    config = _config(tmp_path, mini_suite, mini_tasks, ["closetest/a"], judges=["openai/judge-a", "warp/judge-b"],
                     cache=False)
    Closable.closed.clear()
    with pytest.raises(ConfigError, match="--judge 'warp/judge-b': unknown model provider 'warp'"):
        run(config)
    assert closed == [("openai/judge-a", True), ("warp/judge-b", False)] and Closable.closed == ["closetest/a"]


def test_a_finished_run_closes_its_models_once(tmp_path, mini_suite, mini_tasks):
    Closable.closed.clear()
    run(_config(tmp_path, mini_suite, mini_tasks, ["closetest/a"]))
    assert Closable.closed == ["closetest/a"]


def test_a_forced_tool_one_domain_lacks_is_warned_per_domain():
    from types import SimpleNamespace

    from evalkit.harness.run import tool_choice_gaps

    suite = SimpleNamespace(pairs=[SimpleNamespace(domain=d) for d in ("shop", "shop", "mail", "mail", "mail")])
    tools = {"shop": {"place_order", "find_item"}, "mail": {"send_mail"}}

    def live(choice):
        return SimpleNamespace(settings=SimpleNamespace(tool_choice=choice))

    models = {"openai/x": live("place_order"), "openai/y": live("auto"), "openai/z": live("meta_request"),
              "scripted/oracle": SimpleNamespace()}
    assert tool_choice_gaps(models, suite, tools) == [
        "model openai/x: tool_choice 'place_order' is not a tool of domain 'mail': the episodes of its 3 pair(s) are "
        "never offered it, and the provider will refuse their calls"]
    assert tool_choice_gaps({"openai/x": live("send_mail")}, SimpleNamespace(pairs=suite.pairs[:2]), tools) == []


def test_tool_choice_without_a_live_model_is_warned_once(tmp_path, mini_suite, mini_tasks, capsys):
    """Scripted models never send a tool choice: the option would have been silently ignored."""
    config = _config(tmp_path, mini_suite, mini_tasks, ["scripted/oracle", "scripted/always_act"],
                     tool_choice="required")
    run(config)
    err = capsys.readouterr().err
    line = ("evalkit: warning: --tool-choice 'required' applies to live models only and has no effect in this run "
            "(no model of the run is live: scripted/oracle, scripted/always_act)\n")
    assert err.count(line) == 1, err
    config.tool_choice = None
    run(config)
    assert "--tool-choice" not in capsys.readouterr().err


def test_a_rule_set_with_the_gate_off_and_not_in_context_is_warned_to_have_no_effect(tmp_path, mini_suite, mini_tasks,
                                                                                      capsys):
    from pathlib import Path

    rules = str(Path(__file__).resolve().parents[2] / "rules" / "default.yaml")
    config = _config(tmp_path, mini_suite, mini_tasks, ["scripted/oracle"], rules=rules)
    run(config)
    warning = f"evalkit: warning: --rules {rules} has no effect in this run"
    assert capsys.readouterr().err.count(warning) == 1
    for change in ({"gates": ["off", "on"]}, {"rules_in_context": True}):
        run(config.model_copy(update={**change, "out": str(tmp_path / f"run-{len(change)}-{next(iter(change))}")}))
        assert warning not in capsys.readouterr().err


def test_tool_choice_is_unused_only_when_no_model_is_live():
    from evalkit.harness.run import unused_tool_choice

    scripted = {f"scripted/late:{k}": object() for k in range(6)}
    assert unused_tool_choice("check_stock", scripted) == (
        "--tool-choice 'check_stock' applies to live models only and has no effect in this run (no model of the run "
        "is live: scripted/late:0, scripted/late:1, scripted/late:2, scripted/late:3 and 2 more)")
    assert unused_tool_choice("none", {"agent/cmd:true": object()}).startswith("--tool-choice 'none' applies")
    assert unused_tool_choice("required", {**scripted, "openai/gpt-4o-mini": object()}) is None  # one live model
    assert unused_tool_choice(None, scripted) is None  # not given


def test_a_policy_approvals_entry_that_names_no_tool_or_parameter_of_the_run_is_warned(tmp_path, mini_suite, mini_tasks,
                                                                                      capsys):
    policy = tmp_path / "policy.yaml"
    policy.write_text("approvals:\n"
                      "  require: [{tool: buy_itme}, {tool: buy_item, args: {quantity: {gt: 1}}}, {tool: buy_item, args: {qty: {gt: 1}}}]\n"
                      "  grant: [{tool_prefix: purchase_}, {tool: meta_request}]\n")
    config = _config(tmp_path, mini_suite, mini_tasks, ["scripted/oracle"], policy=str(policy))
    run(config.model_copy(update={"conditions": ["nl", "meta"]}))
    err = capsys.readouterr().err
    assert f"evalkit: warning: policy {policy}: approvals.require.0.tool 'buy_itme' is no tool of this run" in err
    assert f"evalkit: warning: policy {policy}: approvals.require.1.args 'quantity' is no parameter of the tools it " \
           "matches" in err
    assert f"evalkit: warning: policy {policy}: approvals.grant.0.tool_prefix 'purchase_' starts no tool" in err
    assert "approvals.require.2" not in err and "approvals.grant.1" not in err  # a real parameter; a meta tool
    assert err.count(f"policy {policy}:") == 3


def test_a_money_budget_with_a_live_model_that_has_no_price_is_warned():
    from types import SimpleNamespace

    from evalkit.harness.run import unpriced_money_budget
    from evalkit.runtime.policy import RuntimePolicy

    live = SimpleNamespace(settings=SimpleNamespace(provider="openai"))
    models = {"openai/a": live, "openai/b": live, "scripted/oracle": object()}
    prices = {"openai/a": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}, "openai/b": None}
    suite = SimpleNamespace(pairs=[])
    budget = RuntimePolicy.model_validate({"budgets": {"money": 0.5}})
    assert unpriced_money_budget(models, prices, budget, suite) == [
        "model openai/b: it has no price, so a money budget never stops its episodes (its cost is unknown, counted as "
        "null); give it a price in --model-config to enforce it"]
    assert unpriced_money_budget(models, prices, RuntimePolicy(), suite) == []
    assert unpriced_money_budget(models, prices, None, suite) == []
