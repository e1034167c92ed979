"""Shortcuts of shape detection (issue 16, T1 "t1fast": a small spill's describe made cheaper with the same answers),
each against the code it stands for on generated inputs built to hit its boundary, and ``describe`` with the full
paths swapped in on generated texts and on the real outputs of ``fixtures/``.

- ``first_lines`` (the first lines of a table's head, and of the lines after its first line that tell its delimiter):
  CRLF text split at ``\\n`` with each line's ``\\r`` taken off, not by the line-end pattern (whose split costs
  5-10 times as much). Inputs: ``\\r\\n``, lone ``\\r`` and ``\\n``, ``\\r\\r\\n``, ``\\n\\r``, a ``\\r`` at
  the end, around the count of lines asked for.
- The bare carriage returns (those no ``\\n`` follows) of a sample holding a ``\\r`` are counted once, for the
  terminal test and the lone-``\\r`` line ends both, and neither is asked when there are none: no bare ``\\r`` in a
  sample leaves none in its whole lines, and with no escape nor backspace and no bare ``\\r`` a sample holds no
  terminal control (``terminal_controls`` counts 0 of each, under its threshold). Inputs: CRLF text, lone ``\\r``,
  ``\\r`` before the sample's end, escapes and backspaces, whole contents and samples of larger ones. ``line_stats``
  given that count looks for no ``\\r\\r`` when it is 0 (a ``\\r`` another follows is bare).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import shape, shape_table, shape_terminal
from scratchfs.engine.structure import row_lines, table_start
from scratchfs.engine.structure.row_lines import LINE_END_TEXT, first_lines
from scratchfs.foundation import text as ftext
from scratchfs.foundation.text import line_stats
from tests.test_shape_fastpaths import swapped

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL = sorted(p for p in [*FIXTURES.iterdir(), *(FIXTURES / "tools").iterdir()]
              if p.suffix in (".txt", ".csv", ".tsv", ".json", ".html", ".xml"))


def full_first_lines(text: str, count: int) -> list[str]:
    """:func:`first_lines` as its callers split before it: the line-end pattern on text that holds a ``\\r``."""
    return (text.split("\n", count) if "\r" not in text else LINE_END_TEXT.split(text, count))[:count]


def full_terminal_controls(sample: bytes, complete: bool = True, bare: int | None = None) -> str:
    """:func:`~scratchfs.api.shape_terminal.terminal_controls` counting its own bare carriage returns."""
    return FAST_TERMINAL_CONTROLS(sample, complete)


FAST_TERMINAL_CONTROLS = shape_terminal.terminal_controls


@contextlib.contextmanager
def full_paths():
    """``describe`` with every shortcut of this file swapped for its full path (the bare carriage returns counted
    anew by each that asks, the lone-``\\r`` line ends asked whatever the count)."""
    swaps = [(shape_table, "first_lines", full_first_lines), (table_start, "first_lines", full_first_lines),
             (shape, "terminal_controls", full_terminal_controls),
             (shape, "bare_crs", lambda sample: -1)]  # (-1, "some": the full paths' test of a \r, both asked)
    with swapped(swaps):
        yield


PARTS = st.sampled_from(["a", "b,c", "x;y", "1\t2", '"q"', "\r", "\n", "\r\n", "\r\r\n", "\n\r", "",
                         "\x1b[1m", "\x08", "10%\r20%\r", "2026-12-05 10:00:00 ERROR x", "a.py:1: y"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(PARTS, max_size=60), st.integers(1, 55))
@example(["a", "\r\n", "b"], 1)
@example(["a", "\r"], 1)
@example(["a", "\r\n", "b", "\r"], 2)
def test_first_lines_as_the_line_end_pattern_splits(parts, count):
    text = "".join(parts)
    assert first_lines(text, count) == LINE_END_TEXT.split(text, count)[:count] == full_first_lines(text, count)
    old = (text.split("\n", count) if "\r" not in text else LINE_END_TEXT.split(text, count))[:-1][: count - 1]
    assert first_lines(text, count)[:-1][: count - 1] == old  # (as detect_delimiter takes the lines after the first)


def test_crlf_lines_are_not_split_by_the_line_end_pattern(monkeypatch):
    for owner in (row_lines, shape_table, table_start):  # (a call of the pattern would fail)
        monkeypatch.setattr(owner, "LINE_END_TEXT", None, raising=False)
    assert shape_table.table_lines("id,name\r\n1,a\r\n\r\n2,b", 50) == ["id,name", "1,a", "", "2,b"]
    assert shape_table.table_lines("a\r\nb\r\nc", 2) == ["a", "b"]
    assert table_start.detect_delimiter("a\tb,c", "1\t2\r\n3\t4\r\n5\t6\r\n") == "\t"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(PARTS, min_size=1, max_size=6).map("".join), max_size=70),
       st.sampled_from(["\r\n", "\r\n", "\n", "\r"]), st.integers(0, 3000))
def test_describe_with_the_full_paths_gives_the_same_shape(lines, end, more):
    data = end.join(lines).encode()
    count = data.count(b"\n") + (data[-1:] not in (b"", b"\n"))
    for size, counted in ((len(data), count), (len(data) + more, count + more // 7)):
        fast = shape.describe(data, size, counted)
        with full_paths():
            assert shape.describe(data, size, counted) == fast


@settings(max_examples=1500, deadline=None)
@given(st.lists(PARTS, max_size=80).map(lambda parts: "".join(parts).encode()), st.integers(0, 40))
@example(b"a\r\r\nb\r\n", 0)
def test_line_stats_given_the_bare_count(data, cut):
    for sample in (data, data[: len(data) - cut], data[: data.rfind(b"\n") + 1]):
        assert line_stats(sample, shape_terminal.bare_crs(sample)) == line_stats(sample)
        if shape_terminal.bare_crs(data) == 0:  # (as describe hands it over: the whole sample's count)
            assert line_stats(sample, 0) == line_stats(sample)


def test_bare_carriage_returns_are_counted_once(monkeypatch):
    counted = []
    real = shape_terminal.bare_crs
    for owner in (shape, shape_terminal):
        monkeypatch.setattr(owner, "bare_crs", lambda sample: counted.append(1) or real(sample))
    crlf = b"".join(b"line %d of some text and more\r\n" % n for n in range(200))
    assert shape.describe(crlf, len(crlf), 200).content_type == "text"
    assert shape.describe(crlf, len(crlf) + 9000, 300).content_type == "text"
    assert len(counted) == 2  # (once a describe: not again for the lone \r line ends)
    monkeypatch.setattr(ftext, "_CR_PAIR", None)  # (a search for \r\r would fail)
    assert shape.describe(crlf, len(crlf), 200).text.startswith("text, 200 lines, longest 31 bytes, 0% blank")


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_describe_of_real_outputs_with_the_full_paths(path):
    data = path.read_bytes()
    for crlf in (False, True):  # (each real output with its line ends made \r\n too)
        text = data.replace(b"\n", b"\r\n") if crlf else data
        for size in (1024, 4096, 16_384, 65_536):
            for start in range(0, max(1, len(text) - size), max(1, len(text) // 7)):
                piece = text[start : start + size]
                lines = piece.count(b"\n") + (piece[-1:] not in (b"", b"\n"))
                for whole in (len(piece), len(piece) + 5000):
                    fast = shape.describe(piece, whole, lines)
                    with full_paths():
                        assert shape.describe(piece, whole, lines) == fast, (path.name, start, len(piece), crlf)
