"""Atomic whole-file writes (traces, summaries) and the per-episode initial state.

``write_atomic`` writes a temporary file next to the target and renames it into place: a
reader sees the old file or the new one, never a part; a failure names the target and
leaves no temporary file; the new file's mode honours the umask.
"""

from __future__ import annotations

import copy
import errno
import os
import stat
from pathlib import Path

import pytest

from evalkit.harness import store as store_module
from evalkit.harness.episode import EpisodeSpec, initial_state
from evalkit.harness.store import RunStore, _umask, write_atomic
from evalkit.runtime.tools import Domain
from evalkit.scenarios.schema import Pair


@pytest.fixture
def umask():
    def set_mask(mask: int) -> None:
        os.umask(mask)

    before = os.umask(0o022)
    yield set_mask
    os.umask(before)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_a_new_file_has_mode_0666_less_the_umask(tmp_path, umask, mask):
    umask(mask)
    assert _umask() == mask
    write_atomic(tmp_path / "a.json", "{}")
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o666 & ~mask


def test_text_is_utf8_bytes_are_kept_and_a_missing_folder_is_created(tmp_path):
    write_atomic(tmp_path / "new" / "deeper" / "t.jsonl", "héllo ✓\n")
    write_atomic(str(tmp_path / "b.bin"), b"\x00\xff")
    write_atomic(tmp_path / "empty", "")
    assert (tmp_path / "new" / "deeper" / "t.jsonl").read_bytes() == "héllo ✓\n".encode()
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff" and (tmp_path / "empty").read_bytes() == b""
    write_atomic(tmp_path / "b.bin", "replaced")
    assert (tmp_path / "b.bin").read_text() == "replaced"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.bin", "empty", "new"]  # no temporary file left


def test_a_temporary_name_left_by_another_process_is_skipped(tmp_path):
    number = next(store_module._TEMP_SEQ) + 1
    stale = tmp_path / f".t.jsonl.{os.getpid()}-{number}.tmp"
    stale.write_text("someone else's")
    write_atomic(tmp_path / "t.jsonl", "mine")
    assert (tmp_path / "t.jsonl").read_text() == "mine" and stale.read_text() == "someone else's"


def test_a_failed_write_names_the_file_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    (tmp_path / "t.jsonl").write_text("old")

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_module.os, "write", full)
    with pytest.raises(OSError) as info:
        write_atomic(tmp_path / "t.jsonl", "new")
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(tmp_path / "t.jsonl")
    assert os.listdir(tmp_path) == ["t.jsonl"] and (tmp_path / "t.jsonl").read_text() == "old"


def test_a_folder_that_cannot_be_created_is_an_error_naming_the_file(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError) as info:
        write_atomic(tmp_path / "file" / "t.jsonl", "x")
    assert info.value.filename == str(tmp_path / "file" / "t.jsonl")


def test_a_trace_goes_to_traces_episode_id_jsonl(tmp_path):
    store = RunStore(tmp_path)
    store.open()
    try:
        store.write_trace("p__act__m__tool__off__e1-0123456789ab", '{"type": "x"}\n')
    finally:
        store.close()
    assert (tmp_path / "traces" / "p__act__m__tool__off__e1-0123456789ab.jsonl").read_text() == '{"type": "x"}\n'


# ----------------------------------------------------------------------------- initial state

def _spec(domain: Domain, state: dict, variant_state: dict | None = None) -> EpisodeSpec:
    pair = Pair.model_validate({
        "id": "p1", "domain": domain.name, "trigger": "none", "state": state,
        "act": {"user": "Do it.", "plan": [{"tool": "t", "args": {}}], "state": variant_state or {},
                "expected": {"commits": [{"tool": "t", "args": {}}]}},
    })
    return EpisodeSpec(pair, "act", "scripted/oracle", "tool", domain=domain)


def test_each_episode_gets_its_own_merged_copy_of_the_state():
    domain = Domain("d", "test", initial_state={"items": {"a": {"qty": 1}}, "log": [], "next": 1})
    spec = _spec(domain, {"items": {"b": {"qty": 2}}, "next": None}, {"log": ["seeded"]})
    first = initial_state(spec)
    assert first == {"items": {"a": {"qty": 1}, "b": {"qty": 2}}, "log": ["seeded"]}
    first["items"]["a"]["qty"] = 99
    first["log"].append("changed by a tool")
    assert initial_state(spec) == {"items": {"a": {"qty": 1}, "b": {"qty": 2}}, "log": ["seeded"]}
    assert domain.initial_state == {"items": {"a": {"qty": 1}}, "log": [], "next": 1}


def test_shared_parts_of_a_state_stay_shared_in_the_copy_as_with_deepcopy():
    shared = {"n": 1}
    domain = Domain("d2", "test", initial_state={"x": shared, "y": shared, "when": ("t", 1)})
    plain = _spec(Domain("d3", "test", initial_state={"x": shared, "y": shared}), {})
    for spec in (_spec(domain, {}), plain):
        state = initial_state(spec)
        expected = copy.deepcopy(spec.domain.initial_state)
        assert state == expected and (state["x"] is state["y"]) == (expected["x"] is expected["y"])
        assert state["x"] is not shared


def test_the_kept_merge_follows_new_state_objects():
    domain = Domain("d4", "test", initial_state={"v": 1})
    assert initial_state(_spec(domain, {"v": 2})) == {"v": 2}
    assert initial_state(_spec(domain, {"v": 3})) == {"v": 3}
    domain2 = Domain("d4", "test", initial_state={"v": 1, "w": 0})
    assert initial_state(_spec(domain2, {"v": 3})) == {"v": 3, "w": 0}


def test_write_atomic_accepts_paths_and_strings(tmp_path):
    write_atomic(Path(tmp_path) / "p.txt", "1")
    write_atomic(os.path.join(tmp_path, "s.txt"), "2")
    assert (tmp_path / "p.txt").read_text() == "1" and (tmp_path / "s.txt").read_text() == "2"


def test_write_output_follows_a_link_and_keeps_it(tmp_path) -> None:
    from evalkit.harness.atomic import write_output

    target, link = tmp_path / "figures.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    write_output(link, '{"a": 1}')
    assert link.is_symlink() and target.read_text() == '{"a": 1}'
    dangling = tmp_path / "later.json"
    (tmp_path / "dangling.json").symlink_to(dangling)
    write_output(tmp_path / "dangling.json", "x")
    assert (tmp_path / "dangling.json").is_symlink() and dangling.read_text() == "x"


def test_write_output_streams_into_a_fifo_without_replacing_it(tmp_path) -> None:
    import stat
    import threading

    from evalkit.harness.atomic import write_output

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_output(fifo, "streamed figures")
    reader.join(timeout=10)
    assert got == ["streamed figures"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_write_output_refuses_a_folder_and_writes_a_plain_file_atomically(tmp_path) -> None:
    from evalkit.harness.atomic import write_output

    with pytest.raises(IsADirectoryError) as info:
        write_output(tmp_path, "x")
    assert str(tmp_path) in str(info.value)
    plain = tmp_path / "new" / "out.json"
    write_output(plain, b"bytes")
    assert plain.read_bytes() == b"bytes" and not plain.is_symlink()
    assert sorted(p.name for p in plain.parent.iterdir()) == ["out.json"]  # no temporary file left
