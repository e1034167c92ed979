"""The lock files of a store root (``locks/``), reached from the root's directory descriptor without following a
link, and the descriptors behind them.

``locks/delete.lock`` orders deletes against writes (see :meth:`RootLocks.delete_lock`), with ``locks/delete.gate``
in front of it so that a steady stream of writes cannot starve a delete; ``locks/sweep.lock`` lets one sweep run at a
time. Both are ``flock`` locks on files opened ``O_NOFOLLOW | O_NONBLOCK`` and checked to be
regular files (:func:`scratchfs.engine.safe_fs.open_file`): a link planted in their place is a typed error, never
followed (a lock library that opens with ``O_TRUNC`` would truncate the link's target). A killed holder's ``flock``
is released by the kernel.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from scratchfs.engine import safe_fs
from scratchfs.engine.safe_fs import storage_error
from scratchfs.foundation import forks
from scratchfs.foundation.errors import StoreBusy

__all__ = ["Descriptor", "RootLocks", "flock_within"]


class Descriptor:
    """A file descriptor closed when this object is collected (a thread's dies with the thread) or by :meth:`close`.

    Not at interpreter exit: ``weakref``'s exit hook runs before hooks registered earlier (``atexit`` is last in,
    first out, and it registers on the first ``finalize``), and the write-behind rows still queued then are committed
    under these lock files (:func:`scratchfs.engine.write_behind.flush_all`); the kernel closes the descriptor, and
    releases its ``flock``, when the process ends."""

    __slots__ = ("__weakref__", "_finalizer", "fd")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._finalizer = weakref.finalize(self, _close_quietly, fd)
        self._finalizer.atexit = False

    def close(self) -> None:
        """Close the descriptor now (idempotent; never raises)."""
        self._finalizer()

    def detach(self) -> int:
        """Forget the descriptor without closing it; return it."""
        self._finalizer.detach()
        return self.fd


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


class _LockLocal(threading.local):
    lock: Descriptor | None = None
    gate: Descriptor | None = None
    generation = -1


class _Held(threading.local):
    roots: dict[tuple[int, int], int] | None = None


_HELD = _Held()  # delete locks the current thread holds: root identity -> depth


class RootLocks:
    """The lock files of the root open on ``root`` (a :class:`Descriptor` owned by the caller)."""

    def __init__(self, root: Descriptor) -> None:
        self._root = root
        self.root_identity = safe_fs.identity(root.fd)
        """The root directory's ``(st_dev, st_ino)``: stores over one root share its delete lock."""
        self._local = _LockLocal()
        self._locks: weakref.WeakSet[Descriptor] = weakref.WeakSet()
        self._inherited: list[int] = []  # a fork() parent's descriptors: kept open, never used here
        self._fds_lock = forks.renewed_in_child(self, "_fds_lock", threading.Lock)

    @contextmanager
    def delete_lock(self, exclusive: bool, timeout: float) -> Iterator[None]:
        """Hold ``locks/delete.lock``: exclusively while a delete commits its rows and moves its directory to the
        trash, shared while a write commits its row. So no row is committed for a file that a delete then moves
        away, and the delete can commit before it moves the directory: a crash between the two leaves orphan
        files (which a sweep removes), never rows whose files are gone. A killed holder's ``flock`` is released by
        the kernel.

        ``flock`` grants a shared lock whenever no exclusive one is held, so writes committing back to back in
        several threads or processes could keep a delete waiting forever. A gate (``locks/delete.gate``) is taken
        first: a write passes it shared and lets it go as soon as it holds the delete lock; a delete holds it
        exclusively until it has the delete lock, so no new write slips in while it waits for those in progress
        (a turnstile; the gate is held for two system calls, so the delete gets it at its next try).

        Raises:
            StoreBusy: the lock stayed busy for ``timeout`` seconds.
            StorageError: the lock file cannot be opened (or is a link, FIFO, ...).
        """
        fd, gate = self._thread_fds()
        deadline = time.monotonic() + timeout
        operation = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        if not flock_within(gate, operation, timeout):
            raise StoreBusy(f"the delete lock stayed busy past the busy timeout ({timeout:g} s)")
        try:
            got = flock_within(fd, operation, max(0.0, deadline - time.monotonic()))
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        if not got:
            raise StoreBusy(f"the delete lock stayed busy past the busy timeout ({timeout:g} s)")
        held = _HELD.roots
        if held is None:
            held = _HELD.roots = {}
        key = self.root_identity
        held[key] = held.get(key, 0) + 1
        try:
            yield
        finally:
            held[key] -= 1
            if not held[key]:
                del held[key]
            fcntl.flock(fd, fcntl.LOCK_UN)

    def held_here(self) -> bool:
        """True while the calling thread holds the delete lock of this root (shared or exclusive), through any
        store object: what it does meanwhile must not take it again (a second ``flock`` of another descriptor of
        the same process would wait for itself)."""
        return bool(_HELD.roots) and self.root_identity in _HELD.roots

    def open_lock(self, name: str) -> int:
        """A new descriptor of the lock file ``locks/<name>`` (created 0600; the caller closes it).

        Raises:
            StorageError: it cannot be opened, or is not a regular file.
        """
        try:
            dir_fd = safe_fs.walk(self._root.fd, ("locks",), create=True)
        except FileNotFoundError as exc:
            raise storage_error(exc, "cannot open the lock directory") from exc
        try:
            # (no O_TRUNC, never written: only flock-ed, so a lock file with other names -- a hard link -- changes
            # nothing elsewhere; filelock's locks/index.lock likewise)
            return safe_fs.open_file(dir_fd, name, os.O_RDWR | os.O_CREAT, f"locks/{name}")
        except FileNotFoundError as exc:
            raise storage_error(exc, f"cannot open locks/{name}") from exc
        finally:
            os.close(dir_fd)

    @contextmanager
    def file_lock(self, name: str, wait: float) -> Iterator[bool]:
        """Hold ``locks/<name>`` exclusively (waiting up to ``wait`` seconds); yields False, unlocked, if it stayed
        busy. Raises StorageError as :meth:`open_lock`."""
        fd, got = self.open_lock(name), False
        try:
            got = flock_within(fd, fcntl.LOCK_EX, wait)
            yield got
        finally:
            try:  # unlock the open file description itself: a fork() child holding a copy of this descriptor
                if got:  # (made while it was locked) must not keep the lock alive
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def _thread_fds(self) -> tuple[int, int]:
        """This thread's descriptors of ``locks/delete.lock`` and ``locks/delete.gate`` (a ``flock`` belongs to an
        open file description, so threads must not share one; a ``fork()`` child opens its own)."""
        local = self._local
        if local.generation != forks.generation or local.lock is None or local.gate is None:
            for held in (local.lock, local.gate):
                if held is not None and local.generation != forks.generation:  # a fork() parent's: never closed
                    self._inherited.append(held.detach())
                elif held is not None:  # this thread's, the other one failed to open: opened again below
                    held.close()
            local.lock = local.gate = None
            local.lock = Descriptor(self.open_lock("delete.lock"))
            local.gate, local.generation = Descriptor(self.open_lock("delete.gate")), forks.generation
            with self._fds_lock:
                self._locks.add(local.lock)
                self._locks.add(local.gate)
        return local.lock.fd, local.gate.fd

    def close(self) -> None:
        """Close the lock descriptors this process opened (idempotent)."""
        with self._fds_lock:
            locks = list(self._locks)
            self._locks = weakref.WeakSet()
        for lock in locks:
            lock.close()
        self._local = _LockLocal()


def flock_within(fd: int, operation: int, timeout: float) -> bool:
    """Take a ``flock`` on ``fd``, polling for up to ``timeout`` seconds; False if it stayed busy."""
    deadline, delay = time.monotonic() + timeout, 0.001
    while True:
        try:
            fcntl.flock(fd, operation | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        except OSError as exc:
            raise storage_error(exc, "cannot take a lock") from exc
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(2 * delay, 0.05)
