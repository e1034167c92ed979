"""hostile23 over MCP: a ``tools/call`` whose ``arguments`` (or ``name``) is not what MCP says -- what a loop that
builds the request by hand sends -- was answered with the SDK's bare ``-32602 Invalid request parameters`` (data
``""``), naming neither the fault nor the tool, where the same call through ``ScratchTools.call`` (and the adapter)
says ``the arguments of scratch_list must be a JSON object, not list``. The code stays -32602. Each face is driven in
one era (the proxy in the handshake's, ``scratchfs mcp`` in the sessionless one): one server each."""

from __future__ import annotations

import pytest

from tests.test_mcp_wire import BAD_PARAMS, REPLY_SECONDS, Wire, face_command, modern, req

CASES = [
    ("list", {"name": "scratch_list", "arguments": []}, "the arguments of scratch_list must be a JSON object, not "
                                                        "list"),
    ("str", {"name": "scratch_write", "arguments": "k=v"}, "the arguments of scratch_write must be a JSON object, not "
                                                         "str"),
    ("num", {"name": 5, "arguments": {}}, "a tool name must be text, not int: 5; the tools are read_handle, "),
    # (rr9: a call with no name was told "the tool's name must be text, not NoneType"; an unknown tool's list of
    # arguments "the arguments of fetch_pge must be ...", where ScratchTools.call names the unknown tool first)
    ("noname", {"arguments": {}}, 'tools/call takes params {"name": <a tool\'s name>, "arguments": {...}}: it names no '
                                  "tool (no name)"),
    ("nullname", {"name": None, "arguments": {}}, "it names no tool (name is null)"),
    ("unknown", {"name": "scratch_lst", "arguments": []}, "unknown tool 'scratch_lst' (did you mean 'scratch_list'?)"),
]


@pytest.mark.parametrize(("face", "era"), [("proxy", "session"), ("mcp", "sessionless")])
def test_a_tools_call_of_malformed_params_says_what_is_wrong(face, era, tmp_path):
    wire = Wire(face_command(face, tmp_path))
    ask = req if era == "session" else modern
    cases = CASES + ([("none", None, 'tools/call takes params {"name": <a tool\'s name>, "arguments": {...}}, not no '
                                     "params")] if era == "session" else [])  # (sessionless params carry _meta)
    try:
        if era == "session":
            wire.initialize()
        for rid, params, said in cases:
            wire.send(ask(rid, "tools/call", params))
            reply = wire.lines.get(timeout=REPLY_SECONDS)
            assert (reply["id"], reply["error"]["code"]) == (rid, BAD_PARAMS), reply
            assert said in reply["error"]["message"], reply
        wire.send(ask("ok", "tools/call", {"name": "scratch_list", "arguments": {}}))  # and it serves on
        reply = wire.lines.get(timeout=REPLY_SECONDS)
        assert reply["id"] == "ok" and reply["result"]["structuredContent"]["entries"] == []
        wire.close()
    finally:
        wire.kill()
