"""The line index of UTF-16 text (:mod:`scratchfs.api.wide_index`): every line read and line-numbered search of it
scanned its newline code units from byte 0 and kept each line's start (about 0.5 s and 98-115 MiB of RSS a read
of 32 MiB, and content past 64 MiB refused); its per-frame counts are now kept, keyed by the entry's blob. A line
read across frames (odd-sized ones too: a code unit straddling two frames) is still Python's decode's line, and the
cache never serves an entry written again, deleted or expired."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api import wide_index
from scratchfs.api.contract import ScratchTools
from scratchfs.api.entries import reading
from scratchfs.api.wide_index import wide_text
from scratchfs.engine.caches import LRU
from scratchfs.foundation.errors import Deleted, Expired

_CHARS = st.sampled_from(["a", " ", "\r", "\n", "\n", "上", "海", "\u0d0a", "\u0a0d", "\u0a00", "😀", "\U0001000a"])
_CODEC = st.sampled_from([("utf-16-le", "utf-16le"), ("utf-16-be", "utf-16be")])


@pytest.fixture
def counted(monkeypatch):
    """A fresh cache, and how many times an index was counted (a scan of the whole content)."""
    monkeypatch.setattr(wide_index, "_INDEXES", LRU(8))
    calls = []
    count = wide_index._count
    monkeypatch.setattr(wide_index, "_count", lambda *a: calls.append(1) or count(*a))
    return calls


@pytest.mark.parametrize("frame_bytes", [4096, 4097])
def test_lines_across_frames_are_the_decoded_ones_and_counted_once(scratch_store_factory, counted, frame_bytes):
    """30 frames of 4 KiB (or 4,097 bytes: every other frame starts at an odd byte, a code unit straddling it)."""
    text = "".join(f"{n} 上海\u0d0a\U0001000a{'a' * (n % 7)}\r\n" for n in range(5000))
    raw = text.encode("utf-16-le")
    store = scratch_store_factory(frame_bytes=frame_bytes)
    tools = ScratchTools(store.scope("r", "a"))
    handle = tools.scope.spill(raw, source_tool="t").handle
    decoded = text.split("\n")
    for line in (1, 2, 777, 2500, 4999, 5000):
        got = tools.read_handle(handle, line=line, lines=2, encoding="utf-16le")
        assert got["data"] == "".join(d + "\n" for d in decoded[line - 1 : min(line + 1, 5000)]), line
        assert (got["first_line"], got["total_lines"]) == (line, 5000)
    last = tools.read_handle(handle, line=-3, encoding="utf-16le")
    assert (last["data"], last["first_line"]) == ("".join(d + "\n" for d in decoded[4997:5000]), 4998)
    hit = tools.read_handle(handle, match="4321 上", context=0, encoding="utf-16le")
    assert [w["line"] for w in hit["windows"]] == [4322]
    assert len(counted) == 1  # (the first read counted its frames; the others found them in the cache)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(piece=st.lists(_CHARS, min_size=1, max_size=40).map("".join), times=st.integers(1, 400), codec=_CODEC,
       frame_bytes=st.sampled_from([4096, 4097, 4099]), data=st.data())
def test_any_line_read_is_python_s_decoded_line(scratch_store_factory, piece, times, codec, frame_bytes, data):
    """The line at N is ``content.decode(codec).split("\\n")[N - 1]``, from the start or the end, a surrogate pair
    never split, over frames of odd sizes."""
    text = piece * times + "x"
    store = scratch_store_factory(f"s{frame_bytes}", frame_bytes=frame_bytes)
    tools = ScratchTools(store.scope("r", "a"))
    handle = tools.scope.spill(text.encode(codec[0]), source_tool="t").handle
    decoded = text.split("\n")
    line = data.draw(st.integers(1, len(decoded)))
    got = tools.read_handle(handle, line=line, lines=1, encoding=codec[1])
    assert got["data"] == decoded[line - 1] + ("\n" if line < len(decoded) else "")
    assert got["total_lines"] == len(decoded)
    back = tools.read_handle(handle, line=line - len(decoded) - 1, lines=1, encoding=codec[1])
    assert (back["data"], back["first_line"]) == (got["data"], line)


def _lines_of(scope, key: str) -> int:
    """The lines of scratchpad value ``key`` as UTF-16LE text, through its index."""
    entries = scope.store.entries
    with entries.open(scope.run_id, scope.agent_id, "scratch", key) as opened, reading(key):
        text = wide_text(opened, "utf-16le", lambda at, n: (opened.entry.blob, opened.reader.read(at, n)))
        return text.lines(text.size)


def test_a_scratchpad_key_written_again_is_counted_again(scratch_store_factory, counted):
    """The cache's key is the entry's blob (a new one each write), not its key: the same size, other newlines."""
    scope = scratch_store_factory(frame_bytes=4096).scope("r", "a")
    scope.scratch_write("k", ("ab\n" * 3000).encode("utf-16-le"))
    assert _lines_of(scope, "k") == 3000
    scope.scratch_write("k", ("a\n\n" * 3000).encode("utf-16-le"))
    assert _lines_of(scope, "k") == 6000
    assert len(counted) == 2


@pytest.mark.parametrize("gone", ["deleted", "expired"])
def test_a_deleted_or_expired_handle_is_refused_not_read_from_the_cache(scratch_store_factory, scratch_clock,
                                                                        counted, gone):
    tools = ScratchTools(scratch_store_factory().scope("r", "a"))
    handle = tools.scope.spill(("上海\r\n" * 5000).encode("utf-16-le"), source_tool="t", ttl=3600).handle
    assert tools.read_handle(handle, line=4000, lines=1, encoding="utf-16le")["data"] == "上海\r\n"
    if gone == "deleted":
        tools.scope.delete_entry("handle", handle)
    else:
        scratch_clock.advance(3601)
    with pytest.raises(Deleted if gone == "deleted" else Expired):
        tools.read_handle(handle, line=4000, lines=1, encoding="utf-16le")
    with pytest.raises(Deleted if gone == "deleted" else Expired):
        tools.read_handle(handle, match="海", encoding="utf-16le")
