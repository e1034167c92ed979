"""helper advice2: a ``read_handle`` call mixing a line read with a search or a range, and a ``count`` beside a
window's argument, were refused without a call the model could run ("a line read takes line (or offset) and lines;
length, match and pattern are for other reads"): each refusal names now the calls that split the request (or the
count that runs), and every call it names runs."""

from __future__ import annotations

import json

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.foundation.calls import Call
from scratchfs.foundation.limits import MIN_REPLY_BYTES

TEXT = "".join(f"line {n} says x{n}\n" for n in range(1, 301))


def _refused(tools: ScratchTools, arguments: dict) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as info:
        tools.call("read_handle", arguments)
    return info.value


@pytest.mark.parametrize(("mixed", "calls"), [
    ({"line": 1, "match": "x"}, [{"match": "x"}, {"line": 1}]),
    ({"lines": 5, "pattern": "x1", "offset": 100, "ignore_case": True, "context": 10},
     [{"pattern": "x1", "ignore_case": True, "context": 10, "offset": 100}, {"lines": 5, "offset": 100}]),
    ({"line": 3, "lines": 2, "match": "says", "offset": 50, "max_matches": 2, "budget": 4096},
     [{"match": "says", "max_matches": 2, "offset": 50, "budget": 4096}, {"line": 3, "lines": 2, "budget": 4096}]),
    ({"line": -5, "length": 10, "offset": 7}, [{"offset": 7, "length": 10}, {"line": -5}]),
    ({"line": 2, "match": "x", "before": 400}, [{"match": "x", "before": 400}, {"line": 2}]),
])
def test_a_line_read_mixed_with_another_names_the_two_calls(scratch_scope, mixed, calls):
    _names_calls_that_run(scratch_scope, mixed, calls, "a line read takes line= (or offset=) and lines=; length=, "
                          "match= and pattern= are for other reads: make two calls, read_handle(")


def _names_calls_that_run(scratch_scope, mixed: dict, calls: list, said: str) -> None:
    """The read ``mixed`` is refused with words starting ``said``, naming ``calls`` (each in its text, each runs),
    within the smallest reply's bytes."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(TEXT, source_tool="t").handle
    refused = _refused(tools, {"handle": handle, **mixed})
    assert str(refused).startswith(said), refused
    assert [dict(call.arguments) for call in refused.calls] == [{"handle": handle, **call} for call in calls]
    for call in refused.calls:
        assert str(call) in str(refused)
        tools.call(call.verb, dict(call.arguments))  # each runs
    assert len(error_text(refused).encode()) <= MIN_REPLY_BYTES and not error_text(refused).endswith("...")


def test_the_python_verb_names_them_too(scratch_scope):
    handle = scratch_scope.spill(TEXT, source_tool="t").handle
    with pytest.raises(InvalidArgument) as info:
        scratch_scope.read_handle(handle, line=1, match="x")
    assert info.value.calls == (Call.of("read_handle", handle=handle, match="x"),
                                Call.of("read_handle", handle=handle, line=1))


@pytest.mark.parametrize("extra", [{"before": 100}, {"context": 3}, {"lines": 4}, {"max_matches": 5}])
def test_a_count_beside_a_window_argument_names_the_count_that_runs(scratch_scope, extra):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(TEXT, source_tool="t").handle
    asked = {"handle": handle, "match": "X1", "ignore_case": True, "offset": 20, "count": True}
    refused = _refused(tools, {**asked, **extra})
    assert str(refused).startswith(f"count cannot be combined with {next(iter(extra))}: ")
    (call,) = refused.calls
    assert dict(call.arguments) == asked and f"; the count alone: {call}" in str(refused)
    assert tools.call(call.verb, dict(call.arguments))["matches"] == TEXT.lower().count("x1", 20)


def test_a_long_needle_is_not_repeated_past_what_a_tool_error_holds(scratch_scope):
    """A needle of 4 KiB (the most) written into the named call would be cut from the MCP text ("..."): the call
    is then said in words, and kept whole as data (the CLI writes it as a command)."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(TEXT, source_tool="t").handle
    needle = "y" * 4096
    for arguments, words in (({"line": 1, "match": needle}, "this call without line= and lines="),
                             ({"count": True, "match": needle, "before": 10}, "this call without before")):
        refused = _refused(tools, {"handle": handle, **arguments})
        assert words in str(refused) and needle not in str(refused)
        assert not error_text(refused).endswith("...")
        assert dict(refused.calls[0].arguments)["match"] == needle


@pytest.mark.parametrize(("mixed", "said", "calls"), [
    ({"context": 10}, "context=, max_matches= and before= apply to searches",
     [{"match": "TEXT", "context": 10}, {}]),
    ({"max_matches": 3, "offset": 100, "budget": 4096}, "context=, max_matches= and before= apply to searches",
     [{"match": "TEXT", "max_matches": 3, "offset": 100, "budget": 4096}, {"offset": 100, "budget": 4096}]),
    ({"before": 500, "line": 4, "lines": 3}, "context=, max_matches= and before= apply to searches",
     [{"match": "TEXT", "before": 500}, {"line": 4, "lines": 3}]),
    ({"ignore_case": True, "offset": 10, "length": 5}, "ignore_case= applies to searches",
     [{"match": "TEXT", "ignore_case": True, "offset": 10}, {"offset": 10, "length": 5}]),
    ({"ignore_case": True, "line": 3}, "ignore_case= applies to searches",  # (slurp2: accepted silently)
     [{"match": "TEXT", "ignore_case": True}, {"line": 3}]),
    ({"ignore_case": True, "line": -5, "lines": 5}, "ignore_case= applies to searches",
     [{"match": "TEXT", "ignore_case": True}, {"line": -5, "lines": 5}]),
    ({"match": "says", "length": 10, "offset": 30}, "length= applies to range reads",
     [{"match": "says", "offset": 30}, {"offset": 30, "length": 10}]),
    ({"pattern": "x1+", "length": 10, "end": 900, "context": 5}, "length= applies to range reads",
     [{"pattern": "x1+", "context": 5, "end": 900}, {"length": 10, "end": 900}]),
    ({"line": 5, "offset": 100}, "a line read starts at a line or at a byte offset, not both",
     [{"line": 5}, {"offset": 100, "lines": 50}]),
    ({"line": 5, "offset": 100, "lines": 7}, "a line read starts at a line or at a byte offset, not both",
     [{"line": 5, "lines": 7}, {"offset": 100, "lines": 7}]),
])
def test_a_search_argument_without_a_search_and_a_range_in_a_search_name_the_reads_meant(scratch_scope, mixed, said,
                                                                                        calls):
    """helper replies7: ``context=``/``max_matches=``/``before=`` without a needle, ``ignore_case`` without a
    search, ``length=`` with a search and ``line=`` with ``offset=`` were refused in words alone. Each names the two
    reads the call may have meant -- a search (``match="TEXT"``, the stub's placeholder, where the call gave no
    needle) and the read without its search arguments; or the line read from its line and from its byte --, and
    each runs."""
    _names_calls_that_run(scratch_scope, mixed, calls, said)


def test_a_long_needle_beside_length_is_named_in_words(scratch_scope):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(TEXT, source_tool="t").handle
    refused = _refused(tools, {"handle": handle, "match": "y" * 4096, "length": 10})
    assert "the same search, or the range: " in str(refused) and len(error_text(refused).encode()) <= MIN_REPLY_BYTES


def test_the_cli_names_the_arguments_of_a_mix_as_its_options(tmp_path):
    """newuser11: ``read-handle H --context 10`` (no search) was refused in the model's words, "context, max_matches
    and before apply to searches (match or pattern)": the refusals of a mix name each argument as ``name=``, which
    the CLI writes as its option (``cli.advice.options_said``)."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    root = str(tmp_path / "r")
    source = tmp_path / "n.txt"
    source.write_bytes(b"".join(b"%d\n" % i for i in range(3000)))
    scope_args = ["--root", root, "--run", "r", "--agent", "a"]
    spilled = CliRunner().invoke(main, ["spill", str(source), *scope_args, "--json"])
    handle = json.loads(spilled.stdout)["handle"]
    for extra, said in ((["--context", "10"], "--context, --max-matches and --before apply to searches (--match or "
                                                "--pattern)"),
                        (["--ignore-case"], "--ignore-case applies to searches (--match or --pattern)"),
                        (["--match", "12", "--length", "5"], "--length applies to range reads; a search takes "
                                                             "--context and --max-matches")):
        refused = CliRunner().invoke(main, ["read-handle", handle, *scope_args, *extra])
        assert refused.exit_code == 2 and said in refused.stderr, refused.stderr


def test_the_cli_writes_options_for_the_words_but_keeps_a_value_the_message_quotes(tmp_path):
    """hostile16: options_said wrote a name= it found after a space or a slash as the option, inside the value a
    message echoes too: ``no key 'dir/--line 5'`` for the key dir/line=5, ``not a handle ...: 'see --line 5'``; and
    a search's refusal beside a structure read said ``takes no jq=:`` in the model's words."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    root = str(tmp_path / "r")
    source = tmp_path / "n.txt"
    source.write_bytes(b"".join(b"%d\n" % i for i in range(3000)))
    scope_args = ["--root", root, "--run", "r", "--agent", "a"]
    handle = json.loads(CliRunner().invoke(main, ["spill", str(source), *scope_args, "--json"]).stdout)["handle"]
    for argv, said in ((["scratch-read", "dir/line=5"], "no key 'dir/line=5' in this scope"),
                       (["read-handle", "see line=5"], "'see line=5'; a scratchpad value"),
                       (["read-handle", handle, "--match", "x", "--jq", "."], "takes no --jq: search the stored")):
        refused = CliRunner().invoke(main, [*argv, *scope_args])
        assert refused.exit_code in (1, 2) and said in refused.stderr, refused.stderr
