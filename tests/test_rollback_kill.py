"""A refused write killed in its roll-back (an attacker's trial of ``SegmentWriter.roll_back``): SIGKILL after the
record is marked dead and before it is cut off (``ftruncate``). Nothing acknowledged is lost or read wrong, the
refused value is not listed, and a rebuild of the index from the segments does not bring it back. The kill harness
(``reliability/``) refuses no write, so this crash point was never hit before."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from scratchfs import NotFound, ScratchStore
from scratchfs.api.rebuild import open_for_rebuild, rebuild_index

CHILD = textwrap.dedent("""
    import base64, os, signal, sys, types
    from scratchfs import QuotaExceeded, ScratchStore
    from scratchfs.engine import segment_writer

    with ScratchStore(sys.argv[1], run_quota_bytes=20 * 1024) as store:
        scope = store.scope("q", "a")
        scope.scratch_write("small", b"fits")
        print(scope.spill(b"acknowledged spill " * 40).handle, flush=True)
        real = segment_writer.os

        def cut(fd, length):  # the record is marked dead; die before it is cut off
            os.kill(os.getpid(), signal.SIGKILL)

        segment_writer.os = types.SimpleNamespace(**{**vars(real), "ftruncate": cut})
        try:
            scope.scratch_write("big", base64.b64encode(os.urandom(30_000)))
        except QuotaExceeded:
            print("refused, not killed", flush=True)
""")


@pytest.mark.parametrize("rebuild", [False, True])
def test_a_refused_write_killed_between_its_dead_mark_and_its_cut_loses_nothing(tmp_path, rebuild):
    child = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, timeout=60)
    assert child.returncode == -signal.SIGKILL, (child.returncode, child.stdout, child.stderr)
    handle = child.stdout.decode().split()[0]
    (segment,) = (tmp_path / "runs").rglob("*.zseg")
    assert segment.stat().st_size > 30_000  # the record was not cut: the kill came first
    if rebuild:
        for name in os.listdir(tmp_path):
            if name.startswith("index.sqlite"):
                os.unlink(tmp_path / name)
        with open_for_rebuild(tmp_path) as store:
            assert rebuild_index(store).restored == 2  # "small" and the spill; the dead record is stepped over
    with ScratchStore(tmp_path, run_quota_bytes=20 * 1024) as store:
        scope = store.scope("q", "a")
        assert scope.scratch_read("small") == b"fits"
        assert scope.read_handle(handle, 0, 760).data == b"acknowledged spill " * 40
        with pytest.raises(NotFound):
            scope.scratch_read("big")
        assert sorted(e.key for e in scope.list_entries()) == sorted(["small", handle])
        scope.scratch_write("after", b"written after the crash")
        assert scope.scratch_read("after") == b"written after the crash"
