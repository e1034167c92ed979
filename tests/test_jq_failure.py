"""A jq filter that fails on an output after a page's first: before, the page before the failure ended with
``more: true`` and a next_call, saying nothing of it, and the page that starts there was refused with jq's words
alone (``jq: Cannot index string with string ("y"); a step met a value ...``): no output number, no way on (the
closing note's open list, advice3). Now both say the output number and, for a filter that runs a step on each item
(``.[] | X``, ``.items[].id``), the call that reads on past it, the items the step fails on passed over; the tests
run that call and compare its outputs with the plain Python answer."""

from __future__ import annotations

import csv
import io
import json
import re
import shlex

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.api.jq_failure import each_item
from scratchfs.api.views import reply_size
from scratchfs.cli import main
from scratchfs.foundation.errors import InvalidArgument
from tests.following import outputs_to_end

BAD = {40, 77, 150}
RECORDS = [{"x": "no object"} if i in BAD else {"x": {"y": i}} for i in range(1, 200)]
WANT = [i for i in range(1, 200) if i not in BAD]
"""What ``.x.y`` gives on each record it does not fail on."""


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


@pytest.mark.parametrize("filter", [".[] | .x.y", ".[].x.y", ".[] | .x | .y"])
@pytest.mark.parametrize("budget", [None, 2048])
def test_the_page_before_a_failure_names_it_and_the_read_past_it(tools, scratch_scope, filter, budget):
    handle = scratch_scope.spill(json.dumps(RECORDS).encode()).handle
    given = {"handle": handle, "jq": filter, **({} if budget is None else {"budget": budget})}
    reply = tools.call("read_handle", given)
    assert reply["results"] == WANT[:39] and reply["more"] is True
    assert reply["note"].startswith('jq: Cannot index string with string ("y") on output 40: this page ends before '
                                    "it and next_call meets it; read on past it"), reply["note"]
    [said] = re.findall(r"read_handle\(.*\)$", reply["note"])
    _, arguments = parse_call(said)
    assert arguments.get("budget") == budget and "cursor" not in arguments
    if budget is not None:
        assert reply_size(reply) <= budget
    assert reply["results"] + outputs_to_end(tools, arguments) == WANT  # (every output but the failures, each once)
    _, then = parse_call(reply["next_call"])
    with pytest.raises(InvalidArgument) as refused:  # the page that starts at it: the same way on
        tools.call("read_handle", then)
    assert 'jq: Cannot index string with string ("y") on output 40; read on past it' in str(refused.value)
    [call] = refused.value.calls
    assert dict(call.arguments) == arguments


def test_a_path_into_the_document_reads_on_past_its_failure(tools, scratch_scope):
    handle = scratch_scope.spill(json.dumps({"meta": 1, "data": {"rows": RECORDS}}).encode()).handle
    reply = tools.call("read_handle", {"handle": handle, "jq": ".data.rows[] | .x.y"})
    _, arguments = parse_call(re.findall(r"read_handle\(.*\)$", reply["note"])[0])
    assert arguments["jq"] == "[.data.rows[] | (.x.y)?] | .[39:][]"
    assert reply["results"] + outputs_to_end(tools, arguments) == WANT


def test_a_slurp_read_past_its_failure_is_a_slurp_read(tools, scratch_scope):
    lines = b"".join(json.dumps(record).encode() + b"\n" for record in RECORDS)
    handle = scratch_scope.spill(lines, source_tool="log").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": ".[] | .x.y", "slurp": True})
    assert "on output 40" in reply["note"], reply
    _, arguments = parse_call(re.findall(r"read_handle\(.*\)$", reply["note"])[0])
    assert arguments["slurp"] is True
    assert reply["results"] + outputs_to_end(tools, arguments) == WANT


def test_another_filter_is_told_the_output_and_how_to_narrow_it(tools, scratch_scope):
    handle = scratch_scope.spill(json.dumps(RECORDS).encode()).handle
    reply = tools.call("read_handle", {"handle": handle, "jq": "[.[]] | .[] | .x.y"})
    assert "on output 40" in reply["note"] and "put a ? after the failing step (.x.y?)" in reply["note"]
    assert "read_handle(" not in reply["note"]
    narrowed = tools.call("read_handle", {"handle": handle, "jq": "[.[]] | .[] | .x.y?"})  # (what it says works)
    assert narrowed["results"][:39] == WANT[:39] and "note" not in narrowed


def test_a_failure_on_the_first_output_keeps_its_words(tools, scratch_scope):
    handle = scratch_scope.spill(json.dumps([{"x": "s"}, *RECORDS]).encode()).handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, "jq": ".[] | .x.y"})
    assert "a step met a value it cannot take" in str(refused.value) and "on output" not in str(refused.value)


def test_the_cli_prints_the_command_that_reads_on(tmp_path):
    root = str(tmp_path / "root")
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill(json.dumps(RECORDS).encode()).handle
        first = ScratchTools(store.scope("r", "a")).call("read_handle", {"handle": handle, "jq": ".[] | .x.y"})
    cursor = parse_call(first["next_call"])[1]["cursor"]
    failed = CliRunner().invoke(main, ["read-handle", handle, "--jq", ".[] | .x.y", "--cursor", cursor, "--root",
                                       root, "--run", "r", "--agent", "a"])
    assert failed.exit_code == 2 and "on output 40" in failed.stderr, failed.stderr
    [command] = re.findall(r"\S+ (read-handle .*? --agent a)", failed.stderr)
    done = CliRunner().invoke(main, shlex.split(command))
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["results"] == WANT[39:][:len(json.loads(done.stdout)["results"])]


_FILTERS = [".[] | .x.y", ".[].x.y", ".[] | .x | .y", ".[] | .x.y, 1", ".[].x.y | . + 1", ".[] | .x[]?"]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(_FILTERS), st.lists(st.sampled_from([{"x": {"y": 1}}, {"x": "s"}, {"x": {"y": [2, 3]}},
                                                            {"x": None}, {"x": [4]}]), min_size=1, max_size=12),
       st.integers(1, 6))
def test_the_filter_read_on_gives_the_outputs_after_those_read_but_the_failures(filter, items, output):
    """each_item's split, run by jq as read_on writes it, against the outputs jq gives item by item (an item's
    outputs before its failure kept, those after dropped)."""
    import jq

    path, each = each_item(filter)
    assert path == "."
    compiled = jq.compile(each)
    expected = []
    for item in items:
        got = compiled.input_value(item)
        try:
            for value in got:
                expected.append(value)
        except ValueError:
            pass
    advised = jq.compile(f"[.[] | ({each})?] | .[{output - 1}:][]").input_value(items).all()
    assert advised == expected[output - 1:]


def test_a_streamed_page_that_fails_whole_names_no_output_it_cannot_know(tools, scratch_scope, monkeypatch):
    # past the jq bound a path filter streams and a page that meets jq's error fails whole: the failing output is
    # somewhere on it, not its first, and the read past it (no path) would be refused there
    monkeypatch.setattr("scratchfs.engine.structure.jsondoc.MAX_JQ_DOCUMENT_BYTES", 1000)
    records = [{"x": "no object"} if n == 40 else {"x": {"y": f"{n} " + "v" * 100}} for n in range(1, 100)]
    handle = scratch_scope.spill(json.dumps(records).encode()).handle  # (about 15 outputs a page: it fails on the
    # third, which a cursor starts)
    then = {"handle": handle, "jq": ".[].x.y", "budget": 2048}
    for _ in range(2):  # (two pages of about 15 outputs, then the one that fails)
        page = tools.call("read_handle", then)
        assert "on output" not in page.get("note", "")
        _, then = parse_call(page["next_call"])
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", then)
    assert "on output" not in str(refused.value) and "a step met a value" in str(refused.value)
    assert not refused.value.calls


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_a_slurp_filter_written_for_one_record_names_the_call_that_runs_it_on_each(tmp_path, fixture_data, kind):
    """A new user's trial: slurp=true with select(.name|startswith("django"))|.name over JSON lines (and .name over
    a CSV table) was refused with jq's 'Cannot index array with string' and advice about steps meeting values; the
    input of a slurp filter is the array of all records, which the refusal now says, naming the call that runs the
    filter on each record -- and that call gives the plain Python answer."""
    rows = list(csv.DictReader(io.StringIO(fixture_data["query-packages-by-month.csv"].decode())))[:1500]
    content = "".join(json.dumps(r) + "\n" for r in rows) if kind == "jsonl" else _csv_text(rows)
    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        handle = scope.spill(content, source_tool="t").handle
        filter = 'select(.name | startswith("a")) | .name'
        with pytest.raises(InvalidArgument) as refused:
            tools.call("read_handle", {"handle": handle, "jq": filter, "slurp": True})
        message = str(refused.value)
        assert "one array of all the records" in message and "a step met a value" not in message, message
        verb, arguments = parse_call(message[message.index("read_handle("):])
        assert verb == "read_handle" and arguments == {"handle": handle, "jq": f".[] | {filter}", "slurp": True}
        assert outputs_to_end(tools, arguments) == [r["name"] for r in rows if r["name"].startswith("a")]
        assert "a step met a value" in _refusal(tools, handle, ".[] | .name | .x")  # (other errors stand)


def _csv_text(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _refusal(tools: ScratchTools, handle: str, filter: str) -> str:
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, "jq": filter, "slurp": True})
    return str(refused.value)


@pytest.mark.parametrize("blank", [False, True])
def test_a_parse_error_in_json_lines_names_the_records_read_that_passes_over_it(tools, scratch_scope, blank):
    """jq's parse error of record 501 of JSON lines was advised "put a ? after the failing step": no filter reads past
    a record jq cannot parse. The page before it and the refusal of the page at it name the records read of the same
    filter from that record (its number counts no blank line), which passes over it and gives every output after it."""
    lines = [json.dumps({"n": i}) if i != 500 else '{"n": 500,}' for i in range(2000)]
    text = "\n".join(line + ("\n" if blank and i % 100 == 7 else "") for i, line in enumerate(lines)) + "\n"
    handle = scratch_scope.spill(text.encode(), source_tool="log").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": ".n"})
    line = 1 + text[: text.index('{"n": 500,}')].count("\n")
    assert reply["results"] == list(range(500)) and "put a ?" not in reply["note"], reply["note"]
    assert f"not JSON at line {line:,}" in reply["note"], reply["note"]
    (call,) = reply["calls"]
    assert call["arguments"] == {"handle": handle, "record": 501, "jq": ".n"}
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", parse_call(reply["next_call"])[1])
    assert "put a ?" not in str(refused.value) and 'record=501, jq=".n")' in str(refused.value), refused.value
    assert outputs_to_end(tools, call["arguments"]) == list(range(501, 2000))


def test_a_parse_error_in_json_texts_one_after_another_names_the_text_there(tools, scratch_scope):
    """JSON texts one after another (``jq .`` output), one broken: no records read parses them; the line read there."""
    text = "".join(json.dumps({"n": i}, indent=1) + "\n" for i in range(50_000)).replace('"n": 40000', '"n": 40000,')
    stub = scratch_scope.spill(text.encode(), source_tool="jq")  # (broken past the shape's sample: stored as JSON)
    assert stub.content_type == "json", stub.shape
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": "select(.n >= 39990) | .n"})
    assert reply["results"] == list(range(39_990, 40_000)) and "put a ?" not in reply["note"], reply["note"]
    call, slurp = reply["calls"]  # (the line read there; slurp2: the slurp read that goes past it)
    shown = tools.call("read_handle", call["arguments"])["data"]
    assert '"n": 40000,' in shown, shown
    assert slurp["arguments"] == {"handle": stub.handle, "jq": ".[] | (select(.n >= 39990) | .n)", "slurp": True}


@pytest.mark.parametrize(("start", "end"), [(b"", b"\n"), (b"\xef\xbb\xbf", b"\n"), (b" \n\n", b"\r\n")])
def test_json_lines_whose_first_record_is_broken_name_the_records_read_that_passes_over_it(tools, scratch_scope,
                                                                                           start, end):
    """helper hostile10: a jq read of JSON lines whose first record is not JSON (no output before it) was refused as
    a document "jq reads none of" (line 1: the bytes around jq's column), though the records read passes over it
    and gives every other record's outputs. The refusal names that read, from the broken record (its number counts
    no blank line, nor a byte order mark)."""
    data = start + b'{"n": 0,}' + end + b"".join(b'{"n": %d}' % i + end for i in range(1, 3000))
    stub = scratch_scope.spill(data, source_tool="log")
    assert stub.content_type == "jsonl", stub.shape
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".n"})
    assert "reads none of it" not in str(refused.value), refused.value
    (call,) = refused.value.calls
    assert dict(call.arguments) == {"handle": stub.handle, "record": 1, "jq": ".n"}, refused.value
    assert outputs_to_end(tools, dict(call.arguments)) == list(range(1, 3000))
