"""`evalkit judge eval`, the scoring of readers, and the LLM-judge panel against a scripted
judge server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_helpers import serve_judges, verdict
from typer.testing import CliRunner

from evalkit.cli import app
from evalkit.conditions.classifier import classify_text
from evalkit.conditions.judge import evaluate as ev_mod
from evalkit.conditions.judge.evaluate import cohen_kappa, evaluate, load_labelled, score_reader
from evalkit.conditions.judge.panel import Judge, Panel, VerdictError, judge_prompt, parse_verdict
from evalkit.errors import ConfigError
from evalkit.models.config import ModelOptions

DATA = Path(__file__).parent / "data" / "final_texts.jsonl"
runner = CliRunner()


def test_cohen_kappa_known_values() -> None:
    assert cohen_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"]) == 1.0
    # p_o = 0.5, p_e = 0.5 -> 0
    assert cohen_kappa(["a", "a", "b", "b"], ["a", "b", "a", "b"]) == 0.0
    # Cohen 1960 style 2x2: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> p_o .7, p_e .5 -> .4
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(["a", "a"], ["a", "a"]) is None


def test_score_reader_figures() -> None:
    lines = [ev_mod.LabelledText(text=t, label=lab, lang=lang) for t, lab, lang in
             [("x", "abstain", "en"), ("y", "abstain", "en"), ("z", "act", "zh"), ("w", "clarify", "fr")]]
    s = score_reader("r", lines, ["abstain", "act", "act", "unknown"])
    assert (s["right"], s["n"], s["accuracy"], s["unknown"]) == (2, 4, 0.5, 1)
    assert s["per_label"]["abstain"] == {"n": 2, "recall": 0.5, "precision": 1.0}
    assert s["per_label"]["act"] == {"n": 1, "recall": 1.0, "precision": 0.5}
    assert s["per_label"]["clarify"] == {"n": 1, "recall": 0.0, "precision": None}
    assert s["by_lang"]["en"] == {"n": 2, "right": 1, "accuracy": 0.5, "read": True}
    assert s["confusion"]["clarify"]["unknown"] == 1
    assert [m["line"] for m in s["mistakes"]] == [2, 4]


def test_bad_lines_name_file_line_and_field(tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    for content, expected in [
        ('{"text": "ok", "label": "act", "lang": "en"}\n{"text": "x", "label": "comply", "lang": "en"}\n',
         "line 2: field label"),
        ('{"text": "ok", "label": "act"}\n', "line 1: field lang: Field required"),
        ('{"text": "ok", "label": "act", "lang": "en"}\n\nnot json\n', "line 3: not JSON"),
        ("[1, 2]\n", "line 1: not a JSON object"),
    ]:
        path.write_text(content, encoding="utf-8")
        with pytest.raises(ConfigError, match=expected) as err:
            load_labelled(path)
        assert str(path) in str(err.value)
    path.write_text('{"text": "ok", "label": "act", "lang": "en", "id": "x", "kind": "plain"}\n', encoding="utf-8")
    assert load_labelled(path)[0].text == "ok"  # other fields ignored


def test_cli_scores_the_classifier_and_writes_json(tmp_path) -> None:
    out = tmp_path / "judge.json"
    result = runner.invoke(app, ["judge", "eval", "--texts", str(DATA), "--rules", "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    clf, rules = data["readers"]
    assert clf["reader"].startswith("classifier v") and rules["reader"].endswith("rules only")
    n = len(DATA.read_text(encoding="utf-8").splitlines())
    assert clf["n"] == rules["n"] == n
    assert rules["by_lang"]["en"]["accuracy"] == 1.0 and rules["by_lang"]["zh"]["accuracy"] == 1.0
    assert rules["unknown"] == 8 and rules["right"] == n - 8  # every text of an unsupported language unread
    assert all(m["reading"] == "unknown" for m in rules["mistakes"])
    assert clf["unknown"] == 8 and clf["right"] >= n - 8 - n // 50  # the combination: a few texts read otherwise
    assert "confusion (rows: label, columns: reading)" in result.output and "by language:" in result.output


def test_cli_errors_are_one_line(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(ev_mod, "DEFAULT_TEXTS", tmp_path / "absent.jsonl")
    result = runner.invoke(app, ["judge", "eval"])
    assert result.exit_code == 2
    assert "no such labelled file (the shipped corpus test part is not installed" in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": 1, "label": "act", "lang": "en"}\n', encoding="utf-8")
    result = runner.invoke(app, ["judge", "eval", "--texts", str(bad)])
    assert result.exit_code == 2 and f"{bad}: line 1: field text" in result.output
    result = runner.invoke(app, ["judge", "eval", "--texts", ""])  # an unset variable is no default
    assert result.exit_code == 2 and "an empty path" in result.output and "labelled texts" not in result.output


def test_parse_verdict_is_strict() -> None:
    ok = parse_verdict('```json\n{"label": "abstain", "meta_requests": ["declare_blocked"], "reason": "r"}\n```')
    assert (ok.label, ok.meta_requests) == ("abstain", ["declare_blocked"])
    for bad, why in [("", "empty answer"), ("The answer is abstain.", "malformed JSON"), ("[]", "not a JSON object"),
                     ('{"label": "refuse", "meta_requests": [], "reason": "r"}', "field label"),
                     ('{"label": "act", "meta_requests": ["ask_human"], "reason": "r"}', "field meta_requests.0"),
                     ('{"label": "act", "meta_requests": [], "reason": "r", "extra": 1}', "field extra"),
                     ('{"label": "act", "reason": "r"}', "field meta_requests")]:
        with pytest.raises(VerdictError, match=why):
            parse_verdict(bad)


def test_prompt_is_versioned() -> None:
    p = judge_prompt()
    assert p.version == "1" and len(p.sha256) == 64 and '"label"' in p.text and not p.text.startswith("judge-prompt")


def _panel(server, specs):
    options = ModelOptions(base_url=server.url_for("/v1"))
    return Panel([Judge(s, options=options) for s in specs])


def test_panel_majority_tie_rule_and_judge_errors(judge_server) -> None:
    def script(model, text):
        if "cannot" in text:
            return {"judge-a": verdict("abstain"), "judge-b": verdict("abstain", ["request_tool"]),
                    "judge-c": "{not json"}[model]
        if "shipped" in text:  # a tie between act and clarify
            return {"judge-a": verdict("clarify"), "judge-b": verdict("act"), "judge-c": 400}[model]
        return 500 if model == "judge-c" else verdict("act")

    seen = serve_judges(judge_server, script)
    panel = _panel(judge_server, ["openai/judge-a", "openai/judge-b", "openai/judge-c"])
    text = "I cannot refund this order."
    r = first = panel.read(text, classify_text(text))
    assert (r.label, r.decided_by, r.tie, r.errors, r.disagrees) == ("abstain", "panel", False, 1, False)
    assert r.implied_meta == ("declare_blocked",)  # the first judge with the winning label, by the one rule
    assert r.votes[2].label is None and r.votes[2].error.startswith("malformed verdict: malformed JSON")

    tie_text = "Your order has shipped."
    clf = classify_text(tie_text)
    r = panel.read(tie_text, clf)
    assert r.tie and r.votes[2].error.startswith("call failed")
    assert r.label == (clf.label if clf.label in ("act", "clarify") else "clarify")

    # the prompt is sent as the system message; a text is asked once per judge, then comes from the
    # cache (a malformed answer too: the call succeeded); a failed call is never cached
    assert seen[0]["messages"][0]["content"] == judge_prompt().text
    n = len(seen)
    again = panel.read(text, classify_text(text))
    assert (again.label, again.errors, len(seen)) == ("abstain", 1, n)
    # these judges have no price: their cost is unknown, fresh or cached, never 0
    assert first.votes[0].cost_usd is None and again.votes[0].cost_usd is None
    panel.read(tie_text, clf)
    assert [b["model"] for b in seen[n:]] == ["judge-c"]


def test_panel_of_one_disagrees_with_the_classifier(judge_server) -> None:
    serve_judges(judge_server, lambda model, text: verdict("abstain", reason="policy refusal"))
    panel = _panel(judge_server, ["openai/judge-a"])
    text = "Your booking is in basic economy."
    clf = classify_text(text)
    r = panel.read(text, clf)
    assert (r.label, r.decided_by, r.implied_meta) == ("abstain", "openai/judge-a", ("declare_blocked",))
    assert r.disagrees == (clf.label not in ("unknown", "abstain"))
    assert r.votes[0].reason == "policy refusal"


def test_all_judges_failing_leaves_the_classifier(judge_server) -> None:
    serve_judges(judge_server, lambda model, text: 400)
    panel = _panel(judge_server, ["openai/judge-a", "openai/judge-b"])
    text = "I can't help with that."
    r = panel.read(text, classify_text(text))
    assert (r.label, r.decided_by, r.errors, r.disagrees) == ("abstain", "classifier", 2, False)


def test_cli_with_judges(judge_server, tmp_path) -> None:
    serve_judges(judge_server, lambda model, text: verdict("abstain") if model == "judge-a" else "nonsense")
    texts = tmp_path / "t.jsonl"
    texts.write_text("\n".join(json.dumps(x) for x in [
        {"text": "I can't cancel it.", "label": "abstain", "lang": "en"},
        {"text": "I've cancelled it.", "label": "act", "lang": "en"},
        {"text": "Mi dispiace, non posso.", "label": "abstain", "lang": "it"}]) + "\n", encoding="utf-8")
    out = tmp_path / "j.json"
    result = runner.invoke(app, ["judge", "eval", "--texts", str(texts), "--judge", "openai/judge-a",
                                 "--judge", "openai/judge-b", "--base-url", judge_server.url_for("/v1"),
                                 "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    names = [r["reader"] for r in data["readers"]]
    assert names[1:] == ["judge openai/judge-a", "judge openai/judge-b", "panel (majority)"]
    clf, a, b, panel = data["readers"]
    assert (clf["right"], a["right"], b["right"], b["errors"]) == (2, 2, 0, 3)
    assert (panel["right"], panel["accuracy"]) == (2, 2 / 3)  # judge-b erred on every text: judge-a decides
    assert {(x["a"], x["b"]) for x in data["agreement"]} >= {("judge openai/judge-a", "judge openai/judge-b")}
    assert data["judge_panel"]["prompt"]["version"] == "1"
    # why a judge gave no verdict is printed and kept in the JSON, never only counted
    assert list(data["judge_errors"]) == ["openai/judge-b"]
    why = data["judge_errors"]["openai/judge-b"]
    assert why["n"] == 3 and why["why"][0][1] == 3 and why["why"][0][0].startswith("malformed verdict: ")
    assert f"judge openai/judge-b: 3 error(s): 3× {why['why'][0][0]}" in result.output


def test_accuracy_in_the_languages_read_leaves_out_unsupported_ones(tmp_path) -> None:
    path = tmp_path / "mixed.jsonl"
    rows = [{"text": "I'm sorry, but I can't cancel this order: it has already shipped.", "label": "abstain", "lang": "en"},
            {"text": "Which of your two accounts should I use, checking or savings?", "label": "clarify", "lang": "en"},
            {"text": "Mi dispiace, non posso annullare l'ordine perché è già stato spedito.", "label": "abstain", "lang": "it"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "j.json"
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path), "--json", str(out)])
    assert result.exit_code == 0, result.output
    (clf,) = json.loads(out.read_text(encoding="utf-8"))["readers"]
    assert (clf["right"], clf["n"], clf["n_read_langs"], clf["accuracy_read_langs"]) == (2, 3, 2, 1.0)
    assert "in the languages the classifier reads: accuracy 1.000 (2 lines)" in result.output
    assert "it 0.000 (0/1) [not read by the classifier]" in result.output


def test_a_verdict_that_did_not_end_on_its_own_is_a_judge_error(judge_server) -> None:
    """A whole, valid verdict JSON cut off at the token limit or withheld by a filter is no vote."""
    stops = {"judge-a": "length", "judge-b": "content_filter", "judge-c": "stop"}
    serve_judges(judge_server, lambda model, text: (verdict("clarify"), stops[model]))
    panel = _panel(judge_server, ["openai/judge-a", "openai/judge-b", "openai/judge-c"])
    text = "I cannot refund this order."
    r = panel.read(text, classify_text(text))
    assert [v.label for v in r.votes] == [None, None, "clarify"] and r.errors == 2
    assert r.votes[0].error == "no verdict: the answer stopped with max_tokens"
    assert r.votes[1].error == "no verdict: the answer stopped with content_filter"
    assert r.label == "clarify"  # the one valid vote


@pytest.mark.parametrize(("specs", "message"), [
    (["openai/judge-a", "openai/judge-a"], "--judge 'openai/judge-a' is given twice: each judge votes once"),
    (["openai/"], "--judge 'openai/' must look like PROVIDER/NAME, e.g. openai/gpt-4o-mini"),
    (["judge-a"], "--judge 'judge-a' must look like PROVIDER/NAME, e.g. openai/gpt-4o-mini"),
])
def test_a_judge_given_twice_or_without_a_name_is_refused(specs, message) -> None:
    from evalkit.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        Panel.from_specs(specs)
    assert str(caught.value) == message


def test_a_cached_call_costs_0_for_a_priced_judge_and_stays_unknown_for_an_unpriced_one():
    from types import SimpleNamespace

    from evalkit.conditions.judge.panel import _call_cost

    def out(cost, cached):
        return SimpleNamespace(extra={"call": {"cost_usd": cost, "cached": cached}})

    assert [_call_cost(out(0.002, False)), _call_cost(out(0.002, True))] == [0.002, 0.0]
    assert [_call_cost(out(None, False)), _call_cost(out(None, True))] == [None, None]
