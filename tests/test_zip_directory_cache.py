"""A read of a zip member's last lines by ``end=`` alone (``read_handle(line=-N, end=E)``) finds the member from the
zip's central directory (``api.bounds.member_start``): every such read walked the whole directory again (0.49 s a
read on a 60,000-member zip: ``python bench/zip_tail_reads.py``). The directory is now kept per entry
(``api.zip_directory``): the reads of one entry's members walk it once; another entry of the same bytes, or an
entry gone, is never served from it; and a directory heavier than the cache's bound is not kept."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from scratchfs import InvalidArgument, NotFound
from scratchfs.api import archive
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.caches import LRU

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def _zip(count: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as made:
        for i in range(count):
            made.writestr(f"d/f{i}.txt", f"line {i}\nlast {i}\n")
    return out.getvalue()


def _spans(raw: bytes) -> list[tuple[str, int, int]]:
    """Each member's (name, data offset, data end), as Python's zipfile reads them."""
    with zipfile.ZipFile(io.BytesIO(raw)) as made:
        out = []
        for info in made.infolist():
            local = raw[info.header_offset : info.header_offset + 30]
            start = info.header_offset + 30 + \
                int.from_bytes(local[26:28], "little") + int.from_bytes(local[28:30], "little")
            out.append((info.filename, start, start + info.compress_size))
        return out


@pytest.fixture
def parses(monkeypatch) -> list[int]:
    """Counts the zip directory walks (each looks for the end record first)."""
    counted: list[int] = []
    walk = archive._end_record

    def counting(*args):
        counted.append(1)
        return walk(*args)

    monkeypatch.setattr(archive, "_end_record", counting)
    return counted


@pytest.mark.parametrize("raw", [_zip(300), (TOOLS / "zip-0-logs.zip").read_bytes()], ids=["made", "zip-0-logs"])
def test_the_tail_reads_of_one_zip_s_members_walk_its_directory_once(scratch_scope, parses, raw):
    handle = scratch_scope.spill(raw, source_tool="zip").handle
    spans = _spans(raw)
    for _, start, stop in spans[::-1][:25]:
        page = scratch_scope.read_handle(handle, line=-1, end=stop)
        assert page.offset >= start and page.data == raw[start:stop].splitlines(keepends=True)[-1]
    assert len(parses) == 1


def test_another_entry_of_the_same_bytes_walks_its_own_and_a_gone_one_is_refused(scratch_scope, parses):
    raw = _zip(40)
    first, second = (scratch_scope.spill(raw, source_tool="zip").handle for _ in range(2))
    _, _, stop = _spans(raw)[-1]
    for handle in (first, second, first, second):
        assert scratch_scope.read_handle(handle, line=-1, end=stop).data == b"last 39\n"
    assert len(parses) == 2
    assert scratch_scope.delete_entry("handle", first)
    with pytest.raises(NotFound):
        scratch_scope.read_handle(first, line=-1, end=stop)


def test_a_refusal_kept_directory_names_the_members_around_the_end(scratch_scope, parses):
    """An ``end=`` in a local header: the members before and after it are named as their central headers say,
    the directory walked once for two refusals."""
    raw = _zip(50)
    handle = scratch_scope.spill(raw, source_tool="zip").handle
    spans = _spans(raw)
    tools = ScratchTools(scratch_scope)
    for index in (10, 30):
        with pytest.raises(InvalidArgument) as refused:
            tools.call("read_handle", {"handle": handle, "line": -3, "end": spans[index][1] - 3})
        words = str(refused.value)
        for name, start, stop in spans[index - 1 : index + 1]:
            assert f"{name!r}, is bytes {start}-{stop}" in words
    assert len(parses) == 1


def test_a_directory_heavier_than_the_cache_s_bound_is_walked_each_time(scratch_scope, parses, monkeypatch):
    """The bound in bytes (24 a member): a zip of 300 members kept under a bound of 7,199 bytes is not kept."""
    from scratchfs.api import zip_directory  # (here: the module came with the cache)

    weigh = zip_directory.ZipDirectory.weight
    monkeypatch.setattr(zip_directory, "_DIRECTORIES", LRU(16, max_weight=7_199, weigh=weigh, max_item_weight=7_199))
    raw = _zip(300)
    handle = scratch_scope.spill(raw, source_tool="zip").handle
    for _, _, stop in _spans(raw)[-3:]:
        scratch_scope.read_handle(handle, line=-1, end=stop)
    assert len(parses) == 3
    assert zip_directory.ZipDirectory.weight(zip_directory.zip_directory(lambda at, n: raw[at : at + n], len(raw))) \
        == 7_200
