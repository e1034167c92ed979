"""Shape detection's cost on content that is not of a detector's kind (issue 16, T1): each cheaper gate or shortcut
against the plain answer it stands for, on generated inputs that reach the gate's edge. One section per helper
branch."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.engine.structure import table_start

# --- dctables: the table detectors (_delimited, shape_table, table_start, aligned, pipes, settings, columns) ---

_PIECES = st.sampled_from(["a", "b", "7", " ", ",", ";", "\t", "\n", "\r", "\r\n", "x,y", "1;2", "p\tq", '"'])


def test_dctables_a_delimiter_found_unsteady_is_not_tried_again(monkeypatch):
    """``detect_delimiter``: the header line's delimiter, not steady in the lines after it, is not counted over
    them a second time among the others tried (prose after a line with a comma: each count is 20 lines' work)."""
    tried = []
    steady = table_start._steady
    monkeypatch.setattr(table_start, "_steady", lambda d, line, lines: tried.append(d) or steady(d, line, lines))
    after = "the next line, with two, commas\n" * 8
    assert table_start.detect_delimiter("a line, with one comma", after) == ","
    assert tried == [",", "\t", ";"]


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=12).map("".join).filter(lambda s: "\n" not in s and "\r" not in s),
       st.lists(_PIECES, max_size=40).map("".join), st.sampled_from(table_start.DELIMITERS))
def test_dctables_steady_counts_as_the_plain_loop(line, after, delimiter):
    """``_steady``'s counts at C speed against the loop over the lines it stands for."""
    lines = [piece for piece in re.split(r"\r\n|\r|\n", after)[:20] if piece]
    count = line.count(delimiter)
    plain = count > 0 and 5 * sum(piece.count(delimiter) == count for piece in lines) >= 4 * len(lines)
    assert table_start._steady(delimiter, line, lines) == plain


def _old_first_lines(text: str, head_chars: int, count: int) -> list[str] | None:
    """``aligned_shape``'s first test and first lines as they were: a search a newline, then a search a line."""
    end = -1
    for _ in range(count):
        end = text.find("\n", end + 1, head_chars)
        if end < 0:
            break
    if text.find("  ", 0, end if end >= 0 else head_chars) < 0:
        return None
    firsts, at = [], 0
    for _ in range(count):
        end = text.find("\n", at, at + head_chars)
        firsts.append(text[at : end if end >= 0 else at + head_chars])
        if end < 0:
            break
        at = end + 1
    return firsts


@settings(max_examples=600)
@given(st.lists(st.sampled_from(["a", "  ", " ", "\n", "\r", "b c", "x  y", "\n\n"]), max_size=40).map("".join),
       st.integers(4, 24))
def test_dctables_aligned_first_lines_as_the_searches(monkeypatch, text, head_chars):
    """The aligned test's first lines, from one split of the head when its newlines end them all, against a search
    a line -- the head cut short so that lines cross its end, a run of 2 spaces on either side of it."""
    from scratchfs.api import shape_aligned
    from scratchfs.engine.structure.aligned import MAX_PREAMBLE

    monkeypatch.setattr(shape_aligned, "HEAD_CHARS", head_chars)
    assert shape_aligned._first_lines(text) == _old_first_lines(text, head_chars, MAX_PREAMBLE + 1)
