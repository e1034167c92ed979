"""What a log's shape adds to its line counts, for :mod:`scratchfs.api.shape`: how often each severe level appears and
the line of its first appearance, and Python's tracebacks with the first one's exception -- so that a model goes to
the first error with one line read (``line=N``) instead of searching a log it has not seen; and Java's stack traces
with the first one's exception and root cause, and JavaScript's (V8's: Node.js's uncaught error) with the first one's
error and ``[cause]:``.

Levels are the upper-case words loggers write (Python's ``logging``, log4j, syslog-style and most line formats):
``FATAL``, ``CRITICAL``, ``SEVERE`` (java.util.logging's error), ``ERROR``, ``WARNING``, ``WARN``, each counted where it
stands as a word (a regular expression that starts with its literal, which the engine finds at C speed: about 0.15 ms
for each over a 512 KiB sample, 0.8 ms the whole of a log's events: ``python bench/text_kinds.py``). A count is of
appearances: a line that names ``ERROR`` twice counts twice, and a message that says ``ERROR`` counts too. A Python
traceback starts at ``Traceback (most recent call last):``; its exception is the first line after it that is not
indented (the language reference's "Exceptions" chapter and ``traceback.format_exception``'s layout), past the prefix
its ``Traceback`` line has (journald's, docker compose's). A Java stack trace (``Throwable.printStackTrace``'s layout,
which java.util.logging, log4j and logback write under a record) is a line not indented -- the exception, after
``Exception in thread "main" `` when uncaught -- whose next line is a frame (``\\tat com.x.Y.m(Y.java:42)``); its
causes follow, each a ``Caused by:`` line over its frames, the last the root cause. Looked for only where
``\\n\\tat `` is (found at C speed), or, when it is nowhere, behind the prefix a collector writes on each line (docker
compose's ``api-1  | ``, kubectl's ``[pod/x/c] ``, containerd's timestamp and ``stderr F ``, a timestamp and a
level), taken away where ``\\tat `` stands after one that the line before has too. java.util.logging writes each
record on two lines, ``Dec 06, 2026 3:11:09 PM App main`` over ``SEVERE: message``: both start a log's line, as
``FINE``, ``FINER`` and ``FINEST`` do.

Two line formats write their level otherwise, and are counted under the same names: Kubernetes' klog (and glog) opens
each line with a letter, ``I``, ``W``, ``E`` or ``F``, glued to its date (``E1205 05:33:56.724479    5782
memcache.go:265] ...``: an ``E`` line is an ``ERROR``, a ``W`` one a ``WARNING``, an ``F`` one ``FATAL``), and
logfmt (logrus, go-kit, log15: ``time="2026-12-05T05:34:12Z" level=info msg="..."``) writes its level as a
lower-case value, ``level=error`` (``ERROR``; ``err`` and log15's ``eror`` too), ``level=warning`` (``WARNING``),
``level=warn`` (``WARN``), ``level=fatal`` or ``panic`` (``FATAL``), ``level=crit`` (``CRITICAL``); ``lvl=`` as
``level=``. An upper-case value (``log/slog``'s ``level=ERROR``) is the word already counted. Each is looked for only
where the sample holds it (its literal found at C speed first: ``level=``, ``lvl=``, a klog header in the first
4 KiB). Their lines' starts make a text a log too (:func:`log_lines`, which :func:`scratchfs.api.shape.describe`
asks), and so do the kernel's ring buffer's stamps (``dmesg``'s ``[    0.255769] ``, ``dmesg -T``'s date).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from scratchfs.api.shape_words import short_name
from scratchfs.foundation.text import bitmap_classes

__all__ = ["LOG_LINE_RE", "PLAIN_LOG_LINE_RE", "Told", "java_trace_lines", "log_events", "log_lines", "log_told",
           "text_told", "tracebacks_said"]

_KLOG = rb"[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} "  # klog's header: level, date, time with microseconds
_KERNEL = rb"\[ *\d{1,12}\.\d{6}\] |\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}\] "
"""The kernel's ring buffer's stamps: ``dmesg``'s seconds since boot, right-aligned (``[    0.255769] ``, also
``journalctl -k -o short-monotonic``'s), and ``dmesg -T``'s date (``[Mon Dec  7 10:21:49 2026] ``)."""
_SYSLOG_PRI = rb"<\d{1,3}>(?:1 \d{4}-\d{2}-\d{2}T\d{2}:\d{2}|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2})"
"""A syslog message's priority, ``<PRI>``, before its timestamp: RFC 5424's (``<131>1 2026-12-08T02:35:54...``) or
RFC 3164's (``<131>Dec  8 02:35:52 vm postgres[7138]: ...``), as ``logger -n`` sends them."""
_LOG_STARTS = (rb'|' + _KLOG + rb'|(?:t|ts|time)="?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|(?:level|lvl)="?[A-Za-z]+"? |'
               + _KERNEL + rb"|" + _SYSLOG_PRI)
"""The starts of log lines besides a timestamp or an upper-case level (``_LOG_LINE``'s first alternatives): klog's
header, logfmt's timestamp or level key (``time="2026-..."``, ``ts=2026-...``, ``level=info ``) and the kernel's
stamps (:data:`_KERNEL`) and a syslog message's priority (:data:`_SYSLOG_PRI`), each an alternative after ``|``;
their first characters are ``I``, ``W``, ``E``, ``F``, ``t``, ``l``, ``[`` and ``<``."""
# Anchored on a literal newline (the text is searched with one prepended), which the engine finds at C speed. The
# indentation is taken atomically (a lookahead's capture, then the backreference): no alternative starts with a blank,
# so giving blanks back never matches; every alternative starts with "[", a digit, a capital or klog's and logfmt's
# first letters (_LOG_STARTS), checked once before trying them. A line may stand behind docker compose's prefix
# ("web-1  | ") or kubectl's ("[pod/p/c] "): that pattern only where the head holds " | " or "[pod/" (each looked for
# after its first byte, by memchr: 3 us on 4 KiB of text full of spaces), as trying the prefix at every line costs 3x
# (32 against 12 us on 4 KiB of log lines: bench/shape_guards.py); without those words it finds what the plain one
# finds.
_LOG_LINE = (rb"(?=[\[\dA-Zlt<])(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|[A-Z][a-z]{2} (?:[ \d]\d "
             rb"\d{2}:\d{2}|\d{2}, \d{4} \d{1,2}:\d{2}:\d{2} [AP]M )|\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|"
             rb"FATAL|CRITICAL|SEVERE|FINE|FINER|FINEST)\b" + _LOG_STARTS + rb")")
PLAIN_LOG_LINE_RE = re.compile(rb"\n(?=([ \t]*))\1" + _LOG_LINE)
"""A log line's start (a timestamp, a level, klog's header, logfmt's key), after a newline and any indent."""
LOG_LINE_RE = re.compile(rb"\n(?=([ \t]*))\1(?:[\w.-]{0,63}[-_]\d{1,4} +\| |\[pod/[\w.-]{1,253}/[\w.-]{1,63}\] )?"
                         + _LOG_LINE)
"""... behind docker compose's or kubectl logs --prefix's prefix too."""
_POD_RE = re.compile(rb"\[pod/")  # (the engine's search for a literal: 1.3 against 2.4 us for ``in`` on 4 KiB)
_KLOG_RES = tuple((name, re.compile(letter + rb"\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ [^\s\]]+:\d+\] "))
                  for letter, name in ((b"E", "ERROR"), (b"W", "WARNING"), (b"F", "FATAL")))
"""klog's header of each severe level, in full (its thread id, ``file.go:line]``): a letter, then a date."""
_KLOG_HINT_RE = re.compile(_KLOG + rb" *\d+ [^\s\]]+:\d+\] ")  # (a klog line in the first 4 KiB, any level)
_LOGFMT_VALUES = (("ERROR", rb"error|err|eror"), ("WARNING", rb"warning"), ("WARN", rb"warn"),
                  ("FATAL", rb"fatal|panic"), ("CRITICAL", rb"crit|critical"))
_LOGFMT_NAMES = {value: name for name, values in _LOGFMT_VALUES for value in values.split(b"|")}


def _logfmt(key: bytes, values: bytes) -> re.Pattern[bytes]:
    """logfmt's ``key`` (``level=``) and one of ``values`` (``error|err``), quoted or not, as a pattern that starts
    with the key's literal and holds no group: a match is the key and the value, quoted or bare (``level="eror"``)."""
    return re.compile(key + rb'(?<![A-Za-z0-9_.]%s)(?:"(?:%s)"|(?:%s))(?![A-Za-z0-9_."])' % (key, values, values))


_LOGFMT_RES = tuple((key, _logfmt(key, b"|".join(_LOGFMT_NAMES)),
                     {name: _logfmt(key, values) for name, values in _LOGFMT_VALUES}) for key in (b"level=", b"lvl="))
"""Per logfmt level key: the pattern of all its lower-case severe values (one ``findall`` counts them all, at C
speed: :class:`collections.Counter` of its whole matches, a few distinct ones -- no group, so that no tuple is made a
match: 5 against 9 ms over 512 KiB of logfmt lines, the cost of ``tests/test_text_kinds_cost.py``'s logfmt case),
and each level name's (a ``search`` for its first)."""

_LEVELS = tuple((name, re.compile(rb"%s(?![A-Za-z0-9_])(?<![A-Za-z0-9_]%s)" % (name.encode(), name.encode())))
                for name in ("FATAL", "CRITICAL", "SEVERE", "ERROR", "WARNING", "WARN"))
"""Each level as a word (``\\b`` around it, written so that the pattern starts with its literal: a leading ``\\b`` is
tried at every position, 2.9 ms against 0.15 ms over 512 KiB of a log, ``python bench/text_kinds.py``)."""
_ERRORS = ("FATAL", "CRITICAL", "SEVERE", "ERROR")  # (the levels of an error: a stub's note reads the first)
_TRACEBACK = b"Traceback (most recent call last):"
_EXCEPTION_RE = re.compile(bitmap_classes(rb"\n(?![ \t])([^\r\n]+)"))
_INDENTED_RE = re.compile(rb"\n([ \t]{0,16})Traceback \(most recent call last\):\r?\n\1  File \"")
"""A ``Traceback`` line indented as a whole traceback is (pip's ``Getting requirements to build wheel`` output, two
spaces in: a failing ``setup.py``'s), a frame's ``File "`` line under it, two spaces further in -- a doctest's
``...`` under it is no traceback. The group is the indentation."""
_MOST_LINES = 1000  # lines of a prefixed traceback read for its exception
_JAVA_FRAME_RE = re.compile(rb"\n\tat [^\s(]+\(")  # a Java frame's line (\tat com.x.Y.m(Y.java:42))
_CAUSED = b"Caused by: "
_JAVA_TOP_RE = re.compile(rb"\n(" + _CAUSED + rb"|[^\t\n\r ])[^\n]*\n\tat [^\s(]+\(")
"""A line not indented or empty over a Java frame: the group is ``Caused by: `` (a cause) or the line's first character
(a trace's exception). A frame's line is passed over at its tab, so that only the few others are read through."""
_V8_HINT = b"\n    at "
_V8_HINT_RE = re.compile(re.escape(_V8_HINT))  # (the engine's search: 1.9 against 2.5 us for bytes.find on 4 KiB)
_V8_TAIL = 4096  # the bytes at a sample's end looked at for V8's frames (an uncaught error's last frames)
_V8_TOP_RE = re.compile(bitmap_classes(rb"\n([^\s][^\r\n]{0,300})\r?\n    at (?:[^\r\n]{0,300}\()?[^\r\n()]{1,400}"
                                       rb":\d+:\d+\)?\r?(?=\n|\Z)"))
"""A JavaScript error's line, not indented, over V8's first frame (Node.js, Deno, Chrome: ``    at f (/app/a.js:2:38)``
or ``    at /app/a.js:3:7``, four spaces in, a line and column last): the group is the error's line."""
_V8_CAUSE_RE = re.compile(rb"\n {2,}\[cause\]: ([^\r\n]{1,300})")  # (Node's cause, inside the error's braces)
_THREAD_RE = re.compile(rb'Exception in thread "[^"\n]*" ')  # (what the JVM writes before an uncaught exception)
_PREFIXED_FRAME_RE = re.compile(rb"\tat [^\s(]+\(")  # (a frame anywhere in a line: after a prefix)
_MOST_PREFIXES = 16  # prefixed frames whose prefix is tried (the first whose line before has it too is taken)
_MOST_PREFIX_BYTES = 200
_DIGITS_RE = re.compile(rb"\d+")


def log_lines(head: bytes) -> int:
    """The lines of ``head`` (a newline, then a text's first bytes) that start as a log's (:data:`PLAIN_LOG_LINE_RE`;
    :data:`LOG_LINE_RE` when it holds `` | `` or ``[pod/``, the words of a prefix). Never raises."""
    prefixed = (b"|" in head and b" | " in head) or (b"[" in head and _POD_RE.search(head) is not None)
    return len((LOG_LINE_RE if prefixed else PLAIN_LOG_LINE_RE).findall(head))  # (an indent's lookahead: no
    # possessive [ \t]*+, which Python 3.10's re lacks; a plain [ \t]* costs 1.7x on 4 KiB of text that is no log)


class Told(NamedTuple):
    """What a log's or a text's shape adds (``said``: :func:`log_events`, :func:`tracebacks_said`) and the line (from 1)
    of its first error or exception (``FATAL``, ``CRITICAL``, ``SEVERE``, ``ERROR``, a traceback's first line), ``None``
    for none: the line a stub's note reads first."""

    said: str
    first_error: int | None


def log_events(sample: bytes) -> str:
    """What to add to a log's shape (``sample``: its first bytes, whole lines): ``", 12 ERROR (first at line 19), 75
    WARNING (first at line 4), 12 Python tracebacks (first at line 20: KeyError: 'missing_key_17')"``, or ``""`` when
    it holds none of them (klog's and logfmt's levels counted under the same names: the module's docstring). Never
    raises."""
    return log_told(sample).said


def log_told(sample: bytes) -> Told:
    """:func:`log_events` of ``sample`` and the line of its first error or exception (:class:`Told`). Never raises."""
    found: dict[str, tuple[int, int]] = {}  # name -> (appearances, the offset of the first)
    for name, pattern in _LEVELS:
        first = pattern.search(sample)
        if first is not None:
            found[name] = (len(pattern.findall(sample, first.start())), first.start())
    for name, count, at in _written_levels(sample):
        was = found.get(name, (0, at))
        found[name] = (was[0] + count, min(was[1], at))
    lines = {name: _line(sample, found[name][1]) for name, _ in _LEVELS if name in found}
    told = [f"{found[name][0]:,} {name} (first at line {line:,})" for name, line in lines.items()]
    errors = [line for name, line in lines.items() if name in _ERRORS]
    for said, line in (_tracebacks(sample, sample.find(_TRACEBACK)), _java_traces(sample), _v8_traces(sample)):
        told.extend([said] if said else [])
        errors.extend([line] if line else [])
    return Told(f", {', '.join(told)}" if told else "", min(errors, default=None))


def tracebacks_said(sample: bytes) -> str:
    """What to add to a text's shape (``sample``: its first bytes, whole lines) that is no log -- a script's output
    ending in the traceback of what it raised, or that traceback alone --: ``", 1 Python traceback (first at line 1:
    RecursionError: maximum recursion depth exceeded)"``, as :func:`log_events` says it, counting the ``Traceback``
    lines that start a line (one quoted in a sentence is none), and Java's stack traces; ``""`` when none does. Never
    raises."""
    return text_told(sample).said


def text_told(sample: bytes) -> Told:
    """:func:`tracebacks_said` of ``sample`` and the line of its first traceback (:class:`Told`). Never raises."""
    at, counted = _first_traceback(sample)
    told = [found for found in (_tracebacks(sample, at, counted), _java_traces(sample), _v8_traces(sample))
            if found[0]]
    return Told(f", {', '.join(said for said, _ in told)}" if told else "", min((line for _, line in told),
                                                                                default=None))


def _first_traceback(sample: bytes) -> tuple[int, bytes]:
    """The offset of the first ``Traceback`` of ``sample`` that starts a line, or stands indented as a whole traceback
    is (:data:`_INDENTED_RE`), ``-1`` for none; and what counts the others: ``\\n`` and its indentation before it
    (one quoted in a sentence is none)."""
    at, counted = sample.find(_TRACEBACK), b"\n" + _TRACEBACK
    if at <= 0 or sample[at - 1 : at] == b"\n":
        return at, counted
    line = sample.rfind(b"\n", 0, at)  # (-1: on the first line, which no newline starts)
    if line < 0:
        found = _INDENTED_RE.match(b"\n" + sample[: 2 * at + len(_TRACEBACK) + 12])
        if found:
            return at, b"\n" + found[1] + _TRACEBACK
    plain = sample.find(counted, at)
    found = _INDENTED_RE.search(sample, max(line, 0), plain if plain >= 0 else len(sample))
    if found:
        return found.end(1), b"\n" + found[1] + _TRACEBACK
    return (plain + 1, counted) if plain >= 0 else (-1, counted)


def java_trace_lines(head: bytes) -> int:
    """The lines of ``head`` (a newline, then a text's first bytes) that are a Java stack trace's frames, ``... N
    more`` or ``Caused by:`` lines (``Throwable.printStackTrace``'s layout): a log line's trace (java.util.logging's
    ``SEVERE`` record, log4j's, logback's) is no line of text against the log's. Never raises."""
    if b"\t" not in head or b"\n\tat " not in head:  # (a tab found by memchr first: 0.3 against 3 us on 4 KiB)
        return 0
    return head.count(b"\n\tat ") + head.count(b"\n\t... ") + head.count(b"\nCaused by: ")


def _java_traces(sample: bytes) -> tuple[str, int | None]:
    """``("3 Java stack traces (first at line 9: App$ConfigException: bad; root cause:
    java.lang.NumberFormatException: For input string: \"x3\")", 9)`` for the Java stack traces of ``sample``
    (``Throwable.printStackTrace``'s layout: the exception's line, ``Exception in thread "main" `` before it when
    uncaught, then its frames, each ``\\tat name(File.java:N)``, then each cause's ``Caused by:`` line and frames),
    each a line not indented and no ``Caused by:`` whose next line is a frame; the first one's root cause is its last
    ``Caused by:``. ``("", None)`` for none. The lines over frames are found and told by one regular expression at C
    speed (a text of 58,000 one-frame traces is no loop of 58,000 steps), after a tab is found (``memchr``: a text
    with none costs 5 us a 512 KiB)."""
    frame = _PREFIXED_FRAME_RE.search(sample) if b"\t" in sample else None  # (at a line's start or after a prefix)
    if frame is None:
        return "", None
    hint = _JAVA_FRAME_RE.search(sample, max(0, frame.start() - 1))
    if hint is None and (sample := _unprefixed(sample, frame.start())) is not None:
        hint = _JAVA_FRAME_RE.search(sample)  # (each line's prefix taken away: docker compose's, a timestamp's)
    if hint is None:
        return "", None
    text = b"\n" + sample  # (a trace on the first line stands after a newline too)
    start = text.rfind(b"\n", 0, hint.start() + 1)
    kinds = _JAVA_TOP_RE.findall(text, start)
    count = len(kinds) - kinds.count(_CAUSED)
    if count <= 0:
        return "", None
    first: bytes | None = None
    root, at = b"", 0
    for found in _JAVA_TOP_RE.finditer(text, start):  # (the first trace's lines: its own, then its causes')
        line = text[found.start() + 1 : text.find(b"\n", found.start() + 1)].rstrip(b"\r")
        if found[1] != _CAUSED:
            if first is not None:
                break
            first, at = _THREAD_RE.sub(b"", line, 1), found.start()
        elif first is not None:
            root = line[len(_CAUSED):]
    first = first or b""
    what = f": {short_name(first.decode('utf-8', 'replace').strip(), 60)}"
    cause = f"; root cause: {short_name(root.decode('utf-8', 'replace').strip(), 60)}" if root else ""
    noun = "Java stack trace" if count == 1 else "Java stack traces"
    line_number = text.count(b"\n", 0, at + 1)  # (the newline put first counted: lines from 1)
    return f"{count:,} {noun} (first at line {line_number:,}{what}{cause})", line_number


def _v8_traces(sample: bytes) -> tuple[str, int | None]:
    """``("2 JavaScript stack traces (first at line 305: Error: wrapper failed; cause: TypeError: bad value 4)", 305)``
    for V8's stack traces in ``sample`` (Node.js's uncaught error, ``console.error(err)``: :data:`_V8_TOP_RE`), the
    first one's ``[cause]:`` (the first after it, before the next trace) told; ``("", None)`` for none. Looked for only
    when ``\\n    at `` stands in the sample's last :data:`_V8_TAIL` bytes, where a process's uncaught error ends
    its output: a search of the whole sample cost 0.2-0.5 ms on 512 KiB of any text, of 4 KiB 2-3 us (a log's
    traces printed earlier, with none at its end, go untold)."""
    if _V8_HINT_RE.search(sample, max(0, len(sample) - _V8_TAIL)) is None:
        return "", None
    text = b"\n" + sample  # (a trace on the first line stands after a newline too)
    start = text.rfind(b"\n", 0, text.find(_V8_HINT))  # (the line before the first frame)
    tops = list(_V8_TOP_RE.finditer(text, max(start, 0)))
    if not tops:
        return "", None
    first = tops[0]
    cause = _V8_CAUSE_RE.search(text, first.end(), tops[1].start() if len(tops) > 1 else len(text))
    what = f": {short_name(first[1].decode('utf-8', 'replace').strip(), 60)}"
    said = f"; cause: {short_name(cause[1].decode('utf-8', 'replace').strip(), 60)}" if cause else ""
    noun = "JavaScript stack trace" if len(tops) == 1 else "JavaScript stack traces"
    line = text.count(b"\n", 0, first.start() + 1)  # (the newline put first counted: lines from 1)
    return f"{len(tops):,} {noun} (first at line {line:,}{what}{said})", line


def _unprefixed(sample: bytes, at: int) -> bytes | None:
    """``sample`` with the prefix each line of a Java stack trace carries taken away from every line that has it --
    docker compose's ``web-1  | ``, kubectl's ``[pod/api-7f9c/api] ``, containerd's ``2026-12-05T10:00:00.5Z stderr F
    ``, a timestamp and a level --, its lines kept (their numbers unchanged), a space put before each line that has
    none (no trace's line: another service's, a sentence quoting a frame); ``None`` when no frame stands after a
    prefix that the line before it has too. A prefix is the text before a frame's ``\tat ``, its digits any digits
    (a time differs line to line); the first of :data:`_MOST_PREFIXES` frames from byte ``at`` whose line before
    has it is taken."""
    tried: set[bytes] = set()
    for number, frame in enumerate(_PREFIXED_FRAME_RE.finditer(sample, at)):
        start = sample.rfind(b"\n", 0, frame.start()) + 1
        if number >= _MOST_PREFIXES:
            return None
        prefix = sample[start : frame.start()]  # (a frame on the first line has no line before it: passed over)
        if start <= 0 or not 0 < len(prefix) <= _MOST_PREFIX_BYTES or b"\t" in prefix:
            continue
        pattern = b"^" + rb"\d+".join(re.escape(piece) for piece in _DIGITS_RE.split(prefix))
        if pattern in tried:
            continue
        tried.add(pattern)
        compiled = re.compile(pattern, re.MULTILINE)
        if compiled.match(sample, sample.rfind(b"\n", 0, start - 1) + 1):  # (the line before: its exception's)
            indented = re.sub(b"(?m)^(?!" + pattern[1:] + b")", b" ", sample)  # (a line without it: no trace's)
            return compiled.sub(b"", indented)
    return None


def _tracebacks(sample: bytes, at: int, counted: bytes = _TRACEBACK) -> tuple[str, int | None]:
    """``("12 Python tracebacks (first at line 20: KeyError: 'missing_key_17')", 20)`` for the tracebacks of
    ``sample`` from the first, at ``at`` (``-1``: none, ``("", None)``), each an appearance of ``counted`` after it,
    the first counted too."""
    if at < 0:
        return "", None
    count = 1 + sample.count(counted, at + 1)
    raised = _raised(sample, at)
    what = f": {short_name(raised.decode('utf-8', 'replace').strip(), 60)}" if raised else ""
    noun = "Python traceback" if count == 1 else "Python tracebacks"
    line = _line(sample, at)
    return f"{count:,} {noun} (first at line {line:,}{what})", line


def _line(sample: bytes, at: int) -> int:
    """The line (from 1) of ``sample`` that byte ``at`` is on."""
    return sample.count(b"\n", 0, at) + 1


def _written_levels(sample: bytes) -> list[tuple[str, int, int]]:
    """``(name, appearances, the offset of the first)`` of each level klog's headers and logfmt's ``level=`` values
    write in ``sample`` (the module's docstring), each pattern run only where its literal is."""
    found = []
    if _KLOG_HINT_RE.search(sample, 0, 4096) is not None:
        for name, pattern in _KLOG_RES:
            first = pattern.search(sample)
            if first is not None:
                found.append((name, len(pattern.findall(sample, first.start())), first.start()))
    for key, every, each in _LOGFMT_RES:
        if key in sample:
            counts: Counter[str] = Counter()
            for match, count in Counter(every.findall(sample)).items():  # (a few distinct ones: key and value)
                counts[_LOGFMT_NAMES[match[len(key):].strip(b'"')]] += count
            found.extend((name, count, each[name].search(sample).start()) for name, count in counts.items())
    return found


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
