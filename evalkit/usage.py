"""Token usage by billing class, and the money it costs (DESIGN §7 cost).

A foundation module: it imports nothing from evalkit, so the providers
(:mod:`evalkit.models`), the runtime (:mod:`evalkit.runtime.model_io`) and the metrics can
all use :class:`Usage` without an import cycle.

Token classes (each ``None`` when the provider did not report it, never guessed as 0):

==========================  =====================================================  ====================================
field                       what it counts                                         OpenAI chat / Anthropic Messages
==========================  =====================================================  ====================================
``input_tokens``            every prompt token billed (all input classes)          ``prompt_tokens`` / ``input_tokens``
                                                                                   + ``cache_read_input_tokens``
                                                                                   + ``cache_creation_input_tokens``
``cached_input_tokens``     part of ``input_tokens`` read from the prompt cache    ``prompt_tokens_details.cached_tokens``
                                                                                   (DeepSeek: ``prompt_cache_hit_tokens``)
                                                                                   / ``cache_read_input_tokens``
``cache_write_tokens``      part of ``input_tokens`` written to the prompt cache   — / ``cache_creation_input_tokens``
``output_tokens``           every generated token billed (reasoning included)      ``completion_tokens`` (or ``total -
                                                                                   prompt`` when larger) / ``output_tokens``
``reasoning_tokens``        part of ``output_tokens`` spent on hidden reasoning    ``completion_tokens_details.
                                                                                   reasoning_tokens`` / —
==========================  =====================================================  ====================================

Money (:func:`usage_cost`), with prices in USD per million tokens::

    cost = (input − cached − cache_write) × input_per_mtok
         + cached × cached_input_per_mtok + cache_write × cache_write_per_mtok
         + (output − reasoning) × output_per_mtok + reasoning × reasoning_per_mtok

An unreported part (``cached``, ``cache_write``, ``reasoning``) counts as 0 of its total; a
part larger than its total (a provider's miscount, flagged ``usage_inconsistent`` by the
translators) is billed only up to the total, so the tokens billed never exceed the totals
reported and no class is negative.
``reasoning_per_mtok`` defaults to ``output_per_mtok`` (OpenAI and Anthropic bill reasoning
as output). Cached or cache-write tokens without their own rate are priced at
``input_per_mtok`` and flagged (``cached_price_missing`` / ``cache_write_price_missing``).
The cost is ``None`` when there is no price or when ``input_tokens`` or ``output_tokens`` is
unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

USAGE_FIELDS = ("input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens")
"""The token classes of :class:`Usage`, in display order."""

PRICE_FIELDS = ("input_per_mtok", "cached_input_per_mtok", "cache_write_per_mtok", "output_per_mtok",
                "reasoning_per_mtok")
"""The keys of a price (USD per million tokens); the first and fourth are required."""


def _plus(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens one model response (or one failed attempt) was billed for, by class.

    Attributes:
        input_tokens: All prompt tokens, cached and cache-write ones included; ``None``
            when not reported.
        cached_input_tokens: Of ``input_tokens``, those read from the provider's prompt
            cache; ``None`` when not reported.
        cache_write_tokens: Of ``input_tokens``, those written to the prompt cache.
        output_tokens: All generated tokens, reasoning included; ``None`` when not reported.
        reasoning_tokens: Of ``output_tokens``, hidden reasoning / thinking tokens.
    """

    input_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None

    @property
    def known(self) -> bool:
        """Whether both totals (input and output) were reported."""
        return self.input_tokens is not None and self.output_tokens is not None

    @property
    def uncached_input_tokens(self) -> int | None:
        """Input tokens billed at the plain input rate (``None`` when input is unknown)."""
        if self.input_tokens is None:
            return None
        return max(self.input_tokens - (self.cached_input_tokens or 0) - (self.cache_write_tokens or 0), 0)

    @property
    def inconsistent(self) -> bool:
        """Whether a part exceeds its total: cached + cache-write input above
        ``input_tokens``, or ``reasoning_tokens`` above ``output_tokens`` (a provider's
        miscount; :func:`usage_cost` then bills each part at most up to its total)."""
        parts_in = (self.cached_input_tokens or 0) + (self.cache_write_tokens or 0)
        return (self.input_tokens is not None and parts_in > self.input_tokens) or (
            self.output_tokens is not None and (self.reasoning_tokens or 0) > self.output_tokens)

    def __add__(self, other: "Usage") -> "Usage":
        """Class-wise sum; a total is unknown when either side's is, a part when both are."""
        if not isinstance(other, Usage):
            return NotImplemented

        def part(a: int | None, b: int | None) -> int | None:
            return None if a is None and b is None else (a or 0) + (b or 0)

        return Usage(_plus(self.input_tokens, other.input_tokens),
                     part(self.cached_input_tokens, other.cached_input_tokens),
                     part(self.cache_write_tokens, other.cache_write_tokens),
                     _plus(self.output_tokens, other.output_tokens),
                     part(self.reasoning_tokens, other.reasoning_tokens))

    def to_dict(self) -> dict[str, int | None]:
        """``{field: count or None}`` for every class (the trace's and the row's form)."""
        return {"input_tokens": self.input_tokens, "cached_input_tokens": self.cached_input_tokens,
                "cache_write_tokens": self.cache_write_tokens, "output_tokens": self.output_tokens,
                "reasoning_tokens": self.reasoning_tokens}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "Usage":
        """The inverse of :meth:`to_dict` (missing keys are ``None``); ``None`` gives an
        all-unknown usage."""
        data = data or {}
        return cls(**{name: data.get(name) for name in USAGE_FIELDS})


UNKNOWN = Usage()
"""A usage nothing was reported for."""

ZERO = Usage(0, 0, 0, 0, 0)
"""A usage that is known to be zero (in-process models bill nothing)."""


def _rate(price: Any, name: str) -> float | None:
    value = price.get(name) if isinstance(price, Mapping) else getattr(price, name, None)
    return None if value is None else float(value)


def usage_cost(usage: Usage, price: Any) -> tuple[float | None, tuple[str, ...]]:
    """USD for ``usage`` at ``price`` (module docstring), and the pricing flags raised.

    Args:
        usage: The tokens billed.
        price: A mapping or object with the :data:`PRICE_FIELDS` (USD per million tokens;
            ``input_per_mtok`` and ``output_per_mtok`` required), or ``None``.

    Returns:
        ``(cost, flags)``: the cost rounded to 1e-10 USD, or ``None`` without a price or with
        unknown input or output tokens; flags among ``cached_price_missing`` and
        ``cache_write_price_missing``.
    """
    if price is None or not usage.known:
        return None, ()
    flags: list[str] = []
    rate_in = _rate(price, "input_per_mtok") or 0.0
    rate_out = _rate(price, "output_per_mtok") or 0.0
    total_in = usage.input_tokens or 0
    cached = min(usage.cached_input_tokens or 0, total_in)
    written = min(usage.cache_write_tokens or 0, total_in - cached)
    rate_cached, rate_write = _rate(price, "cached_input_per_mtok"), _rate(price, "cache_write_per_mtok")
    if rate_cached is None:
        rate_cached = rate_in
        if cached:
            flags.append("cached_price_missing")
    if rate_write is None:
        rate_write = rate_in
        if written:
            flags.append("cache_write_price_missing")
    rate_reasoning = _rate(price, "reasoning_per_mtok")
    reasoning = min(usage.reasoning_tokens or 0, usage.output_tokens or 0)
    total = ((total_in - cached - written) * rate_in + cached * rate_cached + written * rate_write
             + ((usage.output_tokens or 0) - reasoning) * rate_out
             + reasoning * (rate_out if rate_reasoning is None else rate_reasoning))
    return round(total / 1e6, 10), tuple(flags)
