"""What a log's shape adds to its line counts, for :mod:`scratchfs.api.shape`: how often each severe level appears and
the line of its first appearance, and Python's tracebacks with the first one's exception -- so that a model goes to
the first error with one line read (``line=N``) instead of searching a log it has not seen.

Levels are the upper-case words loggers write (Python's ``logging``, log4j, syslog-style and most line formats):
``FATAL``, ``CRITICAL``, ``ERROR``, ``WARNING``, ``WARN``, each counted where it stands as a word (a regular
expression that starts with its literal, which the engine finds at C speed: about 0.15 ms for each over a 512 KiB
sample, 0.8 ms the whole of a log's events: ``python bench/text_kinds.py``). A count is of appearances: a line that
names ``ERROR`` twice counts twice, and a message that says ``ERROR`` counts too. A Python traceback starts at
``Traceback (most recent call last):``; its exception is the first line after it that is not indented (the language
reference's "Exceptions" chapter and ``traceback.format_exception``'s layout), past the prefix its ``Traceback`` line
has (journald's, docker compose's).
"""

from __future__ import annotations

import re

from scratchfs.api.shape_words import short_name

__all__ = ["log_events"]

_LEVELS = tuple((name, re.compile(rb"%s(?![A-Za-z0-9_])(?<![A-Za-z0-9_]%s)" % (name.encode(), name.encode())))
                for name in ("FATAL", "CRITICAL", "ERROR", "WARNING", "WARN"))
"""Each level as a word (``\\b`` around it, written so that the pattern starts with its literal: a leading ``\\b`` is
tried at every position, 2.9 ms against 0.15 ms over 512 KiB of a log, ``python bench/text_kinds.py``)."""
_TRACEBACK = b"Traceback (most recent call last):"
_EXCEPTION_RE = re.compile(rb"\n(?![ \t])([^\r\n]+)")
_MOST_LINES = 1000  # lines of a prefixed traceback read for its exception


def log_events(sample: bytes) -> str:
    """What to add to a log's shape (``sample``: its first bytes, whole lines): ``", 12 ERROR (first at line 19), 75
    WARNING (first at line 4), 12 Python tracebacks (first at line 20: KeyError: 'missing_key_17')"``, or ``""`` when
    it holds none of them. Never raises."""
    told = []
    for name, pattern in _LEVELS:
        found = pattern.search(sample)
        if found is not None:
            count, line = len(pattern.findall(sample, found.start())), sample.count(b"\n", 0, found.start()) + 1
            told.append(f"{count:,} {name} (first at line {line:,})")
    at = sample.find(_TRACEBACK)
    if at >= 0:
        count = sample.count(_TRACEBACK, at)
        raised = _raised(sample, at)
        what = f": {short_name(raised.decode('utf-8', 'replace').strip(), 60)}" if raised else ""
        noun, line = "Python traceback" if count == 1 else "Python tracebacks", sample.count(b"\n", 0, at) + 1
        told.append(f"{count:,} {noun} (first at line {line:,}{what})")
    return f", {', '.join(told)}" if told else ""


def _raised(sample: bytes, at: int) -> bytes | None:
    """The exception line of the traceback whose ``Traceback`` starts at ``at``: the first line after it that is not
    indented, read past the prefix its ``Traceback`` line has (journald's ``Dec 05 01:31:00 host python3[4242]: ``,
    docker compose's ``web-1  | ``: each line of the traceback carries it), among the :data:`_MOST_LINES` after."""
    prefix = at - (sample.rfind(b"\n", 0, at) + 1)
    if not prefix:
        found = _EXCEPTION_RE.search(sample, at + len(_TRACEBACK))
        return found[1] if found else None
    start = sample.find(b"\n", at)
    for _ in range(_MOST_LINES):
        if start < 0:
            return None
        end = sample.find(b"\n", start + 1)
        line = sample[start + 1: end if end >= 0 else len(sample)].rstrip(b"\r")
        if line[prefix:prefix + 1] not in (b"", b" ", b"\t"):
            return line[prefix:]
        start = end
    return None
