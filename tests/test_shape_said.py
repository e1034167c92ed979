"""What the reads take from a stored shape is read where the shape's words are ours, never from the content's words
beside them (scratchfs.api.shape_said, shape_table.is_headless, shape_aligned.header_line).

Two halves: every shape of the golden record's contents (fixtures at many sizes, generated tool outputs) is read back
as what its content is -- bytes not UTF-8, terminal controls, lone-\\r line ends, counted from the content itself --
so the readers cannot drift from the writers; and contents whose own words hold those of a shape (a header cell
", no header, ", a traceback message naming escape sequences, a JSON key naming "bytes not UTF-8")
are read as what they are, through the store's reads."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.api.shape_aligned import header_line
from scratchfs.api.shape_said import (
    GREP_SAID,
    NOT_UTF8,
    browser_decodes_said,
    cr_ends_said,
    not_utf8_clause,
    not_utf8_said,
    plain_head,
    plain_said,
    read_as_said,
    split_by_controls,
)
from scratchfs.api.shape_table import is_headless
from scratchfs.api.shape_terminal import TERMINAL_SHAPE, controls_said, lone_cr_line_ends, terminal_controls
from scratchfs.foundation.text import invalid_utf8_bytes
from tests import golden_spill

CONTENTS = dict([*golden_spill.fixture_contents(), *golden_spill.generated_contents()])
SPOOF = ("4 bytes" + NOT_UTF8 + ", 3 escape sequences and 2 backspace overstrikes, 5 lines ending in a lone \\r, which "
         "line reads do not count (they count \\n), " + GREP_SAID)  # (a log's shape keeps its first ~60 characters)


def _lines(data: bytes) -> int:
    return data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))


def _odd(sample: bytes, complete: bool) -> bool:
    return invalid_utf8_bytes(sample if complete else sample[:-3]) > 0


@pytest.mark.parametrize("name", sorted(CONTENTS))
def test_every_recorded_shape_reads_back_as_its_content_is(name):
    data = CONTENTS[name]
    shape = describe(data, len(data), _lines(data))
    sample, complete = data[:SAMPLE_BYTES], len(data) <= SAMPLE_BYTES
    said = plain_said(shape.text)
    if shape.content_type in ("text", "log") and shape.text.startswith(("text,", "log,", "terminal output,")):
        assert said is not None, shape.text
        controls = terminal_controls(sample, complete)
        assert said.controls == controls if shape.text.startswith("terminal output") else not said.controls
        assert said.not_utf8 == _odd(sample, complete)
        assert said.cr_ends == (not controls and lone_cr_line_ends(sample) > 0)
        assert said.grep == (GREP_SAID in shape.text)  # (no content of the record holds these words)
    elif shape.content_type != "binary":
        assert said is None
        assert not_utf8_said(shape.text) == (NOT_UTF8 in shape.text)
    assert split_by_controls(shape.text) == (shape.content_type == "log" and (
        b"\x1b[" in sample or b"\b" in sample) and shape.text.startswith("terminal output"))


def test_a_header_cell_saying_no_header_is_a_header(tmp_path):
    headed = ['"id","x, no header, y",name'] + [f"{i},{i * 2},name{i}" for i in range(2000)]
    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("r", "a")
        for lines, header in ((headed, ["id", "x, no header, y", "name"]), (headed[1:], None)):
            stub = scope.spill(("\n".join(lines) + "\n").encode(), source_tool="t")
            assert is_headless(stub.shape) == (header is None), stub.shape
            page = scope.structure.rows(stub.handle, rows=2)
            assert page.items == [["0", "0", "name0"], ["1", "2", "name1"]]
            assert page.extra.get("header") == header
    assert '("x, no header, y")' not in stub.shape  # (the cell's name quoted in the headed shape: one name)


@settings(max_examples=60, deadline=None)
@given(names=st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30),
                      min_size=2, max_size=5), headed=st.booleans(), delimiter=st.sampled_from([",", "\t", ";"]))
def test_no_header_is_read_from_the_shapes_own_words(names, headed, delimiter):
    from scratchfs.api.shape_table import table_kind

    kind = table_kind(delimiter, None, len(names), headed)
    listed = ", ".join([*names, ", no header, "])  # (a column list after it may say anything)
    assert is_headless(f"{kind} ({listed}), 3 rows" if headed else f"{kind}, 3 rows, {listed}") == (not headed)


def test_a_tables_preamble_is_told_before_its_columns_and_survives_a_long_shape(tmp_path):
    # `top -bn1`-like: 3 lines before the header; 18 long column names fill the shape, which is clipped at its end
    names = [f"COLUMN_NAME_{i:02d}_ABCDEFGHIJ" for i in range(18)]
    preamble = [b"top - 10:00:00 up 5 days,  load average: 0.1, 0.2", b"Tasks: 91 total", b""]
    header = "  ".join(names).encode()
    rows = ["  ".join(f"{r * 100 + c:<{len(n)}}" for c, n in enumerate(names)).encode() for r in range(40)]
    data = b"\n".join([*preamble, header, *rows]) + b"\n"
    shape = describe(data, len(data), _lines(data))
    assert shape.text.startswith("table aligned by spaces, the header is line 4, after 3 lines"), shape.text
    assert header_line(shape.text) == 3
    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="top")
        page = scope.structure.rows(stub.handle, rows=1)
        assert page.items == [[str(c) for c in range(18)]] and page.extra["header"] == names, page


def test_a_shape_naming_a_preamble_only_in_a_column_name_has_none():
    assert header_line("table aligned by spaces, 3 columns: A, the header is line 7, after 6 lines, B, 4 rows") == 0
    assert header_line("table aligned by spaces, the header is line 7, after 6 lines (line=1, lines=6 reads them); "
                       "3 columns: A, B, C, 4 rows") == 6


def test_a_logs_own_words_naming_a_texts_facts_are_no_facts(tmp_path):
    # a log whose first traceback's message, in its shape, holds every word a text's head may say
    lines = [f"2026-12-05 02:{i // 60:02d}:{i % 60:02d},000 INFO worker {i} done" for i in range(300)]
    lines[10:10] = ["2026-12-05 02:00:10,000 ERROR failed", "Traceback (most recent call last):",
                    '  File "w.py", line 3, in <module>', f"ValueError: {SPOOF}"]
    data = ("\n".join(lines) + "\n").encode()
    shape = describe(data, len(data), _lines(data))
    assert shape.content_type == "log" and SPOOF[:40] in shape.text, shape.text  # (NOT_UTF8's words)
    said = plain_said(shape.text)
    assert said == (False, "", False, False)
    assert not split_by_controls(shape.text) and not not_utf8_said(shape.text)
    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="log")
        missed = scope.read_handle(stub.handle, match="caf\u00e9 cr\u00e8me")
        assert not missed.windows and (missed.note is None or "not UTF-8" not in missed.note), missed.note


def test_a_json_key_naming_bytes_not_utf8_says_nothing_of_its_bytes():
    doc = {"a": 1, f"x{NOT_UTF8}": [0] * 4000}
    data = json.dumps(doc).encode()
    shape = describe(data, len(data), 1)
    assert NOT_UTF8 in shape.text, shape.text
    assert not not_utf8_said(shape.text)
    latin = data.replace(b'"a"', b'"\xe9"')
    assert not_utf8_said(describe(latin, len(latin), 1).text)


def test_an_html_pages_last_heading_naming_bytes_not_utf8_says_nothing_of_its_bytes():
    """An HTML shape ends with its headings, the page's own words: a last heading '...; 3 bytes not UTF-8 (shown as
    U+FFFD)' read as the count a shape ends with when its bytes are not UTF-8 (hostile2 helper). A heading holding a
    ';' or a '|' is listed in JSON quotes; a page whose bytes are not UTF-8 still says so."""
    spoof = f"t; 3 bytes{NOT_UTF8}"
    for body in (f"<h1>{spoof}</h1>", f"<h2>a</h2><h3>{spoof}</h3>", f"<h2>x | h3 {spoof}</h2>"):
        data = f"<html><head><title>p</title></head><body>{body}<p>{'text ' * 20}</p></body></html>".encode()
        shape = describe(data, len(data), 1)
        assert shape.content_type == "html" and NOT_UTF8 in shape.text, shape.text
        assert not not_utf8_said(shape.text) and shape.text.endswith(f'{spoof}"'), shape.text
        latin = data.replace(b"<p>", "<p>caf\u00e9".encode("latin-1"), 1)
        assert not_utf8_said(describe(latin, len(latin), 1).text)


def test_a_test_runs_own_words_saying_coloured_make_no_coloured_output():
    from scratchfs.api.shape_terminal import COLOURED, coloured

    # a pytest -v run whose failing test's id holds the words a coloured kind's shape starts with; no escape in it
    name = f"test_x[coloured (3 escape sequences{COLOURED.rstrip()}]"
    bar = "=" * 29
    lines = [f"{bar} test session starts {bar}", "collected 40 items", "",
             *(f"t.py::test_{i} PASSED" for i in range(39)), f"t.py::{name} FAILED", "",
             f"{bar}===== FAILURES ====={bar}", f"___ {name} ___", "E   assert 0",
             f"{bar} short test summary info {bar}", f"FAILED t.py::{name} - assert 0",
             f"{bar} 1 failed, 39 passed in 0.10s {bar}"]
    data = ("\n".join(lines) + "\n").encode()
    shape = describe(data, len(data), _lines(data))
    assert shape.text.startswith("test run (pytest)") and "coloured (3 escape" in shape.text, shape.text
    assert not coloured(shape.text) and not split_by_controls(shape.text)


_FACTS = st.fixed_dictionaries({
    "name": st.sampled_from(["text", "log", TERMINAL_SHAPE]), "lines": st.integers(0, 10**9),
    "longest": st.integers(0, 10**9), "blank": st.floats(0, 1), "at_least": st.booleans(),
    "odd": st.integers(0, 10**6), "read_as": st.sampled_from(["", read_as_said("cp1252"), read_as_said("latin-1")]),
    "controls": st.tuples(*[st.integers(0, 10**6)] * 3), "lone_cr": st.integers(0, 10**6), "grep": st.booleans()})
_AFTER_HEAD = st.one_of(st.just(""), st.just(" (in the first 512 KiB of 2.0 MiB)"), st.just(" (3 files in all)"),
                        st.text().map(lambda raised: f", 2 errors (first at line 4: {raised})"))


@given(_FACTS, _AFTER_HEAD)
@settings(max_examples=300, deadline=None)
def test_what_plain_head_writes_plain_said_reads_back(facts, after):
    """The head of a text's shape is written (plain_head, controls_said) and read (PLAIN_HEAD) in one module each
    beside the other: any facts written are the facts read, whatever follows the head (a log's events, the content's
    words in them, the sample's scope)."""
    controls = controls_said(*facts["controls"]) if facts["name"] == TERMINAL_SHAPE else ""
    head = plain_head(facts["name"], facts["lines"], facts["longest"], facts["blank"], at_least=facts["at_least"],
                      odd=facts["odd"], read_as=facts["read_as"] if facts["odd"] else "", controls=controls,
                      lone_cr=facts["lone_cr"], grep=facts["grep"])
    said = plain_said(head + after)
    assert said == (facts["odd"] > 0, controls, facts["lone_cr"] > 0, facts["grep"]), head + after
    assert cr_ends_said(head + after) == (facts["lone_cr"] > 0)
    assert not_utf8_said(head + after) == (facts["odd"] > 0)


@given(st.text(), st.integers(1, 10**9), st.integers(0, 2**40),
       st.sampled_from(["", read_as_said("latin-1"), browser_decodes_said("windows-1252")]))
@settings(max_examples=200, deadline=None)
def test_what_not_utf8_clause_writes_not_utf8_said_reads_back(shape, odd, sampled, read_as):
    """The last clause of a structured shape whose bytes are not UTF-8, after any shape text (a page's headings, a
    JSON document's keys), is read back; the same shape without the clause says so only if its own last words are
    that very clause (the writer's: describe clips the shape and appends the clause)."""
    assert not_utf8_said("table, 3 columns: " + shape + not_utf8_clause(odd, sampled, read_as))
    assert not not_utf8_said("table, 3 columns: " + shape + not_utf8_clause(odd, sampled, read_as) + ", x")


def test_a_coloured_logs_head_is_read_after_the_words_saying_it_is_coloured():
    """A log whose only controls are colours is told as a log after "coloured (N escape sequences; ...): " (merge of
    kinds3): its head's facts -- here a byte that is not UTF-8 -- are read there, as a plain log's are."""
    lines = [f"2026-12-05 06:{i // 60:02d}:{i % 60:02d} \x1b[32mINFO\x1b[0m worker {i} done" for i in range(200)]
    lines[7] = "2026-12-05 06:00:07 \x1b[31mERROR\x1b[0m caf\xe9 failed"
    data = ("\n".join(lines) + "\n").encode("latin-1")
    shape = describe(data, len(data), _lines(data))
    assert shape.text.startswith("coloured (") and ": log, 200 lines" in shape.text, shape.text
    said = plain_said(shape.text)
    assert said is not None and said.not_utf8 and not said.controls and not said.grep, shape.text
    assert not_utf8_said(shape.text) and split_by_controls(shape.text)
