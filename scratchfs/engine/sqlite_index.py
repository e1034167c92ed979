"""The SQLite index: its schema and its queries (with :mod:`scratchfs.engine.sqlite_connections`, the only modules
that speak SQL).

Table ``entries``: one row per ``(run_id, agent_id, kind, key)``; ``kind`` is ``"handle"`` (a spilled result,
``key`` = its handle) or ``"scratch"`` (a scratchpad key). Times are epoch seconds (``REAL``) from the store's one
clock; sizes are bytes. A row names its blob file by ``blob`` (a random token, see :mod:`scratchfs.blobs`) and keeps
the per-frame newline counts of its content (``frame_newlines``, for line reads).

Table ``gone``: tombstones of entries expired, swept or deleted within the last :data:`TOMBSTONE_SECONDS`, so that a
read of one's own vanished entry can say what happened to it. They are looked up by the reader's own scope and key
only, so they reveal nothing of other scopes.

Connections (see :mod:`scratchfs.engine.sqlite_connections`): one per thread and per process, checked out for each
operation so that :meth:`Index.close` never closes one under a running statement, in WAL mode with
``synchronous=NORMAL`` (``FULL`` for durable stores) and the store's busy timeout. Every write is one short ``BEGIN
IMMEDIATE`` transaction, so writers queue on SQLite's lock instead of failing on a read-to-write upgrade; before its
``COMMIT`` the index file is checked to be the one the store opened. A lock still busy after the timeout raises
:class:`~scratchfs.foundation.errors.StoreBusy`; any other SQLite failure, of any statement, raises
:class:`~scratchfs.foundation.errors.StorageError` naming its cause; a closed store raises
:class:`~scratchfs.foundation.errors.StoreClosed`. The file is marked as ours (``PRAGMA application_id``, the
schema version in ``PRAGMA user_version``); the schema is created under a file lock, so many processes may open one
new root at once (:mod:`scratchfs.engine.sqlite_opening`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from scratchfs.engine.batches import BatchSizer, TxnLog
from scratchfs.engine.entry_sql import ENTRY_COLUMNS, UPSERT_SET
from scratchfs.engine.keyset import LISTING_ORDER, NEWEST_FIRST_ORDER
from scratchfs.engine.protocols import Entry, Gone, check_quota
from scratchfs.engine.sqlite_connections import Transaction
from scratchfs.engine.sqlite_errors import index_error
from scratchfs.engine.sqlite_opening import IndexOpening
from scratchfs.engine.sqlite_scale import NEXT_ID, VISIBLE, ScaleQueries
from scratchfs.engine.wal_checkpoints import Checkpoints
from scratchfs.engine.write_behind import HookedConnections, reader_hook
from scratchfs.foundation.errors import ScratchError, StorageError, StoreBusy
from scratchfs.foundation.limits import LOOKUP_CACHE_ENTRIES, TOMBSTONE_SECONDS

BATCH_START_ROWS = 256
"""Rows of the first transaction of a batched job of this module (then adapted to time)."""

# the one statement of a write, made once (the connection's statement cache then finds it by the same string)
_UPSERT = (f"INSERT INTO entries (id, {ENTRY_COLUMNS}, frame_newlines) VALUES "
           f"({NEXT_ID},?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) {UPSERT_SET}")
# a row or a tombstone of a key as new as a row restored from its blob (put's keep_times), which it never replaces
_HELD = ("SELECT 1 FROM entries WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ? AND created_at >= ? UNION "
         "ALL SELECT 1 FROM gone WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ? AND at >= ?")

T = TypeVar("T")


class Index(IndexOpening, ScaleQueries):
    """The entries table of one store.

    Opening checks that the file is a scratchfs index (``PRAGMA application_id``, the schema version in ``PRAGMA
    user_version``); an empty or missing file gets the schema, unless ``existing_data()`` says the store already
    holds blobs (then the index was lost or truncated, and opening it empty would hide them). A store whose index
    or directory cannot be written is opened read-only (see :attr:`read_only`): reads work, every write raises
    :class:`StorageError`. See :mod:`scratchfs.engine.sqlite_connections` for connections, identity and errors.

    Args:
        path: the SQLite file (created if missing).
        lock_dir: directory for the schema lock file.
        busy_timeout: seconds a statement waits for a lock before :class:`StoreBusy`.
        durable: ``synchronous=FULL`` instead of ``NORMAL``.
        existing_data: called when the index has no schema yet; True refuses to create one.

    Raises:
        StoreBusy: the schema lock or the database stayed locked past ``busy_timeout``.
        StorageError: the database cannot be opened, is another application's file, has a newer schema, is empty
            beside existing data, or is read-only and has no schema.
    """

    on_connect: Callable[[sqlite3.Connection], None] | None = None
    """Called with each new connection before its first use: a hook for fault injection in tests."""

    def __init__(self, path: Path, lock_dir: Path, busy_timeout: float, durable: bool = False,
                 existing_data: Callable[[], bool] | None = None) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self.connections = HookedConnections(path, busy_timeout, "FULL" if durable else "NORMAL", type(self).on_connect)
        self.existing_data = existing_data or (lambda: False)
        self.migrated_from: int | None = None
        """The schema version this object migrated the index from when it opened it, or ``None``."""
        self.txn_log = TxnLog()  # every write transaction of this object, by duration (see engine.batches)
        self.checkpoints = Checkpoints(lambda: self.connections.connect("checkpointing the index"),
                                       self.txn_log.checkpointed)
        try:
            self.open_file(lock_dir)
        except BaseException:
            self.close()  # refused (not ours, not a database, ...): leaves no connection open
            raise
        if self.connections.identity is not None:  # every use first commits the rows written behind in this process
            self.connections.before_use = reader_hook(self.connections.identity)

    @property
    def read_only(self) -> str | None:
        """Why the index cannot be written (a sentence naming the cause), or ``None``."""
        return self.connections.read_only

    # -- connections ----------------------------------------------------------------------------------------------

    def conn(self) -> sqlite3.Connection:
        """This thread's connection in this process, for tests and tools (statements of the index go through a
        checkout, :meth:`Connections.use`). Raises StoreClosed, StorageError, StoreBusy."""
        return self.connections.thread_connection()

    def close(self) -> None:
        """Close every connection this process opened, each once no statement runs on it (a forked child leaves its
        parent's alone); later calls raise :class:`StoreClosed`. Safe from any thread at any time. A checkpoint under
        way is waited for first (see :mod:`scratchfs.engine.wal_checkpoints`)."""
        self.checkpoints.close()
        self.connections.close()

    def release_thread(self) -> None:
        """Close the calling thread's connection now (for a thread about to end)."""
        self.connections.release_thread()

    def check_writable(self, doing: str) -> None:
        """Raise :class:`StoreClosed` when closed, :class:`StorageError` naming the cause when the store is read-only
        or its index was deleted or replaced; ``doing`` is a gerund phrase ("writing an entry")."""
        self.connections.check_writable(doing)

    def write(self, doing: str, batch: bool = False) -> Transaction:
        """One ``BEGIN IMMEDIATE`` transaction (a context manager giving the connection): committed on success
        (after checking that the index file is still the one opened), rolled back on any exception. Every
        :class:`sqlite3.Error` of the body becomes :class:`StorageError` or :class:`StoreBusy`. The rows it changed
        count towards the next checkpoint of the write-ahead log, run in the background (:class:`Checkpoints`);
        a ``batch`` job's commit never checkpoints itself (the job calls :meth:`between_batches`)."""
        checkpoints = self.checkpoints
        return Transaction(self.connections, doing, self.txn_log,
                           checkpoints.counted if batch else checkpoints.committed)

    def between_batches(self, last: bool = False) -> None:
        """A batched job's turn between its transactions (or after its ``last``): settles the write-ahead log if it
        is due, else checkpoints it after the last (:meth:`Checkpoints.between`). Raises StoreClosed (the store was
        closed meanwhile)."""
        conn = self.connections.acquire()
        try:
            self.checkpoints.between(conn, last)
        finally:
            self.connections.release(conn)

    def read(self, sql: str, params: tuple, doing: str) -> list[tuple]:
        """Run one read-only statement and return all rows. Raises StorageError, StoreBusy, StoreClosed."""
        conn = self.connections.acquire()
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise index_error(exc, doing, self.path) from exc
        finally:
            self.connections.release(conn)

    # -- entries --------------------------------------------------------------------------------------------------

    def lookup(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> Entry | None:
        """The live entry of a scope and key (``expires_at > now``), or ``None``.

        Answered from this thread's lookup cache while no connection has committed since (``PRAGMA data_version``;
        this connection's own commits empty it in :meth:`write`).
        """
        found = self.lookup_with_lines(run_id, agent_id, kind, key, now)
        return found[0] if found else None

    def lookup_with_lines(self, run_id: str, agent_id: str, kind: str, key: str,
                          now: float) -> tuple[Entry, bytes] | None:
        """Like :meth:`lookup`, with the entry's per-frame newline counts (``array('I')`` bytes)."""
        ident = (run_id, agent_id, kind, key)
        connections = self.connections
        conn = connections.acquire()  # not use(): this is the hot path of every read
        try:
            local = connections.local
            versions = conn.versions  # (this thread's cursor, kept: a new one per read cost ~0.3 us)
            if versions is None:
                versions = conn.versions = conn.cursor()
            version = versions.execute("PRAGMA data_version").fetchone()[0]
            if version != local.version:  # another connection committed since the cache was filled
                local.cache.clear()
                local.version = version
            cache = local.cache
            found = cache.get(ident)
            if found is None:
                row = conn.execute(
                    f"SELECT {ENTRY_COLUMNS}, frame_newlines FROM entries WHERE run_id = ? AND agent_id = ? "
                    f"AND kind = ? AND key = ? AND {VISIBLE}",
                    ident,
                ).fetchone()
                if row is None:
                    return None
                found = (Entry._make(row[:-1]), row[-1] or b"")
                if len(cache) >= LOOKUP_CACHE_ENTRIES:
                    cache.clear()
                cache[ident] = found
        except sqlite3.Error as exc:
            raise index_error(exc, "looking up an entry", self.path) from exc
        finally:
            connections.release(conn)
        return found if found[0].expires_at > now else None

    def gone(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> Gone | None:
        """Why the entry of a scope and key is not live: expired (row not swept yet) or a recent tombstone; ``None``
        if nothing is known (it never existed, or too long ago)."""
        rows = self.read(
            "SELECT 'expired', expires_at FROM entries WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ? "
            "AND expires_at <= ? AND expires_at > ? UNION ALL SELECT reason, at FROM gone WHERE run_id = ? "
            "AND agent_id = ? AND kind = ? AND key = ? AND at > ?",
            (run_id, agent_id, kind, key, now, now - TOMBSTONE_SECONDS, run_id, agent_id, kind, key,
             now - TOMBSTONE_SECONDS),
            "looking up an entry",
        )
        hidden = None if rows else self.hidden_reason(run_id, agent_id, kind, key)
        return Gone(*rows[0]) if rows else Gone(*hidden) if hidden else None

    def usage(self, run_id: str, now: float) -> tuple[int, int]:
        """``(stored bytes, entries)`` of a run's live entries."""
        with self.connections.use() as conn:
            return self._usage(conn, run_id, now)

    @staticmethod
    def _usage(conn: sqlite3.Connection, run_id: str, now: float) -> tuple[int, int]:
        try:
            row = conn.execute(
                "SELECT COALESCE(SUM(stored_size), 0), COUNT(*) FROM entries WHERE run_id = ? AND expires_at > ? "
                f"AND {VISIBLE}",
                (run_id, now),
            ).fetchone()
        except sqlite3.Error as exc:
            raise index_error(exc, "reading a run's usage", None) from exc
        return row[0], row[1]

    def _decided(self, doing: str, body: Callable[[sqlite3.Connection], T],
                 took_effect: Callable[[T], bool]) -> T:
        """Run ``body`` in one :meth:`write` transaction and return its result. A COMMIT can fail after it took
        effect (interrupted on its last step; an I/O error reported late), so when the commit of a completed body
        fails, ``took_effect(result)`` asks the index; if the change is there, the result stands (so that no caller
        removes the file of a row that exists, or keeps a file whose row is gone)."""
        box: list[T] = []
        try:
            with self.write(doing) as conn:
                box.append(body(conn))
        except (StorageError, StoreBusy):
            if not box:
                raise
            try:
                done = took_effect(box[0])
            except (StorageError, StoreBusy):
                done = False
            if not done:
                raise
        return box[0]

    def put(self, entry: Entry, frame_newlines: bytes, check: Callable[[], bool],
            quota: tuple[int | None, int | None] = (None, None), keep_times: bool = False,
            began: float | None = None, proven: bool = False) -> tuple[bool, str | None]:
        """Insert or replace the row of ``(run_id, agent_id, kind, key)`` in one transaction.

        ``check`` runs inside the transaction; if it returns False the transaction is rolled back and
        ``(False, None)`` returned (the blob vanished: its run was deleted meanwhile). Otherwise returns
        ``(True, blob token of the replaced row or None)``; the caller removes the replaced blob.

        Args:
            quota: ``(run_quota_bytes, run_quota_entries)``; ``None`` for no limit. Counted over the run's live
                entries, the replaced row excluded, the new one included.
            keep_times: a row restored from its blob (times always written as given): only if no row or tombstone
                of its key is as new (else ``(False, None)``); a delete of its run or agent: ``check``, as any write's.
            began, proven: (unused: a delete is ordered against the write by the store's delete lock.)

        Raises:
            QuotaExceeded: the run would go over a quota; nothing was written.
        """
        def body(conn: sqlite3.Connection) -> tuple[bool, str | None]:
            return self._put(conn, entry, frame_newlines, check, quota, keep_times)
        return self._decided("writing an entry", body, lambda result: result[0] and self.has_blob(entry.blob))

    def put_many(self, rows: list[tuple[Entry, bytes, Callable[[], bool]]]) -> list[bool | ScratchError]:
        """Insert the rows of new spills ``[(entry, frame_newlines, check)]`` in ONE transaction (rows written
        behind, :mod:`scratchfs.engine.write_behind`), each as :meth:`put` inserts one without a quota: a row whose
        ``check`` returns False is not inserted (False: a delete of its run or agent moved its blob away first); a
        ``check`` that raises StorageError leaves its row out (that error is its outcome). Returns each row's
        outcome, in order (True: inserted).

        Raises:
            StorageError, StoreBusy: nothing was inserted (the transaction failed as a whole).
        """

        def body(conn: sqlite3.Connection) -> list[bool | ScratchError]:
            outcomes: list[bool | ScratchError] = []
            if any(entry.kind != "handle" for entry, _, _ in rows):  # (a scratchpad row replaces one: _put's way)
                for entry, newlines, check in rows:
                    try:
                        outcomes.append(self._put(conn, entry, newlines, check, (None, None))[0])
                    except StorageError as exc:  # its blob left its place some other way: this row alone is refused
                        outcomes.append(exc)
                return outcomes
            inserts = []  # spills' new rows (nothing to replace, no quota), as _put writes each: in one executemany
            for e, newlines, check in rows:
                try:
                    written = bool(check())
                except StorageError as exc:  # its blob left its place some other way: this row alone is refused
                    outcomes.append(exc)
                    continue
                if written:
                    inserts.append((e.kind, e.run_id, e.agent_id, e.key, e.blob, e.size, e.stored_size, e.frames,
                                    e.lines, e.preview, e.source_tool, e.content_type, e.shape, e.created_at,
                                    e.expires_at, e.ttl, newlines))
                else:  # a delete of its run or agent moved the blob away: the write is ordered before it
                    self.overtaken(conn, e.run_id, e.agent_id, e.kind, e.key)
                outcomes.append(written)
            conn.executemany(_UPSERT, inserts)
            return outcomes

        blobs = [entry.blob for entry, _, _ in rows]  # a failed COMMIT that took effect shows in any row written
        return self._decided("writing entries", body,
                             lambda result: next((self.has_blob(blob) for blob, done in zip(blobs, result, strict=True)
                                                  if done is True), True))

    def _put(self, conn: sqlite3.Connection, e: Entry, frame_newlines: bytes, check: Callable[[], bool],
             quota: tuple[int | None, int | None], restored: bool = False) -> tuple[bool, str | None]:
        if not check():  # a delete of its run or agent moved the blob away: the write is ordered before it
            self.overtaken(conn, e.run_id, e.agent_id, e.kind, e.key)
            return False, None
        if restored and conn.execute(_HELD, (e.run_id, e.agent_id, e.kind, e.key, e.created_at) * 2).fetchone():
            return False, None  # (a newer write or a delete of its key since the restorer's own look)
        if e.kind != "handle":
            self.replace_hidden(conn, e.run_id, e.agent_id, e.kind, e.key)  # a delete in progress hid it
        old = None if e.kind == "handle" else conn.execute(  # a handle is new: nothing to replace
            "SELECT blob, stored_size, expires_at FROM entries WHERE run_id = ? AND agent_id = ? AND kind = ? "
            "AND key = ?",
            (e.run_id, e.agent_id, e.kind, e.key),
        ).fetchone()
        if quota != (None, None):
            self._check_quota(conn, e, old, quota)
        conn.execute(
            _UPSERT,
            (e.kind, e.run_id, e.agent_id, e.key, e.blob, e.size, e.stored_size, e.frames, e.lines, e.preview,
             e.source_tool, e.content_type, e.shape, e.created_at, e.expires_at, e.ttl, frame_newlines),
        )
        if e.kind != "handle":
            conn.execute("DELETE FROM gone WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ?",
                         (e.run_id, e.agent_id, e.kind, e.key))
        return True, (old[0] if old else None)

    def _check_quota(self, conn: sqlite3.Connection, e: Entry, old: tuple | None,
                     quota: tuple[int | None, int | None]) -> None:
        stored, count = self._usage(conn, e.run_id, e.created_at)
        check_quota(e, stored, count, None if old is None else (old[1], old[2] > e.created_at), quota)

    def delete_key(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> tuple[bool, str | None]:
        """Delete the row of a scope and key; return ``(it was live, its blob token or None)``."""
        where = "WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ?"
        params = (run_id, agent_id, kind, key)

        def body(conn: sqlite3.Connection) -> tuple | None:
            row = conn.execute(f"SELECT blob, expires_at FROM entries {where}", params).fetchone()
            if row is not None:
                conn.execute(f"DELETE FROM entries {where}", params)
                reason, at = ("deleted", now) if row[1] > now else ("expired", row[1])
                conn.execute("INSERT OR REPLACE INTO gone VALUES (?, ?, ?, ?, ?, ?)", (*params, reason, at))
            return row

        row = self._decided("deleting an entry", body, lambda row: row is not None and not self.has_blob(row[0]))
        if row is None:
            return False, None
        return row[1] > now, row[0]

    @staticmethod
    def _live_in_run(run_id: str, agent_id: str | None, kind: str | None, prefix: str,
                     now: float) -> tuple[str, list]:
        """``SELECT`` of a run's live, visible entries (of one agent and kind, keys starting with ``prefix``, when
        given) and its parameters: the one filter of every listing."""
        sql = f"SELECT {ENTRY_COLUMNS} FROM entries WHERE run_id = ? AND expires_at > ? AND {VISIBLE}"
        params: list = [run_id, now]
        for column, value in (("agent_id", agent_id), ("kind", kind)):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        if prefix:
            sql += " AND substr(key, 1, ?) = ?"
            params += [len(prefix), prefix]
        return sql, params

    def list_scope(self, run_id: str, agent_id: str | None, kind: str | None, prefix: str, now: float) -> list[Entry]:
        """Live entries of a run (every agent when ``agent_id`` is None), of one kind or all, whose key starts with
        ``prefix`` (an exact prefix: no wildcards, case-sensitive); ordered by ``(created_at, agent_id, kind, key)``, as
        :meth:`list_page` pages them."""
        sql, params = self._live_in_run(run_id, agent_id, kind, prefix, now)
        return list(map(Entry._make, self.read(sql + LISTING_ORDER, tuple(params), "listing entries")))

    def list_page(self, run_id: str, agent_id: str | None, kind: str | None, prefix: str, now: float,
                  after: tuple[float, str, str, str] | None, limit: int, *, newest_first: bool = False) -> list[Entry]:
        """Like :meth:`list_scope`, one page at a time: at most ``limit`` live entries ordered by ``(created_at,
        agent_id, kind, key)`` -- unique within a run -- that come after the position ``after`` (``None``: from the
        start). A keyset page: its cost does not grow with how far into the listing it is. ``newest_first``: the
        order reversed, the entries before ``after``."""
        sql, params = self._live_in_run(run_id, agent_id, kind, prefix, now)
        if after is not None:
            sql += f" AND (created_at, agent_id, kind, key) {'<' if newest_first else '>'} (?, ?, ?, ?)"
            params += list(after)
        sql += (NEWEST_FIRST_ORDER if newest_first else LISTING_ORDER) + " LIMIT ?"
        params.append(limit)
        return list(map(Entry._make, self.read(sql, tuple(params), "listing entries")))

    def list_all(self, now: float) -> list[Entry]:
        """Every live entry of every run, ordered by run, agent, creation time."""
        rows = self.read(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE expires_at > ? AND {VISIBLE} "
            "ORDER BY run_id, agent_id, created_at, id",
            (now,), "listing entries",
        )
        return list(map(Entry._make, rows))

    def touch(self, run_id: str, agent_id: str, kind: str, key: str, blob: str, expires_at: float,
              now: float) -> None:
        """Move an entry's expiry to ``expires_at`` (epoch seconds) if that is later and the entry is still live at
        ``now`` (a row a sweep judged expired, whose blob it may have removed already, is never revived); nothing on
        a read-only store (reads go on without refreshing)."""
        if self.read_only:
            return
        with self.write("refreshing an entry") as conn:
            conn.execute(
                "UPDATE entries SET expires_at = ? WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ? "
                "AND blob = ? AND expires_at < ? AND expires_at > ?",
                (expires_at, run_id, agent_id, kind, key, blob, expires_at, now),
            )

    # -- sweeping -------------------------------------------------------------------------------------------------

    # expired rows: expired_batch and delete_expired (files first), in engine.sqlite_scale

    def forget_tombstones(self, now: float, sizer: BatchSizer | None = None) -> int:
        """Delete tombstones older than :data:`TOMBSTONE_SECONDS` (read first: no write when there is none; else in
        transactions sized by ``sizer``); return how many."""
        cutoff = now - TOMBSTONE_SECONDS
        if not self.read("SELECT 1 FROM gone WHERE at <= ? LIMIT 1", (cutoff,), "looking up tombstones"):
            return 0
        return self.in_batches("forgetting tombstones", sizer or BatchSizer(BATCH_START_ROWS),
                               lambda conn, want: conn.execute(
                                   "DELETE FROM gone WHERE rowid IN (SELECT rowid FROM gone WHERE at <= ? LIMIT ?)",
                                   (cutoff, want)).rowcount)

    def delete_rows(self, rows: list[tuple[int, str]], sizer: BatchSizer | None = None, *, reason: str | None = None,
                    now: float = 0.0) -> int:
        """Delete rows by ``(id, blob)``, each only if it still names that blob, in transactions sized by ``sizer``;
        with ``reason`` (a :class:`~scratchfs.engine.protocols.Gone` reason), a row still live at ``now`` (epoch
        seconds) leaves a tombstone saying it, dated ``now`` (:meth:`gone`: a read is told why, "removed by fsck
        --repair (...)"). Return rows deleted."""
        left = list(rows)
        deleted = 0

        def step(conn: sqlite3.Connection, want: int) -> int:
            nonlocal deleted
            part = left[:want]
            del left[:want]
            for row in part:
                found = conn.execute("SELECT run_id, agent_id, kind, key, expires_at FROM entries WHERE id = ? AND "
                                     "blob = ?", row).fetchone() if reason is not None else None
                deleted += (done := conn.execute("DELETE FROM entries WHERE id = ? AND blob = ?", row).rowcount)
                if done and found is not None and found[4] > now:
                    conn.execute("INSERT OR REPLACE INTO gone VALUES (?, ?, ?, ?, ?, ?)", (*found[:4], reason, now))
            return len(part)

        if left:
            self.in_batches("removing rows whose file is gone", sizer or BatchSizer(BATCH_START_ROWS), step)
        return deleted


__all__ = [
    "BATCH_START_ROWS",
    "Index",
]
