"""Settings of a live model, and the model config file that sets them.

A live model (``openai/<model>``, ``anthropic/<model>``, ``local/gemma-3-270m``) is
configured by one :class:`ModelSettings`, resolved in this order (later wins):

1. the provider's built-in defaults (its registered ``defaults`` and ``models``,
   :mod:`evalkit.models.registry`: :data:`PROVIDER_DEFAULTS`, and :data:`LOCAL_MODELS` for
   ``local/``);
2. the model config file's ``defaults`` section;
3. the model config file's entry for the spec;
4. the command-line options (:class:`ModelOptions`: ``--base-url``, ``--temperature``,
   ``--top-p``, ``--max-tokens``, ``--seed``, ``--tool-choice``, ``--cache/--no-cache``,
   ``--max-connections``).

The model config file (YAML or JSON, ``--model-config FILE``)::

    defaults:                      # every live model
      temperature: 0
      max_tokens: 512
    prices: prices.yaml            # optional price table, relative to this file
    models:
      openai/gpt-4o-mini:
        api_key_env: OPENAI_API_KEY
        tool_choice: auto
        price: {input_per_mtok: 0.15, output_per_mtok: 0.60}
      openai/qwen2.5-7b-instruct:
        base_url: http://127.0.0.1:8000/v1
        parse: {repair: [fence, trailing_quotes], extract_from_content: [hermes]}
        retry: {max_attempts: 5, retry_after_cap_s: 30}

Unknown keys are errors, reported with the file and the field. API keys are never stored
in settings or manifests: only the name of the environment variable that holds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from evalkit.errors import ConfigError
from evalkit.documents import DocumentError, load_json, load_yaml
from evalkit.models.pricing import load_price_table, find_price

Repair = Literal["trailing_quotes", "fence", "double_encoded", "empty_arguments"]
"""Opt-in argument repairs (see :mod:`evalkit.models.parsing`)."""

ContentFormat = Literal["hermes", "python_tag", "bare_json"]
"""Text formats of tool calls written into the message content (field case C04)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # `cache: "no"` is not false, a price "0.5" not 0.5


def check_base_url(value: str | None) -> str | None:
    """A live model's endpoint as given, if it is an ``http://`` or ``https://`` URL with a host.

    Args:
        value: The endpoint (``--base-url`` or a model's ``base_url``), or ``None`` (the
            provider's default).

    Returns:
        ``value`` unchanged.

    Raises:
        ValueError: naming what is wrong (empty, another scheme, no host, a bad port or IPv6
            address), so that a run is refused before any episode instead of every episode
            ending in ``connection_error``.
    """
    if value is None:
        return value
    from urllib.parse import urlsplit

    example = "expected an http:// or https:// URL, e.g. http://127.0.0.1:8080/v1"
    if not value.strip():
        raise ValueError(f"empty; {example}")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError as exc:
        raise ValueError(f"not a valid URL ({exc}); {example}") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError(f"{f'scheme {parts.scheme!r}' if parts.scheme else 'no scheme'}; {example}")
    if not parts.hostname:
        raise ValueError(f"no host; {example}")
    if any(c.isspace() or not c.isprintable() for c in value):
        raise ValueError(f"holds a space or a control character; {example}")
    if parts.port == 0:
        raise ValueError(f"port 0 is no port; {example}")
    return value


class RetrySettings(_Strict):
    """When and how long to retry a failed provider call (DESIGN §7 cost; field case C19).

    Attributes:
        max_attempts: Attempts per call, the first included (1 = no retry).
        initial_wait_s: First backoff wait when the provider gives no ``Retry-After``;
            doubled per retry (with jitter) up to ``max_wait_s``.
        max_wait_s: Largest backoff wait.
        retry_after_cap_s: Largest ``Retry-After`` honoured; a longer one is waited for
            this long.
        identical_error_limit: Stop after this many identical HTTP 500 answers in a row
            (outcome ``provider_rejects_history``).
        timeout_s: Seconds allowed for one HTTP request.
    """

    max_attempts: int = Field(default=4, ge=1, le=20)
    initial_wait_s: float = Field(default=1.0, ge=0)
    max_wait_s: float = Field(default=30.0, ge=0)
    retry_after_cap_s: float = Field(default=60.0, ge=0)
    identical_error_limit: int = Field(default=3, ge=2)
    timeout_s: float = Field(default=120.0, gt=0)


class ParseSettings(_Strict):
    """How strictly tool calls are read. Strict by default; each repair is opt-in.

    Attributes:
        repair: Argument repairs to apply (every use is tagged in the trace).
        extract_from_content: Text formats from which tool calls written in the message
            content are extracted (tagged ``source=content``).
    """

    repair: list[Repair] = Field(default_factory=list)
    extract_from_content: list[ContentFormat] = Field(default_factory=list)


MAX_PRICE_PER_MTOK = 1e6
"""Largest price a config or price table may give (USD per million tokens, one dollar a token): far above
any real model, and low enough that an episode's cost stays under the largest a result row may hold
(:data:`evalkit.metrics.summary.MAX_MEASURE`), so no priced episode is refused when the run is read."""


class Price(_Strict):
    """Price of a model in US dollars per million tokens, by token class
    (:func:`evalkit.usage.usage_cost` has the formula). Each is a finite number from 0 (free) to
    :data:`MAX_PRICE_PER_MTOK`; a string, a boolean, ``.inf``, ``.nan`` or a larger number is a config error,
    never a price.

    Attributes:
        input_per_mtok: Uncached input tokens.
        output_per_mtok: Output tokens.
        cached_input_per_mtok: Input tokens read from the prompt cache (``None``: the input
            price, and a row with cached tokens is flagged ``cached_price_missing``).
        cache_write_per_mtok: Input tokens written to the prompt cache (``None``: the input
            price, flagged ``cache_write_price_missing``).
        reasoning_per_mtok: Reasoning / thinking tokens (``None``: the output price, as
            OpenAI and Anthropic bill them).
    """

    input_per_mtok: float = Field(ge=0, le=MAX_PRICE_PER_MTOK, strict=True, allow_inf_nan=False)
    output_per_mtok: float = Field(ge=0, le=MAX_PRICE_PER_MTOK, strict=True, allow_inf_nan=False)
    cached_input_per_mtok: float | None = Field(default=None, ge=0, le=MAX_PRICE_PER_MTOK, strict=True, allow_inf_nan=False)
    cache_write_per_mtok: float | None = Field(default=None, ge=0, le=MAX_PRICE_PER_MTOK, strict=True, allow_inf_nan=False)
    reasoning_per_mtok: float | None = Field(default=None, ge=0, le=MAX_PRICE_PER_MTOK, strict=True, allow_inf_nan=False)


class LocalServerSettings(_Strict):
    """How ``local/`` models start their llama.cpp server (see :mod:`evalkit.models.local`)."""

    n_threads: int = Field(default=2, ge=1)
    n_ctx: int = Field(default=4096, ge=512)
    chat_format: str = "chatml-function-calling"
    seed: int = 42
    startup_timeout_s: float = Field(default=120.0, gt=0)


EVALKIT_OWNED_FIELDS: frozenset[str] = frozenset({"model", "messages", "system", "tools", "functions", "stream",
                                                  "n", "stream_options"})
"""Request fields ``extra_body`` may not set: evalkit sends the conversation, the tools, one answer and no
stream itself, and an override would silently change what the model was asked."""

SETTING_FIELDS: dict[str, str] = {"temperature": "temperature", "top_p": "top_p", "max_tokens": "max_tokens",
                                  "seed": "seed", "stop": "stop", "stop_sequences": "stop",
                                  "tool_choice": "tool_choice"}
"""Request fields ``extra_body`` may not set because a setting of :class:`ModelSettings` sends them
(``{request field: setting}``; ``stop_sequences`` is Anthropic's name of ``stop``): set there, the value
is what the run manifest records, what the cache keys on (a ``temperature`` of 0 makes the epochs of a
pair one cached call) and what the ``--tool-choice`` checks read; set in ``extra_body`` it would be sent
in place of the recorded one."""


class ModelSettings(_Strict):
    """Everything that defines how one live model is called.

    Attributes:
        spec: The model spec (``openai/gpt-4o-mini``).
        provider: A registered live provider (``openai``, ``anthropic``, ``local``, …:
            :mod:`evalkit.models.registry`).
        model: The provider's model name.
        base_url: API endpoint (``None``: the provider's default; for ``local``: start
            the server on demand).
        api_key_env: Environment variable holding the API key.
        temperature, top_p, max_tokens, seed, stop: Sampling parameters; ``None`` is
            not sent (the provider's default applies).
        tool_choice: ``auto``, ``required``, ``none`` or a tool name.
        extra_body: Extra request fields (e.g. ``{"repeat_penalty": 1.0}`` for llama.cpp); never one of
            :data:`EVALKIT_OWNED_FIELDS` (``messages``, ``tools``, ``stream`` ...): a ``ValueError``.
        tool_results_as: ``tool`` messages, or ``user`` for chat formats that do not show
            tool messages to the model.
        max_string_length: Cap on ``maxLength`` of string arguments in the tool schemas
            sent (the controller still validates against the tools' own schemas); for
            servers that constrain arguments by grammar and ignore ``max_tokens`` there.
        drop_schema_keywords: JSON-Schema keywords removed from the tool schemas sent (e.g.
            ``pattern``, which llama.cpp's grammar cannot compile); validation still uses
            the full schemas.
        max_connections: Episodes of this model run concurrently.
        cache: Whether calls are cached (:mod:`evalkit.models.cache`).
        price: Price per million tokens, or ``None`` (cost is then ``null``).
        model_aliases: Other names the endpoint gives this model in its responses' ``model``
            (an Azure deployment's underlying model, the file name a self-hosted server
            reports); a response naming one of them is not a ``model_mismatch``
            (:mod:`evalkit.models.identity`).
        prices: The prices of the other models the model config and the price tables know
            (``{spec: price}``), for a response from another model than the one requested
            (a gateway's fallback), which is billed at that model's price
            (:func:`evalkit.models.identity.answering_price`). Filled by
            :func:`resolve_settings`; not part of the run manifest.
    """

    spec: str
    provider: str
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    stop: list[str] | None = None
    tool_choice: str = "auto"
    extra_body: dict[str, Any] = Field(default_factory=dict)
    tool_results_as: Literal["tool", "user"] = "tool"
    max_string_length: int | None = Field(default=None, ge=1)
    drop_schema_keywords: list[str] = Field(default_factory=list)
    max_connections: int = Field(default=4, ge=1, le=256)
    cache: bool = True
    price: Price | None = None
    model_aliases: list[str] = Field(default_factory=list)
    prices: dict[str, Price] = Field(default_factory=dict)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    parse: ParseSettings = Field(default_factory=ParseSettings)
    local: LocalServerSettings | None = None

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        return check_base_url(value)

    @field_validator("extra_body")
    @classmethod
    def _extra_body(cls, value: dict[str, Any]) -> dict[str, Any]:
        owned = sorted(k for k in value if k in EVALKIT_OWNED_FIELDS)
        if owned:
            raise ValueError(f"sets {', '.join(owned)}, which evalkit sends itself (the conversation, the tools, one "
                             "answer, no streaming): use the settings of their own names, or leave them out")
        settings = sorted(k for k in value if k in SETTING_FIELDS)
        if settings:
            named = ", ".join(k if SETTING_FIELDS[k] == k else f"{k} (the setting {SETTING_FIELDS[k]})" for k in settings)
            raise ValueError(f"sets {named}, which a setting of its own sends: set it there (e.g. "
                             f"`{SETTING_FIELDS[settings[0]]}:` next to extra_body, or --{SETTING_FIELDS[settings[0]].replace('_', '-')} "
                             "where the command has it), so that the run manifest and the cache record the value sent")
        return value

    @field_validator("provider")
    @classmethod
    def _live_provider(cls, value: str) -> str:
        from evalkit.models.registry import get_provider, live_providers

        try:
            live = get_provider(value).live
        except ConfigError:
            live = False
        if not live:
            raise ValueError(f"{value!r} is not a live provider; live providers: {', '.join(live_providers())}")
        return value

    def sampling(self) -> dict[str, Any]:
        """The sampling parameters that are set (part of every cache key)."""
        out = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "stop": self.stop,
            "tool_choice": self.tool_choice,
            "extra_body": self.extra_body,
        }
        return {k: v for k, v in out.items() if v not in (None, {}, [])}

    def describe(self) -> dict[str, Any]:
        """The settings as recorded in the run manifest (no secrets: only env var names)."""
        return self.model_dump(mode="json", exclude={"prices"})


class ModelOptions(_Strict):
    """Command-line overrides for every live model of a run (``None``: not given)."""

    base_url: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    tool_choice: str | None = None
    cache: bool | None = None
    max_connections: int | None = Field(default=None, ge=1, le=256)
    model_config_file: str | None = None

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        return check_base_url(value)


PROVIDER_DEFAULTS: dict[str, dict[str, Any]] = {
    "openai": {"api_key_env": "OPENAI_API_KEY", "max_connections": 4},
    "anthropic": {"api_key_env": "ANTHROPIC_API_KEY", "max_connections": 4, "max_tokens": 1024},
    "local": {"max_connections": 1},
}
"""Built-in defaults per provider (level 1 of the resolution order)."""

LOCAL_MODELS: dict[str, dict[str, Any]] = {
    "gemma-3-270m": {
        "temperature": 0.0,
        "max_tokens": 256,
        "tool_choice": "auto",
        "extra_body": {"repeat_penalty": 1.0},
        "tool_results_as": "user",
        "max_string_length": 48,
        "drop_schema_keywords": ["pattern"],
        "price": {"input_per_mtok": 0.0, "output_per_mtok": 0.0},
        "retry": {"max_attempts": 2, "timeout_s": 600.0},
        "local": {},
    },
}
"""Models evalkit can serve itself (``local/NAME``), with the request settings the
embedded llama.cpp server needs: temperature 0, an explicit ``tool_choice``,
``repeat_penalty`` 1.0 (the server's default penalty can make an argument string run on),
a ``max_tokens`` cap, string arguments capped at 48 characters (the server generates tool
arguments under a grammar and ignores ``max_tokens`` there, so a long ``maxLength`` is a long
call), ``pattern`` removed from the schemas sent (a regex with ``\\s`` makes the server's
grammar compiler fail and the server crash), and tool results passed back inside user
messages."""


class ModelConfigFile(_Strict):
    """The model config file (see the module docstring)."""

    defaults: dict[str, Any] = Field(default_factory=dict)
    models: dict[str, dict[str, Any]] = Field(default_factory=dict)
    prices: str | None = None


def load_model_config(path: str | Path) -> tuple[ModelConfigFile, Path]:
    """Read a model config file.

    Args:
        path: A ``.yaml``/``.yml`` or ``.json`` file.

    Returns:
        The parsed file and its folder (relative paths inside it resolve from there).

    Raises:
        ConfigError: naming the file and the field when it is unreadable or invalid.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read model config: {exc.strerror or exc}") from None

    if p.suffix == ".json":
        try:
            data = load_json(text)
        except DocumentError as exc:
            raise ConfigError(f"{p}: {exc.describe()}") from None
        except ValueError as exc:
            raise ConfigError(f"{p}: not valid JSON: {exc}") from None
    else:
        import yaml

        try:
            data = load_yaml(text)
        except DocumentError as exc:
            raise ConfigError(f"{p}: {exc.describe()}") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"{p}: not valid YAML: {' '.join(str(exc).split())}") from None
    if data is not None and not isinstance(data, dict):
        raise ConfigError(f"{p}: a model config must be a mapping with defaults / models / prices")
    try:
        return ModelConfigFile.model_validate(data or {}), p.parent
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(f"{p}: field {'.'.join(map(str, err['loc']))}: {err['msg'].removeprefix('Value error, ')}") from None


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def resolve_settings(spec: str, options: ModelOptions | None = None) -> ModelSettings:
    """Resolve the settings of a live model (see the module docstring for the order).

    Args:
        spec: ``PROVIDER/NAME`` of a registered live provider (``openai``, ``anthropic``,
            ``local``, …).
        options: Command-line overrides.

    Returns:
        The resolved settings. The price comes from the model's entry, else the config
        file's price table, else the built-in table (:mod:`evalkit.models.pricing`), else the
        provider's own ``prices``.

    Raises:
        ConfigError: for an unknown provider, a model its provider does not have (``local/``)
            or invalid settings (naming the field).
    """
    from evalkit.models.registry import get_provider

    options = options or ModelOptions()
    provider, _, name = spec.partition("/")
    data: dict[str, Any] = {"spec": spec, "provider": provider, "model": name}
    declared = get_provider(provider)
    data = _merge(data, dict(declared.defaults))
    if declared.models:
        if name not in declared.models:
            raise ConfigError(f"unknown {provider} model {name!r} in {spec!r}; available: {', '.join(declared.models)}")
        data = _merge(data, dict(declared.models[name]))
    source = "options"
    prices: dict[str, Any] = {}
    cfg_models: dict[str, Any] = {}
    if options.model_config_file:
        cfg, folder = load_model_config(options.model_config_file)
        cfg_models = cfg.models
        source = options.model_config_file
        data = _merge(data, cfg.defaults)
        data = _merge(data, cfg.models.get(spec, {}))
        if cfg.prices:
            prices = load_price_table(folder / cfg.prices)
    overrides = options.model_dump(exclude={"model_config_file"}, exclude_none=True)
    data = _merge(data, overrides)
    data["prices"] = _known_prices(provider, declared.prices, prices, cfg_models)
    if data.get("price") is None:
        price: Mapping[str, float] | None = find_price(spec, prices)
        if price is None:
            price = declared.prices.get(name, declared.prices.get("*"))
        if price is not None:
            data["price"] = dict(price)
    try:
        return ModelSettings.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        got = f" (got {err['input']!r})" if isinstance(err.get("input"), (str, int, float)) else ""
        raise ConfigError(f"{source}: model {spec}: field {'.'.join(map(str, err['loc']))}: {err['msg'].removeprefix('Value error, ')}{got}") from None


def _known_prices(provider: str, declared: Mapping[str, Any], table: Mapping[str, Any],
                  entries: Mapping[str, Any]) -> dict[str, Any]:
    """``{spec: price}`` of every model of ``provider`` a price is known for, first source
    winning: the model config's entries, its price table, the built-in table, the provider's
    own ``prices`` (the order :func:`resolve_settings` prices the requested model in). An
    entry whose price is malformed is left out here: it is reported when that model is run."""
    from evalkit.models.pricing import builtin_prices

    out: dict[str, Any] = {}
    sources: list[Mapping[str, Any]] = [
        {spec: entry["price"] for spec, entry in entries.items() if isinstance(entry, dict) and entry.get("price")},
        table, builtin_prices(), {f"{provider}/{name}": price for name, price in declared.items()}]
    for source in sources:
        for spec, price in source.items():
            if str(spec).partition("/")[0] != provider or str(spec) in out:
                continue
            try:
                out[str(spec)] = Price.model_validate(price).model_dump(exclude_none=True)
            except ValidationError:
                continue
    return out
