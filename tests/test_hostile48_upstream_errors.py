"""hostile48: the upstream's own JSON-RPC errors reach the client within the wire's error bound.

``scratchfs mcp-proxy`` passed an upstream's JSON-RPC error through whole: the test upstream's ``Unknown tool: NAME``
for a tool name of 100,000 characters came back as an error of 100 KB (``scratchfs mcp``'s own is 270 bytes), and an
upstream may write an error of any size. Now its message and data together are at most
:data:`scratchfs.mcp.protocol_errors.MOST_ERROR_BYTES` of JSON text, its code kept, and a small error unchanged.
"""

from __future__ import annotations

import json

import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp_support import ERAS, FAKE_UPSTREAM, connect, run, scratchfs_params

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("era", ERAS)
def test_an_upstream_error_is_bounded(tmp_path, era: str) -> None:
    params = scratchfs_params("mcp-proxy", "--root", str(tmp_path / "root"), "--", *FAKE_UPSTREAM)

    async def body() -> tuple[MCPError, MCPError]:
        async with connect(params, era) as client:
            await client.list_tools()
            with pytest.raises(MCPError) as long_error:
                await client.call_tool("y" * 100_000, {})
            with pytest.raises(MCPError) as small_error:
                await client.call_tool("json_error", {})
            return long_error.value, small_error.value

    long_error, small_error = run(body)
    said = json.dumps({"message": long_error.error.message, "data": long_error.error.data}, ensure_ascii=False)
    assert len(said.encode()) <= 2048
    assert long_error.error.code == -32602  # the upstream's code, kept
    assert long_error.error.message.startswith("Unknown tool: yyy")
    assert "100,0" in long_error.error.message  # how long the upstream's message was
    assert small_error.error.code == -32602
    assert small_error.error.message == "fake upstream rejects this"


@pytest.mark.parametrize("data", [None, {"elicitations": [{"url": "https://example.org/x"}]}, "d" * 50_000])
@pytest.mark.parametrize("char", ["y", "\u65e5", "\x00"])
def test_bounded_error_fits_and_keeps_small_data(data, char: str) -> None:
    from scratchfs.mcp.protocol_errors import MOST_ERROR_BYTES, bounded_error

    message, kept = bounded_error(-32042, char * 30_000, data)
    assert len(json.dumps({"message": message, "data": kept}, ensure_ascii=False).encode()) <= MOST_ERROR_BYTES
    assert message.startswith(char * 10) and "30,000 characters" in message
    assert kept == (None if data == "d" * 50_000 else data)
    assert ("its data left out" in message) == (data == "d" * 50_000)
    assert bounded_error(-1, "short", {"a": 1}) == ("short", {"a": 1})
