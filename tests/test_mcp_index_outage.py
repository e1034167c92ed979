"""``scratchfs mcp`` and ``mcp-proxy`` started while PostgreSQL is down (a fleet trial: both exited at start-up, and
the proxy took every upstream tool with it): they start and serve, the store's own tools answer one ``storage``
error naming the outage and when to retry, the proxy passes upstream results through whole, and the store opens
once the server is back -- without a restart. A real PostgreSQL server of the test's own, stopped and started."""

from __future__ import annotations

import json
import time

import anyio
import pytest

from .mcp_fake_upstream import big_text
from .mcp_support import FAKE_UPSTREAM, connect, error_of, payload, read_all, run, scratchfs_params
from .services import postgres_url

pytestmark = pytest.mark.alone

OUTAGE = "storage: the store is not open: the index database failed while connecting to it"


async def until_open(client, deadline: float = 30.0) -> dict:
    """Call scratch_write until the store answers (it opens in the background once the server is back)."""
    started = time.monotonic()
    while True:
        result = await client.call_tool("scratch_write", {"key": "k", "value": "after the outage"})
        if not result.is_error:
            return payload(result)
        assert error_of(result).startswith(OUTAGE), error_of(result)
        assert time.monotonic() - started < deadline, "the store did not open after the server came back"
        await anyio.sleep(0.5)


def test_the_mcp_server_starts_without_its_index_and_opens_it_when_it_answers(own_postgres_server, tmp_path):
    server = own_postgres_server
    server.stop()
    params = scratchfs_params("mcp", "--root", str(tmp_path), "--run", "r", "--agent", "a", "--busy-timeout", "2",
                              env={"SCRATCHFS_INDEX": postgres_url(server.dsn, "scratchfs")})

    async def body():
        async with connect(params, "2025-11-25") as client:
            started = time.monotonic()
            result = await client.call_tool("scratch_write", {"key": "k", "value": "during the outage"})
            text = error_of(result)
            assert text.startswith(OUTAGE), text
            assert "retry in 2 s" in text and "\n" not in text, text
            assert time.monotonic() - started < 2.0  # told at once: the call never waits for an opening
            assert error_of(await client.call_tool("scratch_read", {"key": "k"})).startswith(OUTAGE)
            server.start()
            await until_open(client)
            assert payload(await client.call_tool("scratch_read", {"key": "k"}))["data"] == "after the outage"

    run(body)


def test_the_proxy_passes_upstream_results_through_until_its_index_answers(own_postgres_server, tmp_path):
    server = own_postgres_server
    server.stop()
    params = scratchfs_params("mcp-proxy", "--root", str(tmp_path), "--run", "r", "--agent", "a",
                              "--busy-timeout", "2", "--", *FAKE_UPSTREAM,
                              env={"SCRATCHFS_INDEX": postgres_url(server.dsn, "scratchfs")})
    expected = big_text(20_000)

    async def body():
        async with connect(params, "2026-07-28") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"big", "read_handle", "scratch_write"} <= names
            whole = await client.call_tool("big", {"size": 20_000})  # would be spilled: goes through whole
            assert not whole.is_error and [block.text for block in whole.content] == [expected]
            assert error_of(await client.call_tool("scratch_list", {})).startswith(OUTAGE)
            server.start()
            await until_open(client)
            spilled = await client.call_tool("big", {"size": 20_000})
            stub = json.loads(spilled.content[0].text)
            assert await read_all(client, stub["handle"]) == expected.encode()

    run(body)


def test_a_setting_to_fix_still_ends_the_server_at_start_up(own_postgres_server, tmp_path):
    """Only an outage is waited out: a database that does not exist is told at once, as before (exit code 4)."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    url = postgres_url(own_postgres_server.dsn, "scratchfs").replace("/postgres?", "/no_such_database?")
    got = CliRunner().invoke(main, ["mcp", "--root", str(tmp_path), "--run", "r", "--agent", "a", "--index", url])
    assert got.exit_code == 4, got.output
    assert "no_such_database" in got.output
