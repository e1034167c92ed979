"""What SIGTERM, SIGINT and SIGHUP do to a serving MCP face (``scratchfs mcp``, ``scratchfs mcp-proxy``): every
request still in flight gets one JSON-RPC error naming the stop, then the signal acts as it always did.

Before, the two signals a host sends did different things to the requests in flight: SIGTERM raised the CLI's
``Terminated`` wherever the event loop was and nothing was written for them; ^C made asyncio's runner cancel the
main task, and each request got whatever its cancellation wrote -- for the proxy, the upstream session's ``-32000
Connection closed``, which reads as the upstream's fault. Now, while :func:`answering_stops` is entered, SIGTERM,
SIGINT and SIGHUP (those not ignored) are caught by one handler: each request handed on and not yet answered gets
``{"code": -32000, "message": "<server> stopped (<SIGNAL>) before answering this request"}`` under its id as the
client sent it, in one write bounded by :data:`ANSWER_SECONDS` (a client that reads nothing does not hold the stop),
nothing is written after it (:meth:`~scratchfs.mcp.wire_out.LineWriter.stop`: a late answer would be a second one
under the same id), the worker processes of searches and jq reads still running are killed (their calls end now,
where the process waited for them up to their time limit before exiting:
:func:`~scratchfs.engine.worker_pipe.kill_workers`), and the signal is raised again under the handler it had before
-- the CLI's line and exit code: ``scratchfs: terminated`` 143, ``scratchfs: interrupted`` 130, ``scratchfs: hung
up`` 129. The proxy's upstream is then stopped as on any exit (:mod:`scratchfs.mcp.upstream_stdio`).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from scratchfs.engine.worker_pipe import kill_workers

STOP_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")
"""The signals that stop a serving MCP face."""
STOPPED = -32000
"""The JSON-RPC error code of a request the server was stopped before answering (an implementation-defined server
error, as MCP's SDK uses it for a closed connection)."""
ANSWER_SECONDS = 1.0
"""Longest wait for the stop's answers to be written before the signal acts."""


def stop_message(server: str, signum: int) -> str:
    """The error message of a request in flight when ``server`` was stopped by ``signum``."""
    return f"{server} stopped ({signal_name(signum)}) before answering this request"


def signal_name(number: int, unknown: str | None = None) -> str:
    """A signal's name, ``"SIGKILL"`` for 9; ``unknown`` (``None``: ``"signal N"``) for a number no signal has.
    Never raises."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}" if unknown is None else unknown


@asynccontextmanager
async def answering_stops(writer: Any, reply_to: Callable[[int | str, str], str],
                          server: str) -> AsyncIterator[None]:
    """While entered, a stop signal answers the requests in flight through ``writer`` (a
    :class:`~scratchfs.mcp.wire_out.LineWriter`) with ``reply_to(id, message)`` (the JSON text of an error reply of
    code :data:`STOPPED`), then is raised again under its former handler (see the module docstring); on exit the
    handlers are put back. Off the main thread (where no handler can be set) it does nothing.

    Raises:
        whatever the former handler raises (the CLI's ``Terminated``, ``KeyboardInterrupt``), out of the task group
        this context runs, as a member of a ``BaseExceptionGroup``.
    """
    import anyio

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    received: list[int] = []
    wake = anyio.Event()

    def caught(signum: int, _frame: object) -> None:
        if not received:
            received.append(signum)
            loop.call_soon_threadsafe(wake.set)

    replaced: dict[int, Any] = {}
    for name in STOP_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) is not signal.SIG_IGN:  # (nohup's SIGHUP stays ignored)
            replaced[signum] = signal.signal(signum, caught)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_stop_when_caught, wake, received, writer, reply_to, server, replaced)
            try:
                yield
            finally:
                tg.cancel_scope.cancel()
    finally:
        _restore(replaced)


async def _stop_when_caught(wake: Any, received: list[int], writer: Any, reply_to: Callable[[int | str, str], str],
                            server: str, replaced: dict[int, Any]) -> None:
    import anyio

    await wake.wait()
    signum, message = received[0], stop_message(server, received[0])
    with anyio.move_on_after(ANSWER_SECONDS):
        try:
            await writer.stop(lambda rid: reply_to(rid, message))
        except OSError:  # (the client is gone, or stdout failed: the signal stops the server all the same)
            pass
    kill_workers(final=True)  # (a search or jq read still running in a thread ends now, not at its time limit)
    _restore(replaced)
    replaced.clear()
    signal.raise_signal(signum)  # (its former handler runs here: the CLI's raises, asyncio's cancels the main task)
    await anyio.sleep_forever()


def _restore(replaced: dict[int, Any]) -> None:
    for signum, handler in replaced.items():
        try:
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        except (ValueError, TypeError, OSError):
            pass


__all__ = ["ANSWER_SECONDS", "STOPPED", "STOP_SIGNALS", "answering_stops", "signal_name", "stop_message"]
