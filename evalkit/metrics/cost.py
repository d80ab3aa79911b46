"""Money: a price table per model, in US dollars per million tokens.

A price file (YAML or JSON) maps model specs to prices::

    openai/gpt-4o-mini: {input: 0.15, output: 0.60}    # USD per 1M input / output tokens
    anthropic/claude-x: {input: 3.0, output: 15.0}

An episode's money is ``input_tokens × input / 10⁶ + output_tokens × output / 10⁶``; a
model with no price has money ``None`` (JSON ``null``), never 0 (DESIGN §7, cost).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit.errors import ConfigError


class Price(BaseModel):
    """Price of one model.

    Attributes:
        input: USD per million input (prompt) tokens.
        output: USD per million output (completion) tokens.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    output: float = Field(ge=0)


def load_prices(path: str | Path | None) -> dict[str, Price]:
    """Read a price file.

    Args:
        path: YAML or JSON file mapping model spec to ``{input, output}``; ``None`` gives
            an empty table.

    Returns:
        Prices by model spec.

    Raises:
        ConfigError: naming the file and the model when the file is unreadable or a price
            is malformed.
    """
    if path is None:
        return {}
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the price file ({exc.strerror})") from None
    try:
        if p.suffix == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:  # noqa: BLE001 - YAML and JSON errors alike become one line
        raise ConfigError(f"{p}: not a valid price file ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: a price file maps model specs to {{input, output}} USD per 1M tokens")
    return parse_prices(data, source=str(p))


def parse_prices(data: dict[str, Any], *, source: str = "prices") -> dict[str, Price]:
    """Validate a price table given as a dict (as stored in a run manifest).

    Raises:
        ConfigError: naming ``source`` and the model for a malformed price.
    """
    out = {}
    for model, raw in data.items():
        try:
            out[str(model)] = Price.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(map(str, err["loc"])) or "price"
            raise ConfigError(f"{source}: model {model}: field {where}: {err['msg']}") from None
    return out


def episode_cost(price: Price | None, input_tokens: int, output_tokens: int) -> float | None:
    """USD spent by one episode, or ``None`` when the model has no price."""
    if price is None:
        return None
    return (input_tokens * price.input + output_tokens * price.output) / 1_000_000
