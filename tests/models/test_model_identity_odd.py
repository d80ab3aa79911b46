"""Odd ``model`` values in responses: what a gateway, a self-hosted server or a broken proxy
writes, per call and over real HTTP, cached and resumed."""

from __future__ import annotations

import pytest

from evalkit.models.identity import answering_price, response_model, same_model


@pytest.mark.parametrize("value", [None, 4, 4.0, ["gpt-4o"], {"id": "gpt-4o"}, "", "   ", "\u200b\ufeff", "/", "\\\\"])
def test_a_model_field_that_names_nothing_is_none(value) -> None:
    assert response_model({"model": value}) is None
    assert response_model([{"model": "gpt-4o"}]) is None


@pytest.mark.parametrize("requested,answered", [
    ("gpt-4o", "ｇｐｔ-4ｏ"),                                # full-width forms (NFKC)
    ("gpt-4o", "gpt\u200b-4o\ufeff"),                      # invisible format characters
    ("gpt-4o", " GPT-4O\n"),
    ("llama3.1", "/models/llama3.1.gguf"),                 # llama.cpp's server reports its file
    ("llama3.1", "C:\\models\\llama3.1.gguf"),             # the same on Windows
    ("llama-3.1-8b-instruct", "/models/Llama-3.1-8B-Instruct/"),  # vLLM serving a folder
    ("openai/llama3.1", "llama3.1"),                       # an openai/ prefix on a local server
    ("straße-1", "STRASSE-1"),                             # case-folded, not only lower-cased
])
def test_one_model_in_odd_forms_is_the_same_model(requested, answered) -> None:
    assert same_model(requested, response_model({"model": answered}))


@pytest.mark.parametrize("requested,answered", [
    ("gpt-4o", "gpt-4\u043e"),                   # a Cyrillic look-alike is another name
    ("gpt-4o", "x" * 100_000),
    ("llama3.1", "/models/llama3.1-70b.gguf"),
])
def test_other_names_stay_a_mismatch(requested, answered) -> None:
    assert not same_model(requested, response_model({"model": answered}))


def test_a_path_finds_its_price_by_the_file_name() -> None:
    prices = {"openai/llama3.1": {"input_per_mtok": 0.0, "output_per_mtok": 0.0}}
    assert answering_price("openai", "/srv/models/Llama3.1.gguf", prices) == prices["openai/llama3.1"]
