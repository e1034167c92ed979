"""The inspector: what a store holds (``scratchfs ls``, ``scratchfs stats``) and whether its index and files agree
(``scratchfs fsck``).

``fsck`` compares the index with the blob files under ``runs/``:

* **missing**: a live entry whose blob file is gone (a sandbox removed it from outside);
* **corrupt**: a live entry whose blob does not match its index row or does not verify: the seek table does not parse,
  the file or content size differs from the row, or (unless ``deep=False``) a frame fails its header or content
  checksum check (:mod:`scratchfs.seekable`);
* **orphaned**: a blob file that no index row names (a writer crashed before its row was committed). A file whose
  writer is still at work holds an exclusive ``flock`` and is skipped; the row check is repeated while holding the
  file's lock, as the sweeper does, so a write committing meanwhile is never counted or removed.

``repair`` removes what is broken: the rows of missing and corrupt entries (each only if it still names the blob that
was checked, so a concurrent overwrite is never lost), the corrupt blob files, and orphaned files. Expired entries
are not checked: they are the sweeper's (:mod:`scratchfs.sweeper`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from scratchfs.api.store import ScratchStore
from scratchfs.engine.local_blobs import BLOB_NAME_RE, Blobs
from scratchfs.engine.protocols import Entry
from scratchfs.engine.seekable import FormatError, SeekableReader, read_seek_table
from scratchfs.engine.sweeper import check_orphan

DEFAULT_SOON = 300.0
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
        oldest: ``created_at`` of the oldest entry, epoch seconds.
        oldest_age: seconds since then.
        expiring_soon: entries expiring within ``soon`` seconds.
        next_expiry: the earliest ``expires_at``, epoch seconds.
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

    def to_dict(self) -> dict:
        return asdict(self)


def stats(entries: Iterable[Entry], now: float, soon: float = DEFAULT_SOON) -> list[ScopeStats]:
    """Aggregate live entries per run and agent (ordered by run, then agent).

    Args:
        entries: live entries (e.g. :meth:`ScratchStore.list_entries`).
        now: the store clock's time, epoch seconds.
        soon: seconds; an entry expiring within it counts as expiring soon.
    """
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
        s.next_expiry = min(s.next_expiry, e.expires_at)
        s.expiring_soon += e.expires_at - now <= soon
    for s in groups.values():
        s.oldest_age = max(0.0, now - s.oldest)
    return [groups[k] for k in sorted(groups)]


# -- fsck -----------------------------------------------------------------------------------------------------------

@dataclass
class Problem:
    """One inconsistency found by :func:`fsck`.

    Attributes:
        kind: ``"missing"``, ``"corrupt"`` or ``"orphaned"``.
        run_id, agent_id: the scope (of the entry, or of the directory the orphan is in, as path parts).
        key: the handle or scratchpad key (``None`` for an orphan).
        path: the blob file.
        detail: what is wrong.
        repaired: True once :func:`fsck` removed it.
    """

    kind: str
    run_id: str
    agent_id: str
    key: str | None
    path: str
    detail: str
    repaired: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class FsckReport:
    """The result of :func:`fsck`.

    Attributes:
        entries_checked: live entries checked.
        files_checked: blob files found under ``runs/``.
        bytes_checked: content bytes decompressed and verified.
        index: the index's ``PRAGMA integrity_check`` (``"ok"`` when sound).
        problems: what is wrong, in the order found.
    """

    entries_checked: int = 0
    files_checked: int = 0
    bytes_checked: int = 0
    index: str = "ok"
    problems: list[Problem] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """True when the index is sound and every problem found (if any) was repaired."""
        return self.index == "ok" and all(p.repaired for p in self.problems)

    def counts(self) -> dict[str, int]:
        """Problems per kind (``missing``, ``corrupt``, ``orphaned``) and how many were repaired."""
        out = {"missing": 0, "corrupt": 0, "orphaned": 0, "repaired": 0}
        for p in self.problems:
            out[p.kind] += 1
            out["repaired"] += p.repaired
        return out

    def to_dict(self) -> dict:
        return {"entries_checked": self.entries_checked, "files_checked": self.files_checked,
                "bytes_checked": self.bytes_checked, "index": self.index, **self.counts(), "clean": self.clean,
                "problems": [p.to_dict() for p in self.problems]}


def _verify(store: ScratchStore, entry: Entry, deep: bool, progress: Callable[[int], None]) -> str | None:
    """None if the entry's blob is sound, else what is wrong; raises FileNotFoundError if it is gone. Works on any
    blob store (a file or an object: read through its range source)."""
    source = store.blobs.open_source(entry.run_id, entry.agent_id, entry.blob)
    try:
        if source.size != entry.stored_size:
            return f"the file is {source.size} bytes, the index says {entry.stored_size}"
        try:
            table = read_seek_table(source, source.size)
            if table.size != entry.size:
                return f"the blob holds {table.size} bytes, the index says {entry.size}"
            if deep:
                for _, data in SeekableReader(source, table).iter_frames():
                    progress(len(data))
        except FormatError as exc:
            return str(exc)
        except OSError as exc:
            return f"cannot read: {exc.strerror or exc}"
        return None
    finally:
        source.close()


def _orphan(store: ScratchStore, path: str, token: str, remove: bool) -> bool:
    """True if the blob ``token`` at ``path`` is an orphan (removed first when ``remove``): for files, as the sweeper
    decides (never one a writer holds); for objects, no row names it on a second look."""
    if isinstance(store.blobs, Blobs):
        return check_orphan(store.index, path, token, None, remove=remove) is not None
    if store.index.has_blob(token):
        return False
    return not remove or bool(store.blobs.delete_keys([path]))  # type: ignore[attr-defined]


def fsck(store: ScratchStore, *, repair: bool = False, deep: bool = True,
         progress: Callable[[int], None] | None = None) -> FsckReport:
    """Check the index against the blob files (see the module docstring); with ``repair``, remove what is broken.

    Args:
        repair: remove the rows of missing and corrupt entries, corrupt files and orphaned files.
        deep: decompress every frame and verify its checksums (else only the seek table and sizes).
        progress: called with the number of content bytes verified, as they are (for a progress bar).

    Raises:
        StoreBusy, StorageError: from the index.
    """
    report = FsckReport()
    advance = progress or (lambda n: None)
    report.index = store.integrity_check()
    files = store.blobs.blob_files()  # listed before the rows are read: a file committed meanwhile has its row
    report.files_checked = len(files)
    row_ids = {blob: row_id for row_id, _run, _agent, blob in store.index.blob_rows()}
    known = row_ids.keys()
    broken_rows: list[tuple[int, str]] = []
    broken_problems: list[Problem] = []
    for entry in store.list_entries():
        report.entries_checked += 1
        path = str(store.blobs.path(entry.run_id, entry.agent_id, entry.blob))
        try:
            detail = _verify(store, entry, deep, advance)
        except FileNotFoundError:
            problem = Problem("missing", entry.run_id, entry.agent_id, entry.key, path, "the blob file is gone")
        else:
            if deep and detail is None:
                report.bytes_checked += entry.size
            if detail is None:
                continue
            problem = Problem("corrupt", entry.run_id, entry.agent_id, entry.key, path, detail)
        report.problems.append(problem)
        if entry.blob in row_ids:
            broken_rows.append((row_ids[entry.blob], entry.blob))
            broken_problems.append(problem)
    for run_dir, agent_dir, path, token in files:
        if token in known or not _orphan(store, path, token, remove=False):
            continue
        report.problems.append(Problem("orphaned", run_dir, agent_dir, None, path, "no index row names this file"))
    if repair:
        if broken_rows and store.index.delete_rows(broken_rows):
            still = store.index.blobs()
            for problem, (_, blob) in zip(broken_problems, broken_rows, strict=True):
                if blob in still:
                    continue
                if problem.kind == "corrupt":
                    store.blobs.unlink(problem.run_id, problem.agent_id, blob)
                problem.repaired = True
        for problem in report.problems:
            if problem.kind == "orphaned":
                token = BLOB_NAME_RE.match(os.path.basename(problem.path)).group(1)
                problem.repaired = _orphan(store, problem.path, token, remove=True)
    return report


__all__ = ["DEFAULT_SOON", "FsckReport", "Problem", "ScopeStats", "fsck", "stats"]
