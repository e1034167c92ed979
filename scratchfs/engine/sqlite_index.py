"""The SQLite index: the only module that speaks SQL.

Table ``entries``: one row per ``(run_id, agent_id, kind, key)``; ``kind`` is ``"handle"`` (a spilled result,
``key`` = its handle) or ``"scratch"`` (a scratchpad key). Times are epoch seconds (``REAL``) from the store's one
clock; sizes are bytes. A row names its blob file by ``blob`` (a random token, see :mod:`scratchfs.blobs`) and keeps
the per-frame newline counts of its content (``frame_newlines``, for line reads).

Table ``gone``: tombstones of entries expired, swept or deleted within the last :data:`TOMBSTONE_SECONDS`, so that a
read of one's own vanished entry can say what happened to it. They are looked up by the reader's own scope and key
only, so they reveal nothing of other scopes.

Connections: one per thread and per process (a ``fork()`` child opens its own and never touches its parent's), in
WAL mode with ``synchronous=NORMAL`` (``FULL`` for durable stores) and the store's busy timeout. Every write is one
short ``BEGIN IMMEDIATE`` transaction, so writers queue on SQLite's lock instead of failing on a read-to-write
upgrade. A lock still busy after the timeout raises :class:`~scratchfs.errors.StoreBusy`; any other SQLite failure
raises :class:`~scratchfs.errors.StorageError`. The schema is created (and migrated, by ``PRAGMA user_version``) under
a file lock, so many processes may open one new root at once.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from scratchfs.engine.protocols import Entry, ExpiredRow, Gone
from scratchfs.foundation import forks
from scratchfs.foundation.errors import QuotaExceeded, StorageError, StoreBusy
from scratchfs.foundation.limits import LOOKUP_CACHE_ENTRIES, TOMBSTONE_SECONDS

SCHEMA_VERSION = 1

_COLUMNS = (
    "kind, run_id, agent_id, key, blob, size, stored_size, frames, lines, preview, source_tool, content_type, shape, "
    "created_at, expires_at, ttl"
)


def _busy_or_storage(exc: sqlite3.Error, doing: str) -> Exception:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreBusy(f"the index stayed busy past the busy timeout while {doing}")
    return StorageError(f"the index failed while {doing}: {text}")




class _Connection(sqlite3.Connection):
    """A connection that records the process that opened it and can be weakly referenced, so that the one a thread
    used is closed when the thread ends (its thread-local reference goes) instead of lingering until ``close()``."""

    owner = 0


class _Local(threading.local):
    conn: _Connection | None = None
    generation = -1
    version: int | None = None
    cache: dict = {}  # noqa: RUF012 - replaced per thread in Index.conn()


class Index:
    """The entries table of one store.

    Args:
        path: the SQLite file (created if missing).
        lock_dir: directory for the schema lock file.
        busy_timeout: seconds a statement waits for a lock before :class:`StoreBusy`.
        durable: ``synchronous=FULL`` instead of ``NORMAL``.

    Raises:
        StoreBusy: the schema lock or the database stayed locked past ``busy_timeout``.
        StorageError: the database cannot be opened or is not a scratchfs index.
    """

    def __init__(self, path: Path, lock_dir: Path, busy_timeout: float, durable: bool = False) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._synchronous = "FULL" if durable else "NORMAL"
        self._local = _Local()
        self._conns: weakref.WeakSet[_Connection] = weakref.WeakSet()  # a thread's dies (and closes) with it
        self._inherited: list[sqlite3.Connection] = []  # a fork() parent's: kept, never used or closed here
        self._conns_lock = threading.Lock()
        self._closed = False
        self._migrate(lock_dir)

    # -- connections ----------------------------------------------------------------------------------------------

    def _connect(self) -> _Connection:
        try:
            conn = sqlite3.connect(
                self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False,
                factory=_Connection,
            )
            conn.owner = os.getpid()
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            raise _busy_or_storage(exc, "opening the index") from exc
        return conn

    def conn(self) -> sqlite3.Connection:
        """This thread's connection in this process (opened on first use; a ``fork()`` child opens its own)."""
        local = self._local
        if local.generation != forks.generation or local.conn is None:
            if self._closed:
                raise StorageError("the store is closed")
            if local.conn is not None:  # opened by the parent of this fork() child: neither use nor close it
                self._inherited.append(local.conn)
            conn = self._connect()
            local.conn, local.generation, local.version = conn, forks.generation, None
            local.cache = {}
            with self._conns_lock:
                self._conns.add(conn)
        return local.conn

    def _cached(self) -> dict:
        """This thread's lookup cache, emptied whenever another connection has committed since it was filled
        (``PRAGMA data_version``); this connection's own commits empty it in :meth:`write`."""
        conn = self.conn()
        local = self._local
        try:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error as exc:
            raise _busy_or_storage(exc, "reading the index version") from exc
        if version != local.version:
            local.cache.clear()
            local.version = version
        return local.cache

    def close(self) -> None:
        """Close every connection this process opened (a forked child leaves its parent's alone)."""
        self._closed = True
        pid = os.getpid()
        with self._conns_lock:
            conns = list(self._conns)
            self._conns = weakref.WeakSet()
        for conn in conns:
            if conn.owner == pid:
                try:
                    conn.close()
                except sqlite3.Error:  # pragma: no cover - closing never fails in practice
                    pass

    @contextmanager
    def write(self, doing: str) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on any exception."""
        conn = self.conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _busy_or_storage(exc, doing) from exc
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            self._local.cache.clear()  # this connection's own commits do not change its data_version
        if not conn.in_transaction:  # the body rolled back on purpose (put() when its check fails)
            return
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise _busy_or_storage(exc, doing) from exc

    def read(self, sql: str, params: tuple, doing: str) -> list[tuple]:
        """Run one read-only statement and return all rows."""
        try:
            return self.conn().execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise _busy_or_storage(exc, doing) from exc

    # -- schema ---------------------------------------------------------------------------------------------------

    def _migrate(self, lock_dir: Path) -> None:
        conn = self.conn()
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                return
        except sqlite3.Error as exc:
            raise _busy_or_storage(exc, "reading the schema version") from exc
        lock = FileLock(str(lock_dir / "index.lock"), timeout=self.busy_timeout)
        try:
            with lock:
                self._create_schema(conn)
        except Timeout:
            raise StoreBusy(f"the schema lock {lock.lock_file} stayed busy past the busy timeout") from None
        except sqlite3.Error as exc:
            raise _busy_or_storage(exc, "creating the schema") from exc

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise StorageError(f"{self.path} has schema version {version}; this scratchfs knows {SCHEMA_VERSION}")
        import sqlite_utils  # only needed here: keeps it off the import path of every read (about 100 ms)

        conn.execute("PRAGMA journal_mode = WAL")
        db = sqlite_utils.Database(conn)
        with self.write("creating the schema"):
            db["entries"].create(
                {
                    "id": int, "kind": str, "run_id": str, "agent_id": str, "key": str, "blob": str,
                    "size": int, "stored_size": int, "frames": int, "lines": int, "preview": str,
                    "source_tool": str, "content_type": str, "shape": str,
                    "created_at": float, "expires_at": float, "ttl": float, "frame_newlines": bytes,
                },
                pk="id",
                not_null={"kind", "run_id", "agent_id", "key", "blob", "size", "stored_size", "frames", "lines",
                          "preview", "created_at", "expires_at", "ttl"},
                if_not_exists=True,
            )
            table = db["entries"]
            table.create_index(["run_id", "agent_id", "kind", "key"], unique=True, if_not_exists=True,
                               index_name="entries_scope_key")
            table.create_index(["expires_at"], if_not_exists=True, index_name="entries_expires_at")
            table.create_index(["run_id", "created_at"], if_not_exists=True, index_name="entries_run_created")
            table.create_index(["blob"], unique=True, if_not_exists=True, index_name="entries_blob")
            db["gone"].create(
                {"run_id": str, "agent_id": str, "kind": str, "key": str, "reason": str, "at": float},
                pk=("run_id", "agent_id", "kind", "key"), not_null={"reason", "at"}, if_not_exists=True,
            )
            db["gone"].create_index(["at"], if_not_exists=True, index_name="gone_at")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- entries --------------------------------------------------------------------------------------------------

    def lookup(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> Entry | None:
        """The live entry of a scope and key (``expires_at > now``), or ``None``.

        Answered from this thread's lookup cache while no connection has committed since (see :meth:`_cached`).
        """
        found = self.lookup_with_lines(run_id, agent_id, kind, key, now)
        return found[0] if found else None

    def lookup_with_lines(self, run_id: str, agent_id: str, kind: str, key: str,
                          now: float) -> tuple[Entry, bytes] | None:
        """Like :meth:`lookup`, with the entry's per-frame newline counts (``array('I')`` bytes)."""
        cache = self._cached()
        ident = (run_id, agent_id, kind, key)
        found = cache.get(ident)
        if found is None:
            rows = self.read(
                f"SELECT {_COLUMNS}, frame_newlines FROM entries WHERE run_id = ? AND agent_id = ? AND kind = ? "
                "AND key = ?",
                ident, "looking up an entry",
            )
            if not rows:
                return None
            found = (Entry._make(rows[0][:-1]), rows[0][-1] or b"")
            if len(cache) >= LOOKUP_CACHE_ENTRIES:
                cache.clear()
            cache[ident] = found
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
        return Gone(*rows[0]) if rows else None

    def usage(self, run_id: str, now: float) -> tuple[int, int]:
        """``(stored bytes, entries)`` of a run's live entries."""
        return self._usage(self.conn(), run_id, now)

    @staticmethod
    def _usage(conn: sqlite3.Connection, run_id: str, now: float) -> tuple[int, int]:
        try:
            row = conn.execute(
                "SELECT COALESCE(SUM(stored_size), 0), COUNT(*) FROM entries WHERE run_id = ? AND expires_at > ?",
                (run_id, now),
            ).fetchone()
        except sqlite3.Error as exc:
            raise _busy_or_storage(exc, "reading a run's usage") from exc
        return row[0], row[1]

    def put(self, entry: Entry, frame_newlines: bytes, check: Callable[[], bool],
            quota: tuple[int | None, int | None] = (None, None)) -> tuple[bool, str | None]:
        """Insert or replace the row of ``(run_id, agent_id, kind, key)`` in one transaction.

        ``check`` runs inside the transaction; if it returns False the transaction is rolled back and
        ``(False, None)`` returned (the blob vanished: its run was deleted meanwhile). Otherwise returns
        ``(True, blob token of the replaced row or None)``; the caller removes the replaced blob.

        Args:
            quota: ``(run_quota_bytes, run_quota_entries)``; ``None`` for no limit. Counted over the run's live
                entries, the replaced row excluded, the new one included.

        Raises:
            QuotaExceeded: the run would go over a quota; nothing was written.
        """
        e = entry
        with self.write("writing an entry") as conn:
            if not check():
                conn.execute("ROLLBACK")
                return False, None
            old = None if e.kind == "handle" else conn.execute(  # a handle is new: nothing to replace
                "SELECT blob, stored_size, expires_at FROM entries WHERE run_id = ? AND agent_id = ? AND kind = ? "
                "AND key = ?",
                (e.run_id, e.agent_id, e.kind, e.key),
            ).fetchone()
            if quota != (None, None):
                self._check_quota(conn, e, old, quota)
            conn.execute(
                f"INSERT INTO entries ({_COLUMNS}, frame_newlines) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (run_id, agent_id, kind, key) DO UPDATE SET blob = excluded.blob, "
                "size = excluded.size, stored_size = excluded.stored_size, frames = excluded.frames, "
                "lines = excluded.lines, preview = excluded.preview, source_tool = excluded.source_tool, "
                "content_type = excluded.content_type, shape = excluded.shape, created_at = excluded.created_at, "
                "expires_at = excluded.expires_at, ttl = excluded.ttl, frame_newlines = excluded.frame_newlines",
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
        if old is not None and old[2] > e.created_at:  # the row being replaced is live: it no longer counts
            stored -= old[1]
            count -= 1
        max_bytes, max_entries = quota
        if max_bytes is not None and stored + e.stored_size > max_bytes:
            raise QuotaExceeded(
                f"run {e.run_id!r} would hold {stored + e.stored_size:,} stored bytes, over its quota of "
                f"{max_bytes:,}; delete entries or wait for them to expire"
            )
        if max_entries is not None and count + 1 > max_entries:
            raise QuotaExceeded(
                f"run {e.run_id!r} would hold {count + 1:,} entries, over its quota of {max_entries:,}; "
                "delete entries or wait for them to expire"
            )

    def delete_key(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> tuple[bool, str | None]:
        """Delete the row of a scope and key; return ``(it was live, its blob token or None)``."""
        where = "WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ?"
        with self.write("deleting an entry") as conn:
            params = (run_id, agent_id, kind, key)
            row = conn.execute(f"SELECT blob, expires_at FROM entries {where}", params).fetchone()
            if row is not None:
                conn.execute(f"DELETE FROM entries {where}", params)
                reason, at = ("deleted", now) if row[1] > now else ("expired", row[1])
                conn.execute("INSERT OR REPLACE INTO gone VALUES (?, ?, ?, ?, ?, ?)", (*params, reason, at))
        if row is None:
            return False, None
        return row[1] > now, row[0]

    def delete_scope(self, run_id: str, agent_id: str | None, now: float) -> int:
        """Delete every row of a run (or of one agent of it) in one transaction; live rows leave a tombstone. Return
        the rows deleted. The caller moves the directory away after the commit, under the delete lock (see
        :meth:`scratchfs.blobs.Blobs.delete_lock`)."""
        where, params = ("run_id = ?", (run_id,)) if agent_id is None else ("run_id = ? AND agent_id = ?",
                                                                             (run_id, agent_id))
        reason = "deleted with its run" if agent_id is None else "deleted with its agent"
        with self.write("deleting a run") as conn:
            conn.execute(
                "INSERT OR REPLACE INTO gone SELECT run_id, agent_id, kind, key, ?, ? FROM entries "
                f"WHERE {where} AND expires_at > ?",
                (reason, now, *params, now),
            )
            return conn.execute(f"DELETE FROM entries WHERE {where}", params).rowcount

    def list_scope(self, run_id: str, agent_id: str | None, kind: str | None, prefix: str, now: float) -> list[Entry]:
        """Live entries of a run (every agent when ``agent_id`` is None), of one kind or all, whose key starts with
        ``prefix`` (an exact prefix: no wildcards, case-sensitive); ordered by creation time."""
        sql = f"SELECT {_COLUMNS} FROM entries WHERE run_id = ? AND expires_at > ?"
        params: list = [run_id, now]
        if agent_id is not None:
            sql += " AND agent_id = ?"
            params.append(agent_id)
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        if prefix:
            sql += " AND substr(key, 1, ?) = ?"
            params += [len(prefix), prefix]
        sql += " ORDER BY created_at, id"
        return list(map(Entry._make, self.read(sql, tuple(params), "listing entries")))

    def list_all(self, now: float) -> list[Entry]:
        """Every live entry of every run, ordered by run, agent, creation time."""
        rows = self.read(
            f"SELECT {_COLUMNS} FROM entries WHERE expires_at > ? ORDER BY run_id, agent_id, created_at, id",
            (now,), "listing entries",
        )
        return list(map(Entry._make, rows))

    def touch(self, run_id: str, agent_id: str, kind: str, key: str, blob: str, expires_at: float) -> None:
        """Move a live entry's expiry to ``expires_at`` (epoch seconds) if that is later."""
        with self.write("refreshing an entry") as conn:
            conn.execute(
                "UPDATE entries SET expires_at = ? WHERE run_id = ? AND agent_id = ? AND kind = ? AND key = ? "
                "AND blob = ? AND expires_at < ?",
                (expires_at, run_id, agent_id, kind, key, blob, expires_at),
            )

    # -- sweeping -------------------------------------------------------------------------------------------------

    def pop_expired(self, now: float, limit: int) -> list[ExpiredRow]:
        """Delete up to ``limit`` rows with ``expires_at <= now`` in one short transaction and return them."""
        with self.write("sweeping expired entries") as conn:
            rows = conn.execute(
                "SELECT id, run_id, agent_id, blob, stored_size, kind, key, expires_at FROM entries "
                "WHERE expires_at <= ? LIMIT ?",
                (now, limit),
            ).fetchall()
            conn.executemany("DELETE FROM entries WHERE id = ?", [(row[0],) for row in rows])
            conn.executemany(
                "INSERT OR REPLACE INTO gone VALUES (?, ?, ?, ?, 'expired', ?)",
                [(row[1], row[2], row[5], row[6], row[7]) for row in rows if row[7] > now - TOMBSTONE_SECONDS],
            )
        return [ExpiredRow(*row[1:5]) for row in rows]

    def forget_tombstones(self, now: float) -> int:
        """Delete tombstones older than :data:`TOMBSTONE_SECONDS`; return how many."""
        with self.write("forgetting tombstones") as conn:
            return conn.execute("DELETE FROM gone WHERE at <= ?", (now - TOMBSTONE_SECONDS,)).rowcount

    def blob_rows(self) -> list[tuple[int, str, str, str]]:
        """``(id, run_id, agent_id, blob)`` of every row, expired or not."""
        return self.read("SELECT id, run_id, agent_id, blob FROM entries", (), "listing blobs")

    def blobs(self) -> set[str]:
        """The blob token of every row."""
        return {row[0] for row in self.read("SELECT blob FROM entries", (), "listing blobs")}

    def has_blob(self, blob: str) -> bool:
        """True if a row names this blob token."""
        return bool(self.read("SELECT 1 FROM entries WHERE blob = ?", (blob,), "looking up a blob"))

    def delete_rows(self, rows: list[tuple[int, str]]) -> int:
        """Delete rows by ``(id, blob)``, each only if it still names that blob; return rows deleted."""
        if not rows:
            return 0
        with self.write("removing rows whose file is gone") as conn:
            return sum(
                conn.execute("DELETE FROM entries WHERE id = ? AND blob = ?", row).rowcount for row in rows
            )

    def integrity_check(self) -> str:
        """The result of ``PRAGMA integrity_check`` (``"ok"`` when the database is sound)."""
        return "\n".join(row[0] for row in self.read("PRAGMA integrity_check", (), "checking integrity"))
