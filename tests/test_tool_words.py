"""The tool definitions' words against what the calls do: each mistake a model made on its first call, with only the
definitions, the stubs and the replies (modeltrial, real outputs of a machine), and the words that prevent it."""

from __future__ import annotations

import ast

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.api.tools import TOOL_SPECS


def _arguments(next_call: str) -> dict:
    """The keyword arguments of a reply's next_call, as the model passes them."""
    call = ast.parse(next_call, mode="eval").body
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords}


def test_a_cursor_goes_with_the_read_it_continues(scratch_scope):
    """read_handle's cursor was said to be "from next_call, or given alone", scratch_list's "given alone as
    next_cursor": the model passed a read_handle cursor alone (4 of 4 refused) and a scratch_list cursor of a
    prefixed listing alone (refused, the reply not naming prefix=). The words say the cursor goes with the read's
    arguments, and the same prefix; so they work, and alone they are refused."""
    rh = TOOL_SPECS["read_handle"].input_schema["properties"]["cursor"]["description"]
    sl = TOOL_SPECS["scratch_list"].input_schema["properties"]["cursor"]["description"]
    assert "given alone" not in rh and "with the read's arguments" in rh
    assert "given alone" not in sl and "same prefix" in sl
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(b"".join(b'{"n": %d}\n' % i for i in range(1, 400))).handle
    page = tools.call("read_handle", {"handle": handle, "record": 1, "records": 3})
    go_on = _arguments(page["next_call"])
    with pytest.raises(InvalidArgument, match="own arguments"):
        tools.call("read_handle", {"handle": handle, "cursor": go_on["cursor"]})
    assert tools.call("read_handle", {"handle": handle, **{k: v for k, v in go_on.items() if k != "handle"}}
                      )["records"] == [{"n": 4}, {"n": 5}, {"n": 6}]
    for key in ("plan/a", "plan/b", "plan/c", "other"):
        tools.call("scratch_write", {"key": key, "value": key})
    first = tools.call("scratch_list", {"prefix": "plan/", "limit": 2})
    cursor = _arguments(first["next_call"])["cursor"]
    with pytest.raises(InvalidArgument, match="another listing"):
        tools.call("scratch_list", {"cursor": cursor})
    rest = tools.call("scratch_list", {"prefix": "plan/", "cursor": cursor})
    assert [e["key"] for e in rest["entries"]] == ["plan/c"]


def test_columns_take_numbers_under_a_header_and_a_window_names_only_what_is_not_its_own(scratch_scope):
    """columns= said "numbers from 0 if \\"no header\\"": over `ps ... | tr -s ' ' ','` (a header naming COMMAND
    twice) the model, told by a slurp note that rows key the second COMMAND as 'COMMAND_2', passed that name (refused,
    the reply listing names only) instead of its number, which works under a header too. And a search window was said
    to carry match_offset/match_length "where the match is not the whole window": a window with match_offset and no
    match_length left the match's length unsaid; it was then omitted where the match ends the window, which a new
    user found surprising beside windows that have it: both are given unless the window is the match alone
    (replies10; tests/test_window_match_fields.py)."""
    columns = TOOL_SPECS["read_handle"].input_schema["properties"]["columns"]["description"]
    assert "if \"no header\"" not in columns and "numbers from 0" in columns
    tools = ScratchTools(scratch_scope)
    data = b"PID,USER,RSS,COMMAND,COMMAND\n" + b"".join(b"%d,root,%d,sh,/bin/sh\n" % (i, 10 * i) for i in range(1, 40))
    handle = scratch_scope.spill(data).handle
    page = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 2, "columns": [0, "RSS", 4]})
    assert page["header"] == ["PID", "RSS", "COMMAND"]
    assert page["rows"] == [["1", "10", "/bin/sh"], ["2", "20", "/bin/sh"]]
    description = TOOL_SPECS["read_handle"].description  # (the window's fields are its own since tooldefs1; if the
    # definition ever tells them again, it tells them right)
    assert "match_offset" not in description or "unless the window is the match alone" in description
    text = scratch_scope.spill(b"/usr/bin/zstd\n" * 900).handle
    call = {"handle": text, "match": "zstd", "context": "line", "max_matches": 1}
    assert tools.call("read_handle", call)["windows"] == [{"line": 1, "data": "/usr/bin/zstd"}]  # (the model's: a
    window = tools.call("read_handle", call, full_windows=True)["windows"][0]  # whole line; the web's, its fields)
    assert window["match_offset"] == window["offset"] + 9 and window["match_length"] == 4  # (it ends the window)
    assert window["data"][window["match_offset"] - window["offset"]:] == "zstd"


def test_a_model_that_lost_its_context_is_told_to_note_its_handles(scratch_scope):
    """modeltask10: a model triaging a spilled pytest log lost its context; a fresh set of tools on the same scope
    has only the scratchpad to go on from. scratch_list lists notes alone, never a spilled result, and its definition
    said nothing of it: a model that relied on the listing to find its handles again found an empty one. The
    definition now says handles are not listed and to write one it will need into a note; so noted, the fresh tools
    find the handle by the listing's preview and read on. listhandles1: ``scratch_list(spilled=true)`` lists the
    handles themselves, as the definition now says."""
    description = TOOL_SPECS["scratch_list"].description
    assert "`spilled`: your spilled results' handles instead, newest first" in description
    text = "".join(f"tests/test_x.py::test_{i} PASSED\n" for i in range(2_000))
    handle = scratch_scope.spill(text, source_tool="bash").handle
    fresh = ScratchTools(scratch_scope)  # (the context lost: nothing but the scope)
    assert fresh.call("scratch_list")["entries"] == []  # the spilled result is not listed among the notes
    assert [e["handle"] for e in fresh.call("scratch_list", {"spilled": True})["entries"]] == [handle]
    ScratchTools(scratch_scope).call("scratch_write", {"key": "triage", "value": f"log {handle}: all passed"})
    [entry] = ScratchTools(scratch_scope).call("scratch_list")["entries"]
    noted = entry["preview"].split()[1].rstrip(":")
    assert noted == handle
    assert ScratchTools(scratch_scope).call("read_handle", {"handle": noted, "line": 2, "lines": 1})["data"] == (
        "tests/test_x.py::test_1 PASSED\n")
