"""``python -m scratchfs`` and the ``scratchfs`` script: the command line (see :mod:`scratchfs.cli`).

The command line's modules load inside :func:`run` (about 0.2 s), so that a Ctrl-C meanwhile is the CLI's one line,
``scratchfs: interrupted``, and exit code 130, as it is once the command runs -- not a ``KeyboardInterrupt``
traceback from the middle of an import. (``import scratchfs`` itself loads nothing: its names load on first use.)
"""

from __future__ import annotations

import sys


def run() -> None:
    """Load the command line and run it; exit 130 with one stderr line when interrupted while loading."""
    try:
        from scratchfs.cli import main
    except KeyboardInterrupt:
        if sys.stderr is not None:
            sys.stderr.write("scratchfs: interrupted\n")
        raise SystemExit(130) from None
    main()


if __name__ == "__main__":  # pragma: no cover
    run()
