"""Case-blind patterns beyond ASCII: a pattern rewritten so that, where ``re.IGNORECASE`` is in force
(``ignore_case``, ``(?i)``, ``(?i:...)``), each character with case variants outside ASCII matches the UTF-8 bytes of
every one of them (:mod:`scratchfs.engine.case_variants`), as Python's ``re`` does over the decoded text -- the
engine runs bytes patterns, whose ``re.IGNORECASE`` folds ASCII letters only (``(?i)école`` found no ``ÉCOLE``).

What is rewritten, under ``re.IGNORECASE`` and not ``re.ASCII``: a literal character (``é``, ``\\é``, and ``i`` ``k``
``s``, whose variants ``İ ı K ſ`` lie outside ASCII) becomes a group of its variants' bytes (``(?:\\xc3[\\x89\\xa9])``),
so a repeat after it repeats the character (in a lookbehind, which keeps a fixed width, the variants of as many
bytes only: ``k`` without ``K``); a class holding such characters (``[é-ü]``) becomes its ASCII part or those
characters (not in a lookbehind); a negated one (``[^é]``), one character (one to four bytes of UTF-8) that is none
of them. All else is left as written: ``.``, ``\\w``, ``\\xHH`` and the like match bytes, as before. The rewrite
is checked by parsing it again (its groups must be the pattern's).
"""

from __future__ import annotations

import re

from scratchfs.engine.case_variants import alternation, cased_within, utf8_ranges, variants
from scratchfs.engine.pattern_syntax import MAX_PATTERN_BYTES, class_end, parse
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.text import shorten

__all__ = ["CASE_FORMS_BYTES", "UTF8_CHAR", "unicase_pattern"]

CASE_FORMS_BYTES = 48
"""Longest a character is written with its case variants (``(?:\\xd0\\xa2|\\xd1\\x82|\\xe1\\xb2[\\x84-\\x85])`` for
``Т``: 41), in bytes: what a pattern of a needle grows by a character, at most (``tests/test_unicase_search.py``
checks every character)."""

UTF8_CHAR = ("(?:[\\x00-\\x7f]|[\\xc2-\\xdf][\\x80-\\xbf]|[\\xe0-\\xef][\\x80-\\xbf]{2}|[\\xf0-\\xf4][\\x80-\\xbf]{3}"
             "|[\\xc0-\\xff])")
"""One character of UTF-8 (a byte that starts no valid sequence, by itself; a lone continuation byte, never)."""
_FLAGS = re.compile(r"\(\?([aiLmsux]*)(?:-([imsx]+))?([:)])")
_OPENER = re.compile(r"\(\?(?:<=|<!|P<\w+>|<\w+>|P=\w+\)|\(\w+\)|[:=!>])?")
_CONTROLS = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_BLIND = re.compile(r"\(\?[a-zA-Z]*i")  # (?i) or (?i:...): a case-blind part (parse refuses other letters)


def unicase_pattern(pattern: str, ignore_case: bool) -> str:
    """``pattern`` with each case-blind character written as all its variants (see the module docstring); the
    pattern itself when nothing needs it (``ignore_case`` off and no ``(?i``, or no character with variants beyond
    ASCII in it).

    Raises:
        InvalidArgument: from :func:`~scratchfs.engine.pattern_syntax.parse` (``pattern`` does not parse); the
            rewrite longer than :data:`~scratchfs.engine.pattern_syntax.MAX_PATTERN_BYTES`; a class range from an
            escape to a non-ASCII character.
    """
    if not isinstance(pattern, str) or (not ignore_case and _BLIND.search(pattern) is None):
        return pattern
    tree = parse(pattern, ignore_case)
    if pattern.isascii() and not any(not v.isascii() for c in set(pattern) for v in variants(c)):
        return pattern
    written = _Rewrite(pattern, ignore_case).text()
    if written == pattern:
        return pattern
    size = len(written.encode("utf-8"))
    if size > MAX_PATTERN_BYTES:
        raise InvalidArgument(
            f"pattern {shorten(pattern, 200)} is {size} bytes once each case-blind character is written as all its "
            f"case variants' bytes (é as é or É, i as i, I, İ or ı), more than the limit of {MAX_PATTERN_BYTES}: "
            "search a shorter part of it, or without ignore_case with the cases written out ([éÉ]cole)")
    again = parse(written, ignore_case)
    if again.state.groups != tree.state.groups:  # pragma: no cover - the rewrite adds non-capturing groups only
        raise InvalidArgument(f"pattern {shorten(pattern, 200)} cannot be made case-blind beyond ASCII; search it "
                              "without ignore_case, its cases written out ([éÉ]cole)")
    return written


class _Rewrite:
    """One scan of a pattern's text: groups (their flags), classes, escapes and verbose-mode comments followed."""

    def __init__(self, pattern: str, ignore_case: bool) -> None:
        self.pattern = pattern
        self.out: list[str] = []
        self.state = (ignore_case, False, False)  # (IGNORECASE, VERBOSE, ASCII) in force
        self.stack: list[tuple[bool, bool, bool]] = []
        self.behind: list[bool] = []  # (per open group: a lookbehind, which must keep a fixed width)

    def text(self) -> str:
        pattern, i = self.pattern, 0
        while i < len(pattern):
            i = self.step(i)
        return "".join(self.out)

    def step(self, i: int) -> int:
        pattern, (blind, verbose, ascii_only) = self.pattern, self.state
        char = pattern[i]
        if verbose and char == "#":
            end = pattern.find("\n", i)
            end = len(pattern) if end < 0 else end
            self.out.append(pattern[i:end])
            return end
        if char == "\\":
            escaped = pattern[i + 1 : i + 2]
            if escaped and not escaped.isascii():
                self.out.append(self.literal(escaped, pattern[i + 2 : i + 3]))
                return i + 2
            self.out.append(pattern[i : i + 2])
            return i + 2
        if char == "(":
            return self.group(i)
        if char == ")":
            self.state = self.stack.pop() if self.stack else self.state
            self.behind = self.behind[:-1]
            self.out.append(char)
            return i + 1
        if char == "[":
            end = class_end(pattern, i)
            whole = blind and not ascii_only and not any(self.behind)  # (a lookbehind's class: bytes, as before)
            self.out.append(_class(pattern[i:end]) if whole else pattern[i:end])
            return end
        if verbose and char.isspace():
            self.out.append(char)
            return i + 1
        self.out.append(self.literal(char, pattern[i + 1 : i + 2]))
        return i + 1

    def literal(self, char: str, after: str) -> str:
        blind, _verbose, ascii_only = self.state
        if not blind or ascii_only:
            return char
        forms = variants(char)
        if any(self.behind):  # (a fixed width: the variants of as many bytes, so K not for k)
            forms = tuple(form for form in forms if len(form.encode()) == len(char.encode()))
        if all(form.isascii() for form in forms):  # (a repeat after a character of many bytes repeats all of them)
            return char if char.isascii() or not after or after not in "*+?{" else "(?:" + char + ")"
        return _choice(forms)

    def group(self, i: int) -> int:
        """A group's opening at ``pattern[i] == "("``, copied; its flags taken on (``(?i)``, ``(?-i:``)."""
        pattern = self.pattern
        flags = _FLAGS.match(pattern, i)
        if flags is not None:
            blind, verbose, ascii_only = self.state
            on, off = flags.group(1), flags.group(2) or ""
            state = ("i" in on or blind) and "i" not in off, ("x" in on or verbose) and "x" not in off, \
                "a" in on or ascii_only
            if flags.group(3) == ")":
                self.state = state
            else:
                self.stack.append(self.state)
                self.behind.append(False)
                self.state = state
            self.out.append(flags.group(0))
            return flags.end()
        if pattern.startswith("(?#", i):
            end = pattern.find(")", i) + 1 or len(pattern)
            self.out.append(pattern[i:end])
            return end
        opener = _OPENER.match(pattern, i)
        text = opener.group(0) if opener is not None else "("
        if not text.startswith("(?P="):
            self.stack.append(self.state)
            self.behind.append(text in ("(?<=", "(?<!"))
        self.out.append(text)
        return i + len(text)


def _choice(forms: tuple[str, ...] | set[str]) -> str:
    """One of ``forms`` (characters): its ASCII ones as themselves (folded by the flag), the others' UTF-8 bytes."""
    ascii_forms = tuple(sorted({re.escape(form.lower()) for form in forms if form.isascii()}))
    return alternation({form for form in forms if not form.isascii()}, more=ascii_forms)


def _class(text: str) -> str:
    """A case-blind class (``[...]``, as written) rewritten: ``(?:[ASCII part]|other characters)``, or for a negated
    one, one UTF-8 character that is neither; as written when it holds no character with a non-ASCII variant.
    Raises InvalidArgument for a range from an escape to a non-ASCII character."""
    body = text[1:-1]
    negated = body.startswith("^")
    kept, ranges = _items(text, _units(body[1:] if negated else body))
    within = [char for low, high in ranges for char in cased_within(low, high)]
    inside = lambda char: any(low <= ord(char) <= high for low, high in ranges)  # noqa: E731
    forms = {form for char in within for form in variants(char) if not inside(form)}
    wide = [(max(low, 0x80), high) for low, high in ranges if high >= 0x80]
    if not wide and all(form.isascii() for form in forms):
        return text
    kept += [f"\\x{low:02x}-\\x{min(high, 0x7F):02x}" for low, high in ranges if low < 0x80]
    kept += sorted({re.escape(form.lower()) for form in forms if form.isascii() and not inside(form.swapcase())})
    runs = tuple("".join(f"\\x{a:02x}" if a == b else f"[\\x{a:02x}-\\x{b:02x}]" for a, b in seq)
                 for low, high in wide for seq in utf8_ranges(low, high))
    ways = (["[" + "".join(kept) + "]"] if kept else []) + [alternation({f for f in forms if not f.isascii()},
                                                                        more=runs)]
    if negated:
        return "(?:(?!" + "|".join(ways) + ")" + UTF8_CHAR + ")"
    return "(?:" + "|".join(ways) + ")"


def _items(text: str, units: list[str]) -> tuple[list[str], list[tuple[int, int]]]:
    """A class's units (:func:`_units`) as ``(escapes as written, code point ranges of its characters)``."""
    kept: list[str] = []
    ranges: list[tuple[int, int]] = []
    k = 0
    while k < len(units):
        low = high = units[k]
        k += 1
        if k + 1 < len(units) and units[k] == "-":
            high = units[k + 1]
            k += 2
        if len(low) != len(high) and not (low + high).isascii():
            low, high = _character(low), _character(high)  # (an escape of one ASCII character, to a non-ASCII one)
        if len(low) == 1 and len(high) == 1:
            ranges.append((ord(low), ord(high)))
        elif (len(low) == 1 and not low.isascii()) or (len(high) == 1 and not high.isascii()):
            raise InvalidArgument(f"the class {shorten(text, 100)} has a range from an escape to a non-ASCII "
                                  "character: write both ends as characters, or search without ignore_case")
        else:
            kept.append(_escaped(low) if low is high else _escaped(low) + "-" + _escaped(high))
    return kept, ranges


def _character(unit: str) -> str:
    """The ASCII character a class unit (:func:`_units`) stands for -- ``\\n``, ``\\x41``, ``\\101``, ``\\-`` --
    or the unit itself (a character; a category or a byte beyond ASCII, which names no character)."""
    if len(unit) < 2:
        return unit
    escaped = unit[1:]
    if escaped in _CONTROLS:
        return _CONTROLS[escaped]
    if re.fullmatch(r"x[0-7][0-9a-fA-F]|[0-1]?[0-7]{1,2}", escaped):
        return chr(int(escaped[1:], 16) if escaped[0] == "x" else int(escaped, 8))
    return escaped if len(escaped) == 1 and not escaped.isalnum() and escaped.isascii() else unit


def _escaped(unit: str) -> str:
    return re.escape(unit) if len(unit) == 1 else unit


def _units(body: str) -> list[str]:
    """A class's items in order: one character, an escape as written (``\\x41``, ``\\101``, ``\\w``; ``\\é``: the
    character), or ``"-"`` between two (a range)."""
    units: list[str] = []
    i = 0
    while i < len(body):
        if body[i] != "\\":
            units.append(body[i])
            i += 1
            continue
        escaped = body[i + 1 : i + 2]
        if escaped == "x":
            end = i + 4
        elif escaped.isdigit():
            end = i + 2
            while end < min(len(body), i + 4) and body[end] in "01234567":
                end += 1
        else:
            end = i + 2
        units.append(escaped if escaped and not escaped.isascii() else body[i:end])
        i = end
    return units
