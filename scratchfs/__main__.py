"""``python -m scratchfs`` and the ``scratchfs`` script: the command line (see :mod:`scratchfs.cli`).

The command line's modules load inside :func:`run` (about 0.2 s), so that a Ctrl-C meanwhile is the CLI's one line,
``scratchfs: interrupted``, and exit code 130, as it is once the command runs -- not a ``KeyboardInterrupt``
traceback from the middle of an import. (``import scratchfs`` itself loads nothing: its names load on first use.)
A ``KeyboardInterrupt`` raised while the import machinery runs a callback (a module lock's weak reference) is
"ignored" by Python -- printed as an unraisable exception, the command going on as if no signal came -- so the signal
is recorded as it arrives and told after the import, whatever became of the exception.
"""

from __future__ import annotations

import signal
import sys
from typing import Any


def run() -> None:
    """Load the command line and run it; exit 130 with one stderr line when interrupted while loading."""
    caught: list[int] = []

    def interrupted(signum: int, frame: Any) -> None:
        caught.append(signum)
        raise KeyboardInterrupt

    def unraisable(hook_args: Any) -> None:  # (the interrupt is told below, once: not as an ignored exception)
        if not isinstance(hook_args.exc_value, KeyboardInterrupt):
            sys.__unraisablehook__(hook_args)

    previous, hook = signal.getsignal(signal.SIGINT), sys.unraisablehook
    try:
        signal.signal(signal.SIGINT, interrupted)
        sys.unraisablehook = unraisable
        try:
            from scratchfs.cli import main
            if caught:  # (raised where Python ignores exceptions: the signal came all the same)
                raise KeyboardInterrupt
        finally:
            if previous is not None:  # (None: a handler not set from Python, left as it was)
                signal.signal(signal.SIGINT, previous)
            sys.unraisablehook = hook
    except KeyboardInterrupt:
        if sys.stderr is not None:
            sys.stderr.write("scratchfs: interrupted\n")
        raise SystemExit(130) from None
    main()


if __name__ == "__main__":  # pragma: no cover
    run()
