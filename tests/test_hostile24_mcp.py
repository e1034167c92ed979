"""hostile24 over MCP: the ``malformed_calls`` middleware said what was wrong with a ``tools/call``'s ``name`` and
``arguments`` only; params malformed elsewhere -- ``task`` not an object, ``requestState`` not text, ``_meta`` not an
object (the proxy's era) -- still got the SDK's bare ``-32602 Invalid request parameters`` with data ``""``, and a
missing name was 'not NoneType'. Now each names the param and what MCP takes there; the code stays -32602. One
server, ``scratchfs mcp`` in the sessionless era."""

from __future__ import annotations

from tests.test_mcp_wire import BAD_PARAMS, REPLY_SECONDS, Wire, face_command, modern

CASES = [
    ("task", {"name": "scratch_list", "arguments": {}, "task": 5}, "tools/call's param task is malformed (task: "
                                                                   "Input should be a valid dictionary"),
    ("state", {"name": "scratch_list", "arguments": {}, "requestState": 5}, "tools/call's param requestState is "
                                                                            "malformed (requestState: Input should "
                                                                            "be a valid string)"),
    ("unnamed", {"arguments": {}}, "it names no tool (no name)"),
]


def test_a_tools_call_malformed_past_its_name_and_arguments_says_which_param(tmp_path):
    wire = Wire(face_command("mcp", tmp_path))
    try:
        for rid, params, said in CASES:
            wire.send(modern(rid, "tools/call", params))
            reply = wire.lines.get(timeout=REPLY_SECONDS)
            assert (reply["id"], reply["error"]["code"]) == (rid, BAD_PARAMS), reply
            assert said in reply["error"]["message"], reply
        wire.send(modern("ok", "tools/call", {"name": "scratch_list", "arguments": {}}))  # and it serves on
        reply = wire.lines.get(timeout=REPLY_SECONDS)
        assert reply["id"] == "ok" and reply["result"]["structuredContent"]["entries"] == []
        wire.close()
    finally:
        wire.kill()
