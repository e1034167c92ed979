"""Expiry across clock steps, for the PostgreSQL index (:mod:`scratchfs.engine.postgres_index`), with the SQLite
index's answers (:class:`~scratchfs.engine.sqlite_scale.ScaleQueries`), so that clock steps -- the store's clock, or
the database server's, which decides expiry on a fleet -- do the same on every backend:

* :meth:`PostgresExpiry.expire_now`: a handle or scratchpad value a read reported ``Expired`` stays gone when the
  clock steps back;
* :meth:`PostgresExpiry.cap_future`: an entry born in the future (the clock stepped back since it was written) has its
  expiry capped at ``now + ttl`` by the sweep and, on the caller's clock, by a read of it, so it outlives its TTL by
  at most the step, and by at most its TTL once a read or sweep saw the corrected clock. (On the database clock a read
  leaves it to the sweep: a host's own clock may lag the server's, and every read would then write.)

And the tombstones' statements: :data:`MARK_DELETE`, a delete of a run or agent marked; :data:`OVERTAKEN`, the
tombstone of a write whose blob such a delete took first; :data:`DELETE_KEY`, a key's delete and its tombstone in
one statement."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from scratchfs.foundation.errors import StorageError
from scratchfs.foundation.limits import TOMBSTONE_SECONDS

__all__ = ["DB_NOW", "DELETE_KEY", "MARK_DELETE", "OVERTAKEN", "TOMBSTONED", "PostgresExpiry", "overtaken",
           "write_start"]

_KEY = "WHERE run_id = %(run)s AND agent_id = %(agent)s AND kind = %(kind)s AND key = %(key)s"
_WHERE = f"{_KEY} AND expires_at <= @NOW"
_CAP = "UPDATE @E SET expires_at = @NOW + ttl"
_EXPIRE = (
    f"WITH d AS (DELETE FROM @E {_WHERE} RETURNING blob, expires_at), "
    "t AS (INSERT INTO @G SELECT %(run)s, %(agent)s, %(kind)s, %(key)s, 'expired', expires_at FROM d "
    "WHERE expires_at > @NOW - %(keep)s ON CONFLICT (run_id, agent_id, kind, key) DO UPDATE SET "
    "reason = excluded.reason, at = excluded.at) SELECT blob FROM d"
)

DELETE_KEY = (
    f"WITH d AS (DELETE FROM @E {_KEY} RETURNING blob, expires_at, expires_at > @NOW AS live, @NOW AS now), "
    "t AS (INSERT INTO @G SELECT %(run)s, %(agent)s, %(kind)s, %(key)s, CASE WHEN live THEN 'deleted' ELSE "
    "'expired' END, CASE WHEN live THEN now ELSE expires_at END FROM d ON CONFLICT (run_id, agent_id, kind, key) DO "
    "UPDATE SET reason = excluded.reason, at = excluded.at) SELECT blob, live FROM d"
)
"""Delete the row of a key (parameters ``run``, ``agent``, ``kind``, ``key``, and ``now`` on the caller's clock) and
leave its tombstone -- ``deleted`` now if it was live, else ``expired`` at its expiry -- in one statement, so in one
round trip and atomic without a transaction (a data-modifying ``WITH``: PostgreSQL, "Data-Modifying Statements in
WITH"); answers the deleted row's ``(blob, live)``, or no row."""

TOMBSTONED = ("RETURNING run_id, agent_id, kind, key, expires_at), t AS (INSERT INTO @G SELECT run_id, agent_id, "
              "kind, key, %(reason)s, @NOW FROM d WHERE expires_at > @NOW ON CONFLICT (run_id, agent_id, kind, key) "
              "DO UPDATE SET reason = excluded.reason, at = excluded.at) SELECT count(*) FROM d")
"""The end of a delete's statement that begins ``WITH d AS (DELETE FROM @E WHERE ...``: the rows still live leave
a tombstone saying ``reason``, dated ``now``; answers how many rows it deleted."""

DB_NOW = "extract(epoch from statement_timestamp())::float8"
"""The database server's now, epoch seconds: the one clock every host shares."""

MARK_DELETE = (
    "INSERT INTO @S.scope_tombstones VALUES (%(run)s, %(scope)s, %(reason)s, @NOW, " + DB_NOW + ") ON CONFLICT "
    "(run_id, agent_id) DO UPDATE SET reason = excluded.reason, at = excluded.at, marked = excluded.marked"
)
"""Inside a delete of a run (``scope`` ``''``) or an agent (``scope``: its id): mark it, whether it found entries or
not, dated ``at`` on the store's clock (what a tombstone says) and ``marked`` on the database's clock (what orders
it against the writes it overtakes: :data:`OVERTAKEN`). One row per scope, the newest delete's."""

OVERTAKEN = (
    "INSERT INTO @G SELECT %(run)s, %(agent)s, %(kind)s, %(key)s, reason, at FROM @S.scope_tombstones WHERE run_id = "
    "%(run)s AND agent_id IN ('', %(agent)s) AND {since} >= %(since)s ORDER BY marked DESC LIMIT 1 "
    "ON CONFLICT (run_id, agent_id, kind, key) DO UPDATE SET reason = excluded.reason, at = excluded.at RETURNING at"
)
"""Inside the write of an entry whose blob a delete of its run or agent took before its row was written (the
parameters ``run``, ``agent``, ``kind``, ``key``, ``since``): copy that delete's mark (:data:`MARK_DELETE`) to the
key as its tombstone, so that a read of it says Deleted, as it does for the entries the delete found (as the SQLite
index's :meth:`~scratchfs.engine.sqlite_scale.ScaleQueries.overtaken`) -- a delete of a run that had no entry too.
``{since}`` is ``marked`` with ``since`` the write's start on the database's clock (:func:`write_start`: no host's
wall clock enters), else ``at`` with ``since`` its ``created_at`` (a blob that gives no start). Answers no row when
no delete of the scope is marked from the write's start on: no delete took the blob, which was removed some other
way -- a delete before the write began (a run deleted, then written again) took none of it."""


def write_start(began: float | None, proven: bool, created_at: float, sent: float, received: float, locked: float,
                back: float) -> tuple[str, float]:
    """:data:`OVERTAKEN`'s column and ``since``: the start of a write whose blob is gone, on the database's clock.

    ``began``, ``sent`` and ``back`` are the writer's ``time.monotonic()`` as its blob's write began, before its
    first statement was sent and once its answer was in; ``received`` and ``locked`` the database's epoch seconds
    as it received that statement and once it held the delete lock (``statement_timestamp()``,
    ``clock_timestamp()``). The start lies between ``locked - (back - began)`` and ``received - (sent - began)``,
    a window as wide as the statement's trip (and any stall of the writer around it), and which delete came first
    within it cannot be told by any clock. ``proven`` (the blob's ``exists()`` is False only when a delete moved it:
    local files): a delete took it, so the start is dated never late -- every delete after the start counts, and one
    before it could count only for a blob some other way removed, which raises first. Else (an S3 object, whose
    ``HEAD`` cannot say who removed it) never early: a delete before the start never counts, so a write whose object
    an orphan sweep or an outsider removed after an earlier delete fails instead of returning a handle that reads
    Deleted, and one overtaken within the window fails too (:func:`overtaken`). ``began`` ``None``: ``("at",
    created_at)``, the row's time on the store's clock."""
    if began is None:
        return "at", created_at
    return "marked", (locked - (back - began)) if proven else (received - (sent - began))


NEAR_START = ("SELECT 1 FROM @S.scope_tombstones WHERE run_id = %(run)s AND agent_id IN ('', %(agent)s) "
              "AND marked >= %(since)s LIMIT 1")


def overtaken(conn: Any, q: Any, ident: dict, key: str, start: tuple) -> None:
    """Inside the write of the entry ``ident`` (``run``, ``agent``, ``kind``, ``key``) whose blob is gone: give it
    the tombstone of the delete of its scope that took it (:data:`OVERTAKEN`), dated from the write's start
    (``start``: :func:`write_start`'s arguments); ``q``: the index's statement filler.

    Raises:
        StorageError: no delete of its scope is marked from its start on (nothing stored). When one is marked
            within the window :func:`write_start` cannot tell (from the start dated never late on), the message
            says a delete may have taken it.
    """
    column, since = write_start(*start)
    if conn.execute(q(OVERTAKEN.format(since=column)), {**ident, "since": since}).fetchone() is not None:
        return
    near = start[0] is not None and conn.execute(q(NEAR_START), {**ident, "since": write_start(
        start[0], True, *start[2:])[1]}).fetchone()
    raise StorageError(f"the blob of {key} was removed before its row was written: nothing stored" + (
        " (by a delete of its run or agent at about the write's start -- within the trip of its first statement to "
        "the database, where the two cannot be ordered -- or by something else)" if near else ""))


class PostgresExpiry:
    """:meth:`cap_future`, :meth:`expire_now` and :meth:`delete_scope` of
    :class:`~scratchfs.engine.postgres_index.PostgresIndex` (a mixin: it needs the index's ``read(text, params,
    doing)``, ``transaction(doing)`` and ``q(text)``)."""

    def read(self, text: str, params: dict, doing: str) -> list[tuple]:  # pragma: no cover - the index's
        raise NotImplementedError

    def transaction(self, doing: str) -> AbstractContextManager[Any]:  # pragma: no cover - the index's
        raise NotImplementedError

    def q(self, text: str) -> str:  # pragma: no cover - the index's
        raise NotImplementedError

    database_clock: bool = False  # the index's own (the server's clock decides expiry)

    def cap_future(self, now: float, run_id: str | None = None, agent_id: str = "", kind: str = "", key: str = "",
                   sizer: object = None, slack: float = 0.0) -> int:
        """Set ``expires_at = now + ttl`` on rows born after ``now + slack`` (``expires_at - ttl``, epoch seconds;
        ``now`` is the server's with the database clock): of one key (on the database clock none: see the module
        docstring), or of every row (``slack``, seconds: rows born that little ahead are writes committed since the
        caller read the clock). ``sizer`` is taken for the SQLite index's signature (one statement here). Return
        the rows changed. Raises StorageError, StoreBusy."""
        params = {"run": run_id, "agent": agent_id, "kind": kind, "key": key, "now": now, "slack": slack}
        if run_id is None:
            text = f"{_CAP} WHERE expires_at - ttl > @NOW + %(slack)s"
        elif self.database_clock:
            return 0
        else:
            text = f"{_CAP} {_KEY} AND expires_at - ttl > @NOW"
        with self.transaction("capping entries born in the future") as conn:
            return conn.execute(self.q(text), params).rowcount

    def expire_now(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> str | None:
        """If the row of this key has expired (``expires_at`` at or before ``now``, epoch seconds -- the server's
        now with the database clock), delete it, leave an ``expired`` tombstone (when it expired within
        :data:`~scratchfs.foundation.limits.TOMBSTONE_SECONDS`) and return its blob token (the caller removes the
        blob); else ``None``. Reads first: no write when there is nothing to do. Raises StorageError, StoreBusy."""
        params = {"run": run_id, "agent": agent_id, "kind": kind, "key": key, "now": now, "keep": TOMBSTONE_SECONDS}
        if not self.read(f"SELECT 1 FROM @E {_WHERE}", params, "looking up an entry"):
            return None
        with self.transaction("expiring an entry") as conn:
            row = conn.execute(self.q(_EXPIRE), params).fetchone()
        return None if row is None else row[0]

    def scope_detached(self, run_id: str, agent_id: str | None, now: float) -> None:
        """Date the mark of a delete of a run (or agent) again once its objects are removed (``now``: the store's
        clock then), still under the fleet's delete lock: a write whose upload began between the delete's
        transaction and its removal of objects lost its object to it, and is ordered before it (:data:`OVERTAKEN`
        compares the mark with the write's start), where the mark of the transaction predated that start and the
        spill failed, StorageError. Raises StorageError, StoreBusy."""
        params = {"run": run_id, "scope": agent_id or "", "now": now}
        with self.transaction("deleting a run") as conn:
            conn.execute(self.q("UPDATE @S.scope_tombstones SET marked = " + DB_NOW + ", at = GREATEST(at, @NOW) "
                                "WHERE run_id = %(run)s AND agent_id = %(scope)s"), params)

    def delete_scope(self, run_id: str, agent_id: str | None, now: float) -> int:
        """Delete every row of a run (``agent_id`` ``None``) or of one agent of it in one transaction; live rows
        leave a tombstone dated ``now`` (epoch seconds; the server's now on the database clock), and the delete its
        mark (:data:`MARK_DELETE`), found entries or not. Return the rows deleted.

        Raises:
            StoreBusy: the database stayed busy past the index's busy timeout; nothing deleted.
            StorageError: the database failed or could not be reached; nothing deleted."""
        where = "run_id = %(run)s" + ("" if agent_id is None else " AND agent_id = %(agent)s")
        reason = "deleted with its run" if agent_id is None else "deleted with its agent"
        params = {"run": run_id, "agent": agent_id, "scope": agent_id or "", "reason": reason, "now": now}
        with self.transaction("deleting a run") as conn:
            row = conn.execute(self.q(f"WITH d AS (DELETE FROM @E WHERE {where} {TOMBSTONED}"), params).fetchone()
            conn.execute(self.q(MARK_DELETE), params)  # (a write it overtakes reads Deleted: OVERTAKEN)
        return int(row[0])
