"""The demo searches a word of an output's text, not one glued to a terminal escape sequence (helper replies9, from
newuser10's session): on coloured grep output it chose ``Kset_content`` -- the ``K`` of an ``ESC[K`` and the next
word -- a word no reader of the text sees."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from scratchfs.demo import pick_needle

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
_WORDS = re.compile(rb"[A-Za-z0-9_]+")
ESCAPES = [b"\x1b[K", b"\x1b[01;31m\x1b[K", b"\x1b[m\x1b[K", b"\x1b[1m", b"\x1b[0m", b"\x1b]8;;file:///x.py\x1b\\",
           b"\x1b[2K", b"\x1b7"]


def _text_words(data: bytes) -> set[bytes]:
    """The words a terminal shows (escape sequences removed, each one parting the words on its sides)."""
    plain = re.sub(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)|.)", b" ", data)
    return set(_WORDS.findall(plain))


def test_coloured_grep_output_gives_a_word_of_its_text():
    line = b"a.go:12:func (c *C) \x1b[01;31m\x1b[Kset_content\x1b[m\x1b[K(v string) {\n"  # (its one long word)
    assert pick_needle(line * 40) == b"set_content"


def test_gcc_coloured_diagnostics_give_a_word_of_their_text():
    data = (TOOLS / "gcc-fdiagnostics-color.txt").read_bytes()
    needle = pick_needle(data)
    assert needle in data and needle in _text_words(data), needle  # (it chose b"Kerror")


@given(st.lists(st.tuples(st.sampled_from([*ESCAPES, b" ", b"\n", b"("]),
                          st.from_regex(rb"\A[a-z_]{6,12}\Z", fullmatch=True)), min_size=1, max_size=30))
def test_the_word_is_a_run_of_the_bytes_and_a_word_of_the_text(parts):
    data = b"".join(before + word for before, word in parts)
    needle = pick_needle(data)
    assert needle in data and needle in _text_words(data)


def _checked_needle(scope, tmp_path, data: bytes) -> str:
    """The word the demo's check of ``data`` searched (its report line's last quoted text)."""
    import os

    from scratchfs.demo import check_reads

    path = tmp_path / "out.txt"
    path.write_bytes(data)
    handle = scope.spill(data, source_tool="t").handle
    fd = os.open(path, os.O_RDONLY)
    try:
        line = check_reads(scope, handle, fd, len(data), "out.txt")
    finally:
        os.close(fd)
    assert "WRONG" not in line, line
    return re.findall(r"of '([^']*)'\)$", line)[0]


def test_a_window_starting_inside_an_escape_sequence_gives_no_word_glued_to_its_rest(scope, tmp_path):
    """The demo's window starts 32 KiB before the middle; starting just after an ESC, its ``[K`` was glued to the
    next word (replies10): its rest and that word are left out, a word of the text is searched."""
    size = 200_000
    start = size // 2 - 32 * 1024  # (check_reads' window)
    head = b"1234 " * ((start - 1) // 5)
    head += b" " * (start - 1 - len(head)) + b"\x1b[Kglued_word more_words_here\n"
    data = head + b"5678 " * ((size - len(head)) // 5)
    data += b" " * (size - len(data))
    assert data[start : start + 2] == b"[K"
    assert _checked_needle(scope, tmp_path, data) == "more_words_here"  # (it was "Kglued_word")


def test_a_window_ending_inside_a_hyperlink_gives_no_word_of_its_address(scope, tmp_path):
    size = 200_000
    end = size // 2 + 32 * 1024  # (check_reads' window's end)
    link = b"\x1b]8;;file:///home/someuser_dir/x.py\x1b\\"
    front = b"1234 " * ((end - 64 * 1024 + 100) // 5) + b"real_word_here "
    head = front + b"5678 " * ((end - 31 - len(front)) // 5)
    head += b" " * (end - 31 - len(head)) + link + b"x.py\x1b]8;;\x1b\\\n"
    data = head + b"9999 " * ((size - len(head)) // 5)
    data += b" " * (size - len(data))
    assert data[end - 13 : end] == b"someuser_dir/"
    assert _checked_needle(scope, tmp_path, data) == "real_word_here"  # (it was "someuser_dir")


@given(st.binary(max_size=40), st.lists(st.tuples(st.sampled_from([*ESCAPES, b" ", b"\n", b"("]),
                                                  st.from_regex(rb"\A[a-z_]{6,12}\Z", fullmatch=True)),
                                        min_size=1, max_size=30), st.integers(0, 40), st.integers(0, 40))
def test_a_window_cut_anywhere_gives_a_word_of_the_whole_text_or_a_part_of_one(before, parts, cut, short):
    data = before + b"".join(lead + word for lead, word in parts)
    window = data[cut : max(cut, len(data) - short)]
    assume(window)
    needle = pick_needle(window, cut_start=cut > 0, cut_end=short > 0)
    middle = len(window) // 2  # (a part of a word the window cuts, never one glued to an escape's rest; no word at
    assert any(needle in word for word in _text_words(data)) or needle == window[middle : middle + 8], needle  # all:
    # some bytes)


def test_a_window_of_one_run_from_the_contents_start_gives_its_first_characters():
    """newuser11: ``test_demo``'s one-long-word output failed about one run in three: its middle window starts with
    a hex digit (no word there), so the demo looks at the content's start -- a window that starts the content and
    ends inside its one run, which the cut at its end removed whole, leaving 8 bytes from the middle. The run from
    the window's start is the first word's start: its first 64 characters are sought."""
    from scratchfs.demo import pick_needle

    run = b"a" + bytes.fromhex("0123456789abcdef" * 40).hex().encode()
    assert pick_needle(run, cut_start=False, cut_end=True) == run[:64]
    assert pick_needle(run[1:], cut_start=False, cut_end=True) == run[1:65]  # (a run of hex digits alone too)


def test_a_window_ending_between_a_hyperlinks_address_and_its_end_gives_no_word_of_the_address():
    """hostile15: a window that ends on the ESC of the ``ESC \\`` closing an OSC hyperlink's address took that ESC
    for the escape its end cut, and searched a word of the address (``someuser_dir``)."""
    link = b"\x1b]8;;file:///home/someuser_dir/x.py\x1b\\"
    data = b"1234 real_word_here 5678 " + link + b"x.py\x1b]8;;\x1b\\\n"
    window = data[: data.index(b"x.py\x1b\\") + 5]
    assert window.endswith(b"x.py\x1b")
    assert pick_needle(window, cut_end=True) == b"real_word_here"  # (it was b"someuser_dir")


@given(st.lists(st.tuples(st.sampled_from([*ESCAPES, b"\x1b]8;;file:///addr_word/x.py\x1b\\", b" ", b"\n"]),
                          st.from_regex(rb"\A[a-z_]{6,12}\Z", fullmatch=True)), min_size=1, max_size=8))
def test_a_window_ending_on_any_escape_byte_gives_a_word_of_the_text(parts):
    data = b"real_word_here " + b"".join(lead + word for lead, word in parts)
    for end in (n for n in range(16, len(data)) if data[n - 1] == 0x1b or data[n - 2] == 0x1b):
        needle = pick_needle(data[:end], cut_end=True)
        assert any(needle in word for word in _text_words(data)), (needle, data[:end])


@pytest.mark.parametrize("tail", [b"\x1b]8;;file:///addr_word/x", b"\x1b[01;3", b"\x1b"])
def test_a_word_ending_where_the_escape_a_window_end_cuts_starts_is_whole(tail):
    """hostile16: the word before an escape sequence the window's end cuts was taken for the word the end cuts and
    left out too: ``... real_word_here\\x1b]8;;file:///x`` searched ``]8;;file`` (the window's middle bytes, of the
    escape), ``... real_word_here\\x1b[01;3`` ``ord_here``."""
    assert pick_needle(b"1234 ( real_word_here" + tail, cut_end=True) == b"real_word_here"
