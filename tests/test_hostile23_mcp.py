"""hostile23 over MCP: a ``tools/call`` whose ``arguments`` (or ``name``) is not what MCP says -- what a loop that
builds the request by hand sends -- was answered with the SDK's bare ``-32602 Invalid request parameters`` (data
``""``), naming neither the fault nor the tool, where the same call through ``ScratchTools.call`` (and the adapter)
says ``the arguments of scratch_list must be a JSON object, not list``. The code stays -32602."""

from __future__ import annotations

import pytest

from tests.test_mcp_wire import BAD_PARAMS, REPLY_SECONDS, Wire, face_command, modern, req


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_a_tools_call_of_malformed_params_says_what_is_wrong(face, tmp_path):
    wire = Wire(face_command(face, tmp_path))
    try:
        wire.initialize()
        for rid, params, said in [
            ("list", {"name": "scratch_list", "arguments": []}, "the arguments of scratch_list must be a JSON object, "
                                                               "not list"),
            ("str", {"name": "scratch_write", "arguments": "k=v"}, "the arguments of scratch_write must be a JSON "
                                                                 "object, not str"),
            ("num", {"name": 5, "arguments": {}}, "the tool's name must be text, not int"),
            ("none", None, "tools/call takes params {\"name\": <a tool's name>, \"arguments\": {...}}"),
        ]:
            wire.send(req(rid, "tools/call", params))
            reply = wire.lines.get(timeout=REPLY_SECONDS)
            assert (reply["id"], reply["error"]["code"]) == (rid, BAD_PARAMS), reply
            assert said in reply["error"]["message"], reply
        wire.send(req("ok", "tools/call", {"name": "scratch_list", "arguments": {}}))  # and it serves on
        reply = wire.lines.get(timeout=REPLY_SECONDS)
        assert reply["id"] == "ok" and reply["result"]["structuredContent"]["entries"] == []
        wire.close()
    finally:
        wire.kill()


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_a_sessionless_tools_call_of_malformed_arguments_says_what_is_wrong(face, tmp_path):
    wire = Wire(face_command(face, tmp_path))
    try:
        wire.send(modern("call", "tools/call", {"name": "scratch_list", "arguments": "x"}))
        reply = wire.lines.get(timeout=REPLY_SECONDS)
        assert (reply["id"], reply["error"]["code"]) == ("call", BAD_PARAMS), reply
        assert "the arguments of scratch_list must be a JSON object, not str" in reply["error"]["message"], reply
        wire.close()
    finally:
        wire.kill()
