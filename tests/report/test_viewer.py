"""`evalkit view`: a local server on 127.0.0.1 serving every trace, filters and the pair view."""

from __future__ import annotations

import html
import threading
import urllib.error
import urllib.request
from urllib.parse import urlencode

from evalkit.report.viewer import aligned_turns


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def test_bound_to_loopback_on_a_free_port(served):
    base, _ = served
    assert base.startswith("http://127.0.0.1:") and not base.endswith(":0")
    status, body = get(base + "/")
    assert status == 200 and "/run/kinds/view/" in body


def test_every_episode_is_served(served):
    base, viewer = served
    index = viewer.runs["kinds"]
    for row in index.rows:
        status, body = get(f"{base}/run/kinds/view/episode?{urlencode({'id': row['episode_id']})}")
        assert status == 200 and "turn 1" in body and html.escape(row["pair_id"]) in body
    assert get(f"{base}/run/kinds/view/episode?id=nope")[0] == 404


def test_filters(served):
    base, viewer = served
    rows = viewer.runs["kinds"].rows
    status, body = get(f"{base}/run/kinds/view/episodes?kind=over_refusal")
    expected = [r for r in rows if r["failure_kind"] == "over_refusal"]
    assert status == 200 and f"{len(expected)} episodes" in body and len(expected) > 0
    assert body.count("over_refusal</span>") == len(expected)
    _, body = get(f"{base}/run/kinds/view/episodes?model=scripted/oracle&right=wrong")
    assert "0 episodes" in body
    _, body = get(f"{base}/run/kinds/view/pairs?model=scripted/always_act&right=wrong&trigger=missing_target")
    assert "1 pairs" in body and "mini-missing-target" in body
    word = next(r["final_text"] for r in rows if r["final_text"]).split()[-1].strip(".").upper()
    _, body = get(f"{base}/run/kinds/view/episodes?{urlencode({'q': word})}")  # any case, in the final text
    hits = [r for r in rows if word.lower() in " ".join(str(r[k] or "") for k in
                                                      ("final_text", "episode_id", "pair_id", "error")).lower()]
    assert f"{len(hits)} episodes" in body and hits


def test_the_pair_view_aligns_both_sides_with_the_expected_behaviour(served):
    base, _ = served
    q = urlencode({"pair": "mini-missing-target", "model": "scripted/always_act", "condition": "tool",
                   "gate": "off", "epoch": 1})
    status, body = get(f"{base}/run/kinds/view/pair?{q}")
    assert status == 200
    assert "act side:" in body and "abstain side:" in body and "acted_when_should_not" in body
    assert "There are no kiwis in the store." in body  # the abstain side's expected reason
    assert "buy_item({&#34;name&#34;: &#34;apple&#34;, &#34;qty&#34;: 2})" in body or "buy_item(" in body
    assert "Buy 2 apples." in body and "Buy 2 kiwis." in body


def test_model_text_is_shown_as_text(served, payload):
    base, viewer = served
    label = [k for k in viewer.runs if k != "kinds"][0]
    row = viewer.runs[label].rows[0]
    _, body = get(f"{base}/run/{label}/view/episode?{urlencode({'id': row['episode_id']})}")
    assert "<script>alert(2)</script>" not in body and "&lt;script&gt;alert(2)&lt;/script&gt;" in body
    assert "<script" not in body.lower()


def test_aligned_turns():
    a = {"turns": [{"t": 1, "items": ["a1"]}, {"t": 2, "items": ["a2"]}]}
    b = {"turns": [{"t": 2, "items": ["b2"]}, {"t": 3, "items": ["b3"]}]}
    assert aligned_turns([a, b]) == [{"t": 1, "cells": [["a1"], []]}, {"t": 2, "cells": [["a2"], ["b2"]]},
                                     {"t": 3, "cells": [[], ["b3"]]}]


def test_the_report_links_into_the_viewer(served):
    base, _ = served
    status, body = get(f"{base}/run/kinds/report.html")
    assert status == 200
    assert 'href="view/pairs?model=scripted%2Falways_act&amp;condition=tool&amp;gate=off&amp;right=wrong"' in body


def test_the_command_prints_its_address_and_serves(kinds_run):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "evalkit", "view", str(kinds_run)], cwd=root, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(root)})
    try:
        first = proc.stdout.readline()
        assert first.startswith("evalkit view: serving 1 run(s) at http://127.0.0.1:"), first
        base = first.split(" at ", 1)[1].split("/ ", 1)[0]
        status, body = get(f"{base}/run/kinds/view/")
        assert status == 200 and "scripted/always_act" in body
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_pair_view_shows_the_rationale_and_perturbation(tmp_path, mini_suite, mini_tasks):
    import threading

    from evalkit.harness.run import RunConfig
    from evalkit.pipeline import run
    from evalkit.report.viewer import Viewer, make_server

    suite = tmp_path / "mini.yaml"
    suite.write_text(mini_suite.read_text().replace(
        "  - id: mini-missing-target\n",
        "  - id: mini-missing-target\n"
        "    why_act: Apples are in the store, so buying 2 is what the user asked.\n"
        "    why_abstain: No kiwi exists, so no purchase can do what the user asked.\n"
        "    perturbation: {kinds: [user_message], what: The item asked for is one the store does not sell.}\n", 1))
    out = tmp_path / "why"
    run(RunConfig(suites=[str(suite)], tasks_dir=str(mini_tasks), conditions=["tool"], models=["scripted/oracle"],
                  pair_ids=["mini-missing-target"], out=str(out), report=False))
    server = make_server(Viewer([out]), 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        q = urlencode({"pair": "mini-missing-target", "model": "scripted/oracle", "condition": "tool", "gate": "off"})
        status, body = get(f"http://127.0.0.1:{server.server_port}/run/why/view/pair?{q}")
    finally:
        server.shutdown()
        server.server_close()
    assert status == 200
    assert "Apples are in the store, so buying 2 is what the user asked." in body
    assert "No kiwi exists, so no purchase can do what the user asked." in body
    assert "The item asked for is one the store does not sell." in body and "(user_message)" in body


def test_odd_query_values_and_paths_are_404_or_a_page_never_a_crash(served):
    base, viewer = served
    pair = urlencode({"pair": "mini-missing-target", "model": "scripted/always_act", "condition": "tool",
                      "gate": "off"})
    status, body = get(f"{base}/run/kinds/view/pair?{pair}&epoch=1e5")
    assert status == 404 and "epoch &#39;1e5&#39; is not a whole number" in body  # not epoch 1 in its place
    assert get(f"{base}/run/kinds/view/pair?{pair}&epoch=99999999999999999999")[0] == 404
    for path in ("/run/kinds/view/episode?id=../../etc/passwd", "/run/../../etc/passwd",
                 "/run/kinds/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/run/kinds/view/nothing"):
        status, body = get(base + path)
        assert status == 404 and "root:" not in body
    total = len(viewer.runs["kinds"].rows)
    for query in ("page=999999999999999999999", "page=-5", "page=abc", "model=nope&kind=zzz&right=maybe",
                  "q=%ff%fe", "model=%00"):
        status, body = get(f"{base}/run/kinds/view/episodes?{query}")
        assert status == 200, query
    assert f"{total} episodes" in get(f"{base}/run/kinds/view/episodes?page=-5")[1]


def test_a_run_without_a_report_offers_no_link_to_it(tmp_path, kinds_run):
    import shutil

    from evalkit.report.viewer import Viewer

    bare = tmp_path / "bare"
    shutil.copytree(kinds_run, bare)
    (bare / "report.html").unlink()
    viewer = Viewer([kinds_run, bare])
    status, _, body = viewer.page("/", {})
    home = body.decode()
    assert status == 200
    assert home.count("/report.html\">report</a>") == 1
    assert f"render it with: evalkit report {bare}" in home
    status, _, body = viewer.page("/run/bare/view/", {})
    assert status == 200 and "no report yet" in body.decode() and "/run/bare/report.html" not in body.decode()
    status, _, body = viewer.page("/run/bare/report.html", {})
    assert status == 404 and "evalkit report" in body.decode()
