"""Helpers for the MCP tests: run async test bodies, connect with the official client in either protocol era.

The SDK serves two protocol eras over stdio: ``ClientSession.initialize()`` speaks the 2025-11-25 handshake, and
``mcp.Client`` (mode ``auto``) negotiates the sessionless 2026-07-28 one. Every MCP test runs under both, but for
the slowest tests of how the proxy treats its upstream (a hung, deaf or flooding one), which do not depend on the
client's era: each runs under one of them (:func:`one_era`), the two taken in turn.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from scratchfs.api.contract import window_hits

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

ERAS = ("2025-11-25", "2026-07-28")
TESTS = Path(__file__).resolve().parent
FAKE_UPSTREAM = [sys.executable, str(TESTS / "mcp_fake_upstream.py")]


def one_era(n: int) -> tuple[str]:
    """The era (``ERAS[n % 2]``) a slow test of the proxy's treatment of its upstream runs under: what it tests
    happens between the proxy and the upstream, the same under either client era, and run under both it cost its
    5-20 s twice (the suite's slowest file); its neighbours take the other era, so both still go through each path
    of the upstream's side."""
    return (ERAS[n % 2],)


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    """Run an async test body; a failure inside the SDK's task groups comes out as itself, not as a group."""
    try:
        return anyio.run(body)
    except BaseExceptionGroup as group:
        leaf: BaseException = group
        while isinstance(leaf, BaseExceptionGroup) and len(leaf.exceptions) == 1:
            leaf = leaf.exceptions[0]
        raise leaf from None


def scratchfs_params(*args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """``python -m scratchfs ARGS...`` as a stdio server, with this process's environment plus ``env``."""
    return StdioServerParameters(command=sys.executable, args=["-m", "scratchfs", *args],
                                 env={**os.environ, **(env or {})})


@asynccontextmanager
async def connect(params: StdioServerParameters, era: str, message_handler: Any = None) -> AsyncIterator[Any]:
    """A connected client in protocol era ``era`` (checked): a ``ClientSession`` or an ``mcp.Client``, which take the
    same ``call_tool`` / ``list_tools`` calls."""
    if era == "2025-11-25":
        async with stdio_client(params) as (read_stream, write_stream), \
                ClientSession(read_stream, write_stream, message_handler=message_handler) as session:
            await session.initialize()
            assert session.protocol_version == era
            yield session
    else:
        async with Client(params, message_handler=message_handler) as client:
            assert client.protocol_version == era
            yield client


class Shared:
    """A client connected once and kept across tests (a module-scoped fixture's): its event loop runs in a thread
    of its own (an anyio blocking portal), and each test runs its async body there with :meth:`run`. For tests
    that neither kill nor poison the server: a server (and an upstream) started per test cost their start-up each
    time, the suite's largest share of MCP test time."""

    def __init__(self, portal: Any, client: Any) -> None:
        self.portal, self.client = portal, client

    def run(self, body: Callable[[Any], Awaitable[Any]]) -> Any:
        """``await body(client)`` on the client's event loop; its result or its exception, here."""
        return self.portal.call(body, self.client)


@contextmanager
def shared_client(params: StdioServerParameters, era: str) -> Iterator[Shared]:
    """A :class:`Shared` client of the server ``params`` start, in protocol era ``era``; closed (the server's stdin
    ended, as a client ends it) when the block ends."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal, portal.wrap_async_context_manager(connect(params, era)) as client:
        yield Shared(portal, client)


def payload(result: Any) -> dict:
    """The JSON object of a successful scratchfs tool result, its structured content, checked to equal its text's
    but for ``calls`` (the calls its note names, as data: in the structured content alone)."""
    assert not result.is_error, result.content
    (block,) = result.content
    value = result.structured_content
    assert json.loads(block.text) == {key: item for key, item in value.items() if key != "calls"}, block.text
    return value


def error_of(result: Any) -> str:
    """The text of a tool error (asserting it is one)."""
    assert result.is_error, result.content
    (block,) = result.content
    return block.text


async def read_all(client: Any, handle: str, length: int = 65536) -> bytes:
    """Every byte of a spilled result, read back by range through ``read_handle`` (text, or base64 pieces)."""
    import base64

    out = bytearray()
    offset: int | None = 0
    while offset is not None:
        piece = payload(await client.call_tool("read_handle", {"handle": handle, "offset": offset, "length": length}))
        assert piece["offset"] == len(out)
        out += base64.b64decode(piece["data"]) if piece.get("encoding") == "base64" else piece["data"].encode()
        assert piece["length"] == len(out) - piece["offset"]
        offset = piece["next_offset"]
    return bytes(out)


async def search_all(client: Any, handle: str, needle: str, context: int = 50) -> list[dict]:
    """Every match window of ``needle``, following ``next_offset`` until no match is left."""
    windows: list[dict] = []
    offset: int | None = 0
    while offset is not None:
        found = payload(await client.call_tool("read_handle", {"handle": handle, "match": needle, "offset": offset,
                                                               "context": context, "max_matches": 50}))
        windows += found["windows"]
        offset = found["next_offset"]
    return windows


def match_offsets(windows: list[dict]) -> list[int]:
    """The offset of every match in a list of (possibly merged) windows."""
    return [m["offset"] for w in windows for m in window_hits(w)]


def window_is_exact(window: dict, data: bytes) -> bool:
    """The window's text is the original bytes at its offset, and holds each of its matches."""
    lo, hi = window["offset"], window["offset"] + window["length"]
    hits = window_hits(window)
    return (window["data"].encode() == data[lo:hi] and window["line"] == hits[0]["line"]
            and all(lo <= m["offset"] and m["offset"] + m["length"] <= hi for m in hits))


def find_all(data: bytes, needle: bytes) -> list[int]:
    """Offsets of the non-overlapping matches of ``needle`` in ``data`` (the plain Python answer)."""
    out, i = [], data.find(needle)
    while i >= 0:
        out.append(i)
        i = data.find(needle, i + len(needle))
    return out


def client_params(*args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """``python -m scratchfs ARGS...`` as an MCP client configuration starts it: the SDK's minimal default
    environment (``mcp.client.stdio.get_default_environment``: HOME, PATH, ...) plus ``env``, nothing of this
    process's ``SCRATCHFS_*``; run from the repository so that ``-m scratchfs`` is this checkout's."""
    from mcp.client.stdio import get_default_environment

    return StdioServerParameters(command=sys.executable, args=["-m", "scratchfs", *args],
                                 env={**get_default_environment(), **(env or {})}, cwd=str(TESTS.parent))


_RAW_UPSTREAM = '''import json, sys
{prelude}
TOOLS = {tools!r}
for raw in sys.stdin:
    msg = json.loads(raw)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
{initialize}        result = {{"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {{"tools": {{}}}},
                  "serverInfo": {{"name": {name!r}, "version": "1"}}}}
    elif msg["method"] == "tools/list":
        result = {{"tools": TOOLS}}
    else:
        name, arguments = msg["params"]["name"], msg["params"].get("arguments") or {{}}
{call}
    print(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": result}}), flush=True)
'''


def raw_upstream(name: str, tools: list[dict], call: str, prelude: str = "", initialize: str = "") -> str:
    """The source of a fake upstream MCP server in plain Python, without the SDK (it starts in a tenth of a second
    and writes exactly what a test asks, malformed answers included): it reads one JSON-RPC message a line from
    stdin, passes over notifications, answers ``initialize`` (the client's protocol version, a tools capability,
    serverInfo ``name``; after running the statements ``initialize``) and ``tools/list`` (``tools``), and for a
    ``tools/call`` runs the statements ``call`` with ``msg``, the tool's ``name`` and its ``arguments`` (a dict) set:
    they set ``result``, the answer's, or write their own lines and ``continue``. ``prelude``: statements run first
    (imports, ``sys.argv``). The one handshake of the tests' upstreams (bench/proxy_flood.py keeps a copy)."""
    import textwrap

    def body(text: str) -> str:  # statements, indented into the loop's branch
        return textwrap.indent(textwrap.dedent(text).strip(), " " * 8)

    return _RAW_UPSTREAM.format(prelude=textwrap.dedent(prelude).strip(), tools=tools, name=name,
                                initialize=body(initialize) + "\n" if initialize.strip() else "", call=body(call))


@contextmanager
def held_launcher(upstream: Any) -> Iterator[Any]:
    """The launcher of ``upstream`` (a ``psutil.Process``; its parent, scratchfs.mcp.launch) SIGSTOPped for the
    block, then SIGKILLed, with the upstream, however the block ends (Linux: ``PR_SET_PDEATHSIG``).

    Held, the launcher acts neither on the proxy's SIGTERM nor on the proxy's death; a SIGKILL alone -- the end of
    the proxy's own stop -- ends it, and the kernel then SIGKILLs the upstream. So a deaf upstream is gone once the
    proxy exits only if the proxy's stop, SIGKILL included, ran within the 2 s its client gives it before it kills
    the proxy: the launcher, free, stops an upstream whose proxy died (tests/test_mcp_proxy_stop.py), and a proxy
    too slow to stop its upstream (``STOP_SECONDS`` 10) or one that never killed it passed the test all the same."""
    import psutil

    launcher = upstream.parent()
    assert launcher is not None and "launch.py" in " ".join(launcher.cmdline()), launcher
    launcher.suspend()
    try:
        yield launcher
    finally:
        for process in (launcher, upstream):
            try:
                process.kill()
            except psutil.NoSuchProcess:
                pass


def still_running(processes: list[Any], seconds: float) -> list[Any]:
    """Those of ``processes`` (``psutil.Process``) still running after up to ``seconds``: neither gone nor a zombie
    (one dead whose parent died too, waiting for init to reap it, as a held launcher's upstream)."""
    import time

    import psutil

    def running(process: Any) -> bool:
        try:
            return process.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    deadline = time.monotonic() + seconds
    while (left := [p for p in processes if running(p)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left
