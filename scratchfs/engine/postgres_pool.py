"""The PostgreSQL index's connections: one ``psycopg_pool`` pool per process, and a wait for a connection that is
cut short when the server is down.

psycopg_pool waits its whole timeout for a connection while the server refuses new ones (its workers retry with
back-off in the background), so with PostgreSQL down every operation of the index waited ``busy_timeout`` (30 s by
default) before it failed: a spill, which passes its result through when the index fails, held the agent's turn
that long for each large result, and the web inspector answered each call 30 s late. So a wait for a connection
first lasts at most :data:`FIRST_WAIT` seconds; if none came, one fresh connection is tried (libpq's
``connect_timeout``, the index's): a server that refuses it, or whose host cannot be reached, fails the operation
with that error at once, and for :data:`DOWN_SECONDS` after, every operation fails with it without waiting (a
circuit breaker: an outage costs one connection attempt a second, not a wait per operation). A server that only
answers busy (too many connections, starting up) or that lets the fresh connection in is waited for the rest of
``busy_timeout``, as before: a pool whose connections are all in use, or a server just restarted, is not down.

**A server that stops answering** (its processes stopped, ``SIGSTOP``, or its host gone without a reset) lets TCP
connect and holds every reply: ``statement_timeout`` is the server's own and never fires, so a call waited as long as
the hang lasted (35 s of a 35 s stop at ``busy_timeout=5``; the pool's empty-query check of a connection on checkout
waited too). Every connection here is a :class:`~scratchfs.engine.postgres_connect.BoundedConnection`: each wait for
the server's reply lasts at most ``busy_timeout`` and a second (the server's own ``statement_timeout`` answers first
when it can), after which the connection is closed and the wait fails with
:class:`~scratchfs.engine.postgres_connect.NoReply`; the circuit breaker then fails every operation at once for
:data:`DOWN_SECONDS` with that error, as it does for a refused connection, and a fresh connection is tried after.

Library: psycopg_pool (see :mod:`scratchfs.engine.postgres_index`); the pattern is the circuit breaker of
M. Nygard, *Release It!* (2007), chapter 5, with one probe as its half-open state.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

import psycopg
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from scratchfs.engine.postgres_connect import BoundedConnection, NoReply, connect_kwargs, reply_timeout
from scratchfs.engine.postgres_schema import probe
from scratchfs.foundation import forks
from scratchfs.foundation.errors import StoreClosed

__all__ = ["DOWN_SECONDS", "FIRST_WAIT", "KEPT_FREE", "IndexPool", "Turn", "local_turn"]

FIRST_WAIT = 0.25
"""Seconds a wait for a pooled connection lasts before the server is asked whether it is up."""
DOWN_SECONDS = 1.0
"""Seconds after a refused probe during which every operation fails at once with the probe's error."""
KEPT_FREE = 2
"""Pooled connections that calls which may hold one long (a write's transaction around its blob's S3 ``HEAD``) leave
to the rest (reads, a delete's statements): :attr:`IndexPool.long_slots` is the pool's size less these, at least 1."""


class IndexPool:
    """One connection pool per process for ``dsn`` (a ``fork()`` child makes its own and leaves its parent's alone).

    Args:
        dsn: a libpq connection string or URL (never logged).
        busy_timeout: seconds an operation waits for a connection of a server that is up (and the connect timeout,
            at most 10 s, of each connection).
        pool_size: most connections this process keeps open.
        configure: run on each new connection (session settings).
    """

    def __init__(self, dsn: str, busy_timeout: float, pool_size: int,
                 configure: Callable[[psycopg.Connection], None]) -> None:
        self._dsn = dsn
        self.busy_timeout = busy_timeout
        self._size = max(1, pool_size)
        self.long_slots = max(1, self._size - KEPT_FREE)
        """How many of this process's threads may hold a connection across a call that may take long (a write's
        S3 check): the others wait their turn (:func:`local_turn`) holding none."""
        self._configure = configure
        self._lock = forks.renewed_in_child(self, "_lock", threading.Lock)  # (held while a pool opens)
        self._pid = -1
        self._pool: ConnectionPool | None = None
        self._inherited: list[ConnectionPool] = []  # a fork() parent's pool: kept, never used or closed here
        self.closed = False
        self._down: tuple[float, psycopg.Error] | None = None  # (until, monotonic seconds; the probe's error)
        self.turns: dict[str, Turn] = forks.renewed_in_child(self, "turns", dict)  # (local_turn's, by name)
        self._waiting: dict[int, psycopg.Connection] = forks.renewed_in_child(self, "_waiting", dict)

    def turn(self, name: str, slots: int = 1) -> Turn:
        """This process's :class:`Turn` called ``name`` (made on first use with ``slots`` holders at a time; one per
        lock the server holds too, or per kind of long hold of a connection)."""
        with self._lock:
            found = self.turns.get(name)
            if found is None:
                found = self.turns[name] = Turn(slots)
                found.closed = self.closed
            return found

    @contextmanager
    def waiting(self, conn: psycopg.Connection) -> Iterator[None]:
        """Mark ``conn`` as waiting on the server for a lock, for the duration: :meth:`close` cancels its statement
        (the waiter then sees :attr:`closed` and raises :class:`StoreClosed`), so no wait outlives the store.

        Raises:
            StoreClosed: the pool is closed already.
        """
        with self._lock:
            if self.closed:
                raise StoreClosed("the store is closed")
            self._waiting[id(conn)] = conn
        try:
            yield
        finally:
            with self._lock:
                self._waiting.pop(id(conn), None)

    def pool(self) -> ConnectionPool:
        """This process's pool, opened on first use.

        Raises:
            StoreClosed: after :meth:`close`. psycopg.Error: the server refuses, or the password or database is
            wrong (one connection is made first, so the reason is the server's, not a pool timeout's).
            PoolTimeout: the pool could not open within ``busy_timeout``.
        """
        if self._pid == os.getpid() and self._pool is not None:
            return self._pool
        with self._lock:
            if self.closed:
                raise StoreClosed("the store is closed")
            if self._pid != os.getpid() or self._pool is None:
                if self._pool is not None:
                    self._inherited.append(self._pool)
                probe(self._dsn, self.busy_timeout)
                pool = ConnectionPool(
                    self._dsn, min_size=1, max_size=self._size, open=False, timeout=max(self.busy_timeout, 0.1),
                    kwargs={"autocommit": True, **connect_kwargs(self.busy_timeout)}, configure=self._setup,
                    check=self._check, reconnect_timeout=max(self.busy_timeout, 1.0), name="scratchfs-index",
                    connection_class=BoundedConnection,
                )
                try:
                    pool.open(wait=True, timeout=max(self.busy_timeout, 1.0))
                except BaseException:
                    pool.close(timeout=0)
                    raise
                self._pool, self._pid = pool, os.getpid()
        return self._pool

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A pooled connection (autocommit) for one operation, returned to the pool after it.

        Raises:
            psycopg.Error: the server refuses a fresh connection (at once; see the module docstring), or a statement
            of the operation failed. PoolTimeout: no connection within ``busy_timeout`` from a server that is up.
            StoreClosed: after :meth:`close`.
        """
        with ExitStack() as stack:
            try:
                conn = self._enter(stack, self.pool())
            except PoolClosed:  # closed by another thread between the open check and the checkout (or while waiting)
                if not self.closed:
                    raise
                raise StoreClosed("the store is closed") from None
            try:
                yield conn
            except NoReply as exc:
                self._trip(exc)
                raise

    def _setup(self, conn: BoundedConnection) -> None:
        conn.reply_after = reply_timeout(self.busy_timeout)
        self._configure(conn)

    def _check(self, conn: BoundedConnection) -> None:
        """The pool's check of a connection on checkout (an empty query, bounded): a server that does not answer
        trips the circuit breaker."""
        try:
            ConnectionPool.check_connection(conn)
        except NoReply as exc:
            self._trip(exc)
            raise

    def _trip(self, exc: psycopg.Error) -> None:
        self._down = (time.monotonic() + DOWN_SECONDS, exc)

    def _enter(self, stack: ExitStack, pool: ConnectionPool) -> psycopg.Connection:
        down = self._down  # (a server that did not answer: even a pooled connection's check would wait for it)
        if down is not None and isinstance(down[1], NoReply) and time.monotonic() < down[0]:
            raise down[1].with_traceback(None)
        first = min(self.busy_timeout, FIRST_WAIT)
        try:
            return stack.enter_context(pool.connection(timeout=first))
        except PoolTimeout:
            if first >= self.busy_timeout:
                raise
            self._check_up()
        return stack.enter_context(pool.connection(timeout=self.busy_timeout - first))

    def _check_up(self) -> None:
        """Return if the server lets a fresh connection in (or says it is only busy); else raise its error."""
        down = self._down
        if down is not None and time.monotonic() < down[0]:
            raise down[1].with_traceback(None)  # (not the tracebacks of every earlier raise)
        try:
            probe(self._dsn, self.busy_timeout)
        except psycopg.Error as exc:
            self._trip(exc)
            raise
        self._down = None

    def close(self) -> None:
        """Close this process's pool (a forked child leaves its parent's alone). Idempotent."""
        with self._lock:
            self.closed = True
            pool, self._pool = self._pool, None
            turns, waiting = list(self.turns.values()), list(self._waiting.values())
        for turn in turns:  # (a thread waiting for its turn, or for the server's lock, stops now: StoreClosed)
            turn.close()
        for conn in waiting:
            try:
                conn.cancel_safe(timeout=min(self.busy_timeout, 5.0))
            except psycopg.Error:  # (the server gone: the wait ends with the connection's own reply timeout)
                pass
        if pool is not None and self._pid == os.getpid():
            pool.close(timeout=5)


class Turn:
    """A lock of this process (or a semaphore: ``slots`` holders at a time) whose waits :meth:`close` ends: the
    threads waiting then raise :class:`StoreClosed` (a ``threading.Lock`` was waited on past ``close()``, up to its
    timeout)."""

    def __init__(self, slots: int = 1) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._held = 0
        self.slots = max(1, slots)
        self.closed = False

    def take(self, wait: float | None) -> bool:
        """Take the turn, waiting up to ``wait`` seconds (``None`` or 0: not at all); False if it did not come.

        Raises:
            StoreClosed: the store is closed, or closed while this waited.
        """
        deadline = time.monotonic() + (wait or 0.0)
        with self._cond:
            while self._held >= self.slots and not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            if self.closed:
                raise StoreClosed("the store is closed")
            self._held += 1
            return True

    def give(self) -> None:
        """Give the turn back (to the next waiter)."""
        with self._cond:
            self._held -= 1
            self._cond.notify_all()

    def close(self) -> None:
        """End every wait for this turn, now and later (:class:`StoreClosed`)."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()


@contextmanager
def local_turn(turn: Turn, wait: float | None) -> Iterator[float | None]:
    """This process's turn at a lock the server holds too (the sweep's, the delete's, a write's wait behind a
    delete): ``turn`` taken first, waiting up to ``wait`` seconds (``None`` or 0: not at all), so that threads
    waiting for the server's lock never each hold a pooled connection meanwhile -- the holder, needing one more,
    waited for them: the pool starved, every call of the store ``StoreBusy`` for the busy timeout. Yields the seconds
    of ``wait`` left, or None when the turn did not come (``turn`` is then not held).

    Raises:
        StoreClosed: the store is closed, or closed while this waited (:meth:`Turn.close`).
    """
    start = time.monotonic()
    got = turn.take(wait)
    try:
        yield max(0.0, (wait or 0.0) - (time.monotonic() - start)) if got else None
    finally:
        if got:
            turn.give()
