"""A first ``row=N`` (``record=N``) passes over the rows before N by counting the lines of stretches with no quote
(:mod:`scratchfs.engine.structure.row_jump`), and gives exactly the rows the ``csv`` module gives (records as the
lines that are not blank): generated CSV with quoted fields holding line ends, delimiters and quotes, a quote inside
an unquoted field, blank lines, ``\\r\\n``, ``\\n\\r`` and lone ``\\r`` line ends, a last line with no line end; read
through windows of a few bytes, and through a store whose frames are 4 KiB. The cursor of the page it gives goes on
exactly."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import BytesSource, records_page, row_jump, rows_page
from scratchfs.foundation.errors import InvalidArgument

_ENDS = st.sampled_from(["\n", "\r\n", "\n", "\r\n", "\r", "\n\r"])
_CELL = st.text(st.sampled_from('ab ,"\n\r\t'), max_size=6)


@st.composite
def _tables(draw) -> str:
    """CSV text: a header, rows the ``csv`` writer writes (any quoting), raw lines (a quote inside an unquoted
    field, a lone quote), blank lines, mixed line ends; the last line's end maybe left off."""
    out = ["x,y,z" + draw(_ENDS)]
    for _ in range(draw(st.integers(0, 60))):
        kind = draw(st.sampled_from(["plain"] * 6 + ["written", "raw", "blank"]))
        end = draw(_ENDS)
        if kind == "plain":
            out.append(",".join(draw(st.lists(st.text("ab1 ", max_size=draw(st.sampled_from([5, 5, 40]))),
                                              min_size=1, max_size=3))) + end)
        elif kind == "written":
            text = io.StringIO()
            quoting = draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]))
            csv.writer(text, lineterminator=end, quoting=quoting).writerow(draw(st.lists(_CELL, min_size=1,
                                                                                          max_size=3)))
            out.append(text.getvalue())
        elif kind == "raw":
            out.append(draw(st.text(st.sampled_from('ab,"'), min_size=1, max_size=8)) + end)
        else:
            out.append(end)
    text = "".join(out)
    return text.rstrip("\r\n") if draw(st.booleans()) else text


def _csv_rows(text: str) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(text, newline="")) if row]


@pytest.fixture
def small_windows(monkeypatch):
    """Windows of 64 bytes, a quote 16 bytes on sends the rows back to be counted: every path is met."""
    monkeypatch.setattr(row_jump, "WINDOW_BYTES", 64)
    monkeypatch.setattr(row_jump, "QUOTE_GAP_BYTES", 16)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_tables(), pick=st.floats(0, 1.2), rows=st.integers(1, 5))
def test_row_n_is_the_rows_the_csv_module_reads(small_windows, text, pick, rows):
    wanted = _csv_rows(text)
    body = wanted[1:]
    n = 1 + int(pick * len(body))
    source = BytesSource(text.encode())
    if n > max(1, len(body)):  # (one past the last too: helper replies6)
        with pytest.raises(InvalidArgument, match=rf"row {n} is past the last row \({len(body)}\)"):
            rows_page(source, n, rows, delimiter=",")
        return
    page = rows_page(source, n, rows, delimiter=",", budget_bytes=65536)
    assert page.extra["header"] == wanted[0]
    assert page.items == body[n - 1 : n - 1 + rows]
    if page.cursor is not None:  # (the next page goes on exactly)
        assert rows_page(source, cursor=page.cursor, rows=rows, delimiter=",", budget_bytes=65536,
                         ).items == body[n - 1 + rows : n - 1 + 2 * rows]


_FIXED = ('x,y\n1,2\r\n\r\n3,4\r\n\r\n\r\n5\n\n6,"a\n\r\nb"\n7\r8\n\r9\r\n\n' + "long line, no quote at all in it\n" * 3
          + '1,a"b\n2,"x""y",z\n"3\n\n"\n' + "\r\n".join(map(str, range(40))) + "\n\r\n\nlast")


@pytest.mark.parametrize("window", [*range(4, 80), 4096])
def test_every_row_n_of_a_table_of_every_line_end_and_blank_line(monkeypatch, window):
    """Every window size of a few bytes: a window may end anywhere (inside a ``\\r\\n``, before a blank line)."""
    monkeypatch.setattr(row_jump, "WINDOW_BYTES", window)
    monkeypatch.setattr(row_jump, "QUOTE_GAP_BYTES", window // 4)
    body = _csv_rows(_FIXED)[1:]
    for n in range(1, len(body) + 1):
        assert rows_page(BytesSource(_FIXED.encode()), n, 2, delimiter=",").items == body[n - 1 : n + 1], n
    with pytest.raises(InvalidArgument, match=rf"row {len(body) + 1} is past the last row \({len(body)}\)"):
        rows_page(BytesSource(_FIXED.encode()), len(body) + 1, 2, delimiter=",")  # (one past the last: replies6)
    fixed = "\n".join(["1", "", " ", '"a"', "\r", "\t \r", "2\r", *map(str, range(30)), "", "[]"]).encode()
    values = [json.loads(line) for line in fixed.split(b"\n") if line.strip()]
    for n in range(1, len(values) + 1):
        assert records_page(BytesSource(fixed), n, 2).items == values[n - 1 : n + 1], n


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_tables(), pick=st.floats(0, 1))
def test_row_n_of_a_table_with_no_header_line(small_windows, text, pick):
    wanted = _csv_rows(text)
    n = 1 + int(pick * (len(wanted) - 1))
    assert rows_page(BytesSource(text.encode()), n, 3, delimiter=",", headed=False, budget_bytes=65536,
                     ).items == wanted[n - 1 : n + 2]


_BLANKS = st.sampled_from(["", " ", "\t", "\r", " \r", "\x0c"])


@st.composite
def _records(draw) -> tuple[bytes, list]:
    """JSON lines: records (some ending ``\\r\\n``), blank lines of whitespace, maybe a byte order mark; the last
    line's end maybe left off."""
    lines, values = [], []
    for _ in range(draw(st.integers(0, 60))):
        if draw(st.integers(0, 3)):
            value = draw(st.one_of(st.integers(), st.text("ab \"\\", max_size=5), st.lists(st.integers(), max_size=2)))
            values.append(value)
            lines.append(json.dumps(value) + draw(st.sampled_from(["", "\r", " "])))
        else:
            lines.append(draw(_BLANKS))
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n"]))
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode(), values


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_records(), pick=st.floats(0, 1.2), records=st.integers(1, 5))
def test_record_n_is_the_nth_line_that_is_not_blank(small_windows, data, pick, records):
    content, values = data
    n = 1 + int(pick * len(values))
    source = BytesSource(content)
    if n > len(values) and not (n == 1 and not values):
        with pytest.raises(InvalidArgument, match=rf"record {n} is past the last record \({len(values)}\)"):
            records_page(source, n, records)
        return
    page = records_page(source, n, records, budget_bytes=65536)
    assert page.items == values[n - 1 : n - 1 + records]
    if page.cursor is not None:
        assert records_page(source, cursor=page.cursor, records=records, budget_bytes=65536,
                            ).items == values[n - 1 + records : n - 1 + 2 * records]


def test_a_jsonl_line_longer_than_the_bound_before_record_n_is_refused_as_before(small_windows, monkeypatch):
    from scratchfs.engine.structure import jsonl_records

    monkeypatch.setattr(jsonl_records, "MAX_RECORD_BYTES", 100)
    content = b"1\n" + b"[" + b"0," * 150_000 + b"0]\n2\n3\n"  # (over a 256 KiB chunk: iter_lines holds it)
    with pytest.raises(InvalidArgument, match="longer than 100 bytes"):
        records_page(BytesSource(content), 3, 1)


_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "query-packages-by-month.csv"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(end=st.sampled_from(["\n", "\r\n"]), every=st.sampled_from([1, 3, 50, 10**9]), pick=st.floats(0, 1),
       odd=st.sampled_from(['said "hi",\nthen left', "a,b", '"', "\r\n\n"]))
def test_row_n_of_a_stored_table_over_many_frames_and_its_next_call(small_frames_store, end, every, pick, odd):
    """The same through the tools, a store of 4 KiB frames, the real 1 MiB windows: the fixture's rows repeated
    (about 300 KB), a field holding ``odd`` every ``every`` rows; row N, and the call its reply names, give the
    module's rows."""
    rows = list(csv.reader(io.StringIO(_FIXTURE.read_text(), newline="")))
    body = [row[:3] for row in rows[1:]] * 4
    body = [[*row[:2], odd] if n % every == 1 else row for n, row in enumerate(body)]
    text = io.StringIO()
    csv.writer(text, lineterminator=end).writerows([rows[0][:3], *body])
    tools = ScratchTools(small_frames_store.scope("t", "rows"))
    handle = tools.scope.spill(text.getvalue().encode(), source_tool="sql.query").handle
    n = 1 + int(pick * (len(body) - 1))
    reply = tools.call("read_handle", {"handle": handle, "row": n, "rows": 4, "budget": 16384})
    assert reply["rows"] == body[n - 1 : n + 3], reply
    if reply.get("next_call"):
        verb, arguments = parse_call(reply["next_call"])
        assert tools.call(verb, arguments)["rows"] == body[n + 3 : n + 7]


def _counting(monkeypatch, module, name: str) -> list[int]:
    """How many lines ``module.name`` (a line reader) hands out, counted."""
    real, handed = getattr(module, name), [0]

    def counted(*args, **kwargs):
        for item in real(*args, **kwargs):
            handed[0] += 1
            yield item

    monkeypatch.setattr(module, name, counted)
    return handed


def test_row_n_parses_no_row_before_it_that_holds_no_quote(monkeypatch):
    """Before, row 20,000 handed the 20,000 lines before it to the ``csv`` module (4 us a row); now only the lines
    near a quote are, here the header, row 1 and the page."""
    from scratchfs.engine.structure import table_reader

    handed = _counting(monkeypatch, table_reader, "iter_row_lines")
    data = b"a,b\n" + b"".join(b"%d,x\n" % n for n in range(30_000)) + b'"q\n",1\n' + b"end,1\n" * 10
    page = rows_page(BytesSource(data), 20_000, 3)
    assert page.items == [["19999", "x"], ["20000", "x"], ["20001", "x"]]
    assert handed[0] < 50, handed
    assert rows_page(BytesSource(data), 30_002, 2).items == [["end", "1"]] * 2


def test_record_n_reads_no_record_before_it(monkeypatch):
    from scratchfs.engine.structure import jsonl_records

    handed = _counting(monkeypatch, jsonl_records, "iter_lines")
    data = b"".join(b'{"n": %d}\n' % n for n in range(30_000))
    assert records_page(BytesSource(data), 20_000, 2).items == [{"n": 19_999}, {"n": 20_000}]
    assert handed[0] < 50, handed


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.sampled_from([b"", b" ", b"\t\r", b'{"a": 1}', b"x" * 20, b"\xef\xbb\xbf", b"\xef\xbb\xbf "]),
                      max_size=14), window=st.sampled_from([5, 16, 1024 * 1024]))
def test_the_record_on_a_line_is_the_line_less_the_blank_lines_before_it(lines, window, monkeypatch):
    """:func:`row_jump.record_at_line` (a jq parse error's line, as a ``record=``) against the plain answer: the
    lines before it that are not blank (a byte order mark at the start no part of the first), through windows of a few
    bytes (lines across them, lines longer than them) and of a MiB."""
    monkeypatch.setattr(row_jump, "WINDOW_BYTES", window)
    data = b"\n".join(lines)
    before = [line[3:] if number == 0 and line.startswith(b"\xef\xbb\xbf") else line
              for number, line in enumerate(data.split(b"\n"))]
    for line in range(1, len(before) + 1):
        want = 1 + sum(1 for text in before[: line - 1] if text.strip())
        assert row_jump.record_at_line(BytesSource(data), line) == want, (data, line)


def test_line_offset_holds_no_object_per_line_of_a_window_of_blank_lines():
    """:func:`row_jump.line_offset` of the last line after 8 MiB of blank lines (a million newlines in each window
    it reads): once a list of a match per newline, 129 MiB at its peak and 1.6 s here; now counted in C, the
    window read the most it holds."""
    import tracemalloc

    data = b"\n" * (8 << 20) + b"x"
    tracemalloc.start()
    try:
        assert row_jump.line_offset(BytesSource(data), (8 << 20) + 1) == 8 << 20
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * row_jump.WINDOW_BYTES, peak


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from([b"a", b"\n", b"bc", b"\r\n", b"\n\n"]), max_size=60), line=st.integers(1, 40),
       window=st.integers(1, 9))
def test_line_offset_is_the_plain_split_s(parts, line, window, monkeypatch):
    """:func:`row_jump.line_offset` against the plain answer of a split at newlines (``None`` past the end), through
    windows of a few bytes; :func:`row_jump.newline_end` against ``str.index`` walked ``count`` times."""
    monkeypatch.setattr(row_jump, "WINDOW_BYTES", window)
    data = b"".join(parts)
    lines = data.split(b"\n")
    want = None if line > len(lines) else sum(len(text) + 1 for text in lines[: line - 1])
    assert row_jump.line_offset(BytesSource(data), line) == want
    for count in range(1, data.count(b"\n") + 1):
        at = -1
        for _ in range(count):
            at = data.index(b"\n", at + 1)
        assert row_jump.newline_end(data, count) == at + 1
    with pytest.raises(ValueError):
        row_jump.newline_end(data, data.count(b"\n") + 1)


def test_record_at_line_holds_no_object_per_line_of_a_window_of_blank_lines():
    """:func:`row_jump.record_at_line` of the last line after 8 MiB of blank lines: once a list of a match per
    newline and one of each blank line, 74 MiB at its peak (tracemalloc); now the window read the most it holds."""
    import tracemalloc

    data = b"\n" * (8 << 20) + b"{}"
    tracemalloc.start()
    try:
        assert row_jump.record_at_line(BytesSource(data), (8 << 20) + 1) == 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * row_jump.WINDOW_BYTES, peak
