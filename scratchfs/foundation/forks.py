"""A counter that every ``fork()`` child increments, so that per-process state (SQLite connections, zstd contexts,
lock descriptors) is re-created in the child without a ``getpid()`` system call on every use; and
:func:`renewed_in_child`, for a lock a child must make anew.

A child of ``fork()`` holds a replica of the forking thread only, every lock as it was (POSIX ``fork()``): a lock
that another thread of the parent held at the fork stays held in the child for ever, and the child's first use of it
hangs. :func:`renewed_in_child` registers an object's lock attribute (or any per-process state: counts of this
process's readers, a thread's handle); a child sets it to a new value before it runs anything else
(``os.register_at_fork``), then calls the owner's hooks (``then``: e.g. count again what a thread of the parent left
half-updated). This is the one mechanism for it: no module keeps a fork registry of its own. The parent's objects and
locks are left as they are.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

generation = 0
"""Incremented in a child right after ``fork()``; compare it with the value saved when the state was made."""

_RENEWED: dict[int, tuple[weakref.ref, dict[str, Callable[[], Any]], dict[Callable[[Any], object], None]]] = {}
"""``id(owner)`` -> (a weak reference to the owner, its attribute names -> the factory of a new value, its hooks in
the order given)."""


def renewed_in_child(owner: object, name: str, make: Callable[[], T], *,
                     then: Callable[[Any], object] | None = None) -> T:
    """Return ``make()`` (a new lock: ``threading.Lock``, ``threading.RLock``, ...; or any per-process value: an empty
    ``dict``), to be ``owner``'s attribute ``name``; every ``fork()`` child sets that attribute to a new ``make()``
    again, for as long as ``owner`` lives (held weakly: ``owner`` must take weak references; a module does). The
    caller assigns the value returned. ``then``, when given, is called as ``then(owner)`` in the child after all of
    ``owner``'s attributes are made anew (once per owner, however many names gave it); it takes the owner as its
    argument and must hold no reference to it (an unbound method, ``LRU.recount``: a bound one would keep the owner
    alive for ever). Source: POSIX ``fork()`` (only the calling thread is copied, every lock as it was) and
    CPython's ``os.register_at_fork`` (https://docs.python.org/3/library/os.html#os.register_at_fork).

    Raises:
        TypeError: ``owner`` takes no weak reference (a class with ``__slots__`` and no ``__weakref__``)."""
    key = id(owner)
    held = _RENEWED.get(key)
    if held is None or held[0]() is not owner:

        def forget(ref: weakref.ref, key: int = key) -> None:
            if _RENEWED.get(key, (None,))[0] is ref:  # (not a later owner that took the same id)
                _RENEWED.pop(key, None)

        held = _RENEWED[key] = (weakref.ref(owner, forget), {}, {})
    held[1][name] = make
    if then is not None:
        held[2][then] = None
    return make()


def _after_fork_in_child() -> None:
    global generation  # noqa: PLW0603 - the one piece of process state this module exists for
    generation += 1
    for ref, names, hooks in list(_RENEWED.values()):
        owner = ref()
        if owner is not None:
            for name, make in list(names.items()):
                setattr(owner, name, make())
            for hook in list(hooks):
                hook(owner)


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)

__all__ = ["generation", "renewed_in_child"]
