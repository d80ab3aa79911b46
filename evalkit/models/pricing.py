"""Price tables and the money a model call costs (DESIGN §7 cost).

A price table is a YAML or JSON file mapping model specs to prices in US dollars per
million tokens::

    models:
      openai/gpt-4o-mini: {input_per_mtok: 0.15, output_per_mtok: 0.60}
      local/*: {input_per_mtok: 0, output_per_mtok: 0}     # every local model

Optional keys price the other token classes: ``cached_input_per_mtok`` (prompt-cache
reads), ``cache_write_per_mtok`` (prompt-cache writes) and ``reasoning_per_mtok`` (default:
the output price). The built-in table (``evalkit/models/prices.yaml``) prices only the
local and scripted models (at zero); hosted models are priced in a model config file. Cost
of one call = Σ tokens of each class × that class's price / 10⁶, using the provider's
reported usage (:func:`evalkit.usage.usage_cost`); unknown usage costs ``None``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from evalkit.errors import ConfigError
from evalkit.usage import PRICE_FIELDS, Usage, usage_cost


BUILTIN_PRICES = Path(__file__).resolve().parent / "prices.yaml"


def load_price_table(path: str | Path) -> dict[str, dict[str, float]]:
    """Read a price table file.

    Returns:
        ``{spec: {price key: float}}`` with ``input_per_mtok`` and ``output_per_mtok`` and
        any of the optional keys given (:data:`evalkit.usage.PRICE_FIELDS`).

    Raises:
        ConfigError: naming the file and the model when it is unreadable or malformed.
    """
    import yaml
    from pydantic import ValidationError

    from evalkit.models.config import MAX_PRICE_PER_MTOK, Price

    from evalkit.documents import DocumentError, load_json, load_yaml

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
        data = (load_json(text) if p.suffix == ".json" else load_yaml(text)) or {}  # JSON's NaN is a number
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}: not valid JSON: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read price table: {exc.strerror or exc}") from None
    except DocumentError as exc:  # a repeated key: the last would silently win
        raise ConfigError(f"{p}: {exc.describe()}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p}: not valid YAML: {' '.join(str(exc).split())}") from None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict):
        raise ConfigError(f"{p}: a price table needs a `models` mapping")
    out: dict[str, dict[str, float]] = {}
    for spec, price in models.items():
        unknown = sorted(set(price) - set(PRICE_FIELDS)) if isinstance(price, dict) else []
        if unknown:
            raise ConfigError(f"{p}: model {spec}: unknown price key {unknown[0]!r}; "
                              f"known: {', '.join(PRICE_FIELDS)}")
        try:
            checked = Price.model_validate(price).model_dump(exclude_none=True)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"]) or "price"
            if first["type"] in ("missing", "model_type", "dict_type"):
                raise ConfigError(
                    f"{p}: model {spec}: give input_per_mtok and output_per_mtok (and any of "
                    f"cached_input_per_mtok, cache_write_per_mtok, reasoning_per_mtok) as numbers"
                ) from None
            if first["type"] == "greater_than_equal":
                raise ConfigError(f"{p}: model {spec}: prices must not be negative ({where})") from None
            raise ConfigError(f"{p}: model {spec}: {where} is {first.get('input')!r}; "
                              f"a price is a finite number from 0 to {MAX_PRICE_PER_MTOK:g} (USD per million tokens)") from None
        out[str(spec)] = {k: float(v) for k, v in checked.items()}
    return out


@cache
def builtin_prices() -> dict[str, dict[str, float]]:
    """The built-in price table."""
    return load_price_table(BUILTIN_PRICES)


def find_price(spec: str, table: dict[str, dict[str, float]] | None = None) -> dict[str, float] | None:
    """The price of ``spec``: an exact entry, then ``provider/*``, first in ``table`` then in
    the built-in table; ``None`` when neither has one."""
    provider = spec.partition("/")[0]
    for source in (table or {}, builtin_prices()):
        for key in (spec, f"{provider}/*"):
            if key in source:
                return dict(source[key])
    return None


def call_cost(price: Any, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """Dollars for a call billed only plain input and output tokens, or ``None`` when
    ``price`` or a count is ``None`` (:func:`evalkit.usage.usage_cost` for every class).

    Args:
        price: An object or mapping with ``input_per_mtok`` and ``output_per_mtok`` (dollars
            per million tokens), or ``None``.
        input_tokens: Prompt tokens billed.
        output_tokens: Completion tokens billed.
    """
    return usage_cost(Usage(input_tokens=input_tokens, output_tokens=output_tokens), price)[0]
