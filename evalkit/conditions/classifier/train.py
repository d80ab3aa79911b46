"""Train the learned reader of :mod:`evalkit.conditions.classifier.learned` (DESIGN §5).

``python -m evalkit.conditions.classifier.train`` trains on the tuning part of the shipped
corpus (``evalkit/conditions/corpus/tune.jsonl``), the hand-labelled specification texts of the
rule reader (:data:`SPEC_PATHS`: short texts with negations about something else, quoted speech,
idioms, agent-style texts -- cases the corpus has few of) and the labelled real end-of-turn messages
of the external samples :data:`EXTERNAL_SAMPLES` (:data:`EXTERNAL_TEXTS`: τ-bench and τ²-bench runs,
MIT; ``benchmarks/external/README.md``), and writes ``learned_weights.npz``; never on a test part
of the corpus, nor on an external sample drawn after them (those are the held-out check of real
messages: corpus README, "Measured").
``--cv K`` prints K-fold cross-validated accuracy on the training lines instead (rules alone,
learned alone, combined). The rules were written on the tuning part, so their figure there is
optimistic; the held-out parts (``evalkit judge eval``) are the measure. Training is deterministic
(:func:`fit`: seeded, float64, the rows in file order).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evalkit.conditions.classifier.learned import (
    HIDDEN,
    LABELS,
    N_BUCKETS,
    WEIGHTS_PATH,
    Weights,
    features,
    hashed,
    reading,
)
from evalkit.conditions.classifier.verdict import TextLabel

EPOCHS: int = 6
"""Passes over the training rows."""
BATCH: int = 64
"""Rows per gradient step."""
RATE: float = 2e-3
"""Adam's step size."""
DROPOUT: float = 0.5
"""Share of hidden units dropped at each training step."""
SEED: int = 0
"""Seed of the initial weights, the row order of each epoch and the dropout masks."""


_SPEC_DIR = Path(__file__).resolve().parents[3] / "tests" / "conditions" / "data"
SPEC_PATHS: tuple[Path, ...] = (_SPEC_DIR / "nl_labelled.yaml", _SPEC_DIR / "final_texts.jsonl",
                                 _SPEC_DIR / "corpus_rule_examples.yaml")
"""The rule reader's labelled specification texts, in a source checkout (YAML items or JSON lines with
``text`` and ``label``; ``unknown`` items and texts of unsupported languages are left out)."""


EXTERNAL_SAMPLES: tuple[str, ...] = ("H", "I", "J.v2", "K", "L", "M", "N", "O", "P", "Q", "R", "S", "T", "U",
                                     "V", "W", "X")
"""The labelled external samples the learned reader is trained on (``benchmarks/external/labels/NAME.jsonl``;
``J.v2``: sample J labelled again under brief version 2), in training order."""
EXTERNAL_WEIGHT: float = 1.0
"""The factor on the training loss of a line of :data:`EXTERNAL_SAMPLES` (a line of the tuning part or of the
specification texts has 1.0). Under Adam it re-balances only what written and real lines share (:func:`fit`):
the output layer, the hidden biases and the rows of features found in both; a feature seen only in real lines
learns as fast at any factor. Versions 42 and 43 trained on H to AF with 0.3 and read fresh samples worse
(corpus README, "Measured", version 43); the shipped weights use 1.0."""
EXTERNAL_ABSTAIN_WEIGHT: float = 1.0
"""A further factor on the training loss of a line of :data:`EXTERNAL_SAMPLES` labelled ``abstain`` (about 7% of
those lines; 1.0: none). Most abstentions in real agent messages are refusals that close with a question offering
something else (corpus rule 3), which look like the far more frequent questions before an action. Measured
(corpus README, "Measured", version 44): trained on H to AF and read on AG, AH and AI, factors 1 to 24 gave abstain
recall 0.83 to 0.90 (16: 0.90, accuracy 93.7%); trained on H to AI with 16 and read once on the fresh sample AJ,
recall 0.93 against version 41's 0.83, but accuracy 93.1% against 94.6%, precision 0.51 against 0.58, and the
written test part's English 93.6%, under its 95% target. The shipped weights use 1.0."""
EXTERNAL_TEXTS: Path = Path(__file__).resolve().parents[3] / "benchmarks" / "external" / "training_texts.jsonl.gz"
"""Gzipped JSON lines ``{"key", "sample", "source", "file", "label", "text"}``: the agreed labelled lines of
:data:`EXTERNAL_SAMPLES`, in that order, with their texts (written by ``benchmarks/external/extract_runs.py
--samples --training-texts``; ``source`` is the fork, ``file`` the run file of the text)."""


def external_lines(path: Path | None = None) -> list[dict]:
    """The labelled external lines of ``path`` (default :data:`EXTERNAL_TEXTS`) as ``{"text", "label"}``, in file order.

    Raises:
        FileNotFoundError: ``path`` is missing.
        ConfigError: ``path`` is not gzipped JSON lines, or a line is not an object with a string ``text`` that is
            not blank,
            a ``label`` of ``abstain`` / ``clarify`` / ``act`` and a ``sample`` of :data:`EXTERNAL_SAMPLES`
            (naming the file, the line and the field), or comes after a line of a later sample (the lines follow
            :data:`EXTERNAL_SAMPLES`); or a sample of :data:`EXTERNAL_SAMPLES` has no line.
    """
    import gzip
    import json
    import zlib

    from evalkit.errors import ConfigError

    path = EXTERNAL_TEXTS if path is None else path
    out: list[dict] = []
    seen: set[str] = set()
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for number, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                where = f"{path}: line {number}"
                try:
                    item = json.loads(raw)
                except (ValueError, RecursionError) as exc:
                    raise ConfigError(f"{where}: not JSON ({type(exc).__name__})") from None
                if not isinstance(item, dict):
                    raise ConfigError(f"{where}: not a JSON object")
                for field, ok in (("text", isinstance(item.get("text"), str) and bool(item["text"].strip())),
                                  ("label", item.get("label") in ("abstain", "clarify", "act")),
                                  ("sample", item.get("sample") in EXTERNAL_SAMPLES)):
                    if not ok:
                        shown = "missing" if field not in item else f"{item[field]!r}"[:80]
                        raise ConfigError(f"{where}: field {field!r} is {shown}"
                                          + ("; expected abstain, clarify or act" if field == "label" else
                                             f"; expected one of {', '.join(EXTERNAL_SAMPLES)}" if field == "sample" else
                                             "; expected a string that is not blank"))
                if seen and EXTERNAL_SAMPLES.index(item["sample"]) < max(map(EXTERNAL_SAMPLES.index, seen)):
                    raise ConfigError(f"{where}: sample {item['sample']!r} after a line of a later sample; the lines "
                                      f"follow EXTERNAL_SAMPLES ({', '.join(EXTERNAL_SAMPLES)}): rebuild it with "
                                      "extract_runs.py --samples --training-texts")
                seen.add(item["sample"])
                out.append({"text": item["text"], "label": item["label"]})
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ConfigError(f"{path}: not gzipped JSON lines ({type(exc).__name__}: {exc})") from None
    missing = [name for name in EXTERNAL_SAMPLES if name not in seen]
    if missing:
        raise ConfigError(f"{path}: no line of sample(s) {', '.join(missing)} (rebuild it with extract_runs.py "
                          f"--samples --training-texts)")
    return out


def training_lines() -> list[dict]:
    """The training texts: the corpus tuning part, the specification texts, then the external lines
    (:func:`external_lines`, marked ``"external": True``), each ``{"text", "label"}``.

    Raises:
        FileNotFoundError: the tuning part, a file of :data:`SPEC_PATHS` or :data:`EXTERNAL_TEXTS` is
            missing (training needs a source checkout).
        ConfigError: a bad line of the tuning part or of :data:`EXTERNAL_TEXTS`, or a specification file
            that is not a list of items with ``text`` and ``label`` (naming the file).
    """
    import json

    import yaml

    from evalkit.conditions.classifier.lang import SUPPORTED
    from evalkit.conditions.corpus import load_part
    from evalkit.errors import ConfigError

    lines = [line.model_dump() for line in load_part("tune")]
    for path in SPEC_PATHS:
        text = path.read_text(encoding="utf-8")
        try:
            items = yaml.safe_load(text) if path.suffix == ".yaml" else [json.loads(x) for x in text.splitlines() if x.strip()]
            lines += [{"text": item["text"], "label": item["label"]} for item in items
                      if item["label"] != "unknown" and item.get("lang", "en") in SUPPORTED]
        except (ValueError, yaml.YAMLError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{path}: not a list of labelled items with text and label "
                              f"({type(exc).__name__}: {exc})") from None
    return lines + [{**line, "external": True} for line in external_lines()]


def sample_weights(lines: list[dict]) -> list[float]:
    """The loss weight of each training line: :data:`EXTERNAL_WEIGHT` for a line of the external samples
    (marked ``external`` by :func:`training_lines`), times :data:`EXTERNAL_ABSTAIN_WEIGHT` when it is labelled
    ``abstain``; 1.0 for any other line."""
    return [EXTERNAL_WEIGHT * (EXTERNAL_ABSTAIN_WEIGHT if line["label"] == "abstain" else 1.0)
            if line.get("external") else 1.0 for line in lines]


def rows(lines: list[dict]) -> tuple[list[list[int]], list[int], list[TextLabel]]:
    """Hashed feature rows, gold class ids and the rule reader's labels of labelled lines."""
    xs: list[list[int]] = []
    ys: list[int] = []
    rule_labels: list[TextLabel] = []
    for line in lines:
        verdict, clauses, body, has_code = reading(line["text"])
        xs.append(hashed(features(verdict, clauses, body, has_code)))
        ys.append(LABELS.index(line["label"]))
        rule_labels.append(verdict.label)
    return xs, ys, rule_labels


def fit(xs: list[list[int]], ys: list[int], sample_weight: list[float] | None = None) -> Weights:
    """Train the network of :mod:`~evalkit.conditions.classifier.learned` on hashed rows.

    Mini-batch Adam (:data:`EPOCHS`, :data:`BATCH`, :data:`RATE`) on the cross-entropy of each row times its
    weight, summed over the batch and divided by the batch size, with
    dropout (:data:`DROPOUT`) on the hidden layer; a row of the first layer is updated only at the
    steps where its feature occurs (sparse Adam: its moments decay only then). Everything random
    comes from one generator seeded with :data:`SEED`, and the arithmetic is float64 in a fixed
    order, so the same rows give the same weights.

    Args:
        xs: Bucket ids of each row (binary features, each row scaled to unit norm; non-empty: every
            row has its language and code flag).
        ys: Class index of each row (into :data:`~evalkit.conditions.classifier.learned.LABELS`).
        sample_weight: The weight of each row in the loss (default 1.0 each; :data:`EXTERNAL_WEIGHT`). Adam
            divides each parameter's step by the size of its own gradients, so a weight shared by all the rows
            that touch a parameter changes nothing: weights re-balance only parameters that rows of different
            weights share (the output layer, the hidden biases, the rows of features in both).

    Raises:
        ValueError: ``sample_weight`` does not give one weight per row.

    Returns:
        ``(w1, b1, w2, b2)`` as float64 arrays of shapes ``(N_BUCKETS, HIDDEN)``, ``(HIDDEN,)``,
        ``(HIDDEN, 3)``, ``(3,)``.
    """
    import numpy as np

    if sample_weight is not None and len(sample_weight) != len(ys):
        raise ValueError(f"fit: {len(sample_weight)} sample weights for {len(ys)} rows")
    rng = np.random.default_rng(SEED)
    k = len(LABELS)
    w1 = rng.normal(0.0, 0.1, (N_BUCKETS, HIDDEN))
    b1 = np.zeros(HIDDEN)
    w2 = rng.normal(0.0, np.sqrt(2.0 / HIDDEN), (HIDDEN, k))
    b2 = np.zeros(k)
    params = [w1, b1, w2, b2]
    first = [np.zeros_like(a) for a in params]
    second = [np.zeros_like(a) for a in params]
    target = np.eye(k)[np.asarray(ys)]
    scale = np.ones(len(ys)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    step = 0
    for _ in range(EPOCHS):
        order = rng.permutation(len(xs))
        for start in range(0, len(xs), BATCH):
            rows = order[start : start + BATCH]
            lengths = np.array([len(xs[r]) for r in rows])
            index = np.concatenate([np.asarray(xs[r], dtype=np.int64) for r in rows])
            value = np.repeat(1.0 / np.sqrt(lengths), lengths)[:, None]
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
            pre = np.add.reduceat(w1[index] * value, starts, axis=0) + b1
            keep = (rng.random(pre.shape) >= DROPOUT) / (1.0 - DROPOUT)
            hidden = np.maximum(pre, 0.0) * keep
            z = hidden @ w2 + b2
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            g = (p - target[rows]) * scale[rows, None] / len(rows)
            g_hidden = (g @ w2.T) * keep * (pre > 0)
            touched, where = np.unique(index, return_inverse=True)
            g_w1 = np.zeros((len(touched), HIDDEN))
            np.add.at(g_w1, where, np.repeat(g_hidden, lengths, axis=0) * value)
            step += 1
            grads = [(touched, g_w1), (None, g_hidden.sum(axis=0)), (None, hidden.T @ g), (None, g.sum(axis=0))]
            for param, m, v, (at, grad) in zip(params, first, second, grads):
                sel = slice(None) if at is None else at
                m[sel] = 0.9 * m[sel] + 0.1 * grad
                v[sel] = 0.999 * v[sel] + 0.001 * grad * grad
                param[sel] -= RATE * (m[sel] / (1 - 0.9**step)) / (np.sqrt(v[sel] / (1 - 0.999**step)) + 1e-8)
    return w1, b1, w2, b2


def save(weights: Weights, path: Path = WEIGHTS_PATH) -> None:
    """Write ``(w1, b1, w2, b2)`` as float16 (compressed ``.npz``), atomically."""
    import os
    import tempfile

    import numpy as np

    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz")
    os.close(fd)
    arrays = dict(zip(("w1", "b1", "w2", "b2"), weights))
    np.savez_compressed(tmp, **{name: a.astype(np.float16) for name, a in arrays.items()})
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _cv(lines: list[dict], k: int) -> None:
    """Print K-fold cross-validated accuracy on ``lines``: the rules, the learned reader, the combination."""
    from evalkit.conditions.classifier.learned import choose, probabilities, reports_done

    reads = [reading(line["text"]) for line in lines]
    gold = [line["label"] for line in lines]
    ys = [LABELS.index(g) for g in gold]
    xs = [hashed(features(*r)) for r in reads]
    n = len(gold)
    scale = sample_weights(lines)
    probs: list[list[float]] = [[] for _ in xs]
    for fold in range(k):
        train = [i for i in range(n) if i % k != fold]
        weights = fit([xs[i] for i in train], [ys[i] for i in train], [scale[i] for i in train])
        for i in range(fold, n, k):
            probs[i] = probabilities(xs[i], weights)
    learned = [LABELS[max(range(3), key=lambda j: p[j])] for p in probs]
    combined = [choose(r[0], p, reports_done(r[1])) for r, p in zip(reads, probs)]
    for name, pred in (("rules", [r[0].label for r in reads]), ("learned", learned), ("combined", combined)):
        print(f"{name}: {sum(a == g for a, g in zip(pred, gold)) / n:.3f}", flush=True)


def _folds(value: str) -> int:
    """The ``--cv`` value: a whole number K >= 2 of folds, or 0 for no cross-validation."""
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of folds") from None
    if k != 0 and k < 2:
        raise argparse.ArgumentTypeError(f"{k} folds: K-fold cross-validation needs K >= 2 (0: train instead)")
    return k


def main(argv: list[str] | None = None) -> None:
    """Train on the tuning part, the specification texts and the external lines and write the weights
    (or cross-validate with ``--cv K``).

    A missing or unreadable training file or a bad corpus line ends the command with one
    ``error:`` line naming the file (exit code 2), and so does a ``--cv K`` greater than the
    number of training lines; nothing is written.
    """
    from evalkit.errors import EvalkitError

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", type=_folds, default=0, metavar="K",
                        help="K-fold cross-validation on the training lines (K >= 2; default 0: train and write the weights)")
    args = parser.parse_args(argv)
    try:
        lines = training_lines()
    except FileNotFoundError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc.filename}: no such file (training reads the corpus tuning part, "
                       "the specification texts and the external training texts of a source checkout)\n")
    except OSError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc.filename}: cannot read ({exc.strerror or exc})\n")
    except EvalkitError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    if args.cv > len(lines):
        parser.error(f"argument --cv: {args.cv} folds but {len(lines)} training lines; K-fold cross-validation "
                     f"needs K <= the number of lines")
    if args.cv:
        _cv(lines, args.cv)
        return
    xs, ys, _ = rows(lines)
    save(fit(xs, ys, sample_weights(lines)))
    print(f"wrote {WEIGHTS_PATH} ({WEIGHTS_PATH.stat().st_size} bytes, {len(xs)} texts)")


if __name__ == "__main__":
    main()
