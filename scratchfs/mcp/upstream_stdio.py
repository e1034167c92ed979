"""The proxy's stdio connection to its upstream MCP server: the SDK's ``stdio_client``, with lines read in linear time.

The SDK's client joins each 64 KiB chunk of the upstream's stdout to the text not yet split (``buffer + chunk``), so a
line of n bytes costs O(n**2 / 64 KiB): a 50 MB tool result took 33 s to read, a 200 MB one about nine minutes, and
meanwhile every other answer of the upstream waited behind it (the calls failed ``no answer within --timeout``). It
also decodes strictly, so a byte that is not UTF-8 ended its reader. :func:`upstream_stdio` reads bytes into one
growing buffer and splits each line once; a line is decoded with U+FFFD for a bad byte; a line longer than
:data:`~scratchfs.foundation.limits.MAX_UPSTREAM_MESSAGE_BYTES` is skipped as it arrives and logged; log
notifications, and progress beyond 20 a second a request, are dropped unread (:mod:`scratchfs.mcp.notice_gate`). The
process is started through :mod:`scratchfs.mcp.launch`, which runs it in a session of its own and stops it, and the
children it keeps in its process group, when the proxy dies -- a SIGKILLed proxy left a busy upstream running for as
long as its call lasted --; the proxy stops it as the SDK does (stdin closed, then SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import socket
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from scratchfs.foundation.limits import MAX_UPSTREAM_MESSAGE_BYTES
from scratchfs.mcp.notice_gate import ANSWER_HEAD, NoticeGate

log = logging.getLogger(__name__)

STOP_SECONDS = 0.5
"""Seconds the upstream has to exit once its stdin is closed, and again after SIGTERM, before it is killed: the
whole stop fits in the 2 s a client (the SDK's ``stdio_client``) gives the proxy once it closed the proxy's stdin,
before it terminates the proxy -- with 2 s, an upstream that no longer read its stdin outlived a proxy killed first
(it runs in a session of its own, out of reach of its client's kill)."""
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A surrogate in a Python string parsed from JSON: always a lone one (the parser joins each pair)."""
MALFORMED = -32099
"""Code of the JSON-RPC error that stands for an answer of the upstream that could not be read (the proxy reports
its call as ``upstream unavailable: ...: malformed answer``)."""
MALFORMED_MARK = f"scratchfs-malformed-{secrets.token_hex(8)}"
"""The ``data`` of that error: an upstream's own error of code :data:`MALFORMED` (a code any server may use) has
none of it, and passes through as the upstream's error."""
LAUNCH_GRACE = 0.6 * STOP_SECONDS
"""Seconds the launcher gives the upstream between its SIGTERM and its SIGKILL: within the :data:`STOP_SECONDS` the
proxy's stop gives the launcher once it signalled it (:mod:`scratchfs.mcp.launch`)."""
HANDSHAKE_VERSION = "2025-11-25"
"""The protocol version the proxy's client session asks its upstream for (``ClientSession.initialize``)."""


def split_lines(buffer: bytearray, chunk: bytes, limit: int, skipping: bool) -> tuple[list[bytes], bool]:
    """Append ``chunk`` to ``buffer`` and take the whole lines out of it (without their newlines).

    ``skipping``: the line in progress is longer than ``limit`` and is being dropped. Returns the lines and the new
    ``skipping``; a line over ``limit`` is logged once and never returned.
    """
    lines: list[bytes] = []
    start = len(buffer)
    buffer += chunk
    while True:
        end = buffer.find(b"\n", start)
        if end < 0:
            break
        if not skipping:
            lines.append(bytes(buffer[:end]))
        skipping = False
        del buffer[: end + 1]
        start = 0
    if len(buffer) > limit:
        if not skipping:
            log.warning("scratchfs mcp-proxy: skipped a line of the upstream longer than %d bytes", limit)
        skipping = True
        buffer.clear()
    return lines, skipping


def parse_line(line: bytes) -> list[Any]:
    """The ``SessionMessage`` of one line -- or several, for a JSON array of messages (a JSON-RPC batch) -- or the
    exception its parse raised (the session reports it), as a list. A tools/list result some of whose tools are
    malformed keeps the others (:func:`valid_tools`)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    text = line.decode("utf-8", "replace")
    try:
        messages = [types.jsonrpc_message_adapter.validate_json(text, by_name=False)]
    except ValueError as exc:
        messages = _reread(text)
        if not messages:
            return [exc]
    return [SessionMessage(_with_valid_tools(message)) for message in messages]


def _with_valid_tools(message: Any) -> Any:
    import mcp_types as types

    if isinstance(message, types.JSONRPCResponse) and isinstance(message.result, dict):
        tools = message.result.get("tools")
        if isinstance(tools, list):
            kept = valid_tools(tools)
            if len(kept) < len(tools):
                message = message.model_copy(update={"result": {**message.result, "tools": kept}})
    return message


def _reread(text: str) -> list[Any]:
    """A line the SDK's parser refused, read as what it answers, with Python's parser: each message of a JSON array
    (a batch), an id written as a whole number with a fraction (``2.0``) as that integer, U+FFFD for each lone
    surrogate (what ``json.dumps`` writes for a surrogateescape'd file name); an answer still refused -- nested too
    deep, an integer too long, a result of the wrong shape -- becomes a JSON-RPC error of code :data:`MALFORMED` for
    the request it answers, so that its call fails at once instead of waiting out the timeout. Empty when nothing
    in the line can be told (no answer whose id can be read)."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        value = None
    found = [message for item in (value if isinstance(value, list) else [value])
             if (message := _lenient(item)) is not None]
    head = ANSWER_HEAD.match(text)
    if found or head is None:
        return found
    return [_malformed(json.loads(head.group(1)))]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON")  # NaN, Infinity: Python's parser reads them, JSON has none


def _lenient(item: Any) -> Any:
    """One parsed JSON-RPC message, read leniently (see :func:`_reread`); ``None`` when it is none and answers no
    request whose id can be read."""
    import mcp_types as types

    if not isinstance(item, dict):
        return None
    rid = item.get("id")
    if isinstance(rid, float) and rid.is_integer() and abs(rid) <= 2**53:
        rid = int(rid)
        item = {**item, "id": rid}
    try:
        return types.jsonrpc_message_adapter.validate_python(without_lone_surrogates(item), by_name=False)
    except (ValueError, RecursionError):
        pass
    answers = "result" in item or "error" in item
    return _malformed(rid) if answers and isinstance(rid, (int, str)) and not isinstance(rid, bool) else None


def _malformed(rid: Any) -> Any:
    import mcp_types as types

    return types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(
        code=MALFORMED, message="the upstream's answer is no JSON-RPC message its parser reads", data=MALFORMED_MARK))


def without_lone_surrogates(value: Any) -> Any:
    """``value`` (parsed JSON) with every lone surrogate of its strings and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_lone_surrogates(key): without_lone_surrogates(item) for key, item in value.items()}
    return value


def valid_tools(tools: list) -> list:
    """The tools of a tools/list result that its protocol's schema accepts (the upstream session speaks
    :data:`HANDSHAKE_VERSION`); those left out are logged by name. One tool without an ``inputSchema`` failed the
    whole list, and the proxy offered none of the upstream's tools."""
    from mcp_types import methods
    from pydantic import ValidationError

    kept, dropped = [], []
    for tool in tools:
        try:
            methods.validate_server_result("tools/list", HANDSHAKE_VERSION, {"tools": [tool]})
        except (ValidationError, ValueError, KeyError):
            name = tool.get("name") if isinstance(tool, dict) else None
            dropped.append(name[:100] if isinstance(name, str) else type(tool).__name__)
        else:
            kept.append(tool)
    if dropped:
        log.warning("scratchfs mcp-proxy: left out %d malformed tools of the upstream: %s", len(dropped),
                    ascii(dropped)[:300])
    return kept


@asynccontextmanager
async def upstream_stdio(command: str, args: list[str], env: Mapping[str, str], limit: int = MAX_UPSTREAM_MESSAGE_BYTES,
                         closed: Any = None, stopping: Any = None) -> AsyncIterator[tuple[Any, Any, Any]]:
    """Start ``command args``; yield ``(read_stream, write_stream)`` for a ``ClientSession``, as ``stdio_client``
    does, and the launcher's ``anyio`` process (its ``returncode``: the upstream's status, see scratchfs.mcp.launch);
    on exit close its stdin and stop it (SIGTERM, then SIGKILL, to its whole group).

    ``closed`` (an ``anyio.Event``) is set before the session can see the connection end: the upstream's stdout
    ended, it stopped reading its stdin, or the context exits. The SDK reports a closed connection as an error of
    code ``CONNECTION_CLOSED`` (-32000), the code a server's own errors often carry: only this event tells them apart.
    Once ``stopping`` (an ``anyio.Event``) is set, each write to ``write_stream`` fails at once (:func:`end_writes`).

    Raises:
        OSError: the command cannot be started (raised on exit when the launcher could not start it).
    """
    import anyio

    process, life = await launched(command, args, env)
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    set_closed = closed.set if closed is not None else (lambda: None)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)  # (the session's SessionMessages)
    gate, reading, read_done = NoticeGate(), anyio.CancelScope(), anyio.Event()

    async def stdout_reader() -> None:
        try:
            async with read_writer:
                try:
                    with reading:
                        await read_messages(process.stdout, gate, limit, read_writer.send)
                finally:
                    set_closed()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass  # our own shutdown, or the session is gone
        finally:
            read_done.set()

    async def stdin_writer() -> None:
        try:
            async with write_reader:
                async for message in write_reader:
                    gate.asked(message.message)
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((text + "\n").encode("utf-8", "replace"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            set_closed()
            await read_writer.aclose()  # the upstream stopped reading: its session sees the connection end

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        tg.start_soon(end_on_exit, life, reading)
        tg.start_soon(end_writes, stopping or anyio.Event(), write_reader)  # (no event: written to until the end)
        try:
            yield read_stream, write_stream, process
        finally:
            set_closed()
            with life, anyio.CancelScope(shield=True):
                await stop(process, write_stream, reading, read_done)
                tg.cancel_scope.cancel()
                if (failure := not_started(life)) is not None:
                    raise failure


async def read_messages(stdout: Any, gate: NoticeGate, limit: int, send: Any) -> None:
    """Read the upstream's ``stdout`` to its end, awaiting ``send`` with each message of each line that ``gate``
    lets through (:func:`split_lines`, :func:`parse_line`), then with the list changes it held that are due."""
    buffer, skipping = bytearray(), False
    while (chunk := await next_chunk(stdout, gate.wait())) is not None:
        lines, skipping = split_lines(buffer, chunk, limit, skipping)
        passed = [line for line in lines if line.strip() and not gate.drops(line)]
        for line in passed + gate.due():
            for message in parse_line(line):
                await send(message)


async def end_writes(stopping: Any, write_reader: Any) -> None:
    """Close ``write_reader``, the receiving end of the session's writes to the upstream, once ``stopping`` (an
    ``anyio.Event``) is set: nothing more is written to the upstream, and each write waiting or to come fails at
    once (``BrokenResourceError``, which the SDK's session takes for a closed transport: a courtesy cancel is
    dropped). Set before the session's requests are joined: an upstream that reads nothing (its stdin pipe full) held
    each request abandoned at its deadline for the SDK's courtesy cancel, shielded, up to 5 s, and the proxy's stop
    with it (3.4-3.8 s, where its client gives it 2 s before SIGTERM)."""
    await stopping.wait()
    write_reader.close()


async def end_on_exit(life: socket.socket, reading: Any) -> None:
    """Cancel ``reading`` (the scope of the upstream's stdout reader) :data:`STOP_SECONDS` after the launcher's exit
    (its end of ``life`` closed): a daemon that left the upstream's session may hold that stdout open after the
    upstream exited. What the upstream wrote before it exited is read meanwhile."""
    import anyio

    await wait_readable(life)
    await anyio.sleep(STOP_SECONDS)
    reading.cancel()


async def next_chunk(stdout: Any, wait: float) -> bytes | None:
    """The next bytes of the upstream's ``stdout``: ``b""`` once ``wait`` seconds passed with none (a notice held
    by the gate is due), ``None`` at its end. A read cancelled before it returns takes no bytes from the pipe."""
    import anyio

    with anyio.move_on_after(wait):
        try:
            return await stdout.receive()
        except anyio.EndOfStream:
            return None
    return b""


async def launched(command: str, args: list[str], env: Mapping[str, str]) -> tuple[Any, socket.socket]:
    """``command args`` started through :mod:`scratchfs.mcp.launch` in a session of its own: the launcher's
    process and the proxy's end of their socket, which closes when the proxy dies (the launcher then stops the
    upstream's group).

    Raises:
        OSError: the launcher cannot be started.
    """
    import anyio

    life, theirs = socket.socketpair()
    try:
        process = await anyio.open_process(launch_command(theirs.fileno(), command, args), env=dict(env),
                                           stderr=sys.stderr, start_new_session=True, pass_fds=(theirs.fileno(),))
    except BaseException:
        life.close()
        raise
    finally:
        theirs.close()
    return process, life


def launch_command(fd: int, command: str, args: list[str]) -> list[str]:
    """The command line that starts ``command args`` through :mod:`scratchfs.mcp.launch`, which keeps the socket
    ``fd`` (the standard library alone: ``-I -S``, no site packages, no ``PYTHON*`` variables)."""
    from scratchfs.mcp import launch

    return [sys.executable, "-I", "-S", launch.__file__, str(fd), f"{LAUNCH_GRACE:g}", "--", command, *args]


def not_started(life: socket.socket) -> OSError | None:
    """The launcher's report that it could not start the command (an :class:`OSError` like the one ``exec``
    raised), read without waiting from the proxy's end of its socket; ``None`` when there is none."""
    try:
        life.setblocking(False)
        data = life.recv(65536)
        report = json.loads(data) if data else None
    except (OSError, ValueError):
        return None
    if not isinstance(report, dict) or not isinstance(report.get("errno"), int):
        return None
    return OSError(report["errno"], str(report.get("strerror") or os.strerror(report["errno"])),
                   report.get("filename"))


async def wait_readable(sock: socket.socket) -> None:
    """Wait until ``sock`` is readable (data, or its other end closed)."""
    import anyio

    wait = getattr(anyio, "wait_readable", None) or anyio.wait_socket_readable  # (anyio 4.7 renamed it)
    await wait(sock)


async def stop(process: Any, write_stream: Any, reading: Any, read_done: Any) -> None:
    """Close the upstream's stdin, give it :data:`STOP_SECONDS` to exit, then stop its process group; then end the
    reading of its stdout (``reading``, a cancel scope; ``read_done``, an event set once it ended), read what is left
    (:func:`drain`) and close the pipe -- which a daemon that left the upstream's session may hold open."""
    import anyio
    from mcp.os.posix.utilities import terminate_posix_process_tree

    for stream in (write_stream, process.stdin):
        try:
            await stream.aclose()
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass
    with anyio.move_on_after(STOP_SECONDS):
        while process.returncode is None:
            await anyio.sleep(0.02)
    if process.returncode is None:
        await terminate_posix_process_tree(process, STOP_SECONDS)
    with anyio.move_on_after(STOP_SECONDS):
        while process.returncode is None:
            await anyio.sleep(0.02)
    reading.cancel()  # (two readers of one pipe: 'read() called while another coroutine is already waiting')
    with anyio.move_on_after(STOP_SECONDS):
        await read_done.wait()
    await drain(process.stdout)
    try:
        await process.stdout.aclose()
    except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass
    close_pipes(process)


def close_pipes(process: Any) -> None:
    """Close the pipes of ``process`` (an ``anyio`` process whose process has exited), ended or not: a pipe still
    open -- a daemon holds its other end -- left the event loop's process transport unfinished, and the
    interpreter's exit printed a traceback (``BaseSubprocessTransport.__del__ ... Event loop is closed``). The
    transport is asyncio's, reached by its attributes (anyio and asyncio offer no other way); never raises."""
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    if transport is not None and process.returncode is not None:
        try:
            transport.close()
        except (OSError, RuntimeError):
            pass


async def drain(stdout: Any) -> None:
    """Read and drop what is left of the stopped upstream's ``stdout`` up to its end (at most :data:`STOP_SECONDS`).
    A pipe whose reading was paused -- an upstream that flooded it faster than its messages were handled, 100,000
    log notifications -- never saw its end, so its process transport was never finished: the interpreter collected
    it after the event loop had closed, and the proxy's exit printed a traceback (``Exception ignored in
    BaseSubprocessTransport.__del__ ... Event loop is closed``). Never raises."""
    import anyio

    with anyio.move_on_after(STOP_SECONDS):
        try:
            async for _ in stdout:
                pass
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass


__all__ = ["ANSWER_HEAD", "HANDSHAKE_VERSION", "LAUNCH_GRACE", "LONE_SURROGATE", "MALFORMED", "MALFORMED_MARK",
           "STOP_SECONDS", "close_pipes", "drain", "end_on_exit", "end_writes", "launch_command", "launched",
           "next_chunk", "not_started", "parse_line", "read_messages", "split_lines", "stop", "upstream_stdio",
           "valid_tools", "wait_readable", "without_lone_surrogates"]
