"""The refusal of a row or record read that starts past the last one (the engine's :class:`PastLast`, ``row 30000 is
past the last row (25,000)``), with the call that reads the last page instead, as a line read past the end names its
last lines (:func:`past_last`); and the refusal of one that starts before the first, ``row=-5`` written as
``line=-5`` is (rows and records count from 1 only), with the call that reads what it meant (:func:`from_end`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from scratchfs.api.tools import check_arguments
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import BadRecord, InvalidArgument, PastLast, ScratchError
from scratchfs.foundation.text import plural

__all__ = ["from_end", "past_last"]

_PROBE = 10**15
"""The row or record :func:`from_end` asks for to learn how many there are: past the last of any table or JSON lines
(its refusal, :func:`past_last`'s, names the last one)."""
_MOST_PER_PAGE = 10_000  # (read_handle's most rows or records a page)


def past_last(exc: PastLast, handle: str, per_page: int, **kept: object) -> InvalidArgument:
    """``exc``, the refusal of a ``row=`` or ``record=`` read of ``handle`` past the last one, with the call reading
    the last ``per_page`` of them (``kept``: the read's other arguments that shape its page -- ``rows``/``records``
    aside --, ``None`` left out); ``exc`` itself when there is none (no row or record at all)."""
    if exc.last < 1 or per_page < 1:
        return exc
    first = max(1, exc.last - per_page + 1)
    call = Call.of("read_handle", handle=handle, **{exc.unit: first, f"{exc.unit}s": per_page}, **kept)
    return InvalidArgument(Advice.of(f"{exc}: the last {'one' if first == exc.last else 'ones'}: ", call))


def from_end(refused: ScratchError, arguments: object, read: Callable[[dict], object]) -> ScratchError:
    """``refused``, the schema's refusal of a read_handle call's ``arguments``, with the call that reads what its
    ``row`` or ``record`` below 1 meant when that is the call's one fault: ``row=-N`` (as ``line=-N`` counts from the
    end) the last N rows, ``rows`` when given N or fewer of them from there (``row=0``: the first). ``read`` runs a
    read_handle call of the arguments given (its schema checked): the one it makes asks for a row or record past the
    last, whose refusal (:func:`past_last`) names how many there are -- a scan of the whole entry, as such a read
    costs; of JSON lines whose last line is no JSON (cut short: the stub counts it out), the records before it.
    Returns ``refused`` itself for any other refusal, or when that read is refused otherwise (a handle lost, text
    that is no table, another argument wrong, the store out of reach). Never raises."""
    if not isinstance(arguments, Mapping):
        return refused
    unit = next((u for u in ("row", "record") if type(arguments.get(u)) is int and arguments[u] < 1), None)
    if unit is None or not str(refused).startswith(f"read_handle: {unit}: "):
        return refused
    back, per_page = -arguments[unit], arguments.get(f"{unit}s")
    try:  # (the call's one fault: a call with another is told that first, no call named)
        check_arguments("read_handle", {**arguments, unit: 1})
    except ScratchError:
        return refused
    try:
        read({**arguments, unit: _PROBE, f"{unit}s": 1})
    except ScratchError as probe:
        named = [dict(c.arguments) for c in probe.calls if c.verb == "read_handle" and unit in dict(c.arguments)]
    else:
        return refused
    if not named or type(last := named[0][unit]) is not int or last >= _PROBE:
        return refused
    last -= unit == "record" and _cut_last(read, named[0]["handle"], last)
    if last < 1:
        return refused
    given = per_page if type(per_page) is int and per_page >= 1 else None
    if back < 1:  # (row=0: the first, as many as asked)
        first, count, said = 1, given, "the first: "
    else:
        first = max(1, last - back + 1)
        count = min(last - first + 1, _MOST_PER_PAGE, given or _MOST_PER_PAGE)
        said = ("the last: " if back == 1 else f"all {plural(last, unit)}: " if first == 1 else
                f"the last {plural(back, unit)}: ")
    call = Call.of("read_handle", **{**named[0], unit: first, f"{unit}s": count})
    return InvalidArgument(Advice.of(refused, f" ({unit}s count from 1, not from the end as line=-N does); ", said,
                                     call))


def _cut_last(read: Callable[[dict], object], handle: object, last: int) -> bool:
    """Whether record ``last``, the last line of JSON lines ``handle``, is no JSON (a stream cut short: the stub
    counts it out, "100 records, the last line cut") -- a read starting at it is refused (BadRecord), so a read of
    the last records names none past it. Never raises."""
    try:
        read({"handle": handle, "record": last, "records": 1})
    except BadRecord as exc:
        return exc.record == last
    except ScratchError:
        return False
    return False
