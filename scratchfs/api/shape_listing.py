"""The shape of a file listing, the workspace listing an agent's tool returns most: ``ls -lR`` / ``ls -R`` (a section a
directory, each opening with its path and a colon) and ``find``-style paths (one a line), for
:mod:`scratchfs.api.shape`: the directories with the line each starts at and how many entries or paths it holds, so
that a model goes to one directory with one line read (``line=N``) instead of paging through the tree. Such text stays
content type ``text``; its shape starts with :data:`LISTING_SHAPE` or :data:`PATHS_SHAPE`.

``ls -R`` (POSIX ``ls``, option ``-R``; GNU coreutils' output): each directory after the first is preceded by a
blank line, then ``path:`` alone on its line, then (with ``-l``) ``total N``; two such sections at least make one,
the first at the first line, all with a total or none, and without totals each path starting ``/``, ``.`` or ``~``
(a text's ``Notes:`` after a blank line is no directory).
``find``: every line of the first :data:`_HEAD_LINES` and nine in ten of all an absolute or ``./`` path, and none
``path:line:`` (grep's output, which :mod:`scratchfs.api.shape` tells); its paths are grouped by their first
directory below the directory every path shares (those in it itself: :data:`NOT_BELOW`), and a group holding more
than half of them by the directories below it in its place, three times at most (``dpkg -L git``: ``usr/`` held 941
of 949 paths; ``usr/bin/``, ``usr/lib/``, ``usr/share/doc/git/`` now), each a pass of one more regular expression.
"""

from __future__ import annotations

import re

from scratchfs.api.shape_words import LineNumbers, listed_within, plural, short_name, within_lines

__all__ = ["GREP_MOST_FILES", "LISTING_SHAPE", "NOT_BELOW", "PATHS_SHAPE", "grep_files_said", "listing_shape"]

LISTING_SHAPE = "ls -R listing"
"""How the shape of an ``ls -R`` listing starts."""
PATHS_SHAPE = "paths (find-style)"
"""How the shape of a list of paths starts."""
NOT_BELOW = "not in a subdirectory"
"""What a list of paths' shape names the group of the paths in the directory they share itself, not below one of its
subdirectories (a file there, a subdirectory's own line): ``under ./: not in a subdirectory (line 2, 8 paths),
fixtures/ (line 4, 130 paths)``."""

GREP_MOST_FILES = 5
"""Files with the most lines a grep output's shape names, each with its count and first line (modelfollow1: "TODOs by
module" over 347 files paged the whole output)."""
_PATH_TAIL_CHARS = 48

_SECTION_RE = re.compile(rb"\n\n([^\n]{1,4096}):(?=\r?\n)(?:\r?\n(total \d+)(?=\r?\n))?")  # (its line end not taken)
_DOTS_RE = re.compile(rb"(?<!->)[ \t]\.\.?\r?(?=\n|\Z)")  # ls -la's . and .., the last words of their lines (not a
# symlink's target: "X11 -> ." is an entry, /usr/bin's)
_DOT_LINES_RE = re.compile(rb"\n\.\.?\r?(?=\n|\Z)")  # ls -a's, lines of their own
_LINE_PATH_RE = re.compile(rb"\n(\.|/|~|(?:/(?![/*])|\./|\.\./|~/)[^\x00-\x1f]*)(?=\n|\Z)")  # (a "/*" or "//" line:
# a comment of CSS, C or JavaScript)
_GREP_RE = re.compile(rb":\d+[:-]")
_HEAD_LINES = 20
_MOST_DESCENTS = 3  # into a group holding more than half of the paths (dpkg -L git: usr/, usr/share/, usr/share/doc/)
_MOST_OTHER = 0.1


def _count(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def _ls_sections(sample: bytes, lines: int, scope: str) -> str | None:
    """The shape of an ``ls -R`` listing (``None``: fewer than two sections)."""
    text = b"\n\n" + sample  # (the first section has no blank line before it)
    sections = list(_SECTION_RE.finditer(text))
    long = sections[0][2] is not None if sections else False  # (ls -l: each header followed by its total)
    if len(sections) < 2 or sections[0].start() != 0 or any((found[2] is not None) != long or (
            not long and found[1][:1] not in (b"/", b".", b"~")) for found in sections):
        return None  # (without -l, a header is a path: "Notes:" after a blank line is no directory)
    numbers, line, at = [], 1, 2
    for found in sections:  # each header's line
        line += text.count(b"\n", at, found.start() + 2)
        at = found.start() + 2
        numbers.append(line)
    numbers.append(sample.count(b"\n") + (not sample.endswith(b"\n")) + 2)  # (as if a section followed the last)
    items = []
    for n, found in enumerate(sections):
        body = text[found.end() : sections[n + 1].start() if n + 1 < len(sections) else len(text)]
        dots = len((_DOTS_RE if found[2] is not None else _DOT_LINES_RE).findall(body))  # . and .. are no entries
        entries = numbers[n + 1] - numbers[n] - 2 - (found[2] is not None) - dots  # (less its header, blank line)
        name = short_name(found[1].decode("utf-8", "replace").rstrip("\r"), 80)
        items.append(f"{name} (line {numbers[n]:,}, {_count(max(0, entries), 'entry', 'entries')})")
    head = f"{LISTING_SHAPE}, {plural(lines, 'line')}, {_count(len(sections), 'directory', 'directories')}{scope}: "
    return listed_within(head, items, "; line=N reads from a directory")


def _paths(sample: bytes, lines: int, scope: str) -> str | None:
    """The shape of ``find``-style paths (``None``: not such a listing). C-speed scans: the paths counted by their
    starts, the directory they share from the least and greatest of them, the groups by one regular expression."""
    head = b"\n" + sample[: _nth_newline(sample, _HEAD_LINES)].replace(b"\r\n", b"\n")  # (its first lines first)
    if len(_LINE_PATH_RE.findall(head)) < head.count(b"\n") - head.endswith(b"\n") or _GREP_RE.search(head):
        return None
    text = b"\n" + sample.replace(b"\r\n", b"\n")
    rows = text.count(b"\n") - text.endswith(b"\n")
    if rows < 2:
        return None
    starts = sum(text.count(start) for start in (b"\n/", b"\n./", b"\n../", b"\n~/")) + text.count(b"\n.\n") - \
        text.count(b"\n/*") - text.count(b"\n//")
    if starts < (1 - _MOST_OTHER) * rows:
        return None
    paths = [row for row in text.split(b"\n") if row[:1] in (b"/", b".", b"~")]
    least, most = min(paths), max(paths)  # (every path starts with what these two share)
    shared = 0
    while shared < min(len(least), len(most)) and least[shared] == most[shared]:
        shared += 1
    common = least[:shared]
    prefix = common[: common.rfind(b"/") + 1] if not (len(least) == shared and most[shared : shared + 1] == b"/") \
        else common + b"/"  # (a directory listed before what it holds: find's own first line)
    groups = _grouped(text, prefix, b"")  # first directory below the shared one: [its first path's newline, paths]
    for _ in range(_MOST_DESCENTS):  # (a package's files, dpkg -L: usr/ holds 941 of 949; its bin/, lib/, share/ tell)
        key = next((key for key, (_first, count) in groups.items() if key and 2 * count > rows), None)
        if key is None:
            break
        below = _grouped(text, prefix, key)
        if list(below) == [key]:  # (no directory below it: its own files)
            break
        groups = dict(sorted({**{k: v for k, v in groups.items() if k != key}, **below}.items(),
                             key=lambda item: item[1][0]))
    line = LineNumbers(text)

    def item(key: bytes, first: int, count: int) -> str:  # (asked in order of first paths: newlines counted once)
        return (f"{short_name(key.decode('utf-8', 'replace'), 60) if key else NOT_BELOW} (line {line(first):,}, "
                f"{plural(count, 'path')})")

    base = short_name(prefix.decode("utf-8", "replace"), 120)
    head_text = f"{PATHS_SHAPE}, {plural(lines, 'line')}, under {base}{scope}: "
    return listed_within(head_text, (item(key, first, count) for key, (first, count) in groups.items()),
                         "; line=N reads from a directory's first path", len(groups))


def _grouped(text: bytes, prefix: bytes, below: bytes) -> dict[bytes, list[int]]:
    """The paths of ``text`` (a newline, then ``find``-style paths) under ``prefix + below`` (``prefix``: the
    directory every path shares, ending ``/``; ``below``: one of its groups, ``b""`` or ``usr/``), grouped by their
    first directory below that (``usr/bin/``; ``below`` itself for its own line and its files), each ``[its first
    path's newline, how many paths]``, in order of their first paths: one pass of a regular expression."""
    groups: dict[bytes, list[int]] = {}
    for found in re.finditer(rb"\n" + re.escape(prefix + below) + rb"([^/\n]*/)?", text):
        group = groups.setdefault(below + (found[1] or b""), [found.start(), 0])
        group[1] += 1
    return groups


def _nth_newline(text: bytes, count: int) -> int:
    """The offset just past the ``count``-th newline of ``text`` (its end when fewer)."""
    at = 0
    for _ in range(count):
        at = text.find(b"\n", at) + 1
        if at == 0:
            return len(text)
    return at


def grep_files_said(shape: str, files: int, most: list[tuple[bytes, int, int]], where: str) -> str:
    """What a grep output's shape ``shape`` (its words so far) says after them of its ``files`` (how many in
    ``where``: ``"all"``, ``"the sample"``) and those with the most lines, ``most`` (``(path, lines, first line)``,
    :func:`~scratchfs.foundation.text.grep_tally`), as many as fit within the shape's limit, each path's last
    :data:`_PATH_TAIL_CHARS` characters at most: ``" (347 files in all; most lines: …/urllib/request.py (line 40, 22
    lines), …; line=N reads from a file's first line)"``; ``" (4 files in all)"`` when none has more than one line.
    Never raises."""
    said = f" ({plural(files, 'file')} in {where}"
    if not most or most[0][1] < 2:
        return said + ")"
    items = [f"{_path_tail(path.decode('utf-8', 'replace'))} (line {first:,}, {plural(count, 'line')})"
             for path, count, first in most]
    listed = listed_within(shape + said + "; most lines: ", items, "; line=N reads from a file's first line)")
    return listed[len(shape):]


def _path_tail(path: str) -> str:
    """``path`` (controls as ``?``) if short, else ``…`` and its last characters from a ``/`` on when one is there."""
    path = short_name(path, 10**6)
    if len(path) <= _PATH_TAIL_CHARS:
        return path
    tail = path[len(path) - _PATH_TAIL_CHARS + 1 :]
    slash = tail.find("/")
    return "…" + (tail[slash:] if 0 <= slash < len(tail) - 1 else tail)


def listing_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it; ``size``: the whole content's bytes, ``None``: the
    sample's; told from its first :data:`~scratchfs.api.shape_words.MOST_LINES` lines) if it is an ``ls -R`` listing or
    ``find``-style paths, else ``None``: ``"ls -R listing, 401 lines, 9 directories: /work/main/scratchfs (line 1, 12
    entries), /work/main/scratchfs/api (line 20, 45 entries), …; line=N reads from a directory"``. Never raises."""
    end = sample.find(b"\n", 0, 4096)
    if end <= 0:
        return None
    first = sample[:end].rstrip(b"\r")  # ls -R's first line: its first directory's path and a colon, then (-l)
    sections = first.endswith(b":") and (first[:1] in (b"/", b".", b"~") or sample.startswith(b"total ", end + 1))
    if not sections and sample[:1] not in (b"/", b".", b"~"):  # (find's, a path)
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)
    return _ls_sections(sample, lines, scope) if sections else _paths(sample, lines, scope)
