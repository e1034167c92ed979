"""SIGTERM and SIGHUP in a CLI command: raised in the main thread as :class:`Terminated` (as SIGINT raises
KeyboardInterrupt), so that a write in flight discards its partial blob on the way out and the command exits
``128 + signum``; or handed to a command's own handler (``serve``); and the handlers put back afterwards."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable
from typing import Any


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM or SIGHUP (as SIGINT raises KeyboardInterrupt), so that a write in
    flight discards its partial blob on the way out. ``signum``: the signal; the exit code is ``128 + signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum: int, _frame: object) -> None:
    raise Terminated(signum)


def handle_termination(handler: Callable[[int, Any], None] = _raise_terminated) -> dict[int, Any]:
    """Turn SIGTERM and SIGHUP into :class:`Terminated` -- or hand them to ``handler(signum, frame)`` -- (main thread
    only; a no-op elsewhere). Returns the handlers replaced, by signal number, for :func:`restore_signals`. Raises
    nothing."""
    replaced: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                replaced[getattr(signal, name)] = signal.signal(getattr(signal, name), handler)
    return replaced


def restore_signals(replaced: dict[int, Any]) -> None:
    """Put back the handlers :func:`handle_termination` replaced (a command run inside another program, a test
    runner for one, leaves its SIGTERM as it found it). Raises nothing."""
    for signum, handler in replaced.items():
        with contextlib.suppress(ValueError, TypeError, OSError):
            signal.signal(signum, handler)


__all__ = ["Terminated", "handle_termination", "restore_signals"]
