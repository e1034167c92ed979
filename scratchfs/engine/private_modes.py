"""The modes of what a local store's ``runs/`` holds: its run and agent directories are 0700 and their files 0600
(:data:`~scratchfs.engine.root.DIR_MODE`, :data:`~scratchfs.engine.root.FILE_MODE`), as the store makes them.

One left open to other users -- a run or agent directory at 0777 (or any group or other bit), as a ``chmod -R``, a
restore from an archive or another tool may leave it -- lets them read every spilled result of that scope, or
plant and swap files in it. Opening a store tightens only its root and its own files
(:func:`~scratchfs.engine.root.prepare_root`); :func:`loose_modes` finds the rest for ``fsck``, and with ``repair``
tightens them: top down (a directory before what it holds, so that no other user can swap an entry of a directory
once it is tightened), each checked with ``lstat`` first (a link is never followed, nor changed), and only what this
user owns (another owner's is reported, left as it is). Only the store's own files are judged: a blob file or a
segment, by its name; any other file in an agent directory is one scratchfs did not write, which fsck reports as such
whatever its mode (:func:`scratchfs.api.odd_names.foreign_names`) and no repair touches.
"""

from __future__ import annotations

import os
import stat

from scratchfs.engine.file_names import name_kind
from scratchfs.engine.root import DIR_MODE, FILE_MODE
from scratchfs.engine.runs_listing import RunsListing
from scratchfs.engine.safe_fs import list_stats, walk
from scratchfs.foundation.errors import StorageError

__all__ = ["LooseMode", "loose_modes"]

LooseMode = tuple[tuple[str, ...], str, bool, bool]
"""``(path parts below the root, detail, repaired, mine)`` of a directory or file open to other users: ``mine`` when
this user owns it, which a repair then tightens (another owner's it leaves as it is, and what a directory above holds
while that directory cannot be made private: then ``mine`` is False too, and its detail says what must come
first)."""


def loose_modes(root_fd: int, listing: RunsListing, repair: bool = False) -> list[LooseMode]:
    """Every run directory (``runs/<run>``), agent directory (``runs/<run>/<agent>``) and blob or segment file (a
    regular file named so) in an agent directory of ``listing`` (fsck's walk of ``runs/`` below ``root_fd``) whose
    mode gives its group or other users any access, in walk order, each with what is wrong, with ``repair`` whether
    it was tightened (to 0700 or 0600), and whether this user owns it. A directory that could not be listed (a link,
    gone) is passed over: fsck's walk of the blobs reports it. Never follows a link. Never raises."""
    found: list[LooseMode] = []
    for run, run_st in listing.runs:
        if stat.S_ISDIR(run_st.st_mode):
            found += _walked(root_fd, listing, ("runs", run), run_st, repair)
    return found


def _walked(root_fd: int, listing: RunsListing, parts: tuple[str, ...], st: os.stat_result,
            repair: bool, held: str | None = None) -> list[LooseMode]:
    """The loose modes of the directory ``parts`` (its ``lstat`` ``st``) and of what it holds: agent directories in
    a run's, regular files in an agent's. What it holds is repaired only once it is private itself (in a repair
    that could not make it so, each says so: ``held``); one tightened now is listed again (another user may have
    swapped its entries since ``listing`` was made)."""
    checked = _checked(root_fd, parts, st, DIR_MODE, repair, held)
    private = not checked or checked[0][2]
    if held is None and checked:
        _, _, repaired, mine = checked[0]
        if not (repaired if repair else mine):  # not made (or not to be made) private: nothing it holds is then
            held = "/".join(parts)  # (another user may swap it meanwhile)
    inside = listing.inside.get(parts)
    if checked and checked[0][2]:
        try:
            inside = list_stats(root_fd, parts)
        except StorageError:
            inside = None
    if inside is None:
        return checked  # replaced by a link or removed since it was listed: the blob walk reports what it is
    for name, child in inside:
        if len(parts) == 2 and stat.S_ISDIR(child.st_mode):
            checked += _walked(root_fd, listing, (*parts, name), child, repair and private, held)
        elif len(parts) == 3 and stat.S_ISREG(child.st_mode) and name_kind(name):
            checked += _checked(root_fd, (*parts, name), child, FILE_MODE, repair and private, held)
    return checked


def _checked(root_fd: int, parts: tuple[str, ...], st: os.stat_result, mode: int, repair: bool,
             held: str | None = None) -> list[LooseMode]:
    """``[]`` when ``st`` (the ``lstat`` of ``parts``) gives no access to other users; else the one loose mode, made
    ``mode`` with ``repair`` when this user owns it (``chmod`` by name in its parent: a directory already private,
    or being walked by its owner, whose entries no other user can swap). ``held``: the directory above it
    (``runs/<run>``...) that stays open to other users (that a repair could not, or would not, make private): then it
    is left as it is, and its detail says what must come first."""
    if not st.st_mode & 0o077:
        return []
    what = "directory" if stat.S_ISDIR(st.st_mode) else "file"
    kind = ("a scope directory" if what == "directory" else "a segment file" if name_kind(parts[-1]) == "segment" else
            "a blob file")
    detail = (f"{kind} open to other users (mode "
              f"{stat.S_IMODE(st.st_mode):04o}; the store makes them {mode:04o}): they may read "
              f"{'its files' if what == 'directory' else 'it'}"
              f"{', and add or swap files in it' if what == 'directory' and st.st_mode & 0o022 else ''}")
    if st.st_uid != os.geteuid():
        fate = "left as it is" if repair else "fsck --repair leaves it (its owner may chmod it)"
        return [(parts, f"{detail}; owned by uid {st.st_uid}, not this user: {fate}", False, False)]
    if held is not None:
        return [(parts, f"{detail}; fsck --repair leaves it while {held} stays open to other users: once its owner "
                        f"makes that directory 0700, fsck --repair makes this {mode:04o}", False, False)]
    if not repair:
        return [(parts, f"{detail}; fsck --repair makes it {mode:04o}", False, True)]
    try:
        parent = walk(root_fd, parts[:-1])  # (no link followed on the way)
    except (OSError, StorageError) as exc:
        return [(parts, f"{detail}; cannot make it {mode:04o}: {exc}", False, True)]
    try:
        now = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        if (now.st_ino, now.st_dev, stat.S_IFMT(now.st_mode)) != (st.st_ino, st.st_dev, stat.S_IFMT(st.st_mode)):
            return [(parts, f"{detail}; replaced while checked: left as it is", False, True)]
        os.chmod(parts[-1], mode, dir_fd=parent)
    except OSError as exc:
        return [(parts, f"{detail}; cannot make it {mode:04o}: {exc.strerror or exc}", False, True)]
    finally:
        os.close(parent)
    return [(parts, f"{detail}; made {mode:04o}", True, True)]
