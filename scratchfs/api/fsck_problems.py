"""What ``fsck`` reports (:class:`Problem`), and the problems of a local store's own tree beside its blobs: entries
left in ``trash/`` and a write-behind journal directory that is not what writers leave
(:func:`~scratchfs.engine.journal.problems`). Split from :mod:`scratchfs.api.inspector`, which runs the check."""

from __future__ import annotations

import math
import os
import stat
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from scratchfs.engine import journal
from scratchfs.engine.backends import blob_age, file_path, local_blobs
from scratchfs.engine.private_modes import loose_modes
from scratchfs.engine.protocols import BlobFile
from scratchfs.engine.root import INDEX_FILES, index_names, odd_own_files, stray_names
from scratchfs.engine.runs_listing import RunsListing
from scratchfs.engine.seekable import FormatError, read_seek_table
from scratchfs.engine.segments import SEGMENT_SUFFIX
from scratchfs.foundation.errors import CorruptBlob, StorageError

if TYPE_CHECKING:
    from pathlib import Path

    from scratchfs.api.store import ScratchStore

__all__ = ["ADOPTABLE", "LINKED_SEGMENT", "REPAIRS", "STRAY", "YOUNG_ADOPTABLE", "Problem", "journal_problems",
           "linked_index", "mode_problems", "orphan_problem", "trash_problem_list"]


ADOPTABLE = ("no row of this index names it, but a row of the index that owned these blobs before a takeover does: "
             "an old host's write acknowledged after the takeover; the sweep adopts it (restores its row), and so "
             "does fsck --repair")
"""The detail of an ``adoptable`` orphan (:func:`~scratchfs.api.inspector.fsck`)."""
YOUNG_ADOPTABLE = ("no row of this index names it, but a row of the index that owned these blobs before a takeover "
                   "does: an old host's write after the takeover, too young to judge (a host of that index may still "
                   "be writing it, or delete it within its window); it is judged for adoption in {wait} s, by the "
                   "sweep or fsck --repair run then: left alone until then")
"""The detail of an ``adoptable`` orphan younger than the rule's ``min(orphan_grace, ADOPT_AFTER)``
(:class:`~scratchfs.engine.takeover.OrphanRule`), ``{wait}`` the whole seconds until it is judged."""


REPAIRS = {"row": ("removes", "missing entry's row", "missing entries' rows"),
           "entry": ("removes", "corrupt entry (row and file)", "corrupt entries (rows and files)"),
           "record": ("removes", "corrupt segment entry's row (the sweep reclaims its bytes with the segment)",
                      "corrupt segment entries' rows (the sweep reclaims their bytes with the segments)"),
           "orphan": ("removes", "orphan", "orphans"),
           "incomplete": ("removes", "abandoned write", "abandoned writes"),
           "odd": ("removes", "link, FIFO, socket or device at a blob's or segment's name (never a link's target)",
                   "links, FIFOs, sockets or devices at blobs' or segments' names (never a link's target)"),
           "trash": ("removes what it can of", "entry left in the trash", "entries left in the trash"),
           "bind": ("binds", "blob written before the binding frame", "blobs written before the binding frame"),
           "private": ("makes private (0700, 0600)", "directory or file open to other users",
                       "directories or files open to other users"),
           "adopt": ("adopts", "old host's write", "old host's writes"),
           "leave": ("leaves", "as it is (its detail says what it is)",
                     "as they are (their details say what they are)"),
           "own": ("no repair touches", "store's own file or directory out of place",
                   "store's own files or directories out of place")}
"""What ``fsck --repair`` does to each kind of problem (:attr:`Problem.fix`): ``(verb, what: one, what: more)``
(``fsck``'s hint: "removes 1 orphan", "leaves 2 as they are (...)"; "own": "it is the store's own file ... out of
place, which no repair touches")."""
_FIXES = {"missing": "row", "corrupt": "entry", "orphaned": "orphan", "incomplete": "incomplete", "adoptable": "adopt"}


@dataclass
class Problem:
    """One inconsistency found by :func:`~scratchfs.api.inspector.fsck`.

    Attributes:
        kind: ``"missing"``, ``"corrupt"``, ``"orphaned"``, ``"incomplete"`` (an orphan with no seek table: a
            write abandoned by a killed writer), ``"adoptable"`` (an orphan a row of the index that owned the blobs
            before a takeover names: an old host's acknowledged write, which the sweep and ``fsck --repair`` adopt;
            the sweep's: :data:`ADOPTABLE`; one too young to judge yet is left alone: :data:`YOUNG_ADOPTABLE`) or
            ``"unexpected"`` (a link or other file where a directory of the root belongs: reported, never followed,
            never repaired; an entry of ``trash/`` that a repair could not remove whole; a link, FIFO or directory
            at a blob's name, which a repair removes itself but for a directory: :mod:`scratchfs.api.odd_names`; a
            ``journal`` that is no directory, open to other users, or holding what is no journal:
            :func:`journal_problems`; a run or agent directory or a blob file open to other users, which a repair
            makes private: :func:`mode_problems`).
        run_id, agent_id: the scope (of the entry, or of the directory the orphan is in, as path parts).
        key: the handle or scratchpad key (``None`` for an orphan).
        path: the blob file.
        detail: what is wrong.
        repaired: True once :func:`fsck` removed it (a corrupt entry: row and file; False if either stays) or bound it.
        sweeps: an orphaned file younger than ``orphan_grace``, which the sweep removes once older (the row a
            platform cascade or a run's delete took, a writer killed before its row), or an ``incomplete`` write not
            dated more than the grace ahead: reported, not a problem that remains.
        fix: what ``fsck --repair`` does to it, a key of :data:`REPAIRS` (``""``: by its ``kind``, and an
            ``unexpected`` one it leaves); not in :meth:`to_dict`.
    """

    kind: str
    run_id: str
    agent_id: str
    key: str | None
    path: str
    detail: str
    repaired: bool = False
    sweeps: bool = False
    fix: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        self.fix = self.fix or _FIXES.get(self.kind, "leave")

    def to_dict(self) -> dict:
        out = asdict(self)
        del out["fix"]
        return out


def trash_problem_list(store: ScratchStore, names: list[str], why: str) -> list[Problem]:
    """One ``unexpected`` problem per entry of ``trash/`` in ``names``: "left in the trash: ``why``"."""
    return [Problem("unexpected", "", "", None, str(store.root / "trash" / name), f"left in the trash: {why}",
                    fix="trash") for name in names]


def journal_problems(store: ScratchStore) -> list[Problem]:
    """``unexpected`` problems of a local store's ``journal/`` (:func:`scratchfs.engine.journal.problems`), of
    its ``reserve`` and sweep cursor (:func:`scratchfs.engine.root.odd_own_files`) and of what no store writes at
    the top of the root or in ``locks/`` (:func:`scratchfs.engine.root.stray_names`): never repaired (what is there is
    its owner's to move away; the sweep replaces a cursor), each path absolute. ``[]`` for a store without local
    segment files."""
    if not hasattr(store.blobs, "scan_segment") or not hasattr(store.blobs, "root_fd"):
        return []
    strays = [(path, STRAY.format(kind=kind)) for path, kind in stray_names(store.blobs.root_fd)]
    return [Problem("unexpected", "", "", None, str(store.root / path), detail, fix="own")
            for path, detail in (*journal.problems(store.blobs.root_fd), *odd_own_files(store.blobs.root_fd),
                                 *strays)]


STRAY = ("a {kind} scratchfs did not write (not a file or directory of a store): never followed or opened, nothing is "
         "read from it and fsck --repair leaves it: move it out of the store")
"""The detail of what :func:`~scratchfs.engine.root.stray_names` finds at the top of the root or in ``locks/``
(someone else's: hostile19), ``{kind}`` what it is."""


def mode_problems(store: ScratchStore, listing: RunsListing | None, repair: bool = False,
                  reported: list[Problem] = ()) -> list[Problem]:
    """``unexpected`` problems of a local store's run and agent directories and their files that are open to other
    users (:func:`scratchfs.engine.private_modes.loose_modes`): with ``repair``, made 0700 (0600), ``repaired``
    once they are (``fix`` ``"private"``; another user's, ``"leave"``); each path absolute; a file ``reported``
    names already (an orphan, an incomplete write: the sweep or a repair removes it) is left out. ``[]`` for a
    store without local blob files, or whose ``runs/`` could not be listed (``listing`` ``None``, fsck's walk of
    ``runs/``: the blob walk reports that). And one per segment file with other names (a hard link), left as it is."""
    if listing is None or not hasattr(store.blobs, "root_fd"):
        return []
    loose = loose_modes(store.blobs.root_fd, listing, repair)
    known = {file_path(p.path) for p in reported}  # (a segment's records are named by their bytes)
    problems = [Problem("unexpected", parts[1], parts[2] if len(parts) > 2 else "", None,
                        str(store.root / "/".join(parts)), detail, repaired, fix="private" if mine else "leave")
                for parts, detail, repaired, mine in loose]
    return [p for p in problems if p.path not in known] + _linked_segments(store, listing)


def _linked_segments(store: ScratchStore, listing: RunsListing) -> list[Problem]:
    """An ``unexpected`` problem per segment file with other names too (a hard link, e.g. ``cp -al``; never
    repaired: the other name may be the user's snapshot). A blob file with other names is none: it is created
    ``O_EXCL`` and never written again."""
    return [Problem("unexpected", run, agent, None, str(store.root / "runs" / run / agent / name),
                    LINKED_SEGMENT.format(names=st.st_nlink), fix="leave")
            for run, agent, listed in listing.agent_dirs() for name, st in listed
            if name.endswith(SEGMENT_SUFFIX) and stat.S_ISREG(st.st_mode) and st.st_nlink > 1]


def linked_index(root: Path) -> list[Problem]:
    """An ``unexpected`` problem per index file at ``root`` (``index.sqlite``, its ``-wal``, ``-shm``, ``-journal``)
    with other names too (a hard link, e.g. ``cp -al``), which a store refuses to open (every write to it would change
    the file at the other name): found by ``lstat`` alone, the file never opened; never repaired (the other name may
    be the user's snapshot), its detail saying what to do. Never raises (a file that cannot be looked at: none)."""
    found = []
    for name in INDEX_FILES:
        try:
            st = os.lstat(root / name)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            found.append(Problem("unexpected", "", "", None, str(root / name), index_names(root / name, st.st_nlink),
                                 fix="leave"))
    return found


LINKED_SEGMENT = ("a segment file with {names} names (a hard link, e.g. cp -al): spills no longer append to it and a "
                  "delete marks no entry in it dead (only a rebuild of a lost index could restore a deleted one), as "
                  "either would change the file at the other name too; remove the other name if it is not a copy "
                  "you keep")
"""The detail of a segment file with other names (``{names}``: how many)."""


def orphan_problem(store: ScratchStore, found: BlobFile, named: float | None = None) -> Problem:
    """A local blob file with no row that does not end in a seek table is an ``incomplete`` write; one a previous
    owner's row names (``named``: an old host's write after a takeover; the seconds until it is old enough to be
    judged for adoption, 0.0: now) is ``adoptable``, the sweep's, and when young says when it is judged; any other
    orphan (an object store's uploads are whole or absent) is ``orphaned``; these are the sweep's (``sweeps``) when
    younger than the grace (an object may be a write in flight: no lock tells); one dated more than the grace ahead
    is not: the sweep leaves it until its date comes (it may be a live writer's after the clock stepped back), so it
    is a problem that remains (``--repair`` removes a file; an object only once older than the grace: ``fix``
    ``"leave"``)."""
    if named is not None:
        return Problem("adoptable", found.run, found.agent, None, found.location, ADOPTABLE if named <= 0 else
                       YOUNG_ADOPTABLE.format(wait=math.ceil(named)), sweeps=True)
    grace, local = store.settings.orphan_grace, local_blobs(getattr(store, "blobs_url", None))
    age = blob_age(store.blobs, found)
    ahead = (f"its modification time is {-age:,.0f} s in the future, so the sweep leaves it until then"
             if age is not None and age <= -grace else None)
    what = "file" if local else "object"
    if local and (why := _unfinished(store, found)) is not None:
        return Problem("incomplete", found.run, found.agent, None, found.location, f"{why}; {ahead}" if ahead else
                       f"{why}; the sweep removes it after the grace period", sweeps=ahead is None)
    if age is not None and -grace < age < grace:  # (a little ahead: clocks a little apart; the sweep takes it soon)
        return Problem("orphaned", found.run, found.agent, None, found.location,
                       f"no index row names this {what}; {max(age, 0.0):.0f} s old, the sweep removes it once older "
                       f"than orphan_grace ({grace:.0f} s): {'' if local else 'a write in flight, '}a row deleted by "
                       "a platform cascade, or a writer killed before its row", sweeps=True)
    return Problem("orphaned", found.run, found.agent, None, found.location,  # (an object dated ahead: never "aged")
                   f"no index row names this {what}" + (f"; {ahead}" if ahead else ""),
                   fix="orphan" if local or not ahead else "leave")


def _unfinished(store: ScratchStore, found: BlobFile) -> str | None:
    """Why the local orphan ``found`` is an incomplete write (it does not end in a seek table), or ``None``."""
    try:
        source = store.blobs.open_file(found)
    except (OSError, StorageError, CorruptBlob):
        return None
    try:
        read_seek_table(source, source.size)
    except (FormatError, OSError):
        return "an abandoned write (its writer was killed)"
    finally:
        source.close()
    return None
