"""JSON numbers kept exactly: a number of a document must reach the model as the number the document holds, never
rounded through a 64-bit double without a word.

Python's ``json`` holds an integer exactly (an ``int``) and a number with at most 15 significant digits and an
exponent inside a double's range exactly too (a ``float`` whose shortest ``repr`` is the same number). What it
cannot hold -- ``1e400`` (``inf``), ``1.00000000000000000001`` (``1.0``), an integer of more digits than
``int()`` converts (``sys.get_int_max_str_digits``) -- is told by :func:`load_exact`, and the reader then gives that
value as its JSON text (a string), every digit kept. A text with no run of 16 digits (or points), no 3-digit
exponent and no ``-0`` holds no such number and is parsed at full C speed (the number hooks run only otherwise).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from scratchfs.foundation.collector import CollectorPaused

__all__ = ["CONSTANTS_SAID", "PYTHON_CONSTANTS", "LoneSurrogateScan", "LongIntegers", "constant_literals",
           "dump_decimal", "exact_float", "imprecise_number", "load_exact", "lone_surrogate", "non_json_constant",
           "numbers_note", "refuse_constant", "replace_lone_surrogates", "surrogate_note"]

_ESCAPES = (r"(?<!\\)(?:\\\\)*(?:\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
            r"|\\u([dD][89a-fA-F][0-9a-fA-F]{2}))")
"""A surrogate escape of a JSON text (after an even run of backslashes: ``\\\\ud800`` is an escaped backslash and
text): a pair (one match), or a lone one (group 1). Found left to right, a match never starts inside another."""
_ESCAPE = re.compile(_ESCAPES)
_ESCAPE_BYTES = re.compile(_ESCAPES.encode())
_HINT = re.compile(r"\\u[dD][89a-fA-F]")
"""What every surrogate escape holds: searched first, literal-led (the full pattern may start at every position:
``python bench/scan_costs.py``, 3 MB of JSON holding none: 118-130 ms for the full pattern, 1-1.5 ms this way)."""
_HINT_BYTES = re.compile(_HINT.pattern.encode())

_SUSPECT = re.compile(r"[0-9](?:[0-9.]{15}|[eE][-+]?[0-9]{3})")
"""What a number a double cannot hold exactly must contain: 16 significant digits, or a large or tiny exponent (one
pattern that starts with a digit: 19 ms over 2 MiB of JSON, three times faster than three alternatives)."""
_NEGATIVE_ZERO = re.compile(r"-0(?![0-9.eE])")
"""``-0``, which ``json`` reads as the integer 0."""


def _suspect(text: str) -> bool:
    """True when ``text`` may hold a number that ``json.loads`` does not hold exactly (see :data:`_SUSPECT`)."""
    return _SUSPECT.search(text) is not None or ("-0" in text and _NEGATIVE_ZERO.search(text) is not None)
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_NUMBER_CHARS = frozenset("0123456789.eE+-")
_EXAMPLE_CHARS = 40


class _Hooks:
    """``parse_int`` / ``parse_float`` hooks of ``json.loads`` that note the first literal they cannot hold."""

    def __init__(self) -> None:
        self.inexact: str | None = None

    def integer(self, literal: str) -> Any:
        if literal == "-0":
            return -0.0  # the sign kept (an int has none); the same number
        try:
            return int(literal)
        except ValueError:  # more digits than int() converts
            self.inexact = self.inexact or literal
            return 0

    def real(self, literal: str) -> float:
        value = float(literal)
        if not exact_float(value, literal):
            self.inexact = self.inexact or literal
        return value


def exact_float(value: float, literal: str) -> bool:
    """True when the double ``value`` (``float(literal)``) is the number ``literal`` writes: finite and its
    shortest ``repr`` equal to it as a decimal (``1.10`` -> ``1.1`` is; ``1e400`` -> ``inf`` and
    ``1.00000000000000000001`` -> ``1.0`` are not)."""
    return math.isfinite(value) and Decimal(repr(value)) == Decimal(literal)


def refuse_constant(name: str) -> Any:
    """A ``parse_constant`` hook of :mod:`json` that refuses ``NaN``, ``Infinity`` and ``-Infinity`` (which the
    standard library reads by default): raises ValueError naming it."""
    raise ValueError(f"{name} is not JSON (JSON has no NaN or Infinity)")


_TOO_MANY_DIGITS = "integer string conversion"
"""Words of the ValueError ``int()`` raises for a literal past ``sys.get_int_max_str_digits`` (4,300 digits), which
``json`` lets through: ``Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits``."""


def _integer_or_zero(literal: str) -> int:
    """A ``parse_int`` hook: ``int(literal)``, or 0 (an integer all the same) for one of more digits than it takes."""
    try:
        return int(literal)
    except ValueError:
        return 0


class LongIntegers(json.JSONDecoder):
    """A :class:`json.JSONDecoder` (the same arguments) for telling JSON from what is not and the kinds of its values:
    an integer of more digits than ``int()`` converts (``sys.get_int_max_str_digits``: 4,300 -- a valid JSON number,
    which jq keeps as written) reads as the integer 0, where the plain decoder raised ``ValueError`` and a document,
    a record or a JSON text holding one was taken for no JSON. Parsed at C speed; only a text that holds such a
    number is parsed again, its integers through a hook. Its values are for kinds, never shown: a read gives the
    number's literal (:func:`load_exact`).

    Raises (``decode``, ``raw_decode``): what :class:`json.JSONDecoder` raises, but for that ValueError."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._long = json.JSONDecoder(**{**options, "parse_int": _integer_or_zero})

    def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
        try:  # (json.JSONDecoder.raw_decode's own two lines: no frame more a value -- 200,000 items a document)
            return self.scan_once(s, idx)
        except StopIteration as err:
            raise json.JSONDecodeError("Expecting value", s, err.value) from None
        except json.JSONDecodeError:
            raise
        except ValueError as exc:
            if _TOO_MANY_DIGITS not in str(exc):
                raise
        return self._long.raw_decode(s, idx)


_STRING_TEXT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_CONSTANT = re.compile(r"(?i)(?<![0-9a-z_])[-+]?(?:nan|inf(?:inity)?)(?![0-9a-z_])")
_PYTHON_WORD = re.compile(r"(?:(?<![0-9A-Za-z_])-Infinity|(?<![0-9A-Za-z_+-])(?:NaN|Infinity))(?![0-9A-Za-z_])")
"""One of :data:`PYTHON_CONSTANTS` as :data:`_CONSTANT` finds it (no sign before it but ``-Infinity``'s own)."""


PYTHON_CONSTANTS = frozenset({"NaN", "Infinity", "-Infinity"})
"""The NaN and infinity literals Python's ``json`` writes (``json.dumps(float("nan"))``: pandas' ``to_dict`` of a
missing value) and reads: not standard JSON, but JSON to every structure read here -- as to ``json.loads`` and to jq,
which holds a NaN it prints as ``null`` (``isnan`` finds it, ``== null`` does not) and an infinity as
``1.7976931348623157e+308`` -- each such content saying so once
(:data:`CONSTANTS_SAID`). Other spellings (``nan``, ``inf``, ``+Infinity``) neither reads: no JSON."""

CONSTANTS_SAID = ("holds non-standard NaN/Infinity tokens, as Python's json writes them (jq prints a NaN as null: "
                  "select it with isnan, not == null; Infinity as 1.7976931348623157e+308)")
"""What a shape or a note says, once, of JSON holding one of :data:`PYTHON_CONSTANTS` outside its strings."""


def constant_literals(text: str) -> tuple[str | None, str | None]:
    """``(the first of PYTHON_CONSTANTS, the first other NaN or infinity literal)`` standing outside the strings of
    the JSON ``text`` (:func:`non_json_constant`'s spellings), each ``None`` when there is none. A text whose every
    such word is one of Python's is told by counting them (``str.count``, C speed), not by a match each: a million
    NaNs (4 MB) took 0.5 s a read, over a second more than jq's own parse of 30 MiB of them (hostile46)."""
    low = text.lower()
    if not _candidate(low):
        return None, None
    blank = _STRING_TEXT.sub('""', text) if '"' in text else text
    python = _PYTHON_WORD.search(blank)
    if python is None:
        other = _CONSTANT.search(blank)
        return None, None if other is None else other.group(0)
    if _python_only(blank, low if blank is text else blank.lower()):
        return python.group(0), None
    other = _CONSTANT.search(_PYTHON_WORD.sub("0", blank))
    return python.group(0), None if other is None else other.group(0)


def _python_only(blank: str, low: str) -> bool:
    """Whether every ``nan`` and ``inf`` (any case) of ``blank`` (``low`` lower-cased) is spelled as Python writes
    them, unsigned (``NaN``, ``Infinity``; ``-Infinity``): each counted, not matched."""
    signed = ("-NaN", "+NaN", "+Infinity")
    return (low.count("nan") == blank.count("NaN") and low.count("inf") == blank.count("Infinity")
            and not any(word in blank for word in signed))


def non_json_constant(text: str) -> str | None:
    """The first NaN or infinity literal standing outside the strings of the JSON ``text`` -- ``NaN``,
    ``-Infinity``, and the spellings jq 1.7 also reads (any case, a sign, ``nan``, ``inf``): jq reads a NaN as
    ``null`` and an infinity as ``1.7976931348623157e+308``, values the document does not hold -- or ``None``.
    Outside strings a JSON text holds no letters but ``true``, ``false``, ``null`` and exponents, so any such word
    there is one. The strings are blanked (a regex pass) only when a candidate stands as a value would -- after
    ``:``, ``[``, ``,`` or the start, blanks and a sign between, and no letter, digit or ``_`` after it:
    :func:`_candidate`, ``str.find`` over the lower-cased text ("information" and "financial" are no candidates);
    ``python bench/constant_scan.py``: 55-62 ms for the pass against 14-34 ms for the check over ~3 MB of API
    model."""
    if not _candidate(text.lower()):
        return None
    found = _CONSTANT.search(_STRING_TEXT.sub('""', text))
    return None if found is None else found.group(0)


def _candidate(low: str) -> bool:
    """Whether the lower-cased JSON text ``low`` holds ``nan`` or ``inf``/``infinity`` standing as a value would."""
    for word in ("nan", "inf"):
        at = low.find(word)
        while at >= 0:
            end = at + (8 if word == "inf" and low.startswith("infinity", at) else 3)
            if end == len(low) or not (low[end].isalnum() or low[end] == "_"):
                before = at - 1
                if before >= 0 and low[before] in "+-":
                    before -= 1
                while before >= 0 and low[before] in " \t\r\n":
                    before -= 1
                if before < 0 or low[before] in ":[,":
                    return True
            at = low.find(word, at + 1)
    return False


def load_exact(text: str) -> tuple[Any, str | None]:
    """``(value, None)``: ``json.loads(text)`` whose numbers are each the number the text writes (``-0`` read as
    ``-0.0``); or ``(approximate value, literal)`` with the first number literal the value cannot hold exactly, else
    the first of :data:`PYTHON_CONSTANTS` (``NaN``: read as ``float("nan")``, which no strict JSON writes back), or
    else the first lone surrogate escape (:func:`lone_surrogate`: the value holds a character no UTF-8 carries).

    Raises:
        ValueError: the text is not JSON (a NaN or infinity spelled other than Python's ``json`` writes it
            included). RecursionError: nested deeper than the parser goes.
    """
    constants: list[str] = []
    with CollectorPaused():  # (a JSON value is a tree: nothing for the collector to find while it is built)
        if not _suspect(text):
            value, inexact = json.loads(text, parse_constant=lambda name: _noted(name, constants)), None
        else:
            hooks = _Hooks()
            value = json.loads(text, parse_int=hooks.integer, parse_float=hooks.real,
                               parse_constant=lambda name: _noted(name, constants))
            inexact = hooks.inexact
    return value, inexact or (constants[0] if constants else None) or (
        lone_surrogate(text) if "\\u" in text else None)


def _noted(name: str, constants: list[str]) -> float:
    """A ``parse_constant`` hook: the float ``name`` writes, ``name`` noted in ``constants`` (the first kept)."""
    if not constants:
        constants.append(name)
    return float(name)


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate escape (``\\ud800``: valid JSON text, but no UTF-8 text carries the character it
    writes) of the JSON ``text``, or ``None``."""
    return next(("\\u" + found.group(1) for found in _escapes(_ESCAPE, _HINT, text, "\\") if found.group(1)), None)


def _escapes(full: re.Pattern, hint: re.Pattern, text: Any, backslash: Any) -> Iterator[re.Match]:
    """``full``'s matches in ``text`` (a str or bytes), searched from the first ``hint`` (none: none), backed off
    over the backslashes before it (the full pattern decides which of them escape what)."""
    found = hint.search(text)
    if found is None:
        return iter(())
    start = found.start()
    while start and text[start - 1 : start] == backslash:
        start -= 1
    return full.finditer(text, start)


def replace_lone_surrogates(text: str) -> tuple[str, str | None]:
    """``(text, first)``: the JSON ``text`` with each lone surrogate escape written as ``\\ufffd`` (U+FFFD, the
    replacement character), and the first one replaced (``None``: none, the text unchanged)."""
    first = lone_surrogate(text)
    if first is None:
        return text, None
    return _ESCAPE.sub(lambda found: found.group(0)[:-6] + "\\ufffd" if found.group(1) else found.group(0), text), first


def surrogate_note(escape: str, where: str, jq: bool) -> str:
    """The note of a page whose ``where`` (e.g. ``"the document"``) holds the lone surrogate escape ``escape``:
    given to jq as U+FFFD (``jq``), or the value holding it given as its JSON text."""
    how = "jq reads each such escape as U+FFFD (\\ufffd)" if jq else "a value holding it is given as its JSON text"
    return f"{where} holds a lone surrogate escape ({escape}), which no UTF-8 text can carry: {how}"


class LoneSurrogateScan:
    """Finds the first lone surrogate escape of a JSON document fed in pieces (bytes, in order)."""

    def __init__(self) -> None:
        self.carry = b""
        self.at = 0  # the byte offset of ``carry``

    def feed(self, data: bytes, final: bool = False) -> int | None:
        """The byte offset of the first lone surrogate escape of what was fed so far (``final``: all of it; else an
        escape near the end, which the next piece may pair or complete, is kept for it), or ``None``."""
        buf = self.carry + data
        last = 0
        for found in _escapes(_ESCAPE_BYTES, _HINT_BYTES, buf, b"\\"):
            if found.group(1) and not final and found.end() + 6 > len(buf):
                self.carry, self.at = buf[found.start():], self.at + found.start()  # its pair may follow
                return None
            if found.group(1):
                return self.at + found.end() - 6
            last = found.end()
        start = len(buf) if final else max(last, len(buf) - 6)
        while start > last and buf[start - 1] == 0x5C:  # from the start of a run of backslashes: an escape's start
            start -= 1
        self.carry, self.at = buf[start:], self.at + start
        return None


def imprecise_number(text: str) -> str | None:
    """The first number of the JSON ``text`` (one document or several) that a double cannot hold exactly -- what jq
    rounds when it computes with it -- cut to 40 characters, or ``None``. A number-looking run inside a string (a
    commit subject "no NaN, inf, 1e400, ..." slurped from a TSV, a key ``"1e400"``) is no number: the strings are
    blanked (a regex pass, as :func:`non_json_constant` does) only when such a run stands anywhere in ``text``, so
    a text holding none is scanned once at C speed."""
    if _first_imprecise(text) is None:
        return None
    return _first_imprecise(_STRING_TEXT.sub('""', text))  # (a string's number-looking runs are text)


def _first_imprecise(text: str) -> str | None:
    """The first run of number characters in ``text`` that is a number a double cannot hold (cut to 40 characters),
    strings or not, or ``None``."""
    pos = 0
    while True:
        found = _SUSPECT.search(text, pos)  # only where such a number can be: a scan of the digits' runs
        if found is None:
            return None
        start, end = found.start(), found.end()
        while start > 0 and text[start - 1] in _NUMBER_CHARS:
            start -= 1
        while end < len(text) and text[end] in _NUMBER_CHARS:
            end += 1
        pos = end
        literal = text[start:end]
        if _NUMBER.fullmatch(literal) and literal != "-0" and _imprecise(literal):
            return literal[:_EXAMPLE_CHARS] + ("…" if len(literal) > _EXAMPLE_CHARS else "")


def _imprecise(literal: str) -> bool:
    """True when a double cannot hold the number ``literal`` exactly."""
    if "." in literal or "e" in literal or "E" in literal:
        return not exact_float(float(literal), literal)
    if len(literal) > 400:  # past a double's range
        return True
    return int(literal) != int(float(literal)) if math.isfinite(float(literal)) else True


def numbers_note(example: str) -> str:
    """The note of a page whose document holds a number a double cannot hold (``example``, its literal)."""
    return f"the document holds numbers a double cannot hold (e.g. {example}): jq rounds them where it computes"


def dump_decimal(value: Any) -> str:
    """The compact JSON text of ``value`` (dicts, lists, str, int, bool, None, ``Decimal``), every ``Decimal``
    written as its digits are (``str``). Raises RecursionError for a value nested deeper than the recursion limit."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_compact(key)}:{dump_decimal(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump_decimal(item) for item in value) + "]"
    return _compact(value)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
