"""What sits at a blob file's or segment's name in an agent directory and is no regular file (a link, a FIFO, a
directory, a socket, a device): ``fsck`` reports each, ``fsck --repair`` removes a link or FIFO itself (never what a
link points to; a FIFO is never opened) and leaves a directory. The sweep leaves them all alone (see
:mod:`scratchfs.engine.sweeper`). And what scratchfs did not write in an agent directory -- a file (or anything
else) named like neither a blob nor a segment -- whatever its mode: reported, never touched by a repair or the
sweep (:func:`foreign_names`). Local stores only: an object store holds objects, nothing else (it reports the
objects it does not read itself)."""

from __future__ import annotations

import stat
from typing import NamedTuple

from scratchfs.engine.file_names import blob_token, name_kind
from scratchfs.engine.runs_listing import RunsListing
from scratchfs.engine.segment_sweep import known_locations
from scratchfs.foundation.errors import ScratchError

__all__ = ["FOREIGN", "OddName", "foreign_names", "odd_blob_names", "remove_odd_name"]

_KINDS = ((stat.S_ISLNK, "symbolic link"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISDIR, "directory"),
          (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"))


FOREIGN = ("a {kind} scratchfs did not write (not a blob or segment): no entry is read from it and fsck --repair "
           "leaves it, but deleting this run or agent removes it with its directory: move it out of the store")
"""The detail of what :func:`foreign_names` finds in an agent directory, ``{kind}`` what it is (``file``,
``directory``, ``symbolic link``, ...)."""
FOREIGN_ABOVE = ("a {kind} scratchfs did not write (not {what} directory): never followed or opened, no entry is "
                 "read from it and fsck --repair leaves it{fate}: move it out of the store")
"""The detail of what :func:`foreign_names` finds directly in ``runs/`` (``{what}`` ``a run``) or in a run directory
(``an agent``: ``{fate}`` says that deleting the run removes it)."""


class OddName(NamedTuple):
    """An entry named like a blob (``<token>.zst``) or segment (``<name>.zseg``) that is no regular file: its run and
    agent directory names, its ``name``, its ``path`` (for reports) and ``kind`` (``"symbolic link"``, ``"FIFO"``,
    ``"directory"``, ...)."""

    run: str
    agent: str
    name: str
    path: str
    kind: str

    @property
    def foreign(self) -> str:
        """What it is as a name scratchfs did not write (:func:`foreign_names`), in one sentence."""
        if self.agent:
            return FOREIGN.format(kind=self.kind)
        return FOREIGN_ABOVE.format(kind=self.kind, what="an agent" if self.run else "a run",
                                    fate=", but deleting this run removes it with its directory" if self.run else "")

    @property
    def detail(self) -> str:
        """What it is (at a blob's or a segment's name) and what a repair does with it, in one sentence."""
        fate = ("fsck --repair leaves it (remove it by hand)" if self.kind == "directory" else
                f"fsck --repair removes the {self.kind} itself" + (", never what it points to"
                                                                   if self.kind == "symbolic link" else ""))
        where = "a segment's" if name_kind(self.name) == "segment" else "a blob's"
        return (f"a {self.kind} at {where} name, where only a regular file belongs: never followed or opened, no "
                f"entry is read from it; {fate}")


def odd_blob_names(blobs, index, listing: RunsListing) -> list[OddName]:
    """Every :class:`OddName` in ``listing`` (fsck's walk of ``runs/`` of the local blob store ``blobs``), sorted by
    path; a ``<token>.zst`` that a row of its scope names is left out (the entry check reports it as corrupt). A
    directory that could not be listed (a link, gone) is skipped: fsck reports such directories itself.

    Raises:
        StoreBusy, StorageError: from the index.
    """
    found = []
    for run, agent, names in listing.agent_dirs():
        odd = [(name, st.st_mode) for name, st in names
               if not stat.S_ISREG(st.st_mode) and name_kind(name)]
        tokens = [blob_token(name) for name, _ in odd if blob_token(name)]
        named = known_locations(index, tokens, (run, agent)) if tokens else set()
        found += [OddName(run, agent, name, str(blobs.runs / run / agent / name), _kind(mode))
                  for name, mode in odd if blob_token(name) not in named]
    return found


def foreign_names(blobs, listing: RunsListing) -> list[OddName]:
    """What scratchfs did not write under ``runs/`` in ``listing`` (fsck's walk of ``runs/`` of the local blob store
    ``blobs``), whatever its mode or kind (:attr:`OddName.foreign` says what it is), never opened or followed: what
    is no directory directly in ``runs/`` (``run`` and ``agent`` empty) or in a run directory (``agent`` empty), and
    every entry of an agent directory named like neither a blob nor a segment. A directory that could not be listed
    (a link, gone) is skipped: fsck reports such directories itself."""
    above = [OddName("", "", run, str(blobs.runs / run), _kind(st.st_mode, "file"))
             for run, st in listing.runs if not stat.S_ISDIR(st.st_mode)]
    above += [OddName(run, "", agent, str(blobs.runs / run / agent), _kind(st.st_mode, "file"))
              for run, _ in listing.runs for agent, st in listing.inside.get(("runs", run), [])
              if not stat.S_ISDIR(st.st_mode)]
    return above + [OddName(run, agent, name, str(blobs.runs / run / agent / name), _kind(st.st_mode, "file"))
                    for run, agent, names in listing.agent_dirs() for name, st in names
                    if not name_kind(name)]


def remove_odd_name(blobs, odd: OddName) -> bool:
    """Remove the link, FIFO, socket or device ``odd`` itself (never what a link points to; nothing is opened);
    True if nothing is at its name any more. A directory is left (False). Never raises."""
    if odd.kind == "directory":
        return False
    blobs.unlink_part(("runs", odd.run, odd.agent), odd.name)
    return all(name != odd.name for name, _ in _listed(blobs, ("runs", odd.run, odd.agent)))


def _listed(blobs, parts: tuple[str, ...]) -> list[tuple[str, int]]:
    try:
        return blobs.list_parts(parts)
    except ScratchError:
        return []


def _kind(mode: int, regular: str = "special file") -> str:
    """What ``mode`` is: ``"symbolic link"``, ``"FIFO"``, ``"directory"``, ...; ``regular`` for any other."""
    return next((kind for test, kind in _KINDS if test(mode)), regular)
