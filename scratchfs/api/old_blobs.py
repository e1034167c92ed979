"""Blobs written before the binding frame (by the first scratchfs, 407dd2b) become readable: ``fsck --repair``
binds them.

Such a blob reads as corrupt (:data:`~scratchfs.engine.binding.UNBOUND`: no binding frame says what it belongs to),
and before this a repair removed it with its row -- the whole content of a user's old store. Two ways were weighed:

* **accept unbound blobs on read** (trust the index row alone): every read of an old store would skip the check that
  catches a blob copied over another's, for as long as the store lives, and a lost index could never be rebuilt from
  them;
* **bind them once** (chosen): each blob that has no binding frame but otherwise verifies completely against its
  index row -- file size, seek table, content size, frame count, every frame's checksums -- is rewritten with a
  binding frame made from that row, its content frames kept byte for byte, the file replaced atomically
  (:mod:`scratchfs.engine.rebind`). Afterwards it verifies like any new blob, and a rebuild can restore its row.

Binding is done by ``fsck --repair`` (:func:`scratchfs.api.inspector.fsck` with ``repair=True``), the command the
read error and fsck's report name, and not when an index of schema 1 is migrated as a store opens: opening stays
cheap and read-only in effect (a store on a read-only mount opens; a process killed while opening loses nothing and
leaves no half-done work), and the repair reports each blob it bound. A blob that fails a check is not bound: a
deep fsck reports what fails (a frame's checksum, say) instead of the hint, and a repair treats it as any corrupt
blob. A blob the repair cannot bind for a reason that is not its own -- an object store's (no store of 407dd2b used
one), another process binding it, the file system failing -- is kept, with its row, and reported as not repaired.
Expired entries are not checked or bound: the sweeper removes them as any other.
"""

from __future__ import annotations

from typing import Protocol

from scratchfs.api.store import ScratchStore
from scratchfs.engine.binding import BOUND_STALE, UNBOUND, FormatError
from scratchfs.engine.protocols import Entry
from scratchfs.engine.rebind import bind_file
from scratchfs.foundation.errors import CorruptBlob, ScratchError

__all__ = ["Noted", "bind_entry", "bind_unbound", "bindable", "verified"]


def bindable(detail: str) -> bool:
    """True if ``detail`` (of an fsck problem) says its blob is one a repair binds rather than removes: no binding
    frame but otherwise sound (:data:`~scratchfs.engine.binding.UNBOUND`), or bound with its row not updated yet
    (:data:`~scratchfs.engine.binding.BOUND_STALE`)."""
    return detail in (UNBOUND, BOUND_STALE)


def verified(detail: str | None) -> bool:
    """True if a deep check of a blob with this outcome (:func:`scratchfs.engine.verify.verify_blob`'s) verified all
    of its content: sound (``None``), or sound but for the binding frame it lacks (:data:`~scratchfs.engine.binding.
    UNBOUND`)."""
    return detail is None or detail == UNBOUND


def bind_entry(store: ScratchStore, entry: Entry) -> bool:
    """Bind the blob of ``entry`` (a live index row) if it has no binding frame and verifies against the row (see the
    module docstring); the store's delete lock is held while the file is replaced and its row given the new file
    size. A blob bound by a repair that died before its row was updated (:data:`~scratchfs.engine.binding.
    BOUND_STALE`) only has its row updated.

    Returns:
        True once bound (or already bound to it), False when the row no longer names the blob (deleted or overwritten
        meanwhile; nothing changed).

    Raises:
        CorruptBlob: the blob fails a check (it is left as it is), or is not a regular file. FileNotFoundError: it
        is gone. StorageError: an object store's blob or a segment entry (never bound), another process binding it,
        the store read-only, or the file system failed (nothing changed). StoreBusy: the delete lock stayed taken.
    """
    store.index.check_writable("binding a blob")
    found: list[tuple[Entry, bytes]] = []

    def named() -> bool:
        row = store.index.lookup_with_lines(entry.run_id, entry.agent_id, entry.kind, entry.key, store.now())
        found[:] = [] if row is None or row[0].blob != entry.blob else [row]
        return bool(found)

    def commit(stored_size: int) -> None:  # (under the delete lock: the row named the blob a moment ago)
        row, lines = found[0]
        store.index.put(row._replace(stored_size=stored_size), lines, lambda: True)

    try:
        return bind_file(store.blobs, entry, lambda: store.entries.delete_lock(True), named, commit)
    except FormatError as exc:
        raise CorruptBlob(str(exc)) from None


class Noted(Protocol):
    """What :func:`bind_unbound` notes the outcome on (fsck's :class:`~scratchfs.api.inspector.Problem`)."""

    detail: str
    repaired: bool


def bind_unbound(store: ScratchStore, found: list[tuple[Entry, Noted]]) -> None:
    """For ``fsck --repair``: bind the blob of each entry in ``found`` (with the problem fsck reported for it) and
    note the outcome on the problem: repaired once bound (or once its row no longer names it), else why not in its
    detail -- the blob and its row are kept either way. Never raises."""
    for entry, problem in found:
        try:
            bound = bind_entry(store, entry)
        except (ScratchError, OSError) as exc:  # failed a check, gone, busy, read-only, the file system failed
            problem.detail += f"; not bound: {exc.strerror if type(exc) is FileNotFoundError else exc}"
            continue
        problem.detail += ("; bound: its binding frame was written from its index row" if bound
                           else "; its row no longer names this blob: nothing to bind")
        problem.repaired = True
