"""Structure reads through the model-facing contract (MCP's read_handle): answers equal the plain library's, every
reply fits its budget, and following next_call pages through each result exactly once."""

from __future__ import annotations

import ast
import csv
import io
import itertools
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import BadRecord, InvalidArgument, ScratchStore
from scratchfs.api.contract import ScratchTools, to_json, window_hits
from scratchfs.api.jq_inputs import calls_inputs
from scratchfs.cli import main

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def follow(tools: ScratchTools, args: dict, budget: int) -> list[dict]:
    """Every page of a read, by its next_call; checks each reply's size against the budget."""
    pages = []
    call: dict | None = {**args, "budget": budget}
    while call is not None:
        reply = tools.call("read_handle", call)
        assert len(to_json(reply).encode()) <= budget
        pages.append(reply)
        if reply["next_call"] is None:
            break
        node = ast.parse(reply["next_call"], mode="eval").body
        call = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        call["budget"] = budget
        assert len(pages) < 10_000
    return pages


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def test_jq_answers_as_python_does(tools, scratch_scope, fixture_data):
    data = fixture_data["api-ec2-service-model.json"]
    doc = json.loads(data)
    handle = scratch_scope.spill(data, source_tool="api").handle
    (reply,) = follow(tools, {"handle": handle, "jq": ".metadata.apiVersion"}, 8192)
    assert reply["results"] == [doc["metadata"]["apiVersion"]] and reply["read"] == {"jq": ".metadata.apiVersion"}
    pages = follow(tools, {"handle": handle, "jq": ".operations | keys[]"}, 2048)
    assert [r for p in pages for r in p["results"]] == sorted(doc["operations"])
    with pytest.raises(InvalidArgument, match="jq"):
        tools.call("read_handle", {"handle": handle, "jq": ".operations | keys["})


@pytest.mark.parametrize("read", [{}, {"record": 1, "records": 100}])
def test_jq_that_reads_input_or_inputs_is_refused_saying_what_works(tools, scratch_scope, read):
    """jq runs on each JSON-lines record alone, so `reduce inputs as $r ({}; .[$r.unit] += 1)` gave pages of {}
    with next_calls through the whole file (agentsim G3): a filter using input or inputs is refused, naming what
    works; a field, a variable or a string of that name is not."""
    data = b"".join(b'{"unit": "u%d", "input": %d}\n' % (i % 3, i) for i in range(500))
    handle = scratch_scope.spill(data, source_tool="log").handle
    for program in ("reduce inputs as $r ({}; .[$r.unit] += 1)", "[., input]", "[inputs|.unit]|length",
                    "first(inputs)"):
        with pytest.raises(InvalidArgument, match=r"input and inputs see nothing") as refused:
            tools.call("read_handle", {"handle": handle, "jq": program, **read})
        assert "count=true" in str(refused.value) and "slurp=true" in str(refused.value)
    for program in (".input", '.unit == "inputs"', ". as $input | $input.unit", '{input: .input} | .input',
                    "{input} | .input", "{unit, input} | .input", "{$__loc__, input} | .input"):
        reply = tools.call("read_handle", {"handle": handle, "jq": program, **read})
        assert reply["results"][:2] in ([0, 1], [False, False], ["u0", "u1"])


@pytest.mark.parametrize(("program", "calls"), [
    ("{input, output}", False), ("{name, input}", False), ("{a: 1, input}", False), ('{"input"}', False),
    ("{$input}", False), (".[] | {input}", False), ("# input\n.", False), ('"inputs"', False),
    ("input", True), ("[inputs]", True), ("{x: input}", True), ("{(input | tostring): 1}", True),
    ("{a: {b: input}}", True), ("{a: [input]}", True), ("{a: .b | input}", True), ("{a, b: input}", True),
    ("{input} | input", True), ("def f: input; f", True), ("reduce inputs as $x (0; . + 1)", True),
])
def test_an_objects_key_named_input_is_no_call_of_the_builtin(program, calls):
    """jq's object shorthand {input, output} is {input: .input, output: .output} (jq 1.7 manual, Object
    Construction): a key, not the builtin -- a new user's filter on the EC2 model was refused as calling it."""
    assert calls_inputs(program) is calls


def test_rows_page_through_with_their_header_exactly_once(tools, scratch_scope, fixture_data):
    data = fixture_data["query-packages-by-month.csv"]
    handle = scratch_scope.spill(data, source_tool="sql").handle
    table = list(csv.reader(io.StringIO(data.decode("utf-8", "replace"))))
    header, body = table[0], [row for row in table[1:] if row]
    # (151 rows a page, ~30 pages over the file's 4 frames of 128 KiB; 37 a page in 3,000 bytes were 116 pages, 3.5 s
    # of CPU on PostgreSQL + S3)
    pages = follow(tools, {"handle": handle, "row": 100, "rows": 151, "columns": ["name", "month"]}, 12_000)
    got = [row for p in pages for row in p["rows"]]
    assert all(p["header"] == ["name", "month"] for p in pages)
    wanted = [[row[header.index("name")], row[header.index("month")]] for row in body[99:]]
    assert got[: len(wanted)] == wanted[: len(got)] and len(got) == len(wanted)


def test_records_and_per_record_jq(tools, scratch_scope):
    lines = [{"i": i, "level": "error" if i % 7 == 0 else "info", "msg": "x" * (i % 50)} for i in range(500)]
    data = "".join(json.dumps(r) + "\n" for r in lines).encode()
    handle = scratch_scope.spill(data, source_tool="logs").handle
    pages = follow(tools, {"handle": handle, "record": 1, "records": 100}, 4096)
    assert [r for p in pages for r in p["records"]] == lines
    errors = follow(tools, {"handle": handle, "record": 1, "records": 500, "jq": 'select(.level == "error") | .i'},
                    4096)
    assert [r for p in errors for r in p["results"]] == [r["i"] for r in lines if r["level"] == "error"]


def test_html_selectors_and_the_text_view_page_through_once(tools, scratch_scope, fixture_data):
    data = fixture_data["browser-rust-book.html"]
    handle = scratch_scope.spill(data, source_tool="browser").handle
    headings = follow(tools, {"handle": handle, "select": "h2"}, 2048)
    texts = [e for p in headings for e in p["elements"]]
    assert len(texts) == headings[0]["matches"] and "What Is Ownership?" in texts
    small = follow(tools, {"handle": handle, "view": "text"}, 8192)
    whole = follow(tools, {"handle": handle, "view": "text"}, 65536)
    assert "".join(p["text"] for p in small) == "".join(p["text"] for p in whole)
    offsets = [p["offset"] for p in small]
    assert offsets == sorted(offsets) and offsets[0] == 0


def test_terminal_output_is_rendered(tools, scratch_scope):
    data = b"".join(b"\x1b[32mstep %d\x1b[0m " % i + b"".join(b"\r[%3d%%]" % p for p in range(0, 101, 10)) + b"\n"
                    for i in range(300)) + b"\x1b[31mERROR: disk full\x1b[0m\n"
    handle = scratch_scope.spill(data, source_tool="build").handle
    text = "".join(p["text"] for p in follow(tools, {"handle": handle, "view": "text"}, 8192))
    assert "\x1b" not in text and "\r" not in text
    assert text.splitlines()[0] == "[100%]" or text.splitlines()[0].startswith("[100%]")
    assert text.rstrip().endswith("ERROR: disk full")


def test_terminal_output_is_rendered_from_where_a_search_found_a_match(tools, scratch_scope):
    """``raw_offset`` (the README's "or from a raw offset a search found"; the new-user trial found no face took it):
    a search window's offset starts the text view at the rendered line holding it, and the pages following next_call
    are the rest of the rendering."""
    data = b"".join(b"\x1b[32mstep %d\x1b[0m " % i + b"".join(b"\r[%3d%%]" % p for p in range(0, 101, 10)) + b"\n"
                    for i in range(300)) + b"\x1b[31mERROR: disk full\x1b[0m\n" + b"tail\n" * 500
    handle = scratch_scope.spill(data, source_tool="build").handle
    found = tools.call("read_handle", {"handle": handle, "match": "ERROR"})["windows"]
    found = window_hits(found[0])[0]["offset"]
    assert data[found:].startswith(b"ERROR")
    pages = follow(tools, {"handle": handle, "view": "text", "raw_offset": found}, 2048)
    assert pages[0]["text"].startswith("ERROR: disk full\ntail\n") and pages[0]["read"]["raw_offset"] == found
    whole = "".join(p["text"] for p in follow(tools, {"handle": handle, "view": "text"}, 8192))
    assert "".join(p["text"] for p in pages) == whole[pages[0]["offset"]:]
    with pytest.raises(InvalidArgument, match="raw_offset must be between 0 and"):
        tools.call("read_handle", {"handle": handle, "view": "text", "raw_offset": len(data) + 1})
    with pytest.raises(InvalidArgument, match="raw_offset cannot be combined with jq"):
        tools.call("read_handle", {"handle": handle, "jq": ".", "raw_offset": 0})
    page = scratch_scope.spill(b"<html><body>" + b"<p>x</p>" * 2000 + b"</body></html>", source_tool="t").handle
    with pytest.raises(InvalidArgument, match="raw_offset is for terminal output"):
        tools.call("read_handle", {"handle": page, "view": "text", "raw_offset": 5})


def test_a_raw_offset_in_an_html_page_names_the_text_views_search_for_its_words(scratch_scope, tools):
    """newuser14: a model that found a heading in a page's source (a search: its window's offset) and asked its text
    view from there (``view="text", raw_offset=N``, as terminal output takes it) was told only that an HTML page's
    view is paged by offset into its text -- not which offset: it had to guess a search of the view. The refusal
    names that search, for the words of the page at that byte, which finds them in the view; the window's offset
    reads on from there. A byte with no words near it names the search with its placeholder."""
    page = (b"<html><body>" + b"<p>filler &amp; more</p>\n" * 400 + b'<h2 id="rb"><a href="#rb">References &amp; '
            b"Borrowing</a></h2>\n<p>We call the action of creating a reference borrowing.</p>" + b"<p>x</p>" * 400
            + b"</body></html>")
    handle = scratch_scope.spill(page, source_tool="browser.get").handle
    found = tools.call("read_handle", {"handle": handle, "pattern": "<h2[^>]*>", "context": 0})["windows"][0]
    with pytest.raises(InvalidArgument, match="raw_offset is for terminal output") as refused:
        tools.call("read_handle", {"handle": handle, "view": "text", "raw_offset": found["offset"]})
    (call,) = refused.value.calls
    assert call.verb == "read_handle" and dict(call.arguments) == {"handle": handle, "view": "text",
                                                                    "match": "References & Borrowing"}, call
    assert str(call) in str(refused.value)
    window = tools.call("read_handle", dict(call.arguments))["windows"][0]
    page_on = tools.call("read_handle", {"handle": handle, "view": "text", "offset": window["match_offset"]})
    assert page_on["text"].startswith("References & Borrowing\n\nWe call the action of creating a reference borrowing.")
    with pytest.raises(InvalidArgument) as bare:
        tools.call("read_handle", {"handle": handle, "view": "text", "raw_offset": len(page) - 20})
    assert [dict(c.arguments).get("match") for c in bare.value.calls] == ["TEXT"], str(bare.value)


def test_the_cli_reads_terminal_output_from_a_raw_offset(tmp_path):
    data = b"\x1b[1mone\x1b[0m\n" * 50 + b"two\rTWO\n" + b"three\n" * 50
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(data, source_tool="build").handle
        expected = to_json(ScratchTools(scope).call("read_handle", {"handle": handle, "view": "text",
                                                                    "raw_offset": data.index(b"two")}))
    result = CliRunner().invoke(main, ["read-handle", handle, "--view", "text", "--raw-offset",
                                       str(data.index(b"two")), "--root", str(tmp_path), "--run", "r", "--agent", "a"])
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip("\n") == expected and json.loads(expected)["text"].startswith("TWO\nthree\n")


def test_terminal_output_is_told_apart_and_its_stub_offers_the_text_view(scratch_scope):
    """New user's trial: a build log with colours and progress bars was "text", and its stub never offered the
    view="text" that renders it (a raw read costs six bytes of JSON for each ESC and shows every bar)."""
    data = b"".join(b"\x1b[32mstep %d\x1b[0m " % i + b"".join(b"\r[%3d%%]" % p for p in range(0, 101, 10)) + b"\n"
                    for i in range(300)) + b"\x1b[31mERROR: disk full\x1b[0m\n"
    stub = scratch_scope.spill(data, source_tool="build")
    assert stub.content_type == "log"
    assert stub.shape.startswith("terminal output, 301 lines, longest ")
    # (newuser9: its ERROR line, coloured, was not counted: a log's levels are counted in the words last drawn)
    assert stub.shape.endswith(", 0% blank, 602 escape sequences and 3,300 overwritten lines, 1 ERROR (first at line "
                               "301)")
    big = scratch_scope.spill(data * 30, source_tool="build")  # larger than the sample: counted in the sample
    assert big.content_type == "log" and big.shape.endswith(
        "overwritten lines, 18 ERROR (first at line 301; in the first 512 KiB of 841 KiB)")
    assert f'Next: read_handle(handle="{stub.handle}", view="text", raw_offset=' in stub.note  # (first, from where
    assert len(stub.to_json().encode()) <= 1536  # the preview stops, since replies9)
    # text that only has a few of them, or Windows line ends, stays text, and its stub offers no view
    for plain in (b"see \x1b[1mbold\x1b[0m here\r\n" * 2 + b"a line\r\n" * 2000, b"x\ry\n" * 2 + b"z" * 9000):
        other = scratch_scope.spill(plain, source_tool="t")
        assert other.content_type == "text" and "view=" not in other.note, other.shape


def test_structure_reads_refuse_mixed_modes(tools, scratch_scope):
    handle = scratch_scope.spill(b'{"a": 1}' * 2000, source_tool="t").handle
    for args in ({"jq": ".", "match": "a"}, {"row": 1, "jq": "."}, {"cursor": "x"}, {"select": "p", "lines": 3}):
        with pytest.raises(InvalidArgument):
            tools.call("read_handle", {"handle": handle, **args})


def test_a_float_column_is_refused_not_looked_up_as_a_name(tools, scratch_scope):
    """``columns: [1.0]`` passes the schema (an integral number is a JSON Schema integer) and was looked up as the
    column name ``'1.0'`` (even with a first line holding that name); a column is text or an integer. (A first line
    ``1.0,b`` is no header to the stub -- a name that is a number -- so its columns are selected by number.)"""
    handle = scratch_scope.spill(b"1.0,b\n1,2\n3,4\n" * 50, source_tool="t").handle
    assert tools.call("read_handle", {"handle": handle, "row": 1, "rows": 1, "columns": [0]})["rows"] == [["1.0"]]
    with pytest.raises(InvalidArgument, match="no header line"):
        tools.call("read_handle", {"handle": handle, "row": 1, "rows": 1, "columns": ["1.0"]})
    for column in (1.0, 1.5, True):
        with pytest.raises(InvalidArgument, match=r"names \(text\) or 0-based column numbers \(integers\)") as err:
            tools.read_handle(handle, row=1, rows=1, columns=[column])
        assert "no column" not in str(err.value)
    with pytest.raises(InvalidArgument, match="integers"):
        tools.call("read_handle", {"handle": handle, "row": 1, "rows": 1, "columns": [1.0]})


def test_structure_texts_are_checked_as_utf8_once_per_call(tools, scratch_scope, monkeypatch):
    """Over MCP (``ScratchTools.call``) the schema check already checks every text as UTF-8: the structure read does
    not check them again (it did); a direct caller, who skipped the schema check, still gets the check."""
    from scratchfs.api import read_replies
    from scratchfs.api import tools as tool_specs

    handle = scratch_scope.spill(b'{"a": [1, 2, 3]}' * 2000, source_tool="t").handle
    seen = {"schema": [], "reply": []}
    for module, name in ((tool_specs, "schema"), (read_replies, "reply")):
        real = module.check_utf8
        monkeypatch.setattr(module, "check_utf8", lambda v, w, real=real, name=name: seen[name].append(v) or real(v, w))
    tools.call("read_handle", {"handle": handle, "jq": ".a"})
    assert ".a" in seen["schema"] and seen["reply"] == []
    tools.read_handle(handle, jq=".a")
    assert seen["reply"] == [".a"]
    with pytest.raises(InvalidArgument, match="UTF-8"):
        tools.read_handle(handle, jq=".a\ud800")
    with pytest.raises(InvalidArgument, match="UTF-8"):
        tools.call("read_handle", {"handle": handle, "jq": ".a\ud800"})


def test_the_cli_prints_the_same_structure_reply(tmp_path, fixture_data):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(fixture_data["query-packages-by-month.csv"], source_tool="sql").handle
        expected = to_json(ScratchTools(scope).call("read_handle", {"handle": handle, "row": 5, "rows": 3,
                                                                    "columns": ["name", 2]}))
    result = CliRunner().invoke(main, ["read-handle", handle, "--row", "5", "--rows", "3", "--column", "name",
                                       "--column", "2", "--root", str(tmp_path), "--run", "r", "--agent", "a"])
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip("\n") == expected


def test_a_structure_reply_gives_the_size_of_the_entry_it_read_without_looking_it_up_again(tools, scratch_scope,
                                                                                          monkeypatch):
    data = b"".join(b'{"n": %d}\n' % i for i in range(500))
    handle = scratch_scope.spill(data, source_tool="jsonl").handle
    index = scratch_scope.store.entries.index
    calls = []
    for name in ("lookup", "lookup_with_lines"):
        real = getattr(index, name)
        monkeypatch.setattr(index, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    reply = tools.call("read_handle", {"handle": handle, "records": 3})
    assert reply["size"] == len(data) and reply["records"] == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert calls == ["lookup_with_lines"]  # the read's own lookup; the size is that entry's


@pytest.mark.parametrize("flt", [None, ".a + 1"])
def test_a_bad_record_says_how_to_see_it_and_read_past_it(tools, scratch_scope, flt):
    """The error of a bad JSON-lines record gives the exact byte read of the record and the read after it; both
    calls work as written."""
    good = b"".join(json.dumps({"a": i}).encode() + b"\n" for i in range(1, 4))
    bad = b'{"a": oops}\n' if flt is None else b'{"a": "text"}\n'
    data = good + bad + good
    handle = scratch_scope.spill(data, source_tool="logs").handle
    first = tools.call("read_handle", {"handle": handle, "record": 1, "records": 10, **({"jq": flt} if flt else {})})
    assert len(first["results" if flt else "records"]) == 3 and first["next_call"]
    # the page that ends before it names it and the byte read of it; its next_call reads on after it
    seen = ast.parse(first["note"].split(" -- its bytes: ")[1].split(" -- ")[0], mode="eval").body
    assert tools.call("read_handle", {k.arg: ast.literal_eval(k.value) for k in seen.keywords})["data"] == bad.decode()
    node = ast.parse(first["next_call"], mode="eval").body
    following = tools.call("read_handle", {k.arg: ast.literal_eval(k.value) for k in node.keywords})
    assert following["results" if flt else "records"] == ([2, 3, 4] if flt else [{"a": 1}, {"a": 2}, {"a": 3}])
    asked = {"handle": handle, "record": 4, "records": 10, **({"jq": flt} if flt else {})}
    if flt is None:  # a read that starts at a record that is not JSON passes over it and reads on (branch jsonlines;
        page = tools.call("read_handle", asked)  # before: raised as one the filter fails on still does, below)
        assert page["records"] == [{"a": 1}, {"a": 2}, {"a": 3}] and page["first"] == 5 and not page["more"]
        seen = ast.parse(page["note"].split(" -- its bytes: ")[1].split(" -- ")[0], mode="eval").body
        assert tools.call("read_handle", {k.arg: ast.literal_eval(k.value) for k in seen.keywords})["data"] == (
            bad.decode())
        return
    with pytest.raises(BadRecord) as caught:  # a read that starts at one the filter fails on
        tools.call("read_handle", asked)
    message = str(caught.value)
    calls = [c + ")" for c in message.split("read_handle(")[1:]]
    see, on = (ast.parse("read_handle(" + c.split(")")[0] + ")", mode="eval").body for c in calls[:2])
    see = {k.arg: ast.literal_eval(k.value) for k in see.keywords}
    on = {k.arg: ast.literal_eval(k.value) for k in on.keywords}
    assert tools.call("read_handle", see)["data"] == bad.decode()
    assert on == {"handle": handle, "record": 5, "records": 10, **({"jq": flt} if flt else {})}
    rest = tools.call("read_handle", on)
    assert rest["results" if flt else "records"] == ([2, 3, 4] if flt else [{"a": 1}, {"a": 2}, {"a": 3}])


@pytest.mark.parametrize(("name", "kind", "fits"), [
    ("browser-rust-book.html", "html", ['view="text"', "select="]),
    ("query-packages-by-month.csv", "csv", ["row="]),
    ("workspace-grep-stdlib-defs.txt", "text", []),  # (grep output is no terminal output: no view="text")
])
def test_jq_over_content_that_is_not_json_says_what_it_holds_and_which_reads_fit(tools, scratch_scope, fixture_data,
                                                                                 name, kind, fits):
    """jq over an HTML page, a table or text gave only jq's parse error ("jq: parse error: Invalid numeric literal
    at line 1, column 15"); it now names what the entry holds and the reads that fit, then jq's message."""
    handle = scratch_scope.spill(fixture_data[name], source_tool="t").handle
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": handle, "jq": "."})
    message = str(caught.value)
    refused = "which a jq= read does not parse" if kind == "csv" else "which jq cannot parse as JSON"  # (csv: before
    assert message.startswith(f"{handle} holds ") and f"(content type {kind}), {refused}" in message  # jq runs)
    assert all(f"read it with {fit}" in message or f" or {fit}" in message or  # (an HTML page's: as calls)
               f'read_handle(handle="{handle}", {fit}' in message for fit in fits)
    assert ('view="text"' in message) is ('view="text"' in fits)
    assert "line=" in message and "pattern=" in message and (kind == "csv" or "(jq: parse error: " in message
                                                                  or "(the content is not JSON: " in message)
    # (a table: and jq over all its rows at once, which the refusal did not name; then named as the call of it)
    assert (f'read_handle(handle="{handle}", jq=".[]", slurp=True)' in message) is (kind == "csv")
    if kind == "csv":  # and it works
        assert tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})["results"] == [4486]
    for fit in fits:  # each read named works on the entry
        call = {"view": "text"} if fit == 'view="text"' else {"select": "h1"} if fit == "select=" else {"row": 1}
        assert tools.call("read_handle", {"handle": handle, **call})["handle"] == handle


def test_jq_errors_of_the_filter_stand_as_they_are(tools, scratch_scope):
    """A filter's own error over a JSON document keeps jq's message alone."""
    handle = scratch_scope.spill(b'{"a": [' + b"1, " * 5000 + b"2]}", source_tool="t").handle
    with pytest.raises(InvalidArgument, match=r"^jq: .*cannot be parsed as a number") as caught:
        tools.call("read_handle", {"handle": handle, "jq": ".a | tonumber"})
    assert "holds" not in str(caught.value)


@pytest.mark.parametrize(("data", "fit", "by"), [
    (b'{"items": [' + b'{"id": 1}, ' * 2000 + b'{"id": 2}]}', 'read it with jq= (e.g. read_handle(handle="{}", '
     'jq="keys[]")', "offset="),
    (b'{"id": 1}\n' * 2000, 'read it with record= (e.g. read_handle(handle="{}", record=1)', "line="),
])
def test_view_text_over_json_names_the_read_that_fits(tools, scratch_scope, data, fit, by):
    """view="text" over JSON was refused with "read it by range, lines or pattern", jq= (record=) unnamed. Lines are
    named for content of short lines; a one-line document (22 KB) gets byte ranges instead, as its stub says."""
    handle = scratch_scope.spill(data, source_tool="t").handle
    with pytest.raises(InvalidArgument, match='which view="text" does not render') as caught:
        tools.call("read_handle", {"handle": handle, "view": "text"})
    assert fit.format(handle) in str(caught.value) and by in str(caught.value)
    assert ("line=" in str(caught.value)) is (by == "line=")


def test_a_row_read_of_one_line_json_names_byte_ranges_not_lines(tools, scratch_scope, fixture_data):
    """row= (and view="text") on a JSON document of one line named line reads among the reads that fit: line=1
    of a 20 KB line. It names byte ranges, as the entry's stub does; a pretty-printed document keeps lines."""
    one_line = json.dumps(json.loads(fixture_data["api-ec2-service-model.json"])).encode()
    for data, by in ((one_line, "by byte range (offset=, length=)"), (b"[\n" + b'  {"id": 1},\n' * 2000 + b"  2\n]\n",
                                                                       "by lines (line=, lines=)")):
        handle = scratch_scope.spill(data, source_tool="t").handle
        with pytest.raises(InvalidArgument) as caught:
            tools.call("read_handle", {"handle": handle, "row": 1})
        fits = ('jq="keys[]"), then a path into what one of them holds' if data is one_line else  # (an array: its
                'jq=".[0]"), its first item; .[N:M][] some of them')  # items, test_json_array_misfit.py)
        assert (f'read it with jq= (e.g. read_handle(handle="{handle}", {fits}), or {by} or by search'
                in str(caught.value))


@pytest.mark.parametrize(("name", "data", "kind"), [
    ("api-ec2-service-model.json", None, "json"),
    ("query-packages-by-month.csv", None, "csv"),
    (None, b'{"id": 1, "note": "<p>x</p>"}\n' * 800, "jsonl"),
])
def test_a_css_select_of_what_is_no_html_page_is_refused_naming_the_reads_that_fit(tools, scratch_scope,
                                                                                   fixture_data, name, data, kind):
    """select= parsed JSON, a table or JSON lines as HTML: 11,910 "elements" of the EC2 model's JSON text, 0
    matches of a table (a model concludes there is nothing). It is refused as row= over JSON is, naming the reads
    that fit. (XML is parsed as XML: tests/test_xml_select.py.)"""
    stub = scratch_scope.spill(fixture_data[name] if data is None else data, source_tool="t")
    assert stub.content_type == kind
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "select": "p"})
    message = str(caught.value)
    assert message.startswith(f"{stub.handle} holds ") and f"(content type {kind}), which a select= read " in message
    assert message.count("match=") == 1 and "pattern=" in message  # (the advice named the searches once)


def test_a_css_select_gives_each_element_s_text_without_the_text_after_it(tools, scratch_scope):
    """An element's text ran on into the text after its end tag (lxml keeps it on the element as its tail):
    select="b" over "<b>bold</b> after tail text." gave "bold after tail text.", select="li" gave "* one\ntail1" (a
    list item is its text, without a bullet, as a browser's innerText: tests/test_html_select_text.py)."""
    page = (b"<html><body><p>Before <b>bold</b> after tail text.</p><ul><li>one</li> tail1 <li>two</li></ul>"
            b"<p>" + b"filler " * 1400 + b"<em>and</em> fast performance,</p></body></html>")
    handle = scratch_scope.spill(page, source_tool="t").handle
    texts = {s: tools.call("read_handle", {"handle": handle, "select": s})["elements"] for s in ("b", "li", "em")}
    assert texts == {"b": ["bold"], "li": ["one", "two"], "em": ["and"]}
    assert tools.call("read_handle", {"handle": handle, "select": "p"})["elements"][0] == "Before bold after tail text."


def test_raw_offset_without_view_says_it_goes_with_the_text_view(tools, scratch_scope):
    """raw_offset= alone was answered "a cursor continues a structure read", when no cursor was given."""
    handle = scratch_scope.spill(b"progress 10%\rprogress 100%\n" * 800, source_tool="t").handle
    with pytest.raises(InvalidArgument, match=r'^raw_offset goes with view="text"'):
        tools.call("read_handle", {"handle": handle, "raw_offset": 5})
    assert tools.call("read_handle", {"handle": handle, "raw_offset": 5, "view": "text"})["handle"] == handle


@pytest.mark.parametrize("read", [{"row": 1, "rows": 2}, {"record": 1, "records": 2}])
@pytest.mark.parametrize(("data", "kind"), [
    (None, "html"),
    (b'<?xml version="1.0"?>\n<feed>\n' + b"  <entry><id>1</id><title>a, b</title></entry>\n" * 400 + b"</feed>\n",
     "xml"),
])
def test_rows_and_records_of_a_page_are_refused_naming_the_reads_that_fit(tools, scratch_scope, fixture_data, read,
                                                                        data, kind):
    """row= on an HTML page parsed its markup as CSV ("header": ["<!DOCTYPE HTML>"], then a "row" per line of
    tags); record= failed on record 1 as "not JSON". Both now name what the entry holds and the reads that fit."""
    stub = scratch_scope.spill(fixture_data["browser-rust-book.html"] if data is None else data, source_tool="t")
    assert stub.content_type == kind
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, **read})
    message = str(caught.value)
    assert message.startswith(f"{stub.handle} holds ") and f"(content type {kind}), which a " in message
    assert ('view="text"' in message and "select=" in message) if kind == "html" else "pattern=" in message


@pytest.mark.parametrize("read", [{"row": 1}, {"jq": "."}, {"record": 1}, {"select": "h1"}])
def test_an_offset_is_refused_by_the_structure_reads_that_do_not_start_at_one(tools, scratch_scope, fixture_data,
                                                                             read):
    """offset= beside row=, jq=, record= or select= was silently ignored (the page started at the first row, the
    document's start, the first element), so a caller asking for "row 1 from byte 5000" got the first rows and no
    word; view="text" keeps its offset."""
    data = {"row": fixture_data["query-packages-by-month.csv"], "select": fixture_data["browser-rust-book.html"],
            "jq": fixture_data["api-ec2-service-model.json"], "record": b'{"id": 1}\n' * 2000}[next(iter(read))]
    handle = scratch_scope.spill(data, source_tool="t").handle
    with pytest.raises(InvalidArgument, match="offset cannot be combined with"):
        tools.call("read_handle", {"handle": handle, "offset": 5000, **read})
    assert tools.call("read_handle", {"handle": handle, "offset": 0, **read})["handle"] == handle
    page = scratch_scope.spill(fixture_data["browser-rust-book.html"], source_tool="t").handle
    assert tools.call("read_handle", {"handle": page, "offset": 5000, "view": "text"})["offset"] == 5000


@pytest.mark.parametrize(("read", "data", "start", "moved"), [
    ("record", b'{"id": 1, "x": "aaaaaaaaaaaaaaaaaaaaaa"}\n' * 3000, {"record": 1, "records": 2}, {"record": 2000}),
    ("row", b"a,b\n" + b"1,22222222222222\n" * 4000, {"row": 1, "rows": 5}, {"row": 500}),
    ("view", b"progress 10%\rdone line\n" * 3000, {"view": "text"}, {"offset": 100}),
    ("view", b"<html><body>" + b"<p>para</p>" * 3000 + b"</body></html>", {"view": "text"}, {"offset": 100}),
])
def test_a_cursor_beside_another_start_than_its_read_s_is_refused(tools, scratch_scope, read, data, start, moved):
    """A model that edits a next_call to jump ahead (record=1 -> record=2000, beside the cursor) got the cursor's
    page, and the reply echoed the start it asked for: a wrong page, said to be the one asked for. The cursor binds
    where its read started; beside another start it is refused, and without it the start is read."""
    handle = scratch_scope.spill(data, source_tool="t").handle
    first = tools.call("read_handle", {"handle": handle, **start})
    nxt = ast.parse(first["next_call"], mode="eval").body
    call = {k.arg: ast.literal_eval(k.value) for k in nxt.keywords}
    assert tools.call("read_handle", call)["handle"] == handle  # as given: goes on
    with pytest.raises(InvalidArgument, match=r"was not made by this read|beside a cursor"):  # (a view's: named)
        tools.call("read_handle", {**call, **moved})
    jumped = tools.call("read_handle", {**{k: v for k, v in call.items() if k != "cursor"}, **moved})
    assert jumped.get("first", jumped.get("offset")) == next(iter(moved.values()))


@pytest.mark.parametrize(("data", "start", "place"), [
    (b"a,ext\n" + b"".join(b"%d,e%d\n" % (i, i % 7) for i in range(1, 3000)), {"row": 1, "rows": 10000,
                                                                             "columns": ["ext"]}, "row"),
    (b"".join(b'{"n": %d, "unit": "u%d"}\n' % (i, i % 5) for i in range(1, 3000)), {"records": 10000, "jq": ".unit"},
     "record"),
])
def test_a_row_or_record_next_call_names_where_it_goes_on(tools, scratch_scope, data, start, place):
    """A rows next_call read `row=1, rows=10000, columns=["ext"], cursor="8819..."`: the cursor won, but row=1 read
    as a restart (agentsim F2). It names the row (record) the next page starts at; that row beside the cursor reads
    on, another (the first page's own) is refused, never obeyed in silence."""
    handle = scratch_scope.spill(data, source_tool="t").handle
    pages = follow(tools, {"handle": handle, **start}, 2048)
    assert len(pages) > 2
    for before, after in itertools.pairwise(pages):
        call = ast.parse(before["next_call"], mode="eval").body
        named = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        if place == "row":
            assert named["row"] == after["first"] == before["first"] + len(before["rows"])
        else:
            assert named["record"] == after["record"] and after["first"] == 1
        assert before["next_call"].startswith(f'read_handle(handle="{handle}", {place}={named[place]}, ')
    call = ast.parse(pages[1]["next_call"], mode="eval").body
    named = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    with pytest.raises(InvalidArgument, match=f"goes on at {place} {named[place]}; pass it with {place}="):
        tools.call("read_handle", {**named, place: 1})


@pytest.mark.parametrize("budget", [2048, 8192])
@pytest.mark.parametrize("kind", ["html", "terminal"])
def test_a_text_view_from_an_offset_is_followed_by_its_next_call_to_the_end(tools, scratch_scope, fixture_data,
                                                                            kind, budget):
    # the view's cursor bound its start offset: next_call named the cursor without offset=, and was refused; then
    # with the stale offset= beside it (tests/test_next_call_positions.py): now the cursor is bound to no start
    if kind == "html":
        data = fixture_data["browser-rust-book.html"]
    else:
        data = b"".join(b"step %d \x1b[32mok\x1b[0m\r" % i + b"done %d\n" % i for i in range(2000))
    h = scratch_scope.spill(data).handle
    whole = "".join(p["text"] for p in follow(tools, {"handle": h, "view": "text"}, budget))
    start = len(whole.encode()) // 3
    pages = follow(tools, {"handle": h, "view": "text", "offset": start}, budget)
    assert len(pages) > 1 and not pages[-1]["more"]
    assert all("offset=" not in p["next_call"] for p in pages[:-1])
    assert "".join(p["text"] for p in pages).encode() == whole.encode()[pages[0]["offset"]:]


def test_a_css_select_reads_an_xhtml_page_with_an_encoding_declaration(tools, scratch_scope):
    # select= over a page starting <?xml version="1.0" encoding="UTF-8"?> was 'the HTML does not parse: Unicode
    # strings with encoding declaration are not supported' (view="text" stripped the declaration; select did not)
    page = (b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
            b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml">'
            b"<head><title>T</title></head><body>" + b"".join(b"<p>para %d</p>" % i for i in range(2000))
            + b"</body></html>")
    handle = scratch_scope.spill(page, source_tool="t").handle
    pages = follow(tools, {"handle": handle, "select": "p"}, 8192)
    assert [e for p in pages for e in p["elements"]] == [f"para {i}" for i in range(2000)]


def test_raw_offset_over_a_table_names_the_reads_that_fit_it(tools, scratch_scope):
    """view="text" with raw_offset over a CSV table (or XML, JSON) was refused as an HTML page's text view would be
    ("an HTML page's text view is paged by offset"); it gets the text view's refusal for what it holds."""
    handle = scratch_scope.spill(b"a,b\n" + b"1,2\n" * 5000, source_tool="t").handle
    with pytest.raises(InvalidArgument, match=r'^h_\w+ holds a CSV/TSV table \(content type csv\), which view="text" '
                                              r"does not render \(it renders HTML pages and terminal output\): "
                                              r"read it with row="):
        tools.call("read_handle", {"handle": handle, "view": "text", "raw_offset": 5})


@pytest.mark.parametrize("read", [{"view": "text"}, {"jq": "."}])
def test_a_structure_read_of_binary_content_names_byte_ranges_once(tools, scratch_scope, read):
    """A structure read refused for binary content (an HTML page with NUL bytes, classified binary) said "read it
    with offset= and length= (byte ranges), or by byte range (offset=, length=) or by search": the byte-range read
    twice, and for binary with short lines "by lines (line=, lines=)", which shows a hex dump of the same bytes.
    It names byte ranges once, then search."""
    page = b"<!DOCTYPE html><html><body>" + b"<p>a\x00b</p>" * 2000 + b"</body></html>"
    handle = scratch_scope.spill(page, source_tool="t").handle
    with pytest.raises(InvalidArgument) as raised:
        tools.call("read_handle", {"handle": handle, **read})
    message = str(raised.value)
    assert f'(byte ranges; its first ones: read_handle(handle="{handle}")) or by search (match=, pattern=)' in message
    assert message.count("offset=") == 1 and "line=" not in message, message


@pytest.mark.parametrize("document", [b"[" * 20_000 + b"]" * 20_000,
                                      b'{"k": ' + b"[" * 12_000 + b"]" * 12_000 + b', "b": [1, 2, 3]}'])
def test_jq_over_json_nested_past_jqs_depth_limit_says_so_not_that_it_is_text(tools, scratch_scope, document):
    """jq parses at most 10,000 levels. A document nested deeper -- its stub's shape says "JSON nested too deeply to
    parse" -- was refused as "holds text (content type text), which jq cannot parse as JSON: read it with
    view="text" (rendered as a terminal shows it)", advice for a log; records= said "JSON nested too deeply to
    parse". jq says the same now, and names the reads that fit (byte ranges for a one-line document, searches)."""
    stub = scratch_scope.spill(document, source_tool="t")
    assert "nested too deeply" in stub.shape
    with pytest.raises(InvalidArgument) as raised:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".b"})
    message = str(raised.value)
    assert message.startswith(f"{stub.handle} holds JSON nested too deeply for jq to parse"), message
    assert "read it by byte range (offset=, length=) or by search (match=, pattern=)" in message
    assert "Exceeds depth limit for parsing" in message and 'view="text"' not in message


def test_a_selected_column_a_short_row_lacks_is_null_not_an_empty_field(tools, scratch_scope):
    """A ragged table: a selected column that a row does not reach was shown as "" -- an empty field the content does
    not hold, the same as the row `3,,x`'s -- so a model could not tell a short row from an empty cell. It is null;
    an empty field stays "" and the rows read whole keep their own lengths."""
    text = "a,b,c\n1,,x\n2\n3,y\n" + "".join(f"{i},{i}\n" for i in range(4, 3000))
    handle = scratch_scope.spill(text.encode(), source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 3, "columns": ["b", "c"]})
    assert reply["rows"] == [["", "x"], [None, None], ["y", None]]
    whole = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 3})
    assert whole["rows"] == [["1", "", "x"], ["2"], ["3", "y"]]


@pytest.mark.parametrize("offset", [1, 2, 3, 5, 103])
def test_a_terminal_text_view_from_an_offset_inside_a_character_starts_at_the_next_one(tools, scratch_scope, offset):
    """view="text" of terminal output from a byte offset inside a character showed the character's other bytes as
    U+FFFD ("\ufffd\ufffd\ufffd\u00e9..." from offset 1 of a line starting with an emoji) -- characters the output
    does not hold, with no `replaced` count -- where the HTML text view and a range read start at the next
    character. It starts there too, and `offset` says where."""
    line = "\U0001F600\u00e9\u65e5 line \x1b[1mx\x1b[0m\n"  # the view of each: 17 bytes of text
    handle = scratch_scope.spill((line * 3000).encode(), source_tool="t").handle
    view = ("\U0001F600\u00e9\u65e5 line x\n" * 3000).encode()
    reply = tools.call("read_handle", {"handle": handle, "view": "text", "offset": offset})
    start = offset
    while view[start] & 0xC0 == 0x80:
        start += 1
    assert reply["offset"] == start and "\ufffd" not in reply["text"] and "replaced" not in reply
    assert view[start:].decode().startswith(reply["text"])


def test_rows_of_a_latin1_table_say_how_many_bytes_they_show_as_replacement_characters(tools, scratch_scope):
    """Rows of a table that is not UTF-8 (a Latin-1 export) showed U+FFFD with nothing saying so, where every other
    text reply counts such bytes in ``replaced``. Each page now counts those of its header and the rows it shows
    (every column's: a selected column's cells come from the whole row), as plain Python counts them; a page with
    none has no ``replaced``, and a U+FFFD of the content's own is no replaced byte."""
    rows = [f"row{i},{'Café München' if i % 3 == 0 else 'Zurich'},{'�' if i % 5 == 0 else 'ok'}" for i in range(400)]
    data = ("name,city,mark\n" + "\n".join(rows) + "\n").encode("latin-1", "replace").replace(b"?", "�".encode())
    handle = scratch_scope.spill(data, source_tool="sql").handle
    raw_rows = data.split(b"\n")[1:-1]
    for budget, columns in ((2048, None), (4096, ["name"]), (65536, None)):
        args = {"handle": handle, "row": 1, "rows": 50}
        if columns:
            args["columns"] = columns
        pages = follow(tools, args, budget)
        shown = 0
        for page in pages:
            raw = raw_rows[page["first"] - 1 : page["first"] - 1 + len(page["rows"])]
            wanted = sum(len(r) - len(r.decode("utf-8", "ignore").encode()) for r in raw)
            assert page.get("replaced", 0) == wanted and ("replaced" in page) == (wanted > 0), page
            shown += len(page["rows"])
        assert shown == 400
    page = tools.call("read_handle", {"handle": handle, "row": 2, "rows": 1})
    assert page["rows"] == [["row1", "Zurich", "ok"]] and "replaced" not in page


def test_each_part_of_a_row_larger_than_a_page_counts_only_the_replaced_bytes_it_shows(tools, scratch_scope):
    """A row larger than the page comes as ``part`` pieces; every piece carried the whole row's ``replaced`` (4,000
    bytes said on each of some 30 pages, for 4,000 bytes in all). Each piece now counts the bytes of the U+FFFD it
    shows (a truncated 2-byte sequence is one U+FFFD for 2 bytes; a U+FFFD of the content's own counts none); the
    first piece also counts those of the columns not selected, so the pieces add up to what the whole row counts."""
    seg = b"x" * 60 + b"\xe2\x82" + b"y" * 20 + "\ufffd".encode()  # one replaced U+FFFD (2 bytes), one of its own
    data = b"name,blob,tail\nr1\xff," + seg * 80 + b",end\nr2,small,z\n"
    handle = scratch_scope.spill(data, source_tool="sql").handle
    for columns in (None, ["blob", "tail"], ["blob", "blob"]):
        args = {"handle": handle, "row": 1, "rows": 5, **({"columns": columns} if columns else {})}
        pages = follow(tools, args, 2048)
        parts = [p for p in pages if "part" in p]
        assert len(parts) > 3 and "".join(p["part"] for p in parts).startswith('["r1\ufffd' if not columns else '["x')
        seen = 0  # U+FFFD of the row's blob shown so far: the even ones are replaced bytes (2 each; once, when twice)
        for n, page in enumerate(parts):
            in_blob = page["part"].count("\ufffd") - (1 if n == 0 and not columns else 0)
            wanted = sum(2 for k in range(seen, seen + in_blob) if k % 2 == 0 and k < 160) + (n == 0)
            seen += in_blob
            assert page.get("replaced", 0) == wanted and ("replaced" in page) == (wanted > 0), (n, page)
        assert seen == 160 * (1 + (columns == ["blob", "blob"])) and sum(p.get("replaced", 0) for p in parts) == 161


@pytest.mark.parametrize(("column", "says"), [
    (9, "no column number 9 (numbers count from 0: 0 to 3); the 4 columns are: "),
    (-1, "no column number -1 (numbers count from 0: 0 to 3); the 4 columns are: "),
    ("9x", 'no column "9x"; the 4 columns are: '),
    ("nme", 'no column "nme" (did you mean "name"?); the 4 columns are: '),  # (a new user's typo: no near name
    ("Month", 'no column "Month" (did you mean "month"?); the 4 columns are: '),  # said before)
])
def test_a_column_out_of_range_is_told_as_a_number_and_a_missing_name_as_a_name(store, fixture_data, column, says):
    """Before: --column 9 (a number) was told 'no column "9"', as if a name were missing."""
    scope = store.scope("r", "a")
    handle = scope.spill(fixture_data["query-packages-by-month.csv"], source_tool="sql").handle
    with pytest.raises(InvalidArgument) as err:
        scope.structure.rows(handle, row=1, rows=2, columns=[column])
    assert str(err.value).startswith(says)


def test_rows_of_a_table_without_a_header_line_are_numbered_from_its_first_line(tools, scratch_scope):
    """``sqlite3 -csv`` prints no header line (fixtures/tools/sqlite-csv-packages.csv): the stub says 'no header, 40
    rows', and row=1 gave the table's second record under a 'header' holding its first (adduser, 3.134, ...) -- row N
    was the stub's row N+1, and a model paging to the stub's count got one row fewer (a later page said the
    'header' was the first row, but the count stayed one short). Every read now takes the first line for row 1: the
    rows read gives no header and 40 rows, row=40 is the last, and columns are selected by number."""
    data = (_TOOLS / "sqlite-csv-packages.csv").read_bytes()
    records = list(csv.reader(io.StringIO(data.decode(), newline="")))
    stub = scratch_scope.spill(data, source_tool="sqlite3")
    assert stub.content_type == "csv" and stub.shape == "CSV, 4 columns, no header, 40 rows", stub.shape
    page = tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 50, "budget": 65536})
    assert "header" not in page and page["rows"] == records and len(records) == 40
    assert page["note"] == ("the table has no header line (its stub says so): rows are numbered from its first "
                            "line, as the stub counts them, and columns= takes column numbers (from 0)"), page
    last = tools.call("read_handle", {"handle": stub.handle, "row": 40, "rows": 5, "columns": [1, 0]})
    assert last["rows"] == [[records[39][1], records[39][0]]] and last["first"] == 40 and not last["more"], last
    with pytest.raises(InvalidArgument, match=r"row 41 is past the last row \(40\): the last ones: "):
        tools.call("read_handle", {"handle": stub.handle, "row": 41})  # (as past any table's end)
    with pytest.raises(InvalidArgument, match=r"no header line .*by number, from 0 to 3"):
        tools.call("read_handle", {"handle": stub.handle, "row": 1, "columns": [records[0][0]]})
    named = scratch_scope.spill(b"name,version,arch,descr\n" + data, source_tool="sqlite3")
    assert "note" not in tools.call("read_handle", {"handle": named.handle, "row": 1, "rows": 5})


@pytest.mark.parametrize("name", ["git-log-format.tsv", "du-ah-python3.tsv", "sqlite-csv-packages.csv"])
def test_the_rows_the_stub_counts_are_the_rows_every_read_gives(tools, scratch_scope, name):
    """A table with no header line (real outputs: ``git log --format='%H%x09%an%x09%ad%x09%s'``, ``du -ah``,
    ``sqlite3 -csv``): the count its stub gives is the count of rows that following next_call gives (small pages,
    a column selected), the count slurp=true gives, and the rows of the web inspector's table; each row is the csv
    module's record, in order."""
    from scratchfs.web.structure import MAX_CELL_CHARS, csv_table

    data = (_TOOLS / name).read_bytes()
    delimiter = "\t" if name.endswith(".tsv") else ","
    records = [r for r in csv.reader(io.StringIO(data.decode(), newline=""), delimiter=delimiter) if r]
    stub = scratch_scope.spill(data, source_tool="tool")
    counted = re.search(r"no header, ([\d,]+) rows", stub.shape)
    assert counted and int(counted.group(1).replace(",", "")) == len(records), stub.shape
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 7, "columns": [1]}, 2048)
    assert [row for page in pages for row in page["rows"]] == [[r[1]] for r in records]
    slurped = tools.call("read_handle", {"handle": stub.handle, "jq": "length, map(.[1])", "slurp": True,
                                         "budget": 65536})["results"]
    assert slurped == [len(records), [r[1] for r in records]]
    table = csv_table(scratch_scope, stub.handle, 0, 500)
    assert table["rows"] == [[c[:MAX_CELL_CHARS] for c in r] for r in records] and table["total_rows"] == len(records)
    assert table["columns"] == [str(i) for i in range(len(records[0]))]


def test_select_pages_after_the_first_reuse_its_rendered_elements(tools, scratch_scope, fixture_data, monkeypatch):
    """Each page of a select= read parsed the whole page again and ran the selector over it in a worker: 0.6 s a page
    of select="a" over the Rust reference's 4.2 MiB print page (15,125 links: 150 pages, 90 s), 1.5 s a page of
    select="td, a" (lxml's union XPath takes 1.1 s) -- a page of a 5 MB output is to take well under a second. The
    first page's worker renders the texts of the elements after it too (up to a bound), and the next pages are cut
    from them; every element still comes once, in order."""
    from scratchfs.engine.structure import html_worker

    runs = []
    real = html_worker.run_html
    monkeypatch.setattr(html_worker, "run_html", lambda *args: runs.append(args[0]) or real(*args))
    handle = scratch_scope.spill(fixture_data["browser-rust-book.html"], source_tool="browser").handle
    whole = tools.call("read_handle", {"handle": handle, "select": "p", "budget": 65536})
    assert whole["matches"] > 1000 and whole["next_call"] is not None
    runs.clear()
    pages = follow(tools, {"handle": handle, "select": "p"}, 2048)
    assert len(pages) > 100 and len(runs) <= 2, (len(pages), len(runs))
    again = follow(tools, {"handle": handle, "select": "p"}, 65536)  # the same read in big pages
    assert _elements(pages) == _elements(again) and len(_elements(pages)) == whole["matches"]


def _elements(pages: list[dict]) -> list[str]:
    """The elements of a select read's pages, those larger than a page joined from their ``part`` pieces."""
    out: list[str] = []
    part: tuple[int, str] | None = None
    for page in pages:
        if part is not None and (page["first"] != part[0] or "part" not in page):
            out.append(part[1])
            part = None
        if "part" in page:
            part = (page["first"], (part[1] if part else "") + page["part"])
            if page["elements"]:
                out.append(part[1])
                part = None
        out += page["elements"]
    return out + ([part[1]] if part else [])


def test_a_column_named_twice_in_the_header_is_named_by_number(scratch_scope):
    """``columns=["name"]`` over a join's header ``name,version,name,version,month`` (real ``sqlite3 -header -csv``
    output) gave the first ``name`` alone, with no word of the second (atk27). A name the header holds more than once
    is refused, naming its column numbers; by number each is read."""
    data = (_TOOLS / "sqlite-csv-join-repeated-names.csv").read_bytes()
    handle = scratch_scope.spill(data, source_tool="sqlite3").handle
    tools = ScratchTools(scratch_scope)
    with pytest.raises(InvalidArgument, match=r'column "name" is in the header 2 times \(column numbers 0, 2, '
                                              r"counting from 0\): name the ones needed by number, e.g. "
                                              r"columns=\[0, 2\], or by the keys slurp=true gives them "
                                              r"\(name, name_2\)"):
        tools.call("read_handle", {"handle": handle, "row": 1, "rows": 3, "columns": ["name", "month"]})
    rows = list(csv.reader(io.StringIO(data.decode())))
    page = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 3, "columns": [0, 2, "month"]})
    assert [list(r.values()) if isinstance(r, dict) else r for r in page["rows"]] == \
        [[r[0], r[2], r[4]] for r in rows[1:4]], page["rows"]
    # the keys a slurp read gives the repeated names (name, name_2: helper modeltrial, told name_2 by the slurp
    # note and refused it by columns=) pick the same columns as their numbers
    slurped = tools.call("read_handle", {"handle": handle, "jq": ".[0] | keys_unsorted", "slurp": True})
    keys = slurped["results"][0] if "results" in slurped else slurped["result"]
    assert keys[:4] == ["name", "version", "name_2", "version_2"], slurped
    by_key = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 3, "columns": ["name_2", "version_2"]})
    by_number = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 3, "columns": [2, 3]})
    assert by_key["rows"] == by_number["rows"] and by_key["rows"], by_key


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keep=st.lists(st.booleans(), min_size=1, max_size=600), records=st.integers(1, 40), start=st.integers(1, 5),
       outputs=st.integers(0, 3))
def test_jq_over_records_counts_the_records_it_shows_not_those_it_passes_over(tools, scratch_scope, keep, records,
                                                                              start, outputs):
    """records= with jq bounds the records whose outputs a page shows: a select keeping few (a new user's
    select(.size > 100000) over 2,942 records, records=10) took 295 pages to follow, most of them empty. Following
    next_call gives every output once, in order, as Python's filter does; a page shows at most `records` records."""
    start = min(start, len(keep))
    data = b"".join(b'{"i": %d, "keep": %s, "n": %d}\n' % (i, b"true" if k else b"false", outputs)
                    for i, k in enumerate(keep, 1))
    handle = scratch_scope.spill(data).handle
    pages = follow(tools, {"handle": handle, "record": start, "records": records,
                           "jq": "select(.keep) | range(.n) as $k | [.i, $k]"}, 8192)
    got = [tuple(r) for p in pages for r in p["results"]]
    assert got == [(i, k) for i, kept in enumerate(keep, 1) if kept and i >= start for k in range(outputs)]
    for page in pages:
        assert len({r[0] for r in page["results"]}) <= records
    shown = sum(keep[start - 1:]) if outputs else 0
    assert len(pages) <= -(-shown // records) + 1  # (pages cut by the budget aside: these outputs are small)


def test_a_sparse_select_over_records_is_read_in_few_pages(tools, scratch_scope):
    data = b"".join(b'{"path": "/usr/x/%d", "size": %d}\n' % (i, 200_000 if i % 50 == 0 else 10) for i in range(3000))
    handle = scratch_scope.spill(data).handle
    pages = follow(tools, {"handle": handle, "record": 1, "records": 10, "jq": "select(.size > 100000) | .path"}, 8192)
    assert [r for p in pages for r in p["results"]] == [f"/usr/x/{i}" for i in range(0, 3000, 50)]
    assert len(pages) <= 7  # (60 records kept, 10 a page, and the records after the last: 300 pages before)


def test_a_tsv_whose_first_line_holds_more_commas_than_tabs_is_read_at_its_tabs(tools, scratch_scope):
    """``git log --format='%H%x09%an%x09%ad%x09%s'`` (fixtures/tools/git-log-format.tsv) whose newest subject holds
    more commas than the line has tabs (line 23 of the fixture, 10 commas, put first) was 'text': the delimiter was
    told from the first line alone (more commas than tabs: a comma), and its rows did not split alike. The lines
    after it tell it too: a tab, 3 in the line and in every line after it."""
    lines = (_TOOLS / "git-log-format.tsv").read_bytes().split(b"\n")
    data = b"\n".join([lines[22], *lines[:22], *lines[23:]])
    assert data.split(b"\n", 1)[0].count(b",") > data.split(b"\n", 1)[0].count(b"\t") == 3
    records = [r for r in csv.reader(io.StringIO(data.decode(), newline=""), delimiter="\t") if r]
    stub = scratch_scope.spill(data, source_tool="git")
    assert stub.content_type == "csv" and stub.shape == "TSV, 4 columns, no header, 30 rows", stub.shape
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 7, "columns": [0, 3]}, 4096)
    assert [row for page in pages for row in page["rows"]] == [[r[0], r[3]] for r in records]
    assert tools.call("read_handle", {"handle": stub.handle, "jq": "map(length) | unique", "slurp": True,
                                      })["results"] == [[4]]


@pytest.mark.parametrize("raw_offset", [-1, -10_000])
def test_a_negative_raw_offset_on_an_html_page_is_a_bad_argument_not_a_corrupt_blob(tools, scratch_scope, raw_offset):
    """The refusal of raw_offset on an HTML page read the page at that byte to name the words there: a negative one
    read frame -1 and was reported as CorruptBlob (the page said damaged)."""
    page = b"<html><body>" + b"<p>hello there</p>" * 2000 + b"</body></html>"
    handle = scratch_scope.spill(page, source_tool="t").handle
    with pytest.raises(InvalidArgument, match="raw_offset must be"):
        tools.read_handle(handle, view="text", raw_offset=raw_offset)
    assert "hello there" in str(tools.read_handle(handle, view="text"))
