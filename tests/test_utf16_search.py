"""UTF-16 text (`iconv -t UTF-16`, a Windows tool's redirected output) is stored as binary: a search writes its text
as UTF-8 bytes, which UTF-16 never holds. The stub named match="TEXT" and that search came back empty with no word
of why (helper realworld, `iconv -t UTF-16` of `dpkg -l`); UTF-16 without a byte order mark was not even named.
Now the stub says how its text is found, a miss's note gives the pattern that seeks the needle as UTF-16 bytes, and
following it finds every occurrence the plain Python answer finds (the text's own matches, at twice their offsets)."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools

DPKG = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dpkg-l.txt"  # (real `dpkg -l`, ASCII)
FORMS = {"utf-16": (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16LE text"),  # (what iconv -t UTF-16 writes here)
         "utf-16-le": (b"", "utf-16-le", "UTF-16LE text"), "utf-16-be": (b"", "utf-16-be", "UTF-16BE text")}


def encoded(text: str, form: str) -> bytes:
    bom, codec, _ = FORMS[form]
    return bom + text.encode(codec)


def found_offsets(tools: ScratchTools, call: str) -> list[int]:
    """The match offsets of a search, following next_call to the end."""
    offsets = []
    while call is not None:
        name, args = parse_call(call)
        reply = tools.call(name, args)
        for window in reply["windows"]:
            hits = window.get("matches") or [{"offset": window.get("match_offset", window["offset"])}]
            offsets += [hit["offset"] for hit in hits]
        call = reply["next_call"]
    return offsets


def expected(text: str, needle: str, form: str, ignore_case: bool = False) -> list[int]:
    start = len(FORMS[form][0])
    return [start + 2 * m.start() for m in re.finditer(re.escape(needle), text, re.I if ignore_case else 0)]


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize(("needle", "ignore_case"), [("binutils", False), ("AVAHI-", True), ("amd64 ", False)])
def test_a_miss_in_utf16_names_the_search_that_finds_every_match(scope, form, needle, ignore_case):
    text = DPKG.read_text()
    data = encoded(text, form)
    stub = scope.spill(data, source_tool="shell").to_dict()
    kind = FORMS[form][2]
    assert stub["content_type"] == "binary" and f", {kind}; " in stub["shape"]
    encoding = "utf-16le" if "LE" in kind else "utf-16be"  # (its reads as text: tests/test_utf16_reads.py)
    assert f'{kind}, two bytes a character: encoding="{encoding}" reads it as text' in stub["note"]
    tools = ScratchTools(scope)
    miss = tools.read_handle(stub["handle"], match=needle, ignore_case=ignore_case)
    assert miss["windows"] == []
    assert miss["note"].startswith(f"no match: the content is {kind} (two bytes a character")
    call = miss["note"].split("seek it with its encoding: ", 1)[1]
    assert call.startswith(f'read_handle(handle="{stub["handle"]}", match=') and f'encoding="{encoding}"' in call
    want = expected(text, needle, form, ignore_case)
    assert want and found_offsets(tools, call) == want


def test_a_pattern_miss_in_utf16_says_how_to_write_one(scope):
    handle = scope.spill(encoded(DPKG.read_text(), "utf-16"), source_tool="shell").handle
    reply = ScratchTools(scope).read_handle(handle, pattern=r"python3\.\d+")
    assert reply["windows"] == [] and reply["note"].endswith(
        "write each character as its two UTF-16LE bytes in a pattern (p\\x00 for p)")


@pytest.mark.parametrize("data", [bytes(range(256)) * 40, b"\x00" * 8192, b"\x01\x00\x02\x00" * 2048,
                                  "ÿ€".encode() * 3000])
def test_other_binary_content_is_not_named_utf16(scope, data):
    stub = scope.spill(data, source_tool="shell").to_dict()
    assert "UTF-16" not in stub["shape"] and "UTF-16" not in stub["note"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.sampled_from("ab c\nxyZ-_.:"), min_size=40, max_size=3000), st.integers(0, 10_000),
       st.integers(2, 6), st.sampled_from(list(FORMS)))
def test_the_named_search_finds_what_python_finds(scope, text, at, length, form):
    at %= len(text) - 1  # (a needle of 2 characters at least: one ASCII byte alone stands in UTF-16 text too)
    needle = text[at : at + length]
    data = encoded(text, form)
    tools = ScratchTools(scope)
    handle = scope.spill(data, source_tool="shell").handle
    miss = tools.read_handle(handle, match=needle, max_matches=50)
    if miss["windows"]:  # (a needle whose UTF-8 bytes stand in the UTF-16 ones: a single NUL-free byte... none here)
        pytest.fail(f"found {needle!r} as UTF-8 in UTF-16 text")
    note = miss.get("note", "")
    if "UTF-16" not in note:  # (too little text to be told UTF-16 without a byte order mark)
        assert FORMS[form][0] == b"" and len(data) < 64
        return
    assert found_offsets(tools, note.split("seek it with its encoding: ", 1)[1]) == expected(text, needle, form)
