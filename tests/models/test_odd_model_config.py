"""A model config file's values keep their types: a string where a number or a boolean belongs
is refused naming the file and the field, never coerced (``cache: "no"`` is not false)."""

from __future__ import annotations

import pytest

from evalkit.errors import ConfigError
from evalkit.models.config import ModelOptions, resolve_settings


@pytest.mark.parametrize("text, field", [
    ("defaults: {cache: 'no'}\n", "field cache"),
    ("defaults: {temperature: '0.5'}\n", "field temperature"),
    ("models:\n  openai/x: {max_tokens: true}\n", "field max_tokens"),
    ("models:\n  openai/x: {price: {input_per_mtok: '1.5', output_per_mtok: 2}}\n", "field price.input_per_mtok"),
])
def test_a_value_of_the_wrong_type_is_refused(tmp_path, text, field):
    cfg = tmp_path / "models.yaml"
    cfg.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        resolve_settings("openai/x", ModelOptions(model_config_file=str(cfg), base_url="http://127.0.0.1:1/v1"))
    assert str(cfg) in str(info.value) and field in str(info.value) and "Input should be a valid" in str(info.value)


def test_values_of_their_own_type_load(tmp_path):
    cfg = tmp_path / "models.yaml"
    cfg.write_text("defaults: {cache: false, temperature: 0}\nmodels:\n  openai/x: {max_tokens: 64}\n", encoding="utf-8")
    settings = resolve_settings("openai/x", ModelOptions(model_config_file=str(cfg), base_url="http://127.0.0.1:1/v1"))
    assert (settings.cache, settings.temperature, settings.max_tokens) == (False, 0, 64)
