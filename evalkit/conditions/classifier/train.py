"""Train the learned reader of :mod:`evalkit.conditions.classifier.learned` (DESIGN §5).

``python -m evalkit.conditions.classifier.train`` trains on the tuning part of the shipped
corpus (``evalkit/conditions/corpus/tune.jsonl``) and the hand-labelled specification texts of the
rule reader (:data:`SPEC_PATHS`: short texts with negations about something else, quoted speech,
idioms, agent-style texts -- cases the corpus has few of) and writes ``learned_weights.npz``; never on
a test part.
``--cv K`` prints K-fold cross-validated accuracy on the tuning part instead (rules alone,
learned alone, combined). The rules were written on the tuning part, so their figure there is
optimistic; the held-out parts (``evalkit judge eval``) are the measure. Training is deterministic: a fixed number of
full-batch gradient steps with Nesterov momentum from zero weights, in float64, on the rows
in file order.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evalkit.conditions.classifier.learned import (
    LABELS,
    N_BUCKETS,
    WEIGHTS_PATH,
    features,
    hashed,
    reading,
)
from evalkit.conditions.classifier.verdict import TextLabel

L2: float = 1e-5
"""L2 penalty on the weights (the loss is the mean cross-entropy plus ``L2/2 * |W|^2``)."""
STEPS: int = 1000
"""Full-batch gradient steps."""
RATE: float = 2.0
"""Step size (rows have unit L2 norm)."""


_SPEC_DIR = Path(__file__).resolve().parents[3] / "tests" / "conditions" / "data"
SPEC_PATHS: tuple[Path, ...] = (_SPEC_DIR / "nl_labelled.yaml", _SPEC_DIR / "final_texts.jsonl")
"""The rule reader's labelled specification texts, in a source checkout (YAML items or JSON lines with
``text`` and ``label``; ``unknown`` items and texts of unsupported languages are left out)."""


def training_lines() -> list[dict]:
    """The training texts: the corpus tuning part, then the specification texts (``text``, ``label``).

    Raises:
        FileNotFoundError: the tuning part or a file of :data:`SPEC_PATHS` is missing (training
            needs a source checkout).
        ConfigError: a bad line of the tuning part, or a specification file that is not a list of
            items with ``text`` and ``label`` (naming the file).
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
    return lines


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


def fit(xs: list[list[int]], ys: list[int]) -> tuple[Any, Any]:
    """Multinomial logistic regression with L2; returns ``(w, b)`` as float64 arrays.

    Args:
        xs: Bucket ids of each row (binary features, each row scaled to unit norm).
        ys: Class index of each row (into :data:`~evalkit.conditions.classifier.learned.LABELS`).

    Returns:
        ``w`` of shape ``(N_BUCKETS, 3)`` and ``b`` of shape ``(3,)``.
    """
    import numpy as np

    cols = sorted({c for row in xs for c in row})
    index = {c: i for i, c in enumerate(cols)}
    indices = np.array([index[c] for row in xs for c in row], dtype=np.int64)  # CSR rows, value 1/sqrt(len)
    row_of = np.repeat(np.arange(len(xs)), [len(row) for row in xs])
    value = np.repeat([1.0 / np.sqrt(max(len(row), 1)) for row in xs], [len(row) for row in xs])
    n, m, k = len(ys), len(cols), len(LABELS)
    y = np.zeros((n, k))
    y[np.arange(n), ys] = 1.0
    w = np.zeros((m, k))
    b = np.zeros(k)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    for _ in range(STEPS):
        lw, lb = w + 0.9 * vw, b + 0.9 * vb  # Nesterov look-ahead
        z = np.stack([np.bincount(row_of, value * lw[indices, j], minlength=n) for j in range(k)], axis=1) + lb
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - y) / n
        gw = np.stack([np.bincount(indices, value * g[row_of, j], minlength=m) for j in range(k)], axis=1) + L2 * lw
        gb = g.sum(axis=0)
        vw = 0.9 * vw - RATE * gw
        vb = 0.9 * vb - RATE * gb
        w, b = w + vw, b + vb
    full = np.zeros((N_BUCKETS, len(LABELS)))
    full[cols] = w
    return full, b


def save(w: Any, b: Any, path: Path = WEIGHTS_PATH) -> None:
    """Write the weights as float16 (compressed ``.npz``), atomically."""
    import os
    import tempfile

    import numpy as np

    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz")
    os.close(fd)
    np.savez_compressed(tmp, w=w.astype(np.float16), b=b.astype(np.float16))
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _cv(lines: list[dict], k: int) -> None:
    """Print K-fold cross-validated accuracy on ``lines``: the rules, the learned reader, the combination."""
    from evalkit.conditions.classifier.learned import choose, probabilities

    reads = [reading(line["text"]) for line in lines]
    gold = [line["label"] for line in lines]
    ys = [LABELS.index(g) for g in gold]
    xs = [hashed(features(*r)) for r in reads]
    n = len(gold)
    probs: list[list[float]] = [[] for _ in xs]
    for fold in range(k):
        train = [i for i in range(n) if i % k != fold]
        w, b = fit([xs[i] for i in train], [ys[i] for i in train])
        for i in range(fold, n, k):
            probs[i] = probabilities(xs[i], (w, b))
    learned = [LABELS[max(range(3), key=lambda j: p[j])] for p in probs]
    combined = [choose(r[0], p) for r, p in zip(reads, probs)]
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
    """Train on the tuning part and the specification texts and write the weights (or cross-validate with ``--cv K``).

    A missing or unreadable training file or a bad corpus line ends the command with one
    ``error:`` line naming the file (exit code 2); nothing is written.
    """
    from evalkit.errors import EvalkitError

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", type=_folds, default=0, metavar="K",
                        help="K-fold cross-validation on the tuning part (K >= 2; default 0: train and write the weights)")
    args = parser.parse_args(argv)
    try:
        lines = training_lines()
    except FileNotFoundError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc.filename}: no such file (training reads the corpus tuning part "
                       "and the specification texts of a source checkout)\n")
    except OSError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc.filename}: cannot read ({exc.strerror or exc})\n")
    except EvalkitError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    if args.cv:
        _cv(lines, args.cv)
        return
    xs, ys, _ = rows(lines)
    w, b = fit(xs, ys)
    save(w, b)
    print(f"wrote {WEIGHTS_PATH} ({WEIGHTS_PATH.stat().st_size} bytes, {len(xs)} texts)")


if __name__ == "__main__":
    main()
