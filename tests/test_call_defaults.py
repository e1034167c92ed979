"""No call a reply names writes out an argument at its default where the call means the same without it (advice4:
``scratch_read``'s next_call repeated ``length=65536``, every range read's ``length=4096``, a search's
``context=200, max_matches=20``, a line read's ``lines=50``: bytes in every reply that said nothing). The defaults
are the tools' schemas' (``TOOL_SPECS``), read here independently of the code that leaves them out; the walk follows
every verb's replies by ``next_call`` (and the calls a note names, ``calls``) and checks, for each call, that no
argument equals its schema default -- but for the one that makes a read what it is (``line=1`` with no ``lines``
beside it, ``lines=50`` beside an ``offset``) -- and that the call with its defaults written out gives the same
bytes."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import example, given
from hypothesis import strategies as st

from scratchfs.adapter import parse_call
from scratchfs.api.contract import TOOL_SPECS, ScratchTools, to_json
from scratchfs.cli.app import main
from scratchfs.foundation.calls import Call, render_call


def _defaults(verb: str) -> dict[str, object]:
    """The schema's default of each argument of ``verb`` that has one, but ``budget`` (the server's, which differs
    between servers: a call repeats the one it was given)."""
    properties = TOOL_SPECS[verb].input_schema["properties"]
    return {name: spec["default"] for name, spec in properties.items() if "default" in spec and name != "budget"}


def _same(value: object, default: object) -> bool:
    return type(value) is type(default) and value == default


def _needed(verb: str, name: str, arguments: dict) -> bool:
    """The default-valued ``name`` makes the read what it is: ``line`` with no ``lines`` (a line read, not a range
    read), ``lines`` with no ``line`` (a line read from an offset)."""
    return verb == "read_handle" and ((name == "line" and "lines" not in arguments)
                                      or (name == "lines" and "line" not in arguments))


def _check_call(tools: ScratchTools, verb: str, arguments: dict, reply: dict) -> None:
    """``verb(arguments)`` (a next_call) writes no default out, and the call with every default of its kind written
    out gives ``reply`` again, byte for byte."""
    defaults = _defaults(verb)
    written = [name for name, value in arguments.items()
               if name in defaults and _same(value, defaults[name]) and not _needed(verb, name, arguments)]
    assert not written, (verb, arguments)
    searching = "match" in arguments or "pattern" in arguments
    full = dict(arguments)
    if verb == "read_handle" and searching:
        full = {**full, "context": full.get("context", defaults["context"]),
                "max_matches": full.get("max_matches", defaults["max_matches"]), "ignore_case": False}
    elif verb == "read_handle" and "line" in full:
        full.setdefault("lines", defaults["lines"])
    elif verb == "read_handle" and full.keys() <= {"handle", "offset", "length", "end", "budget", "encoding"}:
        full.setdefault("length", defaults["length"])
    elif verb in ("scratch_read", "scratch_list"):
        full = {**{k: v for k, v in defaults.items() if k != "offset" or "cursor" not in full}, **full}
    if "cursor" not in full:
        full.setdefault("offset", 0) if verb != "scratch_list" else None
    assert to_json(tools.call(verb, full)) == to_json(reply), (arguments, full)


def _walk(tools: ScratchTools, verb: str, arguments: dict, most: int = 6) -> int:
    """Follow ``verb(arguments)``'s next_call (at most ``most`` pages), checking each call named; the pages read."""
    reply, pages = tools.call(verb, arguments), 1
    while True:
        for named in reply.get("calls", ()):
            assert named["arguments"] == dict(Call.of(named["tool"], **named["arguments"]).arguments)
        if not reply.get("next_call") or pages >= most:
            return pages
        verb, arguments = parse_call(reply["next_call"])
        reply = tools.call(verb, arguments)
        _check_call(tools, verb, arguments, reply)
        pages += 1


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


LOG = "".join(f"2026-12-05 10:{i % 60:02d}:00 INFO worker {i} did a thing, then another thing\n"
              for i in range(3000))
CSV = "id,name,name,score\n" + "".join(f"{i},n{i},m{i},{i * 7 % 100}\n" for i in range(3000))
JSONL = "".join(json.dumps({"i": i, "name": f"n{i}", "pad": "x" * 40}) + "\n" for i in range(2000))


@pytest.mark.parametrize("arguments", [
    {}, {"length": 1000}, {"offset": 5, "length": 4096},  # ranges
    {"line": 5}, {"line": 5, "lines": 50}, {"lines": 300}, {"line": -200, "lines": 50},  # lines
    {"match": "worker 1"}, {"match": "worker 1", "context": 200, "max_matches": 20},
    {"pattern": r"worker \d+1 ", "ignore_case": False, "max_matches": 5}, {"match": "thing", "context": "line"},
    {"match": "worker", "before": len(LOG)}, {"match": "worker 2", "budget": 4096},
])
def test_every_read_s_next_call_leaves_its_defaults_out(tools, scratch_scope, arguments):
    handle = scratch_scope.spill(LOG, source_tool="t").handle
    assert _walk(tools, "read_handle", {"handle": handle, **arguments}) > 1


@pytest.mark.parametrize(("content", "arguments"), [
    (CSV, {"row": 1}), (CSV, {"row": 1, "rows": 40, "columns": ["id", "score"]}),
    (CSV, {"jq": ".[]", "slurp": True}), (JSONL, {"record": 1}), (JSONL, {"record": 1, "jq": ".i"}),
    (JSONL, {"jq": "map(.name) | .[]", "slurp": True}),
])
def test_structure_reads_leave_their_defaults_out(tools, scratch_scope, content, arguments):
    handle = scratch_scope.spill(content, source_tool="t").handle
    assert _walk(tools, "read_handle", {"handle": handle, **arguments}) > 1


def test_scratch_read_and_scratch_list_leave_their_defaults_out(tools, scratch_scope):
    scratch_scope.scratch_write("notes", "n" * 200_000)
    first = tools.call("scratch_read", {"key": "notes"})
    assert first["next_call"] == f'scratch_read(key="notes", offset={first["next_offset"]}, ' \
                                 f'version="{parse_call(first["next_call"])[1]["version"]}")'  # (no length=65536)
    assert _walk(tools, "scratch_read", {"key": "notes"}) > 1
    asked = tools.call("scratch_read", {"key": "notes", "length": 4096})  # (not scratch_read's default: kept)
    assert "length=4096" in asked["next_call"]
    for n in range(30):
        scratch_scope.scratch_write(f"k/{n:02d}", "v")
    assert _walk(tools, "scratch_list", {"prefix": "k/", "limit": 7}) == 5


def test_what_each_default_left_out_saves(tools, scratch_scope):
    """The bytes a model no longer receives, in the next_call of each kind of read."""
    handle = scratch_scope.spill(LOG, source_tool="t").handle
    scratch_scope.scratch_write("notes", "n" * 200_000)
    saved = {"range": (tools.call("read_handle", {"handle": handle}), ", length=4096"),
             "lines": (tools.call("read_handle", {"handle": handle, "line": 1}), ", lines=50"),
             "search": (tools.call("read_handle", {"handle": handle, "match": "worker"}),
                        ", context=200, max_matches=20"),
             "scratch_read": (tools.call("scratch_read", {"key": "notes"}), ", length=65536")}
    for kind, (reply, cut) in saved.items():
        assert cut not in reply["next_call"], kind
    assert sum(len(json.dumps(cut)) - 2 for _, cut in saved.values()) == 13 + 10 + 29 + 14  # (66 bytes)


def test_a_default_that_makes_the_read_what_it_is_stays():
    from scratchfs.foundation.calls import without_defaults

    assert render_call("read_handle", handle="h", line=1) == 'read_handle(handle="h", line=1)'  # (a line read)
    assert render_call("read_handle", handle="h", line=1, lines=50) == 'read_handle(handle="h", line=1)'
    assert render_call("read_handle", handle="h", line=1, lines=9) == 'read_handle(handle="h", lines=9)'
    assert render_call("read_handle", handle="h", offset=9, lines=50) == 'read_handle(handle="h", offset=9, lines=50)'
    # a search's settings beside no needle are a refusal's, not a default's; a budget is the server's
    assert render_call("read_handle", handle="h", context=200) == 'read_handle(handle="h", context=200)'
    assert render_call("read_handle", handle="h", line=3, length=4096) == \
        'read_handle(handle="h", line=3, length=4096)'  # (length beside a line read: refused as written)
    assert render_call("read_handle", handle="h", offset=8, budget=8192) == 'read_handle(handle="h", offset=8, ' \
                                                                           'budget=8192)'
    assert without_defaults("read_handle", {"offset": False, "ignore_case": 0}) == {"offset": False,
                                                                                   "ignore_case": 0}
    assert render_call("scratch_read", key="k", offset=0, length=4096) == 'scratch_read(key="k", length=4096)'
    assert render_call("other", offset=0, length=4096) == "other(offset=0, length=4096)"


def test_none_means_absent_in_render_call_and_call_of_alike():
    """render_call kept a range read's default length beside a None (``match=None`` made it no range read), where
    Call.of, which dropped the None first, left it out: one rule for both."""
    assert render_call("scratch_read", key="k", length=65536, match=None) == 'scratch_read(key="k")'
    assert render_call("read_handle", handle="h", length=4096, pattern=None, offset=0) == 'read_handle(handle="h")'
    assert str(Call.of("scratch_read", key="k", length=65536, match=None)) == 'scratch_read(key="k")'


_VALUES = st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, 50, 200, 20, 4096, 65536, 9]),
                    st.sampled_from(["h", "x", ""]), st.lists(st.sampled_from(["a", 1]), max_size=2))


@given(verb=st.sampled_from(["read_handle", "scratch_read", "scratch_list", "other"]),
       arguments=st.dictionaries(st.sampled_from(["handle", "key", "offset", "length", "line", "lines", "match",
                                                  "pattern", "context", "max_matches", "ignore_case", "count",
                                                  "slurp", "budget", "prefix", "limit", "jq"]), _VALUES))
@example(verb="scratch_read", arguments={"key": "k", "length": 65536, "match": None})
def test_render_call_is_call_of_s_text(verb, arguments):
    assert render_call(verb, **arguments) == str(Call.of(verb, **arguments))


def test_the_cli_s_next_command_leaves_its_defaults_out(scratch_store):
    root = str(scratch_store.root)
    handle = scratch_store.scope("r", "a").spill(LOG, source_tool="t").handle
    runner = CliRunner()
    for options, expected, default in ((["--offset", "0"], ["--offset", "4096"], ["--length", "4096"]),
                                       (["--line", "1"], ["--line", "51"], ["--lines", "50"]),
                                       (["--line", "1", "--lines", "7"], ["--line", "8", "--lines", "7"], [])):
        done = runner.invoke(main, ["read-handle", handle, *options, "--root", root, "--run", "r", "--agent", "a"])
        assert done.exit_code == 0, done.stderr
        command = done.stderr.split("next: ", 1)[1].split()
        assert command[3:3 + len(expected)] == expected and command[3 + len(expected)] == "--root", command
        again, full = runner.invoke(main, command[1:]), runner.invoke(main, [*command[1:], *default])
        assert again.exit_code == 0 and again.stdout_bytes == full.stdout_bytes and len(again.stdout_bytes) > 100
