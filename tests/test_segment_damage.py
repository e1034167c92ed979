"""A segment file damaged in place (a record header overwritten): the sweep must not take it for a dead segment and
remove it with the live entries after the damage (scratchfs.engine.segments.scan resynchronises on the next record
header). Before: 4 bytes of zeros over the first record's magic made sweep(full=True) remove the segment, and three
entries that read fine became NotFound."""

from __future__ import annotations

import os
import struct

import pytest

from scratchfs import ScratchStore
from scratchfs.engine import segments


def _store_with_segment(root, n: int = 4) -> tuple[list[str], list[bytes], str]:
    contents = [b"entry %d\n" % i * (50 + 40 * i) for i in range(n)]
    with ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        handles = [scope.spill(data, source_tool="t").handle for data in contents]
    (seg,) = [os.path.join(d, f) for d, _, names in os.walk(root / "runs") for f in names if f.endswith(".zseg")]
    return handles, contents, seg


def _offsets(seg: str) -> list[int]:
    with open(seg, "rb") as f:
        data = f.read()
    records = segments.scan(lambda n, at: data[at:at + n], len(data))[0]
    return [r.offset - segments.RECORD_BYTES for r in records]


@pytest.mark.parametrize(("record", "field"), [(0, "magic"), (1, "magic"), (0, "length"), (1, "length"),
                                               (1, "zeros")])
def test_a_damaged_record_header_does_not_make_the_sweep_remove_the_live_entries_after_it(tmp_path, record, field):
    root = tmp_path / "root"
    handles, contents, seg = _store_with_segment(root)
    at = _offsets(seg)[record]
    with ScratchStore(root) as store:  # the entries before the damage deleted: none of them keeps the segment
        for handle in handles[:record]:
            assert store.scope("run", "agent").delete_entry("handle", handle)
    with open(seg, "r+b") as f:
        if field == "magic":
            f.seek(at)
            f.write(b"\0\0\0\0")
        elif field == "length":
            f.seek(at + 32)
            f.write(struct.pack("<Q", 1 << 39))
        else:
            f.seek(at)
            f.write(b"\0" * segments.RECORD_BYTES)
    with ScratchStore(root, orphan_grace=0) as store:
        store.sweep(full=True)
        assert os.path.exists(seg)  # (removed before: its scan stopped at the damage and found no live record)
        scope = store.scope("run", "agent")
        for i, (handle, data) in enumerate(zip(handles, contents, strict=True)):
            if i > record:
                assert b"".join(scope.iter_content("handle", handle)) == data


def test_a_torn_tail_alone_still_leaves_a_dead_segment_to_the_sweep(tmp_path):
    root = tmp_path / "root"
    handles, _contents, seg = _store_with_segment(root, 2)
    with open(seg, "ab") as f:  # a write killed mid-way: a header and part of its blob
        f.write(segments.record_header("a" * 24, 5000) + b"\x28\xb5\x2f\xfd" + b"x" * 100)
    with ScratchStore(root, orphan_grace=0) as store:
        for handle in handles:
            assert store.scope("run", "agent").delete_entry("handle", handle)
        store.sweep(full=True)
    assert not os.path.exists(seg)


def test_scan_resynchronises_past_garbage_between_records():
    blob = b"\x28\xb5\x2f\xfd" + b"z" * 60
    one = segments.record_header("b" * 24, len(blob)) + blob
    data = one + b"\x5d\x2a\x4d\x18garbage that is no header" + one
    records, _end, problem = segments.scan(lambda n, at: data[at:at + n], len(data))
    assert [r.offset for r in records] == [segments.RECORD_BYTES, len(data) - len(blob)]
    assert problem is not None
