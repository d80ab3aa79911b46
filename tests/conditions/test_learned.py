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
    lines = [line.model_dump() for line in load_part("tune")]
    xs, ys, _ = train.rows(lines)
    w, b = train.fit(xs, ys)
    path = tmp_path / "w.npz"
    train.save(w, b, path)
    with np.load(path) as fresh, np.load(L.WEIGHTS_PATH) as shipped:
        retrained = (fresh["w"].astype(np.float32), fresh["b"].astype(np.float32))
        assert fresh["w"].shape == shipped["w"].shape == (L.N_BUCKETS, 3)
    sample = load_part("test")[::7] + load_part("test2")[::7]
    again, ship = _predict(sample, retrained), _predict(sample)
    assert [a for a, _ in again] == [s for s, _ in ship]
    assert np.allclose([p for _, p in again], [p for _, p in ship], atol=2e-3)


def test_the_model_fits_its_training_part() -> None:
    lines = load_part("tune")
    preds = _predict(lines)
    right = sum(p == line.label for (p, _), line in zip(preds, lines))
    assert right / len(lines) > 0.97  # a linear model over n-grams separates the texts it was trained on


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
            assert rules.label != "unknown" and comb.rule == f"learned.{comb.label}" and comb.lang == rules.lang
        else:
            assert comb == rules  # agreement keeps the rule verdict, rule id and evidence
    assert changed > 0


def test_default_reader_is_the_rules_and_a_bad_reader_is_an_error() -> None:
    text = "I'm sorry to hear that. Your refund was issued today."
    assert classify_text(text) == classify_text(text, reader="rules")
    with pytest.raises(ValueError, match="unknown text reader 'llm'"):
        classify_text(text, reader="llm")


def test_import_does_not_load_numpy() -> None:
    code = ("import sys, evalkit, evalkit.conditions.classifier as c; c.classify_text('Done.'); "
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_judge_eval_scores_the_combined_reader(tmp_path) -> None:
    out = tmp_path / "judge.json"
    result = CliRunner().invoke(app, ["judge", "eval", "--texts", str(TUNE_PATH), "--learned", "--json", str(out)])
    assert result.exit_code == 0, result.output
    readers = {r["reader"]: r for r in json.loads(out.read_text(encoding="utf-8"))["readers"]}
    (rules,) = [r for name, r in readers.items() if not name.endswith("+ learned")]
    (comb,) = [r for name, r in readers.items() if name.endswith("+ learned")]
    assert comb["n"] == rules["n"] == len(load_part("tune"))
    assert comb["unknown"] == rules["unknown"]  # the rules' unknown stays unknown
