"""A price is a finite number >= 0 (0: free), in a model config entry and in a price table
alike; anything else is a config error naming the file, the model and the field — never a
price of $1 (``true``), a string turned into a number or an infinite cost."""

from __future__ import annotations

import pytest

from evalkit.errors import ConfigError
from evalkit.models.config import ModelOptions, resolve_settings
from evalkit.models.pricing import load_price_table

BAD = [".inf", ".nan", "true", "'1.5'", "-0.5"]


@pytest.mark.parametrize("value", BAD)
def test_a_bad_price_in_a_model_config_is_refused(tmp_path, value):
    cfg = tmp_path / "models.yaml"
    cfg.write_text(f"models:\n  openai/a: {{price: {{input_per_mtok: {value}, output_per_mtok: 2}}}}\n")
    with pytest.raises(ConfigError) as caught:
        resolve_settings("openai/a", ModelOptions(model_config_file=str(cfg), base_url="http://127.0.0.1:1/v1"))
    assert "models.yaml" in str(caught.value) and "input_per_mtok" in str(caught.value)


@pytest.mark.parametrize("value", BAD)
def test_a_bad_price_in_a_price_table_is_refused(tmp_path, value):
    table = tmp_path / "prices.yaml"
    table.write_text(f"models:\n  openai/a: {{input_per_mtok: 1, output_per_mtok: {value}}}\n")
    with pytest.raises(ConfigError) as caught:
        load_price_table(table)
    message = str(caught.value)
    assert "prices.yaml" in message and "openai/a" in message
    assert "output_per_mtok" in message or "negative" in message


def test_zero_is_free_and_integers_are_prices(tmp_path):
    table = tmp_path / "prices.yaml"
    table.write_text("models:\n  openai/a: {input_per_mtok: 0, output_per_mtok: 2, cached_input_per_mtok: 0.25}\n")
    assert load_price_table(table) == {"openai/a": {"input_per_mtok": 0.0, "output_per_mtok": 2.0,
                                                    "cached_input_per_mtok": 0.25}}
