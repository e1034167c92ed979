"""``detect_delimiter``, the one rule of a table's delimiter for the shape and every rows read, against the plain
Python answer its docstring words: the header line's rule, then, when that delimiter is not steady in 4 of 5 of the
(at most 20) non-empty lines after it, the first of tab, comma, semicolon that is. Its fast paths (no delimiter in
the line; lines split at ``\\n`` alone when no ``\\r`` is in the text) must give the same answer on any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.shape_table import no_delimited_start
from scratchfs.engine.structure.table_start import COMMENT_HEAD_CHARS, DELIMITERS, detect_delimiter

_PIECES = st.sampled_from(["a", "b", "7", " ", ",", ";", "\t", "\n", "\r", "\r\n", "é", "x,y", "1;2", "p\tq"])


def _plain(line: str, after: str) -> str:
    tabs, commas, semicolons = line.count("\t"), line.count(","), line.count(";")
    found = "\t" if tabs and tabs >= commas else ";" if semicolons > commas else ","
    lines = [piece for piece in re.split(r"\r\n|\r|\n", after[:COMMENT_HEAD_CHARS])[:-1][:20] if piece]

    def steady(delimiter: str) -> bool:
        count = line.count(delimiter)
        return count > 0 and 5 * sum(piece.count(delimiter) == count for piece in lines) >= 4 * len(lines)

    if not lines or steady(found):
        return found
    return next((other for other in ("\t", ",", ";") if steady(other)), found)


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=12).map("".join).filter(lambda s: "\n" not in s and "\r" not in s),
       st.lists(_PIECES, max_size=120).map("".join))
def test_detect_delimiter_is_the_plain_rule(line, after):
    assert detect_delimiter(line, after) == _plain(line, after)
    assert detect_delimiter(line.encode(), after) == _plain(line, after)


def test_a_steady_delimiter_after_the_line_wins_over_the_lines_own_rule():
    """``git log --format=%H%x09%an%x09%s`` whose newest subject holds more commas than the line has tabs."""
    line = "abc\tann\tfix a, b, c, d"
    after = "def\tbob\tadd x\n" * 6 + "cut"
    assert detect_delimiter(line) == ","
    assert detect_delimiter(line, after) == "\t"
    assert detect_delimiter(line, after.replace("\n", "\r\n")) == "\t"
    assert detect_delimiter("no delimiter here", after) == ","


@settings(max_examples=300)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_no_delimited_start_is_the_plain_rule(text):
    """The shape's gate (``no_delimited_start``) and ``detect_delimiter`` hold one delimiter set (``DELIMITERS``):
    the gate says "no table" only when the first line, ended within the head, holds none of them."""
    first = re.split(r"\r|\n", text, maxsplit=1)
    plain = len(first) > 1 and not any(d in first[0] for d in "\t,;") and not text.startswith(("\ufeff", "#", "sep="))
    assert no_delimited_start(text) == plain


def test_the_gate_and_the_rule_know_the_same_delimiters():
    assert DELIMITERS == ("\t", ",", ";")
    for delimiter in DELIMITERS:
        assert not no_delimited_start(f"a{delimiter}b\n1{delimiter}2\n")
        assert detect_delimiter(f"a{delimiter}b") == delimiter
    assert no_delimited_start("a|b\n1|2\n")
