"""Structure reads of an entry whose stored content type they do not fit -- rows, records, jq, select of text, a log,
binary data -- through the model's contract, the CLI and the web inspector: one typed error naming what the entry
is and advice that works for it (a new user's trial read grep output as a CSV table, exit 0, and was advised to read
on record by record and to render it as terminal output)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from scratchfs import BadRecord, InvalidArgument, ScratchStore
from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.cli import main
from scratchfs.web import create_app

TOKEN = "test-token-0123456789abcdef"
LOG = b"".join(b"2024-05-01 12:00:%02d INFO step %d done\n" % (i % 60, i) for i in range(500))
TERMINAL = b"".join(b"\x1b[32mstep %d\x1b[0m " % i + b"".join(b"\r[%3d%%]" % p for p in range(0, 101, 10)) + b"\n"
                    for i in range(300))
BINARY = bytes(range(256)) * 40


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def advised_calls(message: str) -> list[dict]:
    """The read_handle calls a message advises, as arguments."""
    calls = []
    for text in message.split("read_handle(")[1:]:
        node = ast.parse("f(" + text[: text.index(")") + 1], mode="eval").body
        calls.append({k.arg: ast.literal_eval(k.value) for k in node.keywords})
    return calls


@pytest.mark.parametrize(("name", "data", "kind", "what"), [
    ("workspace-grep-stdlib-defs.txt", None, "text", "text (grep-style path:line: output)"),
    (None, LOG, "log", "log output"),
    (None, BINARY, "binary", "binary data"),
])
@pytest.mark.parametrize("read", [{"row": 1, "rows": 2}, {"record": 1}, {"select": "p"}, {"jq": "."}])
def test_a_structure_read_that_does_not_fit_names_what_the_entry_is_and_reads_that_work(
        tools, scratch_scope, fixture_data, name, data, kind, what, read):
    """rows of grep output came back as a CSV table (header '["./fileinput.py:78:def input(files=None", ...]', exit
    0, a next_call paging on), select="p" as 0 elements, record=1 as 'not JSON; read on after it: record=2' (every
    line fails the same way) and jq as advice to render it as a terminal shows it."""
    stub = scratch_scope.spill(fixture_data[name] if data is None else data, source_tool="t")
    assert stub.content_type == kind
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, **read})
    message = str(caught.value)
    assert not isinstance(caught.value, BadRecord), message  # not one that reads on
    assert message.startswith(f"{stub.handle} holds {what} (content type {kind})"), message
    assert 'view="text"' not in message and "record=2" not in message
    assert ("offset=" if kind == "binary" else "line=") in message and "pattern=" in message
    fits = {"offset": 0, "length": 64} if kind == "binary" else {"line": 1, "lines": 2}
    assert tools.call("read_handle", {"handle": stub.handle, **fits})["handle"] == stub.handle


def test_terminal_output_is_advised_its_text_view_and_the_view_works(tools, scratch_scope):
    stub = scratch_scope.spill(TERMINAL, source_tool="build")
    assert stub.content_type == "log"
    for read in ({"row": 1}, {"jq": "."}, {"record": 1}, {"select": "p"}):
        with pytest.raises(InvalidArgument) as caught:
            tools.call("read_handle", {"handle": stub.handle, **read})
        assert str(caught.value).startswith(f"{stub.handle} holds terminal output (content type log)")
        assert 'view="text"' in str(caught.value), caught.value
    view = tools.call("read_handle", {"handle": stub.handle, "view": "text"})["text"]
    assert view.startswith("[100%] \n") and "\x1b" not in view and "\r" not in view  # (the space after step 0)


_COMMENTS = ["# a comment line", "# another", "# and one more"]  # (3 of the first 20 lines: text to the sniffer)


def test_a_bad_record_among_json_lines_a_sniffer_called_text_reads_on(tools, scratch_scope):
    """A record read of text whose lines are mostly JSON (a tool's output cut in its last record) reads as JSON
    lines do: a page that starts at a bad record passes over it and those right after it, naming the first and the
    byte read that shows it (before branch jsonlines: raised, naming that read and the read after it; one comment
    line among 30 records, which this test held, now makes JSON lines: test_jsonl_bad_records_stub)."""
    records = [json.dumps({"i": i}) for i in range(30)]
    data = "\n".join([*records[:15], *_COMMENTS, *records[15:]]) + "\n" + records[0][:5]
    stub = scratch_scope.spill(data, source_tool="logs")
    assert stub.content_type == "text"
    page = tools.call("read_handle", {"handle": stub.handle, "record": 16, "records": 5})
    assert page["records"] == [{"i": i} for i in range(15, 20)] and page["first"] == 19
    assert page["note"].startswith("record 16 (bytes ") and "(records 17, 18), passed over too" in page["note"]
    see = advised_calls(page["note"])[0]
    assert tools.call("read_handle", see)["data"] == "# a comment line\n"


def test_the_cli_and_the_web_table_refuse_rows_of_text_as_the_model_s_read_does(scratch_store, fixture_data,
                                                                                 monkeypatch, tmp_path):
    scope = scratch_store.scope("run-1", "agent-1")
    handle = scope.spill(fixture_data["workspace-grep-stdlib-defs.txt"], source_tool="grep").handle
    with TestClient(create_app(scratch_store, TOKEN), headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        reply = client.get(f"/api/runs/run-1/agents/agent-1/handles/{handle}/table", params={"row": 0, "rows": 2})
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["kind"] == "invalid argument" and error["message"].startswith(f"{handle} holds text (grep-style")


def test_the_cli_refuses_rows_of_text_in_one_line(tmp_path, fixture_data, monkeypatch):
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "root"))
    monkeypatch.setenv("SCRATCHFS_RUN_ID", "run-1")
    monkeypatch.setenv("SCRATCHFS_AGENT_ID", "agent-1")
    path = tmp_path / "grep.txt"
    path.write_bytes(fixture_data["workspace-grep-stdlib-defs.txt"])
    runner = CliRunner()
    handle = json.loads(runner.invoke(main, ["spill", str(path), "--tool", "grep"]).stdout)["handle"]
    for args in (["--row", "1", "--rows", "2"], ["--record", "1"], ["--jq", "."]):
        result = runner.invoke(main, ["read-handle", handle, *args], catch_exceptions=False)
        assert result.exit_code == 2 and result.stdout == "", (args, result.output)
        assert result.stderr.count("\n") == 1 and result.stderr.startswith(
            f"scratchfs: invalid argument: {handle} holds text (grep-style path:line: output) (content type text)")
        assert "view=" not in result.stderr and "record=2" not in result.stderr


@pytest.mark.parametrize(("data", "kind", "header", "rows"), [
    (b"name,note\n", "text", ["name", "note"], []),  # a header alone: no table told from one line
    (b"name\tnote\n", "text", ["name", "note"], []),
    (b'a,b,"c\nX\x00Y",d\n1,2,3,4\n', "binary", ["a", "b", "c\nX\x00Y", "d"], [["1", "2", "3", "4"]]),
    (b"".join(b"2024-05-01 12:00:%02d,INFO,step %d\n" % (i, i) for i in range(40)), "log",
     ["2024-05-01 12:00:00", "INFO", "step 0"], [["2024-05-01 12:00:01", "INFO", "step 1"]]),
])
def test_rows_of_text_or_a_log_that_make_a_table_are_read_and_say_how_it_was_stored(tools, scratch_scope, data,
                                                                                     kind, header, rows):
    """Rows of what was stored as text or a log are read when its first records make a table (a header alone, a
    CSV whose first column is a timestamp, which the sniffer takes for a log); the page says how it was stored."""
    stub = scratch_scope.spill(data, source_tool="t")
    assert stub.content_type == kind
    page = tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 1})
    assert (page["header"], page["rows"]) == (header, rows)
    assert page["note"].startswith(f"stored as {kind}: no table was found")


def test_a_select_over_text_holding_part_of_an_html_page_is_read(tools, scratch_scope, fixture_data):
    book = fixture_data["browser-rust-book.html"]
    part = book[60_000:120_000]
    stub = scratch_scope.spill(part, source_tool="t")
    assert stub.content_type == "text"
    assert tools.call("read_handle", {"handle": stub.handle, "select": "p"})["elements"]
    with pytest.raises(InvalidArgument, match=r'holds text \(content type text\), in which select="marquee" found no'):
        tools.call("read_handle", {"handle": stub.handle, "select": "marquee"})


def test_the_web_tree_and_text_views_of_text_name_what_it_is(scratch_store, fixture_data):
    """The inspector's JSON tree of grep output said only 'the entry is not JSON: Expecting value: line 1 column 1
    (char 0)', its page text 'the text view of a page is for HTML entries; this is text'."""
    scope = scratch_store.scope("run-1", "agent-1")
    grep = scope.spill(fixture_data["workspace-grep-stdlib-defs.txt"], source_tool="grep").handle
    build = scope.spill(TERMINAL, source_tool="build").handle
    with TestClient(create_app(scratch_store, TOKEN), headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        url = "/api/runs/run-1/agents/agent-1/handles/"
        for handle, tail, what in ((grep, "/tree", "text (grep-style path:line: output)"),
                                   (grep, "/text", "text (grep-style path:line: output)"),
                                   (build, "/tree", "terminal output")):
            error = client.get(url + handle + tail).json()["error"]
            assert error["message"].startswith(f"{handle} holds {what} (content type "), error
            assert ('view="text"' in error["message"]) is (what == "terminal output") and "line=" in error["message"]


_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


@pytest.mark.parametrize("data", [(_TOOLS / "find-ls-usr.txt").read_bytes(), b"404 not found\n" * 2000,
                                  b"true story: the build passed\n" * 500])
def test_jq_over_text_whose_first_words_are_json_values_is_refused_on_its_first_page(tools, scratch_scope, data):
    """``find /usr -ls`` (fixtures/tools/find-ls-usr.txt) starts '   260074      4 drwxr-xr-x': jq="." over it gave
    'results: [260074, 4], more: true' -- the inode and block count read as two JSON documents -- and only the next
    page said it holds text which jq cannot parse. Text whose lines are not JSON is refused on the first page;
    JSON lines the sniffer called text, three of their first 20 lines bad, still give the outputs before them."""
    stub = scratch_scope.spill(data, source_tool="t")
    assert stub.content_type == "text", stub.shape
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": "."})
    columns = "columns aligned by spaces" in (stub.shape or "")  # (find -ls: its rows' slurp read, modeltask3)
    held, fits = ("text in 11 columns aligned by spaces with no header line", "with slurp=true") if columns else (
        "text", "read it by lines")
    assert str(caught.value).startswith(f"{stub.handle} holds {held} (content type text), which jq cannot parse as "
                                        f"JSON: {fits}"), caught.value
    records = [json.dumps({"i": i}) for i in range(30)]
    mostly = "\n".join([*records[:15], *_COMMENTS, *records[15:]]) + "\n" + records[0][:5]
    mostly_stub = scratch_scope.spill(mostly, source_tool="logs")
    assert mostly_stub.content_type == "text"
    first = tools.call("read_handle", {"handle": mostly_stub.handle, "jq": ".i"})
    assert first["results"] == list(range(15)) and first["more"]


@pytest.mark.parametrize("name", ["bash-changelog.Debian.gz", "git-logo.png"])
@pytest.mark.parametrize("read", [{"select": "p"}, {"select": "*"}, {"jq": "."}, {"record": 1}, {"row": 1}])
def test_a_structure_read_of_compressed_or_image_data_is_refused_naming_its_format(tools, scratch_scope, name, read):
    """Debian's bash changelog.Debian.gz (fixtures/tools) holds the bytes '<p' by chance: select="p" gave one
    element of 1 KiB of decompressed-looking garbage and select="*" four, as if the gzip stream were an HTML page.
    Data whose stub names a binary format (gzip, PNG, zip, ...) is no page, table or JSON: every structure read is
    refused, naming the format and the reads that fit."""
    stub = scratch_scope.spill((_TOOLS / name).read_bytes(), source_tool="t")
    fmt = {"bash-changelog.Debian.gz": "gzip", "git-logo.png": "PNG image"}[name]
    assert stub.content_type == "binary" and stub.shape.split(";")[0].split(", ")[2] == fmt, stub.shape
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, **read})
    assert str(caught.value).startswith(f"{stub.handle} holds binary data ({fmt}) (content type binary), which a "
                                        f"{next(iter(read))}= read does not parse: read it with offset="), caught.value


_PLAIN = [("workspace-grep-stdlib-defs.txt", None, "text", "text (grep-style path:line: output)"),
          (None, LOG, "log", "log output")]


@pytest.mark.parametrize(("name", "data", "kind", "what"), _PLAIN)
@pytest.mark.parametrize("read", [{"view": "text"}, {"view": "text", "raw_offset": 0}, {"view": "text", "offset": 10},
                                  {"view": "text", "match": "def"}, {"view": "text", "pattern": "d.f"},
                                  {"view": "text", "match": "step", "context": "line"}])
def test_a_text_view_of_text_it_would_show_as_it_is_is_refused(tools, scratch_scope, fixture_data, name, data, kind,
                                                                 what, read):
    """``view="text"`` of plain text or a log (no escape, \\r redraw or backspace: nothing to render) gave the text
    itself, a no-op the stub never offers; its search was a plain search. Now one typed error, as ``view="text"``
    of JSON or CSV is, naming what the entry is and the reads that fit (lines, search)."""
    stub = scratch_scope.spill(data if name is None else fixture_data[name], source_tool="t")
    assert stub.content_type == kind
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, **read})
    message = str(caught.value)
    assert message.startswith(f'{stub.handle} holds {what} (content type {kind}), which view="text" would show as '
                              "it is"), message
    assert "line=" in message and "match=" in message and "pattern=" in message


_AT = LOG.index(b"\n", 4000) + 1  # (a line start)


@pytest.mark.parametrize("data", [LOG[:_AT] + b"\x1b[31mFAILED\x1b[0m step\n" + LOG[_AT:],  # (too few: a log)
                                  LOG[:_AT] + b"12%\r100%\n" + LOG[_AT:]])
def test_a_text_view_of_a_log_holding_an_escape_or_a_redraw_renders_it(tools, scratch_scope, data):
    """A log with an escape or a redraw too few to be called terminal output is still rendered: the view differs."""
    stub = scratch_scope.spill(data, source_tool="t")
    assert stub.content_type == "log" and not stub.shape.startswith("terminal output"), stub.shape
    text = "".join(tools.call("read_handle", {"handle": stub.handle, "view": "text", "budget": 65536})["text"])
    assert "\x1b" not in text and "\r" not in text and ("FAILED step\n" in text or "100%\n" in text)


@pytest.mark.parametrize(("name", "data", "kind", "what"), [*_PLAIN, (None, BINARY, "binary", "binary data"),
                                                            (None, TERMINAL, "log", "terminal output")])
@pytest.mark.parametrize("selector", ["body", "html", ":root", "*", "p", "body > p"])
def test_a_select_of_content_holding_no_html_element_is_refused_whatever_the_selector(tools, scratch_scope,
                                                                                      fixture_data, name, data,
                                                                                      kind, what, selector):
    """``select="body"`` (or ``html``, ``*``, ``:root``) of text holding no tag matched the element an HTML parser
    makes up around it and gave the whole text as one element; ``select="p"`` was refused. Every selector now is."""
    stub = scratch_scope.spill(data if name is None else fixture_data[name], source_tool="t")
    assert stub.content_type == kind
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "select": selector})
    message = str(caught.value)
    assert message.startswith(f"{stub.handle} holds {what} (content type {kind}), in which "
                              f"select={json.dumps(selector)} found no HTML element"), message
    assert "pattern=" in message


@pytest.mark.parametrize(("name", "data", "kind", "what"), [
    *_PLAIN, (None, BINARY, "binary", "binary data"), (None, TERMINAL, "log", "terminal output"),
    (None, b'{"items": [' + b'{"id": 1}, ' * 2000 + b'{"id": 2}]}', "json", "one JSON document"),
    (None, b"a,b\n" + b"1,2\n" * 3000, "csv", "a CSV/TSV table")])
@pytest.mark.parametrize("read", [{"view": "members"}, {"view": "text"}])
def test_a_view_that_does_not_fit_is_refused_in_the_words_of_every_refusal(tools, scratch_scope, fixture_data, name,
                                                                           data, kind, what, read):
    """``view="members"`` of what is no archive said only 'view="members" lists the members of a tar or zip
    archive; h_... holds no archive', naming no read that fits, and ``view="text"`` of JSON 'view='text' is for
    HTML pages and terminal output; this is json: ...': each now names what the entry holds, as every other
    refusal does, and the reads that fit it."""
    stub = scratch_scope.spill(data if name is None else fixture_data[name], source_tool="t")
    assert stub.content_type == kind
    if read["view"] == "text" and what == "terminal output":
        return  # (its view)
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, **read})
    message = str(caught.value)
    assert message.startswith(f"{stub.handle} holds {what} (content type {kind}), "), message
    assert f'view="{read["view"]}"' in message and "read it " in message and "pattern=" in message, message


def test_a_long_selector_refused_leaves_room_for_the_reads_that_fit(tmp_path):
    """The refusal echoed the whole selector as JSON with ASCII escapes: 1,000 characters of é made 6,000 bytes, and
    the error, cut at its 2,048-byte cap, lost the reads that fit (helper revB). It echoes 60 characters at most."""
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"plain text line\n" * 2000).handle
        with pytest.raises(InvalidArgument) as refused:
            ScratchTools(scope).call("read_handle", {"handle": handle, "select": "\u00e9" * 1000})
    text = json.dumps(error_text(refused.value), ensure_ascii=False)  # (what the model receives of it)
    assert "read it by lines (line=, lines=) or by search (match=, pattern=)" in text, text[-200:]
    assert len(text.encode()) < 600


def test_jq_over_text_that_is_not_json_gives_no_advice_about_filter_steps(tools, scratch_scope):
    """A new user's trial: jq="." over dpkg.log came back with the parse error and then 'a step met a value it
    cannot take: skip such values (select(.x != null) ...)', advice for a filter's runtime error, which no filter
    change can follow: the content is not JSON."""
    stub = scratch_scope.spill(LOG, source_tool="t")
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".name"})
    message = str(caught.value)
    assert "jq: parse error" in message and "a step met a value" not in message, message
    assert message.startswith(f"{stub.handle} holds log output"), message


def _ec2(fixture_data: dict) -> bytes:
    return fixture_data["api-ec2-service-model.json"]


@pytest.mark.parametrize("broken", ["cut", "garbage"])
def test_jq_over_json_broken_past_its_shape_names_the_line_read_that_shows_where(tools, scratch_scope, fixture_data,
                                                                                 broken):
    """A JSON document whose first part parsed at spill time (stored as json) but that is cut short or broken
    further on: jq's parse error alone ('jq: parse error: Unfinished string at EOF at line 60565, column 555') said
    nothing of how to go on; now it names the line read that shows where it broke, and that read works."""
    data = _ec2(fixture_data)
    pad = b'{"pad": "' + b"x" * 120 + b'"},\n'
    head = data[:1] + b'\n"padding": [\n' + pad * 19000  # (past the shape's 2 MiB sample)
    big = head + (b"" if broken == "cut" else b"garbage") + pad * 1000 + b'{}],\n' + data[1:]
    content = big[:-1000] if broken == "cut" else big
    stub = scratch_scope.spill(content, source_tool="t")
    assert stub.content_type == "json", stub.shape
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".metadata"})
    message = str(caught.value)
    assert message.startswith("jq: parse error: "), message
    [call] = advised_calls(message)
    assert call["handle"] == stub.handle
    if broken == "cut":
        assert "cut short" in message and call["line"] == -20, message
    else:
        lines = content[: content.index(b"garbage")].count(b"\n") + 1
        assert call["line"] == lines, message
    page = tools.call("read_handle", call)
    assert (b"garbage" in page["data"].encode()) if broken == "garbage" else page["next_line"] is None  # (its end)


@pytest.mark.parametrize("selector", ["h1[", "a:nosuch", "p >"])
def test_a_selector_that_does_not_compile_says_how_to_write_one_and_names_the_text_view(tools, scratch_scope,
                                                                                       fixture_data, selector):
    """A new user's trial: select="h1[" over the Rust book came back as 'CSS selector 'h1[' does not parse:
    SelectorSyntaxError: Expected ident or '*', got <EOF at 3>' and nothing more: no form that works, no other
    read. Now the refusal gives selectors that do and the text view's call, which runs."""
    stub = scratch_scope.spill(fixture_data["browser-rust-book.html"], source_tool="t")
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "select": selector})
    message = str(caught.value)
    assert message.startswith(f"CSS selector {selector!r} ") and '"a[href]"' in message, message
    assert advised_calls(message) == [{"handle": stub.handle, "view": "text"}]
    assert tools.call("read_handle", advised_calls(message)[0])["text"]
