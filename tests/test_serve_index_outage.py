"""``scratchfs serve`` started while PostgreSQL is down (it exited at start-up, as ``mcp`` did before
:mod:`scratchfs.api.deferred_store`): it starts, its store routes and ``/api/health`` answer one 503 with
``Retry-After`` naming the outage and when to retry, and the store opens once the server is back -- without a
restart. A real PostgreSQL server of the test's own, stopped and started; the real ``serve`` process."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore

from .services import postgres_url
from .web_support import serve


def _get(base: str, path: str, token: str) -> tuple[int, Any, dict]:
    """``(status, headers, JSON body)`` of a GET (an HTTP error's too)."""
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as got:
            return got.status, got.headers, json.loads(got.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, json.loads(exc.read())


@pytest.mark.alone(waits=True)  # (its call mostly waits; each 503 within 2 s: a bound of wall-clock time)
def test_serve_starts_without_its_index_answers_503_and_opens_it_when_it_answers(own_postgres_server, tmp_path):
    server = own_postgres_server
    env = {"SCRATCHFS_INDEX": postgres_url(server.dsn, "scratchfs"), "SCRATCHFS_BUSY_TIMEOUT": "2"}
    with ScratchStore(tmp_path / "root", index=env["SCRATCHFS_INDEX"]) as store:  # serve opens an index, makes none
        store.scope("r", "a").scratch_write("k", "written before the outage")
    server.stop()
    with serve(tmp_path / "root", env=env) as (found, _proc):  # before the fix: no URL line, exit code 4
        base, token = f"http://{found.group(2)}:{found.group(3)}", found.group(4)
        for path in ("/api/runs", "/api/stats", "/api/health"):
            started = time.monotonic()
            status, headers, body = _get(base, path, token)
            assert time.monotonic() - started < 2.0  # told at once: a request never waits for an opening
            assert status == 503, (path, status, body)
            assert headers["Retry-After"] == "2", headers
            message = body["error"]["message"]
            assert body["error"]["kind"] == "storage" and message.startswith("the store is not open: "), message
            assert "retry in 2 s" in message and "\n" not in message, message
        status, _, body = _get(base, "/api/runs/r/scratch?limit=0", token)  # a bad argument: still a 400
        assert status == 400 and "limit" in body["error"]["message"], body
        server.start()
        deadline = time.monotonic() + 30
        while (health := _get(base, "/api/health", token))[0] != 200:
            assert time.monotonic() < deadline, f"the store did not open after the server came back: {health}"
            time.sleep(0.3)
        assert _get(base, "/api/health", token)[2] == {"store": "open"}
        status, _, body = _get(base, "/api/runs", token)
        assert status == 200 and [run["run_id"] for run in body["runs"]] == ["r"], body


def test_a_schema_that_holds_no_index_still_ends_serve_at_start_up(own_postgres_server, tmp_path):
    """Only an outage is waited out: a mistyped ?schema= is told at once, as before (exit code 1, nothing made)."""
    from scratchfs.cli import main

    url = postgres_url(own_postgres_server.dsn, "no_such_schema")
    got = CliRunner().invoke(main, ["serve", "--root", str(tmp_path), "--port", "0", "--index", url])
    assert got.exit_code == 1, got.output
    assert "no index schema 'no_such_schema'" in got.output
