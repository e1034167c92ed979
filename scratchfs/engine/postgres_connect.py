"""One connection to the PostgreSQL index whose every wait for the server is bounded client-side.

PostgreSQL's ``statement_timeout`` is the server's: a server whose processes are stopped (``SIGSTOP``), or whose host
is gone without a reset, never sends it, and psycopg waits for a reply as long as the hang lasts. psycopg 3's
``Connection.wait(gen, interval, timeout)`` (every query, fetch and check goes through it; psycopg 3.3.6 and later,
which ``pyproject.toml`` requires: before it, ``wait`` took no timeout) takes a timeout: a
:class:`BoundedConnection` passes :attr:`~BoundedConnection.reply_after` to it, closes the connection when it runs out
and raises :class:`NoReply`. libpq's ``tcp_user_timeout`` and keepalives (:func:`connect_kwargs`) bound the same at the
socket for a peer that is gone; ``connect_timeout`` bounds a connection attempt.

:func:`pipelined` runs one transaction in psycopg's pipeline mode (libpq's "Pipeline Mode", PostgreSQL 14 and later
clients; any server that speaks the extended query protocol), so that a write costs the fleet as few round trips as
its results allow.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

__all__ = ["BoundedConnection", "NoReply", "bounded_connect", "connect_kwargs", "pipelined", "reply_timeout"]


class NoReply(psycopg.OperationalError):
    """The server did not answer within the reply timeout (the connection was closed)."""


def reply_timeout(busy_timeout: float) -> float:
    """Seconds a wait for one reply of the server lasts: ``busy_timeout`` and a second (the server's
    ``statement_timeout``, ``busy_timeout``, answers first when the server runs)."""
    return max(busy_timeout, 0.1) + 1.0


def connect_kwargs(busy_timeout: float) -> dict:
    """libpq settings of every connection: a connect timeout (whole seconds, 1 to 10) and, for a peer whose host is
    gone, keepalives and ``tcp_user_timeout`` (milliseconds unacknowledged data may wait) of the reply timeout."""
    wait = reply_timeout(busy_timeout)
    return {"connect_timeout": max(1, min(int(busy_timeout) or 1, 10)), "keepalives": 1,
            "keepalives_idle": max(1, int(wait)), "keepalives_interval": 1, "keepalives_count": 3,
            "tcp_user_timeout": int(wait * 1000)}


class BoundedConnection(psycopg.Connection):
    """A psycopg connection whose every wait for the server lasts at most :attr:`reply_after` seconds (set after
    connecting; ``None``: unbounded, psycopg's own). A wait that runs out closes the connection and raises
    :class:`NoReply`."""

    reply_after: float | None = None

    def wait(self, gen, interval=0.1, timeout=None):  # (psycopg's signature)
        """psycopg's wait, bounded by :attr:`reply_after` when no timeout is given.

        Raises:
            NoReply: no reply within the bound (the connection is closed). psycopg.Error: as psycopg's.
        """
        bound = self.reply_after if timeout is None else timeout
        try:
            return super().wait(gen, interval=interval, timeout=bound)
        except psycopg.OperationalError as exc:
            if type(exc).__name__ != "_WaitTimeout" or timeout is not None:
                raise
            self.pgconn.finish()
        raise NoReply(f"no reply from the server within {bound:g} s (busy timeout and a second): the "
                      "server is stopped, overloaded or unreachable")


def bounded_connect(dsn: str, busy_timeout: float) -> BoundedConnection:
    """One autocommit :class:`BoundedConnection` to ``dsn`` (see :func:`connect_kwargs`).

    Raises:
        psycopg.OperationalError: the server refuses, cannot be reached within the connect timeout, or the password
        or database is wrong.
    """
    conn = BoundedConnection.connect(dsn, autocommit=True, **connect_kwargs(busy_timeout))
    conn.reply_after = reply_timeout(busy_timeout)
    return conn


@contextmanager
def pipelined(conn: psycopg.Connection) -> Iterator[psycopg.Connection]:
    """One transaction on the autocommit connection ``conn``, in pipeline mode: its ``BEGIN`` goes to the server with
    the first statements, its ``COMMIT`` with the last ones, and a result fetched in between (``fetchone``) costs one
    round trip (psycopg's ``transaction()`` block would add a sync at each end: a write of two batches took 4 round
    trips, and takes 2 so, counted by tests/test_fleet_round_trips.py). Rolled back on any exception.

    Raises:
        psycopg.Error: a statement failed (raised at the fetch or the end that sent it). Any exception of the body.
    """
    try:
        with conn.pipeline():
            conn.execute("BEGIN")
            yield conn
            conn.execute("COMMIT")
    except BaseException:
        if not conn.closed and conn.pgconn.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.rollback()
        raise
