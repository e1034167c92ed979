"""The click types of the CLI's options and arguments that click's own do not check as the contract does: a folder
that exists (:class:`Folder`), a span of seconds (:class:`Seconds`) and a whole number in ASCII digits
(:class:`Integer`); each refuses a bad value as a usage error (exit 2, one line) when the command line is parsed,
before a store is opened."""

from __future__ import annotations

import os
from typing import Any

import click

from scratchfs.cli.output import PathText
from scratchfs.foundation.checks import check_seconds, check_ttl
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import DEFAULT_TTL, MAX_TTL
from scratchfs.foundation.text import is_digits, shorten


class Folder(PathText):
    """A click type for an existing folder (a link to one followed), checked when the command line is parsed, so
    a command refuses it before opening a store (none is made for nothing): ``click.Path(file_okay=False)`` turns
    away regular files only, and a FIFO, socket or device went through."""

    def __init__(self) -> None:
        super().__init__(exists=True, file_okay=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        path = super().convert(value, param, ctx)
        if not os.path.isdir(path):
            self.fail(f"{os.fsdecode(path)!r} is not a folder", param, ctx)
        return path


class Seconds(click.ParamType):
    """A click option type for a span of seconds: a finite number in ``(0, maximum]`` (``[0, maximum]`` when
    ``zero_ok``), checked by :func:`~scratchfs.foundation.checks.check_seconds` -- NaN, infinities and numbers too
    large for a float are a usage error (exit 2, one line), not a traceback or a silent default; so are Unicode
    digits (``٥``) and underscores (``1_0``), which ``float`` takes: a number is written in ASCII, as in JSON. With
    ``ttl=True`` it is a TTL, checked by :func:`~scratchfs.foundation.checks.check_ttl`: 1 second to 30 days."""

    name = "seconds"

    def __init__(self, zero_ok: bool = False, maximum: float = MAX_TTL, ttl: bool = False) -> None:
        self.zero_ok, self.maximum, self.ttl = zero_ok, maximum, ttl

    @staticmethod
    def number(value: Any) -> float:
        """``value`` as a float of seconds, written in ASCII as in JSON.

        Raises:
            InvalidArgument: not such a number.
        """
        if isinstance(value, float):
            return value
        text = str(value).strip()
        try:
            if not text.isascii() or "_" in text:
                raise ValueError(text)
            return float(text)
        except ValueError:
            raise InvalidArgument(f"{value!r} is not a number of seconds") from None

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            number = self.number(value)
        except InvalidArgument as exc:
            self.fail(str(exc), param, ctx)
        try:
            if self.ttl:  # as Settings and the tools word it
                return check_ttl(number, DEFAULT_TTL, param.name if param is not None and param.name else "ttl")
            return check_seconds(number, param.name if param is not None and param.name else "seconds",
                                 self.maximum, zero_ok=self.zero_ok)
        except InvalidArgument as exc:
            self.fail(str(exc), param, ctx)


class Integer(click.ParamType):
    """A click option type for a whole number written in ASCII digits ``0-9`` (an optional leading ``-``), at least
    ``minimum`` and at most ``maximum`` when given (``None``: no bound), as the contract's JSON integers are: Unicode
    digits (``٥``), underscores (``1_000``), spaces and a ``+`` -- which ``int`` takes -- are a usage error (exit 2,
    one line), as is a number out of the bounds. Every integer option of the CLI takes it."""

    name = "integer"
    _MAX_DIGITS = 30  # longer is refused before int() is asked (a number of that size is out of any bound here)

    def __init__(self, minimum: int | None = None, maximum: int | None = None) -> None:
        self.minimum, self.maximum = minimum, maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and is_digits(value.removeprefix("-")):
            if len(value.lstrip("-")) > self._MAX_DIGITS:
                self.fail(f"{value[:40]!r}{'...' if len(value) > 40 else ''} has more than {self._MAX_DIGITS} digits",
                          param, ctx)
            number = int(value)
        else:
            self.fail(f"{shorten(value)} is not an integer (ASCII digits 0-9, optionally after a -)", param, ctx)
        low, high = self.minimum, self.maximum
        if (low is not None and number < low) or (high is not None and number > high):
            bounds = f"{low}<=x<={high}" if low is not None and high is not None else \
                f"x>={low}" if low is not None else f"x<={high}"
            self.fail(f"{number} is not in the range {bounds}", param, ctx)
        return number


__all__ = ["Folder", "Integer", "Seconds"]
