"""The shape of a ``git log`` without patches (``git log``, ``--stat``, ``--shortstat``, ``--name-status``), for
:mod:`scratchfs.api.shape`: its commits, each with its short hash, its subject and the line it starts at, so that a
model goes to one commit with one line read (``line=N``) instead of paging through the history. Such text stays
content type ``text``; its shape starts with :data:`GIT_LOG_SHAPE`. A ``git log -p`` is a diff
(:mod:`scratchfs.api.shape_diff`, tried first).

The format is git-log(1)'s default ("medium", "PRETTY FORMATS"): a ``commit <hash>`` line (decorations after it),
``Merge:``, ``Author:`` and ``Date:`` lines, a blank line, the message indented by four spaces; ``--stat`` adds each
commit's ``N files changed, X insertions(+), Y deletions(-)``, which the shape sums; with ``--stat`` or
``--name-status`` it names the files most commits changed (:func:`_most_changed`) and the search of a file's
commits (:data:`_FIND_NAMES`: each window names its commit). Told
only when the content starts with a ``commit`` line followed by an ``Author:`` or ``Merge:`` one (a match at the
start: nothing is scanned otherwise). The ``git_log`` tool of the MCP reference server ``mcp-server-git`` (the
upstream of the README's ``mcp-proxy`` example) writes its own layout, told the same way: ``Commit history:``, then
per commit ``Commit: <hash>``, ``Author:``, ``Date:`` and ``Message: <subject>`` lines
(``fixtures/tools/mcp-server-git-log.txt``).

``--oneline`` (``--format='%h %s'``) is a line a commit, its short hash then its subject: told when its first
:data:`_ONELINE_LINES` lines all are (hashes distinct, of one length give or take :data:`_HASH_SPREAD`, half of them
with a letter and half with a digit, as random hashes are: a column of numbers is none, nor two lines opening with
``deadbeef`` and ``cafebabe``). ``--graph`` draws each line behind the columns of its graph (``* ``, ``| ``,
``|\\ ``, ``|/ ``: :data:`_GRAPH_RE`), a ``*`` on a commit's: told when the content starts with ``*`` and a commit
(``* commit <hash>``, ``* <hash> <subject>``), from its lines with the graph taken off -- no line is, so every line
number is the content's; its shape says ``git log --graph`` (``--oneline --graph``). A ``git log -p --graph``'s
patches stand behind the graph, where the diff kind does not see them: they are counted from its first
:data:`_PATCH_LINES` lines with each commit's graph width taken off (:func:`_patch_lines`), as
:func:`~scratchfs.api.shape_diff.patches_said` counts a diff's, and its shape says ``git log -p --graph``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator

from scratchfs.api.shape_diff import HUNK_RE, patches_said
from scratchfs.api.shape_parts import Parts, numbered
from scratchfs.api.shape_words import kib, listed_within, plural, scoped, short_name, within_lines

__all__ = ["GIT_LOG_SHAPE", "git_log_shape"]

GIT_LOG_SHAPE = "git log"
"""How the shape of a ``git log`` starts."""

_FIRST_RE = re.compile(rb"commit [0-9a-f]{7,64}\b[^\n]*\r?\n(?:Merge|Author): ")
_COMMIT_RE = re.compile(rb"\ncommit ([0-9a-f]{7,64})\b(?=[^\n]*\n {0,3}(?:Merge|Author): )")
"""A commit of git's layout: its ``commit <hash>`` line over its ``Merge:`` or ``Author:`` one (as the first must be,
:data:`_FIRST_RE`; behind a ``--graph`` taken off, the spaces a column left or the last commit's padding before it),
so that a message's line ``* commit <hash>`` behind a ``--graph`` (whose ``*`` reads as the graph's) or a file named
so in ``--name-only`` is none: a message's lines stand 4 spaces in."""
_SUBJECT_RE = re.compile(rb"\n *\r?\n {4}([^\r\n]*)")  # (a blank line: the graph's padding after its last commit)
_STAT_RE = re.compile(rb"\n(?:  )* (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?")
"""A commit's ``--stat`` summary: one space in, or 3, 5, ... behind a ``--graph`` taken off (a column that ended at
the commit, ``|/``, leaves two spaces on its lines); a message's lines stand 4, 6, ... in."""
_TOOL_FIRST_RE = re.compile(rb"(?:Commit history:\r?\n)?Commit: [0-9a-f]{7,64}\r?\nAuthor: ")
_TOOL_COMMIT_RE = re.compile(rb"\nCommit: ([0-9a-f]{7,64})\r?\n(?=Author: [^\n]*\nDate: [^\n]*\nMessage: )")
"""A commit of the MCP git server's layout: its ``Commit:`` line followed by its ``Author:``, ``Date:`` and
``Message:`` ones, so that a message's own line ``Commit: <hash>`` (the server writes messages unindented) is none."""
_TOOL_SUBJECT_RE = re.compile(rb"\nMessage: ([^\r\n]*)")
_NAME_STATUS_RE = re.compile(rb"\n[ACDMRTUX][0-9]{0,3}\t[^\n]")
"""A file's line of ``--name-status`` (``M\tREADME.md``, ``R100\told\tnew``)."""
_FIND_NAMES = '; match="FILE", context="line" finds the commits that changed a file'
"""What a log listing its files (``--name-status``) says to find a file's commits: each window names its commit
(:mod:`scratchfs.api.search_commits`); a literal, as a model pastes a path."""
_FIND_STAT = '; match="FILE", context="line" finds the commits that changed a file (--stat cuts a long one to .../END)'
"""The same for ``--stat``, whose lines shorten a long path to its end after ``.../``."""
_STAT_FILE_RE = re.compile(rb"\n(?:  )* ([^\s|][^\n|]*?) +\| +(?:\d+|Bin\b)")
"""A file's line of ``--stat`` (`` README.md | 7 ++++---``, `` logo.png  | Bin 0 -> 1024 bytes``; group 1 its path as
git writes it, ``.../END`` when cut), one space in or behind a ``--graph`` taken off, as :data:`_STAT_RE`'s."""
_NAME_STATUS_FILE_RE = re.compile(rb"\n[ACDMRTUX][0-9]{0,3}\t(?:[^\t\n]*\t)?([^\t\r\n]+)")
"""A file's line of ``--name-status``, group 1 its path (a rename's or copy's new one)."""
_MOST_FILES = 5  # (the files named that the most commits changed)
_SUBJECT_CHARS = 40
_HEX_DIGITS = b"0123456789abcdef"
_LEADS = frozenset(bytes([byte]) for byte in b"*" + _HEX_DIGITS)  # (a git log starts "commit", "* ", a hash)
_GRAPH_START_RE = re.compile(rb"\* +(?:(commit) [0-9a-f]{7,64}\b|[0-9a-f]{7,40} \S)")  # (group 1: full format)
_GRAPH_RE = re.compile(rb"^(?:[|/\\_. -]*\*[|/\\_. -]*?(?=commit [0-9a-f])|(?:[|/\\_.-] ?)+(?: {1,2}(?=Merge: )| *$)?)",
                       re.M)
"""The graph before a line of ``git log --graph``, taken off: on a commit's line, its columns and the ``*`` that marks
the commit, up to its ``commit``; on another, its columns (a character and a space each: ``| ``, ``|\\ ``, ``|/ ``)
and the space or two before a merge's ``Merge:`` (a message's lines, indented by four, keep their indent)."""
_ONELINE_GRAPH_RE = re.compile(rb"^(?:[|/\\_. -]*\*[|/\\_. -]*?(?=[0-9a-f]{7,40} )|(?:[|/\\_.-] ?)+ *$)", re.M)
_DECORATION_RE = re.compile(r"\((?:HEAD(?: -> [^\s,()]+)?|tag: [^\s,()]+|[^\s,()]+)(?:, (?:HEAD(?: -> [^\s,()]+)?|"
                            r"tag: [^\s,()]+|[^\s,()]+))*\) ")
"""``--decorate``'s refs after a hash (``(HEAD -> main, origin/main, tag: v1) ``): ref names hold no space."""
_GRAPH_COMMIT_RE = re.compile(rb"\n([|/\\_. -]*\*[|/\\_. -]*?)(?:commit [0-9a-f]{7}|[0-9a-f]{7,40} )")
"""A commit's line of ``git log --graph`` (``-p`` too), behind the graph's columns up to its ``*`` (group 1): each
line up to the next commit's stands behind as many columns' characters (git pads them: ``|   diff --git`` under
``* | commit``), which :func:`_patch_lines` takes off."""
# The first lines of a -p --graph its patches are told from: a diff's walk reads each in Python (the cost of 512 KiB
# of one-line commits, bounded: tests/test_text_kinds_cost.py), and the graph is taken off every line first.
_PATCH_LINES = 4000
_FAKE_RE = re.compile(rb"\n[|/\\_. -]*(?:  |-)[|/\\_. -]*\*[|/\\_. -]*?(?:commit [0-9a-f]{7}|[0-9a-f]{7,40} )")
"""A line that may be a hunk's reading as a commit's: git pads each column of its graph with a space, so behind it a
context line's space makes two, a removed line's ``-`` one (a commit's ``*`` stands behind ``| `` columns alone)."""
_PATCH_LEADS = b"|/\\_. "  # (a line of a -p --oneline --graph that is no commit's keeps its graph: the patch's lines)
_ONELINE_RE = re.compile(rb"\n([0-9a-f]{7,40}) ([^\r\n]*)")
_ONELINE_LINES = 20  # the first lines (not blank) of a --oneline log that all are a commit's
_HASH_SPREAD = 3  # git lengthens an abbreviated hash that another object shares


def git_log_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is a ``git log`` without patches -- git's
    default format, ``--oneline``, either behind a ``--graph``, or the MCP git server's layout (the module's
    docstring) --, else ``None``: ``"git log, 431 lines, 40 commits, +1,234 -56 in 87 file changes: 757108e
    README: the last .ci/run took 663 s (line 1), …; line=N reads from a commit"``.
    A ``--graph``'s are told from its first :data:`~scratchfs.api.shape_words.MOST_LINES` lines (``size``: the
    whole content's bytes, ``None``: the sample's; the scope then says how much: ``in the first 300 KiB of 512 KiB``).
    Never raises."""
    lead = sample[:1]
    if lead not in _LEADS:  # (most text is told by its first byte: no log starts so)
        if sample.startswith(b"Commit") and _TOOL_FIRST_RE.match(sample, 0, 1024):  # mcp-server-git's git_log
            whole = sample if complete else sample[: sample.rfind(b"\n") + 1]
            return _medium(whole, lines, scope, GIT_LOG_SHAPE, (_TOOL_COMMIT_RE, _TOOL_SUBJECT_RE))
        return None
    start = _GRAPH_START_RE.match(sample) if lead == b"*" else None
    graph = start is not None
    first = start[1] is not None if start is not None else sample.startswith(b"commit ")
    if not (first or graph):  # (a --oneline log's first hash, told without a regex)
        space = sample.find(b" ", 7, 41)
        if space < 0 or sample[:space].strip(_HEX_DIGITS):
            return None
    if graph:  # (its graph is taken off each line in Python's re: at most MOST_LINES of them, as other kinds read)
        sample, complete, scope = within_lines(sample, size, complete, scope)
    if not complete:
        sample = sample[: sample.rfind(b"\n") + 1]  # whole lines only
    patched = graph and b"@@ -" in sample  # (a -p's patches: told from its lines once it is a log)
    graphed = sample
    fakes = _fakes(b"\n" + sample) if patched else []  # (a hunk's line " * 1a2b3c4 fix" is no commit's)
    sample = _unfaked(sample, fakes)
    if graph:  # (every line kept, the graph taken off its start)
        sample = (_GRAPH_RE if first else _ONELINE_GRAPH_RE).sub(b"", sample)
    if not first:
        return _oneline(sample, lines, scope, (graph, patched), lambda: _patches(graphed, fakes))
    if not _FIRST_RE.match(sample, 0, 1024):
        return None
    patches = _patches(graphed, fakes) if patched else ""
    name = GIT_LOG_SHAPE + (" -p" if patches else "") + (" --graph" if graph else "")
    return _medium(sample, lines, scope, name, (_COMMIT_RE, _SUBJECT_RE), patches)


def _patches(sample: bytes, fakes: list[int]) -> str:
    """What a ``git log -p --graph`` (``sample``: whole lines, its graph on) says of its patches, told from its first
    :data:`_PATCH_LINES` lines (:func:`~scratchfs.api.shape_words.within_lines`, as a diff's are, with a bound of
    its own; :func:`~scratchfs.api.shape_diff.patches_said`; ``in the first 160 KiB`` when they are not all of
    the sample: the shape's own scope says how much of the content the sample is); ``fakes``: its hunks' lines that
    read as a commit's (:func:`_fakes`)."""
    head, whole, _ = within_lines(sample, None, True, "", _PATCH_LINES)
    fakes = [at for at in fakes if at <= len(head)]
    return patches_said(_patch_lines(head, fakes), "" if whole else f" in the first {kib(len(head))}")


def _patch_lines(sample: bytes, fakes: list[int]) -> bytes:
    """The lines of ``sample`` (a ``git log -p --graph``, whole lines) with the graph taken off, none removed: of each
    line, as many characters as its commit's line has before its hash (:data:`_GRAPH_COMMIT_RE`), so that a patch's
    ``-`` line keeps its ``-`` and a context line its space, whatever the columns beside it. A hunk's line that reads
    as a commit's (a context line `` * 1a2b3c4 fix``, at an offset of ``fakes``: :func:`_fakes`) is the hunk's."""
    text = b"\n" + sample
    rows = sample.split(b"\n")
    skipped = set(fakes)
    commits = [found for found in _GRAPH_COMMIT_RE.finditer(text) if found.start() + 1 not in skipped]
    widths = {len(found[1]) for found in commits}
    if len(widths) == 1 and sample[:1] == b"*":  # (one width, from the first line: a straight history's)
        width = widths.pop()
        return b"\n".join([line[width:] for line in rows])
    kept: list[bytes] = []
    row = width = counted = at = 0  # (the block's first row and graph's width; the newlines of text[:at])
    for found in commits:
        counted, at = counted + text.count(b"\n", at, found.start() + 1), found.start() + 1
        kept.extend(line[width:] for line in rows[row : counted - 1])  # (the rows up to the commit's line)
        row, width = counted - 1, len(found[1])
    kept.extend(line[width:] for line in rows[row:])
    return b"\n".join(kept)


def _fakes(text: bytes) -> list[int]:
    """The offsets in ``text`` (a newline, then a ``git log -p --graph``) of the lines that read as a commit's
    (:data:`_GRAPH_COMMIT_RE`) but are a hunk's: a context line `` * 1a2b3c4 fix``, a removed ``-* commit 1a2b3c4``.
    A line is a commit's when no hunk header (behind the graph's width) stands between it and the last commit's
    line, or when the last one's counts (``@@ -l,s +l,s @@``) end before it with no ``\\ No newline`` among its
    lines (C-speed finds and counts); else the hunks after the last commit's line are walked, once, line by line
    (:class:`_Hunks`, :data:`_PATCH_LINES` lines at most: past them, a line is read as it stands). None is looked
    for when no such line stands behind two spaces or a ``-`` (:data:`_FAKE_RE`)."""
    fakes: list[int] = []
    if _FAKE_RE.search(text) is None:
        return fakes
    hunks, since, headers, walking = _Hunks(text), 0, _headers(0), False
    for found in _GRAPH_COMMIT_RE.finditer(text):
        at = found.start() + 1
        head = -1 if walking else text.rfind(b"@@ -", since, at)  # (each byte looked back at once)
        if head >= 0:
            line = text.rfind(b"\n", 0, head) + 1
            hunk = HUNK_RE.match(text, head) if head == line + hunks.width else None
            if hunk is not None:
                ended = text.find(b"\\ No newline", head, at) < 0 and \
                    text.count(b"\n", head, at) - 1 >= int(hunk[1] or 1) + int(hunk[2] or 1)
            else:  # (the last "@@ -" is no header: is another?)
                ended = headers.search(text, since - 1, at) is None
            walking = not ended
        if walking and hunks.holds(at):
            fakes.append(at)
            continue
        if hunks.left <= 0:  # (the lines walked are bounded: the rest is read as it stands)
            break
        since, walking = at, False
        hunks.start(text.find(b"\n", at) + 1, len(found[1]))
        headers = _headers(hunks.width)
    return fakes


def _headers(width: int) -> re.Pattern[bytes]:
    """A hunk's header behind a graph ``width`` characters wide (found after a newline), kept compiled by
    ``re``'s own cache, which is bounded."""
    return re.compile(rb"\n[^\n]{%d}@@ -\d{1,12}(?:,\d{1,12})? \+\d" % width)


class _Hunks:
    """The hunks after a commit's line of a ``git log -p --graph``, walked forward line by line (each line once), as
    :mod:`~scratchfs.api.shape_diff` reads a diff's: a header ``@@ -l,s +l,s @@`` behind the graph's ``width``, then
    lines marked `` ``, ``-`` or ``+`` (``\\`` after one) until its counts are spent."""

    def __init__(self, text: bytes) -> None:
        self.text, self.left = text, _PATCH_LINES  # (the lines it walks at most, in all)
        self.start(0, 0)

    def start(self, at: int, width: int) -> None:
        """Walk from offset ``at`` (a commit's next line), behind a graph ``width`` characters wide."""
        self.at, self.width, self.old, self.new = at, width, 0, 0

    def holds(self, row: int) -> bool:
        """Whether the line at offset ``row`` (not before the last one asked) is a line of a hunk (``False`` once
        :data:`_PATCH_LINES` lines are walked)."""
        text, width = self.text, self.width
        while 0 < self.at < row and self.left > 0:
            self.left -= 1
            end = text.find(b"\n", self.at)
            end = len(text) if end < 0 else end
            mark = text[self.at + width : self.at + width + 1]
            if self.old > 0 or self.new > 0:
                self._line(mark)
            elif mark == b"@" and (hunk := HUNK_RE.match(text, self.at + width, end)) is not None:
                self.old, self.new = int(hunk[1] or 1), int(hunk[2] or 1)
            self.at = end + 1
        if self.at < row:  # (out of lines to walk: read as it stands)
            return False
        return (self.old > 0 or self.new > 0) and text[row + width : row + width + 1] in b" -+\\\r\n"

    def _line(self, mark: bytes) -> None:
        """Count a hunk's line marked ``mark``; another mark ends the hunk early (a cut or hand-edited patch)."""
        if mark in (b" ", b"", b"\r", b"\n"):  # (b"", "\n": a context line whose space a tool stripped)
            self.old, self.new = self.old - 1, self.new - 1
        elif mark == b"-":
            self.old -= 1
        elif mark == b"+":
            self.new -= 1
        elif mark != b"\\":  # (not "\ No newline at end of file")
            self.old = self.new = 0


def _unfaked(sample: bytes, fakes: list[int]) -> bytes:
    """``sample`` (a ``git log -p --graph``) with the ``*`` of each hunk's line that reads as a commit's (``fakes``,
    offsets into a newline then ``sample``: :func:`_fakes`) written ``|``, so that no graph taken off makes it one;
    every other byte as it is."""
    if not fakes:
        return sample
    text = bytearray(sample)
    for at in fakes:  # (the offsets are one past the sample's)
        text[sample.index(b"*", at - 1)] = ord("|")
    return bytes(text)


def _medium(sample: bytes, lines: int, scope: str, name: str, layout: tuple[re.Pattern[bytes], re.Pattern[bytes]],
            patches: str = "") -> str:
    """The shape of a log of whole lines in git's medium format (``layout``: its commit and subject patterns; the
    MCP git server's own layout has others), named ``name``; ``patches``: what a ``-p --graph`` says of its patches
    (:func:`~scratchfs.api.shape_diff.patches_said`)."""
    text = b"\n" + sample
    commits = Parts(layout[0], text)
    stats = [found.groups(b"0") for found in _STAT_RE.finditer(text)] if b" changed" in text else []
    changed = ""
    if stats:
        files, added, removed = (sum(int(stat[i]) for stat in stats) for i in range(3))
        changed = f", +{added:,} -{removed:,} in {plural(files, 'file change')}"
    head = scoped(f"{name}, {plural(lines, 'line')}, {plural(len(commits), 'commit')}{changed}{patches}", scope)
    named = _NAME_STATUS_RE.search(text) is not None
    find = _FIND_STAT if stats else _FIND_NAMES if named else ""
    most = _most_changed(text, _STAT_FILE_RE if stats else _NAME_STATUS_FILE_RE) if stats or named else ""
    head = f"{head}{most}: "
    return listed_within(head, _items(text, commits, *layout), f"{find}; line=N reads from a commit", len(commits))


def _most_changed(text: bytes, file_re: re.Pattern[bytes]) -> str:
    """What a log listing each commit's files says of the files most commits changed: ``"; of its 412 files,
    changed in most commits: README.md (91 commits), tests/test_x.py (15), ..."`` (each file's lines counted, one a
    commit: ``file_re`` finds them in ``text``, C speed; ties in the order first met), the :data:`_MOST_FILES` first
    of those changed more than once, or ``""`` when none was. So a model asked which file changed most reads it in
    the stub, where it paged every commit's files (300 commits' ``--stat``: 42 calls, 139 KB of windows)."""
    counts = Counter(found[1] for found in file_re.finditer(text))
    most = [(path, n) for path, n in counts.most_common(_MOST_FILES) if n > 1]
    if not most:
        return ""
    listed = ", ".join(f"{short_name(path.decode('utf-8', 'replace'), _SUBJECT_CHARS)} ({n:,}{' commits' * (not at)})"
                       for at, (path, n) in enumerate(most))
    return f"; of its {plural(len(counts), 'file')}, changed in most commits: {listed}"


def _oneline(sample: bytes, lines: int, scope: str, graph: tuple[bool, bool], patches: Callable[[], str]
             ) -> str | None:
    """The shape of a ``git log --oneline`` (``graph``: whether its graph was taken off, and whether it holds
    patches, ``-p``, told by ``patches()``), else ``None``: its first :data:`_ONELINE_LINES` lines not blank (a
    graph's own lines are, taken off; with patches, the lines of the graph's commits) all a commit's, their hashes
    distinct, of one length give or take :data:`_HASH_SPREAD`, half of them holding a letter and half a digit (a
    hash is random: a word of hex letters, ``deadbeef``, or a number is none)."""
    graphed, patched = graph
    if not graphed and _ONELINE_RE.match(b"\n" + sample[:128]) is None:  # (its first line: most text stops here)
        return None
    pieces = sample[: 1024 * _ONELINE_LINES].split(b"\n")
    if len(sample) > 1024 * _ONELINE_LINES or not pieces[-1]:
        pieces.pop()  # (cut, or after the last newline)
    firsts = [line for line in pieces if (line.strip() or not graphed) and not (patched and line[:1] in _PATCH_LEADS)]
    found = [_ONELINE_RE.match(b"\n" + line) for line in firsts[:_ONELINE_LINES]]
    if len(found) < 2 or not all(found) or not all(match[2][:1].strip() for match in found):
        return None
    hashes = [match[1] for match in found]
    spread = max(map(len, hashes)) - min(map(len, hashes))
    if spread > _HASH_SPREAD or len(set(hashes)) < len(hashes) or 2 * sum(1 for h in hashes if h.strip(
            b"0123456789")) < len(hashes) or 2 * sum(1 for h in hashes if h.strip(b"abcdef")) < len(hashes):
        return None
    text = b"\n" + sample
    commits = Parts(_ONELINE_RE, text)
    said = patches() if patched else ""
    name = f"{GIT_LOG_SHAPE} --oneline" + (" -p" if said else "") + (" --graph" if graphed else "")
    items = (f"{short.decode()} {short_name(_undecorated(subject), _SUBJECT_CHARS)} (line {line:,})"
             for line, (short, subject)
             in numbered(text, ((found.start(), (found[1], found[2].decode("utf-8", "replace").strip()))
                                for found in _ONELINE_RE.finditer(text))))
    head = scoped(f"{name}, {plural(lines, 'line')}, {plural(len(commits), 'commit')}{said}", scope)
    return listed_within(f"{head}: ", items, "; line=N reads from a commit", len(commits))


def _undecorated(subject: str) -> str:
    """A ``--oneline`` line's subject without the refs ``--decorate`` puts before it."""
    found = _DECORATION_RE.match(subject)
    return subject[found.end():] if found else subject


def _items(text: bytes, commits: Parts, commit_re: re.Pattern[bytes], subject_re: re.Pattern[bytes]) -> Iterator[str]:
    """Each commit as ``"<short hash> <subject> (line N)"``, made as they are asked for: its subject is what
    ``subject_re`` finds before the next commit (git's: the first indented line after a blank one)."""
    for line, (offset, commit) in numbered(text, ((offset, (offset, commit)) for offset, commit in commits)):
        after = commit_re.search(text, offset + 1)
        found = subject_re.search(text, offset + 1, after.start() if after is not None else len(text))
        subject = short_name(found[1].decode("utf-8", "replace").strip(), _SUBJECT_CHARS) if found else ""
        short = commit[:7].decode()
        yield f"{short} {subject} (line {line:,})" if subject else f"{short} (line {line:,})"
