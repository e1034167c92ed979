"""A search that finds nothing said nothing (helper replies5): ``match="zebra"`` answered ``windows: []`` and null
cursors, no word that the whole entry was searched, and ``pattern="Hello"`` over "hello" no hint. A miss's note now
says where it looked, and, when a cheap check over at most 1 MiB finds it, the spelling that matches (ignoring
case; a match's words joined otherwise), with the call that finds it: followed, that call finds what the plain
Python answer finds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.api.miss_hints import HINT_SPAN_BYTES, NOTE_BYTES
from scratchfs.api.views import reply_size
from scratchfs.cli.app import main
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.mcp.server import ScopeResolver, run_scratch_tool

DPKG = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dpkg-l.txt").read_bytes()  # real dpkg -l


def _follow(tools: ScratchTools, reply: dict) -> dict:
    """The search the note's call names (its ``calls``, as data), run."""
    (call,) = reply["calls"]
    assert call["tool"] == "read_handle"
    return tools.call("read_handle", call["arguments"])


def test_a_miss_says_the_whole_content_was_searched(scope):
    tools = ScratchTools(scope)
    handle = scope.spill(DPKG, source_tool="shell").handle
    reply = tools.call("read_handle", {"handle": handle, "match": "zebra"})
    assert reply["windows"] == [] and reply["next_call"] is None
    assert reply["note"] == f"no match in the whole content ({len(DPKG):,} bytes)" and "calls" not in reply
    reply = tools.call("read_handle", {"handle": handle, "match": "zebra", "offset": 100})
    assert reply["note"] == (f"no match in bytes 100-{len(DPKG)} (from offset= to the end); the whole content: "
                             f'read_handle(handle="{handle}", match="zebra")')
    assert reply["calls"] == [{"tool": "read_handle", "arguments": {"handle": handle, "match": "zebra"}}]


@pytest.mark.parametrize("what", [{"match": "adduser"}, {"pattern": "add(user)"}, {"match": "adduser", "view": "text"}])
def test_a_count_or_search_from_an_offset_that_finds_nothing_names_the_whole(scope, what):
    """helper replies6: ``count=true`` from ``offset=N`` that found nothing answered ``matches: 0`` and no note, as
    if the content held none, where the text was before the offset; it says where it looked and names the count
    (or search) of the whole content, which finds it."""
    tools = ScratchTools(scope)
    data = DPKG if "view" not in what else b"\x1b[1mdpkg -l\x1b[0m\n" + DPKG  # (the view: of terminal output)
    handle = scope.spill(data, source_tool="shell").handle
    offset = data.rindex(b"adduser") + 10
    counting = "view" not in what
    reply = tools.call("read_handle", {"handle": handle, **what, "offset": offset, **({"count": True} if counting
                                                                                     else {})})
    where = "" if counting else " of the text view"
    whole = "content" if counting else "text view"
    assert reply["note"].startswith(f"no match in bytes {offset}-{reply['size']}{where} (from offset= to the end); "
                                    f"the whole {whole}: read_handle("), reply
    ((call),) = reply["calls"]
    assert call["arguments"] == {"handle": handle, **what, **({"count": True} if counting else {})}
    found = tools.call("read_handle", call["arguments"])
    assert (found["matches"] if counting else len(found["windows"])) > 0, found


@pytest.mark.parametrize("what", [{"pattern": "Hello"}, {"match": "Hello"}])
def test_a_miss_that_matches_ignoring_case_names_that_call(scope, what):
    tools = ScratchTools(scope)
    handle = scope.spill("say hello\nand hello again\n", source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, **what})
    assert reply["note"] == (f'no match in the whole content (26 bytes); ignoring case it matches "hello" (line 1): '
                             f'read_handle(handle="{handle}", {next(iter(what))}="Hello", ignore_case=True)')
    found = _follow(tools, reply)
    assert [hit["offset"] for w in found["windows"] for hit in window_hits(w)] == [4, 14]


def test_the_hint_on_real_output_finds_what_python_finds(scope):
    tools = ScratchTools(scope)
    handle = scope.spill(DPKG, source_tool="shell").handle
    reply = tools.call("read_handle", {"handle": handle, "match": "gnu bourne again shell", "context": 0})
    at = DPKG.lower().index(b"gnu bourne again shell")
    line = DPKG[:at].count(b"\n") + 1
    assert f'"GNU Bourne Again SHell" (line {line})' in reply["note"]
    found = _follow(tools, reply)
    assert found["windows"][0]["offset"] == at and found["windows"][0]["data"] == "GNU Bourne Again SHell"


@pytest.mark.parametrize("needle", ["add_and_remove", "addAndRemove", "ADD-AND-REMOVE users"])
def test_a_match_of_words_spelled_otherwise_names_the_pattern_that_finds_it(scope, needle):
    tools = ScratchTools(scope)
    handle = scope.spill(DPKG, source_tool="shell").handle
    reply = tools.call("read_handle", {"handle": handle, "match": needle, "context": 0, "max_matches": 1})
    assert 'spelled "add and remove' in reply["note"], reply
    found = _follow(tools, reply)
    assert found["windows"][0]["offset"] == DPKG.index(b"add and remove")
    assert found["windows"][0]["data"].lower().replace(" ", "") == re.sub(r"[-_ ]", "", needle.lower())


def test_the_hint_is_bounded_by_the_bytes_searched(scope):
    """A miss over more than HINT_SPAN_BYTES is not searched again: where it looked alone; the same miss over the
    last bytes (offset=) is, and its call repeats the offset."""
    tools = ScratchTools(scope)
    data = b"x" * HINT_SPAN_BYTES + b"\nsay hello\n"
    handle = scope.spill(data, source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "match": "Hello"})
    assert reply["note"] == f"no match in the whole content ({len(data):,} bytes)" and "calls" not in reply
    reply = tools.call("read_handle", {"handle": handle, "match": "Hello", "offset": 1000})
    assert reply["calls"][0]["arguments"]["offset"] == 1000
    assert _follow(tools, reply)["windows"][0]["match_offset"] == data.index(b"hello")


def test_a_long_needle_or_wide_settings_keep_the_note_short(scope):
    tools = ScratchTools(scope)
    text = ("a" * 70 + "\n") * 5
    handle = scope.spill(text, source_tool="t").handle
    for needle in ("A" * 70, "A" * 10 + "\x01" * 30):
        for extra in ({}, {"context": "line", "max_matches": 1000, "budget": 65536, "offset": 1}):
            reply = tools.call("read_handle", {"handle": handle, "match": needle, **extra})
            assert reply_size(reply["note"]) <= NOTE_BYTES, reply["note"]
    handle = scope.spill(("a" * 250 + "\n") * 2, source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "match": "A" * 200})
    assert reply["note"].endswith("the same call with ignore_case=true") and "calls" not in reply



def test_no_spelling_hint_whose_pattern_a_search_refuses_as_too_long(scope):
    """helper hostile8: a match of 1,300 words (3,899 bytes, under the needle limit) spelled with "_" here: the hint's
    pattern (the words joined by [-_ .]?, 11,693 bytes) is longer than a search takes, so the call it named in
    words was refused (InvalidArgument); now no hint, the plain miss."""
    tools = ScratchTools(scope)
    words = " ".join(["ab"] * 1300)
    data = ("x\n" + words.replace(" ", "_") + "\n").encode()
    handle = scope.spill(data, source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "match": words})
    assert reply["note"] == f"no match in the whole content ({len(data):,} bytes)" and "calls" not in reply
    pattern = "[-_ .]?".join(["ab"] * 1300)
    with pytest.raises(InvalidArgument, match="longer than the limit"):
        tools.call("read_handle", {"handle": handle, "pattern": pattern, "ignore_case": True})

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet="abAB \n", max_size=60), needle=st.text(alphabet="abAB", min_size=1, max_size=4))
def test_the_case_hint_against_python(scope, text, needle):
    tools = ScratchTools(scope)
    data = text.encode()
    handle = scope.spill(data, source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "match": needle, "context": 0})
    if needle in text:
        assert reply["windows"]
        return
    blind = re.search(re.escape(needle), text, re.IGNORECASE)
    assert ("ignoring case" in reply["note"]) == (blind is not None), reply
    if blind is not None:
        assert _follow(tools, reply)["windows"][0]["offset"] == blind.start()


def test_a_count_gives_the_hint_alone_and_a_search_from_the_end_as_a_forward_search_does(scope):
    """A count's ``"matches": 0`` says it found nothing; a search from the end shows no count, and says where it
    looked as a forward search does (newuser8: its plain miss said nothing at all)."""
    tools = ScratchTools(scope)
    handle = scope.spill("say hello\n", source_tool="t").handle
    counted = tools.call("read_handle", {"handle": handle, "match": "Hello", "count": True})
    assert counted["matches"] == 0 and counted["note"].startswith('no match; ignoring case it matches "hello"')
    last = tools.call("read_handle", {"handle": handle, "match": "Hello", "before": 10})
    assert last["note"] == tools.call("read_handle", {"handle": handle, "match": "Hello"})["note"]
    assert last["note"].startswith('no match in the whole content (10 bytes); ignoring case it matches "hello"')
    assert "note" not in tools.call("read_handle", {"handle": handle, "match": "zebra", "count": True})


def test_a_search_in_a_single_byte_encoding_gives_no_hint(scope):
    """Its needle is sought rewritten (the encoding's bytes): a call seeking it as written would seek other bytes."""
    tools = ScratchTools(scope)
    handle = scope.spill("say hello\n".encode("latin-1"), source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "match": "Hello", "encoding": "latin-1"})
    assert reply["note"] == "no match in the whole content (10 bytes)" and "calls" not in reply


def test_mcp_and_the_cli_show_the_note(store):
    handle = store.scope("r", "a").spill("say hello\n", source_tool="t").handle
    result = run_scratch_tool(ScopeResolver(store, "r", "a"), "read_handle", {"handle": handle, "match": "Hello"},
                              None)
    assert not result.is_error and "ignoring case it matches" in json.loads(result.content[0].text)["note"]
    done = CliRunner().invoke(main, ["read-handle", handle, "--match", "Hello", "--root", str(store.root),
                                     "--run", "r", "--agent", "a"])
    assert done.exit_code == 0, done.stderr
    assert "ignoring case it matches" in json.loads(done.stdout)["note"]
    assert "the note's call as a command: " in done.stderr and "--ignore-case" in done.stderr


def test_the_model_s_text_names_the_note_s_calls_once_and_programs_get_them_as_data(store):
    """helper mcp7: the MCP text block and the adapter's ToolReply.text (what a model reads) carried each call the
    note names twice, in the note and as data (``calls``, 133 to 143 bytes of the replies of a miss that names a
    spelling that matches, 459 to 496 bytes: bench/error_sizes.py); the data is for programs: the structured content
    and ToolReply.result keep it."""
    from scratchfs.adapter import Offloader

    scope = store.scope("r", "a")
    handle = scope.spill(DPKG, source_tool="dpkg").handle
    arguments = {"handle": handle, "pattern": "gnu bourne again shell"}
    result = run_scratch_tool(ScopeResolver(store, "r", "a"), "read_handle", arguments, None)
    reply = Offloader(scope).call_scratch_tool("read_handle", arguments)
    for text, data in ((result.content[0].text, result.structured_content), (reply.text, reply.result)):
        assert data["calls"] == [{"tool": "read_handle", "arguments": {**arguments, "ignore_case": True}}]
        shown = json.loads(text)
        assert "calls" not in shown and shown == {key: value for key, value in data.items() if key != "calls"}
        assert 'pattern="gnu bourne again shell", ignore_case=True)' in shown["note"]
        whole = len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())  # (the calls too)
        assert len(text.encode()) == reply_size(data) <= whole - 100, (len(text.encode()), reply_size(data), whole)


@pytest.mark.parametrize("content", [
    ("<html><body>" + "<p>filler</p>\n" * 50 + "<p>Hello&nbsp;World</p></body></html>").encode(),
    ("line\n" * 10 + "\x1b[31mERROR\x1b[0m thing\nprogress 1\rprogress 2\rDone\n").encode(),
], ids=["html", "terminal"])
def test_a_text_view_search_that_finds_nothing_says_where_it_looked(scope, content):
    """helper hostile8: a view="text" search that found nothing answered windows: [] and null cursors with no note
    (the README: any other forward search that finds nothing says where it looked); now it says so, with the view's
    size its reply gives, or the bytes from its offset."""
    tools = ScratchTools(scope)
    handle = scope.spill(content, source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "match": "zebra", "view": "text"})
    assert reply["windows"] == [] and reply["next_call"] is None
    assert reply["note"] == f"no match in the whole text view ({reply['size']:,} bytes)", reply
    reply = tools.call("read_handle", {"handle": handle, "match": "zebra", "view": "text", "offset": 3})
    assert reply["note"] == (f"no match in bytes 3-{reply['size']} of the text view (from offset= to the end); the "
                             f'whole text view: read_handle(handle="{handle}", match="zebra", view="text")'), reply
    found = tools.call("read_handle", {"handle": handle, "match": "e", "view": "text", "max_matches": 1})
    assert found["windows"] and not str(found.get("note") or "").startswith("no match")


def test_a_count_miss_from_an_offset_in_a_single_byte_encoding_is_no_traceback(scope):
    """helper replies6: the count's call of the whole content was made from the needle encoding= wrote as bytes
    (TypeError: bytes are not JSON); a count in another encoding says nothing of a miss, as before."""
    tools = ScratchTools(scope)
    handle = scope.spill(("caf\xe9 au lait\n" * 50).encode("latin-1"), source_tool="t").handle
    for what in ({"match": "zebra"}, {"pattern": "caf. x"}):
        reply = tools.call("read_handle", {"handle": handle, **what, "offset": 10, "count": True,
                                           "encoding": "latin-1"})
        assert reply["matches"] == 0 and "note" not in reply, reply


QUOTED_DIFF = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "git-diff-quoted-paths.txt").read_bytes()


@pytest.mark.parametrize(("needle", "line"), [
    (" b/café.txt", 1), ("+++ b/café.txt", 4), (" b/docs/日本語.md", 11), (' b/say "hi".txt', 41),
    (" b/my notes é.txt", 21), ("café.txt", 1), ("日本語", 11)])
def test_a_miss_of_a_path_git_quoted_names_the_search_of_it_as_git_writes_it(scope, needle, line):
    """git writes a path of non-ASCII bytes, a control character, ``"`` or ``\\`` in quotes with octal escapes
    (``"b/caf\\303\\251.txt"``); a diff's shape names it unquoted (``café.txt``) and the search it names,
    ``match=" b/NAME"``, found nothing, its note no way on (hostile36). The miss now names the search of the needle
    as git writes it, which finds the file's line."""
    tools = ScratchTools(scope)
    stub = scope.spill(QUOTED_DIFF, source_tool="git")
    assert "café.txt (line 1, +2 -1)" in stub.shape  # (the name unquoted, as a model pastes it)
    reply = tools.call("read_handle", {"handle": stub.handle, "match": needle, "context": "line"})
    assert reply["windows"] == [] and "git quotes such a name" in reply["note"]
    found = _follow(tools, reply)
    assert found["windows"] and window_hits(found["windows"][0])[0]["line"] == line
    quoted_line = QUOTED_DIFF.split(b"\n")[line - 1].decode()
    assert reply["calls"][0]["arguments"]["match"] in quoted_line
    assert reply_size(reply["note"]) <= NOTE_BYTES


def test_no_git_quoting_hint_for_a_needle_git_writes_as_it_is_or_one_found_no_way(scope):
    tools = ScratchTools(scope)
    handle = scope.spill(QUOTED_DIFF, source_tool="git").handle
    for needle in (" b/nothere.txt", " b/nöthere.txt"):
        reply = tools.call("read_handle", {"handle": handle, "match": needle})
        assert reply["note"] == f"no match in the whole content ({len(QUOTED_DIFF):,} bytes)"
