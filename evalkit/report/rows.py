"""The result rows of a run as columns, for the report.

Every number in the report comes from ``summary.json``; the result rows only decide which
episodes the failure gallery, the embedded traces and the per-pair grid show
(:mod:`evalkit.report.view`). :class:`ResultTable` keeps what those choices need, a few
bytes per row: the identity columns as Arrow strings, ``epoch`` and ``decision`` as stored,
integer codes per group (model × condition × gate), pair and variant, and one boolean per
predicate below. The choices are then numpy sorts over those arrays, and only the rows they
pick are read back in full (:meth:`ResultTable.rows`), from the file the table came from.

The predicates (the Python form is the definition; columns a file lacks read as ``None``):

* ``correct``: ``bool(row["correct"])``
* ``error``: ``row["status"] == "error"``
* ``post_hoc``: ``bool(row["post_hoc"])`` (a commit executed, then an abstention in text)
* ``late``: ``row["timely"] is False`` (the right abstention, after more than ``max_lag`` calls)
* ``unsupported``: ``bool(row["unsupported_args_n"])``
* ``parse``: ``row["status"] == "ok" and ("parse_error" in (row["reason_codes"] or [])
  or row["decision"] == "none")``
* ``kind:K`` for each failure kind ``K`` of :data:`evalkit.metrics.failures.FAILURE_KINDS`:
  ``kind_of(row) == K`` — the row's ``failure_kind`` when the file has that column, else
  :func:`evalkit.metrics.failures.failure_kind` of the row (a run written before the column).
* ``judge``: ``bool(row["judge_disagrees"])`` (the classifier and the LLM-judge panel read the
  final text differently)

Arrow columns of the types evalkit writes are tested with Arrow compute kernels; a column of
any other type falls back to the Python form, value by value, so both give the same answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, TypeAlias

from evalkit.metrics.failures import FAILURE_KINDS, failure_kind

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    Column: TypeAlias = "pa.Array | pa.ChunkedArray"
    """An Arrow column: one array, or one per row group as read from Parquet."""

KEYS = ("episode_id", "pair_id", "variant", "model", "condition", "gate")
"""Identity columns kept for every row (validated as text by :mod:`evalkit.report.inputs`)."""
INDEX_COLUMNS = (*KEYS, "epoch", "decision", "status", "correct", "post_hoc", "timely", "unsupported_args_n",
                 "reason_codes", "failure_kind", "judge_disagrees")
"""Columns read for every row; the report's other columns are read for picked rows only."""
KIND_INPUTS = ("status", "variant", "commits", "critical_commits", "stated", "decision", "correct", "post_hoc",
               "timely", "injected_commits", "content_filter", "call_in_content", "parse_failures", "end_reason",
               "truncated_calls")
"""The columns :func:`evalkit.metrics.failures.failure_kind` reads (for files without ``failure_kind``)."""
FLAGS = ("correct", "error", "post_hoc", "late", "unsupported", "parse",
         *(f"kind:{k}" for k in FAILURE_KINDS), "judge")
"""The per-row predicates (module docstring)."""


def kind_of(row: dict[str, Any]) -> str | None:
    """The row's failure kind: its ``failure_kind`` field when it has one, else computed."""
    return row["failure_kind"] if "failure_kind" in row else failure_kind(row)


def _truthy(v: Any) -> bool:
    return bool(v)


def _is_false(v: Any) -> bool:
    return v is False


def _is_error(v: Any) -> bool:
    return v == "error"


def _is_ok(v: Any) -> bool:
    return v == "ok"


def _is_none_text(v: Any) -> bool:
    return v == "none"


def _has_parse_error(v: Any) -> bool:
    return "parse_error" in (v or [])


def python_flags(rows: Sequence[dict[str, Any]]) -> dict[str, list[bool]]:
    """The predicates of each row, computed on Python values (the definitions).

    Args:
        rows: Result rows (any subset of columns; a missing one reads as ``None``).

    Returns:
        ``{flag: [bool per row]}`` for each of :data:`FLAGS`.
    """
    status = [r.get("status") for r in rows]
    kinds = [kind_of(r) for r in rows]
    return {
        **{f"kind:{k}": [x == k for x in kinds] for k in FAILURE_KINDS},
        "correct": [_truthy(r.get("correct")) for r in rows],
        "error": [_is_error(s) for s in status],
        "post_hoc": [_truthy(r.get("post_hoc")) for r in rows],
        "late": [_is_false(r.get("timely")) for r in rows],
        "unsupported": [_truthy(r.get("unsupported_args_n")) for r in rows],
        "parse": [_is_ok(s) and (_has_parse_error(r.get("reason_codes")) or _is_none_text(r.get("decision")))
                  for s, r in zip(status, rows)],
        "judge": [_truthy(r.get("judge_disagrees")) for r in rows],
    }


def plain(column: Column) -> Column:
    """``column`` (an Arrow array or chunked array) with any dictionary encoding undone; chunks
    stay as they are (joining them would copy the column)."""
    import pyarrow as pa

    return column.cast(column.type.value_type) if pa.types.is_dictionary(column.type) else column


def is_text(t: pa.DataType) -> bool:
    """Whether ``t`` holds Python ``str`` values."""
    import pyarrow as pa

    return pa.types.is_string(t) or pa.types.is_large_string(t) or \
        getattr(pa.types, "is_string_view", lambda _: False)(t)


def is_list(t: pa.DataType) -> bool:
    """Whether ``t`` holds Python ``list`` values."""
    import pyarrow as pa

    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _fast(name: str, arr: Column) -> np.ndarray | None:
    """The predicate ``name`` by Arrow kernels, or ``None`` when ``arr``'s type has no fast form."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    t, n = arr.type, len(arr)
    if name == "truthy":
        if pa.types.is_boolean(t):
            out = arr
        elif pa.types.is_integer(t) or pa.types.is_floating(t):
            out = pc.not_equal(arr, 0)  # NaN != 0, as bool(nan) is True
        elif is_text(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
            out = pc.greater(pc.binary_length(arr), 0)
        elif is_list(t):
            out = pc.greater(pc.list_value_length(arr), 0)
        else:
            return None
    elif name == "is_false":  # only a boolean column holds False (0 is not False)
        out = pc.invert(arr) if pa.types.is_boolean(t) else None
        if out is None:
            return np.zeros(n, dtype=bool)
    elif name in ("is_error", "is_ok", "is_none_text"):
        text = {"is_error": "error", "is_ok": "ok", "is_none_text": "none"}[name]
        if not is_text(t):
            # a number, bool, list or bytes value never equals a str
            return np.zeros(n, dtype=bool) if (pa.types.is_integer(t) or pa.types.is_floating(t)
                                               or pa.types.is_boolean(t) or is_list(t)) else None
        out = pc.equal(arr, text)
    elif name == "has_parse_error":
        if not is_list(t):
            return None
        flat = pc.list_flatten(arr)
        found = np.zeros(n, dtype=bool)
        if is_text(flat.type) and len(flat):
            hits = pc.fill_null(pc.equal(flat, "parse_error"), False).to_numpy(zero_copy_only=False)
            found[pc.list_parent_indices(arr).to_numpy(zero_copy_only=False)[hits]] = True
        return found
    else:
        raise KeyError(name)
    return pc.fill_null(out, False).to_numpy(zero_copy_only=False).astype(bool, copy=False)


_SLOW: dict[str, Callable[[Any], bool]] = {
    "truthy": _truthy, "is_false": _is_false, "is_error": _is_error, "is_ok": _is_ok,
    "is_none_text": _is_none_text, "has_parse_error": _has_parse_error,
}


def _test(name: str, arr: Column | None, n: int) -> np.ndarray:
    """The predicate ``name`` on each value of ``arr`` (``None`` when the column is absent)."""
    import numpy as np
    import pyarrow as pa

    slow = _SLOW[name]
    if arr is None or pa.types.is_null(arr.type):
        return np.full(n, slow(None), dtype=bool)
    try:
        out = _fast(name, arr)
    except (pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowInvalid):
        out = None
    if out is not None:
        return out
    return np.fromiter((slow(v) for v in arr.to_pylist()), dtype=bool, count=n)


def arrow_flags(table: pa.Table) -> dict[str, np.ndarray]:
    """The predicates of each row of an Arrow table (see the module docstring).

    Args:
        table: Result rows, any subset of :data:`INDEX_COLUMNS`.

    Returns:
        ``{flag: bool array of table.num_rows}`` for each of :data:`FLAGS`.
    """
    import numpy as np
    import pyarrow.compute as pc

    n = table.num_rows

    def col(name: str) -> Column | None:
        return plain(table.column(name)) if name in table.column_names else None

    status = col("status")
    kinds: dict[str, np.ndarray] = {}
    given = col("failure_kind")
    if given is not None and is_text(given.type):
        for k in FAILURE_KINDS:
            kinds[f"kind:{k}"] = pc.fill_null(pc.equal(given, k), False).to_numpy(zero_copy_only=False).astype(bool)
    else:
        if given is not None:  # a column of another type: its values as they are
            values = given.to_pylist()
        else:  # a run written before the column: the definition, row by row
            inputs = [c for c in KIND_INPUTS if c in table.column_names]
            values = [failure_kind(r) for r in table.select(inputs).to_pylist()] if inputs else [failure_kind({})] * n
        for k in FAILURE_KINDS:
            kinds[f"kind:{k}"] = np.fromiter((v == k for v in values), dtype=bool, count=n)
    return {
        **kinds,
        "correct": _test("truthy", col("correct"), n),
        "error": _test("is_error", status, n),
        "post_hoc": _test("truthy", col("post_hoc"), n),
        "late": _test("is_false", col("timely"), n),
        "unsupported": _test("truthy", col("unsupported_args_n"), n),
        "parse": _test("is_ok", status, n) & (_test("has_parse_error", col("reason_codes"), n)
                                              | _test("is_none_text", col("decision"), n)),
        "judge": _test("truthy", col("judge_disagrees"), n),
    }


def first_seen(codes: np.ndarray) -> np.ndarray:
    """``codes`` renumbered 0, 1, … in the order each value first appears.

    Args:
        codes: Integer array.

    Returns:
        An int64 array of the same length.
    """
    import numpy as np

    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    uniq, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(uniq))
    return rank[inverse.reshape(-1)]


def _encode(arr: Column) -> tuple[np.ndarray, list[Any]]:
    """``(codes, values)`` of an Arrow (chunked) array: codes numbered by first appearance,
    ``values[code]`` the value."""
    import numpy as np
    import pyarrow as pa

    if not len(arr):
        return np.zeros(0, dtype=np.int64), []
    enc = arr.dictionary_encode()
    chunks = enc.unify_dictionaries().chunks if isinstance(enc, pa.ChunkedArray) else [enc]
    chunks = [c for c in chunks if len(c)]
    raw = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks]).astype(np.int64)
    codes = first_seen(raw)
    values = chunks[0].dictionary.to_pylist()
    old = np.empty(int(codes.max()) + 1, dtype=np.int64)
    old[codes] = raw  # code ↔ dictionary index is one to one
    return codes, [values[i] for i in old.tolist()]


class ResultTable:
    """The result rows of a run, as the report's selections need them.

    Attributes:
        n: Number of rows (one per episode key).
        group, pair, variant: Per row, int64 codes numbered by first appearance (so code
            order is run order); ``group_keys[code]`` is ``(model, condition, gate)``,
            ``pair_ids[code]`` and ``variants[code]`` the values.
        epoch: Per row, ``epoch`` as stored (Arrow array); ``epoch_sort`` as numbers.
        episode_id, decision: Per row, as stored (Arrow arrays).
        flags: ``{flag: bool array}`` for each of :data:`FLAGS`.

    Args:
        keys: ``{column: Arrow string array}`` for each of :data:`KEYS`.
        epoch: ``epoch`` per row.
        decision: ``decision`` per row (nulls where absent).
        flags: The predicates per row.
        fetch: Reads the full rows at the given ascending, distinct positions, in that order.
    """

    def __init__(self, keys: dict[str, Column], epoch: Column, decision: Column,
                 flags: dict[str, np.ndarray], fetch: Callable[[list[int]], list[dict[str, Any]]]):
        import numpy as np

        self.n = len(epoch)
        self.episode_id = keys["episode_id"]
        self.epoch = epoch
        self.epoch_sort = epoch.to_numpy(zero_copy_only=False) if self.n else np.zeros(0, dtype=np.int64)
        self.decision = decision
        self.flags = flags
        self.pair, self.pair_ids = _encode(keys["pair_id"])
        self.variant, self.variants = _encode(keys["variant"])
        parts = [_encode(keys[k]) for k in ("model", "condition", "gate")]
        combined = np.zeros(self.n, dtype=np.int64)
        for codes, values in parts:
            combined = combined * max(len(values), 1) + codes
        self.group = first_seen(combined)
        self.group_keys: list[tuple[str, str, str]] = []
        if self.n:
            _, first = np.unique(self.group, return_index=True)
            self.group_keys = [tuple(values[int(codes[i])] for codes, values in parts) for i in first]
        self._fetch = fetch
        self._cache: dict[int, dict[str, Any]] = {}

    def __len__(self) -> int:
        return self.n

    def rows(self, positions: Iterable[int]) -> list[dict[str, Any]]:
        """The full rows (the report's columns) at ``positions``, in that order.

        Rows read once are kept, so a row picked twice is the same dict.
        """
        wanted = [int(i) for i in positions]
        missing = sorted({i for i in wanted if i not in self._cache})
        if missing:
            self._cache.update(zip(missing, self._fetch(missing)))
        return [self._cache[i] for i in wanted]

    @classmethod
    def from_arrow(cls, table: pa.Table, fetch: Callable[[list[int]], list[dict[str, Any]]]) -> ResultTable:
        """From an Arrow table of (at least) :data:`KEYS` and ``epoch`` plus any of :data:`INDEX_COLUMNS`."""
        import pyarrow as pa

        n = table.num_rows
        decision = plain(table.column("decision")) if "decision" in table.column_names else pa.nulls(n)
        return cls({k: plain(table.column(k)) for k in KEYS}, plain(table.column("epoch")), decision,
                   arrow_flags(table), fetch)

    @classmethod
    def from_batches(cls, batches: Iterable[list[dict[str, Any]]],
                     fetch: Callable[[list[int]], list[dict[str, Any]]]) -> ResultTable:
        """From batches of row dicts whose :data:`KEYS` are ``str`` and ``epoch`` an ``int``
        (rows read one batch at a time; only the columns of the table are kept)."""
        import numpy as np
        import pyarrow as pa

        keys: dict[str, list[pa.Array]] = {k: [] for k in KEYS}
        epochs: list[pa.Array] = []
        decisions: list[pa.Array] = []
        flags: dict[str, list[np.ndarray]] = {f: [] for f in FLAGS}
        for batch in batches:
            for k in KEYS:
                keys[k].append(pa.array([r[k] for r in batch], pa.string()))
            epochs.append(pa.array([r["epoch"] for r in batch], pa.int64()))
            decisions.append(pa.array([None if r.get("decision") is None else str(r["decision"]) for r in batch],
                                      pa.string()))
            for f, values in python_flags(batch).items():
                flags[f].append(np.array(values, dtype=bool))

        def join(chunks: list[pa.Array], kind: pa.DataType) -> pa.Array:
            return pa.concat_arrays(chunks) if chunks else pa.array([], kind)

        return cls({k: join(v, pa.string()) for k, v in keys.items()}, join(epochs, pa.int64()),
                   join(decisions, pa.string()),
                   {f: np.concatenate(v) if v else np.zeros(0, dtype=bool) for f, v in flags.items()}, fetch)

    @classmethod
    def empty(cls) -> ResultTable:
        """A table of no rows."""
        return cls.from_batches([], lambda positions: [])
