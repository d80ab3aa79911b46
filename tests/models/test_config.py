"""Model specs, settings resolution, the model config file and the price table."""

from __future__ import annotations

import pytest

from evalkit.errors import ConfigError
from evalkit.models.config import ModelOptions, resolve_settings
from evalkit.models.live import LiveModel
from evalkit.models.pricing import call_cost, find_price, load_price_table
from evalkit.models.registry import get_model


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_resolution_order_provider_file_defaults_file_entry_cli(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cfg = write(tmp_path / "models.yaml", """
defaults: {temperature: 0.3, max_tokens: 100, tool_choice: required}
models:
  openai/gpt-x: {max_tokens: 200, base_url: "http://127.0.0.1:9/v1", parse: {repair: [fence]},
                 retry: {max_attempts: 2}}
""")
    s = resolve_settings("openai/gpt-x", ModelOptions(model_config_file=cfg, temperature=0.0, max_connections=9))
    assert (s.temperature, s.max_tokens, s.tool_choice, s.max_connections) == (0.0, 200, "required", 9)
    assert s.base_url == "http://127.0.0.1:9/v1" and s.parse.repair == ["fence"]
    assert (s.retry.max_attempts, s.retry.timeout_s) == (2, 120.0)  # nested settings merge
    assert s.api_key_env == "OPENAI_API_KEY" and "sk-test" not in str(s.describe())
    other = resolve_settings("openai/other", ModelOptions(model_config_file=cfg))
    assert (other.temperature, other.max_tokens, other.max_connections) == (0.3, 100, 4)


def test_local_model_defaults_are_what_the_llama_server_needs():
    s = resolve_settings("local/gemma-3-270m")
    assert (s.temperature, s.tool_choice, s.tool_results_as, s.max_connections) == (0.0, "auto", "user", 1)
    assert s.extra_body == {"repeat_penalty": 1.0} and s.max_tokens == 256
    assert s.local.n_threads == 2 and s.local.chat_format == "chatml-function-calling"
    assert s.price.input_per_mtok == 0.0
    with pytest.raises(ConfigError, match="unknown local model 'llama-9000'"):
        resolve_settings("local/llama-9000")


@pytest.mark.parametrize("text, needle", [
    ("models:\n  openai/x: {temprature: 0}\n", "model openai/x: field temprature: Extra inputs"),
    ("defaults: {temperature: 9}\n", "field temperature"),
    ("models: [1, 2]\n", "field models"),
    ("key: [unclosed\n", "not valid YAML"),
    ("- just a list\n", "must be a mapping"),
])
def test_bad_config_files_name_the_file_and_field(tmp_path, text, needle):
    cfg = write(tmp_path / "bad.yaml", text)
    with pytest.raises(ConfigError) as info:
        resolve_settings("openai/x", ModelOptions(model_config_file=cfg, base_url="http://127.0.0.1:1/v1"))
    assert needle in str(info.value) and "bad.yaml" in str(info.value)


def test_missing_config_file_and_missing_api_key(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="cannot read model config"):
        resolve_settings("openai/x", ModelOptions(model_config_file=str(tmp_path / "nope.yaml")))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="set the ANTHROPIC_API_KEY environment variable"):
        get_model("anthropic/claude-x")
    model = get_model("anthropic/claude-x", ModelOptions(base_url="http://127.0.0.1:1"))
    assert isinstance(model, LiveModel) and model.name == "anthropic/claude-x"


def test_prices_from_entry_table_and_builtin(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    write(tmp_path / "prices.yaml", "models:\n  openai/a: {input_per_mtok: 1.5, output_per_mtok: 6}\n"
                                    "  openai/*: {input_per_mtok: 9, output_per_mtok: 9}\n")
    cfg = write(tmp_path / "models.yaml", "prices: prices.yaml\nmodels:\n"
                                          "  openai/b: {price: {input_per_mtok: 0.1, output_per_mtok: 0.2}}\n")
    opts = ModelOptions(model_config_file=cfg)
    assert resolve_settings("openai/a", opts).price.input_per_mtok == 1.5
    assert resolve_settings("openai/b", opts).price.output_per_mtok == 0.2
    assert resolve_settings("openai/c", opts).price.input_per_mtok == 9  # provider wildcard
    assert resolve_settings("openai/c").price is None  # no price: cost is null, never 0
    assert find_price("local/anything") == {"input_per_mtok": 0.0, "output_per_mtok": 0.0}
    price = resolve_settings("openai/a", opts).price
    assert call_cost(price, 2_000_000, 1_000_000) == 9.0 and call_cost(None, 5, 5) is None


def test_bad_price_tables(tmp_path):
    with pytest.raises(ConfigError, match="give input_per_mtok and output_per_mtok"):
        load_price_table(write(tmp_path / "p.yaml", "models:\n  openai/a: {input_per_mtok: 1}\n"))
    with pytest.raises(ConfigError, match="must not be negative"):
        load_price_table(write(tmp_path / "p.yaml", "models:\n  openai/a: {input_per_mtok: -1, output_per_mtok: 1}\n"))
    with pytest.raises(ConfigError, match="needs a `models` mapping"):
        load_price_table(write(tmp_path / "p.yaml", "prices: []\n"))


def test_specs_are_checked():
    for spec, needle in [("openai", "PROVIDER/NAME"), ("warp/x", "unknown model provider")]:
        with pytest.raises(ConfigError, match=needle):
            get_model(spec)
    assert get_model("scripted/oracle", ModelOptions(temperature=1.0)).name == "scripted/oracle"


def test_a_price_table_with_a_model_given_twice_is_refused(tmp_path):
    from evalkit.errors import ConfigError
    from evalkit.models.pricing import load_price_table

    path = tmp_path / "prices.yaml"
    path.write_text("models:\n  openai/x: {input_per_mtok: 1, output_per_mtok: 2}\n"
                    "  openai/x: {input_per_mtok: 0, output_per_mtok: 0}\n")
    with pytest.raises(ConfigError, match=r"prices.yaml: field models.openai/x: duplicate key 'openai/x' \(line 3\)"):
        load_price_table(path)


def test_a_bad_model_config_file_is_refused_before_any_work_even_for_scripted_models(tmp_path):
    from evalkit.errors import ConfigError
    from evalkit.harness.run import RunConfig
    from evalkit.pipeline import run

    bad = tmp_path / "models.yaml"
    bad.write_text("bogus: 1\n")
    with pytest.raises(ConfigError, match="models.yaml: field bogus: Extra inputs are not permitted"):
        run(RunConfig(models=["scripted/oracle"], model_config_file=str(bad), limit=1, out=str(tmp_path / "run")))
    assert not (tmp_path / "run").exists()


def test_price_tables_take_the_token_class_prices(tmp_path):
    from evalkit.usage import Usage, usage_cost

    table = tmp_path / "prices.yaml"
    table.write_text("models:\n  openai/m: {input_per_mtok: 1.0, cached_input_per_mtok: 0.5, output_per_mtok: 2.0,"
                     " reasoning_per_mtok: 4.0}\n")
    price = load_price_table(table)["openai/m"]
    assert price == {"input_per_mtok": 1.0, "cached_input_per_mtok": 0.5, "output_per_mtok": 2.0,
                     "reasoning_per_mtok": 4.0}
    # 86 uncached + 1920 cached input, 300 output of which 100 reasoning
    assert usage_cost(Usage(2006, 1920, None, 300, 100), price) == ((86 + 960 + 400 + 400) / 1e6, ())
    table.write_text("models:\n  openai/m: {input_per_mtok: 1.0, output_per_mtok: 2.0, cache_per_mtok: 0.5}\n")
    with pytest.raises(ConfigError, match="unknown price key 'cache_per_mtok'"):
        load_price_table(table)


def test_a_json_price_table_is_read_as_json(tmp_path):
    path = write(tmp_path / "p.json", '{"models": {"openai/a": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}}')
    assert load_price_table(path)["openai/a"]["output_per_mtok"] == 2.0
    with pytest.raises(ConfigError, match=r"p2.json: field note: a number that is not finite \(nan\)"):
        load_price_table(write(tmp_path / "p2.json", '{"note": NaN, "models": {}}'))
    with pytest.raises(ConfigError, match=r"p3.json: not valid JSON"):
        load_price_table(write(tmp_path / "p3.json", '{"models": {},}'))
