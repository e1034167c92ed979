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
