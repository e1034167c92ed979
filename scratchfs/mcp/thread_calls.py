"""A tool call's blocking work, run in a worker thread and given up when its request is.

The SDK cancels a request's handler when the client cancels it (``notifications/cancelled``) and when the input
ends (the handlers still running once the drain of :mod:`scratchfs.mcp.stdio` is over: their replies are never
sent). A handler awaiting ``anyio.to_thread.run_sync`` cannot be cancelled until its thread returns, and the thread
knew nothing of the cancel: a pattern search or a jq read ran on to its time limit, and a server whose client had
cancelled a runaway search and closed stdin exited only then (3.9 s for one search at ``--pattern-timeout 5``; 5 s
for three). :func:`run_given_up_on_cancel` gives the call up instead
(:class:`~scratchfs.engine.giving_up.GivenUp`: its worker processes killed, its search told to stop) and then waits
for its thread to end, as it did before (shielded), so that the store is never closed under a call still running: a
search still in its slice in the thread ends at the slice's end (a given-up call's slice is at most
:data:`~scratchfs.engine.pattern_worker.WATCHED_SLICE_SECONDS` of CPU time), a worker's call, or one waiting for a busy
pool's worker, at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from scratchfs.engine.giving_up import GivenUp

T = TypeVar("T")


async def run_given_up_on_cancel(func: Callable[..., T], *args: Any) -> T:
    """``func(*args)`` in a worker thread (``anyio.to_thread``); when the awaiting task is cancelled, the call is
    given up (:meth:`~scratchfs.engine.giving_up.GivenUp.cancel`) and its thread awaited, shielded, before the
    cancellation goes on.

    Raises:
        whatever ``func`` raises; the task's cancellation.
    """
    import anyio
    import anyio.to_thread

    call = GivenUp()
    try:
        return await anyio.to_thread.run_sync(call.run, func, *args, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        if call.cancel():
            with anyio.CancelScope(shield=True):
                while not call.finished.is_set():
                    await anyio.sleep(0.005)
        raise


__all__ = ["run_given_up_on_cancel"]
