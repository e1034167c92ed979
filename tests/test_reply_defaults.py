"""Bytes for nothing in every reply of a kind (helper replies3, from a new user's trial over MCP): a pattern search
echoed ``"ignore_case": false`` (a match search did not); a finished search said "done" four times (``next_offset``,
``more``, ``remaining``, ``next_call``); ``expires_at`` had 7 decimals. ``next_offset`` and ``next_call`` stay
(``null`` at the end: the contract's end of every read, which a client relies on); ``more: false``, ``remaining: 0``
and ``ignore_case: false`` only repeated them or a default, and times are whole seconds."""

from __future__ import annotations

import json

from scratchfs.mcp.server import ScopeResolver, run_scratch_tool


def mcp_text(store, name: str, args: dict) -> str:
    """The text block a model receives over MCP (compact JSON: the unit of every budget)."""
    result = run_scratch_tool(ScopeResolver(store, "run-1", "agent-1"), name, args, None)
    assert not result.is_error, result.content[0].text
    return result.content[0].text


def test_a_finished_search_says_done_once_and_no_default(scratch_store, scratch_scope):
    data = "".join(f"line {i} foo bar\n" for i in range(2000)).encode()
    handle = scratch_scope.spill(data, source_tool="t").handle
    at = data.find(b"line 1999 ")
    for what in ({"pattern": "line 1999 "}, {"match": "line 1999 "}):
        text = mcp_text(scratch_store, "read_handle", {"handle": handle, **what, "context": 0})
        assert json.loads(text) == {"handle": handle, **what, "size": len(data), "next_offset": None,
                                    "next_call": None,
                                    "windows": [{"line": 2000, "offset": at, "length": 10, "data": "line 1999 "}]}
    # the bytes a model no longer receives: 47 of 231 for the pattern search, 27 of 209 for the match
    assert len(text.encode()) == 182
    loud = json.loads(mcp_text(scratch_store, "read_handle", {"handle": handle, "pattern": "LINE 1",
                                                               "ignore_case": True, "max_matches": 1}))
    assert loud["ignore_case"] is True and loud["more"] is True  # (said when it is not the default, and going on)
    assert loud["remaining"] == len(data) - loud["next_offset"] and loud["next_call"].startswith("read_handle(")
    counted = json.loads(mcp_text(scratch_store, "read_handle", {"handle": handle, "pattern": "foo", "count": True}))
    assert "ignore_case" not in counted and counted["matches"] == 2000


def test_times_in_replies_are_whole_seconds(scratch_store, scratch_clock):
    text = mcp_text(scratch_store, "scratch_write", {"key": "big", "value": "x", "ttl": 60})
    assert text == f'{{"key":"big","size":1,"ttl":60,"expires_at":{round(scratch_clock.now + 60)}}}'
    scratch_clock.advance(0.25)
    listed = json.loads(mcp_text(scratch_store, "scratch_list", {}))
    assert listed["entries"][0]["expires_in"] == 60 and isinstance(listed["entries"][0]["expires_in"], int)
    fraction = json.loads(mcp_text(scratch_store, "scratch_write", {"key": "k", "value": "x", "ttl": 1.5}))
    assert fraction["ttl"] == 1.5  # (as the call gave it)
