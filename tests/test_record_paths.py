"""A segment record's path in a report, ``<segment path> (bytes <offset>+<length>)``, is written by
:func:`scratchfs.engine.segments.record_path` and read back by :func:`~scratchfs.engine.segments.file_path` (exported
through :mod:`scratchfs.engine.backends`): fsck's loose modes and the adoption age each cut it at the first ``" (bytes
"``, so a root whose path held those words had every path cut there -- an incomplete write left open to other users
was reported twice (the loose mode was not known as the same file)."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.engine.backends import file_path
from scratchfs.engine.segments import record_path


@given(st.text(), st.integers(0, 2**63), st.integers(0, 2**63))
def test_file_path_reads_back_the_path_record_path_wrote(path, offset, length):
    assert file_path(record_path(path, offset, length)) == path


def test_an_incomplete_write_left_open_is_told_once_under_a_root_whose_path_says_bytes(tmp_path):
    root = tmp_path / "s (bytes 1+2) root"
    with ScratchStore(root, index_write_behind=False) as store:
        store.scope("run", "agent").spill(os.urandom(80_000), source_tool="t")
    cut = root / "runs" / "run" / "agent" / ("a" * 24 + ".zst")
    cut.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 100)  # no seek table: an abandoned write
    os.chmod(cut, 0o644)
    with ScratchStore(root) as store:
        report = fsck(store)
    assert [(p.kind, os.path.basename(p.path)) for p in report.problems] == [("incomplete", cut.name)], report.problems
