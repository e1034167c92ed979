"""The index's statements for a large store (issue 13): deletes in short batches, clock-step caps, slices, pages.

A mixin of :class:`scratchfs.engine.sqlite_index.Index` (it uses the index's ``conn``/``read``/``write``); kept apart
so the index module stays readable. Every statement here is one short transaction or one bounded read.

* **Deletes in batches.** ``delete_run``/``delete_agent`` first record the scope in ``deleted_scopes`` with ``upto`` =
  the largest row id at that instant (:meth:`ScaleQueries.hide_scope`, one short transaction under the exclusive delete
  lock, see :mod:`scratchfs.engine.local_blobs`). From that commit on, every row of the scope with ``id <= upto`` is
  invisible to lookups, listings, usage and quota (:data:`VISIBLE`), and a read of one says Deleted. The rows are then
  deleted in batches of :data:`DELETE_BATCH_ROWS` (:meth:`ScaleQueries.drain_scope`), each its own transaction, and the
  record goes with the last batch, leaving a tombstone of the scope (kind and key empty) that a write the delete
  overtook is told deleted by (:meth:`ScaleQueries.overtaken`). A new row always gets an id above every ``upto``
  (:data:`NEXT_ID`), so a write committed after the delete survives it; a scratchpad row overwritten after the delete is
  replaced by a new row (:meth:`ScaleQueries.replace_hidden`). A delete that crashed half-way is finished by the next
  sweep (:meth:`ScaleQueries.pending_deletes`).
* **Clock steps.** An entry is *born* at ``expires_at - ttl`` (written, or last refreshed). One born in the future
  (the clock stepped back since) has ``expires_at`` capped at ``now + ttl`` (:meth:`ScaleQueries.cap_future`, by the
  index ``entries_born``), so it outlives its TTL by no more than the step, and by no more than its TTL.
  :meth:`ScaleQueries.expire_now` removes an expired row when a read reports it Expired, so a clock stepping back
  cannot revive it.
* **Slices and pages**: rows by id in bounded slices (the sweep's incremental check of files), entries in keyset
  pages (``scratchfs ls``), per-scope aggregates computed by SQLite (``scratchfs stats``).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable

from scratchfs.engine.batches import BatchSizer
from scratchfs.engine.keyset import page_filter
from scratchfs.engine.protocols import Entry, ExpiredRow
from scratchfs.foundation.errors import ScratchError
from scratchfs.foundation.limits import TOMBSTONE_SECONDS

DELETE_BATCH_ROWS = 128
"""Rows of the first write transaction of :meth:`ScaleQueries.drain_scope` (then adapted to time, see
:mod:`scratchfs.engine.batches`)."""

PAUSE_RATIO = 1.0
"""A batched job pauses this many times its last transaction's duration before the next one."""

CAP_BATCH_ROWS = 256
"""Rows of the first write transaction of :meth:`ScaleQueries.cap_future` over the whole table."""

VISIBLE = ("(NOT EXISTS (SELECT 1 FROM deleted_scopes) OR NOT EXISTS (SELECT 1 FROM deleted_scopes d "
           "WHERE d.run_id = entries.run_id AND d.agent_id IN ('', entries.agent_id) AND entries.id <= d.upto))")
"""SQL condition: a row of ``entries`` not hidden by a delete in progress. Its first half is a subquery of no row
(SQLite evaluates it once a statement, and ``OR`` stops there): with no delete in progress -- nearly always -- a
listing of 10,000 rows probes ``deleted_scopes`` once, not once a row (about 10 ms less of T8's listing)."""

NEXT_ID = ("(SELECT MAX(COALESCE((SELECT MAX(id) FROM entries), 0), "
           "COALESCE((SELECT MAX(upto) FROM deleted_scopes), 0)) + 1)")
"""SQL expression: the id of a new row, above every row and every delete's ``upto``."""

_COLUMNS = (
    "kind, run_id, agent_id, key, blob, size, stored_size, frames, lines, preview, source_tool, content_type, shape, "
    "created_at, expires_at, ttl"
)


def _named(name: str) -> str:
    return f":{name}"


def _scope_where(run_id: str, agent_id: str | None) -> tuple[str, tuple]:
    if agent_id is None:
        return "run_id = ?", (run_id,)
    return "run_id = ? AND agent_id = ?", (run_id, agent_id)


class ScaleQueries:
    """Statements mixed into the index (see the module docstring). Times are epoch seconds of the store clock."""

    # uses the index's read(sql, params, doing), write(doing, batch) (one BEGIN IMMEDIATE transaction) and
    # between_batches() (the write-ahead log settled between a batched job's transactions)

    # -- deletes in batches -------------------------------------------------------------------------------------

    def hide_scope(self, run_id: str, agent_id: str | None, now: float) -> int:
        """Make every current row of a run (or of one agent) invisible, in one short transaction; return ``upto``,
        the largest row id at that instant, for :meth:`drain_scope`. Call it under the exclusive delete lock."""
        def body(conn: sqlite3.Connection) -> int:
            upto = conn.execute(f"SELECT {NEXT_ID} - 1").fetchone()[0]
            conn.execute("INSERT OR IGNORE INTO deleted_scopes VALUES (?, ?, ?, ?)",
                         (run_id, agent_id or "", upto, now))
            return upto

        def took_effect(upto: int) -> bool:  # a COMMIT that failed after taking effect: the delete stands
            return bool(self.read("SELECT 1 FROM deleted_scopes WHERE run_id = ? AND agent_id = ? AND upto = ?",
                                  (run_id, agent_id or "", upto), "checking a failed delete"))

        return self._decided("deleting a run", body, took_effect)

    def drain_scope(self, run_id: str, agent_id: str | None, upto: int, now: float,
                    batch: int = DELETE_BATCH_ROWS, sizer: BatchSizer | None = None) -> tuple[int, float]:
        """Delete the rows :meth:`hide_scope` hid, in transactions sized by ``sizer`` (default: one starting at
        ``batch`` rows, adapting to time, see :mod:`scratchfs.engine.batches`); live rows leave a tombstone; the
        record of the delete goes with the last batch. Return ``(rows deleted, longest transaction in seconds)``."""
        where, params = _scope_where(run_id, agent_id)
        reason = "deleted with its run" if agent_id is None else "deleted with its agent"
        sizer = sizer or BatchSizer(batch)

        def step(conn: sqlite3.Connection, want: int) -> int:
            rows = conn.execute(
                f"SELECT id, agent_id, kind, key, expires_at FROM entries WHERE {where} AND +id <= ? LIMIT ?",
                (*params, upto, want),
            ).fetchall()
            conn.executemany("DELETE FROM entries WHERE id = ?", [(r[0],) for r in rows])
            conn.executemany("INSERT OR REPLACE INTO gone VALUES (?, ?, ?, ?, ?, ?)",
                             [(run_id, r[1], r[2], r[3], reason, now) for r in rows if r[4] > now])
            if len(rows) < want:  # the delete's mark goes; its tombstone of the scope (kind and key '') stays
                conn.execute("DELETE FROM deleted_scopes WHERE run_id = ? AND agent_id = ? AND upto = ?",
                             (run_id, agent_id or "", upto))
                conn.execute("INSERT OR REPLACE INTO gone VALUES (?, ?, '', '', ?, ?)",
                             (run_id, agent_id or "", reason, now))
            return len(rows)

        return self.in_batches("deleting a run", sizer, step), sizer.longest

    def in_batches(self, doing: str, sizer: BatchSizer, step: Callable[[sqlite3.Connection, int], int]) -> int:
        """Call ``step(conn, rows)`` in one write transaction after another, each asked for ``sizer.size`` rows and
        timed (from holding the write lock to the end of ``COMMIT``, by ``sizer.clock``) for the next size, until a
        step does fewer rows than asked; return the sum of what the steps returned (rows done).

        Between two transactions the job pauses as long as the last one took (:data:`PAUSE_RATIO`), so that it
        holds SQLite's write lock at most about half the time: a writer waiting on the lock polls it on its own
        schedule (SQLite's busy handler sleeps 1, 2, 5, ... 100 ms between tries), so back-to-back batches could
        keep it waiting for the whole drain (the other process's worst spill during a 50k-row ``delete_run`` is a
        figure of ``python bench/run.py --growth``).

        No ``COMMIT`` of the job checkpoints the write-ahead log (two ``fsync`` calls, which would be timed as the
        batch's); the log is settled between batches when due instead, and checkpointed after the last
        (:mod:`scratchfs.engine.wal_checkpoints`)."""
        total = 0
        try:
            while True:
                want = sizer.size
                held = time.perf_counter()
                with self.write(doing, batch=True) as conn:
                    started = sizer.clock()
                    done = step(conn, want)
                sizer.took(sizer.clock() - started, done)
                total += done
                if done < want:
                    return total
                time.sleep(PAUSE_RATIO * (time.perf_counter() - held))  # let waiting writers in
                self.between_batches()
        finally:
            with contextlib.suppress(ScratchError, sqlite3.Error):
                self.between_batches(last=True)

    def pending_deletes(self) -> list[tuple[str, str | None, int, float]]:
        """``(run_id, agent_id or None, upto, at)`` of every delete recorded but not finished."""
        rows = self.read("SELECT run_id, agent_id, upto, at FROM deleted_scopes", (), "listing deletes")
        return [(r[0], r[1] or None, r[2], r[3]) for r in rows]

    @staticmethod
    def replace_hidden(conn: sqlite3.Connection, run_id: str, agent_id: str, kind: str, key: str) -> bool:
        """Inside a write: delete the row of this key if a delete in progress hides it (a scratchpad overwrite
        after the delete then inserts a new, visible row). Return True if one was deleted."""
        return conn.execute(
            f"DELETE FROM entries WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ? AND NOT {VISIBLE}",
            (run_id, agent_id, kind, key),
        ).rowcount > 0

    @staticmethod
    def overtaken(conn: sqlite3.Connection, run_id: str, agent_id: str, kind: str, key: str) -> None:
        """Inside a write whose blob a delete of its run or agent took away before its row was written: leave that
        delete's tombstone for the key (the delete in progress, else the newest of the scope or its run: a finished
        one leaves a tombstone of its scope, found entries or not), so that a read of it says Deleted ("... was
        deleted with its run at ..."), as it does for the entries the delete found.

        Raises:
            sqlite3.Error: the caller's transaction types it.
        """
        found = conn.execute(
            "SELECT CASE agent_id WHEN '' THEN 'deleted with its run' ELSE 'deleted with its agent' END, at "
            "FROM deleted_scopes WHERE run_id = ? AND agent_id IN ('', ?) UNION ALL SELECT reason, at FROM gone "
            "WHERE run_id = ? AND agent_id IN ('', ?) AND reason IN ('deleted with its run', 'deleted with its agent') "
            "ORDER BY 2 DESC LIMIT 1", (run_id, agent_id, run_id, agent_id)).fetchone()
        if found is not None:
            conn.execute("INSERT OR REPLACE INTO gone VALUES (?, ?, ?, ?, ?, ?)", (run_id, agent_id, kind, key, *found))

    def scope_deleted_at(self, run_id: str, agent_id: str) -> float | None:
        """When the latest delete in progress of this agent or its run began (epoch seconds, the deleter's clock), or
        ``None``: a journal's recovery restores no row written before it (its deleter was killed before it moved the
        directory away). Raises StoreBusy, StorageError."""
        rows = self.read("SELECT MAX(at) FROM deleted_scopes WHERE run_id = ? AND agent_id IN ('', ?)",
                         (run_id, agent_id), "looking up the deletes in progress")
        return rows[0][0] if rows else None

    def hidden_reason(self, run_id: str, agent_id: str, kind: str, key: str) -> tuple[str, float] | None:
        """``(reason, at)`` if a delete in progress hides the row of this key, else ``None``."""
        rows = self.read(
            "SELECT CASE d.agent_id WHEN '' THEN 'deleted with its run' ELSE 'deleted with its agent' END, d.at "
            "FROM entries JOIN deleted_scopes d ON d.run_id = entries.run_id "
            "AND d.agent_id IN ('', entries.agent_id) AND entries.id <= d.upto "
            "WHERE entries.run_id = ? AND entries.agent_id = ? AND entries.kind = ? AND entries.key = ? LIMIT 1",
            (run_id, agent_id, kind, key), "looking up an entry",
        )
        return (rows[0][0], rows[0][1]) if rows else None

    # -- the whole-scope forms of IndexBackend (the store and the sweep use the batched ones above) ---------------

    def delete_scope(self, run_id: str, agent_id: str | None, now: float) -> int:
        """Hide a run (or agent) and delete all its rows at once (:meth:`hide_scope` then :meth:`drain_scope`);
        return the rows deleted."""
        return self.drain_scope(run_id, agent_id, self.hide_scope(run_id, agent_id, now), now)[0]

    def pop_expired(self, now: float, limit: int) -> list[ExpiredRow]:
        """Delete up to ``limit`` expired rows and return them (:meth:`expired_batch` then :meth:`delete_expired`:
        the caller removes their files after, not before)."""
        batch = self.expired_batch(now, limit)
        self.delete_expired(batch, now)
        return batch

    # -- expiry, files first -------------------------------------------------------------------------------------

    def expired_batch(self, now: float, limit: int) -> list[ExpiredRow]:
        """Up to ``limit`` expired rows (``expires_at <= now``), read without writing: the sweep removes their files
        first (freeing space), then deletes them with :meth:`delete_expired`."""
        rows = self.read("SELECT run_id, agent_id, blob, stored_size FROM entries WHERE expires_at <= ? LIMIT ?",
                         (now, limit), "listing expired entries")
        return [ExpiredRow(*row) for row in rows]

    def delete_expired(self, rows: list[ExpiredRow], now: float, sizer: BatchSizer | None = None) -> int:
        """Delete the rows of :meth:`expired_batch` in one transaction, each only if it still names the same blob and
        is still expired; a recent one leaves an ``expired`` tombstone. Return the rows deleted. The transaction's
        time is reported to ``sizer`` (which sizes the caller's next :meth:`expired_batch`)."""
        if not rows:
            return 0
        blobs = [(row.blob, now) for row in rows]
        clock = sizer.clock if sizer is not None else time.perf_counter
        with self.write("sweeping expired entries") as conn:
            started = clock()
            conn.executemany(
                "INSERT OR REPLACE INTO gone SELECT run_id, agent_id, kind, key, 'expired', expires_at FROM entries "
                f"WHERE blob = ? AND expires_at <= ? AND expires_at > {now - TOMBSTONE_SECONDS!r}", blobs)
            deleted = sum(conn.execute("DELETE FROM entries WHERE blob = ? AND expires_at <= ?", b).rowcount
                          for b in blobs)
        if sizer is not None:
            sizer.took(clock() - started, len(rows))
        return deleted

    # -- clock steps ------------------------------------------------------------------------------------------------

    def cap_future(self, now: float, run_id: str | None = None, agent_id: str = "", kind: str = "",
                   key: str = "", sizer: BatchSizer | None = None, slack: float = 0.0) -> int:
        """Set ``expires_at = now + ttl`` on rows born after ``now + slack`` (``expires_at - ttl > now + slack``:
        the clock stepped back since they were written or refreshed); of one key, or of every row (read first: no
        write when none is; else in transactions sized by ``sizer``, by the index ``entries_born``). Return the rows
        changed. ``slack`` (seconds, every row only): rows born that little after ``now`` are writes that committed
        since the caller read the clock, not a clock step (the sweep passes ``CLOCK_SLACK_SECONDS``)."""
        if run_id is not None:
            with self.write("capping entries born in the future") as conn:
                return conn.execute(
                    "UPDATE entries SET expires_at = ? + ttl WHERE expires_at - ttl > ? "
                    "AND run_id = ? AND agent_id = ? AND kind = ? AND key = ?",
                    (now, now, run_id, agent_id, kind, key)).rowcount
        born = now + slack
        if not self.read("SELECT 1 FROM entries WHERE expires_at - ttl > ? LIMIT 1", (born,), "looking up entries"):
            return 0
        return self.in_batches("capping entries born in the future", sizer or BatchSizer(CAP_BATCH_ROWS),
                               lambda conn, want: conn.execute(
                                   "UPDATE entries SET expires_at = ? + ttl WHERE id IN (SELECT id FROM entries "
                                   "WHERE expires_at - ttl > ? LIMIT ?)", (now, born, want)).rowcount)

    def expire_now(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> str | None:
        """If the row of this key has expired (``expires_at <= now``), delete it, leave an ``expired`` tombstone and
        return its blob token (the caller removes the file); else ``None``. Reads first: no write when there is
        nothing to do."""
        where = "WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ? AND expires_at <= ?"
        params = (run_id, agent_id, kind, key, now)
        if not self.read(f"SELECT 1 FROM entries {where}", params, "looking up an entry"):
            return None
        with self.write("expiring an entry") as conn:
            row = conn.execute(f"SELECT id, blob, expires_at FROM entries {where}", params).fetchone()
            if row is None:
                return None
            conn.execute("DELETE FROM entries WHERE id = ?", (row[0],))
            if row[2] > now - TOMBSTONE_SECONDS:
                conn.execute("INSERT OR REPLACE INTO gone VALUES (?, ?, ?, ?, 'expired', ?)",
                             (run_id, agent_id, kind, key, row[2]))
        return row[1]

    # -- slices and pages -----------------------------------------------------------------------------------------

    def known_blobs(self, tokens: list[str]) -> set[str]:
        """Those of ``tokens`` that a row names (one query per 500 tokens, by the unique index on ``blob``)."""
        return {row[0] for row in self._by_blob("blob", tokens, "listing blobs")}

    def blob_scopes(self, blobs: list[str]) -> dict[str, tuple[str, str]]:
        """``{blob: (run_id, agent_id)}`` of the rows that name any of ``blobs`` (one query per 500 blobs, by the
        unique index on ``blob``)."""
        return {row[0]: (row[1], row[2]) for row in self._by_blob("blob, run_id, agent_id", blobs, "looking up blobs")}

    def _by_blob(self, columns: str, blobs: list[str], what: str) -> list[tuple]:
        """``columns`` of the rows naming any of ``blobs``, 500 blobs a query (SQLite's bound on parameters)."""
        rows: list[tuple] = []
        for i in range(0, len(blobs), 500):
            part = blobs[i:i + 500]
            rows += self.read(f"SELECT {columns} FROM entries WHERE blob IN ({','.join('?' * len(part))})",
                              tuple(part), what)
        return rows

    def blob_rows_after(self, after_id: int, limit: int) -> list[tuple[int, str, str, str]]:
        """``(id, run_id, agent_id, blob)`` of up to ``limit`` rows with ``id > after_id``, by id."""
        return self.read("SELECT id, run_id, agent_id, blob FROM entries WHERE id > ? ORDER BY id LIMIT ?",
                         (after_id, limit), "listing blobs")

    def page(self, now: float, after: tuple[str, float, int] | None, limit: int, run_id: str | None = None,
             agent_id: str | None = None, kind: str | None = None) -> list[tuple[Entry, tuple[str, float, int]]]:
        """Up to ``limit`` live entries (of one run, agent and kind -- ``"handle"`` or ``"scratch"`` -- when given)
        ordered by ``(run_id, created_at, id)`` after the cursor ``after`` (the cursor of the last entry of the
        previous page; ``None`` for the first), each with its own cursor. One bounded read: of one run, a range of the
        index ``entries_run_created``, or of ``entries_run_kind_created`` for one kind, so that rows of the other
        kind are never read (:mod:`scratchfs.engine.keyset`)."""
        where = page_filter(run_id, agent_id, kind, after, _named)
        if where is None:
            return []
        conditions, params = where
        sql = " AND ".join([f"SELECT {_COLUMNS}, id FROM entries WHERE expires_at > :now", VISIBLE, *conditions])
        rows = self.read(sql + " ORDER BY run_id, created_at, id LIMIT :limit", {**params, "now": now,
                                                                                "limit": limit}, "listing entries")
        return [(Entry._make(r[:-1]), (r[1], r[13], r[-1])) for r in rows]

    def count_after(self, now: float, after: tuple[str, float, int] | None, run_id: str | None = None,
                    agent_id: str | None = None, kind: str | None = None) -> int:
        """How many live entries :meth:`page` would list after the cursor ``after`` (of one run, agent and kind when
        given): one ``COUNT`` by SQLite over the range :meth:`page` reads, no row loaded."""
        where = page_filter(run_id, agent_id, kind, after, _named)
        if where is None:
            return 0
        conditions, params = where
        sql = " AND ".join(["SELECT COUNT(*) FROM entries WHERE expires_at > :now", VISIBLE, *conditions])
        return self.read(sql, {**params, "now": now}, "counting entries")[0][0]

    def scope_stats(self, now: float, soon: float, run_id: str | None = None) -> list[tuple]:
        """Per ``(run_id, agent_id)``, aggregated by SQLite: ``(run_id, agent_id, live entries, handles, scratch,
        bytes in, bytes on disk, oldest created_at, next expiry, expiring within soon seconds, expired entries
        not swept yet, their bytes on disk, newest created_at)`` (``None`` for the times of a scope with no live
        entry); an entry born in the future expires at most its ttl from ``now``, as
        :meth:`~scratchfs.engine.protocols.Entry.expires_in` says."""
        live = "expires_at > :now"
        sql = (f"SELECT run_id, agent_id, SUM({live}), SUM(kind = 'handle' AND {live}), "
               f"SUM(kind = 'scratch' AND {live}), SUM(CASE WHEN {live} THEN size ELSE 0 END), "
               f"SUM(CASE WHEN {live} THEN stored_size ELSE 0 END), MIN(CASE WHEN {live} THEN created_at END), "
               f"MIN(CASE WHEN {live} THEN MIN(expires_at, :now + ttl) END), "
               f"SUM({live} AND MIN(expires_at - :now, ttl) <= :soon), "
               "SUM(expires_at <= :now), SUM(CASE WHEN expires_at <= :now THEN stored_size ELSE 0 END), "
               f"MAX(CASE WHEN {live} THEN created_at END) FROM entries WHERE {VISIBLE}")
        params: dict = {"now": now, "soon": soon}
        if run_id is not None:
            sql += " AND run_id = :run"
            params["run"] = run_id
        sql += " GROUP BY run_id, agent_id ORDER BY run_id, agent_id"
        return self.read(sql, params, "aggregating entries")

    def blob_rows(self) -> list[tuple[int, str, str, str]]:
        """``(id, run_id, agent_id, blob)`` of every row, expired or not."""
        return self.read("SELECT id, run_id, agent_id, blob FROM entries", (), "listing blobs")

    def blobs(self) -> set[str]:
        """The blob token of every row."""
        return {row[0] for row in self.read("SELECT blob FROM entries", (), "listing blobs")}

    def has_blob(self, blob: str) -> bool:
        """True if a row names this blob token."""
        return bool(self.read("SELECT 1 FROM entries WHERE blob = ?", (blob,), "looking up a blob"))

    def relocate(self, moves: list[tuple[str, str]]) -> int:
        """Point rows at a new copy of their blob, by ``(old blob, new blob)``, each only if it still names the old
        one (an overwrite or delete meanwhile wins), in one transaction; return rows moved (segment compaction)."""
        if not moves:
            return 0
        with self.write("moving rows to a compacted segment") as conn:
            return sum(conn.execute("UPDATE entries SET blob = ? WHERE blob = ?", (new, old)).rowcount
                       for old, new in moves)

    def integrity_check(self) -> str:
        """The result of ``PRAGMA integrity_check`` (``"ok"`` when the database is sound)."""
        return "\n".join(row[0] for row in self.read("PRAGMA integrity_check", (), "checking integrity"))


__all__ = [
    "CAP_BATCH_ROWS",
    "DELETE_BATCH_ROWS",
    "NEXT_ID",
    "PAUSE_RATIO",
    "VISIBLE",
    "ScaleQueries",
]
