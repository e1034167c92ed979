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

OUTAGE = "storage: the store is not open: the index database failed while connecting to it"


async def until_open(client, deadline: float = 30.0, outage: str = OUTAGE) -> dict:
    """Call scratch_write until the store answers (it opens in the background once the server is back); until then
    each call is the ``outage`` error."""
    started = time.monotonic()
    while True:
        result = await client.call_tool("scratch_write", {"key": "k", "value": "after the outage"})
        if not result.is_error:
            return payload(result)
        assert error_of(result).startswith(outage), error_of(result)
        assert time.monotonic() - started < deadline, "the store did not open after the server came back"
        await anyio.sleep(0.1)  # (the store tries every RETRY_SECONDS: told within a tenth of a second of it)


@pytest.mark.alone  # (told within 2 s: a bound of wall-clock time; the others bound none)
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
                              "--busy-timeout", "2", "--passthrough-max-bytes", "32KiB", "--", *FAKE_UPSTREAM,
                              env={"SCRATCHFS_INDEX": postgres_url(server.dsn, "scratchfs")})
    expected = big_text(20_000)

    async def body():
        async with connect(params, "2026-07-28") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"big", "read_handle", "scratch_write"} <= names
            whole = await client.call_tool("big", {"size": 20_000})  # would be spilled: goes through whole
            assert not whole.is_error and [block.text for block in whole.content] == [expected]
            # past --passthrough-max-bytes (32 KiB; the default 64 KiB would pass it whole): a preview and a notice
            (notice,) = (await client.call_tool("big", {"size": 40_000})).content
            told = json.loads(notice.text)
            assert told["stored"] is False and told["size"] == len(big_text(40_000).encode())
            assert big_text(40_000).startswith(told["preview"]) and len(notice.text.encode()) <= 1536
            assert error_of(await client.call_tool("scratch_list", {})).startswith(OUTAGE)
            server.start()
            await until_open(client)
            spilled = await client.call_tool("big", {"size": 20_000})
            stub = json.loads(spilled.content[0].text)
            assert await read_all(client, stub["handle"]) == expected.encode()

    run(body)


BAD_CALLS = [
    ("scratch_write", {"key": "k"}, "'value' is a required property"),
    ("scratch_write", {"key": "é" * 300, "value": "v"}, "key"),  # 600 bytes: the schema counts 300 characters
    ("scratch_write", {"key": "k", "value": "v", "ttl": 0}, "ttl"),
    ("scratch_read", {"key": "a\x00b"}, "key"),
    ("read_handle", {"handle": "not-a-handle"}, "not a handle"),
    ("read_handle", {"handle": "h_" + "a" * 24, "line": 1, "match": "x"}, "a line read takes"),
    ("read_handle", {"handle": "h_" + "a" * 24, "count": True, "lines": 3}, "count cannot be combined"),
    ("read_handle", {"handle": "h_" + "a" * 24, "jq": ".", "line": 2}, "cannot be mixed with a structure read"),
]


def test_a_call_with_bad_arguments_is_told_its_mistake_during_the_outage(own_postgres_server, tmp_path):
    """The arguments are checked before the store is reached: a model learns of its mistake at once, not of an
    outage it would wait out only to meet the mistake then (before the fix: every one of these was the outage)."""
    server = own_postgres_server
    server.stop()
    params = scratchfs_params("mcp", "--root", str(tmp_path), "--run", "r", "--agent", "a", "--busy-timeout", "2",
                              env={"SCRATCHFS_INDEX": postgres_url(server.dsn, "scratchfs")})

    async def body():
        async with connect(params, "2025-11-25") as client:
            for name, arguments, words in BAD_CALLS:
                text = error_of(await client.call_tool(name, arguments))
                assert text.startswith("invalid argument: ") and words in text, (name, arguments, text)
            good = await client.call_tool("read_handle", {"handle": "h_" + "a" * 24, "line": 1})
            assert error_of(good).startswith(OUTAGE)  # a call without a mistake meets the outage

    run(body)


def test_a_setting_to_fix_still_ends_the_server_at_start_up(own_postgres_server, tmp_path):
    """Only an outage is waited out: a database that does not exist is told at once, as before (exit code 4)."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    url = postgres_url(own_postgres_server.dsn, "scratchfs").replace("/postgres?", "/no_such_database?")
    got = CliRunner().invoke(main, ["mcp", "--root", str(tmp_path), "--run", "r", "--agent", "a", "--index", url])
    assert got.exit_code == 4, got.output
    assert "no_such_database" in got.output


BUSY = "storage: the store is not open: "


def test_a_postgres_index_locked_past_the_busy_timeout_at_start_up_is_waited_out(own_postgres_server, tmp_path):
    """A lock held on the index's tables (a migration or an admin's statement elsewhere) makes the opening's read of
    its schema version fail with lock_timeout (StoreBusy): transient, served through and tried again like an outage
    (before the fix: the server exited at start-up, exit code 4)."""
    import psycopg

    from scratchfs import ScratchStore

    url = postgres_url(own_postgres_server.dsn, "scratchfs")
    ScratchStore(tmp_path / "made", index=url).close()
    params = scratchfs_params("mcp", "--root", str(tmp_path / "root"), "--run", "r", "--agent", "a",
                              "--busy-timeout", "1", env={"SCRATCHFS_INDEX": url})
    with psycopg.connect(own_postgres_server.dsn) as holder:
        holder.execute("LOCK TABLE scratchfs.schema_version IN ACCESS EXCLUSIVE MODE")  # (a transaction: held)

        async def during():
            async with connect(params, "2025-11-25") as client:
                text = error_of(await client.call_tool("scratch_list", {}))
                assert text.startswith(BUSY) and "stayed busy past the busy timeout" in text, text
                holder.rollback()  # the lock is released: the next attempt opens the store
                await until_open(client, outage=BUSY)
                assert payload(await client.call_tool("scratch_read", {"key": "k"}))["data"] == "after the outage"

        run(during)


def test_a_sqlite_schema_lock_held_at_start_up_is_waited_out(tmp_path):
    """Many servers starting on a new root at once: one holds the schema lock while it creates the index; another
    that waits past its busy timeout (StoreBusy) serves and opens the store once the lock is free (before the fix:
    it exited at start-up)."""
    from filelock import FileLock

    root = tmp_path / "root"
    (root / "locks").mkdir(parents=True, mode=0o700)
    root.chmod(0o700)
    lock = FileLock(str(root / "locks" / "index.lock"))
    lock.acquire()
    params = scratchfs_params("mcp", "--root", str(root), "--run", "r", "--agent", "a", "--busy-timeout", "1")

    async def body():
        async with connect(params, "2025-11-25") as client:
            text = error_of(await client.call_tool("scratch_list", {}))
            assert text.startswith(BUSY) and "schema lock" in text, text
            lock.release()
            await until_open(client, outage=BUSY)

    try:
        run(body)
    finally:
        lock.release(force=True)


def test_a_postgres_role_at_its_connection_limit_at_start_up_is_waited_out(own_postgres_server, tmp_path):
    """PostgreSQL refusing with too many connections (53300, here the role's limit) is busy for now, not a setting:
    served through and opened once a connection is free (a guard: flagged ``unavailable``, it was waited out before
    the StoreBusy change too)."""
    import psycopg

    from scratchfs import ScratchStore

    ScratchStore(tmp_path / "made", index=postgres_url(own_postgres_server.dsn, "scratchfs")).close()
    with psycopg.connect(own_postgres_server.dsn, autocommit=True) as admin:
        admin.execute("CREATE ROLE runtime LOGIN CONNECTION LIMIT 0")
        admin.execute("GRANT USAGE ON SCHEMA scratchfs TO runtime")
        admin.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA scratchfs TO runtime")
        admin.execute("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA scratchfs TO runtime")
        url = postgres_url(own_postgres_server.dsn.replace("user=postgres", "user=runtime"), "scratchfs")
        params = scratchfs_params("mcp", "--root", str(tmp_path / "root"), "--run", "r", "--agent", "a",
                                  "--busy-timeout", "1", env={"SCRATCHFS_INDEX": url})

        async def body():
            async with connect(params, "2025-11-25") as client:
                text = error_of(await client.call_tool("scratch_list", {}))
                assert text.startswith(BUSY), text
                admin.execute("ALTER ROLE runtime CONNECTION LIMIT -1")
                await until_open(client, outage=BUSY)

        run(body)
