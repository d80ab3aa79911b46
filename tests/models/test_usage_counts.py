"""Usage fields of the wrong type are an invalid response, never a guessed token count."""

from __future__ import annotations

import pytest

from evalkit.models.openai_compat import normalize_openai
from evalkit.models.retry import ProviderError, token_count

BODY = {"choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}


@pytest.mark.parametrize("value", [True, 10.7, "10", -1, [3]])
def test_wrong_typed_usage_is_an_invalid_response(value):
    with pytest.raises(ProviderError) as info:
        normalize_openai({**BODY, "usage": {"prompt_tokens": value, "completion_tokens": 1}})
    assert info.value.code == "invalid_response" and "usage.prompt_tokens" in str(info.value)


def test_good_and_absent_usage():
    out = normalize_openai({**BODY, "usage": {"prompt_tokens": 12, "completion_tokens": 3}})
    assert out["usage"] == {"input_tokens": 12, "output_tokens": 3}
    assert normalize_openai(BODY)["usage"] == {"input_tokens": 0, "output_tokens": 0}
    assert token_count({"x": None}, "x") == 0
    with pytest.raises(ProviderError):
        token_count("abc", "x")
