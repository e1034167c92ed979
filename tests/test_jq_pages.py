"""jq pages whose outputs the worker cuts to what the page uses (``run_jq`` mode ``"page"``) hold exactly the
outputs of jq run in this process, in order, each page within its budget, whatever the budget, the page size and
whether cut outputs are kept between pages."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import jq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.engine.structure import BytesSource, jq_page
from scratchfs.engine.structure.jq_compile import compile_filter
from scratchfs.engine.structure.paging import CursorKey, decode_cursor

_value = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=40),
                      lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner,
                                                                                  max_size=6), max_leaves=30)


def _follow(data: bytes, flt: str, budget: int, max_results: int, cache_key: str | None) -> list:
    """Every output of ``flt`` by following cursors, cut outputs joined from their ``part`` pieces."""
    out: list = []
    piece = ""
    cursor = None
    while True:
        page = jq_page(BytesSource(data), flt, cursor, budget, max_results, cache_key)
        assert len(json.dumps(page.to_dict(), ensure_ascii=False, separators=(",", ":")).encode()) <= budget
        assert len(page.items) <= max_results
        cursor = page.cursor
        if page.part is not None:  # a piece of the page's first output: it ends unless the cursor is inside it
            piece += page.part
            if cursor is None or decode_cursor(cursor, 2, CursorKey(f"jq\0{flt}", len(data)))[1] == 0:
                out.append(json.loads(piece))
                piece = ""
        out.extend(page.items)
        if cursor is None:
            return out


@settings(max_examples=40, deadline=None)
@given(values=st.lists(_value | st.text(min_size=200, max_size=3000), max_size=12),
       budget=st.integers(256, 2000), max_results=st.integers(1, 8), keep=st.booleans())
def test_pages_of_outputs_equal_jq_in_process(values, budget, max_results, keep):
    data = json.dumps(values, ensure_ascii=False).encode()
    expected = jq.compile(".[]").input_text(data.decode()).all()
    key = f"pages-{hash((data, budget, max_results))}" if keep else None
    assert _follow(data, ".[]", budget, max_results, key) == expected


def test_one_output_larger_than_the_page_comes_in_parts_then_the_next_whole():
    data = json.dumps([{"big": "é" * 5000}, 1, [2, 3]], ensure_ascii=False).encode()
    first = jq_page(BytesSource(data), ".[]", budget_bytes=512)
    assert first.items == [] and first.part is not None and first.cursor is not None
    assert _follow(data, ".[]", 512, 10, None) == [{"big": "é" * 5000}, 1, [2, 3]]


def test_a_document_that_is_not_utf8_is_read_with_u_fffd_and_a_note():
    page = jq_page(BytesSource(b'{"a": "\xff\xfe caf\xe9"}'), ".a")
    assert page.items == ["\ufffd\ufffd caf\ufffd"]
    assert "not UTF-8 text" in page.extra["note"] and "3 bytes" in page.extra["note"] and "byte 7" in page.extra["note"]


@pytest.mark.parametrize(("text", "says"), [
    (".[", "unexpected end of the filter at the end of the filter"),
    (".foo |", "unexpected end of the filter at the end of the filter"),
    ("if . then 1", "at the end of the filter"),
    (".a\n| .b[", "at the end of the filter"),
    (".a)", "the filter closes a parenthesis it did not open"),
    (".a | bogus(1)", "bogus/1 is not defined at line 1, column 6: .a | bogus(1) ^^^^^"),
    (".a |\n .b | nope", "nope/0 is not defined at line 2, column 7"),
    (".a]", "at line 1, column 3: .a] ^"),
])
def test_a_filter_that_does_not_compile_is_told_in_its_own_lines(text, says):
    """jq's compile errors named the wrapper the filter runs in: ".[" was "unexpected INVALID_CHARACTER at
    <top-level>, line 3, column 1: )) | tojson ^" (a new user's trial), and every line was one more than the
    filter's own. Places are now counted in the filter as given, as the jq program counts them, and a filter that
    stops early is told so."""
    with pytest.raises(InvalidArgument) as caught:
        compile_filter(text, 5)
    message = str(caught.value)
    assert says in message, message
    assert "tojson" not in message and "<top-level>" not in message and "INVALID_CHARACTER at" not in message
    jq_program = shutil.which("jq")
    if jq_program and " at line " in says:  # the jq program names the same line (some versions no column)
        told = subprocess.run([jq_program, "-n", text], capture_output=True, text=True, timeout=30).stderr
        assert says.split(" at ")[1].split(",")[0] + ":" in told.replace(", column", ":"), told


@pytest.mark.parametrize("text", [
    '.)) | def tojson: {"z": 1}; ((.',  # closes the wrapper's parentheses and redefines the wrapper's tojson
    '.)) | def tojson: .; ((.a',
    '.a)) , range(3) | ((.',  # outputs past the wrapper's limit
])
def test_a_filter_cannot_step_out_of_the_wrapper_it_runs_in(text):
    """A filter was pasted into ``limit(n; (\\n FILTER \\n)) | tojson``: one that closed those parentheses itself and
    opened its own ran outside them, and one that redefined tojson there made the worker's outputs objects, not
    text: a TypeError traceback ('expected string or bytes-like object, got dict'). The filter must be a whole jq
    program of its own, as the jq program would run it, else it does not compile."""
    data = json.dumps({"a": [1, 2, 3]}).encode()
    with pytest.raises(InvalidArgument, match="does not compile"):
        jq_page(BytesSource(data), text)
    from scratchfs.engine.structure import records_page
    with pytest.raises(InvalidArgument, match="does not compile"):
        records_page(BytesSource(data + b"\n"), jq=text)


def test_a_filter_ending_in_a_comment_continued_by_a_backslash_compiles_as_jq_runs_it():
    """jq 1.7 continues a comment past a line ending in a backslash: the wrapper's closing ``)) | tojson`` on the next
    line was read as comment, and '.a # note \\' did not compile ('unexpected end of file ... at the end of the
    filter'), where the jq program runs it as .a."""
    data = json.dumps({"a": [1, 2, 3]}).encode()
    assert _follow(data, ".a[] # each \\", 4096, 10, None) == [1, 2, 3]
    assert jq.compile(".a[] # each \\").input_value({"a": [1, 2, 3]}).all() == [1, 2, 3]


@pytest.mark.parametrize("text", ["$__loc__", "$__loc__.line", ".a[] |\n\n  {at: $__loc__.line, v: .}",
                                  "# a comment\n[$__loc__, $__loc__.file]"])
def test_loc_names_the_line_jq_names_for_the_filter_alone(text):
    """``$__loc__.line`` was one more than jq gives for the same filter (``1`` was ``2``): the filter was pasted into
    its wrapper a line down. It now says what the jq library says of the filter as a program of its own, in jq pages
    and in the jq of JSON-lines records."""
    data = {"a": [1, 2]}
    expected = jq.compile(text).input_value(data).all()
    assert _follow(json.dumps(data).encode(), text, 4096, 10, None) == expected
    from scratchfs.engine.structure import records_page
    assert records_page(BytesSource(json.dumps(data).encode() + b"\n"), jq=text).items == expected


@pytest.mark.parametrize("text", [".[0] | .name +", "foo(1) | bar"])
def test_a_compile_error_carries_jq_s_words_alone(text):
    """A new user's trial: ``jq="... | .name +"`` was refused as 'does not compile: jq: error: syntax error, ... at
    the end of the filter jq: 1 compile error' -- 'jq: error: ' before each error and the count after them, 31
    bytes of the model's reply that say nothing the refusal does not."""
    with pytest.raises(InvalidArgument) as caught:
        compile_filter(text, 5)
    message = str(caught.value)
    assert "jq: error" not in message and "compile error" not in message, message
    assert message.startswith(f"jq filter {text!r} does not compile: "), message
    assert re.search(r"(syntax error|is not defined)", message), message
