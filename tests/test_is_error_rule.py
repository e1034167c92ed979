"""``isError`` of an MCP tool result as a ``dict`` means what the MCP SDK's ``CallToolResult`` makes of it, on every
face: ``bool(content.get("isError"))`` took ``"false"`` (a string) for an error, so the adapter and ``offload``
passed a 20 KiB result through unspilled that ``mcp-proxy`` -- whose results the SDK validated, ``"false"`` read
as ``False`` -- spilled. One rule (:func:`scratchfs.api.policy.mcp_is_error`), checked against the SDK."""

from __future__ import annotations

import mcp_types as types
import pytest
from pydantic import ValidationError

from scratchfs import Observation, should_spill
from scratchfs.adapter import Offloader

_VALUES = ["false", "False", "FALSE", "no", "off", "0", "f", "n", "true", "yes", "on", "1", "t", "y", "", "maybe",
           " false", 0, 1, 2, -1, 0.0, 1.0, 1.5, True, False, None, [], {}, ["false"]]


def _sdk_reading(value: object) -> bool | None:
    """What the SDK's validation makes of ``isError: value``: the boolean, or ``None`` when it refuses it."""
    try:
        return types.CallToolResult.model_validate({"content": [], "isError": value}).is_error
    except ValidationError:
        return None


@pytest.mark.parametrize("value", _VALUES, ids=repr)
def test_every_face_reads_is_error_as_the_mcp_sdk_does(value, scratch_scope):
    sdk = _sdk_reading(value)
    error = sdk is not False and value is not None  # (a value the SDK refuses: no MCP result, passed through)
    big = [{"type": "text", "text": "E: failed\n" * 2_000}]
    result = {"content": big, "isError": value}
    assert should_spill(Observation("t", result, result_class="query")) is not error
    out = scratch_scope.offload(Observation("t", result, result_class="query"))
    assert (out.stub is None and out.content is result) is error
    assert (Offloader(scratch_scope, default_class="query").wrap(lambda: result, name="mcp_tool")() is result) is error
    if sdk is not None:  # the proxy's face: the SDK's result, read so already
        from scratchfs.mcp.proxy import ProxyConfig, spill_result

        upstream = types.CallToolResult(content=[types.TextContent(text=big[0]["text"])], is_error=sdk)
        assert (spill_result(scratch_scope, ProxyConfig(command="x"), "t", upstream) is upstream) is error


def test_a_string_false_is_no_error_and_is_spilled(scratch_scope):
    """The fault: ``{"content": [...], "isError": "false"}`` was never spilled, counted as an error result."""
    result = {"content": [{"type": "text", "text": "row\n" * 6_000}], "isError": "false"}
    out = scratch_scope.offload(Observation("t", result, result_class="query"))
    assert out.stub is not None


@pytest.mark.parametrize("value", _VALUES, ids=repr)
def test_the_one_rule_is_the_sdk_s(value):
    from scratchfs.api.policy import mcp_is_error

    assert mcp_is_error(value) is (_sdk_reading(value) is not False and value is not None)
