"""An argument written in another tool's words gets the one meant on every face, as the README says ("refused naming
the one likely meant ... on every face (the web API's query parameters likewise)"): over MCP ``regex`` named
``pattern``, but the web API's ``?regex=`` and the CLI's ``--regex`` named nothing (helper newuser3, by curl and the
shell as the README shows them). One answer for all three, :func:`scratchfs.api.tools.meant_argument`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from scratchfs.api.contract import ScratchTools
from scratchfs.api.tools import TOOL_SPECS
from scratchfs.cli import main
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.web import create_app

TOKEN = "test-token-0123456789abcdef"
# a model's words for read_handle's arguments, which no spelling distance finds
OTHER_WORDS = [("regex", "pattern"), ("grep", "pattern"), ("query", "match"), ("search", "match"),
               ("start", "offset"), ("case_insensitive", "ignore_case"), ("filter", "jq"), ("selector", "select")]
READ_ARGUMENTS = list(TOOL_SPECS["read_handle"].input_schema["properties"])


@pytest.mark.parametrize(("given", "meant"), OTHER_WORDS)
def test_meant_argument_names_read_handles_own(given, meant):
    from scratchfs.api.tools import meant_argument

    assert meant_argument(given, READ_ARGUMENTS, "read_handle") == meant
    assert meant_argument(given, [a for a in READ_ARGUMENTS if a != meant], "read_handle") is None  # (not taken)
    assert meant_argument("zzz", READ_ARGUMENTS, "read_handle") is None


@pytest.mark.parametrize(("given", "meant"), OTHER_WORDS)
def test_every_face_names_the_argument_meant(scratch_store, scratch_scope, tmp_path, given, meant):
    handle = scratch_scope.spill(b"x\n" * 6000, source_tool="t").handle
    with pytest.raises(InvalidArgument, match=rf"unknown argument '{given}' \(did you mean '{meant}'\?\)"):
        ScratchTools(scratch_scope).call("read_handle", {"handle": handle, given: "1"})
    with TestClient(create_app(scratch_store, TOKEN), headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        got = client.get(f"/api/runs/{scratch_scope.run_id}/agents/{scratch_scope.agent_id}/handles/{handle}/read",
                         params={given: "1"})
    assert got.status_code == 400
    assert got.json()["error"]["message"].startswith(f"unknown query parameter '{given}' (did you mean '{meant}'?)")
    option = "--" + given.replace("_", "-")
    result = CliRunner().invoke(main, ["read-handle", handle, option, "1", "--root", str(tmp_path / "cli")])
    assert result.exit_code == 2
    assert f"No such option '{option}'. Did you mean '--{meant.replace('_', '-')}'?" in result.stderr


def test_an_option_with_no_meaning_is_told_as_before(tmp_path):
    result = CliRunner().invoke(main, ["read-handle", "h_" + "a" * 24, "--zzzzzz", "1", "--root", str(tmp_path)])
    assert result.exit_code == 2 and "No such option '--zzzzzz'. (see" in result.stderr


BIG = "y" * 100_000


@pytest.mark.parametrize("argv", [["read-handle", "h_" + "a" * 24, "--" + BIG, "1"],
                                  ["read-handle", "h_" + "a" * 24, "--offset", BIG],
                                  ["read-handle", "h_" + "a" * 24, "extra" + BIG],
                                  ["nosuchcommand" + BIG]])
def test_a_usage_error_echoing_100_kb_stays_a_short_line(tmp_path, argv):
    """An option name, a value or an argument of 100 KB was echoed whole in the one stderr line (100,074 bytes for
    the option; found by helper hostile4): every stderr line of the CLI is at most 2,000 characters, its head and its
    advice (its tail) kept."""
    result = CliRunner().invoke(main, [*argv, "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and len(result.stderr) <= 2000 + len("scratchfs: \n"), len(result.stderr)
    assert result.stderr.startswith("scratchfs: usage: ") and result.stderr.rstrip().endswith("--help)")


def test_an_option_no_argument_is_meant_by_gets_no_loose_guesses(tmp_path):
    """click's own guesses (difflib at 0.6) stayed when meant_argument named none: '--n\\nl' was offered '--all',
    '--end', '--run'. The CLI names what meant_argument names, as the tools and the web API do, or nothing."""
    result = CliRunner().invoke(main, ["read-handle", "h_" + "a" * 24, "--n\nl", "1", "--root", str(tmp_path)])
    assert result.exit_code == 2 and "Did you mean" not in result.stderr, result.stderr


@given(text=st.text(max_size=3000), limit=st.integers(200, 2500))
def test_within_chars_keeps_head_and_tail_within_the_limit(text, limit):
    from scratchfs.foundation.text import within_chars

    got = within_chars(text, limit)
    assert len(got) <= limit
    if len(text) <= limit:
        assert got == text
    else:
        head, rest = got.split(" … (", 1)
        left, tail = rest.split(" characters left out) … ", 1)
        assert text.startswith(head) and text.endswith(tail) and int(left.replace(",", "")) == len(text) - len(
            head) - len(tail) and len(tail) > 0


# a model's words for the scratchpad tools' arguments (newuser32: scratch_write(key=..., content=...) over MCP was
# told "unknown argument 'content'; scratch_write takes key, value, encoding, ttl", naming nothing)
SCRATCH_WORDS = [("scratch_write", "content", "value"), ("scratch_write", "text", "value"),
                 ("scratch_write", "data", "value"), ("scratch_write", "name", "key"),
                 ("scratch_write", "expires_in", "ttl"), ("scratch_read", "name", "key"),
                 ("scratch_delete", "id", "key"), ("scratch_list", "page_size", "limit")]


@pytest.mark.parametrize(("tool", "given", "meant"), SCRATCH_WORDS)
def test_the_scratchpad_tools_name_the_argument_meant(scratch_scope, tool, given, meant):
    known = list(TOOL_SPECS[tool].input_schema["properties"])
    arguments = {name: value for name, value in (("key", "notes"), ("value", "x")) if name in known and name != meant}
    with pytest.raises(InvalidArgument, match=rf"unknown argument '{given}' \(did you mean '{meant}'\?\)"):
        ScratchTools(scratch_scope).call(tool, {**arguments, given: "1"})


def test_a_scratchpad_word_is_named_by_the_table_before_a_near_spelling():
    """``title`` is one of ``scratch_write``'s words for ``key`` (its table), and two edits from ``ttl``: the refusal
    named ``ttl`` (a near spelling first), an argument of another meaning."""
    from scratchfs.api.tools import meant_argument

    known = list(TOOL_SPECS["scratch_write"].input_schema["properties"])
    assert meant_argument("title", known, "scratch_write") == "key"
    assert meant_argument("valeu", known, "scratch_write") == "value"  # (a misspelling: still its near spelling)


@pytest.mark.parametrize("given", ["name", "id"])
def test_the_web_api_names_the_scratchpad_key_as_the_tool_does(scratch_store, scratch_scope, given):
    """``?name=`` on the scratchpad's web routes named nothing meant, where the ``scratch_read`` tool names ``key``."""
    ScratchTools(scratch_scope).call("scratch_write", {"key": "notes", "value": "x"})
    with pytest.raises(InvalidArgument, match=rf"unknown argument '{given}' \(did you mean 'key'\?\)"):
        ScratchTools(scratch_scope).call("scratch_read", {given: "notes"})
    with TestClient(create_app(scratch_store, TOKEN), headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        for route in ("", "/read", "/content"):
            got = client.get(f"/api/runs/{scratch_scope.run_id}/agents/{scratch_scope.agent_id}/scratchpad{route}",
                             params={given: "notes"})
            assert got.status_code == 400
            assert got.json()["error"]["message"].startswith(
                f"unknown query parameter '{given}' (did you mean 'key'?)"), route
