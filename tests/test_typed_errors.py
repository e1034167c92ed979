"""The layers decide what to tell the model by an error's type and fields, never by its message text: jq's failure of
a step (``JqFailed``: its ``reason``, ``keyed``), a document jq or the reader cannot parse (``NotJson``: ``by_jq``,
``line``, ``at_end``, ``too_deep``), a CSS selector that does not run (``BadSelector``), a record that is not JSON
(``BadRecord.not_json``), a structure read's time-out (``StructureTimeout.stopped``), a full disk (``errno``,
``sqlite_code``). Each was a substring or regular
expression over another layer's words, which a message's change -- or a filter's own ``error("...")`` text --
silently turned into a wrong answer."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from scratchfs import (
    BadRecord,
    BadSelector,
    InvalidArgument,
    JqFailed,
    NotJson,
    ScratchStore,
    Settings,
    StorageError,
    StructureTimeout,
)
from scratchfs.api.contract import ScratchTools
from scratchfs.api.jq_failure import slurped_array
from scratchfs.engine.reserve import is_disk_full
from scratchfs.engine.structure import BytesSource, jq_page
from scratchfs.foundation.limits import DEFAULT_READ_BYTES
from tests.test_structure_misfit import advised_calls

_EC2 = Path(__file__).resolve().parent.parent / "fixtures" / "api-ec2-service-model.json"


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def test_a_one_line_json_cut_short_names_the_bytes_at_its_end_not_a_negative_line_read(tools, scratch_scope):
    """A minified JSON document on one line, cut short (the EC2 service model three times over, 1.3 MB minified, its
    first 1 MiB: past the shape's sample, so stored as JSON): the refusal named ``line=-20, lines=20``, the last 20
    lines -- all of its one line, whose read gives its first bytes, not where it broke. It names the range read of
    its last bytes, and that read reaches the end."""
    model = json.loads(_EC2.read_bytes())
    minified = json.dumps({"models": [model, model, model]}, separators=(",", ":")).encode()
    content = minified[: 1 << 20]
    assert b"\n" not in content
    stub = scratch_scope.spill(content, source_tool="api.get")
    assert stub.content_type == "json", stub.shape
    with pytest.raises(NotJson) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".metadata"})
    message = str(caught.value)
    assert message.startswith("jq: parse error: ") and "cut short" in message, message
    [call] = advised_calls(message)
    assert call == {"handle": stub.handle, "offset": len(content) - DEFAULT_READ_BYTES}, message
    page = tools.call("read_handle", call)
    assert page["next_offset"] is None and content.endswith(page["data"].encode()), page


def test_jq_parse_errors_carry_where_jq_stopped(scratch_scope):
    """The engine reads jq's words once, where it meets them, into fields the API reads."""
    src = BytesSource(b'{"a": [1, 2,\n 3')
    with pytest.raises(NotJson) as cut:
        jq_page(src, ".a")
    assert (cut.value.by_jq, cut.value.at_end, cut.value.line, cut.value.too_deep) == (True, True, 2, False)
    with pytest.raises(NotJson) as broken:
        jq_page(BytesSource(b'{"a": 1,\n"b": x}\n'), ".a")
    assert (broken.value.by_jq, broken.value.at_end, broken.value.line) == (True, False, 2)
    with pytest.raises(NotJson) as deep:
        jq_page(BytesSource(b"[" * 10_001 + b"]" * 10_001), ".")
    assert deep.value.too_deep and deep.value.by_jq
    with pytest.raises(NotJson) as binary:  # (the reader's, before jq: no place of jq's)
        jq_page(BytesSource(b"\x00\x01 binary"), ".")
    assert not binary.value.by_jq and binary.value.line is None
    again = pickle.loads(pickle.dumps(cut.value))
    assert (type(again), str(again), again.at_end, again.line) == (NotJson, str(cut.value), True, 2)


def test_a_step_failure_is_jq_failed_with_the_kind_of_value_keyed():
    with pytest.raises(JqFailed) as caught:
        jq_page(BytesSource(b"[1, 2]"), ".name")
    assert caught.value.reason == 'Cannot index array with string ("name")' and caught.value.keyed == "array"
    assert str(caught.value).startswith("jq: Cannot index array with string"), caught.value
    page = jq_page(BytesSource(b'{"a": 1} 5'), ".a")  # (the outputs before it first; the failure named after them)
    assert page.items == [1] and isinstance(page.failure, JqFailed) and page.failure.keyed == "number"
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.reason, again.keyed, str(again)) == (caught.value.reason, "array", str(caught.value))


def test_slurped_array_reads_the_fields_not_the_words():
    """A filter written for one record, run on the array of all of them: told by ``keyed``, whatever the words."""
    failed = JqFailed("jq: Cannot index array with string (\"n\")", 'Cannot index array with string ("n")', "array")
    advice = slurped_array(failed, "h_x", ".n", None)
    assert "read_handle(handle=\"h_x\", jq=\".[] | .n\", slurp=True)" in str(advice), advice
    plain = InvalidArgument(str(failed))  # (the same words, no such failure: it stands)
    assert slurped_array(plain, "h_x", ".n", None) is plain


def test_a_filter_error_that_says_is_not_json_is_not_taken_for_a_record_that_is_not_json(tools, scratch_scope):
    """A record read of a one-line JSON document whose filter fails with words holding ' is not JSON: ' (its own
    error(...)): it was refused as 'one JSON document over several lines' -- it is on one line, and JSON. The
    filter's failure stands, with the record's bytes and the read on."""
    stub = scratch_scope.spill(json.dumps({"items": [{"n": i} for i in range(800)]}).encode(), source_tool="t")
    assert stub.content_type == "json"
    with pytest.raises(BadRecord) as caught:
        tools.call("read_handle", {"handle": stub.handle, "record": 1, "jq": 'error("the field is not JSON: x")'})
    message = str(caught.value)
    assert "over several lines" not in message and "jq failed on record 1" in message, message
    assert not caught.value.not_json


def test_a_record_that_is_not_json_says_so_by_its_field(scratch_scope):
    handle = scratch_scope.spill(b'{"a": 1}\n' * 300 + b'{"a": "cut sh').handle  # (its last record cut short)
    with pytest.raises(BadRecord) as caught:
        scratch_scope.structure.records(handle, record=301, records=5)
    assert caught.value.not_json and caught.value.record == 301, caught.value
    assert pickle.loads(pickle.dumps(caught.value)).not_json


@pytest.mark.parametrize("selector", ["h1[", "a[title='\x01']"])
def test_a_selector_that_does_not_run_is_a_bad_selector(tools, scratch_scope, selector):
    """One that does not parse (told before a worker runs) and one that parses but that lxml cannot run (told by the
    worker): both BadSelector, carrying the selector, with the text view's call."""
    page = b"<html><body>" + b"<h1 title='t'>Title</h1><p>para</p>" * 400 + b"</body></html>"
    stub = scratch_scope.spill(page, source_tool="browser")
    with pytest.raises(BadSelector) as caught:
        tools.call("read_handle", {"handle": stub.handle, "select": selector})
    assert caught.value.selector == selector and advised_calls(str(caught.value)) == [{"handle": stub.handle,
                                                                                 "view": "text"}]


def test_a_slurp_time_out_keeps_what_stopped_as_a_field(tmp_path):
    """A slurp read's time-out gives its own advice after what stopped, taken from ``stopped`` (it split the
    words of the engine's message at '; try ')."""
    settings = Settings(pattern_timeout=0.5)
    with ScratchStore(tmp_path, settings=settings) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"".join(b'{"n": %d}\n' % i for i in range(2000))).handle
        with pytest.raises(StructureTimeout) as caught:
            scope.structure.slurp(handle, "last(range(1e10))")
    stopped = caught.value.stopped
    assert stopped.startswith("the jq filter ran past its time limit") and "try" not in stopped, stopped
    assert str(caught.value) == f"{stopped}; try a simpler filter (select early, avoid range/repeat/recursion)"
    assert pickle.loads(pickle.dumps(caught.value)).stopped == stopped


@pytest.mark.parametrize("words", [
    "key 'k' is stored, but its row could not be written to the index yet (the disk is full, or the index locked)",
    "the object store failed while listing blobs (SlowDown: request quota reached)",
    "the index failed while deleting a run: SQLITE_FULL was not the cause",
])
def test_a_full_disk_is_told_by_errno_or_sqlite_code_not_by_words(words):
    """The reserve was released for any StorageError whose words held 'disk is full', 'quota' or 'SQLITE_FULL'."""
    assert not is_disk_full(StorageError(words))
    full = StorageError("the index failed while deleting a run: the disk or the file-size limit is full")
    full.sqlite_code = 13  # (as index_error sets it)
    assert is_disk_full(full)


def test_the_inspectors_json_tree_of_what_is_not_json_is_not_json(scratch_scope):
    """The web inspector's refusal of a tree ("holds log output ..., which the inspector's JSON tree does not show")
    was chosen by the words its message started with; it is chosen by the type."""
    from scratchfs.web import structure

    handle = scratch_scope.spill(b"2026-12-05 10:00:00 INFO started\n" * 400, source_tool="t").handle
    with pytest.raises(NotJson):
        structure.json_tree(scratch_scope, handle)
    latin = scratch_scope.spill(b'{"name": "caf\xe9"}' + b" " * 9000, source_tool="t").handle
    with pytest.raises(NotJson):
        structure.json_tree(scratch_scope, latin)


@pytest.mark.parametrize("filter", [
    'error("parse error: Unfinished JSON term at EOF at line 99999, column 0")',
    '.items[] | error("parse error: Invalid numeric literal at line 99999, column 3")',
    '.items[] | if .id == 3 then error("parse error: Invalid literal at line 5, column 3") else .id end'])
def test_a_filters_own_error_reading_as_jqs_parse_error_is_the_filters_not_a_broken_document(tools, scratch_scope,
                                                                                          filter):
    """A filter's ``error("parse error: ... at line 99999, column 0")`` over a valid document was told as jq's parse
    error of it (NotJson): "the document is not valid JSON there" or "ends before its JSON does", naming
    ``line=99999`` past its last line. jq's own parse errors come from reading the input; the filter's is its
    JqFailed, its call written out."""
    doc = json.dumps({"items": [{"id": i, "name": "x" * 50} for i in range(400)]}, indent=1).encode()
    stub = scratch_scope.spill(doc, source_tool="api.get")
    assert stub.content_type == "json", stub.shape
    try:
        page = tools.call("read_handle", {"handle": stub.handle, "jq": filter})
    except JqFailed as exc:
        message = str(exc)
    else:
        message = page["note"]
    assert "raised by the filter" in message and "error(\"parse error: " in message, message
    assert "not valid JSON" not in message and "line=99999" not in message and "line=-20" not in message, message
    with pytest.raises(NotJson) as real:  # jq's own parse error is still the document's
        tools.call("read_handle", {"handle": scratch_scope.spill(doc[:-40], source_tool="api.get").handle,
                                   "jq": filter})
    assert real.value.by_jq and real.value.at_end, real.value


@pytest.mark.parametrize("cut", [5, 9_000, 60_000])
def test_a_json_cut_short_in_a_long_last_line_after_short_ones_names_a_read_that_reaches_its_end(tools, scratch_scope,
                                                                                                 cut):
    """Pretty-printed JSON (short lines, past the shape's sample: stored as JSON) whose last line is a 99 KB minified
    array, cut short in it: the refusal named ``line=-20, lines=20``, whose reply, cut at its budget, showed the
    start of that line, 90 KB before where the document broke. The lines' average is short; jq's column (the last
    line's length at the end) is not: it names the read of the last bytes, and that read reaches the end."""
    head = json.dumps({"items": [{"id": i} for i in range(30_000)]}, indent=1)[:-2]
    content = (head + ', "blob": ' + json.dumps(["z" * 30] * 3000, separators=(",", ":")) + "}").encode()[:-cut]
    stub = scratch_scope.spill(content, source_tool="api.get")
    assert stub.content_type == "json" and len(content) > 512 * 1024, stub.shape
    with pytest.raises(NotJson) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".items[0]"})
    [call] = advised_calls(str(caught.value))
    page = tools.call("read_handle", call)
    assert page["next_offset"] is None and content.endswith(page["data"].encode()), (call, page.get("next_call"))
    assert caught.value.at_end and caught.value.column > DEFAULT_READ_BYTES, caught.value
    assert pickle.loads(pickle.dumps(caught.value)).column == caught.value.column


def test_a_pretty_json_cut_short_still_names_its_last_lines(tools, scratch_scope):
    """Short lines to the end: the read of the last 20 lines, as before, which reaches the end."""
    content = json.dumps({"items": [{"id": i, "name": "x" * 20} for i in range(20_000)]}, indent=1).encode()[:-7]
    stub = scratch_scope.spill(content, source_tool="api.get")
    assert stub.content_type == "json", stub.shape
    with pytest.raises(NotJson) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".items[0]"})
    [call] = advised_calls(str(caught.value))
    assert call == {"handle": stub.handle, "line": -20, "lines": 20}, call
    page = tools.call("read_handle", call)
    assert content.endswith(page["data"].encode()), page


def test_a_one_line_document_broken_mid_line_names_the_byte_and_the_bytes_around_it(tools, scratch_scope):
    """A minified document (one line of 2.7 MB, past the shape's sample: stored as JSON) with a stray comma: the
    refusal named ``line=1, lines=5``, whose read shows the document's start, 2.3 MB before where it broke. jq's
    column counts bytes from 1 (``é`` two): the refusal names the byte and a range read around it, which shows it."""
    doc = json.dumps({"items": [{"n": i, "name": "é" * 7} for i in range(60_000)]}, ensure_ascii=False).encode()
    bad = doc.replace(b'{"n": 50000,', b'{"n": 50000,,', 1)
    at = bad.index(b"50000,,") + 6  # the second comma, where jq stops
    stub = scratch_scope.spill(bad, source_tool="api.get")
    assert stub.content_type == "json", stub.shape
    with pytest.raises(NotJson) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".items | length"})
    assert f"not valid JSON at byte {at:,}" in str(caught.value) and "lines=" not in str(caught.value), caught.value
    (call,) = advised_calls(str(caught.value))
    assert call == {"handle": stub.handle, "offset": at - 100, "length": 200}
    assert tools.call("read_handle", call)["data"].encode()[99:101] == b",,"
