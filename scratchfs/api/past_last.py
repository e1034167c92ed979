"""The refusal of a row or record read that starts past the last one (the engine's :class:`PastLast`, ``row 30000 is
past the last row (25,000)``), with the call that reads the last page instead, as a line read past the end names its
last lines (:func:`past_last`)."""

from __future__ import annotations

from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument, PastLast

__all__ = ["past_last"]


def past_last(exc: PastLast, handle: str, per_page: int, **kept: object) -> InvalidArgument:
    """``exc``, the refusal of a ``row=`` or ``record=`` read of ``handle`` past the last one, with the call reading
    the last ``per_page`` of them (``kept``: the read's other arguments that shape its page -- ``rows``/``records``
    aside --, ``None`` left out); ``exc`` itself when there is none (no row or record at all)."""
    if exc.last < 1 or per_page < 1:
        return exc
    first = max(1, exc.last - per_page + 1)
    call = Call.of("read_handle", handle=handle, **{exc.unit: first, f"{exc.unit}s": per_page}, **kept)
    return InvalidArgument(Advice.of(f"{exc}: the last {'one' if first == exc.last else 'ones'}: ", call))
