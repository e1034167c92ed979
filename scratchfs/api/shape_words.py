"""The words a shape is written in, for :mod:`scratchfs.api.shape` and its helpers: counts with their noun, sizes
in binary units, the clipping that keeps a shape within :data:`MAX_SHAPE_CHARS` and a name from costing escapes
in the stub's JSON (an array's items merged: :mod:`scratchfs.api.shape_merge`)."""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from contextvars import ContextVar

from scratchfs.engine.structure.row_keys import first_keys
from scratchfs.foundation import text as texts
from scratchfs.foundation.text import plural

__all__ = ["LONG_STRING_CHARS", "MAX_SHAPE_CHARS", "MOST_LINES", "PROGRAM_LINE_RE", "LineNumbers", "called_name",
           "clip", "column_names", "counts_said", "first_of", "key_name", "kib", "listed_within", "plural", "room_for",
           "scoped", "shape_limit", "short_name", "within", "within_lines"]

LONG_STRING_CHARS = 200
"""Characters from which a JSON string is long: a shape writes it ``str(N KiB)`` (bytes), a short one ``str``, and
a stub's note may name a read of it (:mod:`scratchfs.api.json_next`)."""
MAX_SHAPE_CHARS = 600
"""Longest shape text, in characters (the stub's preview gives way to it within the 1.5 KiB stub)."""

_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""What a name in a shape does not show as itself: C0 and C1 controls (each would cost six bytes in the stub's
JSON; a newline would start a line of its own), the bidirectional controls
(Unicode UAX #9: U+202E shows ``x``, U+202E, ``txt.exe`` as ``xexe.txt``) and lone surrogates (a tar member's
undecodable byte; no UTF-8 carries one)."""

MOST_LINES = 10_000
"""Most lines of a sample that a kind of text told by its lines reads (:func:`within_lines`; a 512 KiB sample of
ordinary text, 52 bytes a line or more, holds fewer)."""

PROGRAM_LINE_RE = re.compile(rb"\n(?:import [\w.]+|from [\w.]+ c?import |def \w+ ?\(|class \w+ ?[:(]|#include [<\"]"
                             rb"|use [\w:]+[^\r\n;]*;|package [\w:]+;|sub \w+ *\{|define \w+\r?\n"
                             rb"|c(?:p?def|typedef|import) )")
"""A program's line at a line's start (Python, Cython, C, Perl, a gdb script; ``text`` searched with a newline before
it), which Markdown holds only in a code block and YAML nowhere: a Python module's ``#`` comments after a blank line
read as Markdown's headings (105 of 14,914 modules of the machine it was tried on were told as Markdown), a type
stub's ``class C:`` over ``x: int`` lines as YAML's keys."""


def first_of(part: int, whole: int) -> str:
    """What a shape told from the first ``part`` bytes of a content of ``whole`` bytes says of it: ``" (in the first
    512 KiB of 4.0 MiB)"``, in bytes when the two would read the same (``" (in the first 524,288 of 524,300
    bytes)"``, not "512 KiB of 512 KiB")."""
    if kib(part) == kib(whole):
        return f" (in the first {part:,} of {plural(whole, 'byte')})"
    return f" (in the first {kib(part)} of {kib(whole)})"


def scoped(text: str, scope: str) -> str:
    """``text`` (a shape's words) then ``scope`` (:func:`first_of`'s ``" (in the first 512 KiB of 1.8 MiB)"``, or
    ``""``), joined into one parenthetical when ``text`` ends in one -- ``"... (30% markup; in the first 512 KiB of
    1.8 MiB)"``, never two in a row, ``"(30% markup) (in the first ...)"``."""
    if text.endswith(")") and scope.startswith(" (") and scope.endswith(")"):
        return f"{text[:-1]}; {scope[2:]}"
    return text + scope


def kib(size: int) -> str:
    """A size in bytes in binary units: ``"512 B"``, ``"12 KiB"``, ``"1.5 MiB"``, ``"2.0 GiB"``; one that rounds to
    1024 of a unit is written in the next (``1048575`` -> ``"1.0 MiB"``, not ``"1024 KiB"``)."""
    if size < 1024:
        return f"{size} B"
    if round(size / 1024) < 1024:
        return f"{size / 1024:.0f} KiB"
    if round(size / 1024**2, 1) < 1024:
        return f"{size / 1024**2:.1f} MiB"
    return f"{size / 1024**3:.1f} GiB"


_LIMIT: ContextVar[int] = ContextVar("shape_limit", default=MAX_SHAPE_CHARS)


def shape_limit() -> int:
    """The characters a shape written now may take: :data:`MAX_SHAPE_CHARS`, or less :func:`within` a shape that
    words go before."""
    return _LIMIT.get()


@contextlib.contextmanager
def within(chars: int) -> Iterator[None]:
    """Shapes written inside take at most ``chars`` characters (at least 1): :func:`clip`, :func:`room_for` and
    :func:`listed_within` fit them, so a shape that words go before (``coloured (...): ``) lists fewer parts and
    still says how many it left out (``… N more``), where cutting it afterwards lost that."""
    token = _LIMIT.set(max(1, min(chars, _LIMIT.get())))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def clip(text: str, limit: int | None = None) -> str:
    """``text`` (a lone surrogate as its escape) cut to ``limit`` characters (``None``: :func:`shape_limit`), the
    last an ellipsis when cut."""
    limit = _LIMIT.get() if limit is None else limit
    text = texts.utf8_text(text)  # a JSON key or value's lone surrogate as its escape
    return text if len(text) <= limit else text[: limit - 1] + "…"


def room_for(head: str, tail: str) -> int:
    """Characters a shape of ``head`` and ``tail`` leaves for the parts :func:`listed_within` lists (each with its
    ``", "``) within :func:`shape_limit`, the count of those left out kept room for; negative when they leave none."""
    return _LIMIT.get() - len(head) - len(tail) - len(", … 99,999 more")


def listed_within(head: str, items: Iterable[str], tail: str, total: int | None = None) -> str:
    """A shape that lists parts: ``head``, then as many of ``items`` as fit within :func:`shape_limit` (in order,
    joined by ``", "``; the first that does not fit ends the list, and no item after it is asked for), ``", … N
    more"`` for the others, then ``tail``. ``total``: how many items there are (default: ``items`` counted whole)."""
    items = list(items) if total is None else items
    total = len(items) if total is None else total  # type: ignore[arg-type]
    room = room_for(head, tail)
    listed: list[str] = []
    for item in items:
        room -= len(item) + 2
        if room < 0:
            break
        listed.append(item)
    more = f", … {total - len(listed):,} more" if len(listed) < total else ""
    return clip(f"{head}{', '.join(listed)}{more}{tail}")


def within_lines(sample: bytes, size: int | None, complete: bool, scope: str, most: int = MOST_LINES
                 ) -> tuple[bytes, bool, str]:
    """What a kind of text told by its lines reads of ``sample`` (a content's first bytes; ``size``: the whole
    content's bytes, ``None``: the sample's; ``complete``: the sample is all of it; ``scope``: what its shape adds
    when not): ``(sample, complete, scope)`` as given when ``sample`` holds at most :data:`MOST_LINES` newlines (its
    whole lines only, the last newline's rest left out, when not ``complete``), else its first :data:`MOST_LINES`
    lines, ``False`` and the scope that says so (``" (in the first 120 KiB of 512 KiB)"``) -- so that the kinds,
    which read lines in Python (a diff's headers, YAML's keys, Markdown's headings, a listing's directories), cost
    the same on 512 KiB of ``#`` or of one-line diffs. The cut is found by counts (C speed, about 0.2 ms over 512
    KiB). ``most``: another bound of lines than :data:`MOST_LINES` (a ``git log -p --graph``'s patches: fewer)."""
    if len(sample) <= most or sample.count(b"\n") <= most:
        return (sample if complete else sample[: sample.rfind(b"\n") + 1]), complete, scope
    low, high = 0, len(sample)  # the least end holding MOST_LINES newlines: just past the last of them
    while low < high:
        middle = (low + high) // 2
        if sample.count(b"\n", 0, middle) >= most:
            high = middle
        else:
            low = middle + 1
    return sample[:low], False, first_of(low, len(sample) if size is None else size)


class LineNumbers:
    """The line numbers of offsets into ``text`` (a newline, then a sample), asked in increasing order: the count of
    newlines up to and including the offset -- line 1 for the newline before the sample's first line -- each newline
    counted once over all the calls (C speed)."""

    __slots__ = ("at", "count", "text")

    def __init__(self, text: bytes) -> None:
        self.text, self.at, self.count = text, 0, 0

    def __call__(self, offset: int) -> int:
        """The line number of the newline (or other byte) at ``offset``, not less than the last one asked."""
        self.count += self.text.count(b"\n", self.at, offset + 1)
        self.at = offset + 1
        return self.count


def short_name(key: object, limit: int = 32) -> str:
    """``str(key)`` with each character of :data:`_CONTROL_RE` as ``?`` (controls, bidirectional controls, lone
    surrogates), cut to ``limit`` characters."""
    text = _CONTROL_RE.sub("?", str(key))
    return text if len(text) <= limit else text[: limit - 1] + "…"


_CALLED_RE = re.compile(r'[,:"…]|^\s|\s$|^$')
_WHOLE_RE = re.compile(r'["…]|^\s|\s$|^$')
_HIDDEN_RE = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"
                        "\ud800-\udfff]")
"""What makes a name a shape lists with a call for it (``match="NAME"``) read as something else: the ``,`` and
``:`` that part a shape's items and words, a quote, an ellipsis, white space at an end, nothing; and what a name
does not show as itself: :data:`_CONTROL_RE`'s and the zero-width characters (U+200B..U+200D, U+2060, U+FEFF, a soft
hyphen), written as their JSON escapes."""


def counts_said(counts: Counter[bytes], most: int, limit: int = 40) -> str:
    """The ``most`` commonest of ``counts`` (names as bytes, UTF-8), each name cut to ``limit`` characters
    (:func:`short_name`), as ``"ENOENT 1,150, ENOTTY 174, … 2 more"`` (``", … N more"`` for the others; empty for no
    counts). Never raises."""
    told = ", ".join(f"{short_name(name.decode('utf-8', 'replace'), limit)} {n:,}" for name, n in
                     counts.most_common(most))
    return told + (f", … {len(counts) - most:,} more" if len(counts) > most else "")


def called_name(name: str, limit: int = 48, parted: bool = True) -> str:
    """A name in a shape that names a call to write it in (``match=" b/NAME"``): ``name`` as itself when it holds
    nothing of :data:`_CALLED_RE` or :data:`_HIDDEN_RE`, else as a JSON string (``"tab\\tx.txt"``,
    ``"\\u202eevil"``, ``"Acme, Inc."``), which the model's call holds as the JSON it reads -- the name's real
    characters, where :func:`short_name`'s ``?`` for a control was a call that found nothing (helper shapenames1).
    Cut to ``limit`` characters with ``…`` (a cut name's call finds its first characters alone). ``parted``
    ``False``: a ``,`` or ``:`` leaves a name as itself (a C++ symbol's ``std::max<long>(long const&, long const&)``,
    which a shape's items read whole before its ``(line N)``)."""
    if not (_CALLED_RE if parted else _WHOLE_RE).search(name) and not _HIDDEN_RE.search(name):
        return name if len(name) <= limit else name[: limit - 1] + "…"
    shown = json.dumps(name if len(name) <= limit else name[: limit - 1] + "…", ensure_ascii=False)
    return _HIDDEN_RE.sub(lambda found: f"\\u{ord(found[0]):04x}", shown)  # (what JSON left as itself)


_AMBIGUOUS_RE = re.compile(r'[?,:{}"…]|^\s|\s$|^$')
"""What makes a key's name read as something else in a shape: a ``?`` (the mark of a key some items lack), the
``,`` ``:`` ``{`` ``}`` that separate keys and values, a quote, the ellipsis of a cut, white space at an end,
nothing."""


def key_name(key: object, limit: int = 32, lacked: bool = False) -> str:
    """A JSON key's name in a shape: :func:`short_name`, in JSON quotes when it would read as something else
    (:data:`_AMBIGUOUS_RE`: ``"a?"``, ``"a, b"``, ``""``; or holds a control character: ``"\\u0000"``), then a
    ``?`` when ``lacked`` -- so ``{a?, "a?": int}`` tells the key ``a`` some items lack from a key named ``a?``."""
    text = str(key)
    if _AMBIGUOUS_RE.search(text) or _CONTROL_RE.search(text):  # (a control character as its JSON escape here)
        name = json.dumps(text if len(text) <= limit else text[: limit - 1] + "…", ensure_ascii=False)
        name = _CONTROL_RE.sub(lambda found: f"\\u{ord(found[0]):04x}", name)  # (what JSON left as itself)
    else:  # (short_name of a text the search found no control in: its cut alone, not its scan again)
        name = text if len(text) <= limit else text[: limit - 1] + "…"
    return name + ("?" if lacked else "")


def column_names(header: list[str], shown: int, limit: int = 24) -> list[str]:
    """The first ``shown`` of a table's column names as a shape lists them (:func:`key_name`), a repeated name
    followed by the key its column has in a row read as an object, which ``slurp=true``'s rows and ``columns=``
    name it by (``COMMAND, COMMAND (key COMMAND_2)``: ``ps -o comm,args``; ``id, name, id (key id_2)``: a join's
    ``SELECT *``; :func:`~scratchfs.engine.structure.row_keys.row_keys`, of those columns alone)."""
    keys = first_keys(list(header), shown)
    return [key_name(name, limit) + ("" if key == name else f" (key {key_name(key, limit)})")
            for name, key in zip(header[:shown], keys, strict=False)]
