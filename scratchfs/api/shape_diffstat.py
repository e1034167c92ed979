"""The shape of a diffstat as ``git diff --stat`` (``git apply --stat``, ``diffstat``) writes it, for
:mod:`scratchfs.api.shape`: its totals line (``413 files changed, 30564 insertions(+), 3518 deletions(-)``, the last
line, which a model would read the end for) and the files changed most, each with its line and its lines changed, so
that "how much changed" and "where" are answered by the stub (``git diff --stat`` of 200 commits, 25 KB, was ``text,
414 lines``; helper shapes4 of what modeltask3 met). ``git log --stat`` and ``git show --stat`` are a ``git log``'s
(:mod:`~scratchfs.api.shape_gitlog`), which sums them. Such text stays content type ``text``; its shape starts with
:data:`DIFFSTAT_SHAPE`.

The layout (git's ``show_stats``): a line a file, `` path | N +++--`` (`` path | Bin 0 -> 10240 bytes`` for a binary
file; the path padded to one column, ``.../`` before a long one's end), then `` N files changed, X insertions(+), Y
deletions(-)``. Told only on text that starts with a space and has `` | `` in its first line (tests of its first
bytes, before any regular expression), that first line a file's, nine in ten of all lines files' (or the totals'),
and the totals last when the sample is all of it; a sample that is not the whole content says its files changed so
far, not the totals (which its last line holds: ``line=-1``)."""

from __future__ import annotations

import heapq
import re

from scratchfs.api.shape_words import called_name, listed_within, plural, within_lines

__all__ = ["DIFFSTAT_SHAPE", "diffstat_shape"]

DIFFSTAT_SHAPE = "diffstat (git --stat)"
"""How the shape of a diffstat starts."""

_FILE_RE = re.compile(rb"\n (\S[^\n|]{0,8190} )\| +(?:(\d{1,12})(?: [+-]{1,200}|(?<= 0))|Bin [^\n]{0,80})"
                      rb"\r?(?=\n|\Z)")
# (the path and its padding greedy, then the space before "|": a lazy path then " +" tried every split of a line of
# spaces, 1.2 s over 512 KiB of them; the padding is stripped where a path is named. A count is 0 or has its graph,
# one + or - at least, as git scales it: psql -t's "name | number" rows have none, and a sample of them short of its
# end, no totals needed, was told a diffstat of "files" and "lines")
_TOTAL_RE = re.compile(rb"\n (\d{1,12}) files? changed(?:, (\d{1,12}) insertions?\(\+\))?"
                       rb"(?:, (\d{1,12}) deletions?\(-\))?\r?\n?\Z")
_MOST = 0.9  # of the lines, the files' lines and the totals'
_FIND = '; match=" PATH ", context="line" finds a file\'s line'  # (no pattern=: a path's + ( ) [ ] -- c++/,
# Next.js's [id].tsx and (group)/ -- made pattern="^ PATH +\|" find nothing, or fail)


def diffstat_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is a diffstat, else ``None``: ``"diffstat
    (git --stat), 414 lines, 413 files changed, 30,564 insertions(+), 3,518 deletions(-) (line 414); most changed:
    tests/test_x.py (line 300, 1,206 lines), …; match=" PATH ", context="line" finds a file's line"`` (a sample
    that is not all of it: its files so far, and ``line=-1`` reads the totals; binary files alone: the first of
    them). ``size``: the whole content's bytes (``None``: the sample's); told from the sample's first
    :data:`~scratchfs.api.shape_words.MOST_LINES` lines, which its scope says when that is not all of it. Never
    raises."""
    if sample[:1] != b" " or b" | " not in sample[: sample.find(b"\n", 0, 4096)]:  # (its first line a file's)
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)  # (whole lines, MOST_LINES at most: each
    text = b"\n" + sample  # file's line is a match and a tuple in Python, 42 ms over 58,000 of 512 KiB)
    total = _TOTAL_RE.search(text, max(0, len(text) - 200)) if complete else None
    if (complete and total is None) or _FILE_RE.match(text) is None:  # (a diffstat ends with its totals, looked
        return None  # for first; its first line a file's, one anchored match: psql's " name | count" is none)
    files = [(found.start(), found[1], found[2]) for found in _FILE_RE.finditer(text)]
    rows = text.count(b"\n") - text.endswith(b"\n")
    if len(files) + (total is not None) < _MOST * rows:
        return None
    changed = [(int(count), at, path) for at, path, count in files if count]  # (a binary file's: no count)
    largest = heapq.nlargest(8, changed, key=lambda item: (item[0], -item[1])) or [  # (the first of equals first;
        (None, at, path) for at, path, _count in files[:8]]  # binary files alone: the first of them, no count)
    if total is not None:
        insertions, deletions = int(total[2] or 0), int(total[3] or 0)
        said = (f"{plural(int(total[1]), 'file')} changed, {plural(insertions, 'insertion')}(+), "
                f"{plural(deletions, 'deletion')}(-) (line {rows:,}); most changed: ")
    else:
        said = f"{plural(len(files), 'file')} so far; most changed so far: "
    head = f"{DIFFSTAT_SHAPE}, {plural(lines, 'line')}{scope}, {said}"
    items = (f"{called_name(path.decode('utf-8', 'replace').rstrip(), 60)} (line {_line(text, at):,}, "
             f"{'binary' if count is None else plural(count, 'line')})" for count, at, path in largest)
    return listed_within(head, items, _FIND if total is not None else f"{_FIND}, line=-1 reads the totals",
                         len(largest))


def _line(text: bytes, at: int) -> int:
    """The line of ``text`` (a newline, then a content's lines) that the newline at offset ``at`` starts."""
    return text.count(b"\n", 0, at + 1)
