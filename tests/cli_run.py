"""The ``scratchfs`` command as the tests run it: in this process through click's runner (:func:`invoke`), or as
``python -m scratchfs`` of this checkout with its standard input a terminal (:func:`on_a_terminal`)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from click.testing import CliRunner, Result

from scratchfs.cli import main

__all__ = ["REPO", "SCOPE", "invoke", "on_a_terminal"]

REPO = Path(__file__).resolve().parent.parent
SCOPE = ("--run", "r", "--agent", "a")
"""The run and agent options of a scoped command: run ``r``, agent ``a``."""


def invoke(root: Path | str, *args: str, stdin: bytes | str | None = None,
           env: Mapping[str, str | None] | None = None, scope: Sequence[str] = SCOPE) -> Result:
    """``scratchfs ARGS --root ROOT SCOPE`` in this process (click's :class:`CliRunner`, exceptions not caught: a
    traceback fails the test). ``stdin`` is the whole standard input (bytes or text; None: empty); ``env`` sets
    (None: removes) variables for the call only; ``scope=()`` for commands that take no run or agent. Returns
    click's Result: ``exit_code``, ``stdout``/``stdout_bytes``, ``stderr``, ``output``."""
    return CliRunner().invoke(main, [*args, "--root", str(root), *scope], input=stdin, env=env,
                              catch_exceptions=False)


def on_a_terminal(root: Path | str, typed: bytes, *args: str, timeout: float = 60) -> tuple[int, str, str]:
    """``python -m scratchfs --root ROOT ARGS`` run from this checkout (cwd and PYTHONPATH the repository, the rest
    of the environment this process's) with standard input a pseudo-terminal, ``typed`` written to it in pieces of
    1,024 bytes as a paste arrives (end it with ``b"\\x04"``, Ctrl-D at a line's start). Waits at most ``timeout``
    seconds (subprocess.TimeoutExpired past it). Returns ``(exit status, stdout, stderr)``, both decoded UTF-8."""
    parent, child = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "scratchfs", "--root", str(root), *args],
                                stdin=child, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
        os.close(child)
        for at in range(0, len(typed), 1024):  # (a paste: the terminal takes it as it comes)
            os.write(parent, typed[at:at + 1024])
        out, err = proc.communicate(timeout=timeout)
    finally:
        os.close(parent)
    return proc.returncode, out.decode(), err.decode()
