"""A counter that every ``fork()`` child increments, so that per-process state (SQLite connections, zstd contexts,
lock descriptors) is re-created in the child without a ``getpid()`` system call on every use."""

from __future__ import annotations

import os

generation = 0
"""Incremented in a child right after ``fork()``; compare it with the value saved when the state was made."""


def _after_fork_in_child() -> None:
    global generation  # noqa: PLW0603 - the one piece of process state this module exists for
    generation += 1


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)
