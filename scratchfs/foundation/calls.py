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
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from scratchfs.foundation.text import quote


def render_call(verb: str, **arguments: object) -> str:
    """A call written out for a model, e.g. ``read_handle(handle="h_...", offset=4096, length=4096)``: text as a JSON
    string literal, numbers as they are, ``True``/``False`` for flags, lists as JSON; arguments in the order given,
    ``None`` left out.
    The one place every "next call" text is written (results, stub notes, refusals, every face)."""
    parts = []
    for name, value in arguments.items():
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
        """The call ``verb(**arguments)``, the arguments that are ``None`` left out (as :func:`render_call` does)."""
        return cls(verb, tuple((name, list(value) if isinstance(value, (list, tuple)) else value)
                               for name, value in arguments.items() if value is not None))

    def shown(self, text: str) -> Call:
        """This call, written in a model's text as ``text`` (e.g. ``"row=1"``, an example's arguments where the
        sentence names the handle already); faces that write calls their own way (:meth:`Advice.written`) still
        get the whole call."""
        return replace(self, text=text)

    def __str__(self) -> str:
        return self.text if self.text is not None else render_call(self.verb, **dict(self.arguments))

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

    def written(self, write: Callable[[Call], str]) -> str:
        """The text with each call written by ``write`` (a face's: a shell command, say)."""
        return "".join(part if isinstance(part, str) else write(part) for part in self.parts)

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


__all__ = ["Advice", "Call", "add_said", "calls_json", "render_call"]
