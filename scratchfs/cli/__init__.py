"""The ``scratchfs`` command line (click): the store's verbs for shells and scripts; see :mod:`scratchfs.cli.app`."""

from scratchfs.cli import admin as _admin  # noqa: F401 - registers ls, stats, fsck, load, mcp, mcp-proxy
from scratchfs.cli import serve as _serve  # noqa: F401 - registers serve
from scratchfs.cli.app import main

__all__ = ["main"]
