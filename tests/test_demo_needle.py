"""The demo searches a word of an output's text, not one glued to a terminal escape sequence (helper replies9, from
newuser10's session): on coloured grep output it chose ``Kset_content`` -- the ``K`` of an ``ESC[K`` and the next
word -- a word no reader of the text sees."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
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
