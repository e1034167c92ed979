"""The stdio transport of the MCP faces: every JSON-RPC request line on stdin gets exactly one reply.

The SDK's ``stdio_server`` drops every line it cannot read as a JSON-RPC message (not UTF-8, not JSON, not an object,
a batch, a line too deep or too large for its parser) and reads a request whose ``id`` is not a string or an integer
as a notification, so a client waits forever for a reply that never comes. :func:`stdio_transport` wraps it: it
reads stdin itself, one line at a time (at most :data:`~scratchfs.foundation.limits.MAX_MESSAGE_BYTES` bytes held),
screens each line (:func:`screen`) and answers what the SDK would drop, as JSON-RPC 2.0 says:

* a line that is not UTF-8 or not JSON (``NaN`` and ``Infinity`` are not JSON): ``-32700`` Parse error, ``id`` null;
* JSON that is not a JSON-RPC message (not an object, ``{}``, no ``"jsonrpc": "2.0"``, a ``method`` that is not a
  string, ``params`` that are not an object, an ``id`` that is neither a string nor an integer -- MCP's ids), a
  line longer than the limit (skipped as it arrives; its ``id`` is read from its first 4 KiB,
  :func:`~scratchfs.mcp.request_ids.id_at_start`), JSON the SDK's parser refuses (a lone surrogate ``\\ud800``,
  nesting over 200 deep, an integer of more than 4,300 digits): ``-32600`` Invalid Request, with the request's
  ``id`` when it has a valid one, else null;
* a batch (a JSON array; MCP has no batches): an empty one is one ``-32600`` error; otherwise one array holding a
  ``-32600`` error for each of its requests (and invalid members), none for its notifications and responses, and
  nothing is run;
* ``params`` given as an array (by position; MCP names its parameters): ``-32602`` Invalid params;
* a request whose ``id`` is that of a request of the client still in flight (JSON-RPC matches an answer to its
  request by id alone, and MCP says a requester never reuses one within a session): ``-32600`` Invalid Request, and
  it is not run -- two answers under one id would let the client take one request's result for the other's. Ids
  are compared as the SDK correlates them (:func:`~scratchfs.mcp.request_ids.correlation_key`): ``"7"`` is the id
  ``7``, whose in-flight entry it would overwrite, and a cancel naming either forgets the request of the other.

Blank lines are skipped and a UTF-8 byte order mark before a message is ignored (RFC 8259 allows both). Valid
notifications and responses get no reply, as JSON-RPC says. Everything else -- every well-formed request -- goes to
the SDK's session unchanged, which answers it (``-32601`` for an unknown method, ``-32602`` for params of the wrong
types). Replies are written whole, one line each, under one lock (the SDK's and ours never interleave).

When stdin ends, the requests still running are answered first (within :data:`DRAIN_SECONDS`), each as often as it
was sent (an id reused after a cancel), except those the client cancelled (``notifications/cancelled``: no reply, as MCP
says): the SDK cancels their handlers, whose reads are given up at once (:mod:`scratchfs.mcp.thread_calls`), so
with only those left the server exits at once; a reply still unwritten when the wait is over (a client that reads
none, its stdout pipe full) ends serving as a client gone (:class:`~scratchfs.mcp.wire_out.ClientNotReading`), where
the SDK waited on that write for ever. A client that closes its end of stdout ends serving (one warning);
any other failure to write a reply is one :class:`WireFailed`, never an exception group.

While serving, fd 0 reads the null device and fd 1 writes to stderr (so stray output of a handler or a child never
reaches the wire); both are restored afterwards.
"""

from __future__ import annotations

import asyncio
import codecs
import errno
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

from scratchfs.foundation.limits import MAX_MESSAGE_BYTES
from scratchfs.mcp import request_ids
from scratchfs.mcp.request_ids import HEAD_BYTES, correlation_key, id_at_start, is_request_id, request_id_of
from scratchfs.mcp.wire_out import CLIENT_GONE, ClientNotReading, DaemonWorker, LineWriter, WireFailed

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
MAX_INT_DIGITS = 4300
"""Most digits of a JSON integer Python (and the SDK's parser) reads."""
DRAIN_SECONDS = 120.0
"""Longest wait, when stdin ends, for the replies of the requests still running (each read stops at its own limit)."""
MOST_UNANSWERED = 128
"""Most requests read and not yet answered, their replies written (:attr:`LineWriter.backlog`), before stdin is
read again: a client that floods requests and never reads its replies (the stdout pipe full) held every reply in
the server's memory -- 3,000 reads of 60 KB, 490 MiB (helper hostile20) --; at most 128 replies of a 64 KiB budget,
about 20 MiB, are now held, and the client's writes block instead (a client that writes 128 requests before it reads
a reply still gets them all)."""
BATCH_REFUSED = "Invalid Request: MCP has no JSON-RPC batches; send each message on its own line"
CANCELLED = "notifications/cancelled"
@dataclass(frozen=True)
class Verdict:
    """What to do with one line: hand ``message`` (the line's JSON text) to the SDK, write ``reply`` (JSON text of a
    JSON-RPC error, or an array of them), both, or neither (a blank line, a dropped notification or response)."""

    message: str | None = None
    reply: str | None = None
    request_id: int | str | None = None
    """The id of a request handed to the SDK (its reply is awaited before the transport ends)."""
    cancels: int | str | None = None
    """The id a ``notifications/cancelled`` handed to the SDK names: that request gets no reply (as MCP says)."""


def error_reply(request_id: int | str | None, code: int, message: str, data: Any = None) -> str:
    """The JSON text of one JSON-RPC error response, built with the SDK's own types."""
    import mcp_types as types

    fields: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        fields["data"] = data
    error = types.ErrorData(**fields)
    reply = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
    return reply.model_dump_json(by_alias=True, exclude_unset=True)  # as the SDK writes its own: "id": null kept


def duplicate_refusal(request_id: int | str) -> str:
    """The ``-32600`` reply to a request whose id is that of one still in flight (not run), its id ``null``
    (JSON-RPC 2.0, section 5: an Invalid Request's error): under the id itself, the client would take it for the
    answer of the request in flight -- "not run, send it again" for one that runs, whose own answer it then drops.
    Its message names the id (at most 60 characters)."""
    key = correlation_key(request_id)
    shown = request_ids.shown_id
    same = "" if key == json.dumps(request_id) else f" (read as the integer {shown(key)}, as MCP's SDK correlates ids)"
    return error_reply(None, INVALID_REQUEST,
                       f"Invalid Request: id {shown(json.dumps(request_id))}{same} is that of a request of yours still "
                       "in flight; ids must be unique among a client's requests in flight (this one was not run): "
                       "send it again with a new id")


def too_long(skipped: int, limit: int = MAX_MESSAGE_BYTES, head: bytes = b"") -> Verdict:
    """The verdict on a line longer than ``limit`` bytes (``skipped`` bytes were read and dropped; ``head``: its first
    bytes, where the request's id is looked for, :func:`~scratchfs.mcp.request_ids.id_at_start`)."""
    return Verdict(reply=error_reply(id_at_start(head), INVALID_REQUEST,
                                     f"Invalid Request: a line longer than {limit} bytes was skipped",
                                     {"max_bytes": limit, "skipped_bytes": skipped}))


def screen(line: bytes, server: str = "scratchfs mcp") -> Verdict:
    """Screen one line read from stdin (its newline included or not); ``server`` names the server in what it logs.

    Returns:
        a :class:`Verdict`; never raises (every fault of the line becomes a reply, see the module docstring).
    """
    body = line.rstrip(b"\r\n")
    if body.startswith(codecs.BOM_UTF8):
        body = body[len(codecs.BOM_UTF8):]
    if not body.strip(b" \t\r\n"):
        return Verdict()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Verdict(reply=error_reply(None, PARSE_ERROR, f"Parse error: not UTF-8 (byte {exc.start})"))
    obj, refused = parse(text)
    if refused is not None:
        return Verdict(reply=refused)
    if isinstance(obj, list):
        return batch_verdict(obj, server)
    if not isinstance(obj, dict):
        return Verdict(reply=error_reply(None, INVALID_REQUEST, "Invalid Request: a JSON-RPC message is an object"))
    if "method" in obj:
        return request_verdict(obj, text, server)
    return response_verdict(obj, text, server)


def parse(text: str) -> tuple[Any, str | None]:
    """``(value, None)`` for JSON the SDK's parser reads; ``(None, reply)`` for a line it does not."""
    import pydantic_core

    try:
        return pydantic_core.from_json(text, allow_inf_nan=False), None
    except ValueError as exc:
        detail = str(exc)
    try:  # JSON (the grammar) that the SDK's parser refuses is an invalid request, not a parse error
        obj = json.loads(text, parse_int=_int, parse_constant=_no_constant)
    except RecursionError:
        return None, error_reply(None, INVALID_REQUEST, "Invalid Request: JSON nested too deeply", detail)
    except ValueError:
        return None, error_reply(None, PARSE_ERROR, f"Parse error: not JSON ({detail})")
    return None, error_reply(request_id_of(obj), INVALID_REQUEST, f"Invalid Request: unreadable JSON ({detail})")


def _int(digits: str) -> int | float:
    return int(digits) if len(digits.lstrip("-")) <= MAX_INT_DIGITS else float("inf")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def request_verdict(obj: dict, text: str, server: str = "scratchfs mcp") -> Verdict:
    """The verdict on an object with a ``method``: a request or a notification."""
    import mcp_types as types

    if "id" not in obj:
        if obj.get("jsonrpc") == "2.0" and isinstance(obj.get("method"), str):
            verdict = _checked(obj, text, types.JSONRPCNotification, None, server)
            params = obj.get("params")
            cancels = params.get("requestId") if obj["method"] == CANCELLED and isinstance(params, dict) else None
            if verdict.message is not None and is_request_id(cancels):
                return replace(verdict, cancels=cancels)
            return verdict
        return Verdict(reply=error_reply(None, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 notification"))
    rid = obj["id"]
    if not is_request_id(rid):
        return Verdict(reply=error_reply(None, INVALID_REQUEST,
                                         "Invalid Request: id must be a string or an integer"))
    if obj.get("jsonrpc") != "2.0":
        return Verdict(reply=error_reply(rid, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"'))
    if not isinstance(obj["method"], str):
        return Verdict(reply=error_reply(rid, INVALID_REQUEST, "Invalid Request: method must be a string"))
    params = obj.get("params")
    if isinstance(params, list):
        return Verdict(reply=error_reply(rid, INVALID_PARAMS, "Invalid params: MCP params are an object, not an array"))
    if params is not None and not isinstance(params, dict):
        return Verdict(reply=error_reply(rid, INVALID_REQUEST, "Invalid Request: params must be an object"))
    return _checked(obj, text, types.JSONRPCRequest, rid, server)


def response_verdict(obj: dict, text: str, server: str = "scratchfs mcp") -> Verdict:
    """The verdict on an object without a ``method``: a response of the client (never answered), or invalid."""
    import mcp_types as types

    rid = obj.get("id", 0)
    if (obj.get("jsonrpc") == "2.0" and ("result" in obj) != ("error" in obj) and "id" in obj
            and (rid is None or is_request_id(rid))):
        return _checked(obj, text, (types.JSONRPCResponse, types.JSONRPCError), None, server)
    return Verdict(reply=error_reply(None, INVALID_REQUEST,
                                     "Invalid Request: neither a request, a notification nor a response"))


def _checked(obj: dict, text: str, kind: Any, rid: int | str | None, server: str) -> Verdict:
    """Hand the line to the SDK if it reads it as ``kind``; otherwise answer a request (``rid``), drop the rest."""
    import mcp_types as types
    from pydantic import ValidationError

    try:
        message = types.jsonrpc_message_adapter.validate_python(obj, by_name=False)
    except ValidationError as exc:
        message, detail = None, f"{exc.error_count()} validation errors"
    else:
        detail = f"read as {type(message).__name__}"
    if isinstance(message, kind):
        return Verdict(message=text, request_id=rid)
    if "method" in obj and "id" in obj:
        return Verdict(reply=error_reply(rid, INVALID_REQUEST, "Invalid Request: not a JSON-RPC request", detail))
    log.warning("%s: dropped a malformed notification or response (%s)", server, detail)
    return Verdict()


def batch_verdict(items: list, server: str = "scratchfs mcp") -> Verdict:
    """The verdict on a batch: refused (see the module docstring)."""
    if not items:
        return Verdict(reply=error_reply(None, INVALID_REQUEST, "Invalid Request: an empty batch"))
    replies = []
    for item in items:
        if isinstance(item, dict) and ("method" in item) != ("id" in item) and (
                "method" in item or "result" in item or "error" in item):
            continue  # a notification or a response: never answered
        replies.append(error_reply(request_id_of(item), INVALID_REQUEST, BATCH_REFUSED))
    log.warning("%s: refused a batch of %d messages (MCP has no batches)", server, len(items))
    return Verdict(reply="[" + ",".join(replies) + "]" if replies else None)


def interrupt_of(exc: BaseException) -> BaseException | None:
    """The first leaf of ``exc`` (an exception group of the SDK's task groups, or not) that is no
    :class:`Exception` -- a signal's exception, ``KeyboardInterrupt``, ``SystemExit`` -- to be raised alone, as the
    CLI handles it (one line, its exit code); ``None`` if there is none."""
    for leaf in _leaves(exc):
        if not isinstance(leaf, Exception) and not _is_cancellation(leaf):
            return leaf
    return None


def serve_until_stopped(serve: Any, *args: Any) -> None:
    """``anyio.run(serve, *args)`` for a serving face, whose stop by a signal ends in the signal's exception alone,
    as the CLI handles it (its line and exit code): SIGTERM's or SIGHUP's ``Terminated`` or ^C's
    ``KeyboardInterrupt``, out of the SDK's task groups (:func:`interrupt_of`). On Python 3.10 asyncio's runner
    answers ^C by cancelling the main task and, tasks having no ``uncancel()`` there, ends with that
    :class:`asyncio.CancelledError` (a traceback and exit 1, where 3.11 raises ``KeyboardInterrupt``): nothing else
    cancels the main task, so it is raised as ``KeyboardInterrupt``.

    Raises:
        whatever ``serve`` raises; a signal's exception alone.
    """
    import anyio

    collect_nothing_at_exit()
    try:
        anyio.run(serve, *args)
    except BaseExceptionGroup as group:  # a signal's exception (SIGTERM, ^C) comes alone, as the CLI expects it
        raise interrupt_of(group) or group from None
    except asyncio.CancelledError:  # (Python 3.10's ^C, see above)
        raise KeyboardInterrupt from None


def collect_nothing_at_exit() -> None:
    """Spare this process's exit the garbage collector's passes over every object it holds: an exit hook
    (``atexit``, registered once) moves the objects then alive to the collector's permanent generation
    (``gc.freeze``). A serving face's process ends when serving ends, and the interpreter's exit went over its
    108,000 objects several times (about 0.3 s of CPU; 0.6-1.0 s from the end of ``main`` to the exit at a load of
    10, 0.15 s frozen: the larger part of a stop by a client that closed stdin, ``python bench/proxy_stop.py``).
    The hooks registered before it (the write-behind queues' flush, the workers' kill, logging's shutdown) run
    after it as they did, and what they leave is collected as ever; what only a collection would have finalized --
    objects in reference cycles -- is left to the process's end, as an interpreter's exit may leave it anyway: what
    a face holds open (its store, its upstream's pipes and process) is closed before."""
    import atexit
    import gc

    atexit.unregister(gc.freeze)  # (once however often it is called)
    atexit.register(gc.freeze)


def _is_cancellation(exc: BaseException) -> bool:
    """A task's cancellation, not a signal's exception. Asked after ``anyio.run`` returned, where anyio's own
    ``get_cancelled_exc_class()`` raises ``NoEventLoopError`` (a traceback and exit 1 instead of a signal's exit code,
    in about one SIGTERM in eight): the servers run anyio on asyncio, whose cancellation is
    :class:`asyncio.CancelledError`."""
    return isinstance(exc, asyncio.CancelledError)


class ScreenedLines:
    """The wire's stdin as the SDK's ``stdio_server`` reads it: an async iterator of the lines it should see.

    Each line is read whole up to ``limit`` bytes (a longer one is skipped as it arrives) and :func:`screen`-ed;
    the replies of the screen go straight to ``writer``.
    """

    def __init__(self, fd: int, writer: LineWriter, limit: int = MAX_MESSAGE_BYTES, server: str = "scratchfs mcp"
                 ) -> None:
        self._server = server
        self._file: BinaryIO = os.fdopen(fd, "rb", closefd=False)
        self._writer = writer
        self._limit = limit
        self._worker = DaemonWorker("scratchfs-mcp-wire-in")
        self.reading = False

    def __aiter__(self) -> ScreenedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            await self._writer.room(MOST_UNANSWERED)  # (a client that reads no reply is not read either)
            self.reading = True
            try:
                verdict = await self._worker.run(self._next_verdict)
            finally:
                self.reading = False
            if verdict is None:  # the end of the input: the requests still running are answered first
                await self._writer.drained(DRAIN_SECONDS)
                if self._writer.blocked:  # (a reply the client has not read in all that time: it reads none)
                    raise ClientNotReading(errno.EPIPE, f"the client read no reply for {DRAIN_SECONDS:g} s after "
                                                        "its input ended")
                raise StopAsyncIteration
            if verdict.reply is not None:  # (a refused line's id is not its own to claim while a request has it)
                reply = request_ids.unclaimed(verdict.reply, self._writer.in_flight)
                await self._writer.write(reply + "\n", answers=False)
            if verdict.message is not None and verdict.request_id is not None and self._writer.in_flight(
                    verdict.request_id):
                await self._writer.write(duplicate_refusal(verdict.request_id) + "\n", answers=False)
            elif verdict.message is not None:
                if verdict.request_id is not None:
                    self._writer.expect(verdict.request_id)
                if verdict.cancels is not None:
                    self._writer.forget(verdict.cancels)
                return verdict.message

    def _next_verdict(self) -> Verdict | None:
        """Read and screen the next line (blocking); ``None`` at the end of the input."""
        line = self._file.readline(self._limit + 1)
        if not line:
            return None
        if line.endswith(b"\n") or len(line) <= self._limit:
            try:
                return screen(line, self._server)
            except Exception:  # a bug of the screen must cost one line, never the connection
                log.exception("%s: could not screen a line", self._server)
                return Verdict(reply=error_reply(None, INTERNAL_ERROR, "Internal error: the line could not be read"))
        skipped, head = len(line), line[:HEAD_BYTES]
        while not line.endswith(b"\n"):
            line = self._file.readline(1 << 20)
            if not line:
                break
            skipped += len(line)
        return too_long(skipped, self._limit, head)


@dataclass
class Claim:
    """The wire's descriptors while :func:`claimed_stdio` holds fds 0 and 1; ``keep_in``: leave ``wire_in`` open
    (a worker thread may still be blocked reading it, and must never read a recycled descriptor)."""

    wire_in: int
    wire_out: int
    keep_in: bool = False


@contextmanager
def claimed_stdio() -> Iterator[Claim]:
    """Private duplicates of fds 0 and 1 for the wire; meanwhile fd 0 reads the null device and fd 1 writes to stderr.
    Both are restored on exit.

    Raises:
        OSError: fd 0 or fd 1 cannot be duplicated.
    """
    sys.stdout.flush()
    claim = Claim(os.dup(0), os.dup(1))
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        try:
            os.dup2(2, 1)
        except OSError:  # no stderr: stray output goes nowhere
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)
        yield claim
    finally:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os.dup2(claim.wire_in, 0)
        os.dup2(claim.wire_out, 1)
        os.close(claim.wire_out)
        if not claim.keep_in:
            os.close(claim.wire_in)


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def wire_failure(exc: BaseException) -> BaseException | None:
    """What ended serving when ``exc`` (a group of the SDK's task groups, or not) is a failure of the wire's stdout
    alone: the first :data:`CLIENT_GONE` or :class:`WireFailed` among its leaves; ``None`` for anything else."""
    leaves = list(_leaves(exc))
    wire = [leaf for leaf in leaves if isinstance(leaf, (*CLIENT_GONE, WireFailed))]
    if wire and all(isinstance(leaf, OSError) for leaf in leaves):
        failed = [leaf for leaf in wire if isinstance(leaf, WireFailed)]
        return failed[0] if failed else wire[0]
    return None


@asynccontextmanager
async def stdio_transport(limit: int = MAX_MESSAGE_BYTES,
                          server: str = "scratchfs mcp") -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` over screened stdin (see the module docstring): yields its ``(read_stream,
    write_stream)`` for ``Server.run``; the read stream ends when stdin does. A client that closes its end of
    stdout ends serving, with one warning in the log (the requests still running are dropped: nobody reads them).
    SIGTERM, SIGINT or SIGHUP answers each request in flight with an error naming the stop and ``server``, then acts
    as it would have (:mod:`scratchfs.mcp.stop_signals`).

    Raises:
        OSError: fd 0 or fd 1 cannot be duplicated.
        WireFailed: writing a reply failed otherwise (raised alone, not in an exception group).
    """
    from mcp.server.stdio import stdio_server

    from scratchfs.mcp.stop_signals import STOPPED, answering_stops

    with claimed_stdio() as claim:
        writer = LineWriter(claim.wire_out)
        lines = ScreenedLines(claim.wire_in, writer, limit, server)
        try:
            async with answering_stops(writer, lambda rid, message: error_reply(rid, STOPPED, message), server), \
                    stdio_server(stdin=lines, stdout=writer) as streams:  # type: ignore[arg-type]
                yield streams
        except BaseException as exc:
            failure = wire_failure(exc)
            if isinstance(failure, WireFailed):
                raise failure from None
            if failure is None:
                raise
            if isinstance(failure, ClientNotReading):
                log.warning("%s: %s (its stdout pipe full); stopping", server, failure.strerror)
            else:
                log.warning("%s: the client closed its end of the connection (stdout); stopping", server)
        finally:
            claim.keep_in = lines.reading


__all__ = ["CLIENT_GONE", "Claim", "DaemonWorker", "LineWriter", "ScreenedLines", "Verdict", "WireFailed",
           "claimed_stdio", "collect_nothing_at_exit", "error_reply", "interrupt_of", "screen", "serve_until_stopped",
           "stdio_transport", "wire_failure"]
