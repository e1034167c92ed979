"""The commits a search of a ``git log`` finds its matches in: a window of ``git log -p`` (or ``--stat``,
``--name-status``) shows a file's ``diff --git`` line, and without the commit above it a model asked "which commits
touched this file" reads each window's surroundings again. A search of an entry whose shape is a ``git log`` or a
diff of commits (``git log -p``) gives each window its ``commit``: the hash, author and date of the nearest
``commit <hash>`` line before its first match, in git's default ("medium") format (:func:`with_commits`), or of
the nearest ``Commit: <hash>`` line over its ``Author:``, ``Date:`` and ``Message:`` ones, the layout of the
``git_log`` tool of ``mcp-server-git`` (``fixtures/tools/mcp-server-git-log.txt``).

Bounded: each window's commit is looked for in at most :data:`LOOK_BACK_BYTES` before its match and no further back
than the last window's match (a window with none between them is in the same commit), and a reply reads at most
:data:`MOST_READ_BYTES` in all for them; a window past those bounds has no ``commit``. A commit's lines behind a
``--graph``'s columns or ``--color``'s escapes are read through them."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from scratchfs.api.results import Matches
from scratchfs.api.shape_diff import DIFF_SHAPE
from scratchfs.api.shape_gitlog import GIT_LOG_SHAPE
from scratchfs.api.structure_entry import EntryReads
from scratchfs.engine.structure import ReaderSource
from scratchfs.foundation.errors import ScratchError

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

__all__ = ["LOOK_BACK_BYTES", "MOST_READ_BYTES", "with_commits"]

LOOK_BACK_BYTES = 1024 * 1024
"""Bytes before a window's match its commit line is looked for in (a commit's patch longer than this: none)."""
MOST_READ_BYTES = 4 * 1024 * 1024
"""Bytes one reply reads in all to find its windows' commits."""
_CHUNK = 64 * 1024
_HEADER_BYTES = 2048  # (a commit's line, Merge:, Author: and Date: lines read after it)
_SGR = rb"\x1b\[[0-9;]{0,32}m"
_GRAPH = rb"[|/\\_. ]"
_HEADER_RE = re.compile(rb"(?:%s|%s){0,64}?commit ([0-9a-f]{7,64})\b[^\n]{0,512}\n(?:[^\n]{0,256}?Merge: [^\n]*\n)?"
                        rb"(?:%s|%s){0,64}?Author: ([^\n]*)\n(?:%s|%s){0,64}?Date: +([^\n]*)"
                        % (_SGR, rb"[|/\\_. *]", _SGR, _GRAPH, _SGR, _GRAPH))
"""A commit's header as git writes it: its ``commit <hash>`` line, ``Merge:``, ``Author:`` and ``Date:`` ones, each
behind a ``--graph``'s columns (the commit's marked ``*``) or ``--color``'s escapes, if any."""
_TOOL_HEADER_RE = re.compile(rb"Commit: ([0-9a-f]{7,64})\r?\nAuthor: ([^\n]*)\nDate: ([^\n]*)\nMessage: ")
"""A commit's header as ``mcp-server-git``'s ``git_log`` writes it, at a line's start (a message's own ``Commit:``
line, written unindented, is none unless the three lines after it are a header's too)."""
_LEAD_RE = re.compile(rb"(?:%s)*(?:(?:%s|%s)*\*(?:%s|%s)*)?" % (_SGR, _SGR, _GRAPH, _SGR, _GRAPH))
"""What may stand before ``commit`` on a commit's line: escapes, a graph whose ``*`` marks the commit (a patch's
context line ``" commit 1a2b3c4"`` has a space alone: none)."""
_EMAIL_RE = re.compile(r" *<[^<>]*>$")
_AUTHOR_CHARS = 60
_DATE_CHARS = 40  # (git's "Mon Dec 7 17:00:31 2026 +0000" 30; a 60,000-character Date: line made each window's
# commit 60 KB, a reply past its budget: helper hostile49)


def with_commits(scope: Scope, found: Matches) -> Matches:
    """``found`` (a search of ``scope``'s entry ``found.handle``, not of a view nor in an encoding) with ``commits``:
    the commit of each window's first match (``{match offset: "96eb5d2d, A U Thor, Mon Dec 7 17:00:31 2026
    +0000"}``: its hash's first 8 digits, its author's name without the address, at most 60 characters, and git's
    date, at most 40) when the entry's shape is a git log or a diff holding commits and a window has one within the
    bounds (the module's docstring); else ``found`` as it is. Never raises: an entry out of reach has none."""
    if not found.windows or found.view or found.encoding or found.binary:
        return found
    reads = EntryReads(scope)
    offsets = [window.matches[0].offset if window.matches else window.match_offset for window in found.windows]

    def read(src: ReaderSource, blob: str, kind: str | None) -> dict[int, str]:
        return _commits_at(src, offsets) if _logged(reads.shape or "") else {}

    try:
        commits = reads.over_entry(found.handle, read)
    except ScratchError:
        return found
    return replace(found, commits=commits) if commits else found


def _logged(shape: str) -> bool:
    """Whether an entry of ``shape`` is a git log of commit headers (``git log``, ``-p``, ``--stat``, ``--graph``,
    coloured too; not ``--oneline``), or a diff holding commits (``unified diff, 1,226 lines, 8 commits, …``)."""
    if shape.startswith("coloured (") and "): " in shape:
        shape = shape.split("): ", 1)[1]
    head = shape.split(":", 1)[0]
    if shape.startswith(GIT_LOG_SHAPE):
        return "--oneline" not in head
    return shape.startswith(DIFF_SHAPE) and " commit" in head


def _commits_at(src: ReaderSource, offsets: list[int]) -> dict[int, str]:
    """The commit of each of ``offsets`` (ascending) in ``src``, within the bounds."""
    out: dict[int, str] = {}
    left, last, said = MOST_READ_BYTES, -1, None
    for at in offsets:
        floor = max(0, at - LOOK_BACK_BYTES, last + 1)
        header, left = _last_header(src, floor, at, left)
        if header is None and last >= 0 and last + 1 >= at - LOOK_BACK_BYTES and left > 0:
            header = said  # (no commit line between the last window's match and this one: the same commit)
        if header is not None:
            out[at] = said = header
        last = at
        if left <= 0:
            break
    return out


def _last_header(src: ReaderSource, floor: int, at: int, left: int) -> tuple[str | None, int]:
    """The last commit header of ``src`` whose line starts in ``[floor, at]`` (the match's own line a commit's: that
    commit), said as :func:`with_commits` says it, and the bytes left to read (``left`` less those read), read back
    in chunks of :data:`_CHUNK`."""
    end = at
    while end >= floor and left > 0:
        start = max(floor, end - _CHUNK)
        first = max(0, start - 1)  # (the newline before a commit line at ``start``)
        data = src.read(first, end - first + _HEADER_BYTES)
        left -= len(data)
        cut = end - first
        if end == at:  # (the match's line to its end: its own commit line, a match inside it)
            after = data.find(b"\n", cut)
            cut = len(data) if after < 0 else after
        while True:
            word = max(data.rfind(b"commit ", 0, cut), data.rfind(b"Commit: ", 0, cut))
            line = data.rfind(b"\n", 0, word) + 1
            if word < 0 or (line == 0 and first > 0):  # (the line's start is in the next chunk back)
                break
            header = _header_at(data, line, word)
            if header is not None:
                return _said(header), left
            cut = word
        end = start + 512  # (a commit line across the chunks' edge is found in the next)
        if start == floor:
            break
    return None, left


def _header_at(data: bytes, line: int, word: int) -> re.Match[bytes] | None:
    """The commit header whose line starts at ``line`` of ``data``, its ``commit`` (``Commit:``) at ``word``, if any."""
    if data.startswith(b"Commit: ", word):
        return _TOOL_HEADER_RE.match(data, line) if word == line else None
    return _HEADER_RE.match(data, line) if _LEAD_RE.fullmatch(data, line, word) else None


def _said(header: re.Match[bytes]) -> str:
    """A commit header as a window's ``commit``."""
    author = _EMAIL_RE.sub("", header[2][:4096].decode("utf-8", "replace").strip())[:_AUTHOR_CHARS]
    date = header[3][: _DATE_CHARS * 4].decode("utf-8", "replace").strip()[:_DATE_CHARS]
    return f"{header[1][:8].decode()}, {author}, {date}"
