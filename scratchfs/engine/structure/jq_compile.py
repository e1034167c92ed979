"""A jq filter compiled for a read: the model's filter inside a wrapper, and jq's compile errors told in the
filter's own lines.

Every compile of a model's filter runs in a jq worker (:mod:`.jq_worker`), bounded by the read's deadline and the
worker's memory, never in the reading process: jq folds constant expressions as it compiles, and ``"x" * 1e9``
built a gigabyte string there (``["x" * 2e9, "y" * 2e9]``: 3.8 GB and 21 s holding the GIL, more a few bytes of
filter more); a filter that compiled is remembered, so the next pages of a read compile nothing.

Library: ``jq`` (PyPI), the binding of the real jq 1.7 C library (https://jqlang.github.io/jq/manual/v1.7/).
The wrapper shadows ``env`` and ``$ENV`` (the process environment is not the model's to read), bounds the number of
outputs with ``limit`` (an endless generator such as ``repeat(1)`` stops) and gives each output as jq's own JSON
text (``tojson``); ``import``/``include`` cannot occur (the filter is compiled inside an expression, where directives
are not allowed). ``halt`` and ``halt_error`` are refused (the jq library ends the outputs there without an error: a
read would look complete). A filter that does not compile is refused with jq's message, its places counted in the
filter as given, never in the wrapper."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from scratchfs.engine.structure.jq_worker import run_jq
from scratchfs.engine.structure.paging import in_worker
from scratchfs.foundation import limits
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["MAX_FILTER_CHARS", "Compiled", "check_filter_length", "compile_filter"]

MAX_FILTER_CHARS = limits.MAX_FILTER_CHARS
"""Longest jq filter, in characters."""
_HALT = re.compile(r"(?<![\w$.])halt(_error)?(?![\w\s]*:)(?!\w)")
"""``halt`` and ``halt_error`` (not a field, variable or object key of that name: ``.halt``, ``$halt``,
``{halt: 1}``); searched with string literals blanked (:data:`_STRING`)."""
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_PREFIX = "def env: {}; {} as $ENV | "


def check_filter_length(text: str) -> None:
    """Raise InvalidArgument for a filter longer than :data:`MAX_FILTER_CHARS` (the streamed path reads past the jq
    bound check it too, compiling nothing)."""
    if len(text) > MAX_FILTER_CHARS:
        raise InvalidArgument(f"jq filter is longer than {MAX_FILTER_CHARS} characters")


@dataclass(frozen=True)
class Compiled:
    """A filter that compiles in its wrapper: ``program_string``, the whole program a jq worker runs."""

    program_string: str


_KNOWN: dict[str, None] = {}
"""The wrapped programs that compiled (at most :data:`_MOST_KNOWN`): a read's next pages compile nothing again."""
_MOST_KNOWN = 256


def compile_filter(text: object, max_outputs: int, deadline: float | None = None) -> Compiled:
    """Compile a jq filter whose outputs are limited to ``max_outputs``, each given as jq's own JSON text
    (``tojson``: jq 1.7 keeps the literal of a number it does not change, where its values as Python objects are
    doubles), in a jq worker until ``deadline`` (a ``time.monotonic()`` value; ``None``: the default
    ``pattern_timeout`` from now).

    Raises:
        InvalidArgument: the filter does not compile (jq's message), or its compile ran the worker out of memory.
        StructureTimeout: its compile ran past ``deadline`` (a constant jq computes as it compiles, ``"x" * 1e9``).
        StoreBusy: no jq worker came free before ``deadline``, or none could be started.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument("jq must be a non-empty filter, e.g. '.items[0]' or 'keys'")
    check_filter_length(text)
    if _HALT.search(_STRING.sub('""', text)):
        # the jq library ends the outputs there without a word
        raise InvalidArgument("jq filter uses halt or halt_error, which end a read here without saying so; use "
                              "error(...) to stop with a message, or select(...)/limit(n; ...) to stop early")
    # a blank line after the filter ends a comment its last line continues with a backslash, as jq 1.7 does; the
    # filter starts on the wrapper's first line, so that $__loc__ names the line jq names for it alone
    program = f"{_PREFIX}limit({max_outputs}; ({text}\n\n)) | tojson"
    if program in _KNOWN:
        return Compiled(program)
    deadline = time.monotonic() + limits.PATTERN_TIMEOUT if deadline is None else deadline
    wrapped, alone = _errors(program, (text,), deadline)
    if wrapped is not None:
        raise InvalidArgument(f"jq filter {text[:80]!r} does not compile: {_told(text, max_outputs, deadline)}")
    if alone is not None:  # a whole program of its own, not one that closes the wrapper's parentheses
        said = _message(alone, text.count("\n") + 1, 0)
        raise InvalidArgument(f"jq filter {text[:80]!r} does not compile: {said}")
    if len(_KNOWN) >= _MOST_KNOWN:
        _KNOWN.clear()
    _KNOWN[program] = None
    return Compiled(program)


def _errors(program: str, others: tuple[str, ...], deadline: float) -> list[str | None]:
    """jq's compile error of ``program`` and of each of ``others`` (``None``: it compiles), compiled in a jq worker
    until ``deadline``; raises as :func:`compile_filter` says."""
    status, said = in_worker(lambda: run_jq(program, "compile", others, deadline), deadline,
                             "compiling the jq filter", _FOLDED)
    if status != "ok":  # (not met: a compile answers "ok")
        raise InvalidArgument(f"compiling the jq filter failed: {said}")
    return said


_FOLDED = ("a filter without so large a constant (jq computes a constant expression such as \"x\" * 1e9 as it "
           "compiles)")


def _told(text: str, max_outputs: int, deadline: float) -> str:
    """jq's compile error of a filter that does not compile in its wrapper, told in the filter's lines: compiled
    again a line below the wrapper's start, so that no place jq names on the filter's first line is the wrapper's."""
    (said,) = _errors(f"{_PREFIX}limit({max_outputs}; (\n{text}\n\n)) | tojson", (), deadline)
    if said is not None:
        return _message(said, text.count("\n") + 1)
    return "jq refuses it"  # (not met: the same tokens either way)


_AT = re.compile(r" at <top-level>, line (\d+), column (\d+):(.*?) (\^+)(?= jq:|$)")
_WRAPPER_TOKEN = re.compile(r"unexpected (?:'\)'|INVALID_CHARACTER)(?=,|$)")


def _message(exc: str, lines: int, wrapper_lines: int = 1) -> str:
    """jq's compile error ``exc`` (its words) on one line (at most 300 characters), its places counted in the filter
    as given (``lines`` lines; jq counts :func:`compile_filter`'s wrapper, whose first ``wrapper_lines`` lines come
    before the filter; 0: the filter compiled alone): a place past the filter's end -- the wrapper's closing
    ``)) | tojson``, met by a filter that stops early -- is "the end of the filter", and the token jq met there
    ``end of the filter``; one ``)`` too many closed the wrapper's."""
    text = " ".join(str(exc).split())
    out, pos = [], 0
    for found in _AT.finditer(text):
        line = int(found.group(1)) - wrapper_lines
        head = text[pos : found.start()]
        if 1 <= line <= lines:
            out.append(f"{head} at line {line}, column {found.group(2)}:{found.group(3)} {found.group(4)}")
        elif "expecting end of file" in head:
            # a ')' of the filter's closed the wrapper's: jq met the wrapper's
            said = head[: head.find("syntax error")]
            out.append(said + "syntax error: the filter closes a parenthesis it did not open")
        else:
            out.append(_WRAPPER_TOKEN.sub("unexpected end of the filter", head) + " at the end of the filter")
        pos = found.end()
    return _NOISE.sub("", "".join(out) + text[pos:])[:300]


_NOISE = re.compile(r"jq: error: | ?jq: \d+ compile errors?$")
"""What jq adds to each compile error, the filter's own words aside (``jq: error: ``, ``jq: 1 compile error``)."""
