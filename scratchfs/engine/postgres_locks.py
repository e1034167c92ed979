"""The PostgreSQL index's advisory locks (:mod:`scratchfs.engine.postgres_index`): the fleet's sweep lock and delete
lock, and a write's wait behind a delete -- each waited for by one thread of a process at a time, holding one pooled
connection, while the process's other waiters wait their turn (:func:`~.postgres_pool.local_turn`) holding none.

A thread waiting on the server held a pooled connection for the whole wait: twelve sweeps behind another thread's
sweep, or twelve writes behind a delete (each waited up to the busy timeout for the delete lock, shared), took all
8 of the process's connections, and every other call -- reads, the deleter's own statements -- failed with "no
connection to the index database ... (the server is down, refusing or overloaded)". And a wait went on past the
store's ``close()``: a waiter for its turn, or for the server's lock, now stops at once with :class:`StoreClosed`
(:meth:`~.postgres_pool.IndexPool.close` ends the turns' waits and cancels the server-side waits)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors

from scratchfs.engine.postgres_connect import reply_timeout
from scratchfs.engine.postgres_pool import IndexPool, local_turn
from scratchfs.foundation.errors import StoreBusy, StoreClosed

__all__ = ["PostgresLocks"]


class PostgresLocks:
    """The advisory locks of :class:`~scratchfs.engine.postgres_index.PostgresIndex` (a mixin of it)."""

    _connections: IndexPool
    _sweep_lock_key: int
    _delete_lock_key: int

    def connection(self, doing: str) -> AbstractContextManager[Any]:  # pragma: no cover - the index's
        raise NotImplementedError

    def _configure(self, conn: psycopg.Connection) -> None:  # pragma: no cover - the index's
        raise NotImplementedError

    @contextmanager
    def delete_lock(self, exclusive: bool, timeout: float) -> Iterator[None]:
        """The fleet's delete lock (a PostgreSQL advisory lock on this schema), for a blob store shared by every host:
        held exclusively (a session lock on one pooled connection) while a delete of a run or agent commits its rows
        and removes its blobs. The shared side costs nothing here: :meth:`put` takes it, transaction-scoped, around
        its check and commit (and, while a delete holds it, waits in :meth:`wait_out_deletes`).

        Raises:
            StoreBusy: the lock stayed busy for ``timeout`` seconds. StorageError: the database failed.
            StoreClosed: the store was closed, or closed while this waited.
        """
        if not exclusive:
            yield
            return
        with local_turn(self._connections.turn("delete"), timeout) as left, \
                self.connection("taking the delete lock") as conn:
            if left is None or not self._wait_for_lock(conn, "pg_advisory_lock", self._delete_lock_key, left):
                raise StoreBusy(f"the delete lock stayed busy past the busy timeout ({timeout:g} s)")
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (self._delete_lock_key,))

    def wait_out_deletes(self, deadline: float, doing: str) -> None:
        """Wait until no delete holds the delete lock (taken shared, then let go at once), up to ``deadline``
        (``time.monotonic()`` seconds): one thread of this process on the server, holding one pooled connection, the
        others for their turn holding none. A write whose transaction found the lock held (``pg_try_...``) rolled
        back, waits here, then tries again.

        Raises:
            StoreBusy: a delete held the lock past ``deadline``. StorageError: the database failed.
            StoreClosed: the store was closed, or closed while this waited.
        """
        busy = StoreBusy(f"the index database stayed busy past the busy timeout while {doing} (a delete of a run "
                         "or agent held the delete lock)")
        with local_turn(self._connections.turn("write"), max(0.0, deadline - time.monotonic())) as left:
            if not left:
                raise busy
            with self.connection(doing) as conn:
                if not self._wait_for_lock(conn, "pg_advisory_lock_shared", self._delete_lock_key, left):
                    raise busy
                conn.execute("SELECT pg_advisory_unlock_shared(%s)", (self._delete_lock_key,))

    @contextmanager
    def sweep_lock(self, wait: float | None) -> Iterator[bool]:
        """Hold this schema's sweep lock (a session-level advisory lock, released if the holder's connection dies)
        for the duration; yields False at once (or after ``wait`` seconds) if another host holds it.

        Raises:
            StoreClosed: the store was closed, or closed while this waited. StorageError: the database failed.
        """
        with local_turn(self._connections.turn("sweep"), wait) as left:
            if left is None:  # (another thread of this process sweeps)
                yield False
                return
            with self._sweep_locked(left) as got:
                yield got

    @contextmanager
    def _sweep_locked(self, wait: float) -> Iterator[bool]:
        with self.connection("taking the sweep lock") as conn:
            got = conn.execute("SELECT pg_try_advisory_lock(%s)", (self._sweep_lock_key,)).fetchone()[0]
            if not got and wait:
                got = self._wait_for_lock(conn, "pg_advisory_lock", self._sweep_lock_key, wait)
            try:
                yield bool(got)
            finally:
                if got:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (self._sweep_lock_key,))

    def _wait_for_lock(self, conn: psycopg.Connection, take: str, key: int, wait: float) -> bool:
        """Wait up to ``wait`` seconds for the session advisory lock ``key`` (``take``: the function taking it);
        True once held, False when the wait ran out. The wait's own ``lock_timeout``, under a ``statement_timeout``
        and a reply timeout a second longer (the connection's, the busy timeout's, would cancel a wait as long as
        theirs as StoreBusy, or cut a longer one short); the connection's settings are restored after. Cancelled by
        the store's ``close()`` (StoreClosed)."""
        ms, reply_after = max(1, int(wait * 1000)), getattr(conn, "reply_after", None)
        try:
            conn.execute(f"SET lock_timeout = {ms}; SET statement_timeout = {ms + 1000}")
            if reply_after is not None:
                conn.reply_after = reply_timeout(wait + 1.0)  # type: ignore[attr-defined]
            with self._connections.waiting(conn):
                conn.execute(f"SELECT {take}(%s)", (key,))
            return True
        except pg_errors.LockNotAvailable:
            return False
        except pg_errors.QueryCanceled:
            if self._connections.closed:
                raise StoreClosed("the store is closed") from None
            raise
        finally:
            if reply_after is not None:
                conn.reply_after = reply_after  # type: ignore[attr-defined]
            if not conn.closed:
                self._configure(conn)
