"""Hostile input and bad data: ids, keys and numbers from a model, damaged blobs, a full disk, foreign time zones.

Every input either works (with the right result) or raises InvalidArgument; every damaged blob gives CorruptBlob
naming the handle and never wrong bytes; a refused write leaves nothing behind. The catalogs are shared with
``reliability/run.py`` (``reliability/hostile.py``).
"""

from __future__ import annotations

import errno
import json
import logging
import math
import os
import subprocess
import sys
import textwrap
import time
import tracemalloc
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reliability.hostile import DAMAGES, ID_CASES, KEY_CASES, NUMBER_CASES, SIZE, damage_target
from scratchfs import CorruptBlob, InvalidArgument, NotFound, Observation, ScratchStore, StorageError
from scratchfs.foundation.checks import path_part

# -- ids and keys -------------------------------------------------------------------------------------------------


def _walk(root) -> list[str]:
    return [os.path.join(d, n) for d, dirs, files in os.walk(root) for n in dirs + files]


def _inside(root, paths) -> bool:
    real = os.path.realpath(root)
    return all(os.path.realpath(p).startswith(real + os.sep) for p in paths)


def test_hostile_run_and_agent_ids_are_distinct_or_refused(tmp_path):
    root = tmp_path / "root"
    accepted_runs, accepted_agents = {}, {}
    with ScratchStore(root) as store:
        for label, value, ok in ID_CASES:
            for as_run in (True, False):
                run, agent = (value, "agent") if as_run else ("run", value)
                if not ok:
                    with pytest.raises(InvalidArgument):
                        store.scope(run, agent)
                    if as_run:
                        for call in (store.delete_run, store.list_entries_for_run):
                            with pytest.raises(InvalidArgument):
                                call(value)
                    continue
                scope = store.scope(run, agent)
                content = f"{label} as {'run' if as_run else 'agent'}".encode()
                handle = scope.spill(content, source_tool="t").handle
                scope.scratch_write("k", content)
                (accepted_runs if as_run else accepted_agents)[value] = (handle, content)
        # every accepted id reads back its own content: no two ids share anything
        for value, (handle, content) in accepted_runs.items():
            assert store.scope(value, "agent").read_handle(handle).data == content
            assert store.scope(value, "agent").scratch_read("k") == content
        for value, (handle, content) in accepted_agents.items():
            assert store.scope("run", value).read_handle(handle).data == content
        # one directory per id, all inside the root, nothing created beside it
        runs = sorted(os.listdir(root / "runs"))
        assert len(runs) == len(set(accepted_runs) | {"run"})
        assert sorted(os.listdir(root / "runs" / path_part("run"))) == sorted(path_part(a) for a in accepted_agents)
        assert _inside(root, _walk(root))
        assert os.listdir(tmp_path) == ["root"]
        # deleting a hostile run ("..", "/", ".", ...) deletes that run only
        for value in list(accepted_runs):
            handle, _ = accepted_runs.pop(value)
            store.delete_run(value)
            with pytest.raises(NotFound):
                store.scope(value, "agent").read_handle(handle)
            for other, (h, content) in list(accepted_runs.items())[:3]:
                assert store.scope(other, "agent").read_handle(h).data == content
        assert os.listdir(root / "runs") == [path_part("run")]
        assert store.integrity_check() == "ok"


def test_hostile_keys_are_distinct_or_refused(store):
    scope = store.scope("run", "agent")
    accepted = {}
    for label, value, ok in KEY_CASES:
        if not ok:
            for call in (lambda v=value: scope.scratch_write(v, b"x"), lambda v=value: scope.scratch_read(v),
                         lambda v=value: scope.scratch_delete(v)):
                with pytest.raises(InvalidArgument):
                    call()
            continue
        scope.scratch_write(value, label.encode())
        accepted[value] = label.encode()
    assert {e.key for e in scope.scratch_list()} == set(accepted)
    for value, content in accepted.items():
        assert scope.scratch_read(value) == content
        assert [e.key for e in scope.scratch_list(prefix=value) if e.key == value] == [value]
    # prefixes are exact: "." lists ".", "..", "...", ".hidden"; "%" does not act as a wildcard
    assert {e.key for e in scope.scratch_list(prefix=".")} == {k for k in accepted if k.startswith(".")}
    assert {e.key for e in scope.scratch_list(prefix="%")} == {k for k in accepted if k.startswith("%")}
    assert scope.scratch_delete("..") is True
    assert scope.scratch_read("...") == accepted["..."]


def _valid_id(value: str, limit: int) -> bool:
    """The rule, written independently of scratchfs.ids: 1..limit UTF-8 bytes, no surrogate, no Cc character."""
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return False
    return 1 <= len(value.encode("utf-8")) <= limit and not any(unicodedata.category(c) == "Cc" for c in value)


ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=80) | st.text(max_size=300)  # surrogates too


@settings(max_examples=150)
@given(run=ANY_TEXT, agent=ANY_TEXT, key=ANY_TEXT)
def test_random_ids_round_trip_or_raise(tmp_path_factory, run, agent, key):
    root = tmp_path_factory.getbasetemp() / "random-ids"
    with ScratchStore(root) as store:
        valid = _valid_id(run, 256) and _valid_id(agent, 256)
        try:
            scope = store.scope(run, agent)
        except InvalidArgument:
            assert not valid
            return
        assert valid
        content = json.dumps([run, agent]).encode()
        handle = scope.spill(content, source_tool="t").handle
        assert scope.read_handle(handle).data == content
        if _valid_id(key, 512):
            scope.scratch_write(key, content)
            assert scope.scratch_read(key) == content
        else:
            with pytest.raises(InvalidArgument):
                scope.scratch_write(key, content)
        entry = store.index.lookup(run, agent, "handle", handle, store.now())
        blob = Path(store.blobs.path(run, agent, entry.blob))
        assert blob.is_file() and _inside(root, [blob])
        # the directory belongs to this (run, agent) alone
        marker = store.blobs.agent_dir(run, agent) / "owner"
        if marker.exists():
            assert marker.read_text("utf-8", "surrogatepass") == json.dumps([run, agent])
        else:
            marker.write_text(json.dumps([run, agent]), "utf-8", "surrogatepass")


# -- numbers ------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def numbers(tmp_path_factory):
    data = os.urandom(SIZE)
    with ScratchStore(tmp_path_factory.mktemp("numbers"), frame_bytes=4096) as store:
        scope = store.scope("run", "agent")
        yield store, scope, scope.spill(data, source_tool="t").handle, data


def _case_id(value) -> str:
    return repr(value)[:30]


@pytest.mark.parametrize(("value", "ok"), NUMBER_CASES["offset"], ids=_case_id)
def test_offset(numbers, value, ok):
    _, scope, handle, data = numbers
    if not ok:
        with pytest.raises(InvalidArgument, match="offset"):
            scope.read_handle(handle, value, 100)
        with pytest.raises(InvalidArgument, match="offset"):
            scope.read_handle(handle, value, match=b"x")
        return
    sl = scope.read_handle(handle, value, 100)
    assert sl.data == data[value : value + 100]
    assert sl.next_offset == (value + 100 if value + 100 < SIZE else None)


@pytest.mark.parametrize(("value", "ok"), NUMBER_CASES["length"], ids=_case_id)
def test_length(numbers, value, ok):
    _, scope, handle, data = numbers
    if not ok:
        with pytest.raises(InvalidArgument, match="length"):
            scope.read_handle(handle, 10, value)
        return
    want = 4096 if value is None else min(value, 65536)
    assert scope.read_handle(handle, 10, value).data == data[10 : 10 + want]


@pytest.mark.parametrize(("value", "ok"), NUMBER_CASES["ttl"], ids=_case_id)
def test_ttl(numbers, tmp_path, value, ok):
    store, scope, _, _ = numbers
    if not ok:
        with pytest.raises(InvalidArgument, match="ttl"):
            scope.spill(b"x", ttl=value)
        with pytest.raises(InvalidArgument, match="ttl"):
            scope.scratch_write("k", b"x", ttl=value)
        if value is not None:
            with pytest.raises(InvalidArgument, match="ttl"):
                ScratchStore(tmp_path, default_ttl=value)
        return
    entry = scope.scratch_write("k", b"x", ttl=value)
    want = store.default_ttl if value is None else value
    assert math.isclose(entry.expires_at - entry.created_at, want, rel_tol=1e-9, abs_tol=1e-6)


@pytest.mark.parametrize(("value", "ok"), NUMBER_CASES["context"], ids=_case_id)
def test_context(numbers, value, ok):
    _, scope, handle, data = numbers
    needle = data[5000:5004]
    if not ok:
        with pytest.raises(InvalidArgument, match="context"):
            scope.read_handle(handle, match=needle, context=value)
        return
    (w,) = scope.read_handle(handle, 4990, match=needle, context=value, max_matches=1).windows
    context = 200 if value is None else value  # the documented default
    assert w.match_offset == data.find(needle, 4990)
    assert w.offset == max(0, w.match_offset - context)
    assert w.data == data[w.offset : w.match_offset + 4 + context]


@pytest.mark.parametrize(("value", "ok"), NUMBER_CASES["max_matches"], ids=_case_id)
def test_max_matches(numbers, value, ok):
    _, scope, handle, data = numbers
    needle = data[:1]
    if not ok:
        with pytest.raises(InvalidArgument, match="max_matches"):
            scope.read_handle(handle, match=needle, max_matches=value)
        return
    m = scope.read_handle(handle, match=needle, context=0, max_matches=value)
    want, at = [], data.find(needle)
    while at >= 0 and len(want) < (20 if value is None else value):  # 20: the documented default
        want.append(at)
        at = data.find(needle, at + 1)
    assert [h.offset for w in m.windows for h in w.matches] == want


@given(offset=st.integers(-(2**70), 2**70) | st.integers(-5, SIZE + 5),
       length=st.integers(-(2**70), 2**70) | st.integers(-5, 70_000))
def test_any_integer_range_is_the_slice_or_invalid(numbers, offset, length):
    _, scope, handle, data = numbers
    if offset < 0 or offset > SIZE or length < 1:
        with pytest.raises(InvalidArgument):
            scope.read_handle(handle, offset, length)
        return
    assert scope.read_handle(handle, offset, length).data == data[offset : offset + min(length, 65536)]


# -- damaged blobs ------------------------------------------------------------------------------------------------

@pytest.fixture
def damage_store(tmp_path):
    with ScratchStore(tmp_path / "damage", frame_bytes=4096) as store:
        yield store


def _damage(store, scope, kind, damage):
    """Store the damage target under a handle (kind "handle") or a key, plus two healthy entries; damage it."""
    data = damage_target()
    if kind == "handle":
        name = scope.spill(data, source_tool="t").handle
    else:
        name = "victim"
        scope.scratch_write(name, data)
    entry = store.index.lookup(scope.run_id, scope.agent_id, kind, name, store.now())
    path = Path(store.blobs.path(scope.run_id, scope.agent_id, entry.blob))
    path.write_bytes(damage(path.read_bytes()))
    return name, data


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_damaged_blob_gives_corrupt_blob_naming_the_handle(damage_store, damage):
    scope = damage_store.scope("run", "agent")
    healthy = scope.spill(damage_target()[::-1], source_tool="t")
    scope.scratch_write("healthy", b"fine" * 5000)
    handle, data = _damage(damage_store, scope, "handle", damage)
    _damage(damage_store, scope, "scratch", damage)
    tracemalloc.start()
    try:
        answers = []
        for offset, length in [(0, 65536), (40_000, 100), (len(data) - 10, 10), (65536, 65536)]:
            try:
                got = scope.read_handle(handle, offset, length).data
            except CorruptBlob as exc:
                assert handle in str(exc)  # noqa: PT017 - some reads may legitimately succeed
                answers.append("corrupt")
            else:
                assert got == data[offset : offset + length]  # a range that misses the damage: the right bytes
                answers.append("right")
        with pytest.raises(CorruptBlob, match=handle):  # a needle that is nowhere: the search reads every frame
            scope.read_handle(handle, match=b"not in the content", max_matches=1000)
        with pytest.raises(CorruptBlob, match="victim"):
            scope.scratch_read("victim")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "corrupt" in answers
    assert peak < 16 * 2**20  # no allocation sized by a lying header or table
    assert scope.read_handle(healthy.handle, 0, 65536).data == damage_target()[::-1][:65536]
    assert scope.scratch_read("healthy") == b"fine" * 5000


@settings(max_examples=60)
@given(position=st.integers(0, 10**6), bit=st.integers(0, 7), offset=st.integers(0, SIZE), length=st.integers(1, 9000))
def test_any_flipped_bit_gives_corrupt_blob_or_the_right_bytes(tmp_path_factory, position, bit, offset, length):
    with ScratchStore(tmp_path_factory.getbasetemp() / "bitflips", frame_bytes=4096) as store:
        scope = store.scope("run", "agent")

        def flip(raw: bytes) -> bytes:
            at = position % len(raw)
            return raw[:at] + bytes([raw[at] ^ (1 << bit)]) + raw[at + 1 :]

        handle, data = _damage(store, scope, "handle", flip)
        offset %= len(data) + 1
        try:
            got = scope.read_handle(handle, offset, length).data
        except CorruptBlob as exc:
            assert handle in str(exc)  # noqa: PT017 - or the right bytes
        else:
            assert got == data[offset : offset + length]
        try:  # the whole content: damage is noticed, or the bit was one zstd ignores (a reserved header bit)
            whole = b"".join(scope.read_handle(handle, o, 65536).data for o in range(0, len(data), 65536))
        except CorruptBlob as exc:
            assert handle in str(exc)  # noqa: PT017 - or the right bytes
        else:
            assert whole == data


# -- a full disk and a file-size limit ----------------------------------------------------------------------------

FSIZE_CHILD = textwrap.dedent("""
    import json, logging, os, resource, sys
    from scratchfs import Observation, ScratchStore, StorageError
    root, limit = sys.argv[1], int(sys.argv[2])
    records = []
    class Keep(logging.Handler):
        def emit(self, record):
            records.append((record.levelname, record.exc_info is not None))
    logging.getLogger("scratchfs").addHandler(Keep())
    out = {}
    with ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        big = os.urandom(3 * 2**20)
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
        try:
            scope.spill(big, source_tool="t")
        except StorageError as exc:
            out["spill"] = ["StorageError", exc.errno, str(exc)]
        try:
            scope.scratch_write("note", big)
        except StorageError as exc:
            out["scratch_write"] = ["StorageError", exc.errno, str(exc)]
        obs = Observation(tool="sql.query", content=big, result_class="query")
        back = scope.offload(obs)
        out["offload_notice"] = back.refused is not None and json.loads(back.content)["stored"] is False
        out["logs"] = records
        out["entries_while_full"] = len(store.list_entries_for_run("run"))
        out["read_while_full"] = store.scope("run", "agent").scratch_read("note").decode()
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
        stub = scope.spill(big, source_tool="t")
        out["after"] = scope.read_handle(stub.handle, 2**20, 100).data == big[2**20 : 2**20 + 100]
    print(json.dumps(out))
""")


def _files(root) -> list[str]:
    return sorted(p for p in _walk(root / "runs") if os.path.isfile(p))


def test_file_size_limit_during_a_spill(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        kept = scope.spill(b"kept " * 10_000, source_tool="t").handle
        scope.scratch_write("note", "the old note")
        before = _files(root)
    p = subprocess.run([sys.executable, "-c", FSIZE_CHILD, str(root), str(2**20)], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    out = json.loads(p.stdout)
    for verb in ("spill", "scratch_write"):
        _kind, err, message = out[verb]
        assert err == errno.EFBIG and "file-size limit" in message
    assert out["offload_notice"] is True  # past passthrough_max_bytes: a notice, never the whole result
    assert out["logs"] == [["ERROR", False]]  # logged at ERROR level, one line: an expected refusal, no traceback
    assert out["entries_while_full"] == 2
    assert out["read_while_full"] == "the old note"
    assert out["after"] is True
    with ScratchStore(root) as store:
        assert store.integrity_check() == "ok"
        assert len(store.list_entries_for_run("run")) == 3  # the two old entries and the spill made after
        assert len(_files(root)) == len(before) + 1  # nothing left by the refused writes
        assert store.scope("run", "agent").read_handle(kept).data[:10] == b"kept kept "


def test_disk_full_during_a_spill(store, monkeypatch, caplog):
    from scratchfs.engine import seekable

    scope = store.scope("run", "agent")
    kept = scope.spill(b"kept " * 10_000, source_tool="t").handle
    before = _files(store.root)
    real_write = seekable._write_all
    written = [0]

    def full_disk(fd, buffers):  # the file system accepts 100 KB, then ENOSPC (however the writes are grouped)
        size = sum(len(b) for b in buffers)
        if written[0] + size > 100_000:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(fd, buffers)
        written[0] += size

    monkeypatch.setattr(seekable, "_write_all", full_disk)
    big = os.urandom(2**20)
    with pytest.raises(StorageError, match="disk is full") as info:
        scope.spill(big, source_tool="t")
    assert info.value.errno == errno.ENOSPC
    written[0] = 10**9
    obs = Observation(tool="browser.get", content=big, result_class="browser")
    with caplog.at_level(logging.ERROR, logger="scratchfs"):
        out = scope.offload(obs)  # 1 MiB, past passthrough_max_bytes: a notice, not the whole result
    assert out.refused is not None and json.loads(out.content)["stored"] is False
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert record.exc_info is None and "(storage: cannot write the blob: the disk is full)" in record.getMessage()
    assert record.getMessage().endswith("passing a preview and a notice")
    assert len(store.list_entries_for_run("run")) == 1
    assert _files(store.root) == before
    assert scope.read_handle(kept).data[:5] == b"kept "
    monkeypatch.setattr(seekable, "_write_all", real_write)  # space is back
    stub = scope.spill(big, source_tool="t")
    assert scope.read_handle(stub.handle, 500_000, 10).data == big[500_000:500_010]


# -- time zones ---------------------------------------------------------------------------------------------------

TZ_CHILD = textwrap.dedent("""
    import json, sys, time
    from scratchfs import NotFound, ScratchStore
    root, phase = sys.argv[1], sys.argv[2]
    out = {"gmtoff": time.localtime().tm_gmtoff, "now": time.time()}
    with ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        if phase == "write":
            out["short"] = scope.spill(b"short-lived" * 100, source_tool="t", ttl=2.0).handle
            out["long"] = scope.spill(b"long-lived" * 100, source_tool="t").handle
            scope.scratch_write("note", b"short note", ttl=2.0)
            out["entries"] = [[e.created_at, e.expires_at] for e in store.list_entries_for_run("run")]
        else:
            handles = json.loads(sys.argv[3])
            def live(call):
                try:
                    call()
                    return True
                except NotFound:
                    return False
            out["short"] = live(lambda: scope.read_handle(handles["short"]))
            out["long"] = live(lambda: scope.read_handle(handles["long"]))
            out["note"] = live(lambda: scope.scratch_read("note"))
            out["swept"] = store.sweep().rows_deleted
    print(json.dumps(out))
""")


def _in_tz(tz: str, *args: str) -> dict:
    env = dict(os.environ, TZ=tz)
    p = subprocess.run([sys.executable, "-c", TZ_CHILD, *args], capture_output=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    return json.loads(p.stdout)


def test_expiry_does_not_depend_on_the_time_zone(tmp_path):
    root = str(tmp_path / "root")
    # POSIX TZ strings: UTC+14, UTC-12 and UTC+5:45, no time zone database needed
    w = _in_tz("KIR-14", root, "write")
    assert w["gmtoff"] == 14 * 3600
    for created, expires in w["entries"]:
        assert abs(created - w["now"]) < 30  # epoch seconds, not local time
        assert any(math.isclose(expires - created, ttl, abs_tol=1e-6) for ttl in (2.0, 3600.0))
    handles = json.dumps({"short": w["short"], "long": w["long"]})
    r = _in_tz("BAK+12", root, "read", handles)
    assert r["gmtoff"] == -12 * 3600
    if r["now"] < min(e for _, e in w["entries"]):
        assert (r["short"], r["long"], r["note"], r["swept"]) == (True, True, True, 0)
    time.sleep(max(0.0, min(e for _, e in w["entries"]) - time.time()) + 0.1)
    s = _in_tz("NPT-5:45", root, "read", handles)
    assert s["gmtoff"] == 5 * 3600 + 45 * 60
    # the reads that found them Expired removed them (issue 13: a clock stepping back cannot revive them)
    assert (s["short"], s["long"], s["note"], s["swept"]) == (False, True, False, 0)


def test_default_ttl_none_means_the_documented_default(tmp_path):
    with ScratchStore(tmp_path / "root", default_ttl=None) as store:
        scope = store.scope("run", "agent")
        entry = scope.scratch_write("k", b"v")
        assert entry.expires_at - entry.created_at == 3600.0
        assert scope.scratch_read("k") == b"v"
