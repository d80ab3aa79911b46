"""Price tables and the money a model call costs (DESIGN §7 cost).

A price table is a YAML or JSON file mapping model specs to prices in US dollars per
million tokens::

    models:
      openai/gpt-4o-mini: {input_per_mtok: 0.15, output_per_mtok: 0.60}
      local/*: {input_per_mtok: 0, output_per_mtok: 0}     # every local model

The built-in table (``evalkit/models/prices.yaml``) prices only the local and scripted
models (at zero); hosted models are priced in a model config file. Cost of one call =
``input_tokens × input_per_mtok / 10⁶ + output_tokens × output_per_mtok / 10⁶``, using
the provider's reported usage.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from evalkit.errors import ConfigError

BUILTIN_PRICES = Path(__file__).resolve().parent / "prices.yaml"


def load_price_table(path: str | Path) -> dict[str, dict[str, float]]:
    """Read a price table file.

    Returns:
        ``{spec: {"input_per_mtok": float, "output_per_mtok": float}}``.

    Raises:
        ConfigError: naming the file and the model when it is unreadable or malformed.
    """
    import yaml

    from evalkit.scenarios.documents import DocumentError, load_yaml

    p = Path(path)
    try:
        data = load_yaml(p.read_text(encoding="utf-8")) or {}
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
        try:
            out[str(spec)] = {k: float(price[k]) for k in ("input_per_mtok", "output_per_mtok")}
        except (TypeError, KeyError, ValueError):
            raise ConfigError(
                f"{p}: model {spec}: give input_per_mtok and output_per_mtok as numbers"
            ) from None
        if min(out[str(spec)].values()) < 0:
            raise ConfigError(f"{p}: model {spec}: prices must not be negative")
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


def call_cost(price: Any, input_tokens: int, output_tokens: int) -> float | None:
    """Dollars for one call, or ``None`` when ``price`` is ``None``.

    Args:
        price: An object with ``input_per_mtok`` and ``output_per_mtok`` (dollars per
            million tokens), or ``None``.
        input_tokens: Prompt tokens billed.
        output_tokens: Completion tokens billed.
    """
    if price is None:
        return None
    return round((input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1e6, 10)
