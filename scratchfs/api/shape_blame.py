"""The shape of ``git blame``'s default output, for :mod:`scratchfs.api.shape`: its commits, newest first, each with
how many lines it last changed and the first of them, and its authors, so that a model asked "what changed last, and
where" has it in the stub. Such text was told as a table of 8 columns aligned by spaces with no header, its author
split into words and each line number glued to the code after it (``54fb8ee20 (Seed 557fe884 maintainers
2026-12-01 00:30:56 +0000 200)  if x:``: the author in 3 cells, ``200)  if x:`` one). It stays content type
``text``; its shape starts with :data:`BLAME_SHAPE`.

The layout (git's ``builtin/blame.c``, default ``--date=iso``): each line ``<hash>[ <file>] (<author> <YYYY-MM-DD
HH:MM:SS +ZZZZ> <line>) <code>``, the hash abbreviated (``-l``: 40 digits) and prefixed ``^`` for a boundary commit,
``<file>`` there when lines came from another file (``-C``, a rename), ``-e``'s author an email in ``<>``. Told when
its first line is one and so are 9 in 10 of the sample's lines (a line of code may hold a newline git does not
escape: a CR); a ``--porcelain``, ``-s`` or other ``--date`` output is none."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timezone

from scratchfs.api.shape_words import listed_within, plural, short_name, within_lines

__all__ = ["BLAME_SHAPE", "blame_shape"]

BLAME_SHAPE = "git blame"
"""How the shape of ``git blame`` output starts."""

_LINE_RE = re.compile(rb"(?m)^(\^?[0-9a-f]{7,40}) (?:[^\n(]{1,200} )?\(([^\n()]{0,200}?)(?<! ) +(\d{4}-\d\d-\d\d \d\d:"
                      rb"\d\d:\d\d [+-]\d{4}) +(\d{1,9})\) ")  # (the author ends at a word: its padding of spaces
# tried once, not from each of its spaces -- 200 spaces a line cost 0.7 s a sample)
_FIND = '; match="HASH", context="line" finds a commit\'s lines'


def blame_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is ``git blame``'s output, else ``None``:
    ``"git blame, 458 lines of 23 commits by 1 author (Seed maintainers), 2026-11-30 to 2026-12-07; newest first:
    8455a5c63 2026-12-07 02:55 (3 lines, first line 6), …; match="HASH", context="line" finds a commit's lines"``
    (a boundary commit's hash ``^`` first, as git prints it; the commits listed within the shape's limit, ``… N
    more`` the others; output line N is the file's line N, or ``-L``'s first line + N - 1, which the shape names).
    ``size``: the whole content's bytes (``None``: the sample's); told from the sample's first
    :data:`~scratchfs.api.shape_words.MOST_LINES` lines. Never raises."""
    if (not sample[:1].isalnum() and sample[:1] != b"^") or _LINE_RE.match(sample, 0) is None:
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)
    told = sample.count(b"\n") + (complete and not sample.endswith(b"\n"))
    if sample.count(b") ") * 10 < told * 9:
        return None  # (what each line of blame holds, counted at C speed: a line failing _LINE_RE costs up to 200
        # steps of it -- 2,500 lines of 200 spaces after their hash took 20 ms, 10 times plain text's description)
    found = _LINE_RE.findall(sample)
    if len(found) * 10 < told * 9:
        return None
    commits, names, stamps, _ = zip(*found, strict=True)  # (each count at C speed: 10,000 commits of a line each)
    counts = Counter(commits)
    first_line = {commit: at for at, commit in zip(range(len(commits), 0, -1), reversed(commits), strict=True)}
    dates = dict(zip(commits, stamps, strict=True))
    authors = Counter(map(bytes.strip, names))
    newest = sorted(counts, key=lambda commit: _when(dates[commit]), reverse=True)
    days = [min(dates.values())[:10].decode(), max(dates.values())[:10].decode()]
    start = int(found[0][3])
    offset = "" if start == 1 else f" (output line N is the file's line {start:,} + N - 1)"
    head = (f"{BLAME_SHAPE}, {plural(lines, 'line')}{offset} of {plural(len(counts), 'commit')} by "
            f"{plural(len(authors), 'author')} ({_authors(authors)}), {days[0]} to {days[-1]}{scope}; newest first: ")
    items = (f"{commit.decode()} {dates[commit][:16].decode()} ({plural(counts[commit], 'line')}, first line "
             f"{first_line[commit]:,})" for commit in newest)
    return listed_within(head, items, _FIND, len(newest))


def _when(date: bytes) -> datetime:
    """The moment of ``date`` (``2026-12-07 02:55:50 +0000``, as :data:`_LINE_RE` took it), its offset counted; the
    earliest for a date that names no real day (``2026-13-40``), so that sorting never raises. Read as ISO 8601 at C
    speed, not by ``strptime`` (10 µs a date: 10,000 commits of one line each took 0.1 s a sample)."""
    try:
        return datetime.fromisoformat(f"{date[:19].decode()}{date[20:23].decode()}:{date[23:25].decode()}")
    except ValueError:
        return _EARLIEST


_EARLIEST = datetime.min.replace(tzinfo=timezone.utc)


def _authors(authors: Counter[bytes]) -> str:
    """The 3 authors of most lines, each with their count when there are several: ``"Ann (300 lines), Bo (12
    lines), … 2 more"``."""
    if len(authors) == 1:
        return short_name(next(iter(authors)).decode("utf-8", "replace"), 40)
    named = [f"{short_name(name.decode('utf-8', 'replace'), 32)} ({plural(count, 'line')})"
             for name, count in authors.most_common(3)]
    more = len(authors) - len(named)
    return ", ".join(named) + (f", … {more:,} more" if more else "")
