"""A whole content for a program: ``Scope.iter_content`` and ``scratchfs read-handle --all`` / ``scratch-read``.

A model reads a spilled result in budgeted pieces; a script or a person at a shell wants it whole, whatever its size
(a read is capped at 64 KiB), in constant memory."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import CorruptBlob, InvalidArgument, NotFound, ScratchStore
from scratchfs.cli import main
from tests.conftest import FIXTURE_FILES


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=3000), repeat=st.integers(min_value=1, max_value=60))
def test_the_chunks_of_a_content_are_its_bytes(small_frames_store, data, repeat):
    """Against the plain answer: the content written, over many 4 KiB frames, in a segment or a file of its own."""
    content = data * repeat
    scope = small_frames_store.scope("whole", "agent-1")
    handle = scope.spill(content, source_tool="t").handle
    chunks = list(scope.iter_content("handle", handle))
    assert b"".join(chunks) == content
    assert all(len(c) <= 4096 for c in chunks) and all(chunks)
    scope.scratch_write("v", content)
    assert b"".join(scope.iter_content("scratch", "v")) == content


def test_a_delete_or_overwrite_after_the_first_chunk_changes_no_byte_given(small_frames_store, fixture_data):
    scope = small_frames_store.scope("r", "a")
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    handle = scope.spill(data, source_tool="grep").handle
    scope.scratch_write("plan", data)
    chunks, values = scope.iter_content("handle", handle), scope.iter_content("scratch", "plan")
    first, first_value = next(chunks), next(values)
    assert scope.delete_entry("handle", handle)
    scope.scratch_write("plan", b"another value")
    small_frames_store.sweep()
    assert first + b"".join(chunks) == data
    assert first_value + b"".join(values) == data
    with pytest.raises(NotFound):
        scope.iter_content("handle", handle)  # looked up at the call, before the first chunk


def test_a_damaged_frame_is_a_corrupt_blob_after_the_sound_chunks(small_frames_store, fixture_data):
    scope = small_frames_store.scope("r", "a")
    data = fixture_data["query-packages-by-month.csv"]
    stub = scope.spill(data, source_tool="sql")
    (entry,) = [e for e in scope.list_entries() if e.key == stub.handle]
    path = Path(small_frames_store.blobs.locate("r", "a", entry.blob))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # a frame in the middle
    path.write_bytes(bytes(raw))
    got = bytearray()

    def read_all() -> None:
        for chunk in scope.iter_content("handle", stub.handle):
            got.extend(chunk)

    with pytest.raises(CorruptBlob) as caught:
        read_all()
    assert stub.handle in str(caught.value)
    assert 0 < len(got) < len(data) and data.startswith(bytes(got))


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_an_iterator_dropped_before_or_after_its_first_chunk_leaves_no_descriptor_open(small_frames_store,
                                                                                       fixture_data):
    """Before: the blob was opened at the call but closed only by the generator's ``with``, which a generator never
    started never enters: every ``iter_content`` dropped unread kept one descriptor open for good."""
    scope = small_frames_store.scope("r", "a")
    own = scope.spill(fixture_data["api-ec2-service-model.json"], source_tool="t").handle  # a file of its own
    scope.scratch_write("small", b"a small value\n" * 100)  # a slice of a segment
    for kind, key in (("handle", own), ("scratch", "small")):
        assert b"".join(scope.iter_content(kind, key))  # (the store's own descriptors opened once)
    gc.collect()
    before = _open_fds()
    for _ in range(20):
        for kind, key in (("handle", own), ("scratch", "small")):
            unread = scope.iter_content(kind, key)
            del unread
            half = scope.iter_content(kind, key)
            assert next(half)
            del half
            with contextlib.closing(scope.iter_content(kind, key)) as closed:
                assert next(closed)
    gc.collect()
    assert _open_fds() == before


@pytest.mark.parametrize(("kind", "key", "error"), [
    ("blob", "h_aaaaaaaaaaaaaaaaaaaaaaaa", InvalidArgument), ("handle", "not-a-handle", InvalidArgument),
    ("handle", "h_aaaaaaaaaaaaaaaaaaaaaaaa", NotFound), ("scratch", "", InvalidArgument),
    ("scratch", "never-written", NotFound)])
def test_a_bad_kind_or_key_is_one_typed_error(store, kind, key, error):
    with pytest.raises(error):
        store.scope("r", "a").iter_content(kind, key)


@pytest.fixture
def cli(tmp_path, monkeypatch):
    root = tmp_path / "root"
    ScratchStore(root).close()
    for name, value in (("ROOT", str(root)), ("RUN_ID", "run-1"), ("AGENT_ID", "agent-1")):
        monkeypatch.setenv(f"SCRATCHFS_{name}", value)
    runner = CliRunner()
    return lambda *args, input=None: runner.invoke(main, list(args), input=input, catch_exceptions=False)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_read_handle_all_writes_every_byte_of_a_real_output(cli, path):
    """Each fixture is 512 KiB: eight times what one read may give (before: 65,536 bytes a call at most)."""
    stub = json.loads(cli("spill", str(path), "--tool", "t").stdout)
    result = cli("read-handle", stub["handle"], "--all")
    assert result.exit_code == 0 and result.stdout_bytes == path.read_bytes() and result.stderr == ""
    assert cli("scratch-write", "copy", str(path)).exit_code == 0
    assert cli("scratch-read", "copy").stdout_bytes == path.read_bytes()


@pytest.mark.parametrize("other", [["--offset", "3"], ["--lines", "2"], ["--json"], ["--jq", "."],
                                   ["--match", "x"]])
def test_read_handle_all_takes_no_other_read_option(cli, other):
    stub = json.loads(cli("spill", "-", "--tool", "t", input=b"line\n" * 5000).stdout)
    result = cli("read-handle", stub["handle"], "--all", *other)
    assert result.exit_code == 2 and result.stdout_bytes == b""
    assert result.stderr.count("\n") == 1 and "--all" in result.stderr


def test_a_200_mib_content_is_read_whole_in_flat_memory(store):
    """Measured: the peak of the Python heap while every chunk of a 200 MiB spill is read stays under 16 MiB (the
    compressed batch read at once, 4 MiB, and the frames decompressed ahead)."""
    line = b"".join(b"%08d some log text that compresses but not to nothing %x\n" % (i, i * 7919) for i in range(2048))
    total = 200 * 1024 * 1024
    scope = store.scope("r", "a")
    handle = scope.spill((line for _ in range(total // len(line) + 1)), source_tool="t").handle
    expected = hashlib.sha256()
    for _ in range(total // len(line) + 1):
        expected.update(line)
    got, size = hashlib.sha256(), 0
    tracemalloc.start()
    try:
        for chunk in scope.iter_content("handle", handle):
            got.update(chunk)
            size += len(chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert size == (total // len(line) + 1) * len(line) and got.digest() == expected.digest()
    assert peak < 16 * 1024 * 1024, peak


def test_read_handle_all_of_a_damaged_blob_writes_only_sound_bytes_and_one_line(cli, tmp_path):
    data = FIXTURE_FILES[0].read_bytes()
    stub = json.loads(cli("spill", str(FIXTURE_FILES[0]), "--tool", "t").stdout)
    (path,) = list((tmp_path / "root" / "runs").rglob("*.zst"))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    result = cli("read-handle", stub["handle"], "--all")
    assert result.exit_code == 3 and result.stderr.count("\n") == 1 and stub["handle"] in result.stderr
    assert data.startswith(result.stdout_bytes) and len(result.stdout_bytes) < len(data)
