"""A read past the end says how to go on (helper newuser3, as a model over MCP: ``line=9999`` of a 641-line
``pytest --collect-only`` said only ``line 9999 is past the end of h_... (641 lines)``, and ``offset=`` past the size
likewise, where ``before=`` past it named ``before=<size>``): the refusal names the call that reads the last lines
or bytes, which is followed here and returns them, and a search's or a count's names what it takes."""

from __future__ import annotations

import re

import pytest

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument

CONTENT = b"".join(b"line %d of the log\n" % n for n in range(1, 3001))


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _advice(tools: ScratchTools, name: str, **arguments: object) -> str:
    with pytest.raises(InvalidArgument) as caught:
        tools.call(name, arguments)
    return str(caught.value)


def _follow(tools: ScratchTools, message: str) -> dict:
    call = re.search(r"(read_handle|scratch_read)\(.*\)", message)
    assert call, message
    name, arguments = parse_call(call.group(0))
    return tools.call(name, arguments)


def test_a_line_past_the_end_names_the_read_of_the_last_lines(tools, scratch_scope):
    handle = scratch_scope.spill(CONTENT).handle
    message = _advice(tools, "read_handle", handle=handle, line=9999)
    assert message.startswith(f"line 9999 is past the end of {handle} (3,000 lines): line=-1 is its last line")
    reply = _follow(tools, message)
    assert reply["data"].encode() == b"".join(CONTENT.splitlines(keepends=True)[-50:])


@pytest.mark.parametrize("arguments", [{}, {"lines": 3}])
def test_an_offset_past_the_end_names_the_read_of_the_last_bytes(tools, scratch_scope, arguments):
    handle = scratch_scope.spill(CONTENT).handle
    message = _advice(tools, "read_handle", handle=handle, offset=len(CONTENT) + 1, **arguments)
    assert f"({len(CONTENT):,} bytes: offsets 0 to {len(CONTENT):,}); its last bytes: " in message
    reply = _follow(tools, message)
    assert reply["data"].encode() == CONTENT[-4096:]
    assert reply["next_call"] is None


def test_a_scratchpad_offset_past_the_end_names_scratch_read(tools, scratch_scope):
    scratch_scope.scratch_write("notes", b"abc")
    message = _advice(tools, "scratch_read", key="notes", offset=10)
    assert message.endswith('its last bytes: scratch_read(key="notes")')  # (offset=0: the default)
    assert _follow(tools, message)["data"] == "abc"


def test_a_search_past_the_end_names_offset_0_and_before_the_size(tools, scratch_scope):
    handle = scratch_scope.spill(CONTENT).handle
    message = _advice(tools, "read_handle", handle=handle, match="line 2999", offset=len(CONTENT) + 5)
    assert message.endswith(f'read_handle(handle="{handle}", match="line 2999") looks through all of it, and '
                            f'read_handle(handle="{handle}", match="line 2999", before={len(CONTENT)}) finds the last '
                            "matches")  # (the searches as calls: before, words, misfit2)
    last = tools.call("read_handle", {"handle": handle, "match": "line 2999", "before": len(CONTENT)})
    assert last["windows"][0]["line"] == 2999


def test_a_count_past_the_end_names_no_before_which_a_count_refuses(tools, scratch_scope):
    handle = scratch_scope.spill(CONTENT).handle
    message = _advice(tools, "read_handle", handle=handle, match="line", count=True, offset=len(CONTENT) + 5)
    assert message.endswith(f'read_handle(handle="{handle}", match="line", count=True) looks through all of it')
    assert tools.call("read_handle", {"handle": handle, "match": "line", "count": True})["matches"] == 3000


@pytest.mark.parametrize("bound", ["past", "within"])
@pytest.mark.parametrize("count", [False, True])
def test_a_bounded_search_past_the_end_names_calls_its_bound_lets_through(tools, scratch_scope, bound, count):
    """offset= and end= both past the size: the advice 'the same search from offset=0' kept end=, refused in turn
    (end= past the content's end); end= within the size, 'before=<size> instead of offset=' was past end= and
    refused (found by helper hostile4 following each advice literally). Each change the refusal names is made to the
    call as given, and the call answers: every match from 0 to the bound, or the last ones before it."""
    handle = scratch_scope.spill(CONTENT).handle
    end = len(CONTENT) + 10 if bound == "past" else 5000
    asked = {"handle": handle, "match": "of the", "offset": len(CONTENT) + 5, "end": end, **({"count": True}
                                                                                               if count else {})}
    message = _advice(tools, "read_handle", **asked)
    stop = min(end, len(CONTENT))
    from_start = {**asked, "offset": 0}
    if bound == "past":  # (the calls named go without it: written as calls since misfit2, in words before)
        assert f"end={end}" not in message.replace(" without end=", ""), message
        del from_start["end"]
    else:
        assert f"end={end}" in message, message
    want = CONTENT[:stop].count(b"of the")
    if count:
        assert "before=" not in message and tools.call("read_handle", from_start)["matches"] == want
        return
    assert tools.call("read_handle", {**from_start, "count": True})["matches"] == want
    before = int(re.search(r"before=(\d+)(?:, end=\d+)?\) finds the last matches", message).group(1))
    last = {k: v for k, v in from_start.items() if k != "offset"} | {"before": before, "max_matches": 1}
    got = tools.call("read_handle", last)["windows"]
    assert [w["match_offset"] for w in got] == [CONTENT.rindex(b"of the", 0, stop)]


@pytest.mark.parametrize("given", [["--line", "9999"], ["--offset", "999999"]])
def test_the_cli_names_the_command_that_reads_the_end_and_it_runs(tmp_path, given):
    """read-handle's refusal of a line or an offset past the end named the tool call
    'read_handle(handle="h_...", line=-50, lines=50)', which a shell cannot run (found by helper hostile4 following
    the advice on the command line): it names the command, with the store and scope, and pasted it reads the end."""
    import shlex

    from click.testing import CliRunner

    from scratchfs import ScratchStore
    from scratchfs.cli import main

    root = str(tmp_path / "root")
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill(CONTENT).handle
    failed = CliRunner().invoke(main, ["read-handle", handle, *given, "--root", root, "--run", "r", "--agent", "a"])
    assert failed.exit_code == 2 and "read_handle(" not in failed.stderr, failed.stderr
    command = re.search(r"(\S+ read-handle .*? --agent a)", failed.stderr).group(1)
    followed = CliRunner().invoke(main, shlex.split(command)[1:])
    assert followed.exit_code == 0, followed.stderr
    assert CONTENT.endswith(followed.stdout_bytes) and len(followed.stdout_bytes) >= 1000


@pytest.mark.parametrize(("given", "said", "unsaid"), [
    (["--line", "9999"], "--line -1 is its last line", "line=-1"),
    (["--row", "1", "--jq", "."], "read rows with --row/--rows/--column alone", "row=/"),
])
def test_the_cli_words_a_negative_number_and_a_list_of_arguments_as_options(tmp_path, given, said, unsaid):
    """newuser11: read-handle's refusals said ``line=-1 is its last line`` and ``read rows with row=/rows=/columns=
    alone``, the model's words, on the command line, where the other arguments they name are options (``--line``):
    a negative number and names joined by ``/`` were left as they were."""
    from click.testing import CliRunner

    from scratchfs import ScratchStore
    from scratchfs.cli import main

    root = str(tmp_path / "root")
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill(CONTENT).handle
    failed = CliRunner().invoke(main, ["read-handle", handle, *given, "--root", root, "--run", "r", "--agent", "a"])
    assert failed.exit_code == 2 and said in failed.stderr and unsaid not in failed.stderr, failed.stderr
