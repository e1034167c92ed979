"""A table aligned by spaces with no header line (``ls -l`` without ``total``, ``ps`` through ``tail -n +2``, ``find
-ls``) was told as text with nothing of its columns (closing note's open item 1): its shape now counts them
(api/shape_columns.py), while prose, code and indented text stay plain text -- on the repository's own files, every
window of 50 lines, and on prose Hypothesis writes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.shape import describe
from scratchfs.api.shape_aligned import ALIGNED_SHAPE
from scratchfs.api.shape_columns import columns_said

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "fixtures" / "tools"


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


@pytest.mark.parametrize(("name", "columns"), [("ls-l-no-total.txt", 8), ("ps-eo-no-header.txt", 5),
                                               ("find-ls-usr.txt", 11)])
def test_a_headerless_table_of_a_real_tool_is_told_with_its_columns(name, columns):
    data = (TOOLS / name).read_bytes()
    shape = shape_of(data)
    assert shape.startswith("text, ") and not shape.startswith(ALIGNED_SHAPE), shape
    assert shape.endswith(f", a table of {columns} columns aligned by spaces on each of its first 50 lines, no header "
                          "line"), shape


def test_ls_l_with_its_total_line_is_told_a_table_after_it_and_importtime_is_no_table():
    """``ls -l`` of one directory starts ``total N`` (its blocks), which no column holds: it was told plain text
    (no rows read offered) where the same listing without it is a table. That line is now passed over and named.
    ``python -X importtime`` (``import time: self [us] | cumulative | imported package``) is no table (its own kind,
    :mod:`scratchfs.api.shape_importtime`, since modeltask7): no table detector's rules take it -- drawn with pipes
    but no rule under its header (psql's, Markdown's need one), names one space apart (a table aligned by spaces
    parts them by two), and a ``|`` column on every line (code's, a drawing's)."""
    listing = (TOOLS / "ls-l-total.txt").read_bytes()
    assert listing.startswith(b"total 274200\n")
    assert shape_of(listing).endswith(", a table of 9 columns aligned by spaces on each of its first 50 lines after "
                                      "line 1 (ls's total), no header line")
    assert shape_of(listing.split(b"\n", 1)[1]).endswith(" on each of its first 50 lines, no header line")
    assert shape_of(b"total 12\nnot a table at all\n" * 40).startswith("text, 80 lines") and "table" not in shape_of(
        b"total 12\nnot a table at all\n" * 40)
    timed = (TOOLS / "python-importtime.txt").read_bytes()
    assert timed.startswith(b"import time: self [us] | cumulative | imported package\n")
    assert shape_of(timed).startswith("Python -X importtime, 71 lines, 70 imports, ") and "table" not in shape_of(timed)


def test_the_columns_are_those_of_every_line():
    """The columns of ``ps auxww`` under its header (its first 50 lines after it): the 10 before ``COMMAND``, which
    holds spaces, and that one running on; a line cut short bounds the columns (those within it are counted), and
    one cell left empty makes it none."""
    rows = (TOOLS / "ps-auxww.txt").read_bytes().split(b"\n")[1:51]
    said = columns_said(b"\n".join(rows) + b"\n")
    assert said.startswith(", a table of 11 columns "), said
    cut = columns_said(b"\n".join([*rows[:10], rows[10][:40], *rows[11:]]) + b"\n")
    assert cut.startswith(", a table of 7 columns "), (rows[10][:40], cut)
    blank_user = b" " * len(rows[3].split(b" ", 1)[0]) + rows[3][len(rows[3].split(b" ", 1)[0]):]
    assert columns_said(b"\n".join([*rows[:3], blank_user, *rows[4:]]) + b"\n") == ""


_WORDS = ("a", "an", "the", "of", "to", "in", "store", "handle", "result", "model", "agent", "reads", "spilled",
          "budget", "window", "scratchpad", "context", "tool", "bytes", "line", "lines", "JSON", "stub", "is", "and")


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.sampled_from(_WORDS), min_size=20, max_size=300), width=st.integers(20, 100),
       ends=st.lists(st.sampled_from([". ", ".  ", ", ", ": ", " "]), min_size=1), indent=st.integers(0, 8))
def test_prose_is_no_table(words, width, ends, indent):
    """Prose wrapped at any width, sentences ended by one or two spaces, indented or not: never a table."""
    text = "".join(word + ends[i % len(ends)] for i, word in enumerate(words))
    data = textwrap.indent(textwrap.fill(text, width), " " * indent).encode() + b"\n"
    assert columns_said(data) == ""


def _windows() -> list[tuple[str, bytes]]:
    """Every window of 50 lines (each 10th line a start) of the repository's Python, Markdown and text files."""
    found = []
    for path in sorted([*ROOT.glob("scratchfs/**/*.py"), *ROOT.glob("tests/*.py"), *ROOT.glob("*.md"),
                        *ROOT.glob("bench/*.py")]):
        lines = path.read_bytes().split(b"\n")
        found.extend((f"{path.relative_to(ROOT)}:{at + 1}", b"\n".join(lines[at : at + 50]) + b"\n")
                     for at in range(0, max(1, len(lines) - 5), 10))
    return found


def test_no_window_of_this_repository_s_code_and_prose_is_a_table():
    told = [name for name, data in _windows() if columns_said(data)]
    assert told == [], told[:10]


_CELL = st.from_regex(r"[a-z][a-z0-9_/-]{0,11}", fullmatch=True)


@st.composite
def _headerless(draw):
    """A table as a tool that sizes each column to its widest value prints it, with no header line: 5 to 40 rows of
    3 to 8 columns, words left-aligned or numbers right-aligned, 2 spaces or more between columns (a ragged last)."""
    columns, count = draw(st.integers(3, 8)), draw(st.integers(5, 40))
    numeric = [draw(st.booleans()) for _ in range(columns)]
    cells = [[str(draw(st.integers(0, 99999))) if numeric[c] else draw(_CELL) for c in range(columns)]
             for _ in range(count)]
    widths = [max(len(row[c]) for row in cells) for c in range(columns)]
    gap = " " * draw(st.integers(2, 3))
    lines = [gap.join([*(cell.rjust(widths[c]) if numeric[c] else cell.ljust(widths[c])
                         for c, cell in enumerate(row[:-1])), row[-1]]) for row in cells]
    return columns, count, ("\n".join(lines) + "\n").encode()


# (40 examples by default, 200 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=40, deadline=None)
@given(_headerless())
def test_a_headerless_table_is_told_with_as_many_columns_as_it_has(table):
    columns, count, data = table
    assert columns_said(data) == (f", a table of {columns} columns aligned by spaces on each of its first "
                                  f"{min(count, 50)} lines, no header line")


@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.from_regex(r"[A-Z_][A-Z0-9_]{0,15}", fullmatch=True), min_size=5, max_size=30),
       values=st.lists(st.integers(0, 10**6), min_size=30, max_size=30), mark=st.sampled_from(["=", ":", ":=", "#"]),
       indent=st.sampled_from(["", "    "]))
def test_code_aligned_on_a_mark_is_no_table(names, values, mark, indent):
    """Constants aligned on their ``=`` (or a dict's ``:``, comments' ``#``), at the top or indented: no table."""
    width = max(map(len, names))
    data = "".join(f"{indent}{name.ljust(width)}  {mark} {value}\n" for name, value in zip(names, values, strict=False))
    assert columns_said(data.encode()) == ""
