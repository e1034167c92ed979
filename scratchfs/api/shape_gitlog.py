"""The shape of a ``git log`` without patches (``git log``, ``--stat``, ``--shortstat``, ``--name-status``), for
:mod:`scratchfs.api.shape`: its commits, each with its short hash, its subject and the line it starts at, so that a
model goes to one commit with one line read (``line=N``) instead of paging through the history. Such text stays
content type ``text``; its shape starts with :data:`GIT_LOG_SHAPE`. A ``git log -p`` is a diff
(:mod:`scratchfs.api.shape_diff`, tried first).

The format is git-log(1)'s default ("medium", "PRETTY FORMATS"): a ``commit <hash>`` line (decorations after it),
``Merge:``, ``Author:`` and ``Date:`` lines, a blank line, the message indented by four spaces; ``--stat`` adds each
commit's ``N files changed, X insertions(+), Y deletions(-)``, which the shape sums. Told only when the content
starts with a ``commit`` line followed by an ``Author:`` or ``Merge:`` one (a match at the start: nothing is
scanned otherwise). The ``git_log`` tool of the MCP reference server ``mcp-server-git`` (the upstream of the
README's ``mcp-proxy`` example) writes its own layout, told the same way: ``Commit history:``, then per commit
``Commit: <hash>``, ``Author:``, ``Date:`` and ``Message: <subject>`` lines (``fixtures/tools/mcp-server-git-log.txt``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scratchfs.api.shape_parts import Parts, numbered
from scratchfs.api.shape_words import listed_within, plural, short_name

__all__ = ["GIT_LOG_SHAPE", "git_log_shape"]

GIT_LOG_SHAPE = "git log"
"""How the shape of a ``git log`` starts."""

_FIRST_RE = re.compile(rb"commit [0-9a-f]{7,64}\b[^\n]*\r?\n(?:Merge|Author): ")
_COMMIT_RE = re.compile(rb"\ncommit ([0-9a-f]{7,64})\b")
_SUBJECT_RE = re.compile(rb"\n\r?\n {4}([^\r\n]*)")
_STAT_RE = re.compile(rb"\n (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?")
_TOOL_FIRST_RE = re.compile(rb"(?:Commit history:\r?\n)?Commit: [0-9a-f]{7,64}\r?\nAuthor: ")
_TOOL_COMMIT_RE = re.compile(rb"\nCommit: ([0-9a-f]{7,64})\r?\n")
_TOOL_SUBJECT_RE = re.compile(rb"\nMessage: ([^\r\n]*)")
_SUBJECT_CHARS = 40


def git_log_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is a ``git log`` without patches, else
    ``None``: ``"git log, 431 lines, 40 commits, +1,234 -56 in 87 file changes: 757108e README: the last .ci/run
    took 663 s (line 1), …; line=N reads from a commit"``.
    ``size`` (the content's bytes) is unused: the other kinds take it. Never raises."""
    if sample.startswith(b"commit ") and _FIRST_RE.match(sample, 0, 1024):
        commit_re, subject_re = _COMMIT_RE, _SUBJECT_RE
    elif sample.startswith(b"Commit") and _TOOL_FIRST_RE.match(sample, 0, 1024):  # mcp-server-git's git_log
        commit_re, subject_re = _TOOL_COMMIT_RE, _TOOL_SUBJECT_RE
    else:
        return None
    if not complete:
        sample = sample[: sample.rfind(b"\n") + 1]  # whole lines only
    text = b"\n" + sample
    commits = Parts(commit_re, text)
    stats = [found.groups(b"0") for found in _STAT_RE.finditer(text)] if b" changed" in text else []
    changed = ""
    if stats:
        files, added, removed = (sum(int(stat[i]) for stat in stats) for i in range(3))
        changed = f", +{added:,} -{removed:,} in {plural(files, 'file change')}"
    head = f"{GIT_LOG_SHAPE}, {plural(lines, 'line')}, {plural(len(commits), 'commit')}{changed}{scope}: "
    return listed_within(head, _items(text, commits, commit_re, subject_re), "; line=N reads from a commit",
                         len(commits))


def _items(text: bytes, commits: Parts, commit_re: re.Pattern[bytes], subject_re: re.Pattern[bytes]) -> Iterator[str]:
    """Each commit as ``"<short hash> <subject> (line N)"``, made as they are asked for: its subject is what
    ``subject_re`` finds before the next commit (git's: the first indented line after a blank one)."""
    for line, (offset, commit) in numbered(text, ((offset, (offset, commit)) for offset, commit in commits)):
        after = commit_re.search(text, offset + 1)
        found = subject_re.search(text, offset + 1, after.start() if after is not None else len(text))
        subject = short_name(found[1].decode("utf-8", "replace").strip(), _SUBJECT_CHARS) if found else ""
        short = commit[:7].decode()
        yield f"{short} {subject} (line {line:,})" if subject else f"{short} (line {line:,})"
