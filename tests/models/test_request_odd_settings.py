"""Settings and answers that would silently change what a model was asked or how a failure is read."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evalkit.models.config import ModelSettings
from evalkit.models.retry import ProviderError, error_for_status, parse_body


@pytest.mark.parametrize("extra", [{"messages": []}, {"stream": True}, {"n": 3}, {"tools": []}, {"model": "other"}])
def test_extra_body_may_not_override_what_evalkit_sends(extra):
    with pytest.raises(ValidationError) as caught:
        ModelSettings(spec="openai/m", provider="openai", model="m", extra_body=extra)
    assert f"sets {next(iter(extra))}, which evalkit sends itself" in str(caught.value)


@pytest.mark.parametrize(("extra", "shown"), [
    ({"temperature": 1.5}, "sets temperature, which a setting of its own sends: set it there (e.g. `temperature:`"),
    ({"max_tokens": 7, "top_p": 0.1}, "sets max_tokens, top_p, which a setting of its own sends"),
    ({"tool_choice": "none"}, "sets tool_choice, which a setting"),
    ({"seed": 3}, "sets seed, which"),
    ({"stop_sequences": ["END"]}, "sets stop_sequences (the setting stop), which a setting of its own sends"),
])
def test_extra_body_may_not_set_what_a_setting_sends(extra, shown):
    with pytest.raises(ValidationError) as caught:
        ModelSettings(spec="openai/m", provider="openai", model="m", extra_body=extra)
    assert shown in str(caught.value)
    assert "the run manifest and the cache record the value sent" in str(caught.value)


def test_a_model_config_with_a_sampling_setting_in_extra_body_is_an_error_naming_the_field(tmp_path):
    from evalkit.errors import ConfigError
    from evalkit.models.config import ModelOptions, resolve_settings

    path = tmp_path / "models.yaml"
    path.write_text("defaults: {temperature: 0}\nmodels:\n  openai/m:\n    extra_body: {temperature: 1.5}\n",
                    encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        resolve_settings("openai/m", ModelOptions(model_config_file=str(path)))
    message = str(caught.value)
    assert str(path) in message and "extra_body" in message and "sets temperature" in message


def test_extra_body_keeps_a_server_option():
    settings = ModelSettings(spec="openai/m", provider="openai", model="m", extra_body={"repeat_penalty": 1.0})
    assert settings.extra_body == {"repeat_penalty": 1.0}


def test_a_used_up_quota_is_not_waited_out_but_a_rate_limit_is():
    quota = error_for_status(429, "You exceeded your current quota, please check your plan and billing details.")
    assert (quota.code, quota.retryable) == ("quota_exceeded", False)
    rate = error_for_status(429, "Rate limit reached for gpt-4o in organization org-1 on requests per min.",
                            {"retry-after": "2"})
    assert (rate.code, rate.retryable, rate.retry_after) == ("rate_limited", True, 2.0)


def test_a_body_opened_by_a_byte_order_mark_is_read():
    assert parse_body('\ufeff{"choices": []}') == {"choices": []}
    with pytest.raises(ProviderError):
        parse_body("\ufeff<html>")
