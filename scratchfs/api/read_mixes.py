"""The ``read_handle`` calls whose arguments belong to different reads, refused before the store is asked (a face's
store may be out of reach), each refusal saying what to do instead: which read each argument belongs to, and the
call that makes one read of it (:func:`refuse_mixed`, :func:`only_one_read`).

A structure read (``jq``, ``record``, ``row``, ``select``, ``view``) reads the whole entry along its structure; a byte,
line or search read's arguments beside one (``end``, ``length``, ``line``, ``match``...) were refused with advice
about an HTML page's text view whatever the read ("end cannot be mixed with a structure read (row, rows); a search of
an HTML page's text view takes view="text" ..."), which told a model reading a CSV member's rows nothing it could
use."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

from scratchfs.api.archive import MEMBERS_VIEW
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.checks import MAX_INT_BITS
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import DEFAULT_LINES, MIN_REPLY_BYTES
from scratchfs.foundation.text import is_utf8_text

__all__ = ["check_read_modes", "only_one_read", "refuse_mixed"]

_SEARCH_ARGUMENTS = ("match", "pattern", "context", "max_matches", "before", "ignore_case")
_KEPT = ("end", "budget", "encoding")
"""The arguments of a refused call that each call its refusal names keeps (they bound or shape any read)."""


def _told(said: str, *advice: str | Call, instead: str = "the same search") -> InvalidArgument:
    """The refusal ``said`` going on with ``advice``; each call in it that has a needle written as ``instead`` where
    that needle (up to 4 KiB) would make the text longer than a tool error holds (:data:`MIN_REPLY_BYTES`; a face
    that writes calls its own way, the CLI, still gets it whole)."""
    told = Advice.of(said, *advice)
    if len(str(told).encode("utf-8")) > MIN_REPLY_BYTES - 64:
        told = Advice.of(said, *(part.shown(instead) if isinstance(part, Call) and any(
            name in ("match", "pattern") for name, _ in part.arguments) else part for part in advice))
    return InvalidArgument(told)


def check_read_modes(*, offset: int, length: int | None, line: int | None, lines: int | None, searching: bool,
                     ignore_case: bool, context: object, max_matches: int | None, before: int | None,
                     handle: object = None, asked: Mapping[str, Any] | None = None) -> None:
    """Refuse the options of two ``read_handle`` modes (range, lines, search) mixed in one call: the checks of
    :meth:`scratchfs.api.scope.Scope.read_handle`, which need no store (so a face tells them during an outage too).
    Given the ``handle`` (and ``asked``: the call's ``match``, ``pattern``, ``end``, ``budget``, ``encoding``), a
    line read mixed with a search or a range names the two calls that split it, and every other refusal the two
    reads it may have meant (:class:`_Calls`: a search's arguments without a needle name the search with
    ``match="TEXT"``).

    Raises:
        InvalidArgument: naming the options that do not go together.
    """
    if line is None and lines is None and (length is None if searching else (
            context is None and max_matches is None and before is None and not ignore_case)):
        return  # (no refusal below can apply: every read_handle of one mode, T3's, builds no calls)
    calls = _Calls(handle, offset, {**(asked or {}), "length": length, "line": line, "lines": lines,
                                    "ignore_case": ignore_case or None, "context": context, "max_matches": max_matches,
                                    "before": before})
    if not searching and (context is not None or max_matches is not None or before is not None):
        calls.refuse("context=, max_matches= and before= apply to searches (match= or pattern=)", "a search: ",
                     calls.search(), ", or the read without them: ", calls.plain())
    if line is not None or lines is not None:
        if searching or length is not None:
            calls.refuse("a line read takes line= (or offset=) and lines=; length=, match= and pattern= are for "
                         "other reads", "make two calls, ", calls.search() if searching else calls.range(), " and ",
                         calls.lines(), instead="this call without line= and lines=")
        if line is not None and offset and not (type(line) is int and line < 0):  # (line=-N, offset=O: the last
            # lines from byte O on, a member's first: its lower bound, scratchfs.api.bounds.lines_within)
            calls.refuse("a line read starts at a line or at a byte offset, not both", "from the line: ",
                         calls.lines(), ", or from the byte: ", calls.lines(at_line=False))
    if not searching and ignore_case:  # (beside a line read too: slurp2, it was accepted and meant nothing)
        calls.refuse("ignore_case= applies to searches (match= or pattern=)", "a search: ", calls.search(),
                     ", or the read without it: ", calls.plain())
    if searching and length is not None:
        calls.refuse("length= applies to range reads; a search takes context= and max_matches=", "the search: ",
                     calls.search(length=None), ", or the range: ", calls.plain())


def _writable(value: object) -> bool:
    """Whether a refusal's call can write ``value`` as a model's argument: ``None``, a bool, a float, an integer of at
    most :data:`MAX_INT_BITS` bits (``str`` refuses one of over 4,300 digits), text with no lone surrogate (UTF-8
    has none: a ``UnicodeEncodeError`` measuring the refusal), never bytes, a list or another object (JSON has no
    such value: a ``TypeError``)."""
    if value is None or isinstance(value, (bool, float)):
        return True
    if isinstance(value, int):
        return value.bit_length() <= MAX_INT_BITS
    return isinstance(value, str) and is_utf8_text(value)


class _Calls:
    """The calls a refusal of a mixed ``read_handle`` call names (``handle``; ``offset``; ``given``: its other
    arguments, ``None`` for those not given): each keeps :data:`_KEPT`."""

    def __init__(self, handle: object, offset: int, given: Mapping[str, Any]) -> None:
        self._handle, self.offset, self.given = handle, offset, given
        self.kept = {name: given.get(name) for name in _KEPT}

    @cached_property
    def handle(self) -> object:
        """The call's handle, ``None`` when one of its values no call can write (the Python API's:
        ``context="\\ud800"``, ``offset=b"x"``): a refusal then says what is mixed alone, and the read's own checks
        name the value after it. Judged when a refusal is built, not on every read."""
        return self._handle if all(map(_writable, (self.offset, *self.given.values()))) else None

    def refuse(self, said: str, *advice: str | Call, instead: str = "the same search") -> None:
        """Raise InvalidArgument ``said``, then ``": "`` and ``advice`` when the call named a handle (without one,
        ``said`` alone: a face checking the arguments before it has one); a long needle's search written as
        ``instead`` (:func:`_told`)."""
        if not isinstance(self.handle, str):
            raise InvalidArgument(said)
        raise _told(said, ": ", *advice, instead=instead)

    def search(self, **changed: object) -> Call:
        """The call as a search: its needle, or the placeholder ``match="TEXT"`` (a search for it says what goes in
        its place), its search arguments, ``offset``, ``changed``."""
        given = {name: self.given.get(name) for name in _SEARCH_ARGUMENTS}
        if given["match"] is None and given["pattern"] is None:
            given["match"] = "TEXT"
        return Call.of("read_handle", handle=self.handle, **given, offset=self.offset or None,
                       **{**self.kept, **changed})

    def plain(self) -> Call:
        """The call's byte or line read alone: its ``line``/``lines`` (else ``offset``, ``length``)."""
        if self.given.get("line") is not None or self.given.get("lines") is not None:
            return self.lines()
        return self.range()

    def range(self) -> Call:
        """The call's byte range read: its ``offset`` and ``length``."""
        return Call.of("read_handle", handle=self.handle, offset=self.offset or None, length=self.given.get("length"),
                       **self.kept)

    def lines(self, at_line: bool = True) -> Call:
        """The call's line read: from its ``line`` (``at_line``, when it gave one) or from its ``offset``, its
        ``lines`` (written out from a byte: ``offset=`` alone is a range read)."""
        line = self.given.get("line") if at_line else None
        start = None if line is not None else self.offset or None
        lines = self.given.get("lines") or (DEFAULT_LINES if line is None else None)
        return Call.of("read_handle", handle=self.handle, line=line, offset=start, lines=lines, **self.kept)


def _count_alone(others: set[str], handle: object, asked: Mapping[str, Any]) -> None:
    """Refuse ``count`` beside arguments of windows, lines, ranges or structure reads (a count shows none), naming
    the count that runs (``asked``: the call's needle, ``offset``, ``ignore_case`` and :data:`_KEPT`) when the call
    gives a ``handle`` and a needle, and a call can write each of them (:func:`_writable`)."""
    if others:
        view = ('; a text view (an HTML page\'s, terminal output as rendered) is not counted: list the view\'s '
                'matches (view="text", context=0, max_matches=1000), or count the stored content (no view), where '
                'markup or escape sequences may split the text') if "view" in others else ""
        said = (f"count cannot be combined with {', '.join(sorted(others))}: it counts the matches of match= or "
                f"pattern= (from offset= to end=, with ignore_case=) and shows no window{view}")
        kept = {name: asked.get(name) for name in ("match", "pattern", "offset", "ignore_case", *_KEPT)}
        if not isinstance(handle, str) or (kept["match"] is None and kept["pattern"] is None) or not all(
                map(_writable, kept.values())):  # (the Python API's match="\ud800", offset=b"x": said alone)
            raise InvalidArgument(said)
        raise _told(said, "; the count alone: ", Call.of("read_handle", handle=handle, **kept, count=True),
                    instead=f"this call without {', '.join(sorted(others))}")


def _advice(mixed: list[str], given: dict[str, Any]) -> list[str]:
    """What each kind of argument in ``mixed`` (of byte, line or search reads) is for, beside the structure read
    ``given``, and the read that takes it."""
    text_view = given.get("view") == "text"
    out = []
    if "end" in mixed:
        out.append("end= bounds a byte, line or search read (a member's bytes: offset= and end= as view=\"members\" "
                   "lists them) -- a structure read reads the whole entry; read or search the member by range")
    if "length" in mixed:
        out.append('length= sizes a byte range; a structure page is sized by rows=/records= and budget='
                   + (' (view="text" pages by offset=, bytes of the text)' if text_view else ""))
    if {"line", "lines"} & set(mixed):
        out.append('view="text" pages by offset= (bytes of the text); terminal output\'s view is read from a stored '
                   'byte with view="text", raw_offset=N (its end: N = size - 4096)' if text_view else
                   "line=/lines= are a line read's (with end=, a member's lines: offset= its offset); a structure "
                   "page starts at row=/record= (rows=/records= a page) or where its next_call's cursor says")
    if set(_SEARCH_ARGUMENTS) & set(mixed):
        if text_view:
            out.append('a search of the text view takes view="text" with match= or pattern= (and offset=, context=, '
                       "max_matches=, ignore_case=) alone")
        else:
            structure = ", ".join(f"{name}=" for name in sorted(given))
            out.append(f"a search (match=, pattern=, with context=, max_matches=, before=, ignore_case=) takes no "
                       f"{structure}: search the stored bytes without it")
    return out


def refuse_mixed(counting: bool, given: dict[str, Any], asked: dict[str, Any], offset: int,
                 ignore_case: bool, handle: object = None, kept: Mapping[str, Any] | None = None) -> None:
    """Refuse a ``read_handle`` call whose options belong to different modes: ``count`` beside windows, a structure
    read (``given``) beside the options of the others (``asked``) -- but for the search of a text view --, and the
    plain reads' mixes (:func:`check_read_modes`). Raises InvalidArgument, whose message says what each argument of
    another read is for and how to make one read of the call (``handle``, ``kept``: the call's, ``budget`` and
    ``encoding``, for the calls it names)."""
    if counting:
        _count_alone(given.keys() | {k for k, v in asked.items()
                                     if v is not None and k not in ("match", "pattern", "end")}, handle,
                     {**asked, **(kept or {}), "offset": offset or None, "ignore_case": ignore_case or None})
        return
    searching = asked["match"] is not None or asked["pattern"] is not None
    if not given:
        check_read_modes(offset=offset, length=asked["length"], line=asked["line"], lines=asked["lines"],
                         searching=searching, ignore_case=ignore_case, context=asked["context"],
                         max_matches=asked["max_matches"], before=asked["before"], handle=handle,
                         asked={**asked, **(kept or {})})
        return
    if given.keys() == {"view"} and given["view"] != MEMBERS_VIEW and (asked["match"] or asked["pattern"]) \
            and asked["length"] is None \
            and asked["line"] is None and asked["lines"] is None:
        return  # a search of the text view
    mixed = [name for name, value in asked.items() if value is not None] + (["ignore_case"] if ignore_case else [])
    if mixed:
        said = (f"{', '.join(mixed)} cannot be mixed with a structure read ({', '.join(sorted(given))}): "
                f"{'; '.join(_advice(mixed, given))}; make the call one read or the other")
        if mixed == ["length"] and given == {"view": "text"} and isinstance(handle, str) and all(
                map(_writable, (handle, offset, *(kept or {}).values()))):
            raise _told(said, "; the text from that offset: ", _text_page(handle, offset, asked["length"], kept))
        raise InvalidArgument(said)


def _text_page(handle: str, offset: int, length: object, kept: Mapping[str, Any] | None) -> Call:
    """The page of a text view a call of ``view="text"`` with ``length=`` meant (helper modeltask6: a model read
    the 400 bytes after a search's window so, was refused, and its next try's ``budget=700`` was refused again): from
    ``offset``, its ``budget`` as given, else the smallest a reply takes when ``length`` fits in it."""
    budget = (kept or {}).get("budget")
    if budget is None and isinstance(length, int) and length < MIN_REPLY_BYTES // 2:
        budget = MIN_REPLY_BYTES
    return Call.of("read_handle", handle=handle, view="text", offset=offset or None, budget=budget,
                   encoding=(kept or {}).get("encoding"))


_TOGETHER = (
    ({"slurp"}, {"record", "records", "row", "rows", "columns"},
     "slurp=true runs jq= once over every record or row: give jq= and slurp=true alone"),
    ({"record", "records"}, {"row", "rows", "columns"}, "record= pages JSON lines, row= a table's rows (the stub's "
                                                        "shape says which the content is): one or the other"),
    ({"jq"}, {"row", "rows", "columns"}, "jq= over a table's rows runs once over all of them with slurp=true "
                                         "(jq= a filter over the array of the rows, slurp=true), or read rows "
                                         "with row=/rows=/columns= alone"),
    ({"select"}, {"view"}, 'select= gives the text of the elements it matches; view="text" the whole page\'s text: '
                           "one or the other"),
)


def only_one_read(given: dict[str, Any], allowed: set[str]) -> None:
    """Refuse structure arguments beside ``given``'s read (whose own arguments are ``allowed``) that belong to
    another, naming the read each makes (and, for the mixes a model makes, the call that does what it meant:
    jq= over rows is slurp=true). Raises InvalidArgument."""
    extra = sorted(set(given) - allowed)
    if extra:
        mode = ", ".join(sorted(allowed - {"cursor"}))
        said = next((how for one, other, how in _TOGETHER if (one & given.keys() and other & given.keys())), None)
        raise InvalidArgument(f"{', '.join(extra)} cannot be combined with {mode}: "
                              + (said or "they are two structure reads; make one call for each"))
