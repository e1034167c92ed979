"""The inspector: what a store holds (``scratchfs stats``; ``ls``'s listing is :mod:`scratchfs.api.store_listing`) and
whether its index and files agree (``fsck``).

``fsck`` compares the index with the blob files under ``runs/``:

* **missing**: a live entry whose blob file is gone (a sandbox removed it from outside);
* **corrupt**: a live entry whose blob does not match its index row or does not verify: the seek table does not parse,
  the file or content size differs from the row, or (unless ``deep=False``) a frame fails its header or content
  checksum check (:mod:`scratchfs.seekable`); a blob of the first scratchfs, which has no binding frame but passes
  every other check, is bound by ``repair`` instead (:mod:`scratchfs.api.old_blobs`);
* **incomplete**: a blob file that no index row names and that does not end in a seek table: a write abandoned
  mid-way (its process was killed). Not corruption: nothing stored was lost, and the sweep removes it after the grace
  period; it does not make the report unclean -- unless it is dated more than the grace ahead, which the sweep leaves
  until that date: then it is a problem that remains (``repair`` removes it).
* **segments**: small entries live in segment files (:mod:`scratchfs.engine.segments`); each is checked like a
  blob file (its slice must decode and be bound to its entry). Blobs in a segment that no row names are not orphans
  but dead bytes, reported in ``segments`` (the sweeper removes a dead segment and compacts a mostly dead one).
* **orphaned**: a blob file that no index row names (a writer crashed before its row was committed). A file whose
  writer is still at work holds an exclusive ``flock`` and is skipped; the row check is repeated while holding the
  file's lock, as the sweeper does, so a write committing meanwhile is never counted or removed.

A blob bound to another entry (its binding frame names another token or scope, :mod:`scratchfs.engine.binding`)
is corrupt too, whatever its size; and a link, FIFO or directory where a blob should be is reported as corrupt
without being followed or opened. What scratchfs did not write in an agent directory (a file named like neither a
blob nor a segment), or directly in ``runs/`` or a run directory (anything but a directory), is ``unexpected``
whatever its mode, and left alone (:func:`scratchfs.api.odd_names.foreign_names`).
``rebuild_index`` first restores rows from the blobs' bindings. ``repair`` removes what is broken: the rows of
missing and corrupt entries (each only if it still names the blob that was checked, so a concurrent overwrite is
never lost), the corrupt blob files, and orphaned files, after adopting those an old host wrote after a takeover
(:mod:`scratchfs.engine.takeover`). Expired entries are not checked: they are the sweeper's.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from scratchfs.api.fsck_problems import Problem, journal_problems, mode_problems, orphan_problem, trash_problem_list
from scratchfs.api.odd_names import OddName, foreign_names, odd_blob_names, remove_odd_name
from scratchfs.api.old_blobs import bind_unbound, bindable, verified
from scratchfs.api.rebuild import RebuildReport, adopt_orphans, adoptable
from scratchfs.api.rebuild import rebuild_index as rebuild
from scratchfs.api.store import ScratchStore
from scratchfs.api.store_listing import check_filter, decode_cursor, encode_cursor, iter_entries
from scratchfs.engine.backends import find_orphan
from scratchfs.engine.protocols import BlobFile, Entry, repaired
from scratchfs.engine.runs_listing import RunsListing
from scratchfs.engine.s3_uploads import incomplete_uploads
from scratchfs.engine.segment_sweep import SegmentUsage, known_locations, segment_usage
from scratchfs.engine.segments import is_location
from scratchfs.engine.sweeper import empty_trash, trash_left
from scratchfs.engine.verify import verify_blob
from scratchfs.foundation.errors import InvalidArgument, StorageError, unless_exhausted
from scratchfs.foundation.limits import SOON_SECONDS

log = logging.getLogger(__name__)

DEFAULT_SOON = SOON_SECONDS
"""Seconds: ``stats`` counts entries expiring within this as expiring soon."""


# -- stats ----------------------------------------------------------------------------------------------------------

@dataclass
class ScopeStats:
    """Live entries of one ``(run_id, agent_id)``.

    Attributes:
        run_id, agent_id: the scope.
        entries, handles, scratch: live entries, of which spilled results and scratchpad values.
        bytes_in: content bytes (uncompressed).
        bytes_on_disk: blob bytes (compressed, seek tables included).
        oldest: ``created_at`` of the oldest entry, epoch seconds (infinity when no entry is live).
        oldest_age: seconds since then.
        expiring_soon: entries expiring within ``soon`` seconds.
        next_expiry: the earliest expiry, epoch seconds (infinity when no entry is live); an entry born in the
            future (a test's clock ahead, a clock stepped back) counts at most its ``ttl`` from now.
        expired, expired_bytes: entries expired but not swept yet (invisible to reads), and the bytes their index
            rows say they store (``stored_size``: a blob file's whole bytes, seek table and binding included; a
            segment entry's own span) -- not what a sweep will report freed (``SweepResult.bytes_freed`` counts the
            files it removes: a segment's header too, and a segment only once no live entry shares it, 0 before).
        newest: ``created_at`` of the newest live entry, epoch seconds (minus infinity when no entry is live).
    """

    run_id: str
    agent_id: str
    entries: int = 0
    handles: int = 0
    scratch: int = 0
    bytes_in: int = 0
    bytes_on_disk: int = 0
    oldest: float = float("inf")
    oldest_age: float = 0.0
    expiring_soon: int = 0
    next_expiry: float = float("inf")
    expired: int = 0
    expired_bytes: int = 0
    newest: float = float("-inf")

    def to_dict(self) -> dict:
        """The fields as a JSON-ready dict; ``oldest``, ``next_expiry`` and ``newest`` are ``None`` (null) for a scope
        with no live entry (only expired ones not swept yet), never an infinity JSON cannot carry."""
        out = asdict(self)
        for name in ("oldest", "next_expiry", "newest"):
            if not math.isfinite(out[name]):
                out[name] = None
        return out


def stats(entries: Iterable[Entry], now: float, soon: float = DEFAULT_SOON) -> list[ScopeStats]:
    """Aggregate live ``entries`` (e.g. :meth:`ScratchStore.list_entries`) per run and agent, ordered by run, then
    agent; ``now`` is the store clock's time (epoch seconds), an entry expiring within ``soon`` seconds counts as
    expiring soon."""
    groups: dict[tuple[str, str], ScopeStats] = {}
    for e in entries:
        s = groups.get((e.run_id, e.agent_id))
        if s is None:
            s = groups[(e.run_id, e.agent_id)] = ScopeStats(e.run_id, e.agent_id)
        s.entries += 1
        s.handles += e.kind == "handle"
        s.scratch += e.kind == "scratch"
        s.bytes_in += e.size
        s.bytes_on_disk += e.stored_size
        s.oldest = min(s.oldest, e.created_at)
        s.newest = max(s.newest, e.created_at)
        s.next_expiry = min(s.next_expiry, e.expires_at, now + e.ttl)  # born in the future: at most its ttl on
        s.expiring_soon += e.expires_in(now) <= soon
    for s in groups.values():
        s.oldest_age = max(0.0, now - s.oldest)
    return [groups[k] for k in sorted(groups)]


def stats_in_sql(store: ScratchStore, now: float, soon: float = DEFAULT_SOON,
                 run_id: str | None = None) -> list[ScopeStats]:
    """What :func:`stats` computes, aggregated by the index in one query (no entry is loaded: constant memory at
    any size), plus the entries expired but not swept yet and their bytes; of one run, or of every run. ``now`` is
    the store clock's time (epoch seconds), ``soon`` a span in seconds ("expiring within"); a list of
    :class:`ScopeStats`, one per ``(run, agent)``. Raises InvalidArgument (a ``run_id`` no entry could have: empty,
    not UTF-8, a control character, too long), StoreBusy, StorageError."""
    check_filter(run_id, None)
    if not hasattr(store.index, "scope_stats"):  # an index without aggregates: the per-entry sum
        return stats(store.list_entries() if run_id is None else store.list_entries_for_run(run_id), now, soon)
    out = []
    for (run, agent, count, handles, scratch, size, stored, oldest, next_expiry, soon_n, expired,
         expired_bytes, newest) in store.index.scope_stats(now, soon, run_id):
        oldest = float("inf") if oldest is None else oldest
        out.append(ScopeStats(run, agent, count, handles, scratch, size, stored, oldest,
                              max(0.0, now - oldest) if count else 0.0, soon_n, float("inf") if next_expiry is None
                              else next_expiry, expired, expired_bytes, float("-inf") if newest is None else newest))
    return out


# -- fsck -----------------------------------------------------------------------------------------------------------

@dataclass
class FsckReport:
    """The result of :func:`fsck`.

    Attributes:
        entries_checked: live entries checked.
        files_checked: blob files found under ``runs/``.
        bytes_checked: content bytes decompressed and verified.
        index: the index's ``PRAGMA integrity_check`` (``"ok"`` when sound).
        problems: what is wrong, in the order found.
        rebuilt: what ``rebuild_index`` restored (``None`` when not asked).
        next_cursor: set when ``limit`` stopped the check before an entry that follows: pass it as ``after`` to go
            on from there (the files are checked for orphans only by a check that reaches the last entry).
        segments: the segment files' live and dead bytes (:class:`~scratchfs.engine.segment_sweep.SegmentUsage`;
            ``None`` for a blob store without segments, or a bounded or resumed check). Dead bytes are not a
            problem: the sweeper reclaims them.
        uploads: ``(count, oldest age in seconds or None)`` of the incomplete multipart uploads under an S3 store's
            prefix (``None``: files under a root, a bounded or resumed check, or a listing refused -- logged).
            Not a problem of the store: storage the fleet sweep ends once begun over ``orphan_grace`` ago (those of
            blob keys), as the bucket's lifecycle rule does (README: S3 permissions).
    """

    entries_checked: int = 0
    files_checked: int = 0
    bytes_checked: int = 0
    index: str = "ok"
    problems: list[Problem] = field(default_factory=list)
    rebuilt: RebuildReport | None = None
    next_cursor: str | None = None
    segments: SegmentUsage | None = None
    uploads: tuple[int, float | None] | None = None

    @property
    def clean(self) -> bool:
        """True when the index is sound and every problem found (if any) was repaired; the sweep's (incomplete
        writes abandoned by a killed writer, young orphans) do not count."""
        return self.index == "ok" and not self.remaining

    @property
    def remaining(self) -> int:
        """Problems left: not repaired, and not the sweep's (``sweeps``: an incomplete write or a young orphan)."""
        return sum(not (p.repaired or p.sweeps) for p in self.problems)

    def counts(self) -> dict[str, int]:
        """Problems per kind (``missing``, ``corrupt``, ``orphaned``, ``incomplete``, ``unexpected``, ``adoptable``)
        and how many were repaired."""
        out = {"missing": 0, "corrupt": 0, "orphaned": 0, "incomplete": 0, "unexpected": 0, "adoptable": 0,
               "repaired": 0}
        for p in self.problems:
            out[p.kind] += 1
            out["repaired"] += p.repaired
        return out

    def to_dict(self) -> dict:
        out = {"entries_checked": self.entries_checked, "files_checked": self.files_checked,
               "bytes_checked": self.bytes_checked, "index": self.index, **self.counts(), "clean": self.clean,
               "next_cursor": self.next_cursor, "problems": [p.to_dict() for p in self.problems]}
        if self.rebuilt is not None:
            out["rebuilt"] = self.rebuilt.to_dict()
        if self.segments is not None:
            out["segments"] = self.segments.to_dict()
        if self.uploads is not None:
            out["incomplete_uploads"] = {"count": self.uploads[0], "oldest_age": self.uploads[1]}
        return out


def _uploads(store: ScratchStore) -> tuple[int, float | None] | None:
    """:attr:`FsckReport.uploads` (the oldest's age by the store's clock), or ``None`` (a listing refused: logged)."""
    try:
        found = incomplete_uploads(store.blobs)
    except StorageError as exc:
        log.warning("scratchfs fsck: cannot count the incomplete multipart uploads (%s)", exc)
        return None
    return None if found is None else (found.count, None if found.oldest is None else
                                       max(0.0, store.now() - found.oldest))


def _still_live(store: ScratchStore, entry: Entry) -> bool:
    """Whether ``entry`` is still live and names the same blob (a delete hides its rows before it moves the files)."""
    live = store.index.lookup(entry.run_id, entry.agent_id, entry.kind, entry.key, store.now())
    return live is not None and live.blob == entry.blob


def fsck(store: ScratchStore, *, repair: bool = False, deep: bool = True,
         progress: Callable[[int], None] | None = None, rebuild_index: bool = False, after: str | None = None,
         limit: int | None = None) -> FsckReport:
    """Check the index against the blob files (see the module docstring); with ``repair``, remove what is broken.

    Args:
        repair: remove the rows of missing and corrupt entries, corrupt files and orphaned files, and empty
            ``trash/`` (what cannot be removed is reported as ``unexpected``); bind blobs written before the binding
            frame (:func:`scratchfs.api.old_blobs.bind_unbound`).
        deep: decompress every frame and verify its checksums (else only the seek table and sizes).
        progress: called with the number of content bytes verified, as they are (for a progress bar).
        rebuild_index: first restore the rows of sound, bound, live blobs that no row names
            (:func:`scratchfs.api.rebuild.rebuild_index`), e.g. after the index was lost.
        after: a cursor (``next_cursor`` of an earlier report): resume the entry check after it.
        limit: check at most this many entries (``None``: all; at least 1); entries are read a page at a time
            either way. Orphan files (and segment usage) are looked for by a check that reaches the last entry: one
            without ``limit`` and ``after``, or one that stops with no ``next_cursor`` (one entry past ``limit`` is
            read to tell: a check of exactly the entries there are is whole, with no cursor).

    Raises:
        InvalidArgument: a bad ``after`` cursor, a ``limit`` below 1; with ``repair``, another index owns the blobs
            now (a rebuild took them over: nothing is removed). StoreBusy, StorageError: from the index.
    """
    if limit is not None and limit < 1:
        raise InvalidArgument(f"limit must be at least 1: {limit}")
    report = FsckReport()
    advance = progress or (lambda n: None)
    report.rebuilt = rebuild(store) if rebuild_index else None
    store.recover()  # a killed writer's spills get their rows (write-behind journals) before anything is judged
    report.index = store.integrity_check()
    start = None if after is None else decode_cursor(after)
    files, listing = _blob_files(store, report) if after is None and limit is None else (None, None)
    report.uploads = _uploads(store) if files is not None else None
    broken_rows: list[tuple[int, str]] = []
    broken_problems: list[Problem] = []
    unbound: list[tuple[Entry, Problem]] = []  # written before the binding frame: a repair binds, never removes them
    last = None  # the cursor of the last entry checked
    row_of = None if hasattr(store.index, "page") else {blob: i for i, _run, _agent, blob in store.index.blob_rows()}
    # one entry past the limit is read (not checked): a check that stops exactly at the last entry is whole
    for entry, cursor in iter_entries(store, store.now(), after=start, limit=None if limit is None else limit + 1):
        if report.entries_checked == limit:
            report.next_cursor = encode_cursor(last)  # limit >= 1: an entry was checked
            break
        last = cursor
        report.entries_checked += 1
        path = store.blobs.locate(entry.run_id, entry.agent_id, entry.blob)
        try:
            detail = verify_blob(store.blobs, entry, deep, advance)
        except FileNotFoundError:
            if not _still_live(store, entry):  # deleted (or hidden by a delete), expired or replaced since listed
                continue
            problem = Problem("missing", entry.run_id, entry.agent_id, entry.key, path, "the blob file is gone")
        except StorageError as exc:  # a directory on the way is a link or not a directory: reported, row kept
            report.problems.append(Problem("unexpected", entry.run_id, entry.agent_id, entry.key, path,
                                           str(unless_exhausted(exc))))
            continue
        else:
            if deep and verified(detail):  # (a blob written before the binding frame: its frames too)
                report.bytes_checked += entry.size
            if detail is None:
                continue
            problem = Problem("corrupt", entry.run_id, entry.agent_id, entry.key, path, detail,
                              fix="bind" if bindable(detail) else "record" if is_location(entry.blob) else "")
        report.problems.append(problem)
        row_id = cursor[2] if row_of is None else row_of.get(entry.blob)
        if problem.fix == "bind":
            unbound.append((entry, problem))
        elif row_id is not None:
            broken_rows.append((row_id, entry.blob))
            broken_problems.append(problem)
    if files is None and report.next_cursor is None:  # a bounded or resumed check that reached the last entry
        files, listing = _blob_files(store, report)  # a file committed since has its row: known_locations below sees it
    young = adopt_orphans(store, list(files or ()) if repair else [])  # an old host's writes after a takeover
    orphans: dict[int, str | OddName] = {}  # problem id -> blob token, or what is at a blob's name
    unnamed = _unnamed(store, files or [])
    named = adoptable(store, unnamed)  # (a segment's records too) -> seconds until each is judged for adoption
    if repair:  # (due: adopted above -- but one too young then is kept, though due now: never removed)
        named = {where: wait for where, wait in named.items() if wait > 0 or where in young}
    # (a young object, which may be a write in flight, is listed as the sweep's, as a young file is)
    found_orphans = [f for f in unnamed if f.location in named or find_orphan(
        store.index, store.blobs, f[:2], f.token, remove=False) is not None]
    for found in found_orphans:
        problem = orphan_problem(store, found, named.get(found.location))
        orphans[id(problem)] = found.token
        report.problems.append(problem)
    if listing is not None and hasattr(store.blobs, "unlink_part"):  # a link or FIFO at a blob's name: unexpected
        for odd in odd_blob_names(store.blobs, store.index, listing):
            if any(p.path.startswith(odd.path) for p in report.problems):  # a live entry's: told as corrupt
                continue
            report.problems.append(Problem("unexpected", odd.run, odd.agent, None, odd.path, odd.detail,
                                           fix="leave" if odd.kind == "directory" else "odd"))
            orphans[id(report.problems[-1])] = odd
        told = {p.path[:i] for p in report.problems for i, c in enumerate(p.path) if c == "/"}  # (the directories
        # holding a problem's path: one set, not a scan of every problem for each foreign name)
        report.problems += [Problem("unexpected", odd.run, odd.agent, None, odd.path, odd.foreign)  # (left as it is)
                            for odd in foreign_names(store.blobs, listing)  # (a link an entry's check told: not again)
                            if odd.path not in told]
    if listing is not None and report.next_cursor is None:
        report.segments = segment_usage(store.index, store.blobs, listing, store.settings.orphan_grace)
    if repair:
        bind_unbound(store, unbound)
        _repair(store, report, broken_rows, broken_problems, orphans)
    elif report.next_cursor is None:
        _trash_problems(store, report)
    if report.next_cursor is None:
        report.problems += journal_problems(store)  # (a journal/ that is no directory stalls no sweep, but is told)
        report.problems += mode_problems(store, listing, repair, report.problems)  # (a scope's, open to other users)
    return report


TRASH_GRACE_SECONDS = 60.0
"""A ``trash/`` entry moved there longer ago than this (seconds) is reported by a check without repair: a delete in
progress empties its own within moments."""


def _trash_problems(store: ScratchStore, report: FsckReport) -> None:
    """Report what stays in a local store's ``trash/`` (``unexpected``, not repaired) as a repair would."""
    if not hasattr(store.blobs, "remove_tree"):
        return
    try:
        left = trash_left(store.blobs, time.time() - TRASH_GRACE_SECONDS)
    except StorageError as exc:
        report.problems.append(Problem("unexpected", "", "", None, f"{store.root}/trash", str(unless_exhausted(exc)),
                                       fix="own"))
        return
    report.problems += trash_problem_list(store, left, "a delete's directory the sweep could not remove whole; the "
                                          "sweep and fsck --repair remove what they can (links never followed)")


def _blob_files(store: ScratchStore, report: FsckReport) -> tuple[list[BlobFile], RunsListing | None]:
    """The store's blob files (``report.files_checked``: how many) and, for a local store, the one walk of its
    ``runs/`` they were found in (empty when it cannot be listed), which the other checks of its names read; a
    ``runs/`` it cannot list (a link: never walked) or an object it never reads is ``unexpected``."""
    walk = getattr(store.blobs, "walk_runs", None)  # (a local store's)
    try:
        listing = None if walk is None else walk()
        files = store.blobs.blob_files() if listing is None else store.blobs.blob_files(listing)
    except StorageError as exc:
        report.problems.append(Problem("unexpected", "", "", None, store.blobs.locate(), str(unless_exhausted(exc)),
                                       fix="own"))
        files, listing = [], None if walk is None else RunsListing([], {}, {})
    report.files_checked = len(files)
    report.problems += [Problem("unexpected", "", "", None, key, why) for key, why in store.blobs.unread()]
    return files, listing


def _unnamed(store: ScratchStore, files: list[BlobFile]) -> list[BlobFile]:
    """Those of ``files`` (as listed, in order) that no row of their own scope names: one lookup per scope's
    files (:func:`~scratchfs.engine.segment_sweep.known_locations`), not one per file."""
    scopes: dict[tuple[str, str], list[str]] = {}
    for found in files:
        scopes.setdefault((found.run, found.agent), []).append(found.token)
    named = {where: known_locations(store.index, tokens, where) for where, tokens in scopes.items()}
    return [found for found in files if found.token not in named[found.run, found.agent]]


def _repair(store: ScratchStore, report: FsckReport, broken_rows: list[tuple[int, str]],
            broken_problems: list[Problem], orphans: dict[int, str | OddName]) -> None:
    """Remove what fsck found broken: rows of missing and corrupt entries (each only if it still names the blob that
    was checked), corrupt blobs, and orphaned blobs (checked again under their lock) -- once the blobs are this
    index's still (else InvalidArgument: the new owner's writes would be orphans here)."""
    store.blobs.owned(0.0)  # (one HEAD of an S3 marker, or a file read; a local store: nothing)
    removed, now = 0, store.now()
    for kind in sorted({problem.kind for problem in broken_problems}):  # each live row leaves a tombstone saying why
        removed += store.index.delete_rows([row for row, problem in zip(broken_rows, broken_problems, strict=True)
                                            if problem.kind == kind], reason=repaired(kind), now=now)
    if removed:
        for problem, (_, blob) in zip(broken_problems, broken_rows, strict=True):
            if store.index.has_blob(blob):
                continue
            if problem.kind == "corrupt":  # the name itself is removed: a link's target is never touched
                store.blobs.unlink(problem.run_id, problem.agent_id, blob)
                if _still_there(store, problem, blob):  # e.g. a directory at its name: not repaired
                    problem.detail += "; its row was removed but the file could not be"
                    continue
            problem.repaired = True
    for problem in report.problems:
        if isinstance(orphans.get(id(problem)), OddName):
            problem.repaired = remove_odd_name(store.blobs, orphans[id(problem)])
        elif problem.kind in ("orphaned", "incomplete"):
            problem.repaired = find_orphan(store.index, store.blobs, (problem.run_id, problem.agent_id),
                                           orphans[id(problem)], remove=True,
                                           grace=store.settings.orphan_grace) is not None
    if hasattr(store.blobs, "remove_tree"):  # a local store's trash/, emptied as the sweep does
        report.problems += trash_problem_list(store, empty_trash(store.blobs)[1], "it could not be removed whole "
                                              "(everything in it that could be was; links are never followed); see "
                                              "the log")


def _still_there(store: ScratchStore, problem: Problem, blob: str) -> bool:
    """True if something is still at a corrupt blob's name after its removal (or that cannot be told); a segment
    entry's bytes stay in their segment by design (the sweeper reclaims the segment), so it counts as gone."""
    if is_location(blob):
        return False
    try:
        return store.blobs.exists(problem.run_id, problem.agent_id, blob)
    except StorageError:
        return True


__all__ = ["DEFAULT_SOON", "FsckReport", "Problem", "ScopeStats", "fsck", "stats", "stats_in_sql"]
