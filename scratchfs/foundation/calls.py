"""A call as data, and advice that names calls: what a refusal says to do next, kept as its parts so that each face
writes the calls its own way.

* :class:`Call` -- a tool's name and its arguments (``None`` left out), written for a model by :func:`render_call`:
  ``read_handle(handle="h_...", line=-50, lines=50)``.
* :class:`Advice` -- text with calls in it (``str(advice)`` is the text a model receives); a
  :class:`~scratchfs.foundation.errors.ScratchError` made from one keeps it (its ``advice``), and a face writes its
  calls as it runs them: the CLI as shell commands, the web API as data beside the message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from scratchfs.foundation.limits import (
    DEFAULT_CONTEXT,
    DEFAULT_LINES,
    DEFAULT_MATCHES,
    DEFAULT_READ_BYTES,
    LONG_CALL_BYTES,
    MAX_LIST_ENTRIES,
    MAX_READ_BYTES,
)
from scratchfs.foundation.text import quote

_SEARCH_DEFAULTS = {"context": DEFAULT_CONTEXT, "max_matches": DEFAULT_MATCHES}
"""A search's settings at their defaults (the tools' schemas'): dropped from a call that searches (``match`` or
``pattern`` in it), where leaving them out means the same search; beside no needle they would be a refusal's."""
_FALSE_FLAGS = frozenset({"ignore_case", "count", "slurp"})
"""Flags whose ``False`` is the flag not given, on every face."""
_RANGE_SETTINGS = frozenset({"handle", "key", "offset", "length", "end", "budget", "encoding", "version"})
"""The arguments a range read may carry: ``length`` at its default is dropped only from such a call."""
_LENGTH_DEFAULTS = {"read_handle": DEFAULT_READ_BYTES, "scratch_read": MAX_READ_BYTES}
"""Each range verb's default ``length`` (the tools' schemas', which every face takes: the CLI's ``--length`` and the
web API's ``?length=`` default to the same). Python's ``Scope.scratch_read_range`` defaults to 4,096: a
``scratch_read`` call asking for 4,096 keeps it."""


def without_defaults(verb: str, arguments: dict[str, object]) -> dict[str, object]:
    """``arguments`` of a call of ``verb`` without those that equal their default where the call means the same
    without them (the same read, the same bytes): ``offset=0``; a range read's ``length`` (4,096 for
    ``read_handle``, 65,536 for ``scratch_read``); a line read's ``lines=50`` beside a ``line`` (from an
    ``offset``, ``lines`` is what makes it a line read and stays) and its ``line=1`` beside a ``lines`` left; a
    search's ``context=200`` and ``max_matches=20``; ``ignore_case``, ``count`` and ``slurp`` false; a
    ``scratch_list``'s ``prefix=""`` and ``limit=1000``. ``budget`` always stays: its default is the server's
    ``reply_budget_bytes``, which differs between servers. Values equal by type and value only (``False`` is no
    ``0``). Other verbs' arguments are returned as given. Applied again to what it returns, it returns the same: a
    flag at false counts as left out when it tells a range read (``length=4096, ignore_case=false``: both dropped),
    so :class:`Call` drops its defaults once, when it is made. An argument whose value is ``None`` is absent, for
    every verb, before the rest is judged (``length=65536, match=None`` is a range read at its default length)."""
    if any(value is None for value in arguments.values()):
        arguments = {name: value for name, value in arguments.items() if value is not None}
    if verb == "scratch_list":
        return {name: value for name, value in arguments.items()
                if not ((name == "prefix" and value == "") or (name == "limit" and _same(value, MAX_LIST_ENTRIES)))}
    default_length = _LENGTH_DEFAULTS.get(verb)
    if default_length is None:
        return arguments
    ranged = all(name in _RANGE_SETTINGS or (value is False and name in _FALSE_FLAGS)
                 for name, value in arguments.items())
    searching = arguments.get("match") is not None or arguments.get("pattern") is not None
    defaults: dict[str, object] = {"offset": 0, **({"length": default_length} if ranged else {}),
                                   **(_SEARCH_DEFAULTS if searching else {})}
    kept = {name: value for name, value in arguments.items()
            if not (value is False and name in _FALSE_FLAGS) and not (
                name in defaults and _same(value, defaults[name]))}
    if _same(kept.get("lines"), DEFAULT_LINES) and kept.get("line") is not None:
        del kept["lines"]
    elif _same(kept.get("line"), 1) and kept.get("lines") is not None:
        del kept["line"]
    return kept


def _same(value: object, default: int) -> bool:
    """``value`` is the int ``default`` (an int, not a bool)."""
    return type(value) is int and value == default


def render_call(verb: str, **arguments: object) -> str:
    """A call written out for a model, e.g. ``read_handle(handle="h_...", offset=4096, lines=10)``: text as a JSON
    string literal, numbers as they are, ``True``/``False`` for flags, lists as JSON; arguments in the order given,
    ``None`` left out, and those at a default that means the same left out too (:func:`without_defaults`, the rule
    :meth:`Call.of` follows: ``render_call(verb, **a) == str(Call.of(verb, **a))``).
    The one place every "next call" text is written (results, stub notes, refusals, every face)."""
    return _written(verb, without_defaults(verb, arguments).items())


def _written(verb: str, arguments: Iterable[tuple[str, object]]) -> str:
    """:func:`render_call`'s text of ``verb`` and ``arguments`` (name, value pairs) as they are: none dropped but
    a ``None``."""
    parts = []
    for name, value in arguments:
        kind = type(value)  # the common kinds first, by identity (a stub's note writes six calls)
        if kind is str:
            shown = quote(value)
        elif kind is int:
            shown = repr(value)
        elif value is None:
            continue
        elif isinstance(value, str):
            shown = quote(value)
        elif isinstance(value, (bool, int, float)):
            shown = repr(value)
        else:  # a list (columns): JSON, as a model writes it
            shown = json.dumps(value, ensure_ascii=False)
        parts.append(f"{name}={shown}")
    return f"{verb}({', '.join(parts)})"


@dataclass(frozen=True, slots=True)
class Call:
    """A call of the tool ``verb`` with ``arguments`` (name, value pairs in the order given, none of them ``None``;
    values are str, int, bool or a list of str and int). ``str(call)`` is :func:`render_call`'s text, or ``text``
    when given (:meth:`shown`: an example a model's text writes as its arguments alone, ``row=1``, where a face that
    runs calls, the CLI, writes the whole call)."""

    verb: str
    arguments: tuple[tuple[str, object], ...]
    text: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, verb: str, **arguments: object) -> Call:
        """The call ``verb(**arguments)``, the arguments that are ``None`` or at a default that means the same left
        out (as :func:`render_call` does)."""
        return cls(verb, tuple((name, list(value) if isinstance(value, (list, tuple)) else value)
                               for name, value in without_defaults(verb, arguments).items()))

    def shown(self, text: str) -> Call:
        """This call, written in a model's text as ``text`` (e.g. ``"row=1"``, an example's arguments where the
        sentence names the handle already); faces that write calls their own way (:meth:`Advice.written`) still
        get the whole call."""
        return replace(self, text=text)

    def shown_when_long(self, text: str) -> Call:
        """This call :meth:`shown` as ``text`` when it is long: its text past
        :data:`~scratchfs.foundation.limits.LONG_CALL_BYTES` UTF-8 bytes (a lone surrogate in an argument counted as
        the 3 bytes ``surrogatepass`` writes, never an error), else as it is -- the one rule by which a refusal
        names a long call in words (600 emoji in a ``match=`` were 2,400 bytes, cut at a tool error's cap)."""
        return self.shown(text) if len(str(self).encode("utf-8", "surrogatepass")) > LONG_CALL_BYTES else self

    def given(self, **more: object) -> Call:
        """This call with the arguments of ``more`` it does not name already, after its own (``None`` left out);
        its :meth:`shown` text, if any, kept (an example's words stay the words)."""
        added = tuple((name, value) for name, value in more.items()
                      if value is not None and all(name != own for own, _ in self.arguments))
        return replace(self, arguments=self.arguments + added) if added else self

    def __str__(self) -> str:  # (its arguments are without their defaults already: :meth:`of`)
        return self.text if self.text is not None else _written(self.verb, self.arguments)

    def to_json(self) -> dict[str, object]:
        """The call as data: ``{"tool": verb, "arguments": {name: value}}`` (a reply's or an error's ``calls``)."""
        return {"tool": self.verb, "arguments": dict(self.arguments)}


@dataclass(frozen=True, slots=True)
class Advice:
    """Text with calls in it: ``parts`` are text (str) and :class:`Call`; ``str(advice)`` writes each call as
    :func:`render_call` does (the text a model receives); :meth:`written` writes them another way. ``+`` joins
    advice and text, either side."""

    parts: tuple[str | Call, ...]

    @classmethod
    def of(cls, *parts: str | Call | Advice | BaseException) -> Advice:
        """The advice of ``parts`` in order: text, calls, advice, and errors (an error's own advice, else its
        text: a refusal that goes on from another keeps the other's calls)."""
        flat: list[str | Call] = []
        for part in parts:
            if isinstance(part, BaseException):
                part = getattr(part, "advice", None) or str(part)
            flat.extend(part.parts if isinstance(part, Advice) else [part])
        return cls(tuple(flat))

    @property
    def calls(self) -> tuple[Call, ...]:
        """The calls the advice names, in order."""
        return tuple(part for part in self.parts if isinstance(part, Call))

    def written(self, write: Callable[[Call], str], words: Callable[[str], str] | None = None) -> str:
        """The text with each call written by ``write`` (a face's: a shell command, say), and each text between them
        by ``words`` when given (the same face's words for the calls' arguments)."""
        return "".join((part if words is None else words(part)) if isinstance(part, str) else write(part)
                       for part in self.parts)

    def __str__(self) -> str:
        return self.written(str)

    def __add__(self, other: object) -> Advice:
        if not isinstance(other, (str, Call, Advice)):
            return NotImplemented
        return Advice.of(self, other)

    def __radd__(self, other: object) -> Advice:
        if not isinstance(other, (str, Call, Advice)):
            return NotImplemented
        return Advice.of(other, self)


def calls_json(*notes: object) -> list[dict[str, object]]:
    """The calls of ``notes`` (:class:`Advice` among text and ``None``, which name none), in order, as data
    (:meth:`Call.to_json`): the ``calls`` a reply gives beside a ``note`` that names them."""
    return [call.to_json() for note in notes if isinstance(note, Advice) for call in note.calls]


def add_said(fields: dict[str, Any], said: str | Advice) -> None:
    """Put ``said`` in ``fields`` (a reply's, or a page's ``extra``): after its ``note``, ``"; "`` between (``str``
    of it when there is none), and the calls it names after its ``calls``, as data (:func:`calls_json`; no
    ``calls`` added when it names none)."""
    fields["note"] = f"{fields['note']}; {said}" if fields.get("note") else str(said)
    if calls := calls_json(said):  # (as data too: a face writes them its own way)
        fields["calls"] = [*fields.get("calls", []), *calls]


__all__ = ["Advice", "Call", "add_said", "calls_json", "render_call", "without_defaults"]
