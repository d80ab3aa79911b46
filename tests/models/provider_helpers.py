"""Helpers for the provider conformance tests: one call of a live model against a body served
over real HTTP, and a run of the built-in pair ``shop-order-missing-quantity`` against a
scripted fake endpoint (the field cases F01–F08)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

from model_helpers import TOOLS, settings
from werkzeug import Response

from evalkit.runtime.context import ModelContext

PAIR = "shop-order-missing-quantity"
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "field_failures_2.json"


def pair_suite(tmp_path: Path) -> Path:
    """A suite file holding the built-in :data:`PAIR` as the field cases describe it: without
    its follow-up, so each episode ends at the model's answer (one call per episode)."""
    import yaml

    builtin = Path(__file__).resolve().parents[2] / "scenarios" / "builtin.yaml"
    [pair] = [p for p in yaml.safe_load(builtin.read_text(encoding="utf-8"))["pairs"] if p["id"] == PAIR]
    pair["abstain"].pop("followup", None)
    path = tmp_path / "pair.json"
    path.write_text(json.dumps({"pairs": [pair]}), encoding="utf-8")
    return path


def field_cases_2() -> dict[str, dict]:
    """The field cases F01–F09 by id (the repository's copy of the case file)."""
    return {case["id"]: case for case in json.loads(FIXTURE.read_text(encoding="utf-8"))}


def context(messages: list[dict] | None = None) -> ModelContext:
    """A one-turn context over the test tools."""
    definitions = [spec.definition() for spec in TOOLS.values()]
    return ModelContext(messages=messages or [{"role": "system", "content": "You are a test agent."},
                                              {"role": "user", "content": "Pay 40 EUR to ACC-0001."}],
                        tools=definitions, tokens=0, budget=16_000, tool_names=tuple(TOOLS))


def live(api, spec: str, **kw):
    """A :class:`LiveModel` for ``spec`` over the fake server ``api`` (no cache unless given)."""
    from evalkit.models.live import LiveModel

    cache = kw.pop("cache", None)
    base = api.url_for("/v1") if spec.startswith("openai/") else api.url_for("").rstrip("/")
    kw.setdefault("max_tokens", 256)
    return LiveModel(settings(spec, base_url=base, **kw), cache=cache)


def path_of(spec: str) -> str:
    return "/v1/chat/completions" if spec.startswith("openai/") else "/v1/messages"


def _first_user_text(body: dict) -> str:
    for m in body["messages"]:
        if m["role"] == "user":
            content = m["content"]
            if isinstance(content, list):
                return " ".join(b.get("text", "") for b in content if isinstance(b, dict))
            return content
    return ""


class Endpoint:
    """A fake endpoint that answers by episode and turn: ``script[variant]`` is the list of
    bodies for that episode's requests (turn = assistant messages already in the request);
    an entry that is a list holds one body per attempt of that request (the last repeats), and
    one that is ``bytes`` is sent as those exact bytes (a body that is not valid UTF-8).
    ``check(body)`` may return an error response ``(status, body)`` instead.

    Attributes:
        requests: ``(variant, turn, request body)`` in arrival order.
    """

    def __init__(self, script: dict[str, list[Any]], check: Callable[[dict], Any] | None = None):
        self.script = script
        self.check = check
        self.requests: list[tuple[str, int, dict]] = []
        self.attempts: dict[tuple[str, int], int] = defaultdict(int)

    def __call__(self, request) -> Response:
        body = json.loads(request.get_data(as_text=True))
        variant = "act" if "order 2 of" in _first_user_text(body) else "abstain"
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        self.requests.append((variant, turn, body))
        if self.check is not None:
            refused = self.check(body)
            if refused is not None:
                return Response(json.dumps(refused[1]), status=refused[0], content_type="application/json")
        entry = self.script[variant][min(turn, len(self.script[variant]) - 1)]
        if isinstance(entry, list):
            n = self.attempts[(variant, turn)]
            self.attempts[(variant, turn)] += 1
            entry = entry[min(n, len(entry) - 1)]
        return Response(entry if isinstance(entry, bytes) else json.dumps(entry), content_type="application/json")


def run_pair(api, tmp_path: Path, spec: str, endpoint: Endpoint, *, config_yaml: str | None = None,
             out: str = "run", cache: bool = False, **options) -> tuple[dict, dict[str, dict], dict[str, Any]]:
    """Run the pair :data:`PAIR` (condition nl) with ``spec`` against ``endpoint`` through
    :func:`evalkit.pipeline.run`.

    Returns:
        ``(summary, rows by variant, traces by variant)``.
    """
    from evalkit.harness.config import RunConfig
    from evalkit.pipeline import run
    from evalkit.runtime.events import EventLog

    api.expect_request(path_of(spec), method="POST").respond_with_handler(endpoint)
    config_file = None
    if config_yaml is not None:
        config_file = tmp_path / "models.yaml"
        config_file.write_text(config_yaml, encoding="utf-8")
    base = api.url_for("/v1") if spec.startswith("openai/") else api.url_for("").rstrip("/")
    options.setdefault("temperature", 0.0)
    config = RunConfig(out=str(tmp_path / out), report=False, models=[spec], conditions=["nl"], pair_ids=[PAIR],
                       suites=[str(pair_suite(tmp_path))],
                       base_url=base, max_connections=1, selfcheck=False, cache=cache,
                       model_config_file=str(config_file) if config_file else None, **options)
    summary = run(config)
    rows = {}
    for line in (tmp_path / out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rows[row["variant"]] = row
    traces = {variant: EventLog.load(tmp_path / out / "traces" / f"{row['episode_id']}.jsonl")
              for variant, row in rows.items()}
    return summary, rows, traces


def events(log, kind: str) -> list:
    return [e for e in log.events if e.type == kind]
