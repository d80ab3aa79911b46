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


def test_usage_sums_keep_unknown_totals_unknown():
    known = Usage(100, 40, None, 20, 5)
    assert known + Usage(10, None, 2, 3, None) == Usage(110, 40, 2, 23, 5)
    assert (known + Usage()).input_tokens is None and not (known + Usage()).known
    assert known.uncached_input_tokens == 60


def test_cost_by_class_and_its_flags():
    from evalkit.usage import usage_cost

    price = {"input_per_mtok": 3.0, "output_per_mtok": 15.0}
    # 86 uncached, 1920 cached, 64 written: without cache rates every input token is at 3.0, flagged
    cost, flags = usage_cost(Usage(2070, 1920, 64, 300, None), price)
    assert cost == (2070 * 3.0 + 300 * 15.0) / 1e6 and flags == ("cached_price_missing", "cache_write_price_missing")
    cost, flags = usage_cost(Usage(2070, 1920, 64, 300, None),
                             {**price, "cached_input_per_mtok": 0.3, "cache_write_per_mtok": 3.75})
    assert cost == round((86 * 3.0 + 1920 * 0.3 + 64 * 3.75 + 300 * 15.0) / 1e6, 10) and flags == ()
    assert usage_cost(Usage(10, None, None, None, None), price) == (None, ())
    assert usage_cost(Usage(10, None, None, 5, None), None) == (None, ())
