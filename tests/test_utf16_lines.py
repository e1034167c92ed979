"""Lines of UTF-16 text (``read_handle(..., line=N, encoding="utf-16le"|"utf-16be")``) end at a newline code unit
at an even offset, as Python's decode has them: they were found by ``0a`` bytes, so ``上`` (``0a 4e`` in UTF-16LE)
ended a line, and UTF-16LE's last ``0a 00`` made one line more of its ``00`` (``total_lines`` 832 for 831 lines,
``line=-1`` an empty line). A count of a UTF-16 ``match`` counted its bytes at odd offsets too (the halves of two
characters), which a search's windows drop. Each check failed before."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument


@pytest.fixture
def tools(tmp_path):
    with ScratchStore(tmp_path / "root") as store:
        yield ScratchTools(store.scope("r", "a"))


def _lines(text: str) -> list[str]:
    """The lines the docs define: each ends at ``\\n`` (kept), the text after the last one a line too."""
    return [line for line in re.split("(?<=\n)", text) if line]


def test_cjk_lines_end_at_newline_code_units_not_at_0a_bytes(tools):
    text = "\ufeff" + "上海\r\n" * 500  # (上 is 0a 4e in UTF-16LE)
    handle = tools.scope.spill(text.encode("utf-16-le"), source_tool="t").handle
    got = tools.read_handle(handle, line=2, lines=1, encoding="utf-16le")
    assert (got["data"], got["first_line"], got["total_lines"], got["offset"]) == ("上海\r\n", 2, 500, 10)
    last = tools.read_handle(handle, line=-1, encoding="utf-16")
    assert (last["data"], last["first_line"], last["total_lines"]) == ("上海\r\n", 500, 500)


def test_utf16le_text_ending_in_a_newline_has_no_line_more(tools):
    text = "".join(f"line {n}\r\n" for n in range(831))
    handle = tools.scope.spill(text.encode("utf-16-le"), source_tool="t").handle
    last = tools.read_handle(handle, line=-1, encoding="utf-16le")
    assert (last["data"], last["first_line"], last["total_lines"]) == ("line 830\r\n", 831, 831)
    with pytest.raises(InvalidArgument, match=r'line 832 is past the end .*\(831 lines\).*encoding="utf-16le"'):
        tools.read_handle(handle, line=832, encoding="utf-16le")


def test_the_stub_counts_utf16_lines_as_decoded(tools):
    text = "\ufeff" + "上海\r\n" * 500
    stub = tools.scope.spill(text.encode("utf-16-le"), source_tool="t")
    assert stub.lines == 500


def test_a_utf16_spill_is_not_read_back_to_count_its_lines(tools, monkeypatch):
    """The stub's count read the content back up to 64 MiB (past that it counted 0a bytes: each 上's and each
    line's); it is now counted as the content streams (:mod:`scratchfs.api.wide_count`), at any size."""
    from scratchfs.api import entries

    def no_read_back(*args):
        raise AssertionError("the blob was read back")

    monkeypatch.setattr(entries.Entries, "_whole", no_read_back)
    stub = tools.scope.spill(("\ufeff" + "上海\r\n" * 500).encode("utf-16-le"), source_tool="t")
    assert stub.lines == 500


_CHARS = st.sampled_from(["a", "Z", " ", "\r", "\n", "\n", "上", "海", "ਊ", "\u0d0a", "\u0a0d", "\u0a00", "😀",
                          "\U0001000a", "Ā", "N"])
_TEXT = st.lists(_CHARS, min_size=0, max_size=400).map("".join)
_CODEC = st.sampled_from([("utf-16-le", "utf-16le"), ("utf-16-be", "utf-16be")])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXT, codec=_CODEC, mark=st.booleans(), lines=st.integers(1, 40), budget=st.sampled_from([None, 2048]))
def test_line_reads_page_through_utf16_text_as_python_decodes_it(tools, text, codec, mark, lines, budget):
    text = ("\ufeff" if mark else "") + text + "x"  # (not empty: a read of no content has no line)
    raw = text.encode(codec[0])
    expected = _lines(text)
    handle = tools.scope.spill(raw, source_tool="t").handle
    call, seen = {"line": 1, "lines": lines}, []
    while call is not None:
        got = tools.read_handle(handle, encoding=codec[1], budget=budget, **call)
        assert got["data"].encode(codec[0]) == raw[got["offset"] : got["offset"] + got["length"]]
        assert got["total_lines"] == len(expected)
        before = raw[: got["offset"]].decode(codec[0])
        assert got["first_line"] == before.count("\n") + 1, (before, got)
        seen.append(got["data"])
        if got["next_offset"] is None:
            call = None
        elif got["cut"]:
            call = {"offset": got["next_offset"], "lines": lines}
        else:
            assert got["next_line"] == got["first_line"] + got["data"].count("\n")
            call = {"line": got["next_line"], "lines": lines}
    assert "".join(seen) == text
    for back in (1, min(3, len(expected))):
        tail = tools.read_handle(handle, line=-back, lines=back, encoding=codec[1])
        assert tail["data"] == "".join(expected[-back:]) and tail["first_line"] == len(expected) - back + 1


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXT, codec=_CODEC, needle=st.lists(_CHARS, min_size=1, max_size=3).map("".join))
def test_a_count_of_utf16_text_is_str_count_of_its_decoded_text(tools, text, codec, needle):
    raw = (text + "x").encode(codec[0])
    handle = tools.scope.spill(raw, source_tool="t").handle
    got = tools.read_handle(handle, match=needle, count=True, encoding=codec[1])
    assert got["matches"] == (text + "x").count(needle)


def test_a_count_skips_a_match_at_an_odd_offset(tools):
    """``上ĀN`` holds ``N``'s UTF-16LE bytes ``4e 00`` at offset 1 too (上's second byte, Ā's first)."""
    handle = tools.scope.spill("上ĀN".encode("utf-16-le"), source_tool="t").handle
    assert tools.read_handle(handle, match="N", count=True, encoding="utf-16le")["matches"] == 1


def test_an_end_past_the_content_is_refused_as_without_an_encoding(tools):
    handle = tools.scope.spill("ab\ncd\n".encode("utf-16-le"), source_tool="t").handle
    with pytest.raises(InvalidArgument, match="end=99 is past the content's end"):
        tools.read_handle(handle, line=1, end=99, encoding="utf-16le")
    got = tools.read_handle(handle, line=-1, end=6, encoding="utf-16le")  # (the lines before byte 6)
    assert (got["data"], got["first_line"], got["total_lines"]) == ("ab\n", 1, 1)


def test_text_is_read_by_line_at_any_length(tools):
    """Past 64 MiB a line read was refused (each scanned the text from its start); its index has no bound
    (tests/test_utf16_index.py)."""
    handle = tools.scope.spill(("上海\r\n" * 500).encode("utf-16-be"), source_tool="t").handle
    got = tools.read_handle(handle, line=400, lines=1, encoding="utf-16be")
    assert (got["data"], got["first_line"], got["offset"]) == ("上海\r\n", 400, 399 * 8)


# -- searches and counts: a match's line, a whole line's window, a count's lines (encodings4) ---------------------

def test_a_search_numbers_cjk_lines_as_decoded(tools):
    """``上`` is ``0a 4e`` in UTF-16LE: each one counted as a line's end gave ``海`` of line 1 the number 2."""
    handle = tools.scope.spill(("\ufeff" + "上海\r\n" * 500).encode("utf-16-le"), source_tool="t").handle
    got = tools.read_handle(handle, match="海", context=0, max_matches=2, encoding="utf-16le")
    assert [(w["line"], w["offset"]) for w in got["windows"]] == [(1, 4), (2, 12)]
    whole = tools.read_handle(handle, match="海", context="line", max_matches=2, encoding="utf-16")
    assert [(w["line"], w["data"]) for w in whole["windows"]] == [(1, "\ufeff上海"), (2, "上海")]


def test_a_count_counts_cjk_lines_as_decoded(tools):
    handle = tools.scope.spill(("上海上\r\n" * 5).encode("utf-16-le"), source_tool="t").handle
    got = tools.read_handle(handle, match="上", count=True, encoding="utf-16le")
    assert (got["matches"], got["lines"]) == (10, 5)


def _line_of(text: str, at: int) -> int:
    return text[:at].count("\n") + 1


def _shown_line(line: str) -> str:
    """A whole line's window: the line without its CRLF's ``\\r`` (:mod:`scratchfs.engine.line_windows`)."""
    return line[:-1] if line.endswith("\r") else line


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(_CHARS, min_size=0, max_size=200).map("".join), codec=_CODEC, mark=st.booleans(),
       needle=st.lists(_CHARS, min_size=1, max_size=2).map("".join), whole=st.booleans(),
       most=st.integers(1, 5))
def test_a_utf16_search_and_count_see_the_lines_python_decodes(tools, text, codec, mark, needle, whole, most):
    """Every match's ``line`` and a whole line's window are the decoded text's (``text.split("\n")``, from 1), and a
    count's ``lines`` the lines its matches start in, on text whose characters hold ``0a`` and ``0d`` bytes."""
    text = ("\ufeff" if mark else "") + text + "x"
    raw = text.encode(codec[0])
    handle = tools.scope.spill(raw, source_tool="t").handle
    found, at = [], 0  # (the matches str.find sees, without overlaps, as the search pages them)
    while (at := text.find(needle, at)) >= 0:
        found.append(at)
        at += len(needle)
    decoded = text.split("\n")
    call, hits = {"handle": handle, "match": needle, "context": "line" if whole else 0, "max_matches": most,
                  "encoding": codec[1]}, []
    while call is not None:
        got = tools.call("read_handle", call, full_windows=True)
        for window in got["windows"]:
            first = window.get("match_offset", window["offset"])
            matches = window.get("matches") or [{"offset": first, "line": window["line"]}]
            assert window["line"] == matches[0]["line"]
            hits.extend((len(raw[: hit["offset"]].decode(codec[0])), hit["line"]) for hit in matches)
            if whole and not {"\r", "\n"} & set(needle):  # (a match holding a line end shows it)
                assert window["data"] == _shown_line(decoded[window["line"] - 1]), window
        call = None if got["next_offset"] is None else {**call, "offset": got["next_offset"]}
    assert hits == [(at, _line_of(text, at)) for at in found]
    count = tools.read_handle(handle, match=needle, count=True, encoding=codec[1])
    assert (count["matches"], count["lines"]) == (len(found), len({_line_of(text, at) for at in found}))


def test_a_match_far_into_the_text_is_numbered_as_decoded(tools):
    """A match past the line scan's 64 MiB was refused; through the text's index every match has its line."""
    handle = tools.scope.spill(("上海\r\n" * 500).encode("utf-16-be"), source_tool="t").handle
    early = tools.read_handle(handle, match="海", context=0, max_matches=2, encoding="utf-16be")
    assert [w["line"] for w in early["windows"]] == [1, 2]
    late = tools.read_handle(handle, match="海", offset=2000, context=0, max_matches=2, encoding="utf-16be")
    assert [w["line"] for w in late["windows"]] == [251, 252]
    count = tools.read_handle(handle, match="海", count=True, encoding="utf-16be")
    assert (count["matches"], count["lines"]) == (500, 500)


def test_a_long_cjk_line_is_bounded_as_any_whole_line_window_and_read_back_from_the_end(tools):
    """A line of 2,001 characters (4,002 bytes) holding ``0a`` bytes: its window is the bound a side of its match
    (``LINE_WINDOW_BYTES``, cut at both ends), numbered as decoded; ``before=`` pages back with the same lines."""
    text = "a\n" + "上" * 1000 + "海" + "上" * 1000 + "\r\n" + "上海\n" * 3
    raw = text.encode("utf-16-be")
    handle = tools.scope.spill(raw, source_tool="t").handle
    got = tools.call("read_handle", {"handle": handle, "match": "海", "context": "line", "encoding": "utf-16be",
                                     "max_matches": 2}, full_windows=True)
    first = got["windows"][0]
    assert (first["line"], first["offset"], first["length"], first["cut"]) == (2, 2004 - 1024, 2050, "both")
    assert first["data"] == "上" * 512 + "海" + "上" * 512
    assert [(w["line"], w["data"]) for w in got["windows"][1:]] == [(3, "上海")]
    back = tools.read_handle(handle, match="海", context="line", encoding="utf-16be", before=len(raw))
    assert [w["line"] for w in back["windows"]] == [2, 3, 4, 5]
