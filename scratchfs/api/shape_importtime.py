"""The shape of ``python -X importtime`` output (``PYTHONPROFILEIMPORTTIME=1``), for :mod:`scratchfs.api.shape`: its
imports counted, the top-level ones (what the program imported itself: the last lines of each tree, since Python
writes a module's line after those of what it imports) by cumulative time, each with its line, and the slowest by
their own time, so that "what does it import at startup and what is slow" is answered by the stub -- ``python -X
importtime -c "import cfnlint.runner"``, 160 KB, was ``text, 1,631 lines``, its preview the interpreter's own
``_io``, ``marshal``, ``posix`` lines, the same in every such stub (helper modeltask7). Such text stays content type
``text``; its shape starts with :data:`IMPORTTIME_SHAPE`.

The layout (CPython's ``Python/import.c``): the header ``import time: self [us] | cumulative | imported package``,
then a line an import, ``import time: SELF | CUMULATIVE | NAME``, both times in microseconds, padded to 10 columns,
``NAME`` after two spaces for each level under the top one. Told only on text whose first line is that header (a
test of its first bytes, before any regular expression), nine in ten of its lines imports; a sample that is not the
whole content says the imports so far (the top-level ones come last: ``line=-50`` reads them)."""

from __future__ import annotations

import heapq
import re

from scratchfs.api.shape_words import called_name, listed_within, plural, within_lines

__all__ = ["IMPORTTIME_SHAPE", "importtime_shape"]

IMPORTTIME_SHAPE = "Python -X importtime"
"""How the shape of ``python -X importtime`` output starts."""

_HEADER = b"import time: self [us] | cumulative | imported package"
_IMPORT_RE = re.compile(rb"\nimport time: {0,12}(\d{1,15}) \| {0,12}(\d{1,15}) \| ( {0,2000})([^ \n][^\n]{0,1000})")
_MOST = 0.9  # of the lines after the header, the imports'
_FIND = r'; pattern="\d \| \S", context="line" finds the top-level imports'  # (a digit, then "| NAME": depth 0;
# the header's "] | cumulative" has none, a nested import's "|   name" a space)


def importtime_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is ``python -X importtime`` output, else
    ``None``: ``"Python -X importtime, 304 lines, 303 imports, 9 top-level (172.2 ms together); slowest top-level:
    flask.cli (line 304, 172.2 ms), …; slowest self: … (line 40, 9.1 ms), …; pattern="\\d \\| \\S",
    context="line" finds the top-level imports"`` (times as Python measured them, cumulative: with what each
    imports). ``size``: the whole content's bytes (``None``: the sample's); told from the sample's first
    :data:`~scratchfs.api.shape_words.MOST_LINES` lines, which its scope says when that is not all of it. Never
    raises."""
    if not sample.startswith(_HEADER):
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)
    text = b"\n" + sample
    imports = [(int(found[1]), int(found[2]), len(found[3]), found.start(), found[4])
               for found in _IMPORT_RE.finditer(text)]
    rows = text.count(b"\n") - text.endswith(b"\n")
    if not imports or len(imports) + 1 < _MOST * rows:
        return None
    top = [(cumulative, at, name) for _own, cumulative, depth, at, name in imports if depth == 0]
    slowest = heapq.nlargest(8, top, key=lambda item: (item[0], -item[1]))
    own = heapq.nlargest(3, ((own, at, name) for own, _cumulative, _depth, at, name in imports),
                         key=lambda item: (item[0], -item[1]))
    so_far = "" if complete else " so far"
    head = f"{IMPORTTIME_SHAPE}, {plural(lines, 'line')}{scope}, {plural(len(imports), 'import')}{so_far}, "
    tail = "; slowest self: " + ", ".join(_item(text, item, 64) for item in own) + _FIND + (
        "" if complete else ", line=-50 reads the last (top-level imports come after what they import)")
    if not top:  # (a sample short of its end: the top-level imports, each after what it imports, not reached)
        return head + "none top-level" + tail
    head += f"{len(top):,} top-level ({_ms(sum(item[0] for item in top))} together); slowest top-level: "
    return listed_within(head, (_item(text, item) for item in slowest), tail, len(slowest))


def _item(text: bytes, item: tuple[int, int, bytes], limit: int = 48) -> str:
    """An import named in the shape: ``"flask (line 303, 172.1 ms)"``, ``item`` its time (us), where its line starts
    in ``text`` (a newline, then a content's lines) and its name."""
    micros, at, name = item
    line = text.count(b"\n", 0, at + 1)
    return f"{called_name(name.decode('utf-8', 'replace').rstrip(), limit)} (line {line:,}, {_ms(micros)})"


def _ms(micros: int) -> str:
    """Microseconds as milliseconds to a tenth: ``"172.2 ms"``."""
    return f"{micros / 1000:,.1f} ms"
