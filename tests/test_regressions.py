"""Regressions found by review: each test failed before its fix."""

from __future__ import annotations

import gc
import json
import os
import threading

import pytest

from scratchfs import Expired, NotFound, ScratchStore, StoreBusy
from scratchfs.foundation.limits import MAX_STUB_BYTES


def test_a_match_longer_than_the_read_cap_is_shown_cut_and_passed(scope):
    data = b"a\n" + b"x" * 100_000 + b"\nb\n" + b"x" * 50 + b"\n"
    handle = scope.spill(data, source_tool="t").handle
    first = scope.read_handle(handle, pattern=r"^x+$")
    (window,) = first.windows
    assert (window.matches[0].offset, window.matches[0].length) == (2, 100_000)
    assert window.data == data[window.offset : window.offset + 65536]
    assert first.next_offset == 100_005  # the search moves on instead of returning the same call forever
    second = scope.read_handle(handle, first.next_offset, pattern=r"^x+$")
    assert [h.offset for w in second.windows for h in w.matches] == [100_005]
    assert second.next_offset is None


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_threads_that_end_do_not_pile_up_descriptors(store):
    def work():
        scope = store.scope("r", "a")
        scope.scratch_write("k", b"v")
        scope.scratch_read("k")

    def run(count: int) -> None:
        for _ in range(count):
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()
        gc.collect()

    run(20)
    before = _open_descriptors()
    run(200)
    assert _open_descriptors() - before < 100  # was 3 descriptors per thread: 600


def test_a_failed_refresh_does_not_leak_the_blob_descriptor(tmp_path, monkeypatch):
    with ScratchStore(tmp_path, refresh_on_read=True) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"x" * 100, source_tool="t").handle

        def busy(*args, **kwargs):
            raise StoreBusy("busy")

        monkeypatch.setattr(store.index, "touch", busy)
        before = _open_descriptors()
        for _ in range(30):
            with pytest.raises(StoreBusy):
                scope.read_handle(handle)
        assert _open_descriptors() <= before + 1


def test_an_old_blob_that_cannot_be_removed_does_not_fail_the_write(store, monkeypatch, caplog):
    scope = store.scope("r", "a")
    scope.scratch_write("k", b"first")
    real_unlink = os.unlink

    def refuse(path, *args, **kwargs):
        if str(path).endswith(".zst"):
            raise PermissionError(13, "Permission denied")
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refuse)
    scope.scratch_write("k", b"second")  # the new value is committed; the old file is left to a sweep
    assert scope.scratch_read("k") == b"second"
    assert scope.scratch_delete("k") is True
    assert "cannot remove" in caplog.text


def test_stub_fits_even_when_the_shape_is_made_of_control_characters(scope):
    document = json.dumps({"\x01" * 30 + str(i): i for i in range(40)}).encode()
    stub = scope.spill(document, source_tool="t" * 200)
    assert len(stub.to_json().encode()) <= MAX_STUB_BYTES


def test_expired_is_said_only_within_the_last_hour(store, clock):
    scope = store.scope("r", "a")
    scope.scratch_write("k", b"v", ttl=10)
    clock.advance(11)
    with pytest.raises(Expired):
        scope.scratch_read("k")
    clock.advance(3600)  # not swept yet, but expired more than an hour ago: nothing to tell
    with pytest.raises(NotFound) as caught:
        scope.scratch_read("k")
    assert type(caught.value) is NotFound
