"""The shape of a unified diff (``git diff``, ``git show``, ``git log -p``, ``diff -u``), for
:mod:`scratchfs.api.shape`: its files, each with the line its diff starts at and the lines it adds and removes, its
hunks, and the commits of a ``git log -p`` -- so that a model goes to one file's diff with one line read
(``line=N``) instead of paging through the others. Such text stays content type ``text``; its shape starts with
:data:`DIFF_SHAPE`.

The format is GNU diffutils' unified format ("Detailed Description of Unified Format" in the diffutils manual: a
``---`` / ``+++`` file header, then hunks ``@@ -l,s +l,s @@`` whose body lines start with a space, ``-`` or ``+``,
``\\`` for "No newline at end of file") with git's extended headers (git-diff(1), "Generating patches with -p":
``diff --git a/x b/y``, ``index``, mode, rename and copy lines, ``Binary files ... differ``). A hunk's body is read
by its header's line counts, so a removed line that itself starts with ``-- `` is not taken for a file header.

Only a text that is mostly diff is one: at least one file with a hunk or a binary change, and at least
:data:`_MOST_OTHER` of its non-blank lines inside file headers, hunks or ``git log`` commit headers (a README or a
mail quoting a short patch stays text). Looked at only when the sample's first 64 KiB hold ``@@ -`` at a line start
(a scan for ``@`` first).
"""

from __future__ import annotations

import re

from scratchfs.api.shape_words import listed_within, plural, short_name, within_lines

__all__ = ["DIFF_SHAPE", "diff_shape"]

DIFF_SHAPE = "unified diff"
"""How the shape of a unified diff starts."""

_HUNK_RE = re.compile(rb"@@ -\d{1,12}(?:,(\d{1,12}))? \+\d{1,12}(?:,(\d{1,12}))? @@")
_COMMIT_RE = re.compile(rb"commit [0-9a-f]{7,64}\b")
_GIT_HEADER = (b"index ", b"old mode ", b"new mode ", b"deleted file mode ", b"new file mode ", b"similarity index ",
               b"dissimilarity index ", b"rename from ", b"rename to ", b"copy from ", b"copy to ")
_MOST_OTHER = 0.6
_CHECK_EVERY = 1024
_HEAD_BYTES = 64 * 1024


class _File:
    __slots__ = ("added", "line", "name", "removed")

    def __init__(self, name: str, line: int) -> None:
        self.name, self.line, self.added, self.removed = name, line, 0, 0


def _path(header: bytes, strip: bytes) -> str:
    """The path a ``---`` / ``+++`` header names (its ``a/`` or ``b/`` dropped, a tab and timestamp after it too)."""
    path = header[4:].split(b"\t", 1)[0].rstrip(b"\r")
    if path.startswith(strip):
        path = path[len(strip):]
    return path.decode("utf-8", "replace")


class _Walk:
    """One pass over a diff's lines: its files, hunks and commits, and how many lines are none of those."""

    def __init__(self) -> None:
        self.files: list[_File] = []
        self.hunks = self.commits = self.other = self.counted = 0
        self.old = self.new = 0  # lines left in the hunk being read
        self.in_commit = False

    def mostly_other(self) -> bool:
        """Whether more than a text of diff holds of the lines taken are none of a diff's."""
        return self.other > (1 - _MOST_OTHER) * self.counted

    def line(self, number: int, line: bytes, previous: bytes, following: bytes) -> None:
        """Take line ``number`` (from 1), with the lines around it."""
        if self.old > 0 or self.new > 0:
            self._body(line)
            return
        if not line.strip():
            return
        self.counted += 1
        if line.startswith(b"diff --git "):
            self.in_commit = False
            name = line.rsplit(b" b/", 1)[-1] if b" b/" in line else line[11:]
            self.files.append(_File(name.rstrip(b"\r").decode("utf-8", "replace"), number))
        elif line.startswith(b"--- ") and following.startswith(b"+++ "):
            self.in_commit = False
            last = self.files[-1] if self.files else None
            if last is None or last.line < number - 12 or last.added or last.removed:  # (no `diff --git` before)
                old = _path(line, b"a/")
                new = _path(following, b"b/")
                start = number - 1 if previous.startswith(b"diff ") else number  # (diff -ruN's own line)
                self.files.append(_File(old if new == "/dev/null" else new, start))
        elif (line.startswith(b"+++ ") and self.files) or (line.startswith(b"diff ") and following.startswith(b"--- ")):
            pass  # (a file header's second line; diff -r's command line before one)
        elif (match := _HUNK_RE.match(line)) is not None and self.files:
            self.hunks += 1
            self.old = int(match[1]) if match[1] is not None else 1
            self.new = int(match[2]) if match[2] is not None else 1
        elif _COMMIT_RE.match(line):
            self.commits += 1
            self.in_commit = True
        elif line.startswith(_GIT_HEADER) or (line.startswith(b"Binary files ") and self.files) or self.in_commit:
            pass
        else:
            self.other += 1

    def _body(self, line: bytes) -> None:
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
            return
        self.counted += 1


def diff_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it; ``size``: the whole content's bytes, ``None``: the
    sample's; told from its first :data:`~scratchfs.api.shape_words.MOST_LINES` lines) if it is a unified diff, else
    ``None``: ``"unified diff, 198 lines, 3 files, 7 hunks, +52 -14: scratchfs/api/archive.py (line 12, +20 -8), …;
    line=N reads from a file's diff"``. Never raises."""
    # a memchr first: a scan for 4 bytes takes 11 us over 16 KiB, and one starting with a newline is slow over newlines
    head = sample[:_HEAD_BYTES]  # (a diff's first hunk is in its first 64 KiB: a git show's stat before it too)
    if b"@" not in head or b"@@ -" not in head or not (head.startswith(b"@@ -") or b"\n@@ -" in head):
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)
    if not complete:
        sample = sample[: sample.rfind(b"\n") + 1]  # whole lines only
    rows = sample.split(b"\n")
    walk = _Walk()
    for number, line in enumerate(rows, 1):
        walk.line(number, line, rows[number - 2] if number > 1 else b"", rows[number] if number < len(rows) else b"")
        if not number % _CHECK_EVERY and (not walk.files or walk.mostly_other()):
            return None  # (no file header, or mostly other lines, so far: a text that is no diff costs no more)
    files = walk.files
    if not files or not walk.hunks or walk.mostly_other():
        return None
    added, removed = sum(f.added for f in files), sum(f.removed for f in files)
    commits = f", {plural(walk.commits, 'commit')}" if walk.commits else ""
    distinct = len({f.name for f in files})  # (git log -p: a file changed by several commits has a diff in each)
    counted = plural(len(files), "file") if distinct == len(files) else \
        f"{len(files):,} file diffs of {plural(distinct, 'file')}"
    head = (f"{DIFF_SHAPE}, {plural(lines, 'line')}{commits}, {counted}, "
            f"{plural(walk.hunks, 'hunk')}, +{added:,} -{removed:,}{scope}: ")
    tail = "; line=N reads from a file's diff"
    return listed_within(head, (f"{short_name(f.name, 80)} (line {f.line:,}, +{f.added:,} -{f.removed:,})"
                                for f in files), tail, len(files))
