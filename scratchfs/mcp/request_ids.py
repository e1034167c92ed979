"""The ids a JSON-RPC reply of the MCP stdio transport (:mod:`scratchfs.mcp.stdio`) carries: whether a value is an
id MCP allows, the id of a message read whole, and the id at the start of a line too long to read."""

from __future__ import annotations

import codecs
import io
import json
from collections.abc import Callable
from typing import Any

from scratchfs.foundation.text import clipped, is_utf8_text


def is_request_id(value: Any) -> bool:
    """Whether ``value`` is an id MCP allows and a reply can carry: a string (of valid Unicode: no lone surrogate) or
    an integer (not a boolean, a float or null)."""
    if isinstance(value, str):
        return is_utf8_text(value)
    return isinstance(value, int) and not isinstance(value, bool)


def correlation_key(request_id: int | str) -> str:
    """The key under which the SDK correlates ``request_id``, as JSON text: a string that Python's ``int`` reads
    (``"7"``, ``" 7"``, ``"0007"``) is the integer it names, as the SDK's ``coerce_request_id`` has it -- its
    dispatcher keeps one request in flight per key, and a ``notifications/cancelled`` naming ``"7"`` cancels the
    request of id ``7`` --; any other id is itself (``"a"`` is not ``a``'s integer; ``1`` and ``"1"`` are one key)."""
    from mcp.shared.dispatcher import coerce_request_id

    return json.dumps(coerce_request_id(request_id))


def shown_id(text: str, limit: int = 60) -> str:
    """``text`` (an id as JSON) cut to ``limit`` characters for a message: an id may be megabytes long."""
    return clipped(text, limit)


def answered_ids(text: str) -> list[int | str]:
    """The ids that the JSON-RPC replies of ``text`` (one a line) answer."""
    found = []
    for line in text.splitlines():
        try:
            reply = json.loads(line)
        except ValueError:
            continue
        if isinstance(reply, dict) and ("result" in reply or "error" in reply) and is_request_id(reply.get("id")):
            found.append(reply["id"])
    return found


def request_id_of(obj: Any) -> int | str | None:
    """The id to answer a message with: its ``id`` when it is a request with a valid one, else ``None``."""
    if isinstance(obj, dict) and "method" in obj and is_request_id(obj.get("id")):
        return obj["id"]
    return None


HEAD_BYTES = 4096
"""Bytes at the start of a line too long to read whose top-level ``id`` is looked for (:func:`id_at_start`)."""
_BLANKS = (b" ", b"\t", b"\r", b"\n")  # JSON's whitespace (RFC 8259, section 2)


def id_at_start(head: bytes) -> int | str | None:
    """The ``id`` of the message a line starts with, read from ``head`` (its first bytes, :data:`HEAD_BYTES`) by a
    JSON tokenizer (ijson's pure-Python backend: bounded, and a number of thousands of digits is refused, where the
    C backend crashes): the value of a top-level ``"id"`` member that is valid (:func:`is_request_id`) and complete
    in ``head`` (more of the line read after it, or JSON whitespace alone up to the head's end), when ``head`` names
    it once and names a ``"method"`` (a request: a client's response, whose id is of the server's requests, is never
    answered) and no ``"result"`` or ``"error"``; else ``None``. Never raises."""
    import ijson

    if head.startswith(codecs.BOM_UTF8):
        head = head[len(codecs.BOM_UTF8):]
    found: list[Any] = []  # the id's values (a number once an event after it shows it complete: it may go on)
    named: set[str] = set()  # the top-level members named
    last = None  # the id's number last read, not yet known whole
    events = ijson.get_backend("python").basic_parse(io.BytesIO(head))  # (not parse: its prefixes of a head of
    try:  # 4,096 '[' are 4,096 strings up to 20 KB long, 116 ms; basic_parse's events and a depth take 8 ms)
        if next(events)[0] != "start_map":
            return None
        depth, member = 1, None
        for event, value in events:
            if last is not None:
                found.append(last)
                last = None
            if depth == 1 and event == "map_key":
                if value in ("result", "error"):
                    return None
                member = value
                named.add(value)
            elif depth == 1 and member == "id" and event == "string":
                found.append(value)  # (complete: its closing quote was read)
            elif depth == 1 and member == "id" and event == "number":
                last = value
            depth += (event in ("start_map", "start_array")) - (event in ("end_map", "end_array"))
    except Exception:  # the end of the head (or a fault of the line): what was read before it counts
        pass
    if last is not None and head[-1:] in _BLANKS:  # a number that blanks end, up to the head's end, is whole
        found.append(last)
    if len(found) == 1 and is_request_id(found[0]) and "method" in named:
        return found[0]
    return None


def unclaimed(reply: str, in_flight: Callable[[int | str], bool]) -> str:
    """``reply`` (the JSON text of the transport's own error for a line it refused, or an array of them) with each id
    that is a request's still in flight written ``null``: a refused line carrying that id (an invalid request, a batch
    member, a line too long) is answered as an Invalid Request whose id is not its to claim (JSON-RPC 2.0, section
    5), never under the id of a request that runs -- whose answer the client would take it for. Compact JSON, as the
    SDK writes; ``reply`` itself when no id is in flight."""
    found = json.loads(reply)
    errors = found if isinstance(found, list) else [found]
    claimed = [error for error in errors if error.get("id") is not None and in_flight(error["id"])]
    if not claimed:
        return reply
    for error in claimed:
        error["id"] = None
    return json.dumps(found, ensure_ascii=False, separators=(",", ":"))


__all__ = ["HEAD_BYTES", "answered_ids", "correlation_key", "id_at_start", "is_request_id", "request_id_of", "shown_id",
           "unclaimed"]
