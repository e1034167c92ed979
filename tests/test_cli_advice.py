"""Every refusal that names a call carries it as data (:class:`scratchfs.foundation.calls.Call`), and the command
line writes it as the command that makes it (:mod:`scratchfs.cli.advice`): each test here runs the command the
refusal printed and checks that it does what the advice said. Before, ``read-handle`` rewrote the finished text with
a regex that knew ``true`` (render_call writes ``True``: a call holding a flag was left a tool call), read_handle
alone (scratch-read's advice, ``scratch_read(key="k")`` or a handle's ``read_handle(handle="h_...")``, stayed a tool
call that a shell cannot run), and no list (``columns=[...]``)."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size
from scratchfs.cli import main
from scratchfs.cli.advice import call_command
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument

CONTENT = "".join(f'line {n} of the log: say "hi there" to ключ -x\n' for n in range(1, 3001)).encode()
SCOPE = ["--run", "r", "--agent", "a"]


@pytest.fixture
def store(tmp_path):
    with ScratchStore(str(tmp_path / "root")) as opened:
        yield opened


def _run(store: ScratchStore, *words: str):
    return CliRunner().invoke(main, [*words, "--root", str(store.root), *SCOPE])


def _commands(stderr: str) -> list[list[str]]:
    """The commands (words, the program's left out) an error line names: each starts with the program and a
    read command and ends with the scope (``-- KEY`` after it for a key that starts with ``-``)."""
    found = re.findall(r"\S+ ((?:read-handle|scratch-read) .*? --agent a(?: -- '?-[^ ;']*'?)?)(?=$|[ ;,)\n])", stderr)
    assert found, stderr
    assert "read_handle(" not in stderr and "scratch_read(" not in stderr, stderr
    return [shlex.split(command) for command in found]


def _follow(words: list[str]):
    done = CliRunner().invoke(main, words)
    assert done.exit_code == 0, (words, done.stderr)
    return done


def test_a_line_and_an_offset_past_the_end_name_reads_of_the_end(store):
    handle = store.scope("r", "a").spill(CONTENT).handle
    lines = _run(store, "read-handle", handle, "--line", "9999")
    assert lines.exit_code == 2
    [words] = _commands(lines.stderr)
    assert words[2:4] == ["--line", "-50"] and "--lines" not in words  # (50: the default, advice4)
    assert _follow(words).stdout_bytes == b"".join(CONTENT.splitlines(keepends=True)[-50:])
    tail = _run(store, "read-handle", handle, "--offset", "9999999")
    [words] = _commands(tail.stderr)
    assert _follow(words).stdout_bytes == CONTENT[-4096:]


@pytest.mark.parametrize("key", ["notes", 'my "own" notes', "заметки", "-dash"])
def test_a_scratchpad_offset_past_the_end_names_its_last_bytes(store, key):
    store.scope("r", "a").scratch_write(key, CONTENT)
    failed = CliRunner().invoke(main, ["scratch-read", "--json", "--offset", "9999999", "--root", str(store.root),
                                       *SCOPE, "--", key])
    assert failed.exit_code == 2, failed.stderr
    [words] = _commands(failed.stderr)
    assert "--json" in words
    reply = json.loads(_follow(words).stdout)
    assert reply["key"] == key and reply["data"] == CONTENT[-4096:].decode() and reply["next_offset"] is None


@pytest.mark.parametrize("key", ["notes", "заметки ключ", 'say "hi"'])
def test_a_changed_value_names_the_read_from_offset_0(store, key):
    store.scope("r", "a").scratch_write(key, CONTENT)
    failed = _run(store, "scratch-read", key, "--json", "--version", "abcdefgh")
    assert failed.exit_code == 1, failed.stderr
    [words] = _commands(failed.stderr)
    assert _follow(words).stdout_bytes == CONTENT


def test_a_handle_read_as_a_key_names_its_read(store):
    handle = store.scope("r", "a").spill(CONTENT).handle
    failed = _run(store, "scratch-read", handle)
    assert failed.exit_code == 1, failed.stderr
    [words] = _commands(failed.stderr)
    assert words[:2] == ["read-handle", handle]
    assert _follow(words).stdout_bytes == CONTENT[:4096]


@pytest.mark.parametrize("key", ["notes", "ключ", 'a "quoted" key'])
def test_a_key_read_as_a_handle_names_its_read(store, key):
    store.scope("r", "a").scratch_write(key, b"the note")
    failed = _run(store, "read-handle", key)
    assert failed.exit_code == 2, failed.stderr
    [words] = _commands(failed.stderr)
    assert words[:2] == ["scratch-read", key]
    assert _follow(words).stdout_bytes == b"the note"


def test_raw_offset_without_the_view_names_the_view_read(store):
    raw = b"".join(b"\x1b[01;31mred %d\x1b[0m plain\x1b[K\n" % n for n in range(400))
    handle = store.scope("r", "a").spill(raw, source_tool="bash").handle
    failed = _run(store, "read-handle", handle, "--raw-offset", "300")
    assert failed.exit_code == 2, failed.stderr
    [words] = _commands(failed.stderr)
    reply = json.loads(_follow(words).stdout)
    tools = ScratchTools(store.scope("r", "a"))
    assert reply == tools.call("read_handle", {"handle": handle, "view": "text", "raw_offset": 300})


_PAGE = (b"<!doctype html><html><head><title>T</title></head><body>"
         + b"".join(b"<h2>Part %d</h2><p>%s</p>" % (n, b"text " * 40) for n in range(60)) + b"</body></html>")


@pytest.mark.parametrize("read", [["--jq", "."], ["--row", "1"], ["--record", "1"], ["--jq", "length", "--slurp"],
                                  ["--row", "1", "--column", "0"]])
def test_a_read_that_does_not_fit_an_html_page_names_commands_that_run(store, read):
    # the jq and row= refusals wrote view="text" and select= in the model's syntax on the command line (rows5)
    handle = store.scope("r", "a").spill(_PAGE, source_tool="fetch").handle
    failed = _run(store, "read-handle", handle, *read)
    assert failed.exit_code == 2, failed.stderr
    assert 'view="text"' not in failed.stderr and "select=" not in failed.stderr, failed.stderr
    text, selected = _commands(failed.stderr)
    assert text[2:4] == ["--view", "text"] and selected[2:4] == ["--select", "h2"]
    assert json.loads(_follow(text).stdout)["text"].startswith("Part 0\n\ntext text")  # (the page's text view)
    assert json.loads(_follow(selected).stdout)["elements"][:2] == ["Part 0", "Part 1"]


def test_slurp_over_its_bound_names_the_paged_read_with_the_filter(store, monkeypatch):
    monkeypatch.setattr("scratchfs.api.structured.MAX_SLURP_BYTES", 1000)
    data = b"".join(b'{"unit": "u %d", "say": "a \\"b\\""}\n' % n for n in range(100))
    handle = store.scope("r", "a").spill(data, source_tool="log").handle
    failed = _run(store, "read-handle", handle, "--slurp", "--jq", '.[] | [length, "a \\"b\\" c"]')  # (X on
    # each record: advised as jq=X, tests/test_slurp_advice.py)
    assert failed.exit_code == 2, failed.stderr
    [words] = _commands(failed.stderr)
    assert words[words.index("--jq") + 1] == '[length, "a \\"b\\" c"]'
    reply = json.loads(_follow(words).stdout)
    assert reply["read"]["record"] == 1 and reply["results"][:2] == [[2, 'a "b" c'], [2, 'a "b" c']], reply


def test_a_bad_record_names_its_bytes_and_the_read_after_it(store):
    """A slurp read refused a bad record in the middle, naming a read on (``--record 3 --records 10000``) that
    dropped its filter (newuser9); it passes over it now, as the records read does, naming its bytes."""
    many = b'{"unit": "a"}\n{\n' + b"".join(b'{"unit": "u%d"}\n' % i for i in range(30))
    handle = store.scope("r", "a").spill(many, source_tool="log").handle
    done = _run(store, "read-handle", handle, "--jq", "length", "--slurp")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["results"] == [31]
    [see] = _commands(done.stderr)
    assert _follow(see).stdout_bytes == b"{\n"
    on = _run(store, "read-handle", handle, "--record", "3", "--records", "1")
    assert json.loads(on.stdout)["records"] == [{"unit": "u0"}]


def test_a_bad_row_names_the_read_after_it_with_its_columns(store):
    import csv

    rows = b"name,size\r\n" + b"".join(b"n%d,%d\r\n" % (i, i) for i in range(1, 70))
    data = rows + b"x," + b"y" * 300 + b"\r\n" + b"".join(b"m%d,%d\r\n" % (i, i) for i in range(10))
    handle = store.scope("r", "a").spill(data, source_tool="sql").handle
    before = csv.field_size_limit(200)
    try:
        failed = _run(store, "read-handle", handle, "--row", "70", "--rows", "5", "--column", "name",
                      "--column", "size")
        assert failed.exit_code == 2, failed.stderr
        [words] = _commands(failed.stderr)
        assert words.count("--column") == 2
        reply = json.loads(_follow(words).stdout)
    finally:
        csv.field_size_limit(before)
    assert reply["read"]["row"] == 71 and reply["rows"][0] == ["m0", "0"], reply


@pytest.mark.parametrize("arguments", [
    {"match": "of the", "count": True},
    {"match": "OF THE LOG", "ignore_case": True, "max_matches": 2},
    {"match": 'say "hi there"', "context": 5, "max_matches": 1},
    {"match": "ключ", "max_matches": 1, "context": "line"},
    {"match": "-x", "max_matches": 1},
    {"pattern": r"line \d+ of", "offset": 100, "end": 400},
    {"line": -3, "lines": 2},
    {"offset": 10, "length": 20},
])
def test_the_command_written_for_a_call_makes_it(store, arguments):
    """Any call, as the CLI writes it, run: the same reply as the tool's (JSON), or the same bytes (a raw read)."""
    scope = store.scope("r", "a")
    handle = scope.spill(CONTENT).handle
    call = Call.of("read_handle", handle=handle, **arguments)
    words = shlex.split(call_command(call, "r", "a", str(store.root)))[1:]
    expected = ScratchTools(scope).call("read_handle", {"handle": handle, **arguments})
    out = _follow(words).stdout_bytes
    if out.startswith(b"{"):
        assert json.loads(out) == expected
    else:
        assert out == expected["data"].encode()


def test_an_error_holds_its_calls_as_data_and_its_text_as_before():
    call = Call.of("read_handle", handle="h_" + "a" * 24, match='a "b"', count=True, columns=["x", 2], end=None)
    refused = InvalidArgument(Advice.of("see ", call, "; then ", Call.of("scratch_read", key="k")))
    assert str(refused) == ('see read_handle(handle="h_aaaaaaaaaaaaaaaaaaaaaaaa", match="a \\"b\\"", count=True, '
                            'columns=["x", 2]); then scratch_read(key="k")')
    assert refused.calls == (call, Call("scratch_read", (("key", "k"),)))
    assert refused.written(lambda c: c.verb) == "see read_handle; then scratch_read"
    assert call_command(call, "r", "a", None).split(" (with")[0] == (
        "scratchfs read-handle h_aaaaaaaaaaaaaaaaaaaaaaaa --match 'a \"b\"' --count --column x --column number:2 "
        "--run r --agent a")


_CSV = b"name,size\n" + b"".join(b"n%d,%d\n" % (i, i) for i in range(900))
_JSON = json.dumps({"items": [{"n": i, "say": "x" * 20} for i in range(400)]}).encode()
_LINES = b"".join(b'{"n": %d, "say": "hello there"}\n' % i for i in range(400))
_BYTES = bytes(range(256)) * 64
_FIT_READS = {  # (each kind's refusal as the model gets it: its example a whole call, as every refusal names one)
    "csv": ('read it with row= (rows with the header, e.g. read_handle(handle="{handle}", row=1); columns= picks '
            "some) or jq= with slurp=true (all rows at once), or by lines (line=, lines=) or by search (match=, "
            "pattern=)"),
    "json": ('read it with jq= (e.g. read_handle(handle="{handle}", jq="keys[]"), then a path into what one of them '
             "holds), or by byte range (offset=, length=) or by search (match=, pattern=)"),
    "jsonl": ('read it with record= (e.g. read_handle(handle="{handle}", record=1); jq= with it filters each '
              "record), or by lines (line=, lines=) or by search (match=, pattern=)"),
    "binary": ('read it with offset= and length= (byte ranges; its first ones: read_handle(handle="{handle}")) or by '
               "search (match=, pattern=)."),
}


@pytest.mark.parametrize(("kind", "data", "tool", "read", "arguments"), [
    ("csv", _CSV, "sql", ["--view", "text"], {"view": "text"}),
    ("json", _JSON, "fetch", ["--row", "1"], {"row": 1}),
    ("jsonl", _LINES, "log", ["--row", "1"], {"row": 1}),
    ("binary", _BYTES, "download", ["--jq", "."], {"jq": "."}),
])
def test_a_read_that_does_not_fit_a_table_json_or_bytes_names_commands_that_run(store, kind, data, tool, read,
                                                                                 arguments):
    # the examples of the reads that fit (row=1, jq="keys[]", record=1, offset= and length=) were text: the CLI
    # printed model syntax a shell cannot run (misfit2); the model now gets them as whole calls too (seen1)
    handle = store.scope("r", "a").spill(data, source_tool=tool).handle
    with pytest.raises(InvalidArgument) as refused:
        ScratchTools(store.scope("r", "a")).call("read_handle", {"handle": handle, **arguments})
    assert _FIT_READS[kind].replace("{handle}", handle) in str(refused.value)  # (the model's text)
    failed = _run(store, "read-handle", handle, *read)
    assert failed.exit_code == 2, failed.stderr
    commands = _commands(failed.stderr)
    assert not re.search(r'(?<!-)\b(row|record|jq)=[0-9"]', failed.stderr), failed.stderr
    replies = [_follow(words).stdout_bytes for words in commands]
    if kind == "csv":
        assert json.loads(replies[0])["rows"][0] == ["n0", "0"]
    elif kind == "json":
        assert [json.loads(reply)["results"] for reply in replies] == [["items"]]  # (the example runs on any JSON)
    elif kind == "jsonl":
        assert json.loads(replies[0])["records"][0] == {"n": 0, "say": "hello there"}
    else:
        assert replies == [_BYTES[:4096]]


@pytest.mark.parametrize(("read", "asked"), [
    (["--match", "of the", "--before", "99999999"], {"before": len(CONTENT)}),
    (["--match", 'say "hi', "--ignore-case", "--max-matches", "3", "--offset", "100", "--before", "900", "--end",
      "600"], {"offset": 100, "before": 600, "end": 600}),
])
def test_a_before_past_the_end_names_the_search_that_finds_the_last_matches(store, read, asked):
    # "before=N gives the last matches" named no whole call: the CLI printed model syntax (misfit2)
    handle = store.scope("r", "a").spill(CONTENT).handle
    failed = _run(store, "read-handle", handle, *read)
    assert failed.exit_code == 2, failed.stderr
    [words] = _commands(failed.stderr)
    reply = json.loads(_follow([*words, "--json"] if "--json" not in words else words).stdout)
    sought = {"match": "of the"} if "of the" in read else {"match": 'say "hi', "ignore_case": True, "max_matches": 3}
    expected = ScratchTools(store.scope("r", "a")).call("read_handle", {"handle": handle, **sought, **asked})
    assert reply == expected and reply["windows"], reply


def test_before_with_the_text_view_names_both_searches(store):
    raw = b"".join(b"\x1b[01;31mred %d\x1b[0m plain\x1b[K\n" % n for n in range(400))
    handle = store.scope("r", "a").spill(raw, source_tool="bash").handle
    failed = _run(store, "read-handle", handle, "--match", "red 39", "--view", "text", "--before", "5000")
    _each_command_does(store, failed, {"handle": handle, "match": "red 39", "before": 5000},
                       {"handle": handle, "match": "red 39", "view": "text"})


def _each_command_does(store, failed, *calls: dict) -> None:
    """The refused command ``failed`` printed one command per call of ``calls`` (read_handle's arguments), in order,
    and each, run, prints the JSON the tool call gives."""
    assert failed.exit_code == 2, failed.stderr
    commands = _commands(failed.stderr)
    assert len(commands) == len(calls), failed.stderr
    tools = ScratchTools(store.scope("r", "a"))
    for words, arguments in zip(commands, calls, strict=True):
        assert json.loads(_follow(words).stdout) == tools.call("read_handle", arguments)


def test_a_long_needle_is_not_repeated_in_the_refusal(store):
    handle = store.scope("r", "a").spill(CONTENT).handle
    with pytest.raises(InvalidArgument) as refused:
        ScratchTools(store.scope("r", "a")).call("read_handle", {"handle": handle, "match": "x" * 300,
                                                                 "before": 10 ** 9})
    assert refused.value.calls == ()
    assert str(refused.value).endswith(f"gives the last matches, the same call with before={len(CONTENT)}")


@pytest.mark.parametrize(("read", "named"), [
    (["--match", "of the", "--offset", "99999999"], [{}, {"before": len(CONTENT)}]),
    (["--pattern", r"line \d+ of", "--max-matches", "2", "--offset", "99999999", "--end", "5000"],
     [{"end": 5000}, {"before": 5000, "end": 5000}]),
])
def test_a_search_from_past_the_end_names_the_searches_from_the_start_and_the_end(store, read, named):
    # "the same search from offset=0 ..., and with before=N instead of offset=": words, not calls (misfit2)
    handle = store.scope("r", "a").spill(CONTENT).handle
    failed = _run(store, "read-handle", handle, *read)
    assert failed.exit_code == 2, failed.stderr
    commands = _commands(failed.stderr)
    sought = {"match": "of the"} if "of the" in read else {"pattern": r"line \d+ of", "max_matches": 2}
    tools = ScratchTools(store.scope("r", "a"))
    assert [json.loads(_follow(words).stdout) for words in commands] == [
        tools.call("read_handle", {"handle": handle, **sought, **changed}) for changed in named]


def test_a_view_search_from_past_the_end_names_the_view_search_from_the_start(store):
    raw = b"".join(b"\x1b[01;31mred %d\x1b[0m plain\x1b[K\n" % n for n in range(400))
    handle = store.scope("r", "a").spill(raw, source_tool="bash").handle
    failed = _run(store, "read-handle", handle, "--match", "red 39", "--view", "text", "--offset", "99999999")
    assert failed.exit_code == 2, failed.stderr
    [words] = _commands(failed.stderr)
    assert json.loads(_follow(words).stdout) == ScratchTools(store.scope("r", "a")).call(
        "read_handle", {"handle": handle, "match": "red 39", "view": "text"})


def test_a_count_from_past_the_end_names_the_count_from_the_start(store):
    handle = store.scope("r", "a").spill(CONTENT).handle
    failed = _run(store, "read-handle", handle, "--match", "OF THE", "--ignore-case", "--count", "--offset",
                  "99999999", "--end", "5000")
    assert failed.exit_code == 2, failed.stderr
    [words] = _commands(failed.stderr)
    assert json.loads(_follow(words).stdout) == ScratchTools(store.scope("r", "a")).call(
        "read_handle", {"handle": handle, "match": "OF THE", "ignore_case": True, "count": True, "end": 5000})


def test_end_with_the_text_view_names_the_stored_search_and_the_view_search(store):
    raw = b"".join(b"\x1b[01;31mred %d\x1b[0m plain\x1b[K\n" % n for n in range(400))
    handle = store.scope("r", "a").spill(raw, source_tool="bash").handle
    failed = _run(store, "read-handle", handle, "--match", "plain", "--view", "text", "--offset", "100", "--end",
                  "3000", "--max-matches", "4")
    assert failed.exit_code == 2, failed.stderr
    stored, viewed = _commands(failed.stderr)
    tools = ScratchTools(store.scope("r", "a"))
    sought = {"handle": handle, "match": "plain", "offset": 100, "max_matches": 4}
    assert json.loads(_follow(stored).stdout) == tools.call("read_handle", {**sought, "end": 3000})
    assert json.loads(_follow(viewed).stdout) == tools.call("read_handle", {**sought, "view": "text"})


def test_a_pattern_over_terminal_output_s_view_names_the_stored_search(store):
    raw = b"".join(b"\x1b[01;31mred %d\x1b[0m plain\x1b[K\n" % n for n in range(400))
    handle = store.scope("r", "a").spill(raw, source_tool="bash").handle
    failed = _run(store, "read-handle", handle, "--pattern", r"red \d+", "--view", "text", "--offset", "50")
    assert failed.exit_code == 2, failed.stderr
    [words] = _commands(failed.stderr)
    assert json.loads(_follow(words).stdout) == ScratchTools(store.scope("r", "a")).call(
        "read_handle", {"handle": handle, "pattern": r"red \d+", "offset": 50})


def test_encoding_with_a_view_search_names_the_view_search_and_the_encoded_search(store):
    # "search it without encoding=, or search the stored bytes with encoding= and no view=": words (misfit2)
    page = (b"<html><head><meta charset=windows-1252></head><body>"
            + b"".join(b"<p>caf\xe9 au lait %d</p>\n" % n for n in range(600))
            + b"</body></html>")
    handle = store.scope("r", "a").spill(page, source_tool="browser.get").handle
    failed = _run(store, "read-handle", handle, "--match", "lait 59", "--view", "text", "--encoding", "cp1252")
    _each_command_does(store, failed, {"handle": handle, "match": "lait 59", "view": "text"},
                       {"handle": handle, "match": "lait 59", "encoding": "cp1252"})


def _each_note_call_does(store, reply: dict, *calls: dict) -> list:
    """The successful ``reply``'s note names one call per call of ``calls`` (read_handle's arguments), in order, and
    carries them as data (``calls``, as a refusal does, advice3): each is in the note as a model writes it, and the
    command the CLI writes for it, run, prints what the tool call gives (its JSON, or a raw read's bytes). Returns
    what each printed."""
    assert [call["arguments"] for call in reply["calls"]] == list(calls), reply
    tools = ScratchTools(store.scope("r", "a"))
    out = []
    for call in reply["calls"]:
        made = Call.of(call["tool"], **call["arguments"])
        assert str(made) in reply["note"], reply["note"]
        printed = _follow(shlex.split(call_command(made, "r", "a", str(store.root)))[1:]).stdout_bytes
        expected = tools.call(call["tool"], call["arguments"])
        if printed.startswith(b"{"):
            assert json.loads(printed) == expected
            out.append(expected)
        else:  # (a raw read: the bytes, which the tool shows as text or, binary, as a hex dump)
            assert expected.get("encoding") == "hexdump" or printed == expected["data"].encode("utf-8")
            out.append(printed)
    return out


_OVERSTRUCK = b"".join(b"N\x08NA\x08AM\x08ME\x08E %d\n" % n for n in range(900))
_CRLF = b"".join(b"key=%d\r\n" % n for n in range(2000))
_HTML = (b"<html><body>" + b"".join(b"<p>caf&eacute; <b>au</b> lait %d</p>\n" % n for n in range(400))
         + b"</body></html>")


@pytest.mark.parametrize("budget", [None, 2048])
@pytest.mark.parametrize(("data", "tool", "search", "advised"), [
    (_HTML, "fetch", {"match": "café au lait 39"}, {"match": "café au lait 39", "view": "text"}),
    (_OVERSTRUCK, "man", {"match": "NAME 39"}, {"match": "NAME 39", "view": "text"}),
    (_CRLF, "shell", {"pattern": "key=1999$"}, {"pattern": "key=1999\\r?$"}),
])
def test_a_miss_s_note_names_the_search_that_finds_it_as_data(store, data, tool, search, advised, budget):
    # the notes of a search that found nothing named their calls in words alone, without the call's budget: a face
    # could not write them its own way, nor could a test run them (advice3)
    handle = store.scope("r", "a").spill(data, source_tool=tool).handle
    given = {} if budget is None else {"budget": budget}
    tools = ScratchTools(store.scope("r", "a"))
    reply = tools.call("read_handle", {"handle": handle, **search, **given})
    assert reply["windows"] == [] and reply["next_call"] is None
    [found] = _each_note_call_does(store, reply, {"handle": handle, **advised, **given})
    assert found["windows"] and (budget is None or reply_size(found) <= budget)
    assert budget is None or reply_size(reply) <= budget
    counted = tools.call("read_handle", {"handle": handle, **search, "count": True, **given})  # (a count's too)
    assert counted["matches"] == 0 and counted["calls"] == reply["calls"]


def test_a_compressed_miss_s_note_names_its_byte_read_as_data(store):
    import gzip

    packed = gzip.compress(CONTENT, mtime=0)
    handle = store.scope("r", "a").spill(packed, source_tool="download").handle
    reply = ScratchTools(store.scope("r", "a")).call("read_handle", {"handle": handle, "match": "of the"})
    [raw] = _each_note_call_does(store, reply, {"handle": handle, "length": 512})
    assert raw == packed[:512]


def test_a_view_search_s_note_names_the_read_of_its_first_window_as_data(store):
    raw = b"".join(b"\x1b[01;31mred %d\x1b[0m plain\x1b[K\n" % n for n in range(400))
    handle = store.scope("r", "a").spill(raw, source_tool="bash").handle
    reply = ScratchTools(store.scope("r", "a")).call("read_handle", {"handle": handle, "match": "red 39",
                                                                     "view": "text", "budget": 4096})
    first = reply["windows"][0].get("match_offset", reply["windows"][0]["offset"])
    [read] = _each_note_call_does(store, reply, {"handle": handle, "view": "text", "raw_offset": first,
                                                 "budget": 4096})
    assert read["text"].startswith("red 39")


def test_a_jq_failure_s_note_names_the_read_past_it_as_data(store):
    records = [{"x": "s"} if n == 30 else {"x": {"y": n}} for n in range(1, 100)]
    handle = store.scope("r", "a").spill(json.dumps(records).encode()).handle
    reply = ScratchTools(store.scope("r", "a")).call("read_handle", {"handle": handle, "jq": ".[] | .x.y"})
    [on] = _each_note_call_does(store, reply, {"handle": handle, "jq": "[.[] | (.x.y)?] | .[29:][]"})
    assert on["results"][:2] == [31, 32]


def test_a_passed_record_s_note_names_its_byte_read_as_data(store):
    lines = b'{"n": 1}\n{"n": 2}\nnot json\n' + b"".join(b'{"n": %d}\n' % n for n in range(4, 60))
    handle = store.scope("r", "a").spill(lines, source_tool="log").handle
    reply = ScratchTools(store.scope("r", "a")).call("read_handle", {"handle": handle, "record": 1})
    [raw] = _each_note_call_does(store, reply, {"handle": handle, "offset": 18, "length": 9})
    assert raw == b"not json\n"


@pytest.mark.parametrize("budget", [[], ["--budget", "2048"]])
def test_the_cli_writes_a_note_s_calls_as_commands_that_run(store, budget):
    # the note's calls were printed in the JSON alone, in the model's syntax, which a shell cannot run (advice3)
    handle = store.scope("r", "a").spill(_HTML, source_tool="fetch").handle
    done = _run(store, "read-handle", handle, "--match", "café au lait 39", *budget)
    assert done.exit_code == 0, done.stderr
    reply = json.loads(done.stdout)
    [words] = _commands(done.stderr)
    assert done.stderr.startswith("scratchfs: the note's call as a command: ")
    followed = json.loads(_follow(words).stdout)
    assert followed == ScratchTools(store.scope("r", "a")).call(reply["calls"][0]["tool"],
                                                                reply["calls"][0]["arguments"])
    assert followed["windows"] and followed["view"] == "text"


_MODEL_WORDS = re.compile(r"(?<![^\s(])(line|lines|match|pattern|offset|length|row|rows|record|jq|slurp|select|view|"
                          r"columns|count)=")
"""An argument in the model's words (``line=``, ``slurp=true``, ``jq="..."``), outside a command's quoted text."""


@pytest.mark.parametrize(("data", "read", "said"), [
    (_CSV, ["--jq", "."], ["with --row", "--column picks some", "with --slurp, jq reads all its rows",
                           "--jq '.[]' --slurp", "(--line, --lines)", "(--match, --pattern)"]),
    (_JSON, ["--row", "1"], ["which a --row read", "read it with --jq (e.g. ", "(--offset, --length)"]),
    (b"plain text\n" * 2000, ["--select", "h1"], ["in which --select h1 found no HTML element", "(--line, --lines)"]),
    (_LINES, ["--jq", "JQ", "--slurp"], ["--jq JQ is the stub's placeholder", "how many, ", "--jq length --slurp",
                                         "--jq '.[0]' --slurp"]),  # (each example a command, --slurp kept)
])
def test_a_refusal_names_options_not_the_models_arguments(store, data, read, said):
    # the calls a refusal advised were commands, but the words around them kept the model's syntax: "read it with
    # row= (...) or jq= with slurp=true (all rows at once), or by lines (line=, lines=)" on a command line
    handle = store.scope("r", "a").spill(data, source_tool="t").handle
    failed = _run(store, "read-handle", handle, *read)
    assert failed.exit_code == 2, failed.stderr
    assert not _MODEL_WORDS.search(failed.stderr), failed.stderr
    for words in said:
        assert words in failed.stderr, (words, failed.stderr)
