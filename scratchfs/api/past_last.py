"""The refusal of a row or record read that starts past the last one (``row 30000 is past the last row (25,000)``,
the engine's words), with the call that reads the last page instead, as a line read past the end names its last
lines (:func:`past_last`)."""

from __future__ import annotations

import re

from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["past_last"]

_PAST = re.compile(r"(row|record) [0-9]+ is past the last (?:row|record) \(([0-9,]+)\)\Z")
"""The engine's refusal (:func:`scratchfs.engine.structure.table.rows_page`, ``jsonl.records_page``): the unit and
how many there are."""


def past_last(exc: InvalidArgument, handle: str, per_page: int, **kept: object) -> InvalidArgument:
    """``exc`` again, or, when it refuses a ``row=`` or ``record=`` read of ``handle`` past the last one (of at least
    one), that refusal with the call reading the last ``per_page`` of them (``kept``: the read's other arguments
    that shape its page -- ``rows``/``records`` aside --, ``None`` left out)."""
    found = _PAST.match(str(exc)) if type(exc) is InvalidArgument else None
    if found is None or per_page < 1:
        return exc
    unit, last = found.group(1), int(found.group(2).replace(",", ""))
    if last < 1:
        return exc
    first = max(1, last - per_page + 1)
    call = Call.of("read_handle", handle=handle, **{unit: first, f"{unit}s": per_page}, **kept)
    return InvalidArgument(Advice.of(f"{exc}: the last {'one' if first == last else 'ones'}: ", call))
