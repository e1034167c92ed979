"""UTF-8 helpers: where characters start and end in bytes, so that text is cut on character boundaries; and pairs of
newlines counted from lines already split; the lines of grep-style ``path:line:`` output and their paths.

Source: RFC 3629 (UTF-8): a lead byte ``110xxxxx``, ``1110xxxx`` or ``11110xxx`` starts a sequence of 2, 3 or 4
bytes; continuation bytes are ``10xxxxxx``.
"""

from __future__ import annotations

import json
import re
import reprlib
import sys
from json.encoder import encode_basestring
from operator import itemgetter

# "path:line:" after a newline. The path is taken atomically (a lookahead's capture, then the backreference): it
# cannot hold a colon, so giving back characters never finds one, and without this each line that is not a match
# costs up to 400 steps of useless backtracking. A "path" that ends in white space and one or two digits is the hour
# of a clock time (``ps``'s "Dec  3 02:31:21 2026", ``ls --full-time``), not a file name.
GREP_LINE_PATTERN = rb"\n(?=([^:\n]{1,400}))\1(?<![ \t]\d)(?<![ \t]\d\d):\d+[:-]"
# A run of lines of one path in one match: the set of paths GREP_LINE_PATTERN finds, with fewer matches.
GREP_RUN_PATTERN = GREP_LINE_PATTERN + rb"[^\n]*(?:\n\1:\d+[:-][^\n]*)*"
# The same set of paths in fewer steps: a line that starts with the path of the line before and a colon has that path
# or none, so its digits need no look; possessive (Python 3.11+) where nothing after could take back what it took.
_POSSESSIVE = b"+" if sys.version_info >= (3, 11) else b""
# The path's bytes (``[^:\n]``) written as the three ranges they are: ``re`` checks such a set by one bitmap lookup a
# byte, a negated pair of literals by a step for each (the same bytes, so the same matches). Over T2's 512 KiB
# samples, mostly not grep output, whose lines the path's scan reads up to their first colon, the pattern costs
# 0.68-0.94 ms against 0.86-1.30, and less over every hostile text measured (``python bench/grep_files_gate.py``).
_PATH_BYTE = rb"[\x00-\t\x0b-9;-\xff]"
_BITMAPS = {rb"[^\r\n]": rb"[\x00-\t\x0b\x0c\x0e-\xff]", rb"[^:\n]": _PATH_BYTE, rb"[^\s:]": rb"[^\t-\r :]",
            rb"[^\s/]": rb"[^\t-\r /]"}  # (bytes' \s: \t, \n, \v, \f, \r and the space; three runs of bytes each)


def bitmap_classes(pattern: bytes) -> bytes:
    """``pattern`` (a ``bytes`` regular expression) with each ``[^\\r\\n]``, ``[^:\\n]``, ``[^\\s:]`` and
    ``[^\\s/]`` written as the ranges of the same bytes: ``re`` checks a negated pair (of literals, or a category and
    a literal) by a step for each, a set of three runs or more by one bitmap lookup a byte (``CHARSET``). The same
    bytes, so the same matches; a shape's scan of a line's bytes costs 0.5-0.85 of what it did (describecost_classes,
    ``bench/README.md``). A pattern without them comes back as it is; nothing is raised."""
    for negated, ranges in _BITMAPS.items():
        pattern = pattern.replace(negated, ranges)
    return pattern


_GREP_RUN_RE = re.compile(bitmap_classes(GREP_RUN_PATTERN))
# The same runs, each with what follows its path (a second group): findall's tuples give each path's lines and bytes.
_GREP_TALLY_RE = re.compile(bitmap_classes(rb"\n(?=([^:\n]{1,400}))\1(?<![ \t]\d)(?<![ \t]\d\d)(:\d+[:-][^\n]*%b"
                                          rb"(?:\n\1:[^\n]*%b)*%b)") % ((_POSSESSIVE,) * 3))
# Runs a tally adds up in Python (one step a run): real grep output has about a run a file (293 runs of 5,809 lines in
# workspace-grep-stdlib-defs.txt); 512 KiB of one-line runs of alternating paths is 87,000 (45 ms), not tallied.
GREP_TALLY_RUNS = 4000


def plural(count: int, word: str) -> str:
    """``"1 line"``, ``"0 lines"``, ``"1,234 lines"``: a count and its noun, the noun plural unless the count is 1
    (every count a reply or note words goes through it: ``tests/test_reply_wording.py``)."""
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def is_digits(text: str) -> bool:
    """True if ``text`` is one or more ASCII digits ``0-9``: what ``int(text)`` parses as a plain decimal number.
    (``str.isdigit`` is true for ``"²"`` and other Unicode digits that ``int`` refuses, and ``isdecimal`` for
    non-ASCII decimal digits that ``int`` takes but no user means.)"""
    return text.isascii() and text.isdigit()


def digits_int(text: str, max_digits: int = 30) -> int | None:
    """``int(text)`` when ``text`` is ASCII digits (:func:`is_digits`) with at most ``max_digits`` digits after its
    leading zeros, else ``None`` -- never the ValueError ``int()`` raises past Python's 4,300-digit limit
    (``sys.get_int_max_str_digits``): a number written by a caller, a file or a tool's output is converted here, and
    one that long is out of every bound anyway."""
    if not is_digits(text):
        return None
    significant = text.lstrip("0")
    return int(significant or "0") if len(significant) <= max_digits else None


SIZE_UNITS = {"": 1, "b": 1, "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3}
"""The suffixes a size may carry (case-insensitive), and the bytes each stands for."""
_SIZE_RE = re.compile(r"([0-9]{1,20})[ ]?([A-Za-z]{0,3})\Z")


def size_bytes(text: str) -> int | None:
    """The bytes a size setting's text stands for -- ASCII digits, optionally followed by ``B``, ``KiB``, ``MiB`` or
    ``GiB`` (binary units, any case, one space allowed before the unit): ``65536``, ``64KiB``, ``1 GiB`` -- or
    ``None`` for anything else (a sign, a fraction, ``KB`` or ``MB``: decimal or binary? not guessed; Unicode
    digits; more than 20 digits). Surrounding white space is ignored. The one parser of every size setting (the
    command line's options and their environment variables)."""
    found = _SIZE_RE.match(text.strip())
    unit = found.group(2).lower() if found else None
    if found is None or unit not in SIZE_UNITS:
        return None
    return int(found.group(1)) * SIZE_UNITS[unit]


_JSON_SHOWN = json.JSONEncoder(ensure_ascii=False, allow_nan=False)  # (json_shown's: one made, not one a call)
_SHORT_REPR = reprlib.Repr()  # a few items of a container, a few levels deep (a message names a value, no more)
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = 60


def json_shown(value: object, limit: int = 60) -> str:
    """``value`` as the JSON a call's arguments wrote it (``{"a": 1, "b": [true, null]}``, not Python's ``{'a': 1,
    'b': [True, None]}``), cut to ``limit`` characters (``...`` ending a cut one), on one line: how a refusal names a
    bad argument's value to a model, which writes JSON. A value JSON cannot write (a Python caller's ``set``, bytes,
    NaN) is :func:`shorten`'s; never raises. Costs a JSON encoding of all of ``value`` (an argument that came as
    JSON: as much as its parse)."""
    try:
        text = one_line(_JSON_SHOWN.encode(value))
    except (TypeError, ValueError, RecursionError):
        return shorten(value, limit)
    return clipped(text, limit)


def shorten(value: object, limit: int = 60) -> str:
    """``repr(value)`` on one line (:func:`one_line`: an object's own ``__repr__`` may hold a newline), cut to
    ``limit`` characters: error messages and log records name bad values without flooding or forging a line. Never
    raises: a container is shown a few items and levels deep (``reprlib``), and a value ``repr`` fails on (an
    integer past Python's 4,300-digit limit, a list that holds itself too deeply, a broken ``__repr__``) by its
    type."""
    try:
        text = _SHORT_REPR.repr(value) if isinstance(value, (list, tuple, dict, set, frozenset)) else repr(value)
        text = one_line(text[: limit * 4] if isinstance(text, str) else type(value).__name__)
    except Exception:
        size = f" of {value.bit_length()} bits" if isinstance(value, int) else ""
        text = f"<{type(value).__name__}{size}>"
    return clipped(text, limit)


def clipped(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its first ``limit - 3`` and ``...`` (``limit``
    characters in all; ``limit`` is at least 3): the one cut of a value or line named in a message or log record."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def not_a_size(text: str) -> str:
    """Why ``text`` is no size (:func:`size_bytes` gave ``None``), and, for a decimal-looking unit (``64KB``, ``2M``,
    ``1 gb``), the binary one meant and its bytes: ``'64KB' is not a size: KB is not guessed (decimal or binary?):
    64KiB is 65,536 bytes, 64000 is 64 kB``. The one wording of the options and variables that take a size."""
    told = f"{shorten(text)} is not a size (bytes in ASCII digits, optionally followed by B, KiB, MiB or GiB)"
    found = _SIZE_RE.match(text.strip())
    unit = found.group(2).lower() if found else ""
    binary = {"k": "KiB", "kb": "KiB", "m": "MiB", "mb": "MiB", "g": "GiB", "gb": "GiB"}.get(unit)
    if found is None or binary is None:
        return told
    number, power = int(found.group(1)), "kmg".index(unit[0]) + 1
    return (f"{text.strip()!r} is not a size: {found.group(2)} is not guessed (decimal or binary?): "
            f"{number}{binary} is {number * 1024 ** power:,} bytes, {number * 1000 ** power} is {number} "
            f"{unit[0].upper() if power > 1 else 'k'}B")


def utf8_lead_length(byte: int) -> int:
    """Bytes in the UTF-8 sequence that ``byte`` starts (RFC 3629): 2 to 4 for a lead byte, else 1."""
    return 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4 if byte >> 3 == 0b11110 else 1


def utf8_partial_tail(data: bytes | memoryview) -> int:
    """How many bytes at the end of ``data`` are a UTF-8 sequence cut short (0 if none)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # ASCII or a lead byte: the last sequence starts here
            return back if utf8_lead_length(byte) > back else 0
    return 0


def utf8_prefix(data: bytes, limit: int) -> bytes:
    """The longest prefix of ``data`` of at most ``limit`` bytes that does not end inside a UTF-8 sequence."""
    if len(data) <= limit:
        return data
    piece = data[:limit]
    return piece[: len(piece) - utf8_partial_tail(piece)]


def utf8_suffix_start(data: bytes | memoryview) -> int:
    """Index of the first byte of ``data`` that starts a UTF-8 character (skips at most 3 continuation bytes)."""
    start = 0
    while start < min(3, len(data)) and data[start] & 0xC0 == 0x80:
        start += 1
    return start


def decode_or_none(data: bytes) -> str | None:
    """``data`` decoded as UTF-8, or ``None`` if it is not valid UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def utf8_but_cut_end(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8 (RFC 3629) but perhaps for one character cut short at its end (a cut sample,
    or the first 1-3 bytes of a character). Never raises."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.reason == "unexpected end of data"
    return True


def invalid_utf8_bytes(data: bytes) -> int:
    """How many bytes of ``data`` are part of no UTF-8 character (RFC 3629): what a decode with ``errors="replace"``
    shows as U+FFFD (0 for valid UTF-8)."""
    return len(data) - len(data.decode("utf-8", "ignore").encode("utf-8"))


def is_utf8_text(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8: it holds no lone surrogate (a JSON text's ``\\ud800``)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def utf8_text(text: str) -> str:
    """``text`` with each lone surrogate (a JSON text's ``\\ud800``, which no UTF-8 carries) written as its escape,
    so that it can be written as UTF-8."""
    return text if is_utf8_text(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


_NOT_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


_NAME_BYTE = re.compile("[\udc80-\udcff]")  # (a byte of a file name that is no UTF-8, as os.fsdecode keeps it)


def name_bytes(name: str) -> str:
    """``name`` (a file name as ``os.fsdecode`` gives it) with each byte that is no UTF-8, a lone surrogate no UTF-8
    output can write, as ``\\xNN``; the rest as it is."""
    return _NAME_BYTE.sub(lambda found: f"\\x{ord(found[0]) - 0xDC00:02x}", name)


def one_line(text: str) -> str:
    """``text`` as one printable line: each control character (C0, DEL, C1: newlines, NUL, the ESC of a terminal
    escape), line or paragraph separator and lone surrogate written as its Python escape (``\\n``, ``\\x00``,
    ``\\x1b``, ``\\u2028``, ``\\ud800``)."""
    return _NOT_ONE_LINE.sub(lambda found: repr(found.group())[1:-1], text)


def within_chars(text: str, limit: int = 2000) -> str:
    """``text`` when it has at most ``limit`` characters, else its head and its tail (a message's advice ends it)
    around ``… (N characters left out) …``, at most ``limit`` characters in all: a message that echoes what it was
    given (a 100 KB option name) stays a line. ``limit`` is at least 200."""
    if len(text) <= limit:
        return text
    keep = limit - len(f" … ({len(text):,} characters left out) … ")  # (the most the count can take)
    head, tail = keep - keep // 3, keep // 3
    return f"{text[:head]} … ({len(text) - head - tail:,} characters left out) … {text[len(text) - tail:]}"


def quote(text: str) -> str:
    """``text`` as a JSON string literal (non-ASCII kept as is), for calls written out for a model: exactly
    ``json.dumps(text, ensure_ascii=False)``, by the C encoder it calls (without building an encoder per call)."""
    return encode_basestring(text)


def json_string_bytes(text: str) -> int:
    """UTF-8 bytes of ``text`` written as a JSON string, escapes included and its two quotes not: ``len(json.dumps(
    text, ensure_ascii=False).encode("utf-8")) - 2`` (a lone surrogate, which ``json.dumps`` keeps, counted as the 3
    bytes ``surrogatepass`` writes). At least ``len(text.encode("utf-8"))``: a quote, a backslash or one of the
    control characters ``\\b \\t \\n \\f \\r`` costs 2 bytes, any other control character (U+0000 to U+001F)
    6; U+007F, U+2028 and U+2029 are written as they are (and so by every JSON encoder our faces use)."""
    literal = encode_basestring(text)
    return len(literal) - 2 if literal.isascii() else len(literal.encode("utf-8", "surrogatepass")) - 2


_DENSE_LINE_BYTES = 16
"""Average line length (bytes) below which :func:`line_stats` counts without splitting the sample into lines."""
_SPLIT_AT_ONCE_BYTES = 32 * 1024  # a sample up to this is split without counting its newlines first (bounded)
_DENSITY_PROBE_BYTES = 4096  # ... and a larger one whose first bytes are not dense (a count of all cost 60 us a 64 KiB)
_MARK = bytes(b if b == 10 else 97 for b in range(256))  # every byte but a newline as b"a"
_LONG_LINE_RE = re.compile(b"a{%d,}" % _DENSE_LINE_BYTES)
_LONG_ROW_RE = re.compile(b"\na{%d,}" % _DENSE_LINE_BYTES)
"""A long row after a newline: ``re`` finds each newline at C speed and counts the row after it once (``a{16,}``
alone was tried at every byte, each try counting the rest of its row: 5-7 ms over 512 KiB of 15-byte rows, the whole
``line_stats`` 2 ms now: ``python -m timeit -s "from scratchfs.foundation.text import line_stats; d = b'x' * 20 +
b'\\n' + (b'y' * 14 + b'\\n') * 32768" "line_stats(d)"``)."""
_CR_PAIR = re.compile(b"\r\r")  # (its search is twice as fast as ``in`` of two bytes: CRLF text has \r everywhere)


def line_stats(sample: bytes, bare: int | None = None) -> tuple[int, int, int]:
    """``(rows, longest, empty)`` of ``sample``'s lines as ``split(b"\\n")`` gives them, the empty rest after a final
    newline left out: how many, the longest one's bytes (its newline not counted; a ``\\r`` before it is) and how many
    are blank: empty, or carriage returns only (a blank line of CRLF text is a lone ``\\r``). Exact.

    A sample of many short lines (below :data:`_DENSE_LINE_BYTES` on average: 512 KiB of bare newlines, say) is not
    split, which would make a ``bytes`` object a line (10-17 ms for 512 KiB, against 1.6 ms to describe as much plain
    text; 2-4 ms now: ``python bench/dense_text.py``): its bytes other than newlines are made ``a`` in one
    ``translate``, a non-empty row is a run of ``a`` (counted where each ends), and the longest is found by regular
    expression among the few long rows, or else by a binary search of ``bytes.find`` for a run of ``a`` of each
    length. A sample holding a ``\\r`` has its lone ``\\r`` rows counted too, and its blank rows among short rows, or
    where two carriage returns meet, by :func:`_blank_rows`. ``bare``: how many of its carriage returns no ``\\n``
    follows, when the caller has counted them (0: two never meet, not searched for; ``None``: not known)."""
    tail = not sample.endswith(b"\n")  # a last row without its newline (the whole of a sample without one)
    most = len(sample) // _DENSE_LINE_BYTES  # the most newlines of a sample that is split
    # A sample is split at once, bounded (a count of its newlines first costs as much as the split, which tells
    # them) -- but a larger one whose first bytes are dense is counted first, and split only if it is not dense.
    newlines = -1 if len(sample) <= _SPLIT_AT_ONCE_BYTES or sample.count(b"\n", 0, _DENSITY_PROBE_BYTES) <= \
        _DENSITY_PROBE_BYTES // _DENSE_LINE_BYTES else sample.count(b"\n")
    pieces = sample.split(b"\n", most) if newlines <= most else None
    if pieces is not None and (len(pieces) <= most or b"\n" not in pieces[-1]):
        rows = len(pieces) - 1 + tail
        if not tail:
            pieces.pop()
        empty = pieces.count(b"")
        if b"\r" in sample:  # (a memchr: text without one pays nothing measurable)
            met = bare != 0 and _CR_PAIR.search(sample) is not None  # (a \r before a \r is bare: none, none meet)
            empty = _blank_rows(sample, rows) if met else empty + pieces.count(b"\r")
        return rows, max(map(len, pieces)), empty
    rows = (sample.count(b"\n") if newlines < 0 else newlines) + tail
    marked = sample.translate(_MARK)
    empty = rows - marked.count(b"a\n") - (tail and bool(sample)) if b"\r" not in sample else _blank_rows(sample, rows)
    if marked.find(b"a" * _DENSE_LINE_BYTES) >= 0:
        first = _LONG_LINE_RE.match(marked)  # (the first row, after no newline)
        longest = max(map(len, _LONG_ROW_RE.findall(marked)), default=1) - 1  # (each found with its newline)
        return rows, max(longest, len(first[0]) if first else 0), empty
    low, high = 0, _DENSE_LINE_BYTES  # the longest row is in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if marked.find(b"a" * middle) >= 0 else (low, middle)
    return rows, low, empty


def _blank_rows(sample: bytes, rows: int) -> int:
    """The blank rows (carriage returns only, or empty) of ``sample``, of ``rows`` rows: with its carriage returns
    deleted and every other byte but a newline made ``a`` (one ``translate``), a row is blank unless it ends in
    ``a``."""
    marked = sample.translate(_MARK, b"\r")
    return rows - marked.count(b"a\n") - (not sample.endswith(b"\n") and marked.endswith(b"a"))


def grep_runs(head: bytes) -> tuple[int, set[bytes]]:
    """``len(re.findall(GREP_LINE_PATTERN, head))``, counted as the lines of the runs of one path (each line of a
    run starts with a newline), and the set of those paths."""
    lines, paths = 0, set()
    for run in _GREP_RUN_RE.finditer(head):
        lines += run.group().count(b"\n")
        paths.add(run[1])
    return lines, paths


def grep_tally(sample: bytes, top: int) -> tuple[int, list[tuple[bytes, int, int]]]:
    """The files of grep-style output ``sample`` (``path:line:`` lines, the paths :data:`GREP_LINE_PATTERN` finds):
    ``(how many, the top ones)``, the top ones up to ``top`` ``(path, lines, first)`` tuples of the paths with the
    most lines (``lines``: how many; ``first``: the line number, from 1, of the path's first line in ``sample``),
    most first, a tie in order of first line; none when ``top`` is 0 or the runs of one path's lines are over
    :data:`GREP_TALLY_RUNS` (each is added up in Python). One ``findall`` of the runs; the
    line numbers those of the runs before, or, with other lines among them, counted (C speed). Nothing is raised."""
    text = b"\n" + sample
    runs = _GREP_TALLY_RE.findall(text)
    files = len(set(map(itemgetter(0), runs)))
    if not top or len(runs) > GREP_TALLY_RUNS:
        return files, []
    lines: dict[bytes, int] = {}
    starts: dict[bytes, int] = {}  # each path's first line, if every line of the text is a run's
    total, covered = 1, 0
    for path, rest in runs:
        count = 1 + rest.count(b"\n")
        lines[path] = lines.get(path, 0) + count
        starts.setdefault(path, total)
        total, covered = total + count, covered + 1 + len(path) + len(rest)
    most = sorted(lines.items(), key=lambda item: -item[1])[:top]  # (sorted is stable: first seen first in a tie)
    if covered != len(text) - text.endswith(b"\n"):  # other lines between runs: count to each first
        firsts = sorted((_first_line(text, path), path) for path, _ in most)
        line, at = 0, 0
        for first, path in firsts:  # (each newline counted once)
            line, at = line + text.count(b"\n", at, first + 1), first + 1
            starts[path] = line
    return files, [(path, count, starts[path]) for path, count in most]


def _first_line(text: bytes, path: bytes) -> int:
    """The offset of the newline before ``path``'s first ``path:N:`` line in ``text`` (one is there): found as bytes
    (C speed: a regular expression's search of a long path took 0.4 ms), each find checked for its line number."""
    start, after = b"\n" + path + b":", len(path) + 2
    at = text.find(start)
    while not _LINE_NUMBER_RE.match(text, at + after):
        at = text.find(start, at + 1)
    return at


_LINE_NUMBER_RE = re.compile(rb"\d+[:-]")


__all__ = ["GREP_LINE_PATTERN", "GREP_RUN_PATTERN", "GREP_TALLY_RUNS", "SIZE_UNITS", "bitmap_classes", "clipped",
           "decode_or_none", "digits_int", "grep_runs", "grep_tally", "invalid_utf8_bytes", "is_digits",
           "is_utf8_text", "json_shown", "json_string_bytes", "line_stats", "name_bytes", "not_a_size", "one_line",
           "plural", "quote", "shorten", "size_bytes", "utf8_but_cut_end", "utf8_lead_length", "utf8_partial_tail",
           "utf8_prefix", "utf8_suffix_start", "utf8_text", "within_chars"]
