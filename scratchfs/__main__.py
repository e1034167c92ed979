"""``python -m scratchfs`` and the ``scratchfs`` script: the command line (see :mod:`scratchfs.cli`).

The command line's modules load inside :func:`run` (about 0.2 s, seconds on a loaded machine), so that a Ctrl-C
meanwhile is the CLI's one line, ``scratchfs: interrupted``, and exit code 130, as it is once the command runs --
not a ``KeyboardInterrupt`` traceback from the middle of an import --, and a SIGTERM or SIGHUP meanwhile is
``scratchfs: terminated`` (exit 143) or ``scratchfs: hung up`` (exit 129), not a process killed by the signal with
nothing said. (``import scratchfs`` itself loads nothing: its names load on first use.)
An exception raised while the import machinery runs a callback (a module lock's weak reference) is "ignored" by
Python -- printed as an unraisable exception, the command going on as if no signal came -- so the signal is
recorded as it arrives and told after the import, whatever became of the exception.
"""

from __future__ import annotations

import signal
import sys
from typing import Any

_TOLD = {"SIGINT": ("interrupted", 130), "SIGTERM": ("terminated", 143), "SIGHUP": ("hung up", 129)}
"""Each signal handled while the command line loads: its one line's words and its exit code (as the CLI's own)."""


class _Stopped(BaseException):
    """A signal of :data:`_TOLD` came while the command line loaded."""


def run() -> None:
    """Load the command line and run it; exit 130, 143 or 129 with one stderr line when interrupted, terminated or
    hung up while loading."""
    caught: list[int] = []

    def stopped(signum: int, frame: Any) -> None:
        caught.append(signum)
        raise KeyboardInterrupt if signum == signal.SIGINT else _Stopped

    def unraisable(hook_args: Any) -> None:  # (the signal is told below, once: not as an ignored exception)
        if not isinstance(hook_args.exc_value, (KeyboardInterrupt, _Stopped)):
            sys.__unraisablehook__(hook_args)

    signums = [getattr(signal, name) for name in _TOLD if hasattr(signal, name)]
    previous, hook = {signum: signal.getsignal(signum) for signum in signums}, sys.unraisablehook
    try:
        for signum in signums:
            signal.signal(signum, stopped)
        sys.unraisablehook = unraisable
        try:
            from scratchfs.cli import main
            if caught:  # (raised where Python ignores exceptions: the signal came all the same)
                raise _Stopped
        finally:
            for signum, handler in previous.items():
                if handler is not None:  # (None: a handler not set from Python, left as it was)
                    signal.signal(signum, handler)
            sys.unraisablehook = hook
    except (KeyboardInterrupt, _Stopped):
        words, code = _TOLD[signal.Signals(caught[0] if caught else signal.SIGINT).name]
        if sys.stderr is not None:
            sys.stderr.write(f"scratchfs: {words}\n")
        raise SystemExit(code) from None
    main()


if __name__ == "__main__":  # pragma: no cover
    run()
