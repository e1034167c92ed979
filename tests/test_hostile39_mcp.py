"""hostile39 over MCP: the protocol errors the SDK writes for a request other than a malformed ``tools/call`` were
unbounded or wordless. A method the server lacks came back ``-32601 Method not found`` with the method whole as
``data`` (a method of 300,000 characters: a reply of 300,104 bytes) and named nothing the server serves; params its
check refused for any other method (``tools/list`` with ``"cursor": 5``, ``logging/setLevel`` with a level it
lacks, ``ping`` with ``_meta`` not an object) got a bare ``-32602 Invalid request parameters`` with ``data`` ``""``;
``tools/call`` of a tool ``scratchfs mcp`` lacks said ``Unknown tool: read_handel`` and no more. Each now names
what is wrong and the way on, within 2 KiB, on both faces; the codes stay the SDK's."""

from __future__ import annotations

import json

import pytest

from tests.test_mcp_wire import REPLY_SECONDS, Wire, face_command, req

NO_METHOD, BAD_PARAMS = -32601, -32602
LONG = "x" * 300_000

CASES = [  # (request, code, words the message holds)
    (req(1, "no/such/" + LONG), NO_METHOD, ["Method not found: no/such/xxx", "...; this server serves initialize, "
                                            "ping, tools/list, tools/call"]),
    (req(2, "tools/list", {"cursor": 5}), BAD_PARAMS, ["tools/list's param cursor is malformed (cursor: Input "
                                                       "should be a valid string)"]),
    (req(3, "logging/setLevel", {"level": LONG}), BAD_PARAMS, ["logging/setLevel's param level is malformed "
                                                               "(level: Input should be 'alert', 'critical', 'debug'"]),
    (req(4, "ping", {"_meta": 5}), BAD_PARAMS, ["ping's param _meta is malformed (_meta: Input should be a valid "
                                                "dictionary"]),
    (req(5, "logging/setLevel", {}), BAD_PARAMS, ["logging/setLevel needs the param level"]),
    (req(6, "logging/setLevel"), BAD_PARAMS, ["logging/setLevel takes params, a JSON object: none were given"]),
]


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_protocol_errors_of_any_method_name_the_fault_and_the_way_on_within_2_kib(face, tmp_path):
    wire = Wire(face_command(face, tmp_path))
    try:
        wire.initialize()
        for line, code, words in CASES:
            wire.send(line)
            reply = wire.lines.get(timeout=REPLY_SECONDS)
            rid = json.loads(line)["id"]
            assert (reply["id"], reply["error"]["code"]) == (rid, code), reply
            assert len(json.dumps(reply["error"]).encode()) <= 2048, len(json.dumps(reply["error"]))
            for said in words:
                assert said in reply["error"]["message"], reply
        if face == "mcp":  # (the proxy hands a tool it does not serve to its upstream, which answers in its words)
            wire.send(req(16, "tools/call", {"name": "read_handel", "arguments": {}}))
            reply = wire.lines.get(timeout=REPLY_SECONDS)
            assert reply["error"] == {"code": BAD_PARAMS, "message": (
                "Unknown tool: read_handel (did you mean 'read_handle'?); the tools are read_handle, scratch_delete, "
                "scratch_list, scratch_read, scratch_write")}
            wire.send(req(17, "tools/call", {"name": LONG, "arguments": {}}))
            reply = wire.lines.get(timeout=REPLY_SECONDS)
            assert reply["error"]["message"].startswith("Unknown tool: " + "x" * 97 + "...; the tools are ")
        wire.send(req("ok", "tools/call", {"name": "scratch_list", "arguments": {}}))  # and it serves on
        reply = wire.lines.get(timeout=REPLY_SECONDS)
        assert reply["id"] == "ok" and reply["result"]["structuredContent"]["entries"] == []
        wire.close()
    finally:
        wire.kill()


class _Served:
    """A server of ``methods`` as :func:`~scratchfs.mcp.protocol_errors.served_methods` asks it."""

    def __init__(self, *methods: str) -> None:
        self.methods = methods

    def get_request_handler(self, method: str):
        return object() if method in self.methods else None


def test_a_method_served_that_answers_not_found_passes_as_it_came():
    """A proxy serving prompts/get for its upstream, which answers -32601 after all: the upstream's error goes
    through, not 'Method not found: prompts/get; this server serves ..., prompts/get'."""
    import anyio
    from mcp.shared.exceptions import MCPError

    from scratchfs.mcp.protocol_errors import named_methods

    class Ctx:
        method, params = "prompts/get", {"name": "p"}

    async def upstream_lacks_it(ctx):
        raise MCPError(code=NO_METHOD, message="Method not found", data="prompts/get")

    middleware = named_methods(_Served("ping", "tools/list", "tools/call", "prompts/get"))
    with pytest.raises(MCPError) as raised:
        anyio.run(middleware, Ctx(), upstream_lacks_it)
    assert (raised.value.error.message, raised.value.error.data) == ("Method not found", "prompts/get")
    Ctx.method = "prompts/list"  # (one it lacks: named, with those served)
    with pytest.raises(MCPError) as raised:
        anyio.run(middleware, Ctx(), upstream_lacks_it)
    assert raised.value.error.message == ("Method not found: prompts/list; this server serves initialize, ping, "
                                          "tools/list, tools/call, prompts/get")
