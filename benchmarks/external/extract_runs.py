"""Rebuild the pool of real end-of-turn messages the held-out samples were drawn from.

Reads run files of τ-bench / τ²-bench (any JSON file holding message lists: ``{"role", "content",
"tool_calls"}``) from local repository snapshots -- bare git directories (read at ``HEAD`` with
``git ls-tree`` / ``git cat-file``) or plain folders -- and writes one JSON line per distinct
end-of-turn text: an assistant message with text and no tool call, with the customer's message
before it (``context_user``), the agent model named by the file (``model``, ``unnamed`` when it
names none), the domain (``retail`` / ``airline`` / ``telecom`` / ``other``), the snapshot and the
file. Texts of ``tau_bench_airline_gpt4o.jsonl`` (the external check) are left out. ``--draw N
--seed S`` then draws N lines (no model over 40%, no file over 25%; retail and airline, 15 to 4,000
characters) into ``--out``; ``--exclude FILE`` leaves out the keys of an earlier draw; ``--seed``
repeated shuffles once per seed, in order.

The samples of the corpus README (:data:`SAMPLES`): snapshots in the order codesque16/tau2-bench,
Madhav-Kanda/tau-bench, blakeelias/tau2-bench, WhissleAI/tau2-bench-w, avaljotsingh/tau-bench,
pdhoolia/tau2-bench; design set ``--draw 600 --seed 20261210``; A ``--draw 400 --seed 20261210 --seed
20261211 --exclude design.jsonl``; B the same with 20261212, excluding both; C to P ``--draw 800`` with
20261213 to 20261226, each excluding every earlier sample.

The pool and the draws are not committed. Their labels are (``labels/NAME.jsonl``: keys and labels
only); ``--samples`` rebuilds every sample of :data:`SAMPLES` in order and joins the committed labels
to their texts. Corpus README, "Measured", describes the samples and their labels. The one exception:
``--samples --training-texts FILE`` also writes the labelled lines of the samples the learned reader
is trained on (``evalkit.conditions.classifier.train.EXTERNAL_SAMPLES``), with their texts, to the
gzipped JSON lines ``FILE`` (committed as ``training_texts.jsonl.gz``; the forks are MIT-licensed).

Usage: python benchmarks/external/extract_runs.py SNAPSHOT [SNAPSHOT ...] --out pool.jsonl
       [--draw 400 --seed 20261210 --seed 20261211 --exclude design.jsonl]
       python benchmarks/external/extract_runs.py SNAPSHOT [SNAPSHOT ...] --samples --out samples/
              [--training-texts benchmarks/external/training_texts.jsonl.gz]
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
_MODELS = (
    "gpt-4.1-mini", "gpt-4.1-nano", "gpt-4.1", "gpt-4o-mini", "gpt-4o", "gpt-5-mini", "gpt-5-nano", "gpt-5",
    "o4-mini", "claude-3-7-sonnet", "claude-3-5-sonnet", "sonnet-35", "claude", "gemini-3-flash",
    "gemini-2.5-flash", "gemini-2.5-pro", "gemini", "grok-3-mini", "grok-4-fast", "qwen2.5-coder-32b",
    "qwen2.5-7b", "qwen", "toolorchestra", "nemotron", "llama", "deepseek", "mistral",
)
_SKIP_FILE = re.compile(r"(tasks|db|policy|split|difficulty|users|flights|orders|reservations|products)[^/]*\.json$")
_AIRLINE = re.compile(r"\b(flight|reservation|baggage|cabin|airport)\b")
_RETAIL = re.compile(r"\b(order|exchange|return|refund|#w\d)")


def model_of(name: str) -> str | None:
    """The agent model a file name or an ``agent_info.llm`` value names, else ``None``."""
    low = name.lower()
    found = next((m for m in _MODELS if m in low), None)
    if found is None and re.search(r"-4o\b|-4o[-.]", low):
        return "gpt-4o"
    if found is None and re.search(r"-4\.1\b|-4\.1[-.]", low):
        return "gpt-4.1"
    return found


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return None


def _message_lists(obj: Any, depth: int = 0) -> Iterator[list[dict]]:
    if depth > 6:
        return
    if isinstance(obj, list):
        if obj and all(isinstance(x, dict) for x in obj[:5]) and sum("role" in x for x in obj[:10]) >= 2:
            yield obj
            return
        for x in obj:
            yield from _message_lists(x, depth + 1)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _message_lists(v, depth + 1)


def _json_files(snapshot: Path) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of the JSON files of a bare git directory at HEAD, or of a plain folder.

    Raises:
        ValueError: naming the snapshot, when it looks like a git directory (``HEAD`` and ``objects/``)
            but git cannot read it, or git is not installed.
    """
    if (snapshot / "HEAD").is_file() and (snapshot / "objects").is_dir():
        for line in _git(snapshot, "ls-tree", "-r", "-l", "HEAD").decode("utf-8", "replace").splitlines():
            meta, path = line.split("\t", 1)
            _, _, sha, size = meta.split()
            if path.endswith(".json") and size.isdigit() and int(size) >= 2000 and not _SKIP_FILE.search(path):
                yield path, _git(snapshot, "cat-file", "-p", sha)
    else:
        for f in sorted(snapshot.rglob("*.json")):
            if f.stat().st_size >= 2000 and not _SKIP_FILE.search(f.name):
                yield str(f.relative_to(snapshot)), f.read_bytes()


def _git(snapshot: Path, *args: str) -> bytes:
    """The standard output of ``git -C snapshot ARGS``; ValueError naming the snapshot when git fails."""
    try:
        proc = subprocess.run(["git", "-C", str(snapshot), *args], capture_output=True)
    except OSError as exc:
        raise ValueError(f"{snapshot}: looks like a git directory, but git cannot be run ({exc.strerror or exc})") from None
    if proc.returncode != 0:
        why = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit status {proc.returncode}"])[0]
        raise ValueError(f"{snapshot}: looks like a git directory (HEAD, objects/), but git cannot read it: "
                         f"`git {' '.join(args[:2])}`: {why[:200]}")
    return proc.stdout


def _domain(path: str, info: dict, text: str, context: str | None) -> str:
    for d in ("airline", "retail", "telecom"):
        if d in path.lower():
            return d
    named = (info.get("environment_info") or {}).get("domain_name") if isinstance(info, dict) else None
    if named in ("airline", "retail", "telecom"):
        return named
    low = f"{text} {context or ''}".lower()
    return "airline" if _AIRLINE.search(low) else "retail" if _RETAIL.search(low) else "other"


FORKS: tuple[str, ...] = ("codesque16/tau2-bench", "Madhav-Kanda/tau-bench", "blakeelias/tau2-bench",
                          "WhissleAI/tau2-bench-w", "avaljotsingh/tau-bench", "pdhoolia/tau2-bench")
"""The public forks whose snapshots the documented samples are drawn from, in the documented order."""


def extract(snapshots: list[Path]) -> list[dict]:
    """The distinct end-of-turn texts of every run file in ``snapshots`` (see the module docstring); each
    line's ``source`` is its fork (:data:`FORKS`) when the six snapshots are given, else its snapshot path."""
    external = HERE / "tau_bench_airline_gpt4o.jsonl"
    left_out = {json.loads(line)["text"].strip() for line in external.read_text(encoding="utf-8").splitlines() if line}
    seen: set[str] = set()
    out: list[dict] = []
    for index, snapshot in enumerate(snapshots):
        source = FORKS[index] if len(snapshots) == len(FORKS) else str(snapshot)
        for path, raw in _json_files(snapshot):
            try:
                data = json.loads(raw)
            except ValueError:
                continue
            info = data.get("info", {}) if isinstance(data, dict) else {}
            llm = ((info.get("agent_info") or {}).get("llm") if isinstance(info, dict) else None) or ""
            model = model_of(str(llm)) or model_of(path) or "unnamed"
            for messages in _message_lists(data):
                context = None
                for m in messages:
                    text = _text(m.get("content"))
                    if m.get("role") == "user":
                        context = text
                    elif m.get("role") == "assistant" and text and text.strip() and not m.get("tool_calls"):
                        text = text.strip()
                        key = hashlib.sha1(text.encode()).hexdigest()[:16]
                        if text in left_out or key in seen:
                            continue
                        seen.add(key)
                        out.append({"key": key, "text": text, "context_user": context, "model": model,
                                    "domain": _domain(path, info, text, context), "snapshot": snapshot.name,
                                    "source": source, "file": path})
    return out


def draw(pool: list[dict], n: int, seeds: list[int], exclude: set[str]) -> list[dict]:
    """``n`` retail/airline lines of 15 to 4,000 characters, shuffled once by each of ``seeds`` in
    order, no model over 40% and no file over 25% of the draw, none of whose keys is in ``exclude``."""
    rows = [o for o in pool if o["domain"] in ("retail", "airline") and 15 <= len(o["text"]) <= 4000]
    for seed in seeds:
        random.Random(seed).shuffle(rows)
    by_model: collections.Counter[str] = collections.Counter()
    by_file: collections.Counter[str] = collections.Counter()
    out: list[dict] = []
    for o in rows:
        if o["key"] in exclude or by_model[o["model"]] >= 0.4 * n or by_file[o["file"]] >= 0.25 * n:
            continue
        out.append(o)
        by_model[o["model"]] += 1
        by_file[o["file"]] += 1
        if len(out) == n:
            break
    return out


SAMPLES: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("design", 600, (20261210,)),
    ("A", 400, (20261210, 20261211)),
    ("B", 400, (20261210, 20261212)),
    *((name, 800, (20261210, seed)) for name, seed in zip([*"CDEFGHIJKLMNOPQRSTUVWXYZ", "AA", "AB", "AC", "AD", "AE", "AF", "AG", "AH", "AI", "AJ", "AK"], range(20261213, 20261248))),
)
"""The documented samples in the order they were drawn: (name, size, seeds); each excludes every
earlier one (corpus README, "Measured")."""
LABELS_DIR: Path = HERE / "labels"
"""Committed labels of the samples, ``<name>.jsonl`` (and ``<name>.<variant>.jsonl``, e.g. labelled again
under a later brief): ``{"key", "label", "unsure", "tool_text"[, "n_labellers"]}`` per agreed line -- keys
only, the texts are rebuilt from the snapshots."""


def samples(pool: list[dict]) -> dict[str, list[dict]]:
    """Every sample of :data:`SAMPLES`, drawn from ``pool`` in order, each excluding the keys of all
    earlier ones."""
    drawn: dict[str, list[dict]] = {}
    exclude: set[str] = set()
    for name, n, seeds in SAMPLES:
        drawn[name] = draw(pool, n, list(seeds), exclude)
        exclude |= {o["key"] for o in drawn[name]}
    return drawn


def join_labels(rows: list[dict], labels: Path) -> list[dict]:
    """The lines of ``rows`` that ``labels`` labels, in the order of ``labels``, each with ``label``,
    ``unsure``, ``tool_text``, ``n_labellers`` (2 -- agreed lines of two labellers -- unless the label line
    says 1) and ``lang`` (``en``) added: a file ``evalkit judge eval --texts`` reads.

    Raises:
        ValueError: a line of ``labels`` is not a JSON object with a string ``key`` and a ``label`` of
            ``abstain`` / ``clarify`` / ``act``, holds a field twice, an ``unsure`` or ``tool_text`` that
            is not a boolean or an ``n_labellers`` that is not 1 or 2, names a key already labelled, or
            names a key the sample does not hold (the message names the file, the line and the field).
    """
    by_key = {o["key"]: o for o in rows}
    out: list[dict] = []
    seen: dict[str, int] = {}

    def no_twice(pairs: list[tuple[str, Any]]) -> dict:
        names = [name for name, _ in pairs]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"field {twice[0]!r} given twice")
        return dict(pairs)

    for number, line in enumerate(labels.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{labels}:{number}"
        try:
            lab = json.loads(line, object_pairs_hook=no_twice)
        except ValueError as exc:
            raise ValueError(f"{where}: not a label line {{key, label, ...}}: {exc}") from None
        if not isinstance(lab, dict) or not isinstance(lab.get("key"), str) or "label" not in lab:
            raise ValueError(f"{where}: not a label line {{key, label, ...}}: a JSON object with a string 'key' and a 'label'")
        key, label = lab["key"], lab["label"]
        if label not in ("abstain", "clarify", "act"):
            raise ValueError(f"{where}: field 'label' is {label!r}; expected abstain, clarify or act")
        for flag in ("unsure", "tool_text"):
            if flag in lab and not isinstance(lab[flag], bool):
                raise ValueError(f"{where}: field {flag!r} is {lab[flag]!r}; expected true or false")
        labellers = lab.get("n_labellers", 2)
        if labellers not in (1, 2) or isinstance(labellers, bool) or not isinstance(labellers, int):
            raise ValueError(f"{where}: field 'n_labellers' is {labellers!r}; expected 1 or 2")
        if key in seen:
            raise ValueError(f"{where}: key {key!r} already labelled on line {seen[key]}")
        seen[key] = number
        if key not in by_key:
            raise ValueError(f"{where}: key {key!r} is not in the sample; were the snapshots the documented ones?")
        out.append({**by_key[key], "label": label, "lang": "en", "unsure": lab.get("unsure", False),
                    "tool_text": lab.get("tool_text", False), "n_labellers": labellers})
    return out


def main() -> None:
    """Extract the pool (and draw from it) as the module docstring says; figures go to stderr."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("snapshots", nargs="+", type=Path, help="bare git directories or folders of run files")
    parser.add_argument("--out", type=Path, required=True,
                        help="JSON lines to write; with --samples, the folder to write the samples to")
    parser.add_argument("--samples", action="store_true",
                        help="write every documented sample (SAMPLES) to the folder --out, and NAME[.VARIANT].labelled.jsonl "
                             "for each file of committed labels (labels/NAME[.VARIANT].jsonl)")
    parser.add_argument("--training-texts", type=Path, metavar="FILE",
                        help="with --samples: also write the labelled lines of the learned reader's training samples "
                             "(EXTERNAL_SAMPLES), with their texts, to this gzipped JSON lines file")
    parser.add_argument("--draw", type=int, default=0, help="draw this many lines instead of writing the pool")
    parser.add_argument("--seed", type=int, action="append", help="shuffle seed; repeated, the lines are shuffled once by each seed in order (default: 20261210)")
    parser.add_argument("--exclude", type=Path, help="JSON lines of an earlier draw (their keys are left out)")
    args = parser.parse_args()
    if args.training_texts and not args.samples:
        parser.error("--training-texts needs --samples")
    if args.draw < 0:
        parser.error(f"--draw {args.draw}: a number of lines >= 0")
    for option, path, folder in (("--out", args.out, args.samples), ("--training-texts", args.training_texts, False)):
        if path is None:
            continue
        if folder and path.exists() and not path.is_dir():
            parser.error(f"{option} {path}: a file; --samples writes a folder")
        if not folder and path.is_dir():
            parser.error(f"{option} {path}: a folder; give a file to write")
        if not folder and not path.parent.is_dir():
            parser.error(f"{option} {path}: the folder {path.parent} does not exist")
    if args.exclude and not args.exclude.is_file():
        parser.error(f"--exclude {args.exclude}: no such file")
    missing = [str(path) for path in args.snapshots if not path.exists()]
    if missing:
        parser.error(f"no such snapshot: {', '.join(missing)} (give the six fetched snapshots in the documented order)")
    try:
        pool = extract(args.snapshots)
    except ValueError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    if not pool:
        parser.error("the snapshots hold no run file with end-of-turn texts (give the six fetched snapshots in the documented order)")
    if args.samples:
        args.out.mkdir(parents=True, exist_ok=True)
        labelled_by_stem: dict[str, list[dict]] = {}
        for name, rows in samples(pool).items():
            _write(args.out / f"{name}.jsonl", rows)
            for labels in sorted([*LABELS_DIR.glob(f"{name}.jsonl"), *LABELS_DIR.glob(f"{name}.*.jsonl")]):
                stem = labels.name.removesuffix(".jsonl")
                try:
                    labelled = join_labels(rows, labels)
                except ValueError as exc:
                    parser.exit(2, f"{parser.prog}: error: {exc}\n")
                _write(args.out / f"{stem}.labelled.jsonl", labelled)
                labelled_by_stem[stem] = labelled
                print(f"{stem}: {len(rows)} drawn, {len(labelled)} labelled", file=sys.stderr)
        if args.training_texts:
            try:
                n = write_training_texts(labelled_by_stem, args.training_texts)
            except ValueError as exc:
                parser.exit(2, f"{parser.prog}: error: {exc}\n")
            print(f"wrote {n} training lines to {args.training_texts}", file=sys.stderr)
        return
    rows = pool
    if args.draw:
        exclude = set()
        if args.exclude:
            exclude = {json.loads(line)["key"] for line in args.exclude.read_text(encoding="utf-8").splitlines() if line}
        rows = draw(pool, args.draw, args.seed or [20261210], exclude)
    _write(args.out, rows)
    print(f"{len(pool)} distinct texts; wrote {len(rows)} lines to {args.out}; models: "
          f"{dict(collections.Counter(o['model'] for o in rows).most_common())}", file=sys.stderr)


def write_training_texts(labelled: dict[str, list[dict]], path: Path) -> int:
    """Write the labelled lines of the learned reader's training samples to ``path`` and return their number.

    Args:
        labelled: The joined labelled lines of each labels file (:func:`join_labels`), by its stem
            (``NAME`` or ``NAME.VARIANT``).
        path: Gzipped JSON lines to write (atomically; the same lines give the same bytes):
            ``{"key", "sample", "source", "file", "label", "text"}`` for every line of each sample of
            ``evalkit.conditions.classifier.train.EXTERNAL_SAMPLES``, in that order.

    Raises:
        ValueError: a training sample has no labels file among ``labelled``.
    """
    import gzip

    from evalkit.conditions.classifier.train import EXTERNAL_SAMPLES

    missing = [name for name in EXTERNAL_SAMPLES if name not in labelled]
    if missing:
        raise ValueError(f"no labels of training sample(s) {', '.join(missing)} in {LABELS_DIR}")
    tmp = path.with_name(path.name + ".part")
    n = 0
    with tmp.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        for name in EXTERNAL_SAMPLES:
            for o in labelled[name]:
                line = {"key": o["key"], "sample": name, "source": o.get("source"), "file": o.get("file"),
                        "label": o["label"], "text": o["text"]}
                f.write((json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8"))
                n += 1
    tmp.replace(path)
    return n


def _write(path: Path, rows: list[dict]) -> None:
    tmp = path.with_name(path.name + ".part")
    with tmp.open("w", encoding="utf-8") as f:
        for o in rows:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    main()
