"""A request line too long for the MCP server (over 32 MiB) is answered with the request's own id, read from the
line's start, so that the SDK client's call fails at once instead of waiting for a reply it can match; and the
scratch_write tool tells the model the limit before it walks into it."""

from __future__ import annotations

import time

import pytest
from mcp import MCPError

from scratchfs.foundation.limits import MAX_MESSAGE_BYTES
from scratchfs.mcp.request_ids import HEAD_BYTES, id_at_start
from tests.cpu_time import best_cpu

from .mcp_support import ERAS, connect, run, scratchfs_params


@pytest.mark.parametrize(("head", "rid"), [
    (b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"value":"aaaa', 2),
    (b'\xef\xbb\xbf {"id" : "call-\xc3\xa9", "jsonrpc":"2.0","method":"x","params":{"v":"', "call-\u00e9"),
    (b'{"jsonrpc":"2.0","params":{"id":7,"v":"aaa', None),  # a nested id is no request's
    (b'{"jsonrpc":"2.0","id":12', None),  # the number may go on past the head
    (b'{"jsonrpc":"2.0","method":"x","id":12', None),  # (so may this one)
    (b'{"jsonrpc":"2.0","method":"x","id":12' + b" " * HEAD_BYTES, 12),  # blanks end it, up to the head's end
    (b'{"jsonrpc":"2.0","method":"x","id":12\r\n\t ' + b" " * HEAD_BYTES, 12),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"x","params":{"v":"', None),
    (b'{"jsonrpc":"2.0","id":true,"method":"x","params":{"v":"', None),
    (b'{"jsonrpc":"2.0","id":"\\ud800","method":"x","params":{"v":"', None),
    (b'{"jsonrpc":"2.0","id":' + b"9" * 5000, None),  # (ijson's C backend crashes on such a number)
    (b'{"jsonrpc":"2.0","id":3,"id":4,"method":"x","params":{"v":"', None),
    (b'{"jsonrpc":"2.0","result":{"id":3,"v":"', None),
    (b'{"jsonrpc":"2.0","id":5,"result":{"v":"', None),  # a response: its id is of the server's requests
    (b'{"jsonrpc":"2.0","id":6,"params":{"v":"', None),  # no method named: maybe a response
    (b'{"jsonrpc":"2.0","id":6,"params":{"v":"x"},"method":"x","v":"', 6),
    (b'[{"jsonrpc":"2.0","id":3,"method":"x","params":{"v":"', None),
    (b"not json at all", None),
    (b"", None),
])
def test_the_id_is_read_from_the_start_of_a_line_too_long_to_read(head, rid):
    assert id_at_start(head) == rid
    assert id_at_start(head[:HEAD_BYTES]) == rid


@pytest.mark.parametrize("era", ERAS)  # (no `alone` mark: 60 s is many times the second it takes; the fault hung)
def test_the_sdk_client_gets_its_error_at_once_for_a_value_over_the_line_limit(era, tmp_path):
    """A new user's ``call_tool("scratch_write", {"key": "big2", "value": "a" * 33 * 2**20})`` waited 20 s and more:
    the reply carried ``"id": null``; now the call fails at once (seconds, the line's transfer) and the server goes
    on."""
    value = "a" * (MAX_MESSAGE_BYTES + 2**20)

    async def body() -> None:
        async with connect(scratchfs_params("--root", str(tmp_path), "mcp", "--run", "r", "--agent", "a",
                                            "--sweep-interval", "0"), era) as client:
            started = time.monotonic()
            with anyio_fail_after(60), pytest.raises(MCPError) as caught:
                await client.call_tool("scratch_write", {"key": "big2", "value": value})
            assert time.monotonic() - started < 60
            assert caught.value.error.code == -32600
            assert str(MAX_MESSAGE_BYTES) in caught.value.error.message
            result = await client.call_tool("scratch_write", {"key": "small", "value": "x"})
            assert not result.is_error

    run(body)


def anyio_fail_after(seconds: float):
    import anyio

    return anyio.fail_after(seconds)


@pytest.mark.parametrize("head", [b"[" * HEAD_BYTES, b'{"jsonrpc":"2.0","method":"x","id":' + b"[" * HEAD_BYTES,
                                  b'{"method":"x","params":' + b'{"a":' * HEAD_BYTES])
def test_the_id_of_a_deeply_nested_head_is_looked_for_in_bounded_time(head):
    """ijson's ``parse`` builds each event's prefix ("item.item.item..."): 4,096 '[' took 116 ms a line, more
    than reading the 32 MiB line itself; the id is read from ``basic_parse``'s events and a depth (2 to 7 ms). The
    least thread CPU time of 3 reads: one wall-clock read measured the scheduler too (4 to 19 ms beside a busy core,
    of a 30 ms bound)."""
    head = head[:HEAD_BYTES]

    def look() -> None:
        assert id_at_start(head) is None

    best = best_cpu(look)
    assert best < 0.03, best


def test_an_id_after_nested_members_is_the_top_level_one():
    head = b'{"params":{"a":[1,{"id":3}],"id":5},"method":"m","id":4,"v":"' + b"a" * HEAD_BYTES
    assert id_at_start(head[:HEAD_BYTES]) == 4
    assert id_at_start(b'{"method":"m","id":{"id":4},"v":"' + b"a" * HEAD_BYTES) is None
