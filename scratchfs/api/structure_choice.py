"""Which structure read the arguments of ``read_handle`` make (:func:`structure_read`): the contract's
:func:`~scratchfs.api.read_replies.structure_reply` pages it into a reply."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scratchfs.api.archive import MEMBERS_VIEW
from scratchfs.api.read_mixes import only_one_read
from scratchfs.api.structured import StructureReads
from scratchfs.engine.structure.paging import check_resumes_at
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["structure_read"]


def structure_read(reads: StructureReads, handle: str, offset: int, given: dict[str, Any], call_budget: int | None
                   ) -> Callable[[int], Any]:
    """The reader (of ``reads``) for the structure arguments ``given``: a function of the page's budget.
    Raises InvalidArgument for arguments that do not make one read (a byte ``offset`` is ``view``'s alone)."""
    cursor = given.get("cursor")
    if offset and given.get("view") != "text":  # 0 is the default: only a view="text" read starts at a byte offset
        mode = ", ".join(sorted(given.keys() - {"cursor"})) or "cursor"
        raise InvalidArgument(f"offset cannot be combined with {mode}: a structure read starts where its own "
                              "arguments say (row=, record=, or the cursor its next_call gives); offset= is for "
                              'byte, line and search reads and view="text"')
    if given.get("slurp"):
        only_one_read(given, {"slurp", "jq", "cursor"})
        return lambda b: reads.slurp(handle, given.get("jq"), cursor=cursor, budget=b, call_budget=call_budget)
    if "select" in given:
        only_one_read(given, {"select", "cursor"})
        return lambda b: reads.select(handle, given["select"], cursor=cursor, budget=b)
    if given.get("view") == MEMBERS_VIEW:  # an archive's members, page by page
        only_one_read(given, {"view", "cursor"})
        return lambda b: reads.members(handle, cursor=cursor, budget=b)
    if "view" in given:
        if given["view"] != "text":
            raise InvalidArgument(f'view must be "text" or "members", not {str(given["view"])[:40]!r}')
        only_one_read(given, {"view", "raw_offset", "cursor"})
        if cursor is not None and (offset or "raw_offset" in given):  # (the cursor goes on where it says)
            raise InvalidArgument(f"{'offset' if offset else 'raw_offset'}= starts a text view read and cannot be "
                                  "given beside a cursor, which goes on where the last page stopped: pass the "
                                  "next_call as written, or start from the offset without a cursor")
        return lambda b: reads.text(handle, offset, cursor=cursor, budget=b, raw_offset=given.get("raw_offset"))
    if {"row", "rows", "columns"} & given.keys():
        only_one_read(given, {"row", "rows", "columns", "cursor"})
        if cursor is not None and "row" in given:
            check_resumes_at(cursor, given["row"], "row", 3)  # (number, offset, chars)
        return lambda b: reads.rows(handle, given.get("row", 1), given.get("rows", 50), columns=given.get("columns"),
                                    cursor=cursor, budget=b, call_budget=call_budget)
    if {"record", "records"} & given.keys():
        only_one_read(given, {"record", "records", "jq", "cursor"})
        if cursor is not None and "record" in given:
            check_resumes_at(cursor, given["record"], "record", 4)
        return lambda b: reads.records(handle, given.get("record", 1), given.get("records", 50),
                                       jq=given.get("jq"), cursor=cursor, budget=b, call_budget=call_budget)
    if "jq" in given:
        only_one_read(given, {"jq", "cursor"})
        return lambda b: reads.jq(handle, given["jq"], cursor=cursor, budget=b, call_budget=call_budget)
    if "raw_offset" in given:  # (what is left: raw_offset, a cursor)
        at = given["raw_offset"]
        raise InvalidArgument(Advice.of('raw_offset goes with view="text": ', Call.of(
            "read_handle", handle=handle, view="text", raw_offset=at), " starts the text view of terminal output at "
            f"the line holding byte {at}"))
    raise InvalidArgument("a cursor continues a structure read: give the read's own arguments too (next_call does)")
