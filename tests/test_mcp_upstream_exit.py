"""An upstream that exits mid-session: the call it was answering and every later call to its tools get an error that
says how it ended -- its exit code, or the signal that killed it -- and how to go on, through a real MCP session with
``scratchfs mcp-proxy``.

Before, each said only ``the server exited or closed its connection``: a crash, a clean exit, an out-of-memory kill
and a closed stdout read alike.
"""

from __future__ import annotations

import signal
import sys

import anyio
import psutil
import pytest

from scratchfs.mcp.upstream import NOT_AGAIN

from .mcp_support import ERAS, FAKE_UPSTREAM, connect, error_of, one_era, payload, run, scratchfs_params

ERROR_BYTES = 400
"""The most bytes such an error's text may take (the longest command here included)."""


def proxy(root, upstream=FAKE_UPSTREAM):
    return scratchfs_params("mcp-proxy", "--root", str(root), "--timeout", "20", "--", *upstream)


def fake_upstreams() -> list[psutil.Process]:
    """This test's fake upstream processes (not their launchers, whose command lines name them too)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.cmdline()[1:2] == FAKE_UPSTREAM[1:]:
                found.append(child)
        except (psutil.NoSuchProcess, IndexError):
            pass
    return found


def check(text: str, words: str) -> None:
    assert text.startswith(f"upstream unavailable: {FAKE_UPSTREAM[0]}: {words}"), text
    assert text.endswith(NOT_AGAIN) and len(text.encode()) <= ERROR_BYTES, text


@pytest.mark.parametrize("era", one_era(0))  # (between the proxy and its upstream: tests/mcp_support.py)
def test_an_upstream_that_exits_mid_call_is_said_to_have_exited_with_its_code(era, tmp_path):
    async def body():
        async with connect(proxy(tmp_path), era) as client:
            check(error_of(await client.call_tool("crash", {})), "the server exited with code 3;")  # (os._exit(3))
            check(error_of(await client.call_tool("big", {"size": 10})), "the server exited with code 3;")
            payload(await client.call_tool("scratch_write", {"key": "still", "value": "here"}))  # its own tools

    run(body)


@pytest.mark.parametrize("era", one_era(1))  # (between the proxy and its upstream)
def test_an_upstream_killed_under_a_pending_call_is_said_to_be_killed_by_its_signal(era, tmp_path):
    async def body():
        async with connect(proxy(tmp_path), era) as client:
            assert not (await client.call_tool("big", {"size": 10})).is_error  # (started, answering)
            (upstream,) = fake_upstreams()
            texts = []

            async def pending() -> None:
                texts.append(error_of(await client.call_tool("sleep", {"seconds": 60})))

            async with anyio.create_task_group() as group:
                group.start_soon(pending)
                await anyio.sleep(0.5)
                upstream.send_signal(signal.SIGKILL)
            check(texts[0], "the server was killed by SIGKILL;")
            check(error_of(await client.call_tool("big", {"size": 10})), "the server was killed by SIGKILL;")

    run(body)


def test_an_upstream_that_exits_during_its_start_is_said_to_have_exited_with_its_code(tmp_path):
    upstream = [sys.executable, "-c", "import sys; sys.exit(5)"]

    async def body():
        async with connect(proxy(tmp_path, upstream), ERAS[0]) as client:
            text = error_of(await client.call_tool("git_log", {}))
            assert text == f"upstream unavailable: {sys.executable}: the server exited with code 5 during start-up" \
                           f"{NOT_AGAIN}", text

    run(body)


def test_exit_words():
    from scratchfs.mcp.upstream import exit_words

    assert exit_words(None) == "the server exited or closed its connection"
    assert exit_words(0) == "the server exited with code 0"
    assert exit_words(128 + 9) == "the server was killed by SIGKILL"
    assert exit_words(128 + 99) == "the server exited with code 227"  # (no signal 99)
    assert exit_words(-15) == "its launcher was killed by SIGTERM"
