"""A search of terminal output's text view (``match=`` with ``view="text"``) finds the text the view shows: the matches
of ``str.find`` over the renderer's own output, for output written left to right with colour escapes, OSC strings,
dropped control characters and backspace overstrikes between its characters -- at the stored output's offsets, each
window readable rendered with ``view="text", raw_offset=<its offset>``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.engine.search import PatternMatcher
from scratchfs.engine.structure import BytesSource, render_text, view_page
from scratchfs.engine.structure.terminal_match import (
    MAX_RENDERED_NEEDLE_CHARS,
    RenderedMatcher,
    rendered_needle_pattern,
)
from scratchfs.engine.structure.text_search import search_text

JUNK = [b"\x1b[0m", b"\x1b[01;31m", b"\x1b[K", b"\x1b[m\x1b[K", b"\x1b[38;5;208m", b"\x1b[0K", b"\x1b[?25l",
        b"\x1b]8;;http://x.test/a\x07", b"\x1b]8;;\x1b\\", b"\x1b]0;title\x07", b"\x1b(B", b"\x1b=", b"\x07", b"\x0f",
        b"\x1bP1$r\x1b\\"]
"""What draws nothing, as ls --color, grep --color, tput, hyperlinking terminals and bells write it."""
ALPHABET = "abS d_é€x"


@dataclass
class Output:
    """Generated terminal output: its bytes, the text it shows and where each shown character's drawn bytes are."""

    raw: bytearray = field(default_factory=bytearray)
    text: list[str] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # stored offset of each shown character (of a line end's \r)
    ends: list[int] = field(default_factory=list)  # stored offset after it


@st.composite
def outputs(draw) -> Output:
    out = Output()
    for _ in range(draw(st.integers(1, 6))):
        chars = draw(st.text(ALPHABET, max_size=30)).rstrip(" ")  # (the view drops spaces at a line's end)
        for char in chars:
            out.raw += b"".join(draw(st.lists(st.sampled_from(JUNK), max_size=2)))
            drawn = char.encode()
            style = draw(st.sampled_from(["plain", "plain", "bold", "underline", "over", "triple"]))
            out.raw += {"plain": b"", "bold": drawn + b"\b", "underline": b"_\b", "over": b"x\b",
                        "triple": drawn + b"\b" + drawn + b"\b"}[style]
            out.text.append(char)
            out.starts.append(len(out.raw))
            out.raw += drawn
            out.ends.append(len(out.raw))
        out.raw += b"".join(draw(st.lists(st.sampled_from(JUNK), max_size=2)))
        out.text.append("\n")
        out.starts.append(len(out.raw))
        out.raw += draw(st.sampled_from([b"\n", b"\r\n"]))
        out.ends.append(len(out.raw))
    return out


def _found(raw: bytes, needle: str, ignore_case: bool) -> list[tuple[int, int]]:
    """``(offset, length)`` of each match the view search finds in ``raw``, from its start."""
    result = search_text(raw, RenderedMatcher(needle, ignore_case, 10), 0, 0, 10_000, 10**9)
    return [(hit.offset, hit.length) for window in result.windows for hit in window.matches]


def _expected(out: Output, rendered: str, needle: str, ignore_case: bool) -> list[tuple[int, int]]:
    """The ``str.find`` matches of ``needle`` in the rendered text, as stored offsets and lengths."""
    haystack, sought = (rendered.lower(), needle.lower()) if ignore_case else (rendered, needle)
    found, at = [], haystack.find(sought)
    while at >= 0:
        found.append((out.starts[at], out.ends[at + len(needle) - 1] - out.starts[at]))
        at = haystack.find(sought, at + len(needle))
    return found


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outputs(), st.data(), st.booleans())
def test_the_matches_are_those_of_str_find_in_the_rendered_text(out, data, ignore_case):
    raw = bytes(out.raw)
    rendered = render_text(raw)
    assert rendered == "".join(out.text)  # (the generator's bookkeeping is the renderer's view)
    if data.draw(st.booleans(), "from the view"):
        start = data.draw(st.integers(0, len(rendered) - 1), "start")
        needle = rendered[start : start + data.draw(st.integers(1, 12), "length")]
    else:
        needle = data.draw(st.text(ALPHABET + "\n", min_size=1, max_size=4), "needle")
    assert _found(raw, needle, ignore_case) == _expected(out, rendered, needle, ignore_case)


@settings(max_examples=100, deadline=None)
@given(outputs(), st.data())
def test_each_window_reads_rendered_at_its_raw_offset(out, data):
    """A match's window holds its stored bytes at its offset and line, and ``view="text", raw_offset=<offset>``
    starts at the rendered line that shows it."""
    raw = bytes(out.raw)
    rendered = render_text(raw)
    start = data.draw(st.integers(0, len(rendered) - 1), "start")
    needle = rendered[start : start + data.draw(st.integers(1, 8), "length")]
    for window in search_text(raw, RenderedMatcher(needle, False, 10), 0, 16, 10_000, 10**9).windows:
        assert bytes(window.data) == raw[window.offset : window.offset + len(window.data)]
        for hit in window.matches:
            assert hit.line == raw[: hit.offset].count(b"\n") + 1
            at = out.starts.index(hit.offset)
            line_start = rendered.rfind("\n", 0, at) + 1
            page = view_page(BytesSource(raw), raw_offset=hit.offset, budget_bytes=65536)
            assert page.offset == len(rendered[:line_start].encode())
            assert page.text[at - line_start :].startswith(needle)


def test_what_redraws_a_line_is_not_passed_over():
    """A carriage return, a cursor move or an erasure before the cursor between two characters redraws the line: the
    view shows another text, and the search does not run through them."""
    for raw, needle in [(b"ab\rc\n", "bc"), (b"ab\x1b[2Kcd\n", "abcd"), (b"ab\x1b[1Gcd\n", "abcd"),
                        (b"ab\x1b[1Dcd\n", "abcd"), (b"ab\b\bcd\n", "ad"), (b"a\x1b[1Kb\n", "ab")]:
        assert needle not in render_text(raw)
        assert _found(raw, needle, False) == []


def test_a_needle_the_view_cannot_show_is_refused():
    import pytest

    from scratchfs.foundation.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="tabs are spaces"):
        rendered_needle_pattern("a\tb")
    with pytest.raises(InvalidArgument, match=f"at most {MAX_RENDERED_NEEDLE_CHARS} characters"):
        rendered_needle_pattern("x" * (MAX_RENDERED_NEEDLE_CHARS + 1))
    assert re.search(r"\S", rendered_needle_pattern("x" * MAX_RENDERED_NEEDLE_CHARS))  # (within the engine's bound)
    PatternMatcher(rendered_needle_pattern("é" * MAX_RENDERED_NEEDLE_CHARS), True)  # compiles
