"""Which model answered a call: the ``model`` a response names, compared with the one requested.

A gateway (OpenRouter's ``models`` fallback list, a LiteLLM router, an Azure deployment
pointed at another model) may answer a request with a different model than the one asked
for. OpenRouter documents that such a request "is priced using the model that was ultimately
used, which will be returned in the model attribute of the response body"; the behaviour
recorded is that model's too. :class:`~evalkit.models.live.LiveModel` therefore compares the
``model`` of every response with the model requested (:func:`same_model`), flags a real
difference ``model_mismatch`` and prices the call at the answering model's price
(:func:`answering_price`).

One model under the provider's own names is not a mismatch (:func:`same_model`):

* case: ``GPT-4o`` is ``gpt-4o``;
* an ``org/`` prefix, as gateways write model ids: ``openai/gpt-4o`` is ``gpt-4o``;
* a dated snapshot or version of an alias: OpenAI answers ``gpt-4o`` with
  ``gpt-4o-2024-08-06`` and ``gpt-3.5-turbo`` with ``gpt-3.5-turbo-0125``; Anthropic
  ``claude-sonnet-4-5`` with ``claude-sonnet-4-5-20250929`` and ``claude-3-5-sonnet-latest``
  with ``claude-3-5-sonnet-20241022``; Vertex AI writes ``claude-sonnet-4-5@20250929``, Gemini
  ``gemini-1.5-pro-002``, Bedrock ``claude-3-5-sonnet-20241022-v2:0``. A request
  that itself names a snapshot must be answered by that snapshot: ``gpt-4o-2024-05-13``
  answered by ``gpt-4o-2024-08-06`` is a mismatch;
* a tag: Ollama's ``:latest`` (``llama3.1`` is ``llama3.1:latest``), and a routing variant
  of the request that the answer leaves out (OpenRouter's ``…:free`` answered as ``…``);
* names the model's settings declare (``model_aliases``: an Azure deployment's underlying
  model, the file name a self-hosted server reports);
* the form of the name: Unicode compatibility forms (NFKC: full-width ``ｇｐｔ-4o``),
  invisible format characters (zero-width spaces, a byte-order mark), a file path as a
  self-hosted server reports it (``/models/llama3.1.gguf``, ``C:\\models\\llama3.1.gguf``,
  ``/models/Llama-3.1-8B-Instruct/``: the last component, without a model-file extension).
  Letters of another script that look alike (Cyrillic ``о`` in ``gpt-4о``) are another name.

A response without a ``model`` field (or with an empty one, or one that is not a string, or
a bare path such as ``/``) names no model: it is not a mismatch, and the call is billed at
the requested model's price. One that is present but not a string or ``null`` is also
flagged ``model_invalid`` by the translators (:func:`evalkit.models.reply.model_flags`) and
counted, so that the unknown answering model is visible.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

_SNAPSHOT = re.compile(r"(?:-\d{4}-\d{2}-\d{2}|-\d{8}|@\d{8}|-\d{4}|-\d{3}|-v\d+(?::\d+)?)$")
"""A snapshot or version suffix: ``-2024-08-06`` (OpenAI), ``-20250929`` (Anthropic),
``@20250929`` (Vertex AI), ``-0125`` (OpenAI's older ``gpt-3.5-turbo-0125``, ``gpt-4-0613``;
Mistral's ``mistral-large-2411``), ``-001`` (Gemini's stable versions), ``-v2:0`` (Bedrock)."""


def _unversioned(name: str) -> str:
    """``name`` without its snapshot and version suffixes (``…-20241022-v2:0`` → ``…``)."""
    while True:
        shorter = _SNAPSHOT.sub("", name)
        if shorter == name:
            return name
        name = shorter

_ALIAS = re.compile(r"-latest$")
"""The suffix of a moving alias (``claude-3-5-sonnet-latest``): answered by a dated snapshot."""


def response_model(body: Any) -> str | None:
    """The model a response body names: its top-level ``model`` string (OpenAI chat
    completions, the Anthropic Messages API and the gateways that speak them), or ``None``
    when the body has none, or one that is not a string or names nothing once compared
    (empty, white space, invisible characters, ``/``). Control characters and bidirectional
    overrides are escaped (:data:`_UNPRINTABLE`) and a name over :data:`MAX_NAME` characters
    is cut."""
    value = body.get("model") if isinstance(body, dict) else None
    if not isinstance(value, str) or not _name(value):
        return None
    shown = _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", value.strip())
    return shown if len(shown) <= MAX_NAME else shown[:MAX_NAME] + "…"


MAX_NAME = 256
"""A longer ``model`` value is kept (in call events, ``answered_models``, the console line and
the report) as its first ``MAX_NAME`` characters and ``…``."""
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""Control characters, line separators and bidirectional overrides, kept escaped (``\\u001b``) so
that a name printed to a terminal or a report shows as sent and cannot move the cursor."""
_INVISIBLE = re.compile(r"[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]")
_PATH_SEP = re.compile(r"[/\\]")
_FILE_EXT = re.compile(r"\.(?:gguf|ggml|bin|safetensors|pt|pth|onnx)$")


def _name(model: str) -> str:
    """``model`` compared: NFKC, case-folded, without invisible format characters, an ``org/``
    prefix or a folder path (``/`` or ``\\``), a model-file extension and Ollama's ``:latest``."""
    name = unicodedata.normalize("NFKC", _INVISIBLE.sub("", model)).strip().casefold()
    name = _PATH_SEP.split(name.rstrip("/\\"))[-1].strip()
    return _FILE_EXT.sub("", name).removesuffix(":latest")


def same_model(requested: str, answered: str | None, aliases: Iterable[str] = ()) -> bool:
    """Whether a response naming ``answered`` comes from the model ``requested`` (module
    docstring for the names that count as one model).

    Args:
        requested: The model name sent in the request (``gpt-4o``, ``openai/gpt-4o``).
        answered: The response's ``model`` (:func:`response_model`); ``None`` when it named
            none, which is never a mismatch.
        aliases: Other names the endpoint gives the requested model (``model_aliases``).

    Returns:
        ``True`` when the answer is the requested model (or names none), ``False`` for a
        response from another model.
    """
    if answered is None:
        return True
    got = _name(answered)
    for want in (requested, *aliases):
        name = _name(want)
        if ":" in name and ":" not in got:  # a routing variant (``:free``) the answer leaves out
            name = name.partition(":")[0]
        if got == name:
            return True
        if _SNAPSHOT.search(name) is None:  # an alias: any dated snapshot of it
            base = _ALIAS.sub("", name)
            if _unversioned(got) == base and got != base:
                return True
    return False


def answering_price(provider: str, answered: str, prices: Mapping[str, Any]) -> Any:
    """The price of the model that answered, from a price table, or ``None``.

    Args:
        provider: The requested model's provider (``openai``): the table's specs of this
            provider are looked at.
        answered: The response's ``model`` (``gpt-4o-mini-2024-07-18``, ``anthropic/claude-3.5-sonnet``).
        prices: ``{spec: price}`` (:attr:`~evalkit.models.config.ModelSettings.prices`).

    Returns:
        The price of the first spec ``provider/NAME`` whose ``NAME`` is the answering model
        (:func:`same_model`, so a dated snapshot finds its alias's price; an ``org/`` prefix on
        either side is ignored), else that of ``provider/*``, else ``None``.
    """
    for spec, price in prices.items():
        owner, _, name = spec.partition("/")
        if owner == provider and name != "*" and same_model(name, answered):
            return price
    return prices.get(f"{provider}/*")
