"""Pattern syntax: the one parse of a pattern, its bounds and refusals, and the core syntax written from it.

A pattern is parsed once, by the parser behind Python's ``re`` (``pattern=`` is documented as Python ``re`` syntax
over bytes). :func:`parse` checks the text (length, UTF-8) and refuses what ``re`` and the engine (``regex``) read
differently or ``re`` itself warns about: class syntax (a ``[`` at the start of a class or before ``:=.``, as in
``[[:alpha:]]``, a POSIX class to ``regex`` but five bytes and a ``]`` to ``re``; a doubled ``-&~|`` inside a class,
set operations to ``regex``), non-ASCII group names, global flags after the start, locale-dependent ``(?L)``.

:func:`write_core` writes the parsed tree back out in a small core syntax that ``regex`` compiles -- every byte
class (``[...]``, ``\\d``, ``.``, a literal under ``ignore_case``) as explicit ``\\xHH`` ranges of the bytes ``re``
matches there, every group named ``gN``, ``^``/``$`` as ``re`` reads them under the flags in force -- so the engine
runs exactly the tree the analysis (:mod:`scratchfs.engine.patterns`) reads, and gathers what that analysis needs
(can a match span a line end; how far past a match the engine looks). It also bounds the program: ``regex`` unrolls
counted repeats (``a{1000000}`` took 270 MB and ``((a{100}){100}){100}`` 1.9 s to compile here, while
``a{1,1000000}`` takes nothing), so a counted repeat is at most :data:`MAX_REPEAT_COUNT`, the program size -- each
item weighted by the product of the minimum counts of the repeats around it -- at most :data:`MAX_PROGRAM_SIZE`,
and groups nest at most :data:`MAX_NESTING` deep.
"""

from __future__ import annotations

import re

from scratchfs.engine.pattern_advice import POSIX_CLASS, POSIX_REWRITE, unparsed
from scratchfs.foundation.errors import BadPattern, InvalidArgument
from scratchfs.foundation.text import shorten

try:  # the parser behind `re`: the one parser of the pattern syntax
    from re import _parser as _sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

__all__ = [
    "MAXREPEAT",
    "MAX_NESTING",
    "MAX_PATTERN_BYTES",
    "MAX_PROGRAM_SIZE",
    "MAX_REPEAT_COUNT",
    "REPEATS",
    "CoreWriter",
    "SubPattern",
    "captured",
    "class_end",
    "class_members",
    "class_syntax",
    "op_name",
    "parse",
    "sub_sequences",
    "write_core",
]

MAX_PATTERN_BYTES = 16 * 1024
"""Longest pattern, in bytes of its UTF-8 text (room for an escaped ``match`` of the longest needle)."""
MAX_REPEAT_COUNT = 65_535
"""Largest count in a counted repeat (``{m}``, ``{m,n}``)."""
MAX_PROGRAM_SIZE = 20_000
"""Largest program: items (a byte, a class, an anchor, a group, a backreference) each weighted by the product of
the minimum counts of the repeats around it (``a{19999}`` is about the largest single repeat: a few MB and 0.01 s
to compile; compiled patterns are not cached, so none of that outlives the search)."""
MAX_STRING_BYTES = 64
"""Longest run of single bytes written as one literal string. ``regex`` joins consecutive literal bytes into one
string and, the first time a compiled pattern is used, builds a search table for it in time that grows with about
the cube of its length and does not honour the call's ``timeout`` (``python bench/regex_literals.py``: 0.3 s for
1,024 identical bytes, 2.4 s for 2,048, 8× per doubling; a 4,096-byte case-blind ``match`` took 39 s). A longer run
is broken every this many bytes by a lookahead of the next byte, which ``regex`` does not join (0.1 ms there)."""
MAX_NESTING = 100
"""Deepest nesting of groups, repeats and lookarounds."""
MAXREPEAT = _sre_parse.MAXREPEAT
"""The parser's mark of an unbounded repeat or width."""
SubPattern = _sre_parse.SubPattern
"""The parser's type of a parsed sequence (what :func:`parse` returns, and each group's, branch's or repeat's body)."""
_ALL = frozenset(range(256))
_NEWLINE = 10
_DIGIT = frozenset(range(0x30, 0x3A))
_SPACE = frozenset(b" \t\n\r\f\v")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_CATEGORIES = {"CATEGORY_DIGIT": _DIGIT, "CATEGORY_NOT_DIGIT": _ALL - _DIGIT, "CATEGORY_SPACE": _SPACE,
               "CATEGORY_NOT_SPACE": _ALL - _SPACE, "CATEGORY_WORD": _WORD, "CATEGORY_NOT_WORD": _ALL - _WORD}
_LOWER = bytes(range(256)).lower()  # ASCII case folding: what `re` does to bytes under IGNORECASE
_CASES = [frozenset(c for c in range(256) if _LOWER[c] == _LOWER[value]) for value in range(256)]
_PLAIN = frozenset(_WORD)  # bytes written as themselves in the core syntax; the rest as \xHH
_GROUP_NAMES = re.compile(r"\(\?(?:P?<(?![=!])([^>]*)>|P=([^)]*)\)|\(([^)]*)\))")


def parse(pattern: object, ignore_case: bool):
    """Parse ``pattern`` as Python ``re`` syntax over its UTF-8 bytes with ``re.MULTILINE`` (and ASCII
    ``re.IGNORECASE``).

    Returns:
        the parser's tree (``re._parser.SubPattern``; ``tree.state.flags`` holds the global flags).

    Raises:
        InvalidArgument: not text, empty, not UTF-8, longer than :data:`MAX_PATTERN_BYTES`, does not parse, or
            syntax refused (see the module docstring).
    """
    source = _source(pattern)
    _refuse_ambiguous(pattern)  # type: ignore[arg-type]
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
    try:
        return _sre_parse.parse(source, flags)
    except re.error as exc:
        raise unparsed(exc, source, flags) from None
    except RecursionError:  # groups opened thousands deep (balanced or not): the parser recurses per group
        raise InvalidArgument(f"pattern nests groups more than {MAX_NESTING} deep") from None
    except (OverflowError, ValueError, MemoryError) as exc:
        raise InvalidArgument(f"pattern is too complex: {exc}") from None


def write_core(tree, reach: int) -> tuple[bytes, bool, int | None]:
    """The core syntax of a parsed pattern for ``regex`` (compile it with ``VERSION0 | MULTILINE``), and what the
    analysis needs.

    Returns:
        ``(core, crosses_lines, lookahead)``: ``crosses_lines`` -- some part (lookarounds included) can match or
        look at a ``\\n`` outside its own line; ``lookahead`` -- bytes past a match the engine may look at, ``None``
        if unbounded.

    Raises:
        InvalidArgument: beyond a bound (:data:`MAX_REPEAT_COUNT`, :data:`MAX_PROGRAM_SIZE`, :data:`MAX_NESTING`), a
            lookbehind of variable width (as ``re`` refuses) or longer than ``reach`` bytes, a construct this
            writer does not know, or a repeat the engine decides otherwise than ``re`` (see
            :func:`_refuse_empty_iterations`).
    """
    try:
        _refuse_empty_iterations(tree)
        return CoreWriter(reach).seq(tree, tree.state.flags, 0, 1)
    except (RecursionError, MemoryError) as exc:
        raise InvalidArgument(f"pattern is too complex: {type(exc).__name__}") from None


def _refuse_empty_iterations(tree) -> None:
    """Refuse a repeat with optional iterations (``*``, ``+``, ``?``, ``{m,n}``: more than its least count) whose body
    can match empty text and captures a group that a backreference or conditional names (``(a?^()|a)*\\2``), unless
    both engines decide it alike (:func:`_iterated_alike`): ``re`` ends such a repeat at its first optional iteration
    that matched empty text, while ``regex`` may go on after it with more iterations -- the empty one's group then
    set for them, or for what follows -- so the engine finds matches ``re.finditer`` does not (``(a?^()|a)*\\2``
    over ``"a\\na"`` repeated: none in ``re``, one at every line in ``regex``); more empty iterations of a body
    with two ways to match empty text reach groups ``re`` never sets together (``(?:()|())*(?(1)(?(2)a|b)|b)`` over
    ``"a"``); a lazy optional iteration of such a body is not tried by ``regex`` where ``re`` tries it
    (``()??((?(1)b\\1|))?|a`` over ``"b"``: ``(0, 1)`` in ``re``, none in ``regex``). Any other repeat is decided
    alike by both: an empty iteration changes nothing but its groups.

    Raises:
        InvalidArgument: naming the group and how to write the pattern so that it is searched.
    """
    named: set[int] = set()
    repeats: list = []

    def walk(items) -> None:
        for op, av in items:
            name = op_name(op)
            if name == "GROUPREF":
                named.add(av)
            elif name == "GROUPREF_EXISTS":
                named.add(av[0])
            elif name in REPEATS and av[1] > av[0] and av[2].getwidth()[0] == 0 and not _iterated_alike(name, av[2]):
                repeats.append(av[2])
            for sub in sub_sequences(name, av):
                walk(sub)

    walk(tree)
    caught = sorted(named & set().union(*map(captured, repeats))) if named else []
    if caught:
        group = caught[0]
        raise InvalidArgument(
            f"pattern repeats a part that can match empty text and captures group {group} there, which a "
            f"backreference or conditional names (as (a?^()|a)*\\2): Python's re ends such a repeat at its first "
            "empty iteration and the search engine does not, so it cannot be searched exactly. Write the repeated "
            "part so that it cannot match empty text (a+ rather than a*, (x|y) rather than (x|y|)), or capture "
            f"group {group} outside the repeat")


def _iterated_alike(name: str, body) -> bool:
    """Whether ``re`` and ``regex`` decide a repeat (``name``: its kind, ``body``: its parsed body) alike however
    many empty iterations each runs: a greedy repeat of a body that matches empty text only, in one way (no
    alternation, conditional, backreference or optional repeat in it, lookarounds included), as ``()*``, ``(^)*``,
    ``((?=(a)))*``: every iteration captures the same groups at the same place, so one iteration or many leave the
    same groups (``re`` and ``regex`` agree on ``()*(?(1)a|b)``, and on zero iterations when what follows fails)."""
    return name == "MAX_REPEAT" and body.getwidth()[1] == 0 and _one_way(body)


def _one_way(items) -> bool:
    """Whether a parsed sequence matches in one way only: no alternation, conditional, backreference or repeat with
    optional iterations anywhere in it (lookarounds and groups included)."""
    for op, av in items:
        name = op_name(op)
        if name in ("BRANCH", "GROUPREF", "GROUPREF_EXISTS") or (name in REPEATS and av[1] > av[0]):
            return False
        if not all(_one_way(sub) for sub in sub_sequences(name, av)):
            return False
    return True


def captured(items) -> set[int]:
    """The numbers of the groups captured in a parsed sequence (lookarounds and nested repeats included)."""
    found: set[int] = set()
    for op, av in items:
        name = op_name(op)
        if name == "SUBPATTERN" and av[0] is not None:
            found.add(av[0])
        found.update(*map(captured, sub_sequences(name, av)))
    return found


def sub_sequences(name: str, av) -> list:
    """The parsed sequences directly inside one item of a parsed pattern (``name``: :func:`op_name` of its op,
    ``av``: its argument; ``re._parser``'s shapes): a group's, a lookaround's or a repeat's body, each branch of an
    alternation, both arms of a conditional; none for the others."""
    if name in ("SUBPATTERN", "ASSERT", "ASSERT_NOT") or name in REPEATS:
        return [av[-1]]
    if name == "ATOMIC_GROUP":
        return [av]
    if name == "BRANCH":
        return list(av[1])
    if name == "GROUPREF_EXISTS":
        return [sub for sub in av[1:] if sub is not None]
    return []


def _source(pattern: object) -> bytes:
    if not isinstance(pattern, str):
        raise InvalidArgument(f"pattern must be text, not {type(pattern).__name__}")
    if not pattern:
        raise InvalidArgument("pattern must not be empty")
    try:
        source = pattern.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(f"pattern is not valid UTF-8 text: {shorten(pattern, 200)}") from None
    if len(source) > MAX_PATTERN_BYTES:
        raise InvalidArgument(f"pattern is {len(source)} bytes, longer than the limit of {MAX_PATTERN_BYTES}")
    return source


def _refuse_ambiguous(text: str) -> None:
    """Refuse what ``re`` and ``regex`` read differently or ``re`` warns about: class syntax (see the module
    docstring), non-ASCII group names, global flags after the start (Python 3.10 warns) and ``(?L)``.

    Raises:
        InvalidArgument: naming the construct and how to write it unambiguously.
    """
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == "[":
            i = class_end(text, i)
        else:
            i += 1
    for match in _GROUP_NAMES.finditer(text):
        if not "".join(part for part in match.groups() if part).isascii():
            raise InvalidArgument("pattern has a group name that is not ASCII; name groups with ASCII letters")
    for match in re.finditer(r"\(\?([aiLmsux]+)[):-]", text):
        if "L" in match.group(1):
            raise InvalidArgument("pattern uses (?L) (locale-dependent matching), which is not supported")
        if match.group(0).endswith(")") and match.start() > 0:
            raise InvalidArgument("global flags like (?i) must be at the start of the pattern")


def class_end(text: str, i: int) -> int:
    """The index after the class that opens at ``text[i] == "["`` (a pattern's text, scanned: ``\\`` escapes the
    character after it). Raises InvalidArgument (BadPattern for a nested set or POSIX class): class syntax ``re``
    and ``regex`` read differently (see the module docstring)."""
    j = i + 1
    if text.startswith("^", j):
        j += 1
    first = j
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "]" and j > first:
            return j + 1
        if c == "[" and (j == first or text[j + 1 : j + 2] in (":", "=", ".")):
            raise BadPattern(
                f"pattern has '[' inside a class at position {j} (a nested set or {POSIX_CLASS}, which Python's "
                "re does not support); escape it as \\[ or list the bytes, e.g. [a-zA-Z]", POSIX_REWRITE)
        if j > first and c in "-&~|" and text.startswith(c, j + 1):
            raise InvalidArgument(
                f"pattern has {c + c!r} inside a class at position {j} (set-operation syntax); escape one of "
                f"them as \\{c}")
        j += 1
    return j


def op_name(constant: object) -> str:
    """The name of an ``re`` parser constant (``LITERAL``, ``CATEGORY_SPACE``, ...)."""
    return getattr(constant, "name", str(constant))


def _byte(value: int) -> bytes:
    return bytes([value]) if value in _PLAIN else b"\\x%02x" % value


def _is_single_byte(text: bytes) -> bool:
    """Whether ``text`` is :func:`_byte`'s syntax for one byte."""
    return len(text) == 1 or (len(text) == 4 and text.startswith(b"\\x"))


def class_syntax(members: frozenset[int] | set[int]) -> bytes:
    """The core syntax for a set of bytes: one byte, ``[\\xHH-\\xHH...]``, or ``(?!)`` (matches nothing)."""
    if not members:
        return b"(?!)"
    if len(members) == 1:
        return _byte(next(iter(members)))
    out = bytearray(b"[")
    values = sorted(members)
    lo = prev = values[0]
    for value in [*values[1:], None]:
        if value is not None and value == prev + 1:
            prev = value
            continue
        out += _byte(lo) if lo == prev else _byte(lo) + b"-" + _byte(prev)
        if value is not None:
            lo = prev = value
    return bytes(out + b"]")


def _fold(members: set[int] | frozenset[int]) -> set[int]:
    """The bytes ``re`` matches under IGNORECASE for a class of ``members``: those whose ASCII lower case is the
    lower case of a member (categories are closed under case already)."""
    folded: set[int] = set()
    for value in members:
        folded |= _CASES[value]
    return folded


def class_members(name: str, av, flags: int) -> set[int] | frozenset[int]:
    """The bytes one class-like item (LITERAL, NOT_LITERAL, ANY, IN) matches under ``flags``, as ``re`` does."""
    ignore = bool(flags & re.IGNORECASE)
    if name == "ANY":
        return _ALL if flags & re.DOTALL else _ALL - {_NEWLINE}
    if name in ("LITERAL", "NOT_LITERAL"):
        members = _fold({av}) if ignore else {av}
        return members if name == "LITERAL" else _ALL - members
    negate = False
    members: set[int] = set()
    for op, value in av:
        item = op_name(op)
        if item == "NEGATE":
            negate = True
        elif item == "LITERAL":
            members.add(value)
        elif item == "RANGE":
            members.update(range(value[0], value[1] + 1))
        elif item == "CATEGORY" and op_name(value) in _CATEGORIES:
            members |= _CATEGORIES[op_name(value)]
        else:
            raise InvalidArgument(f"pattern uses a class item that is not supported: {item} {op_name(value)}")
    if ignore:
        members = _fold(members)
    return _ALL - members if negate else members


_ANCHORS = {  # name -> (core syntax, crosses lines, bytes looked at past the match), as read under MULTILINE
    "AT_BEGINNING": (b"^", False, 0),
    "AT_BEGINNING_STRING": (b"\\A", False, 0),
    "AT_END": (b"$", False, 1),
    "AT_END_STRING": (b"\\Z", True, 1),
    "AT_BOUNDARY": (b"\\b", False, 1),
    "AT_NON_BOUNDARY": (b"\\B", False, 1),
}
_SINGLE_LINE_ANCHORS = {  # ^ and $ without MULTILINE (in a (?-m:...) group): the start and end of the content
    "AT_BEGINNING": (b"\\A", False, 0),
    "AT_END": (b"(?=\\n?\\Z)", True, 2),
}
REPEATS = {"MAX_REPEAT": b"", "MIN_REPEAT": b"?", "POSSESSIVE_REPEAT": b"+"}
_LOOSE_REF = b"(?:%s|)"  # a backreference as a finder writes it (CoreWriter's loose): what its group holds, or empty
# text (scratchfs.engine.pattern_finder reads it back)


class CoreWriter:
    """One walk over the parse tree: writes the core syntax for ``regex`` and gathers the analysis.

    Each method returns ``(core syntax, crosses lines, bytes looked at beyond the match or None if unbounded)``;
    each raises InvalidArgument (beyond a bound, a construct it does not know).

    Args:
        reach: the longest lookbehind accepted, in bytes.
        loose: write a finder's syntax (:mod:`scratchfs.engine.pattern_finder`): a backreference as what its group
            holds or empty text, a conditional as either arm ...
        solid: ... but those naming these groups as written.
    """

    def __init__(self, reach: int, loose: bool = False, solid: frozenset[int] = frozenset()) -> None:
        self.reach = reach
        self.size = 0
        self.loose, self.solid = loose, solid

    def seq(self, tree, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        if depth > MAX_NESTING:
            raise InvalidArgument(f"pattern nests groups more than {MAX_NESTING} deep")
        parts: list[bytes] = []
        crosses = False
        lookahead: int | None = 0
        run = 0  # single bytes written one after another (``regex`` joins them into one string)
        for op, av in tree:
            text, item_crosses, item_lookahead = self.item(op_name(op), av, flags, depth, weight)
            run = run + 1 if _is_single_byte(text) else 0
            if run > MAX_STRING_BYTES:  # break the string: (?=X)X matches what X matches, and regex keeps them apart
                parts.append(b"(?=" + text + b")")
                run = 1
            parts.append(text)
            crosses = crosses or item_crosses
            lookahead = None if lookahead is None or item_lookahead is None else lookahead + item_lookahead
        return b"".join(parts), crosses, lookahead

    def item(self, name: str, av, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        self.size += weight
        if self.size > MAX_PROGRAM_SIZE:
            raise InvalidArgument(
                f"pattern is too large: more than {MAX_PROGRAM_SIZE} items once its counted repeats are unrolled")
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            members = class_members(name, av, flags)
            return class_syntax(members), _NEWLINE in members, 0
        if name == "AT" and op_name(av) in _ANCHORS:
            if not flags & re.MULTILINE and op_name(av) in _SINGLE_LINE_ANCHORS:
                return _SINGLE_LINE_ANCHORS[op_name(av)]
            return _ANCHORS[op_name(av)]
        if name == "BRANCH":
            results = [self.seq(sub, flags, depth + 1, weight) for sub in av[1]]
            return b"(?:" + b"|".join(r[0] for r in results) + b")", *_combine(results)
        if name == "SUBPATTERN":
            return self.group(av, flags, depth, weight)
        if name in REPEATS:
            return self.repeat(name, av, flags, depth, weight)
        if name in ("ASSERT", "ASSERT_NOT"):
            return self.lookaround(name, av, flags, depth, weight)
        if name == "ATOMIC_GROUP":
            text, crosses, lookahead = self.seq(av, flags, depth + 1, weight)
            return b"(?>" + text + b")", crosses, lookahead
        if name == "GROUPREF":
            ref = b"(?P=g%d)" % av
            ref = b"(?i:" + ref + b")" if flags & re.IGNORECASE else ref
            return (_LOOSE_REF % ref if self.loose and av not in self.solid else ref), True, 0
        if name == "GROUPREF_EXISTS":
            results = [self.seq(sub, flags, depth + 1, weight) for sub in av[1:] if sub is not None]
            if self.loose and av[0] not in self.solid:  # either arm (an arm left out matches empty text)
                return b"(?:" + b"|".join([r[0] for r in results] + [b""] * (av[2] is None)) + b")", *_combine(results)
            text = b"(?(g%d)" % av[0] + b"|".join(r[0] for r in results) + b")"
            return text, *_combine(results)
        raise InvalidArgument(f"pattern uses a construct that is not supported: {name}")

    def group(self, av, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        group, add, remove, sub = av[0], av[1], av[2], av[-1]
        if add & re.LOCALE:  # pragma: no cover - refused before parsing
            raise InvalidArgument("pattern uses (?L) (locale-dependent matching), which is not supported")
        text, crosses, lookahead = self.seq(sub, (flags | add) & ~remove, depth + 1, weight)
        opening = b"(?:" if group is None else b"(?P<g%d>" % group
        return opening + text + b")", crosses, lookahead

    def repeat(self, name: str, av, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        low, high, sub = av
        for count in (low, high):
            if count != MAXREPEAT and count > MAX_REPEAT_COUNT:
                raise InvalidArgument(f"pattern has a repeat count of {count}, more than {MAX_REPEAT_COUNT}")
        text, crosses, lookahead = self.seq(sub, flags, depth + 1, weight * max(low, 1))
        upper = b"" if high == MAXREPEAT else b"%d" % high
        quantifier = b"{%d}" % low if low == high else b"{%d,%s}" % (low, upper)
        return b"(?:" + text + b")" + quantifier + REPEATS[name], crosses, lookahead

    def lookaround(self, name: str, av, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        direction, sub = av
        narrowest, width = sub.getwidth()
        if direction < 0 and narrowest != width:  # as re's compiler checks (regex would accept it)
            raise InvalidArgument("pattern does not compile: look-behind requires fixed-width pattern")
        if direction < 0 and width > self.reach:
            raise InvalidArgument(f"the pattern has a lookbehind longer than {self.reach} bytes")
        text, crosses, lookahead = self.seq(sub, flags, depth + 1, weight)
        opening = {(1, "ASSERT"): b"(?=", (1, "ASSERT_NOT"): b"(?!", (-1, "ASSERT"): b"(?<=",
                   (-1, "ASSERT_NOT"): b"(?<!"}[(1 if direction > 0 else -1, name)]
        if direction > 0 and lookahead is not None:
            lookahead = None if width >= MAXREPEAT else lookahead + width
        return opening + text + b")", crosses, lookahead


def _combine(results: list[tuple[bytes, bool, int | None]]) -> tuple[bool, int | None]:
    """Alternatives together: crosses if any does; their lookaheads summed (a bound on the largest)."""
    crosses = any(r[1] for r in results)
    lookaheads = [r[2] for r in results]
    return crosses, None if None in lookaheads else sum(lookaheads)  # type: ignore[arg-type]
