"""The proxy's upstream MCP server (:mod:`scratchfs.mcp.proxy`): its child process and the client session to it,
the handshake waited for as long as it takes, and each request bounded by ``--timeout`` as a whole.

A call that finds the upstream still starting waits up to ``--timeout`` for it, then fails ``upstream unavailable:
... still starting``; the handshake goes on and a later call is served once the upstream answered it. A request is
sent in a task of its own: its answer is awaited until the call's deadline, and the SDK's courtesy cancel of a
request abandoned then (written to the upstream, up to 5 s when it reads nothing) never delays the call's error.
"""

from __future__ import annotations

import errno
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from scratchfs.foundation.errors import UpstreamUnavailable
from scratchfs.foundation.text import clipped, one_line

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

log = logging.getLogger("scratchfs.mcp.proxy")

NOT_AGAIN = ("; the proxy does not start it again: its own tools still answer, the upstream's once the proxy is "
             "restarted (its stderr holds the upstream's)")
"""What an upstream's failure to start, or its exit, adds to each call's error: how to go on."""
EXIT_WAIT_SECONDS = 1.0
"""Most seconds a call whose upstream connection closed waits for the upstream's launcher to exit, for the error to
say how the upstream ended (the launcher exits within its grace, :data:`~scratchfs.mcp.upstream_stdio.LAUNCH_GRACE`,
of the upstream's exit)."""


class Upstream:
    """The upstream MCP server: a child process and the client session to it, run by :meth:`run` in its own task.

    ``on_notification`` is awaited with each notification the upstream sends.
    """

    def __init__(self, config: Any, on_notification: Callable[[Any], Any]) -> None:
        import anyio

        self.config = config
        self.session: Any = None
        self.capabilities: Any = None
        self.error: str | None = None
        self.ready = anyio.Event()
        self.closed = anyio.Event()  # set when the connection to the upstream ends (upstream_stdio)
        self._launcher: Any = None  # the launcher's process (upstream_stdio): its returncode, how the upstream ended
        self._stop = anyio.Event()
        self._on_notification = on_notification
        self._started = 0.0  # anyio.current_time() as run began
        self._sends: Any = None  # the task group of the requests in flight (:meth:`_bounded`)

    async def run(self) -> None:
        """Start the server, connect, and stay connected until :meth:`stop` (or until the task is cancelled). The
        handshake has no deadline of its own: an upstream slower to start than ``--timeout`` (a package fetched
        first) is waited for, its calls failing ``still starting`` meanwhile, and served once it answers; stopped
        meanwhile (:meth:`stop`), the handshake is given up at once (:func:`~scratchfs.mcp.upstream_stdio.end_writes`:
        the proxy waited for it, its client's stdin closed, until the client's SIGTERM)."""
        import anyio
        from mcp import ClientSession
        from mcp.client.stdio import get_default_environment

        from scratchfs.mcp.upstream_stdio import upstream_stdio

        config = self.config
        env = {**get_default_environment(), **(os.environ if config.env is None else config.env)}
        self._started = anyio.current_time()
        try:
            async with upstream_stdio(config.command, list(config.args), env, closed=self.closed,
                                      stopping=self._stop) as (read_stream, write_stream, self._launcher), \
                    ClientSession(read_stream, write_stream, message_handler=self._on_message) as session, \
                    anyio.create_task_group() as self._sends:
                init = await session.initialize()
                self.session, self.capabilities = session, init.capabilities
                self.ready.set()
                await self._stop.wait()
                self._sends.cancel_scope.cancel()
        except Exception as exc:  # spawn, handshake or transport failure: report it on every call
            closed = self.closed.is_set()
            code = None if self._launcher is None else self._launcher.returncode  # (stopped: exited, or never will)
            self.error = self.error or f"{config.command}: {_describe(exc, closed, code)}{NOT_AGAIN}"
            if not self._stop.is_set():  # (stopped by the proxy while starting: its own doing, no failure)
                log.error("scratchfs mcp-proxy: upstream %s", _one_line(self.error))
        finally:
            self.ready.set()

    def stop(self) -> None:
        """Ask :meth:`run` to disconnect and stop the server."""
        self._stop.set()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            log.warning("scratchfs mcp-proxy: upstream transport: %s", _one_line(message))
            return
        await self._on_notification(message)

    async def request(self, request: Any, result_type: Any, progress: Callable[..., Any] | None = None) -> Any:
        """Send one request upstream and return its typed result.

        Raises:
            UpstreamUnavailable: the server is not running, closed its connection, did not answer within the
                timeout, or answered with no JSON-RPC message its parser reads.
            MCPError: the upstream's own JSON-RPC error, whatever its code (passes through to the client, within
                2 KiB: :func:`~scratchfs.mcp.protocol_errors.bounded_error`). The SDK
                reports a closed connection and a timeout with codes a server's own errors may carry too (-32000,
                -32001): the connection's end is told by :attr:`closed`, the timeout is the proxy's own.
        """
        import anyio

        timeout = self.config.timeout
        deadline = anyio.current_time() + timeout  # (the whole call, its wait for a starting upstream included)
        with anyio.move_on_after(timeout):
            await self.ready.wait()
        if self.error is not None:
            raise UpstreamUnavailable(self.error)
        if self.session is None:
            waited = anyio.current_time() - self._started
            raise UpstreamUnavailable(f"{self.config.command}: still starting (no answer to initialize after "
                                      f"{waited:.0f} s; the proxy keeps waiting for it: call again later)")
        return await self._bounded(self._send(request, result_type, progress), deadline)

    async def _bounded(self, send: Any, deadline: float) -> Any:
        """``await send`` (a coroutine) in a task of its own, its answer waited for until ``deadline``
        (``anyio.current_time()`` seconds: the call's start plus ``--timeout``): one that comes later fails the call
        at once (:class:`UpstreamUnavailable`). (Cancelled in the caller's task, the SDK's send waits up to 5 s
        more to write its courtesy cancel, to an upstream that may read nothing: here that cancel goes on in the
        background, and is dropped when the proxy stops: :func:`~scratchfs.mcp.upstream_stdio.end_writes`.)"""
        import anyio

        done, outcome, scope = anyio.Event(), [], anyio.CancelScope()

        async def task() -> None:
            with scope:
                try:
                    outcome.append((True, await send))
                except Exception as exc:  # (handed to the caller)
                    outcome.append((False, exc))
            done.set()

        try:
            self._sends.start_soon(task)
        except RuntimeError:  # (its task group ended: the proxy is stopping)
            send.close()
            raise UpstreamUnavailable(f"{self.config.command}: the proxy is stopping its upstream") from None
        try:
            with anyio.move_on_after(max(0.0, deadline - anyio.current_time())):
                await done.wait()
        finally:
            if not done.is_set():
                scope.cancel()
        if not outcome:
            raise UpstreamUnavailable(f"{self.config.command}: no answer within {self.config.timeout:g} s")
        ok, value = outcome[0]
        if ok:
            return value
        raise value

    async def _send(self, request: Any, result_type: Any, progress: Callable[..., Any] | None) -> Any:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED
        from pydantic import ValidationError

        from scratchfs.mcp.protocol_errors import bounded_error
        from scratchfs.mcp.upstream_stdio import MALFORMED, MALFORMED_MARK

        try:
            return await self.session.send_request(request, result_type, progress_callback=progress)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED and self.closed.is_set():
                import anyio

                with anyio.move_on_after(EXIT_WAIT_SECONDS):  # (its launcher exits right after it: how it ended)
                    while self._launcher.returncode is None:
                        await anyio.sleep(0.02)
                self.error = f"{self.config.command}: {exit_words(self._launcher.returncode)}{NOT_AGAIN}"
                raise UpstreamUnavailable(self.error) from None
            if exc.code == MALFORMED and exc.data == MALFORMED_MARK:
                raise UpstreamUnavailable(f"{self.config.command}: malformed answer: {exc}") from None
            message, data = bounded_error(exc.code, exc.error.message, exc.error.data)
            if (message, data) == (exc.error.message, exc.error.data):
                raise
            raise MCPError(code=exc.code, message=message, data=data) from None
        except ValidationError as exc:
            raise UpstreamUnavailable(f"{self.config.command}: malformed answer: its result is "
                                      f"{shape_fault(exc)}: the upstream's own fault; its other calls still "
                                      f"answer") from None


def _leaf(exc: BaseException) -> BaseException:
    """The first leaf of nested exception groups (the SDK wraps transport failures in them)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _one_line(what: object, chars: int = 300) -> str:
    """``str(what)`` for a log record: one line (an upstream's error may span many, quote its input, hold escapes),
    at most ``chars`` characters."""
    return clipped(one_line(" ".join(str(what).split())), chars)


def exit_words(code: int | None) -> str:
    """How the upstream ended, from its launcher's exit ``code`` (:mod:`scratchfs.mcp.launch`: the upstream's status,
    128 + N for a signal N; negative: the launcher itself was killed by signal -code; ``None``: not known, the
    connection closed without an exit seen)."""
    from scratchfs.mcp.stop_signals import signal_name

    if code is None:
        return "the server exited or closed its connection"
    if code < 0:
        return f"its launcher was killed by {signal_name(-code)}"
    if code > 128 and (name := signal_name(code - 128, "")):
        return f"the server was killed by {name}"
    return f"the server exited with code {code}"


def _describe(exc: BaseException, closed: bool, code: int | None = None) -> str:
    """What failed the upstream's start; ``closed``: its connection had ended; ``code``: its launcher's exit code
    (:func:`exit_words`), when it exited."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED
    from pydantic import ValidationError

    leaf = _leaf(exc)
    if closed and isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED:
        return f"{exit_words(code)} during start-up"
    if isinstance(leaf, OSError) and leaf.strerror:
        return f"cannot start: {leaf.strerror}" + (f": {leaf.filename}" if leaf.filename else "") + _not_found(leaf)
    if isinstance(leaf, MCPError):  # (an echo of the request -- cat -- answers it 'Method not found')
        return f"its answer to initialize was an error: {_one_line(leaf, 200)} (is it an MCP server on stdio?)"
    if isinstance(leaf, ValidationError):  # (pydantic's own text spans lines, echoes the input, links its site)
        return f"its answer to initialize is {shape_fault(leaf)} (is it an MCP server on stdio?)"
    return str(leaf) or type(leaf).__name__


def _not_found(leaf: OSError) -> str:
    """Where a command ``leaf`` names and that was not found was looked for, and what to give instead: a client starts
    the proxy without the shell's environment (its ``PATH`` and working directory are the client's), so a bare name
    or a relative path that works in a shell may find nothing; "" for any other fault."""
    name = os.fsdecode(leaf.filename) if isinstance(leaf.filename, (str, bytes)) else ""
    if leaf.errno != errno.ENOENT or not name or os.path.isabs(name):
        return ""
    if "/" in name:
        where, tell = f"a path from the proxy's working directory, {clipped(os.getcwd(), 200)}", "realpath"
    else:
        where = f"not found on the PATH the client passed the proxy, {clipped(os.environ.get('PATH', ''), 300)!r}"
        tell = "command -v"
    return f" ({where}: give its absolute path, as `{tell} {clipped(name, 100)}` prints it in your shell)"


def shape_fault(exc: Any) -> str:
    """What a pydantic ``ValidationError`` of an upstream's answer says, in one line of at most about 200
    characters: ``no CallToolResult: content: Field required``, the first fault's place (``content[0]``, list
    indexes in brackets) and message, or, where the value fits none of the types a union allows (a content block of
    a type MCP has none of), ``content[0] is of no type it may have``; ``(N faults)`` when there are more."""
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0] if errors else {"loc": (), "msg": "invalid"}
    place, union = "", False
    for part in first["loc"]:
        if isinstance(part, int):
            place += f"[{part}]"
        elif part[:1].isupper() or "[" in part:  # (a union's member, by its model's name or its tag)
            union = True
            break
        else:
            place += f".{part}" if place else str(part)
    place = clipped(place or "the answer", 80)
    fault = f"{place} is of no type it may have" if union else f"{place}: {clipped(one_line(first['msg']), 100)}"
    more = f" ({len(errors)} faults)" if len(errors) > 1 else ""
    return f"no {exc.title}: {fault}{more}"


__all__ = ["EXIT_WAIT_SECONDS", "NOT_AGAIN", "Upstream", "exit_words", "shape_fault"]
