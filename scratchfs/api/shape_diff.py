"""The shape of a unified diff (``git diff``, ``git show``, ``git log -p``, ``diff -u``), for
:mod:`scratchfs.api.shape`: its files, each with the line its diff starts at and the lines it adds and removes, its
hunks, and the commits of a ``git log -p`` -- so that a model goes to one file's diff with one line read
(``line=N``) instead of paging through the others. Such text stays content type ``text``; its shape starts with
:data:`DIFF_SHAPE`.

The format is GNU diffutils' unified format ("Detailed Description of Unified Format" in the diffutils manual: a
``---`` / ``+++`` file header, then hunks ``@@ -l,s +l,s @@`` whose body lines start with a space, ``-`` or ``+``,
``\\`` for "No newline at end of file") with git's extended headers (git-diff(1), "Generating patches with -p":
``diff --git a/x b/y``, ``index``, mode, rename and copy lines, ``Binary files ... differ``) and its combined diffs
of a merge ("Combined diff format": ``diff --cc x``, ``@@@ -l,s -l,s +l,s @@@``, a column of ``+``/``-`` a parent).
A hunk's body is read by its header's line counts, so a removed line that itself starts with ``-- `` is not taken for
a file header; a line that is no hunk line ends it early (a diff cut or edited by hand) and is read as a header.

Only a text that is mostly diff is one: at least one file with a hunk or a binary change, and at least
:data:`_MOST_OTHER` of its non-blank lines inside file headers, hunks or ``git log`` commit headers (a README or a
mail quoting a short patch stays text). Looked at only when a line of the sample's first 64 KiB starts ``@@ -``
(``@@@ -`` and more for a merge's; a scan for ``@`` first).
"""

from __future__ import annotations

import heapq
import json
import re

from scratchfs.api.shape_words import called_name, listed_within, plural, room_for, within_lines

__all__ = ["DIFF_SHAPE", "HUNK_RE", "diff_shape", "patches_said"]

DIFF_SHAPE = "unified diff"
"""How the shape of a unified diff starts."""

HUNK_RE = re.compile(rb"@@ -\d{1,12}(?:,(\d{1,12}))? \+\d{1,12}(?:,(\d{1,12}))? @@")
"""A hunk's header ``@@ -l,s +l,s @@``: its groups the old and the new line counts (``None``: 1)."""
_COMBINED_RE = re.compile(rb"(@{3,10}) ((?:-\d{1,12}(?:,\d{1,12})? ){2,9})\+\d{1,12}(?:,(\d{1,12}))? \1")
_RANGE_RE = re.compile(rb"-\d+(?:,(\d+))?")
_COMBINED = (b"diff --cc ", b"diff --combined ")
_HUNK_START_RE = re.compile(rb"(?:^|\n)@{2,10} -")
_COMMIT_RE = re.compile(rb"commit [0-9a-f]{7,64}\b")
_GIT_HEADER = (b"index ", b"old mode ", b"new mode ", b"deleted file mode ", b"new file mode ", b"similarity index ",
               b"dissimilarity index ", b"rename from ", b"rename to ", b"copy from ", b"copy to ")
_MOST_OTHER = 0.6
_CHECK_EVERY = 1024
_HEAD_BYTES = 64 * 1024


class _File:
    __slots__ = ("added", "line", "name", "quoted", "removed")

    def __init__(self, name: str, line: int, quoted: str | None = None) -> None:
        self.name, self.line, self.added, self.removed = name, line, 0, 0
        self.quoted = quoted  # (the new name as git quoted it on its ``diff --git`` line, ``"b/tab\tx.txt"``)


def _path(header: bytes, strip: bytes) -> str:
    """The path a ``---`` / ``+++`` header names (its ``a/`` or ``b/`` dropped, a tab and timestamp after it too; a
    name git quoted, ``"a/t\\303\\251st"``, unquoted)."""
    path = header[4:].rstrip(b"\r")
    path = _unquoted(path)[0] if path.startswith(b'"') else path.split(b"\t", 1)[0]
    if path.startswith(strip):
        path = path[len(strip):]
    return path.decode("utf-8", "replace")


_QUOTED_RE = re.compile(rb'"((?:[^"\\]|\\.)*)"')
_ESCAPE_RE = re.compile(rb"\\([0-7]{1,3}|.)")
_OCTAL = frozenset(bytes([digit]) for digit in b"01234567")
_ESCAPES = {b"a": b"\a", b"b": b"\b", b"t": b"\t", b"n": b"\n", b"v": b"\v", b"f": b"\f", b"r": b"\r"}


def _unquoted(text: bytes) -> tuple[bytes, bytes]:
    """The name a C-quoted string at the start of ``text`` holds, as git quotes a path with special bytes
    (git-config(1), ``core.quotePath``: ``\\t``, ``\\"``, octal bytes), and the text after it; ``text`` as it is,
    and ``b""``, when it opens no quoted string."""
    quoted = _QUOTED_RE.match(text)
    if quoted is None:
        return text, b""
    name = _ESCAPE_RE.sub(lambda m: bytes([int(m[1], 8) & 0xFF]) if m[1][:1] in _OCTAL else _ESCAPES.get(m[1], m[1]),
                          quoted[1])  # (\8 and \9 are no octal escapes: taken as the digit)
    return name, text[quoted.end():]


def _git_name(line: bytes) -> tuple[bytes, bytes | None]:
    """The new name a ``diff --git a/x b/y`` line gives (``y``; unquoted when git quoted it, either side or both),
    and that name as git wrote it when it quoted it (``"b/tab\\tx.txt"``, its quotes kept), else ``None``."""
    rest = line[11:].rstrip(b"\r")
    if rest.startswith(b'"'):  # (the old name quoted: the new one after it and a space)
        after = _unquoted(rest)[1][1:]
    elif b' "b/' in rest:
        after = b'"b/' + rest.rsplit(b' "b/', 1)[1]
    elif b" b/" in rest:
        after = b"b/" + rest.rsplit(b" b/", 1)[1]
    else:
        after = rest
    quoted = _QUOTED_RE.match(after) if after.startswith(b'"') else None
    name = _unquoted(after)[0] if quoted is not None else after or rest
    return (name[2:] if name.startswith(b"b/") else name), (quoted[0] if quoted is not None else None)


class _Walk:
    """One pass over a diff's lines: its files, hunks and commits, and how many lines are none of those."""

    def __init__(self) -> None:
        self.files: list[_File] = []
        self.hunks = self.commits = self.other = self.counted = 0
        self.old = self.new = 0  # lines left in the hunk being read
        self.left: list[int] = []  # a combined diff's: lines left of each parent, then of the result
        self.in_commit = False
        self.git = False  # a file header git wrote (``diff --git``, ``diff --cc``): its paths ``a/``, ``b/``

    def mostly_other(self) -> bool:
        """Whether more than a text of diff holds of the lines taken are none of a diff's."""
        return self.other > (1 - _MOST_OTHER) * self.counted

    def line(self, number: int, rows: list[bytes]) -> None:
        """Take line ``number`` (from 1) of ``rows`` (the lines)."""
        line = rows[number - 1]
        if ((self.old > 0 or self.new > 0) and self._body(line)) or (self.left and self._combined(line)):
            return
        if not line.strip():
            return
        self.counted += 1
        if line[:1] == b"@":  # (a hunk's header; none of the headers below starts so)
            self._hunk(line)
            return
        following = rows[number] if number < len(rows) else b""
        if line.startswith(b"diff --git "):
            self.in_commit, self.git = False, True
            name, quoted = _git_name(line)
            self.files.append(_File(name.decode("utf-8", "replace"), number, None if quoted is None else
                                    quoted.decode("utf-8", "replace")))
        elif line.startswith(_COMBINED):  # (git's --cc of a merge: a column a parent)
            self.in_commit, self.git = False, True
            self.files.append(_File(line.split(b" ", 2)[2].rstrip(b"\r").decode("utf-8", "replace"), number))
        elif line.startswith(b"--- ") and following.startswith(b"+++ "):
            self.in_commit = False
            last = self.files[-1] if self.files else None
            if last is None or last.line < number - 12 or last.added or last.removed:  # (no `diff --git` before)
                old = _path(line, b"a/")
                new = _path(following, b"b/")
                start = number - 1 if number > 1 and rows[number - 2].startswith(b"diff ") else number  # (diff -ruN's)
                self.files.append(_File(old if new == "/dev/null" else new, start))
        elif (line.startswith(b"+++ ") and self.files) or (line.startswith(b"diff ") and following.startswith(b"--- ")):
            pass  # (a file header's second line; diff -r's command line before one)
        elif _COMMIT_RE.match(line):
            self.commits += 1
            self.in_commit = True
        elif line.startswith(_GIT_HEADER) or (line.startswith((b"Binary files ", b"\\ ")) and self.files) or \
                self.in_commit:  # (a "\\ No newline at end of file" after its hunk's last line too)
            pass
        else:
            self.other += 1

    def _hunk(self, line: bytes) -> None:
        """Take ``line``, starting ``@``: a hunk's header (a combined hunk's too), else another line."""
        if (match := HUNK_RE.match(line)) is not None and self.files:
            self.hunks += 1
            self.old = int(match[1]) if match[1] is not None else 1
            self.new = int(match[2]) if match[2] is not None else 1
        elif (match := _COMBINED_RE.match(line)) is not None and self.files and \
                len(parents := _RANGE_RE.findall(match[2])) == len(match[1]) - 1:
            self.hunks += 1
            self.left = [int(n) if n else 1 for n in (*parents, match[3])]
        elif not self.in_commit:
            self.other += 1

    def _body(self, line: bytes) -> bool:
        """Take ``line`` as a line of the hunk being read; ``False``: it is none (the hunk ended early)."""
        first = line[:1]
        if first == b"+":
            self.new -= 1
            self.files[-1].added += 1
        elif first == b"-":
            self.old -= 1
            self.files[-1].removed += 1
        elif first == b"\\":  # "\ No newline at end of file"
            pass
        elif first in (b" ", b"", b"\r"):  # a context line (an empty one: its space stripped by some tools)
            self.old -= 1
            self.new -= 1
        else:  # not a hunk line: the hunk ended early (a truncated or hand-edited diff); read the line as a header
            self.old = self.new = 0
            return False
        self.counted += 1
        return True

    def _combined(self, line: bytes) -> bool:
        """Take ``line`` as a line of the combined hunk being read (git-diff(1), "Combined diff format": a column a
        parent: ``-`` in that parent's and not the result, ``+`` in the result and not that parent, a blank in both --
        or, beside a ``-``, in neither; counted added when a column is ``+``, removed when one is ``-``); ``False``:
        it is none (the hunk ended early)."""
        width = len(self.left) - 1
        columns = line[:width] if line.strip(b"\r") else b" " * width  # (an empty context line: its blanks stripped)
        if len(columns) < width or columns.strip(b" +-"):
            if columns[:1] == b"\\":
                return True
            self.left = []
            return False
        removed = 45 in columns  # (a "-": in that parent and not the result; then a blank column is not in it)
        for column, mark in enumerate(columns):
            self.left[column] -= mark == 45 or (mark == 32 and not removed)
        self.left[width] -= not removed
        self.files[-1].added += 43 in columns
        self.files[-1].removed += removed
        self.counted += 1
        if max(self.left) <= 0:
            self.left = []
        return True


def diff_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it; ``size``: the whole content's bytes, ``None``: the
    sample's; told from its first :data:`~scratchfs.api.shape_words.MOST_LINES` lines) if it is a unified diff, else
    ``None``: ``"unified diff, 198 lines, 3 files, 7 hunks, +52 -14: scratchfs/api/archive.py (line 12, +20 -8), …;
    line=N reads from a file's diff"``. Never raises."""
    # a memchr first: a scan for 4 bytes takes 11 us over 16 KiB, and one starting with a newline is slow over newlines
    start = sample[:_HEAD_BYTES]  # (a diff's first hunk is in its first 64 KiB: a git show's stat before it too)
    if b"@" not in start or b"@@ -" not in start or _HUNK_START_RE.search(start) is None:
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)
    walk = _walked(sample)
    if walk is None:
        return None
    files = walk.files
    counted = _counted(walk)
    head = (f"{DIFF_SHAPE}, {plural(lines, 'line')}{_commits(walk)}, {counted}{scope}: ")
    logged = walk.commits > 0 and walk.git  # (a git log -p: the search of a file's commits, listed or not)
    tail = (_FIND_COMMITS if logged else "") + "; line=N reads from a file's diff"
    items = [_item(f) for f in files[:_MOST_LISTED + 1]]
    if len(files) > _MOST_LISTED or sum(len(item) + 2 for item in items) > room_for(head, tail):  # (not all fit:
        # those changed most, the first of equals first, and the search that finds another's line)
        head = f"{head}most changed: "
        tail = tail if logged else (_FIND_GIT if walk.git else _FIND) + tail
        largest = heapq.nlargest(_MOST_LISTED, range(len(files)),
                                 key=lambda at: (files[at].added + files[at].removed, -at))
        items = [_item(files[at], walk.git) for at in largest]  # (a quoted name's own search: its diff --git line)
    return listed_within(head, items, tail, len(files))


_MOST_LISTED = 64  # (more than a shape's room holds: each item is 20 characters or more)
_FIND_GIT = '; match=" b/NAME", context="line" finds another'
"""The search for an unlisted file's header lines in a git diff (``diff --git a/NAME b/NAME``, ``+++ b/NAME``): a
literal, as a model pastes a path (``c++/vector``, ``app/(shop)/[id]`` in a pattern found nothing; hostile35)."""
_FIND = '; match="+++ NAME", context="line" finds another'
"""The same for ``diff -u`` (``+++ NAME<tab>date``)."""
_FIND_COMMITS = '; match="diff --git a/NAME b/NAME", context="line" finds the commits that changed a file'
"""The search for a file's diffs in a ``git log -p``: its ``diff --git`` lines only (``" b/NAME"`` finds its ``+++``
ones too), each window naming its commit -- hash, author, date (:mod:`scratchfs.api.search_commits`); a literal too.
A renamed file's line names both names (``a/OLD b/NEW``): it is found by the search of ``" b/NEW"``."""


def _item(file: _File, called: bool = False) -> str:
    """A file as a diff's shape lists it; ``called``: the shape names :data:`_FIND_GIT` (or :data:`_FIND_COMMITS`),
    whose ``" b/NAME"`` misses a name git quoted (`` "b/tab\\tx.txt"``): such a file's item names the search of it as
    git wrote it, which finds its ``diff --git`` line
    (``match="\"b/tab\\\\tx.txt\""``: the JSON string of that text)."""
    own = f", match={json.dumps(file.quoted, ensure_ascii=False)}" if called and file.quoted else ""
    return f"{called_name(file.name, 80)} (line {file.line:,}, +{file.added:,} -{file.removed:,}{own})"


def patches_said(sample: bytes, scope: str) -> str:
    """What a ``git log -p --graph`` says of its patches (``sample``: its first lines, at most
    :data:`~scratchfs.api.shape_words.MOST_LINES`, with the graph taken off, none removed; ``scope``: what to add
    when they are not all of it, ``" in the first 160 KiB"``): ``", patches (12 file diffs of 10 files, 30 hunks,
    +229 -54)"``, or ``""`` when its lines make no diff. Never raises."""
    walk = _walked(sample)
    return "" if walk is None else f", patches ({_counted(walk)}{scope})"


def _walked(sample: bytes) -> _Walk | None:
    """The walk over the lines of ``sample``, or ``None`` when they make no diff (no file with a hunk, or mostly
    other lines: told early, every :data:`_CHECK_EVERY` lines)."""
    rows = sample.split(b"\n")
    walk = _Walk()
    take = walk.line
    for number in range(1, len(rows) + 1):
        take(number, rows)
        if not number % _CHECK_EVERY and (not walk.files or walk.mostly_other()):
            return None  # (no file header, or mostly other lines, so far: a text that is no diff costs no more)
    return None if not walk.files or not walk.hunks or walk.mostly_other() else walk


def _commits(walk: _Walk) -> str:
    return f", {plural(walk.commits, 'commit')}" if walk.commits else ""


def _counted(walk: _Walk) -> str:
    """A diff's files (``12 file diffs of 10 files`` when some file has several: ``git log -p``), hunks, lines added
    and removed."""
    files = walk.files
    added, removed = sum(f.added for f in files), sum(f.removed for f in files)
    distinct = len({f.name for f in files})  # (git log -p: a file changed by several commits has a diff in each)
    counted = plural(len(files), "file") if distinct == len(files) else \
        f"{len(files):,} file diffs of {plural(distinct, 'file')}"
    return f"{counted}, {plural(walk.hunks, 'hunk')}, +{added:,} -{removed:,}"
