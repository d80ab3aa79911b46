"""``evalkit view``: a local viewer of every episode's trace, with filters and a pair view.

A standard-library :class:`http.server.ThreadingHTTPServer` bound to ``127.0.0.1`` serves,
for each run directory (``/run/LABEL/``, LABEL the folder's name):

* ``report.html`` as written (its table cells link into the viewer when it is served from here:
  relative ``view/…`` links, shown only over http);
* ``view/`` — the leaderboard (:func:`evalkit.report.view.leaderboard`), each group linking to
  its pairs and its failing pairs;
* ``view/episodes?…`` and ``view/pairs?…`` — episodes or pair units filtered by model,
  condition, gate, trigger, domain, variant, right / wrong, failure kind and a text search
  (final text, ids, error), a page of :data:`PAGE` at a time;
* ``view/episode?id=…`` — one episode's trace, turn by turn;
* ``view/pair?pair=…&model=…&condition=…&gate=…&epoch=…`` — the pair view: its act and abstain
  sides side by side, turn by turn, with each side's expected behaviour, the pair's rationale
  (``why_act``, ``why_abstain``) and its perturbation (from the run's suite, when its content is
  unchanged: :attr:`evalkit.report.rundata.RunData.suite_pairs`).

Each run is indexed once at start (its result rows, a few fields each); a trace is read from
its file when asked for, so any episode of a large run is served at once
(``benchmarks/viewer_latency.py`` measures it). Pages are jinja2 templates with autoescaping:
model and tool text is shown as text only, never as markup; the viewer's own pages have no
script.
"""

from __future__ import annotations

import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import parse_qs, urlencode, urlsplit

from evalkit.errors import RunError
from evalkit.report.view import leaderboard
from evalkit.report.html import trace_file, _env, _static
from evalkit.report.traces import condense, load_trace
from evalkit.report.rundata import RunData

PAGE = 200
"""Episodes or pair units listed per page."""
FILTERS = ("model", "condition", "gate", "trigger", "domain", "variant", "right", "kind", "q")
"""Query parameters of the lists (``right``: ``right`` or ``wrong``; ``kind``: a failure kind;
``q``: text searched, case-insensitive, in the final text, ids and error)."""
_KEEP = ("episode_id", "pair_id", "variant", "model", "condition", "gate", "epoch", "trigger", "phase", "domain",
         "split", "language", "status", "correct", "decision", "expected_decision", "failure_kind", "lag", "timely",
         "final_text", "error", "source_run", "source_episode", "commits", "stated")
_SIDES = {"act": 0, "abstain": 1, "act_resist": 2}


class RunIndex:
    """One run directory, indexed for the viewer: its rows (:data:`_KEEP` fields), by episode
    id and by pair unit, and its summary rows in leaderboard order.

    Args:
        data: The run (:class:`evalkit.report.rundata.RunData`).
        label: Its name in URLs.
    """

    def __init__(self, data: Any, label: str):
        self.data, self.label = data, label
        self.has_report = (data.path / "report.html").is_file()
        self.rows = [{k: r.get(k) for k in _KEEP} for r in data.rows()]
        for r in self.rows:
            r["right"] = r["status"] == "ok" and bool(r["correct"])
            r["_text"] = " ".join(str(r.get(k) or "") for k in ("final_text", "episode_id", "pair_id", "error")).lower()
        self.by_id = {r["episode_id"]: r for r in self.rows}
        self.units: dict[tuple, list[dict[str, Any]]] = {}
        for r in self.rows:
            self.units.setdefault((r["pair_id"], r["model"], r["condition"], r["gate"], r["epoch"]), []).append(r)
        self.by_pair: dict[str, list[tuple]] = {}
        for key, sides in self.units.items():
            sides.sort(key=lambda r: _SIDES.get(r["variant"], 9))
            self.by_pair.setdefault(key[0], []).append(key[1:])
        try:
            self.leaderboard = leaderboard(data.summary_json.get("rows", []))
            self.max_lag = data.summary_json.get("settings", {}).get("max_lag", 1)
        except RunError:  # an interrupted run: no summary yet, every trace still shown
            self.leaderboard, self.max_lag = [], 1
        self._sources: dict[str, Any] = {}
        if not any(r.get("source_run") for r in self.rows):
            data.suite_pairs  # noqa: B018 - loaded now, so that no page waits for it

    def options(self) -> dict[str, list[Any]]:
        """The values each filter can take in this run."""
        out = {k: sorted({str(r[k]) for r in self.rows if r.get(k) is not None})
               for k in ("model", "condition", "gate", "trigger", "domain", "variant")}
        out["kind"] = sorted({r["failure_kind"] for r in self.rows if r.get("failure_kind")})
        return out

    def episodes(self, f: dict[str, str]) -> list[dict[str, Any]]:
        """The rows that pass the filters ``f`` (:data:`FILTERS`), in run order."""
        return [r for r in self.rows if _passes(r, f)]

    def pair_units(self, f: dict[str, str]) -> list[dict[str, Any]]:
        """Pair units (two or more recorded sides) passing ``f``: ``right`` and ``kind`` read
        the unit (every side right; any side of that kind), the others any side."""
        out = []
        side_filter = {k: v for k, v in f.items() if k not in ("right", "kind", "variant")}
        for key, sides in self.units.items():
            if len(sides) < 2 or not any(_passes(r, side_filter) for r in sides):
                continue
            right = all(r["right"] for r in sides)
            if f.get("right") in ("right", "wrong") and right != (f["right"] == "right"):
                continue
            if f.get("kind") and not any(r.get("failure_kind") == f["kind"] for r in sides):
                continue
            out.append({"pair_id": key[0], "model": key[1], "condition": key[2], "gate": key[3], "epoch": key[4],
                        "trigger": sides[0]["trigger"], "domain": sides[0]["domain"], "right": right,
                        "sides": sides})
        return out

    def trace(self, row: dict[str, Any]) -> dict[str, Any]:
        """The condensed trace of a row (:func:`evalkit.report.traces.condense`, long fields kept)."""
        path = trace_file(self.data.path, row)
        events = load_trace(path) if path is not None else []
        return condense(events, row, max_chars=20000, max_events=2000)

    def pair(self, row: dict[str, Any]) -> Any:
        """The suite's pair of a row (its source run's, for a compare output), or ``None``."""
        source = row.get("source_run")
        if source:
            if source not in self._sources:
                try:
                    self._sources[source] = RunData(source).suite_pairs
                except RunError:
                    self._sources[source] = {}
            return self._sources[source].get(row["pair_id"])
        return self.data.suite_pairs.get(row["pair_id"])


def _passes(r: dict[str, Any], f: dict[str, str]) -> bool:
    for key, value in f.items():
        if not value:
            continue
        if key == "right":
            if value in ("right", "wrong") and r["right"] != (value == "right"):
                return False
        elif key == "kind":
            if r.get("failure_kind") != value:
                return False
        elif key == "q":
            if value.lower() not in r["_text"]:
                return False
        elif str(r.get(key)) != value:
            return False
    return True


def aligned_turns(traces: Sequence[dict[str, Any] | None]) -> list[dict[str, Any]]:
    """Turns of several condensed traces side by side: ``[{"t", "cells": [items per trace]}]``
    for every turn number any of them has, in order (a side without that turn has ``[]``)."""
    numbers = sorted({t["t"] for tr in traces if tr for t in tr["turns"]})
    by = [{t["t"]: t["items"] for t in tr["turns"]} if tr else {} for tr in traces]
    return [{"t": n, "cells": [b.get(n, []) for b in by]} for n in numbers]


def _labels(paths: Sequence[Path]) -> list[str]:
    names = [re.sub(r"[^A-Za-z0-9_.-]+", "_", p.resolve().name) or "run" for p in paths]
    if len(set(names)) == len(names):
        return names
    return [f"{i}-{n}" for i, n in enumerate(names, 1)]


class Viewer:
    """The viewer's state: the indexed runs and the templates.

    Args:
        paths: Run directories (or ``evalkit compare`` outputs).

    Raises:
        RunError: when a path is not a run directory or its results cannot be read.
    """

    def __init__(self, paths: Sequence[str | Path]):
        roots = [Path(p) for p in paths]
        self.runs = {label: RunIndex(RunData(p), label) for label, p in zip(_labels(roots), roots)}
        self.env = _env()
        self.env.globals["css"] = _static("report.css")
        self.env.globals["qs"] = lambda **kw: urlencode({k: v for k, v in kw.items() if v not in (None, "")})
        self.template = self.env.get_template("viewer.html.j2")

    def page(self, path: str, query: dict[str, str]) -> tuple[int, str, bytes]:
        """``(status, content type, body)`` for a GET of ``path`` with ``query``."""
        parts = [p for p in path.split("/") if p]
        if not parts:
            return self._render("home", runs=list(self.runs.values()))
        if len(parts) < 2 or parts[0] != "run" or parts[1] not in self.runs:
            return self._missing(f"no such page: {path}")
        run = self.runs[parts[1]]
        rest = parts[2:]
        if rest == ["report.html"]:
            report = run.data.path / "report.html"
            run.has_report = report.is_file()
            if not run.has_report:
                return self._missing(f"{report}: no report (render it with `evalkit report`)")
            return 200, "text/html; charset=utf-8", report.read_bytes()
        if not rest or rest[0] != "view":
            return self._missing(f"no such page: {path}")
        what = rest[1] if len(rest) > 1 else ""
        f = {k: query.get(k, "") for k in FILTERS}
        if what == "":
            return self._render("leaderboard", run=run)
        if what == "episodes":
            return self._list(run, f, "episodes", run.episodes(f), query)
        if what == "pairs":
            return self._list(run, f, "pairs", run.pair_units(f), query)
        if what == "episode":
            row = run.by_id.get(query.get("id", ""))
            if row is None:
                return self._missing(f"{run.label}: no episode {query.get('id', '')!r}")
            return self._render("episode", run=run, row=row, trace=run.trace(row))
        if what == "pair":
            return self._pair(run, query)
        return self._missing(f"no such page: {path}")

    def _list(self, run: RunIndex, f: dict[str, str], kind: str, items: list[Any],
              query: dict[str, str]) -> tuple[int, str, bytes]:
        try:
            page = max(1, int(query.get("page", "1")))
        except ValueError:
            page = 1
        shown = items[(page - 1) * PAGE: page * PAGE]
        return self._render(kind, run=run, f=f, items=shown, total=len(items), page=page,
                            pages=max(1, -(-len(items) // PAGE)), options=run.options())

    def _pair(self, run: RunIndex, q: dict[str, str]) -> tuple[int, str, bytes]:
        try:
            epoch = int(q.get("epoch", "1"))
        except ValueError:  # never another epoch's episodes in its place
            return self._missing(f"{run.label}: epoch {q.get('epoch')!r} is not a whole number")
        key = (q.get("pair", ""), q.get("model", ""), q.get("condition", ""), q.get("gate", "off"), epoch)
        sides = run.units.get(key)
        if not sides:
            return self._missing(f"{run.label}: no episodes of pair {key[0]!r} for {'/'.join(map(str, key[1:]))}")
        traces = [run.trace(r) for r in sides]
        others = sorted(run.by_pair.get(key[0], []))[:200]
        return self._render("pair", run=run, key=key, sides=sides, traces=traces, turns=aligned_turns(traces),
                            pair=run.pair(sides[0]), others=others)

    def _render(self, mode: str, **ctx: Any) -> tuple[int, str, bytes]:
        html = self.template.render(mode=mode, filters=FILTERS, **ctx)
        return 200, "text/html; charset=utf-8", html.encode("utf-8")

    def _missing(self, message: str) -> tuple[int, str, bytes]:
        html = self.template.render(mode="missing", message=message, filters=FILTERS)
        return 404, "text/html; charset=utf-8", html.encode("utf-8")


def make_server(viewer: Viewer, port: int = 0) -> ThreadingHTTPServer:
    """A server for ``viewer`` on ``127.0.0.1:port`` (0: a free port; ``server.server_port``
    says which). Call ``serve_forever()`` to serve, ``shutdown()`` to stop.

    Raises:
        OSError: when the port is taken.
    """

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            try:
                status, kind, body = viewer.page(url.path, query)
            except RunError as exc:
                status, kind, body = 500, "text/plain; charset=utf-8", str(exc).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    return server
