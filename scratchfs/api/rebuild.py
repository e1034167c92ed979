"""Rebuilding a lost index from the blobs (``scratchfs fsck --rebuild-index``).

Every blob carries a binding frame (:mod:`scratchfs.engine.binding`) with what an index row needs that its content
cannot tell: scope, kind, key, source tool, TTL and creation time. :func:`rebuild_index` walks the blob files that no
row names, checks each binding (its token is the file's name, its scope the directory's, its checksum the frames'),
and the blobs of segment files found by scanning their record headers (:mod:`scratchfs.engine.segments`),
decompresses and verifies every frame to count lines per frame and take the preview and shape sample, and inserts
the row -- unless the entry has expired (the sweeper's), or a newer live entry already holds its key. Tombstones
(expired or deleted within the hour) are not rebuilt. Each blob skipped is named with why, and the skips are counted
per reason (:attr:`RebuildReport.reasons`): a blob of the first scratchfs, written before the binding frame, holds
nothing to rebuild a row from (``fsck --repair`` binds it while its old index still names it).

**Times.** A rebuilt row's ``created_at`` and ``expires_at`` are the binding's (``created_at``, and ``created_at +
ttl``: epoch seconds on the writing store's clock), on SQLite and PostgreSQL alike (a PostgreSQL index on the
database clock stamps a new row with the server's now, but not a rebuilt one: ``keep_times``). The binding does not
record an expiry moved later after the write (``refresh_on_read``): such a row expires at ``created_at + ttl``.

**Ownership.** A PostgreSQL index rebuilt whole (no pairing, no row) takes its blobs over from the index their
``store-id`` marker names (:mod:`scratchfs.engine.pairing`): that index, if still live, is refused from then on.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from scratchfs.api.restore import adopt_blob, restore_blob
from scratchfs.api.settings import Settings
from scratchfs.api.store import ScratchStore
from scratchfs.engine.backends import (
    ENV_BLOBS,
    ENV_INDEX,
    adopt_pairing,
    blob_age,
    create_empty_index,
    local_blobs,
    local_index,
)
from scratchfs.engine.binding import UnboundBlob
from scratchfs.engine.pairing import LOCAL_LOCATION, location_of
from scratchfs.engine.protocols import BlobFile
from scratchfs.engine.seekable import FormatError
from scratchfs.engine.segment_sweep import known_locations
from scratchfs.engine.takeover import ADOPT, OrphanRule, adopt_named, named_elsewhere, since_pairing
from scratchfs.foundation.errors import CorruptBlob, InvalidArgument, ScratchError

__all__ = ["UNBOUND_SKIP", "RebuildReport", "adopt_orphans", "adoptable", "open_for_rebuild", "open_lost_blobs",
           "rebuild_index"]

log = logging.getLogger(__name__)


@dataclass
class RebuildReport:
    """What :func:`rebuild_index` did.

    Attributes:
        restored: entries whose rows were inserted from their blobs.
        already: blob files a row already named.
        skipped: ``[path, why]`` of the blob files left alone.
        reasons: how many were skipped per reason (only reasons that occurred): ``"unbound"`` (no binding frame:
            written before it; ``fsck --repair`` binds it while its index row exists), ``"expired"`` (the
            sweeper's), ``"superseded"`` (a newer entry holds its key), ``"deleted"`` (a tombstone of its key
            is as new as it: deleted within the last hour), ``"foreign"`` (its binding names another
            token or scope, or holds a bad field), ``"corrupt"`` (it does not verify), ``"vanished"`` (removed while
            its row was written), ``"unreadable"`` (the file system failed); of an S3 store, ``"segment"`` (a local
            store's ``.zseg`` segment file copied under its prefix: an S3 store does not read one) and ``"not a
            blob"`` (another object under its prefix).
    """

    restored: int = 0
    already: int = 0
    skipped: list[list[str]] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The report's fields as a JSON-ready dict (counts; the problems as strings)."""
        return asdict(self)


def open_for_rebuild(root: str | os.PathLike[str], **settings: Any) -> ScratchStore:
    """Open a store whose index was lost -- missing or empty beside its blobs, which :class:`ScratchStore` refuses
    so that a lost index is never silently replaced -- or damaged (not a database, or failing SQLite's checks as it
    opens: the file is moved aside, never removed, to ``index.sqlite.damaged-<UTC time>`` and a WARNING log line
    names it) with a new, empty index, for :func:`rebuild_index`. A PostgreSQL index (``index=`` or
    ``$SCRATCHFS_INDEX``) is opened as it is (its lost rows are inserted again; nothing is made under the root).

    Args:
        root: the store's root. settings: as :class:`ScratchStore` takes them.

    Raises:
        StorageError: the index is another application's file, or cannot be created. StoreBusy: it stayed locked.
        InvalidArgument: a bad setting.
    """
    path = Path(root).expanduser().absolute()
    index_url = settings.get("index") or os.environ.get(ENV_INDEX)
    if not local_index(index_url):  # a PostgreSQL index: its rows are rebuilt into it, nothing is moved; lost whole,
        blobs = settings.get("blobs") or os.environ.get(ENV_BLOBS)  # it is paired with the blobs it is rebuilt from
        adopt_pairing(path, index_url or "", blobs, busy_timeout=_busy_timeout(settings))
        return ScratchStore(path, **settings)
    aside = create_empty_index(path, busy_timeout=_busy_timeout(settings))
    if aside is not None:
        log.warning("scratchfs: the index was damaged: moved aside to %s; rebuilding it from the blobs", path / aside)
    return ScratchStore(path, **settings)


def open_lost_blobs(root: str | os.PathLike[str], **settings: Any) -> ScratchStore:
    """Open a PostgreSQL index whose blob location lost its entries -- it holds no ``store-id`` marker and none of
    the index's newest rows' blobs (its bucket or prefix emptied, an S3 server that keeps nothing restarted), which
    opening refuses (:mod:`scratchfs.engine.pairing`) -- after pairing the index with that location again, for
    ``fsck --lost-blobs --repair`` to drop the rows whose blobs are gone. Only that refusal is lifted: a location
    with another index's marker, or an index paired with another location, is refused as on any opening.

    Args:
        root: the store's root. settings: as :class:`ScratchStore` takes them (``index=``/``blobs=``, else
            ``$SCRATCHFS_INDEX``/``$SCRATCHFS_BLOBS``).

    Raises:
        InvalidArgument: the index is not a PostgreSQL one, or the pairing refuses it for another reason.
        StorageError, StoreBusy: from the index or the blob store.
    """
    path = Path(root).expanduser().absolute()
    index_url = settings.get("index") or os.environ.get(ENV_INDEX)
    if local_index(index_url):
        raise InvalidArgument("--lost-blobs is for a PostgreSQL index ($SCRATCHFS_INDEX or --index postgresql://...) "
                              "whose blobs were lost; a local store's lost index is rebuilt with --rebuild-index")
    blobs = settings.get("blobs") or os.environ.get(ENV_BLOBS)
    adopt_pairing(path, index_url or "", blobs, busy_timeout=_busy_timeout(settings), lost=True)
    return ScratchStore(path, **settings)


def _busy_timeout(settings: dict) -> float:
    """The ``busy_timeout`` (seconds) :class:`ScratchStore` takes from the same keywords."""
    base = settings.get("settings") or Settings()
    return base.with_changes(**{k: v for k, v in settings.items() if k in Settings.names()}).busy_timeout


def rebuild_index(store: ScratchStore) -> RebuildReport:
    """Insert a row for every sound, bound, live blob file that no row names (see the module docstring).

    Raises:
        StoreBusy, StorageError: from the index, the delete lock or the object store (rows inserted so far stay).
    """
    report = RebuildReport()
    # dead writers' journals first: their rows are restored as a spill's, not counted; journals that cannot be read
    # (journal/ a link or a file: logged) fail no rebuild, which restores those spills from their segments below
    store.recover()
    for found in store.blobs.blob_files():
        path, token = found.location, found.token
        if store.index.has_blob(token):
            report.already += 1
            continue
        try:
            skipped = restore_blob(store, found)
        except UnboundBlob:
            skipped = ("unbound", UNBOUND_SKIP)
        except (FormatError, CorruptBlob) as exc:
            skipped = ("corrupt", str(exc))
        except (ScratchError, OSError) as exc:
            skipped = ("unreadable", str(exc))
        if skipped is None:
            report.restored += 1
        else:
            report.skipped.append([path, skipped[1]])
            report.reasons[skipped[0]] = report.reasons.get(skipped[0], 0) + 1
    for key, why in store.blobs.unread():  # (an S3 store's: a local store's .zseg copied there)
        report.skipped.append([key, why])
        reason = "segment" if key.endswith(".zseg") else "not a blob"
        report.reasons[reason] = report.reasons.get(reason, 0) + 1
    return report


def adopt_orphans(store: ScratchStore, found: list[BlobFile]) -> set[str]:
    """Adopt (:func:`adopt_blob`) the blobs of ``found`` (listed by ``blob_files``) that no row of this PostgreSQL
    index names and a row of a previous owner of its blobs does (:func:`scratchfs.engine.takeover.adopt_named`), as
    the sweep does before removing orphans, and by the sweep's rule: only a blob at least ``min(orphan_grace,
    ADOPT_AFTER)`` old (:class:`~scratchfs.engine.takeover.OrphanRule`; a younger one may be a write a host of the
    old index is still making, or deletes within its window: :func:`adoptable` lists it with when it is judged) --
    for ``fsck --repair``. Nothing on a store no takeover concerns (a local index: no query; a PostgreSQL one never
    taken over: none after the first minute). The pairing check runs first, as the sweep's does: an index that lost
    its blobs to a takeover adopts nothing (the new owner's entries are orphans to it, and the new owner's rows name
    them).

    Returns:
        The locations of the blobs a previous owner's row names that were not due (too young, or undated) when
        judged here: the caller keeps them, whatever their age when it looks again (a repair that lists one due by
        then, as adopted above, would remove an acknowledged write as an orphan).

    Raises:
        InvalidArgument: another index owns the blobs now (nothing adopted: the caller removes nothing either).
        StorageError, StoreBusy: from the index or the blob store.
    """
    if not hasattr(store.blobs, "fence") or not found:  # (the pairing check of a PostgreSQL index's blobs)
        return set()
    store.blobs.fence()  # (one marker read and one query, as a sweep's before it adopts: once per fsck --repair)
    location = _location(store)
    rule = _rule(store, location)
    if not rule.adopting():
        return set()
    scopes: dict[tuple[str, str], list[BlobFile]] = {}
    for f in found:
        scopes.setdefault((f.run, f.agent), []).append(f)
    orphans: list[BlobFile] = []
    for where, files in scopes.items():
        known = known_locations(store.index, [f.token for f in files], where)
        orphans += [f for f in files if f.token not in known]
    named = [(f, _age(store, f)) for f, _at in named_elsewhere(store.index, location, orphans)]  # (only these
    adopt_named(store.index, location, named, lambda f, at: adopt_blob(store, f, at), rule)  # aged: an S3 HEAD)
    return {f.location for f, age in named if not rule.due(age)}


def adoptable(store: ScratchStore, orphans: list[BlobFile]) -> dict[str, float]:
    """The locations of those of ``orphans`` (blobs no row of this index names, as listed by ``blob_files``) that a
    row of a previous owner of its blobs names (:func:`scratchfs.engine.takeover.named_elsewhere`): an old host's
    acknowledged writes after a takeover, which the sweep and ``fsck --repair`` adopt rather than remove -- for
    ``fsck``, which lists them as such: those :class:`~scratchfs.engine.takeover.OrphanRule` judges ``adopt`` by
    their row -- not one committed over an hour ago (stale: the sweep refuses it and removes it as an orphan) --,
    each with the seconds until it is old enough to be judged (:meth:`~scratchfs.engine.takeover.OrphanRule.due_in`;
    0.0: now; an undated blob is left out). None on a local (SQLite) index, and no query on a PostgreSQL one never
    taken over (after the first in a minute).

    Raises:
        StorageError, StoreBusy: from the index or the blob store (an object's date).
    """
    if not hasattr(store.blobs, "fence") or not orphans:  # (a PostgreSQL index's blobs: a local index has no owner)
        return {}
    location = _location(store)
    rule = _rule(store, location)
    found = {f.location: rule.due_in(_age(store, f)) for f, at in named_elsewhere(store.index, location, orphans)
             if rule.judge(math.inf, rule.now - at) == ADOPT}
    return {where: wait for where, wait in found.items() if not math.isnan(wait)}


def _rule(store: ScratchStore, location: str) -> OrphanRule:
    """The orphan rule as the sweeps go by it (``orphan_grace``; a blob is judged for adoption from ``min(grace,
    ADOPT_AFTER)`` on), a previous owner's row aged against the store clock. Raises StorageError, StoreBusy."""
    return OrphanRule(store.settings.orphan_grace, since_pairing(store.index, location), store.now())


def _age(store: ScratchStore, found: BlobFile) -> float:
    """Seconds since the orphan ``found`` was last modified -- a segment's record: its segment file's, as the
    segment sweep ages it --; NaN when that cannot be told (gone, undated: never adopted). Raises StorageError."""
    age = blob_age(store.blobs, found)
    return math.nan if age is None else age


def _location(store: ScratchStore) -> str:
    """The location a PostgreSQL index's pairing records for ``store``'s blobs."""
    return LOCAL_LOCATION if local_blobs(store.blobs_url) else location_of(store.blobs_url)


UNBOUND_SKIP = ("no binding frame (written before it, by the first scratchfs): no row can be rebuilt from it; "
                "with the index that names it (a damaged one was moved aside to index.sqlite.damaged-*), "
                "`scratchfs fsck --repair` binds it")
"""Why a rebuild skips a blob without a binding frame."""
