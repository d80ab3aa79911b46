"""Usage fields of the wrong type are an invalid response, never a guessed token count; an
absent count is unknown (``None``), never 0."""

from __future__ import annotations

import pytest

from evalkit.models.openai_compat import translate_openai
from evalkit.models.reply import count
from evalkit.models.retry import ProviderError
from evalkit.usage import Usage

BODY = {"choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}


@pytest.mark.parametrize("value", [True, 10.7, "10", -1, [3]])
def test_wrong_typed_usage_is_an_invalid_response(value):
    with pytest.raises(ProviderError) as info:
        translate_openai({**BODY, "usage": {"prompt_tokens": value, "completion_tokens": 1}})
    assert info.value.code == "invalid_response" and "usage.prompt_tokens" in str(info.value)


def test_good_and_absent_usage():
    out = translate_openai({**BODY, "usage": {"prompt_tokens": 12, "completion_tokens": 3}})
    assert out.usage == Usage(input_tokens=12, output_tokens=3) and out.flags == ()
    absent = translate_openai(BODY)
    assert absent.usage == Usage() and not absent.usage.known and absent.flags == ("usage_missing",)
    assert count({"x": None}, "x") is None
    with pytest.raises(ProviderError):
        translate_openai({**BODY, "usage": "abc"})
