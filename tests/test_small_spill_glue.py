"""Shortcuts of a small spill's path outside shape detection (issue 16, T1/S2 "writecost2": the same bytes and stubs,
less Python per spill), each against the code it stands for on generated inputs built around its boundary, and
shown taken:

- ``make_preview``'s cut of a plain ASCII head (no ESC, no backslash near the cut, no CR LF across it) is its first
  ``limit`` bytes, told by one look (``preview._plain_cut``) instead of the four rules' calls (UTF-8 character,
  escape sequence, grapheme cluster, JSON string escape), each of which leaves such a cut where it is.
- ``token_text`` of 15 bytes reads them as three 40-bit numbers (shifts within a machine word).
- The segment append writes its record with one ``pwritev`` and goes through ``safe_fs.write_all`` only for what a
  short write left.
"""

from __future__ import annotations

import os
from unittest import mock

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from scratchfs import NotFound, ScratchStore
from scratchfs.api import preview
from scratchfs.api.preview import make_preview
from scratchfs.engine import safe_fs
from scratchfs.foundation import checks
from scratchfs.foundation.limits import SEGMENT_ENTRY_BYTES

# pieces that put each rule's trigger next to a cut: escapes, backslashes, CR LF, UTF-8 and combining marks
PIECES = st.sampled_from([b"a", b"x" * 7, b" ", b"\n", b"\r", b"\r\n", b"\\", b"\\u00e9", b"\\ud83d\\ude00",
                          b"\\u200d", b"\x1b", b"\x1b[3", b"\x1b[32m", b"\xc3\xa9", b"e\xcc\x81", b"\xe2\x80\x8d",
                          b"\xff", b"\x00", b'"', b"\t"])
HEADS = st.lists(PIECES, max_size=80).map(b"".join)


def full_preview(head: bytes, tail: bytes, size: int, limit: int, mode: str) -> tuple[str, int, int | None]:
    with mock.patch.object(preview, "_plain_cut", return_value=None):
        return make_preview(head, tail, size, limit, mode)


@given(HEADS, st.integers(0, 90), st.sampled_from(["head", "head+tail"]), st.integers(0, 40))
@example(b"abc\r\ndef", 4, "head", 0)  # CR | LF at the cut: refused, the full path cuts before the CR
@example(b"a" * 20 + b"\\u00e9", 22, "head", 0)  # inside a JSON escape
@example(b"ab\x1b[32mcd", 5, "head", 0)  # inside a colour code
@example(b"abc", 3, "head", 0)  # the whole head, no byte after it
def test_a_plain_cut_is_the_preview_the_full_rules_give(head, limit, mode, more):
    size = len(head) + more
    assert make_preview(head, head[-8:], size, limit, mode) == full_preview(head, head[-8:], size, limit, mode)
    assert make_preview(head, b"", size, limit) == full_preview(head, b"", size, limit, "head")


def test_a_plain_ascii_preview_is_cut_without_the_four_rules():
    head = b'{"id": 1, "name": "alpha"}\n' * 60

    def never(*_args):
        raise AssertionError("the full rules were asked")

    with mock.patch.object(preview, "_cluster_end", never), mock.patch.object(preview, "_json_escape_end", never):
        assert make_preview(head, b"", len(head), 1024) == (head[:1024].decode(), 1024, None)
    # and a head the shortcut refuses still goes through them
    assert preview._plain_cut(b"caf\xc3\xa9 au lait", 4) is None
    assert preview._plain_cut(b"x" * 30 + b"\\n" + b"y" * 30, 40) is None


@given(st.binary(min_size=15, max_size=15) | st.binary(max_size=20))
def test_a_token_is_the_base32_of_its_bits_read_as_one_number(raw):
    bits = int.from_bytes(raw, "big")
    assert checks.token_text(raw) == "".join(checks._BASE32_PAIRS[(bits >> s) & 1023] for s in range(110, -1, -10))


def test_a_short_pwritev_still_appends_the_whole_record(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", str(SEGMENT_ENTRY_BYTES))
    real, calls = os.pwritev, []

    def short(fd, buffers, offset):  # the kernel takes at most 100 bytes a call
        calls.append(offset)
        data = b"".join(bytes(b) for b in buffers)[:100]
        return real(fd, [data], offset)

    payloads = [bytes([65 + i]) * 3000 + os.urandom(500) for i in range(3)]
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        with mock.patch.object(os, "pwritev", short), mock.patch.object(safe_fs.os, "pwritev", short):
            stubs = [scope.spill(p, source_tool="t") for p in payloads]
        assert len(calls) > 3 * 5  # each record took several calls
        assert [scope.read_range(s.handle, 0, 4000).data for s in stubs] == payloads


def test_rows_written_behind_are_inserted_as_each_put_inserts_them(tmp_path, monkeypatch):
    # Index.put_many of spills' rows: one executemany of the rows whose check passed; a check that says the blob was
    # moved away by a delete leaves the delete's tombstone; a check that raises refuses that row alone
    from scratchfs.engine.protocols import Entry
    from scratchfs.engine.sqlite_index import Index
    from scratchfs.foundation.errors import StorageError

    with ScratchStore(tmp_path) as store:
        store.scope("run", "gone").spill(b"x", source_tool="t")
        store.delete_agent("run", "gone")
        now = store.now()

        def entry(agent: str, n: int) -> Entry:
            return Entry("handle", "run", agent, f"h_{checks.new_token()}", checks.new_token(), 10 + n, 30 + n, 1,
                         n, f"preview {n}", "tool", None, None, now, now + 600.0, 600.0)

        def refuse() -> bool:
            raise StorageError("moved some other way")

        rows = [(entry("a", 1), b"\x01\x00\x00\x00", lambda: True), (entry("gone", 2), b"\x00" * 4, lambda: False),
                (entry("a", 3), b"\x02\x00\x00\x00", refuse), (entry("a", 4), b"\x03\x00\x00\x00", lambda: 1)]
        monkeypatch.setattr(Index, "_put", lambda *_a, **_k: pytest.fail("a spill's row went row by row"))
        outcomes = store.index.put_many(rows)
        assert outcomes[:2] == [True, False] and outcomes[3] is True and isinstance(outcomes[2], StorageError)
        for (e, newlines, _), written in zip(rows, [True, False, False, True], strict=True):
            found = store.index.lookup_with_lines("run", e.agent_id, "handle", e.key, now)
            assert found == ((e, newlines) if written else None)
        with pytest.raises(NotFound, match="deleted with its agent"):
            store.scope("run", "gone").read_range(rows[1][0].key)
