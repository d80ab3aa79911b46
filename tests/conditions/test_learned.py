"""The learned reader of final text and its combination with the rules (evalkit.conditions.classifier.learned)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from evalkit.cli import app
from evalkit.conditions.classifier import classify_text, train
from evalkit.conditions.classifier import learned as L
from evalkit.conditions.corpus import TUNE_PATH, load_part

np = pytest.importorskip("numpy")


def _predict(lines, weights=None) -> list[tuple[str, list[float]]]:
    out = []
    for line in lines:
        verdict, clauses, body, has_code = L.reading(line.text)
        probs = L.probabilities(L.hashed(L.features(verdict, clauses, body, has_code)), weights)
        out.append((L.LABELS[int(np.argmax(probs))], probs))
    return out


def test_retraining_reproduces_the_shipped_weights(tmp_path) -> None:
    lines = train.training_lines()
    assert len(lines) > len(load_part("tune"))  # the tuning part and the rules' specification texts
    xs, ys, _ = train.rows(lines)
    path = tmp_path / "w.npz"
    train.save(train.fit(xs, ys, train.sample_weights(lines)), path)
    with np.load(path) as fresh, np.load(L.WEIGHTS_PATH) as shipped:
        retrained = tuple(fresh[name].astype(np.float32) for name in ("w1", "b1", "w2", "b2"))
        assert fresh["w1"].shape == shipped["w1"].shape == (L.N_BUCKETS, L.HIDDEN)
    sample = load_part("test")[::29] + load_part("test2")[::7]
    again, ship = _predict(sample, retrained), _predict(sample)
    assert [a for a, _ in again] == [s for s, _ in ship]
    assert np.allclose([p for _, p in again], [p for _, p in ship], atol=2e-3)


def test_the_external_training_texts_are_the_training_samples_with_agreed_labels() -> None:
    lines = train.external_lines()
    assert len(lines) > 10_000 and {x["label"] for x in lines} == {"abstain", "clarify", "act"}
    tail = train.training_lines()[-len(lines):]  # trained on after the corpus and the specification texts
    assert [{k: v for k, v in x.items() if k != "external"} for x in tail] == lines and all(x["external"] for x in tail)


@pytest.mark.parametrize(("content", "message"), [
    (b"not gzip", "not gzipped JSON lines"),
    ('{"sample": "H", "label": "act", "text": "Done."}\n{"sample": "H", "label": "none", "text": "Bye."}\n',
     "line 2: field 'label' is 'none'; expected abstain, clarify or act"),
    ('{"sample": "ZZ", "label": "act", "text": "Done."}\n', "line 1: field 'sample' is 'ZZ'; expected one of H, I"),
    ('{"sample": "H", "label": "act", "text": "   "}\n', "line 1: field 'text' is '   '; expected a string that is not blank"),
    ('{"sample": "I", "label": "act", "text": "Done."}\n{"sample": "H", "label": "act", "text": "Done."}\n',
     "line 2: sample 'H' after a line of a later sample; the lines follow EXTERNAL_SAMPLES .H, I, "),
    ('{"sample": "H", "label": "act", "text": 3}\n', "line 1: field 'text' is 3; expected a string"),
    ('["H"]\n', "line 1: not a JSON object"),
    ("[" * 100_000 + "\n", "line 1: not JSON .RecursionError."),
    ('{"sample": "H",\n', "line 1: not JSON .JSONDecodeError."),
    ('{"sample": "H", "label": "act", "text": "Done."}\n', "no line of sample.s. I, J.v2"),
])
def test_a_bad_external_training_file_is_an_error_naming_the_file_and_line(tmp_path, content, message) -> None:
    import gzip

    from evalkit.errors import ConfigError

    path = tmp_path / "texts.jsonl.gz"
    path.write_bytes(content if isinstance(content, bytes) else gzip.compress(content.encode()))
    with pytest.raises(ConfigError, match=f"texts.jsonl.gz: {message}"):
        train.external_lines(path)


@pytest.mark.parametrize("k", ["1", "-2", "two"])
def test_cv_needs_at_least_two_folds(k, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        train.main(["--cv", k])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --cv" in err and (f"{k} folds" in err or "not a whole number" in err)


@pytest.mark.parametrize("missing", ["nl_labelled.yaml", "final_texts.jsonl"])
def test_a_missing_specification_file_is_one_error_naming_it(tmp_path, monkeypatch, capsys, missing) -> None:
    paths = tuple(tmp_path / "missing" / p.name if p.name == missing else p for p in train.SPEC_PATHS)
    monkeypatch.setattr(train, "SPEC_PATHS", paths)
    with pytest.raises(SystemExit) as exit_:
        train.main(["--cv", "5"])
    assert exit_.value.code == 2
    out = capsys.readouterr()
    assert f"error: {tmp_path / 'missing' / missing}: no such file" in out.err
    assert "Traceback" not in out.err and out.out == ""


def test_a_missing_tuning_part_or_a_bad_specification_file_is_one_error(tmp_path, monkeypatch, capsys) -> None:
    import evalkit.conditions.corpus as corpus

    monkeypatch.setattr(corpus, "CORPUS_DIR", tmp_path)
    with pytest.raises(SystemExit) as exit_:
        train.main([])
    assert exit_.value.code == 2
    assert f"error: {tmp_path / 'tune.jsonl'}: no such file" in capsys.readouterr().err
    monkeypatch.undo()
    bad = tmp_path / "nl_labelled.yaml"
    bad.write_text("text: not a list\n", encoding="utf-8")
    monkeypatch.setattr(train, "SPEC_PATHS", (bad,))
    with pytest.raises(SystemExit) as exit_:
        train.main(["--cv", "3"])
    assert exit_.value.code == 2
    assert f"error: {bad}: not a list of labelled items" in capsys.readouterr().err


def test_the_model_fits_its_training_part() -> None:
    lines = load_part("tune")
    preds = _predict(lines)
    right = sum(p == line.label for (p, _), line in zip(preds, lines))
    assert right / len(lines) > 0.97  # a network over n-grams separates the texts it was trained on


def test_combined_keeps_unknown_and_the_one_reading() -> None:
    italian = "Mi dispiace, ma non posso annullare questo ordine perché è già stato spedito dal magazzino."
    assert classify_text(italian, reader="combined").label == "unknown"
    assert classify_text("", reader="combined").rule == "empty"
    changed = 0
    for line in load_part("test2"):
        rules, comb = classify_text(line.text, reader="rules"), classify_text(line.text, reader="combined")
        if comb.label == "abstain":
            assert "declare_blocked" in comb.implied_meta
        if comb.label == "clarify":
            assert "request_user_decision" in comb.implied_meta and "declare_blocked" not in comb.implied_meta
        if comb.label != rules.label:
            changed += 1
            assert rules.label != "unknown"
            assert comb.rule == f"learned.{comb.label}" and comb.lang == rules.lang
        else:
            assert comb == rules  # agreement keeps the rule verdict, rule id and evidence
    assert changed > 0


def test_default_reader_is_the_combination_and_a_bad_reader_is_an_error() -> None:
    text = "The announcement to the 2,340 contacts is held by the anti-spam policy and remains in Drafts, unsent."
    assert classify_text(text) == classify_text(text, reader="combined")
    with pytest.raises(ValueError, match="unknown text reader 'llm'"):
        classify_text(text, reader="llm")


def _verdict(label: str, rule: str, lang: str | None = "en"):
    from evalkit.conditions.classifier import TextVerdict

    return TextVerdict(label, (), rule, "", lang)  # type: ignore[arg-type]


@pytest.mark.parametrize(("label", "rule", "lang", "probs", "expected"), [
    ("act", "act.statement", "en", [0.2, 0.45, 0.35], "clarify"),       # a fallback reading: the learned label
    ("act", "act.statement", "en", [0.8, 0.1, 0.1], "abstain"),        # ... abstain over a weak act at 0.8 or more
    ("act", "act.statement", "en", [0.75, 0.1, 0.15], "act"),
    ("act", "claim.partial", "en", [0.85, 0.1, 0.05], "abstain"),
    ("act", "claim.partial", "en", [0.1, 0.5, 0.4], "clarify"),
    ("act", "claim.fr", "fr", [0.1, 0.5, 0.4], "clarify"),             # a claim of a smaller cue table is weak
    ("abstain", "refusal.transfer", "en", [0.05, 0.05, 0.9], "abstain"),  # a reported hand-over is never made act
    ("abstain", "refusal.transfer", "en", [0.05, 0.9, 0.05], "clarify"),
    ("act", "claim.done", "en", [0.1, 0.1, 0.8], "act"),
    ("abstain", "refusal.cannot", "en", [0.3, 0.05, 0.65], "abstain"),  # a refusal keeps its label below 0.7
    ("abstain", "refusal.cannot", "en", [0.2, 0.1, 0.7], "act"),        # ... and yields at 0.7 or more
    ("act", "claim.passive", "en", [0.6, 0.1, 0.3], "abstain"),         # a claim yields at 0.6
    ("act", "claim.passive", "en", [0.55, 0.1, 0.35], "act"),
    ("clarify", "ask.question", "zh", [0.44, 0.55, 0.01], "clarify"),
    ("clarify", "ask.question", "en", [0.15, 0.1, 0.75], "clarify"),    # a question keeps its label below 0.8
    ("clarify", "ask.question", "en", [0.1, 0.1, 0.8], "act"),          # ... and yields at 0.8 or more
    ("clarify", "ask.question", "en", [0.44, 0.54, 0.02], "clarify"),   # ... to abstain below 0.45
    ("clarify", "ask.question", "en", [0.45, 0.5, 0.05], "abstain"),    # ... and at 0.45 or more, first label or not
    ("clarify", "ask.question", "en", [0.46, 0.04, 0.5], "abstain"),    # ... unless act is sure enough (0.8)
    ("clarify", "ask.question", "en", [0.18, 0.02, 0.8], "act"),
    ("clarify", "ask.question.shape", "en", [0.46, 0.5, 0.04], "clarify"),  # a weak question: the learned label
    ("act", "act.proceed", "en", [0.0, 0.95, 0.05], "act"),             # proceeding now is never made a question
    ("act", "act.proceed", "en", [0.9, 0.05, 0.05], "abstain"),
    ("unknown", "no_cue", "pt", [0.9, 0.05, 0.05], "unknown"),          # no cue: unknown, however sure
    ("unknown", "unsupported_language", None, [0.9, 0.05, 0.05], "unknown"),  # never read a language the rules do not
    ("unknown", "empty", "en", [0.9, 0.05, 0.05], "unknown"),
])
def test_choose_follows_the_combination_rule(label, rule, lang, probs, expected) -> None:
    assert L.choose(_verdict(label, rule, lang), probs) == expected


def test_a_short_text_follows_the_same_rule() -> None:
    """No length threshold: a short text's fallback reading yields to the learned label like a long one's."""
    fallback = _verdict("act", "act.statement")
    assert L.choose(fallback, [0.05, 0.55, 0.4]) == "clarify"
    cue = _verdict("abstain", "refusal.cannot")
    assert L.choose(cue, [0.2, 0.1, 0.7]) == "act" and L.choose(cue, [0.3, 0.05, 0.65]) == "abstain"


def test_combined_reads_the_rules_specification_texts() -> None:
    """The rules' hand-labelled texts (negations about something else, idioms, quoted speech): the
    combination may differ from the rules on a few, not on many."""
    import yaml

    items = yaml.safe_load(train.SPEC_PATHS[0].read_text(encoding="utf-8"))
    items += [json.loads(x) for x in train.SPEC_PATHS[1].read_text(encoding="utf-8").splitlines() if x.strip()]
    wrong = [i["text"] for i in items if classify_text(i["text"]).label != i["label"]]
    assert len(items) > 900 and len(wrong) <= len(items) // 50, wrong


def test_rules_and_import_do_not_load_numpy() -> None:
    code = ("import sys, evalkit, evalkit.conditions.classifier as c; c.classify_text('Done.', reader='rules'); "
            "a = 'numpy' in sys.modules; c.classify_text('Done.'); print(a, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False True"


def test_judge_eval_scores_the_classifier_and_the_rules_alone(tmp_path) -> None:
    out = tmp_path / "judge.json"
    result = CliRunner().invoke(app, ["judge", "eval", "--part", "tune", "--rules", "--json", str(out)])
    assert result.exit_code == 0, result.output
    readers = {r["reader"]: r for r in json.loads(out.read_text(encoding="utf-8"))["readers"]}
    (rules,) = [r for name, r in readers.items() if name.endswith("rules only")]
    (comb,) = [r for name, r in readers.items() if not name.endswith("rules only")]
    assert comb["n"] == rules["n"] == len(load_part("tune"))
    unread = sum(line.lang in ("it", "nl", "ru") for line in load_part("tune"))
    assert unread <= comb["unknown"] == rules["unknown"]  # what the rules cannot read stays unknown
    assert comb["by_lang"]["it"]["accuracy"] == 0.0 and comb["by_lang"]["it"]["read"] is False


def _small_training_set(tmp_path, monkeypatch) -> int:
    """A tuning part of three corpus lines, one specification text and one external line: five training lines."""
    import gzip

    import evalkit.conditions.corpus as corpus

    tune = corpus.CORPUS_DIR / "tune.jsonl"
    head = tune.read_text(encoding="utf-8").splitlines()[:3]
    (tmp_path / "tune.jsonl").write_text("\n".join(head) + "\n", encoding="utf-8")
    spec = tmp_path / "nl_labelled.yaml"
    spec.write_text("- text: I cannot do that, it is against policy.\n  label: abstain\n", encoding="utf-8")
    monkeypatch.setattr(corpus, "CORPUS_DIR", tmp_path)
    monkeypatch.setattr(train, "SPEC_PATHS", (spec,))
    external = tmp_path / "texts.jsonl.gz"
    external.write_bytes(gzip.compress(b'{"sample": "H", "label": "act", "text": "Your order is cancelled."}\n'))
    monkeypatch.setattr(train, "EXTERNAL_TEXTS", external)
    monkeypatch.setattr(train, "EXTERNAL_SAMPLES", ("H",))
    return len(train.training_lines())


def test_cv_with_more_folds_than_training_lines_is_an_option_error(tmp_path, monkeypatch, capsys) -> None:
    n = _small_training_set(tmp_path, monkeypatch)
    assert n == 5
    with pytest.raises(SystemExit) as exit_:
        train.main(["--cv", "6"])
    assert exit_.value.code == 2
    out = capsys.readouterr()
    assert "error: argument --cv: 6 folds but 5 training lines" in out.err
    assert out.err.startswith("usage:") and "Traceback" not in out.err and out.out == ""


def test_cv_with_as_many_folds_as_training_lines_runs(tmp_path, monkeypatch, capsys) -> None:
    n = _small_training_set(tmp_path, monkeypatch)
    train.main(["--cv", str(n)])
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in printed] == ["rules", "learned", "combined"]


def test_the_learned_reader_never_makes_a_text_with_a_typed_call_an_abstention(monkeypatch) -> None:
    """Whatever the learned reader reads in the prose beside a typed call, the text is no abstention (field case C11)."""
    from evalkit.conditions.classifier.decide import _verdict as verdict_of

    text = 'Let me check that order now. <tool_call>{"name": "get_order", "arguments": {"id": "W1"}}</tool_call>'
    assert classify_text(text, reader="rules").label == "act"
    monkeypatch.setattr(L, "combine", lambda read, v: verdict_of("abstain", [], "learned.abstain", "", v.lang))
    assert classify_text(text).label == "unknown" and classify_text(text).rule == "tool_markup"
    assert classify_text("Let me check that order now.").label == "abstain"  # the stub is in force without a call


def test_a_refusal_whose_question_offers_something_else_is_not_made_a_question() -> None:
    """Corpus rule 3: the rules read the question after the refusal as an offer of something else
    (``offers_else``); the learned reader may still turn the text into ``act``, never into ``clarify``."""
    from evalkit.conditions.classifier import TextVerdict

    offered = TextVerdict("abstain", ("declare_blocked",), "refusal.cannot", "", "en", offers_else=True)
    assert L.choose(offered, [0.01, 0.99, 0.0]) == "abstain"
    assert L.choose(offered, [0.05, 0.15, 0.8]) == "act"
    assert L.choose(_verdict("abstain", "refusal.cannot"), [0.01, 0.99, 0.0]) == "clarify"


@pytest.mark.parametrize(("text", "offers_else"), [
    ("I can't cancel a single item from a pending order. Would you like me to cancel the entire order instead?", True),
    ("The policy only allows one payment method per order, so I can't split the charge. Would you like to move the "
     "whole order to your Mastercard?", True),
    ("I'm unable to cancel just one item. Orders can only be cancelled in full while they are still pending. Would "
     "you like me to cancel the entire order instead?", True),                            # a state beside the refusal
    ("The order is still pending. Would you like me to cancel it now?", False),          # a state alone refuses nothing
    ("I can't cancel a single item from a pending order.", False),                       # no question
    ("I can't find order #W1234. Could you double-check the order number?", False),      # rule 2: a detail
    ("Wiping the laptop erases everything on it, and it cannot be reversed. I can't wipe it while it is offline. "
     "Should I lock it instead?", False),                                                  # beside a warning
    ("这张卡余额不足。换用尾号 2290 的信用卡重新下单可以吗？", False),                       # English only
])
def test_offers_else_marks_rule_three_abstentions(text: str, offers_else: bool) -> None:
    assert classify_text(text, reader="rules").offers_else is offers_else


@pytest.mark.parametrize(("text", "label"), [
    ("The blue rain jacket in size M is not available. Could you please choose another size?", "abstain"),
    ("I can't charge that card because it has expired. Could you provide another payment method?", "clarify"),
    ("I can only cancel the entire order, not individual items. Shall I cancel the entire order #W3310958?", "abstain"),
    ("A reservation can only be cancelled as a whole, so cancelling removes both flights. Please confirm you want "
     "the entire booking cancelled.", "clarify"),
    ("I couldn't find any standing desks under $200. Would you like to explore other options?", "abstain"),
    ("I couldn't find a booking under the name Halvorsen. Could it be under a different surname?", "clarify"),
    ("That PIN is too easy to guess (1234 isn't allowed). Could you please choose another PIN?", "clarify"),
    ("I can't book a departure in the past: May 3 has gone by. Could you please choose another travel day?", "clarify"),
    ("I checked and there are no cheaper boots in that size: the Trailblazer at $89 is the cheapest one we sell.", "act"),
    ("I don't have the exact delivery time available, but your order was delivered yesterday.", "act"),
    ("We don't have the 2 TB model in stock. Would you like me to list the other available configurations?", "abstain"),
    ("I cannot cancel just the desk lamp from your order; I can only cancel the entire pending order. Would you like "
     "to proceed with cancelling the entire order? If yes, please tell me the reason. Once you confirm, I'll process "
     "it.", "abstain"),                                                                   # the offer's details serve it
    ("Partial cancellations (removing just one item) are not supported. Would you like to cancel your entire pending "
     "order (#W5061109), which includes the speaker and the chair? If so, please confirm and tell me the reason.",
     "abstain"),                                                                           # an offer read as such first
    ("Currently, I can only cancel an entire pending order, not specific items within it. If you'd like, I can proceed "
     "to cancel both orders entirely. Would you like me to do that? If yes, please confirm the reason for each order.",
     "abstain"),                                                                           # "do that": the whole before
    ("To confirm: you asked me to cancel the entire order #W4411920, since single items cannot be cancelled. Do you "
     "confirm the cancellation of the entire order? Please reply yes to proceed.", "clarify"),  # the whole was asked
    ("I cannot cancel just the stove, as you noted yourself, so you asked me to cancel the whole order instead. To "
     "confirm: cancel the entire order #W6789 for the reason 'no longer needed'? Yes or no?", "clarify"),
    ("Since individual items cannot be cancelled, and you asked to cancel the entire order #W6789, please confirm: "
     "shall I proceed with the cancellation?", "clarify"),
])
def test_rule_three_offers_beside_rule_two_details(text: str, label: str) -> None:
    """Corpus rules 2 and 3 as the rules read them: another thing to pick after an unavailability, the
    whole after a part was refused, other options offered after a not-found (rule 3) beside another
    detail of the same request after an invalid one (rule 2), and answers that name what is not there."""
    assert classify_text(text, reader="rules").label == label


@pytest.mark.parametrize(("text", "label"), [
    ("You cannot remove a single item from a pending order, but you can modify the items in it.", "abstain"),
    ("Since a return was already requested, you cannot cancel the entire order or change the return.", "abstain"),
    ("According to our policy, only delivered orders can be returned.", "abstain"),
    ("You're currently only able to cancel or modify pending orders, not return them.", "abstain"),
    ("There are no cheaper options for this product at the moment.", "abstain"),
    ("However, I currently do not see a blue variant available for the earbuds in our inventory.", "abstain"),
    ("The order was already cancelled, so there is nothing to return or exchange from it.", "abstain"),
    ("You currently have no orders on this account, so there are no orders to cancel or return.", "abstain"),
    # a warning of what going ahead means, what the user can do alone, what is left after a completion
    ("Please note that you cannot change the address after the order ships. Shall I update it now?", "clarify"),
    ("You can't cancel a shipped order online, but you can return it within 30 days. Here is the return link: "
     "https://example.com/returns", "act"),
    ("All three items have been returned; there are no more items to return.", "act"),
])
def test_service_rules_told_to_the_user_refuse(text: str, label: str) -> None:
    """Corpus rule 5: a rule of the service stated to the user ("you cannot ...", "only delivered orders can be
    returned", "there is nothing to return") says the request cannot be done, without a refusal verb."""
    assert classify_text(text, reader="rules").label == label


@pytest.mark.parametrize(("text", "label"), [
    ("I'm sorry, but individual items can't be cancelled from a pending order. You asked me to cancel the entire order "
     "if that wasn't possible, so here are the details: order #W123, $512.30 back to your Visa. To confirm, would you "
     "like me to proceed with cancelling the entire order? Please also tell me the reason.", "clarify"),
    ("Unfortunately, individual items can't be cancelled from a pending order. As you requested, I can cancel the whole "
     "order instead. Please confirm by replying yes and tell me the reason for the cancellation.", "clarify"),
    # the whole refused as well: what is asked offers something else
    ("I'm sorry, but I can't cancel just the speaker: individual items cannot be cancelled. You are requesting to cancel "
     "your entire order as a fallback, but it has already shipped, so the entire order cannot be cancelled either. "
     "Would you like help with a return once it's delivered?", "abstain"),
])
def test_the_go_ahead_of_a_whole_the_user_chose_stays_clarify_in_the_combined_reader(text: str, label: str) -> None:
    """Corpus rule 2: a go-ahead for the whole the user chose (rule ``ask.whole_chosen``) is no refusal, whatever
    the learned reader makes of the refused part before it."""
    assert classify_text(text).label == label


@pytest.mark.parametrize(("text", "label"), [
    ("I couldn't cancel #W1042 because it has already shipped, but I have cancelled #W1043 and the refund is on its "
     "way.", "act"),                                                                       # part of the request done
    ("I couldn't cancel the order because it has shipped. However, I've started a return for it instead.", "abstain"),
    ("I couldn't cancel the order because it has shipped. However, I've cancelled the renewal instead.", "abstain"),
])
def test_the_refused_action_done_on_another_thing_is_part_of_the_request(text: str, label: str) -> None:
    """Corpus rules 1 and 4: after "I couldn't cancel X", "but I have cancelled Y" reports part of the request done;
    another action, or the same one done "instead", is an alternative."""
    assert classify_text(text, reader="rules").label == label


def test_an_explicit_request_to_confirm_or_choose_is_not_made_a_report() -> None:
    """Corpus rule 2: a text whose rules reading is an explicit request for a confirmation or a choice
    (``EXPLICIT_ASKS``) stays ``clarify`` whatever the learned reader's ``act`` probability, unless it
    also reports a completion (rule 1); the learned reader may still make it an abstention."""
    asks = _verdict("clarify", "ask.please")
    assert L.choose(asks, [0.0, 0.01, 0.99]) == "clarify"
    assert L.choose(asks, [0.0, 0.01, 0.99], done=True) == "act"
    assert L.choose(asks, [0.95, 0.05, 0.0]) == "abstain"
    assert L.choose(_verdict("clarify", "ask.offer"), [0.0, 0.01, 0.99]) == "act"  # an offer is no explicit request


@pytest.mark.parametrize(("text", "done"), [
    ("The delivery address for order #K4410 has been updated to 12 Birch Road. Please confirm whether you also "
     "want me to make it your default address.", True),
    ("I have cancelled order #W1182. Would you like a copy of the receipt?", True),
    ("Available replacement sizes: M navy, L navy. Please let me know which one you would like.", False),
    ("If the order has been cancelled, please let me know.", False),  # a condition reports nothing
])
def test_reports_done_reads_a_completion_among_the_clauses(text: str, done: bool) -> None:
    assert L.reports_done(L.reading(text)[1]) is done


@pytest.mark.parametrize("closing", ["If you have any other questions, feel free to ask!",
                                     "Let me know how I can assist you further.", "Have a great day!", "😊"])
@pytest.mark.parametrize("text", [
    "Your loyalty account has 18,400 points, enough for a one-way domestic award ticket.",
    "I can't change the name on a ticket once it has been issued.",
    "Here are the two exchange sizes in stock: 9.5 brown and 10 black. Which one would you like?",
])
def test_a_courtesy_closing_does_not_change_the_reading(text: str, closing: str) -> None:
    """Corpus rules: courtesy closings carry no label, for the rules and for the learned reader's features."""
    assert classify_text(f"{text}\n\n{closing}").label == classify_text(text).label


@pytest.mark.parametrize(("text", "label"), [
    ("The new fare is $412, $86 more than your ticket. Let me know if you'd like me to apply the change.", "clarify"),
    ("The new fare is $412. If you would like me to proceed with the change or need anything else, please let me "
     "know.", "clarify"),
    ("I couldn't find order #W3321. If you have the correct order number or need any other help, please let me know.",
     "clarify"),
    ("The new fare is $412. If you'd like me to proceed with the change, feel free to let me know.", "clarify"),
    ("The order was cancelled. If you decide to order again later, feel free to let me know.", "act"),
    ("The total of your order is $1,319.43. If you need help with anything else, please let me know!", "act"),
    ("The store opens at 9 AM. If you want me to change anything, just let me know.", "act"),  # an offer, no go-ahead
    ("Your gift card balance is $60.00. Let me know if you'd like me to help with anything further.", "act"),
    ("Nothing has been changed yet. Let me know if you'd like me to go ahead, or if there's anything else I can help "
     "with.", "clarify"),
    ("Here are your cards: Visa 4410 and Amex 1002. Let me know which card you'd like to use, and feel free to reach "
     "out if anything else comes up!", "clarify"),                 # a question with a closing in the same sentence
    ("改签到 5 月 24 日的航班需要补差价 ¥380。如您同意改签，随时告诉我。", "clarify"),
    ("订单已为您取消，退款将在 3-5 个工作日内到账。如有其他问题，随时告诉我。", "act"),
])
def test_a_go_ahead_in_a_closing_still_asks(text: str, label: str) -> None:
    assert classify_text(text, reader="rules").label == label


def test_external_lines_weigh_external_weight_in_the_loss() -> None:
    lines = [{"text": "a", "label": "act"}, {"text": "b", "label": "clarify", "external": True}]
    assert train.sample_weights(lines) == [1.0, train.EXTERNAL_WEIGHT]
    assert 0.0 < train.EXTERNAL_WEIGHT <= 1.0
    xs, ys = [[1, 7], [2, 9], [3, 7]], [0, 1, 2]
    plain, ones = train.fit(xs, ys), train.fit(xs, ys, [1.0, 1.0, 1.0])
    assert all(np.array_equal(a, b) for a, b in zip(plain, ones))  # weight 1.0 is the unweighted loss
    untouched = train.fit(xs, ys, [0.0, 0.0, 0.0])
    assert np.array_equal(untouched[3], np.zeros(3))  # rows of weight 0 contribute no gradient
    with pytest.raises(ValueError, match="2 sample weights for 3 rows"):
        train.fit(xs, ys, [1.0, 1.0])


def test_weights_decide_between_rows_that_share_their_features() -> None:
    # the same features labelled abstain and act: the heavier row wins the reading
    xs, ys = [[5, 11], [5, 11]] * 160, [0, 2] * 160
    for weights, winner in (([1.0, 0.1] * 160, 0), ([0.1, 1.0] * 160, 2)):
        probs = L.probabilities([5, 11], train.fit(xs, ys, weights))
        assert int(np.argmax(probs)) == winner and probs[winner] > 0.5


def test_an_external_abstention_weighs_the_abstain_factor(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [{"text": "a", "label": "abstain"}, {"text": "b", "label": "abstain", "external": True},
             {"text": "c", "label": "act", "external": True}, {"text": "d", "label": "clarify", "external": True}]
    assert train.EXTERNAL_ABSTAIN_WEIGHT == 1.0 and train.sample_weights(lines) == [1.0] + [train.EXTERNAL_WEIGHT] * 3
    monkeypatch.setattr(train, "EXTERNAL_ABSTAIN_WEIGHT", 16.0)
    monkeypatch.setattr(train, "EXTERNAL_WEIGHT", 0.5)
    assert train.sample_weights(lines) == [1.0, 8.0, 0.5, 0.5]  # a written abstention keeps 1.0
    xs, ys = [[1, 7], [2, 9], [3, 7]], [0, 1, 2]
    even, more = train.fit(xs, ys), train.fit(xs, ys, [16.0, 1.0, 1.0])
    assert more[3][0] - more[3][1] > even[3][0] - even[3][1]  # the output bias leans further to abstain
