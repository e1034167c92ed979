"""The fast paths of shape detection (issue 16, "shapefast": fewer passes over a small sample) give what the full
paths they stand for give: each against a copy of the code before it (or the definition it implements), on random
texts built from the lines the kinds look for (delimiters, aligned tables after a preamble, grep output, JSON starts,
HTML, terminal escapes, blank lines, CRLF, non-UTF-8 bytes) and on the real outputs of ``fixtures/``; and
``describe`` with every fast path swapped for its full path gives the same shape. Each fast path is also shown to be
taken (the passes it saves are not made)."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import shape, shape_aligned, shape_table, shape_terminal, stub
from scratchfs.engine.structure import aligned, aligned_lines, table_start
from scratchfs.foundation import text as ftext
from scratchfs.foundation.text import quote

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL = sorted(p for p in [*FIXTURES.iterdir(), *(FIXTURES / "tools").iterdir()]
              if p.suffix in (".txt", ".csv", ".tsv", ".json", ".html", ".xml"))

LINES = st.one_of(
    st.sampled_from([
        b"USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND",
        b"root           1  0.0  0.1 167744 11520 ?        Ss   Dec03   0:04 /sbin/init splash",
        b"www-data   12345 12.5  1.0  98765  4321 pts/0    R+   10:12   1:23 nginx: worker",
        b"Filesystem      Size  Used Avail Use% Mounted on", b"/dev/sda1        50G   20G   28G  42% /",
        b"top - 10:00:01 up 1 day,  2 users,  load average: 0.00, 0.01, 0.05", b"----------  -------",
        b"NAME    READY   STATUS    RESTARTS   AGE", b"web-1   1/1     Running   0          2d",
        b"src/a.py:12:    def f(self,  x):", b"src/a.py:13-    pass", b"lib/b.c:7:x", b"Dec  3 02:31:21 host x",
        b"2026-11-30 12:00:01 INFO started", b"[ERROR] failed", b"  DEBUG x", b"id,name,score", b'1,"a, b",2',
        b"3,x,4", b"x\ty\tz", b"1\t2\t3", b"a;b;c", b"1;2,5;3", b"sep=;", b'{"a": 1, "b": [1, 2]}', b"[1, 2]",
        b"<h1>Title</h1>", b"<html><body>", b"<?xml version='1.0'?><root/>", b"", b"", b"\r", b"\r\r", b"\x00",
        b"caf\xe9", b"caf\xc3\xa9", b"\xe2\x82", b"\x1b[32mok\x1b[0m", b"10%\r20%\r30%", b"_\bX\bX", b"\x01\x02",
        b"     ", b"\f\v", b"    \"key\": \"value\",", b"  }", b"p" * 300 + b":1:",
    ]),
    st.text(alphabet=" \t:,;-0123456789abcAZ[]{}\"\\é\r", max_size=40).map(str.encode),
)
TEXTS = st.builds(
    lambda lines, sep, end, start: start + sep.join(lines) + end,
    st.lists(LINES, max_size=70), st.sampled_from([b"\n", b"\n", b"\r\n", b"\n\n", b"\r"]),
    st.sampled_from([b"", b"\n", b"\r\n"]), st.sampled_from([b"", b"", b"\xef\xbb\xbf", b"{", b"<", b"\n", b"  "]),
)


# -- the full paths, as they were before the fast paths ------------------------------------------------------------

def full_line_stats(sample: bytes, bare: int | None = None) -> tuple[int, int, int]:
    """:func:`~scratchfs.foundation.text.line_stats` by its definition: one split, every row looked at."""
    pieces = sample.split(b"\n")
    if sample.endswith(b"\n"):
        pieces.pop()
    return len(pieces), max(map(len, pieces)), sum(not piece.strip(b"\r") for piece in pieces)


def full_bare_crs(sample: bytes) -> int:
    return sample.count(b"\r") - sample.count(b"\r\n")


def full_table_head(text: str, whole) -> str:
    head = text[: shape_table.HEAD_CHARS]  # (2 line ends: \n, or \r in text without one, as a rows read cuts lines)
    return head if (head.count("\n") if "\n" in head else head.count("\r")) >= 2 else whole()


_RUN = re.compile(r"\d+|[^\W\d_]+")


def full_pattern(cell: str) -> str:
    return _RUN.sub(lambda run: "9" if run.group()[0].isdigit() else "a", cell.strip())


def full_first_row_is_data(rows: list[list[str]]) -> bool:
    body = rows[1:21]
    if len(body) < 4:
        return False
    votes = 0
    for column, cell in enumerate(rows[0]):
        patterns = {full_pattern(row[column]) for row in body if column < len(row)}
        if len(patterns) <= 3 and all("9" in pattern for pattern in patterns):
            votes += 1 if full_pattern(cell) in patterns else -1
    return votes > 0


def full_header_candidates(lines: list[str]) -> list[int]:
    most = aligned.MAX_PREAMBLE
    after = [at + 1 for at in range(1, min(len(lines) - 1, most)) if aligned_lines.is_blank(lines[at])]
    ruled = next((at - 1 for at in range(2, min(len(lines), most + 2)) if not aligned_lines.is_row(lines[at])
                  and not aligned_lines.is_blank(lines[at])), 0)
    titled = next((at + 1 for at in range(min(len(lines) - 1, most)) if lines[at].rstrip(" \r").endswith(":")), 0)
    first = (ruled,) if ruled and aligned_lines.is_row(lines[1]) else ()
    return [at for at in dict.fromkeys((*first, 0, 1, *after[:1], ruled, titled, *after[1:])) if at < len(lines)
            and aligned.may_be_header(lines[at])]


def full_split(self: aligned.Layout, line: str) -> list[str]:
    line = line.rstrip(" \r\n")
    if self.rule == aligned.RUNS:
        cells = re.split(r" +", line.lstrip(" "), maxsplit=len(self.starts) - 1) if line.strip(" ") else []
        return cells + [""] * (len(self.starts) - len(cells))
    ends = (*self.starts[1:], len(line))
    return [line[start:end].strip(" ") for start, end in zip(self.starts, ends, strict=True)]


@contextlib.contextmanager
def full_paths():
    """``describe`` with every fast path above swapped for its full path."""
    swaps = [(shape, "line_stats", full_line_stats), (shape_terminal, "bare_crs", full_bare_crs),
             (shape, "bare_crs", full_bare_crs),
             (shape, "table_head", full_table_head), (table_start, "cell_pattern", full_pattern),
             (shape_table, "first_row_is_data", full_first_row_is_data),
             (shape_aligned, "first_row_is_data", full_first_row_is_data),
             (shape_aligned, "header_candidates", full_header_candidates), (aligned.Layout, "split", full_split)]
    with swapped(swaps):
        yield


@contextlib.contextmanager
def swapped(swaps: list):
    """Each ``(owner, name, full)`` of ``swaps`` set as ``owner.name`` inside the block, the fast one put back."""
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in swaps]
    try:
        for owner, name, full in swaps:
            setattr(owner, name, full)
        yield
    finally:
        for owner, name, fast in saved:
            setattr(owner, name, fast)


def full_json_bytes(text: str) -> int:
    literal = quote(text)
    return len(literal) if literal.isascii() else len(literal.encode("utf-8"))


def lines_of(data: bytes) -> int:
    return data.count(b"\n") + (data[-1:] not in (b"", b"\n"))


# -- each fast path against its full path ---------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(0, 3))
@example(b"\n" * 40_000, 0)  # (a dense sample past the size split at once)
@example(b"ab\n" * 12_000, 0)
@example(b"a\r\r\n\r\n", 0)
def test_line_stats_as_defined(data, repeat):
    data = data * (repeat + 1)
    assert ftext.line_stats(data) == full_line_stats(data)
    for cut in (16, 17, 4095, 32 * 1024, 32 * 1024 + 1):  # (about the density and size bounds)
        assert ftext.line_stats(data[:cut]) == full_line_stats(data[:cut])


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_the_other_fast_paths_against_their_full_paths(data):
    assert shape_terminal.bare_crs(data) == full_bare_crs(data)
    text = data.decode("utf-8", "replace")
    assert shape_table.table_head(text, lambda: text + "!") == full_table_head(text, lambda: text + "!")
    lines = aligned.head_lines(text, True)
    assert aligned.header_candidates(lines[:9]) == full_header_candidates(lines[:9])
    rows = [re.split(r" +|,|\t", line.strip()) for line in text.split("\n")[:22]]
    assert shape_table.first_row_is_data(rows) == full_first_row_is_data(rows)
    for cell in (cell for row in rows for cell in row):
        assert table_start.cell_pattern(cell) == full_pattern(cell)
    found = aligned.find_table(lines)
    if found is not None:
        for rule in (aligned.RUNS, aligned.FIXED):
            layout = aligned.Layout(found[0].names, found[0].starts, rule)
            assert [layout.split(line) for line in lines] == [full_split(layout, line) for line in lines]


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(), st.text(alphabet="\x00\x01\x08\t\n\x0b\x0c\r\x1b\x1f \"\\/\x7fé\u2028\u2029\ufffd😀\ud800"),
                 TEXTS.map(lambda data: data.decode("utf-8", "replace"))))
@example("a\ud800b")  # (a lone surrogate: both raise)
def test_json_bytes_counted_as_written(text):
    try:
        expected: int | type = full_json_bytes(text)
    except UnicodeEncodeError:
        expected = UnicodeEncodeError
    try:
        assert stub._json_bytes(text) == expected
    except UnicodeEncodeError:
        assert expected is UnicodeEncodeError


@pytest.mark.parametrize("cell", ["x²", "²x", "٣4", "Ⅻ", "é9", " 4.0K ", "v1.2.3", "", "a_b", "1-2"])
def test_a_pattern_of_non_ascii_or_odd_cells(cell):
    assert table_start.cell_pattern(cell) == full_pattern(cell)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(0, 2), st.integers(0, 3000))
def test_describe_with_the_full_paths_gives_the_same_shape(data, repeat, more):
    data = data * (repeat + 1)
    for size, lines in ((len(data), lines_of(data)), (len(data) + more, lines_of(data) + more // 7)):
        fast = shape.describe(data, size, lines)
        with full_paths():
            full = shape.describe(data, size, lines)
        assert fast == full


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_describe_of_real_outputs_with_the_full_paths(path):
    data = path.read_bytes()
    pieces = [data[:4096], data[:16384], data[: shape.SAMPLE_BYTES], data[5000:9096], data[70_000:86_384]]
    for piece in (p for p in pieces if p):
        for size, lines in ((len(piece), lines_of(piece)), (len(data), lines_of(data))):
            fast = shape.describe(piece, size, lines)
            with full_paths():
                full = shape.describe(piece, size, lines)
            assert fast == full


# -- the fast paths are taken ---------------------------------------------------------------------------------------

def test_a_preview_is_counted_not_written(monkeypatch):
    monkeypatch.setattr(stub, "quote", lambda text: pytest.fail("written"))
    # 15 characters as they are, 2 quotes, 5 escaped in 2 bytes, one in 6 (\\u0001), é in 2
    assert stub._json_bytes('line "one"\n\tline\x01two\\é') == 35


class CountedBytes(bytes):
    """Bytes that note each ``count`` of all of them (a pass over all of them; one of the first KiB is not)."""

    counts = 0

    def count(self, sub, start=None, end=None):  # type: ignore[override]
        CountedBytes.counts += end is None or end - (start or 0) > 1024
        return super().count(sub, start, end)


def test_crlf_text_is_not_counted_for_terminal_controls():
    CountedBytes.counts = 0
    assert shape_terminal.terminal_controls(CountedBytes(b"1,a,the rest of the row\r\n" * 200)) == ""
    assert CountedBytes.counts == 0  # (three counts before: backspaces, carriage returns, CRLF pairs)


def test_a_small_sample_is_split_without_a_count_of_its_newlines():
    CountedBytes.counts = 0
    assert ftext.line_stats(CountedBytes(b"x" * 50 + b"\n\nmore\r\n" * 1 + b"")) == (3, 50, 1)
    assert ftext.line_stats(CountedBytes((b"x" * 50 + b"\n\nmore\r\n") * 200)) == (600, 50, 200)
    assert CountedBytes.counts == 0


def test_a_column_stops_at_its_first_cell_without_a_digit(monkeypatch):
    seen: list[str] = []
    monkeypatch.setattr(table_start, "cell_pattern", lambda cell: seen.append(cell) or full_pattern(cell))
    rows = [["USER", "PID"], *(["u" * (n + 1), str(n)] for n in range(20))]
    assert not shape_table.first_row_is_data(rows)
    assert "u" in seen and "uu" not in seen  # (USER's column: its first cell, "a", ends it; PID's: all 20)


def test_text_with_no_header_like_line_looks_at_no_row(monkeypatch):
    looked: list[str] = []
    monkeypatch.setattr(aligned, "is_row", lambda line: looked.append(line) or True)
    lines = ['    "key": "value",', "    ----", '    "other": 1'] * 4
    assert aligned.header_candidates(lines) == []
    assert looked == []
