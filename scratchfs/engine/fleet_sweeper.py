"""The fleet sweeper: one sweep at a time across every host of a PostgreSQL index with an S3-compatible blob store.

Any number of hosts may call :func:`fleet_sweep` (``ScratchStore.sweep`` / ``start_sweeper``); the one that takes
the index's sweep lock (a PostgreSQL session advisory lock, released by the server if its holder dies) does the
work, the others return at once with ``skipped=True``. Steps, each a short transaction or a batched request:

0. Rows born in the future (the clock stepped back since they were written) get ``expires_at = now + ttl``
   (:meth:`~scratchfs.engine.postgres_expiry.PostgresExpiry.cap_future`), as the local sweep caps them.
1. Expired rows, :data:`~scratchfs.engine.sweeper.BATCH_ROWS` per transaction (rows another host has locked are
   skipped), then their objects with one batched ``DeleteObjects`` per batch. A crash between the two leaves
   objects with no row, which step 4 reclaims.
2. Tombstones older than an hour.
3. Rows whose object is gone (removed from outside the store): the bucket is listed first, the rows read after, and
   a row whose object is not in the listing is ``HEAD``-checked before it is dropped (it may have been written after
   the listing), each only if it still names the same blob.
4. Orphans: objects no row names under their own key -- a row names an object only in its scope's prefix, so a copy
   of a live object under another scope's prefix is one (besides a crashed write, a run whose rows the platform
   deleted with ``ON DELETE CASCADE``) -- and whose ``LastModified`` is older than the grace period, checked
   against the rows once more, deleted in batches. Only the objects the store confirms deleted are counted
   (``orphans_removed``, ``files_deleted``, ``bytes_freed``); the others are counted in ``delete_failures`` and
   left for the next sweep. An object is complete before its row is committed and the commit follows within a
   transaction, so the grace period (seconds; 300 by default) is what keeps a write in flight safe; the last look
   at the rows and the delete hold the exclusive delete lock (every write holds it shared while it checks its
   object and commits its row), so no row is committed for an object deleted after that look. (A write slower than
   the grace period still loses its object -- its check finds it gone, writes no row and fails with StorageError,
   no delete of its scope having taken it -- which is what the grace period's length guards against. An object's
   age is on the object store's clock: :func:`~scratchfs.engine.s3_client.clock_skew`.)
5. Incomplete multipart uploads (:func:`~scratchfs.engine.s3_uploads.end_stale_uploads`): those of blob keys under
   the prefix begun over the grace period ago (their ``Initiated`` on this host's clock, as objects' ages) are
   aborted (``uploads_aborted``) -- what a writer killed mid-upload leaves, holding its parts' storage until ended;
   a spill slower than the grace period then fails with StorageError, nothing stored. A listing or an abort the
   store refuses (no ``s3:ListBucketMultipartUploads`` or ``s3:AbortMultipartUpload``) is logged once a sweep and
   counted (``upload_failures``); the sweep's result stands. No adoption: an incomplete upload holds no object for a
   previous owner's row to name.

**Ownership.** Before each batch of step 1 (before its rows are taken) and under the delete lock right before step
4's deletions, the sweep runs the store's pairing check again (``fence``:
:func:`~scratchfs.engine.pairing.check_pairing`, one ``GET`` of the marker and one query): once another index has
taken the prefix over (``fsck --rebuild-index`` into another schema), the sweep of the index that lost it raises
``InvalidArgument`` and deletes nothing more -- a long-running sweeper of the old schema would otherwise remove the
new one's objects as orphans. Remaining window: a takeover landing between that check and the ``DeleteObjects`` it
precedes (one request, at most about ``busy_timeout``) is not seen by that batch; the objects in it were listed
before the check, so none is a write of the new index (those follow its marker), but the rebuild may have restored
rows for some of them (an orphan of the old index, a bound blob of an entry it just expired), which then read as
missing.

**Adoption.** An orphan of step 4 that a row of a previous owner's schema names -- a write a host of the index
that lost the prefix to a takeover committed within its window, ``OWNER_CHECK_SECONDS`` -- gets its row restored
(``adopt``, as the rebuild restores one: not if expired, superseded by a newer entry of its key, or deleted since)
instead of being deleted (:mod:`scratchfs.engine.takeover`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from scratchfs.engine.pairing import location_of
from scratchfs.engine.postgres_index import PostgresIndex
from scratchfs.engine.protocols import SWEPT_MISSING, BlobFile
from scratchfs.engine.s3_blobs import S3Blobs, unread_why
from scratchfs.engine.s3_uploads import EndedUploads, end_stale_uploads
from scratchfs.engine.sweeper import BATCH_ROWS, SweepResult
from scratchfs.engine.takeover import REMOVE, Adopt, OrphanRule, adopt_named, since_pairing
from scratchfs.foundation.checks import path_part
from scratchfs.foundation.limits import CLOCK_SLACK_SECONDS

__all__ = ["fleet_sweep"]

log = logging.getLogger(__name__)


def fleet_sweep(index: PostgresIndex, blobs: S3Blobs, now: float | Callable[[], float], grace: float,
                wait: float | None, clock: Callable[[], float] = time.time,
                fence: Callable[[], None] = lambda: None,
                adopt: Adopt | None = None) -> SweepResult:
    """Run one fleet sweep (see the module docstring).

    Args:
        now: the store clock (or its time, epoch seconds), read once the sweep lock is held (ignored by an index
            on the database clock).
        grace: seconds an object with no row, or an incomplete multipart upload, is left alone (by its
            ``LastModified`` or ``Initiated``, against ``clock()``).
        wait: seconds to wait for another host's sweep; ``None`` or 0 returns at once with ``skipped=True``.
        fence: the store's pairing check (see Ownership above), raising InvalidArgument when another index owns
            the prefix.
        adopt: restores the row of an orphan that a previous owner's row names (see Adoption above) and says
            whether it did (:data:`scratchfs.engine.takeover.Adopt`); ``None``: none is adopted.

    Raises:
        InvalidArgument: another index owns the prefix now (``fence``; what was done before stays done).
        StoreBusy, StorageError: from the index or the object store (what was done before stays done).
    """
    with index.sweep_lock(wait) as got:
        if not got:
            return SweepResult(skipped=True)
        now = now() if callable(now) else now
        index.cap_future(now, slack=CLOCK_SLACK_SECONDS)  # born in the future (a clock step): at most now + ttl
        rows = files = freed = 0
        failures: set[str] = set()  # keys the store did not delete (one object may fail in two steps)
        while True:
            fence()  # (before the rows are taken: a sweep refused changes nothing of the batch)
            batch = index.pop_expired(now, BATCH_ROWS)
            rows += len(batch)
            if batch:
                sizes = {key: r.stored_size for r in batch  # (a row naming no object of this store: none to delete)
                         if (key := blobs.object_key(r.run_id, r.agent_id, r.blob)) is not None}
                deleted, failed = blobs.delete_confirmed(sizes)  # (one read here: when it is done)
                files, freed = files + len(deleted), freed + sum(sizes[k] for k in deleted)
                failures.update(failed)
            if len(batch) < BATCH_ROWS:
                break
        index.forget_tombstones(now)
        objects = blobs.list_objects()  # listed before the rows are read: a row committed meanwhile is HEAD-checked
        known = index.blob_rows()
        listed = {(obj.run, obj.agent, obj.token) for obj in objects}
        missing = [(row_id, blob) for row_id, run_id, agent_id, blob in known
                   if _where(run_id, agent_id, blob) not in listed
                   and ((key := blobs.object_key(run_id, agent_id, blob)) is None or blobs.head(key) is None)]
        dropped = index.delete_rows(missing, reason=SWEPT_MISSING, now=now)
        rule = OrphanRule(grace, lambda: since_pairing(index, location_of(blobs.url)), now)  # (asked when due)
        removed, failed = _remove_orphans(index, blobs, objects, known, (rule, clock()), fence, adopt)
        failures.update(failed)
        ended = end_stale_uploads(blobs, grace, clock, fence)  # (its failures returned: the sweep's result stands)
        _tell(blobs, len(failures), ended)
        return SweepResult(rows + dropped, files, freed + sum(obj.size for obj in removed), len(removed), dropped,
                           len(failures), unread_objects=len(blobs.unread_listed), uploads_aborted=ended.aborted,
                           upload_failures=ended.failed)


def _tell(blobs: S3Blobs, failures: int, ended: EndedUploads) -> None:
    """Log what a sweep left (one warning each): ``failures`` objects the store did not delete, the objects under
    the prefix that are not blob objects (``blobs.unread_listed``), the incomplete uploads not ended (``ended``)."""
    if failures:
        log.warning("scratchfs: fleet sweep: the object store did not delete %d objects (left for the next "
                    "sweep)", failures)
    if blobs.unread_listed:  # never silently: a local store's .zseg copied here holds entries this store lacks
        log.warning("scratchfs: fleet sweep: %d objects under the prefix are not blob objects and are left "
                    "alone, e.g. %s: %s", len(blobs.unread_listed), blobs.unread_listed[0],
                    unread_why(blobs.unread_listed[0]))
    if ended.error is not None:
        log.warning("scratchfs: fleet sweep: %d incomplete multipart uploads not ended (left for the next sweep; "
                    "the bucket's lifecycle rule ends them too): %s", ended.failed, ended.error)


def _remove_orphans(index: PostgresIndex, blobs: S3Blobs, objects: list, known: list,
                    judged: tuple[OrphanRule, float], fence: Callable[[], None],
                    adopt: Adopt | None) -> tuple[list, list[str]]:
    """Step 4: delete the listed ``objects`` that no row of ``known`` (nor of a second look, under the exclusive
    delete lock) names and that the rule (``judged``: the rule and the time, epoch seconds, their ``LastModified``
    is aged against) says to remove, after ``fence`` and after adopting (``adopt``) those it says are due that a
    previous owner's row names; return the objects the store confirmed deleted and the keys it did not delete."""
    rule, at = judged
    named = {_where(*row[1:]) for row in known}
    unnamed = [(obj, at - obj.modified) for obj in objects if (obj.run, obj.agent, obj.token) not in named]
    due = [] if adopt is None else [(BlobFile(o.run, o.agent, o.location, o.token), age) for o, age in unnamed
                                    if rule.due(age)]
    if due:
        # (before the exclusive lock, which a restore's shared one would wait for: the second look below finds the
        # rows restored and keeps their objects)
        adopt_named(index, location_of(blobs.url), due, adopt, rule)
    candidates = [obj for obj, age in unnamed if rule.judge(age) == REMOVE]
    if not candidates:
        return [], []
    with blobs.delete_lock(True, blobs.timeout):  # no write commits a row between this look and the delete
        named = {_where(*row[1:]) for row in index.blob_rows()}  # committed since the first read: kept
        candidates = [obj for obj in candidates if (obj.run, obj.agent, obj.token) not in named]
        fence()  # the prefix is still this index's, right before its orphans go
        deleted, failed = blobs.delete_confirmed(obj.location for obj in candidates)
    return [obj for obj in candidates if obj.location in deleted], list(failed)  # only what the store confirmed


def _where(run_id: str, agent_id: str, blob: str) -> tuple[str, str, str]:
    """The encoded run and agent names and the token under which a row's object is listed."""
    return path_part(run_id), path_part(agent_id), blob
