"""How stored bytes appear to a model, and how every reply is fitted into its budget.

**One rule for every face** (MCP, the adapter, the CLI's ``--json``, the web API). Content that is text -- UTF-8,
even with a few invalid bytes, a stray NUL or Latin-1 letters -- is shown as text: whole UTF-8 characters, each byte
that is not part of a valid character replaced by U+FFFD, and ``"replaced": N`` saying how many bytes were (absent
when none were). Only content classified as binary (:func:`scratchfs.api.shape.describe`) is shown as a hex dump
(``"encoding": "hexdump"``: 16 bytes a line, ``OFFSET  HEX  |ASCII|``), which a model reads better than base64 --
but a byte range of binary content whose bytes are text (:func:`reads_as_text`: a tar member of JSON lines, a zip
member stored uncompressed) is shown as text is, ``"encoding": "text"`` saying so: a hex dump costs about 4.8 times
the bytes it shows (and shows exactly the bytes asked, never cut to a character).

**Budgets.** A reply's size is what the model receives: the UTF-8 bytes of its compact JSON text, escapes
included (a control byte costs six). :func:`fit` finds the largest piece of a result whose reply fits the budget,
and the reply's cursor (``next_offset``, ``next_line``, ``next_call``) then says where the rest begins: nothing is
skipped and nothing is returned twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from scratchfs.api.encodings import WIDE, decode_single, wide_piece
from scratchfs.foundation.text import (
    invalid_utf8_bytes,
    utf8_but_cut_end,
    utf8_lead_length,
    utf8_partial_tail,
    utf8_suffix_start,
)

HEX_LINE_BYTES = 16
"""Content bytes per hex-dump line."""


def to_json(result: Mapping[str, Any]) -> str:
    """A result as the compact JSON text that enters the context (non-ASCII kept as is)."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def reply_text(result: Mapping[str, Any]) -> str:
    """A reply as the text a model receives (the MCP faces' text block, the agent-loop adapter's ``ToolReply.text``):
    its compact JSON without ``calls``, the calls its ``note`` names already, as data for a program (the structured
    content, ``ToolReply.result``, the CLI's commands keep them). 108 to 157 bytes a call, up to 29% of a reply
    (``python bench/error_sizes.py``, ``python bench/note_calls.py``)."""
    return to_json({key: value for key, value in result.items() if key != "calls"} if "calls" in result else result)


def reply_size(result: Any) -> int:
    """Bytes of ``result`` (a reply, or any JSON value in one) as a reply's budget counts them: the UTF-8 length of
    the text a model receives, its compact JSON (of a reply: :func:`reply_text`, its ``calls`` left out: the
    structured content a program reads adds them, 108 to 157 bytes a call)."""
    return len((reply_text(result) if isinstance(result, Mapping) else to_json(result)).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class Piece:
    """Content bytes as shown: ``offset`` and ``length`` of the bytes covered, ``data`` the text shown, ``replaced``
    the bytes shown as U+FFFD, ``encoding`` ``None`` (text) or ``"hexdump"``."""

    offset: int
    length: int
    data: str
    replaced: int = 0
    encoding: str | None = None

    def fields(self) -> dict[str, Any]:
        """``{offset, length}``; ``data``, ``replaced`` and ``encoding`` come from :meth:`content_fields`."""
        return {"offset": self.offset, "length": self.length}

    def content_fields(self) -> dict[str, Any]:
        """``{data}`` plus ``replaced`` (when any byte was) and ``encoding`` (when not text)."""
        out: dict[str, Any] = {"data": self.data}
        if self.replaced:
            out["replaced"] = self.replaced
        if self.encoding:
            out["encoding"] = self.encoding
        return out


def lead_inside_character(raw: bytes, before: bytes) -> int:
    """How many bytes at the start of ``raw`` finish a UTF-8 character that started in ``before`` (the up to 3 bytes
    just before ``raw``): 0 when ``raw`` starts on a character boundary or the bytes are not valid UTF-8 there."""
    for back in range(1, min(3, len(before)) + 1):
        byte = before[-back]
        if byte & 0xC0 != 0x80:  # the last sequence that starts before raw starts here
            need = utf8_lead_length(byte) - back
            if byte < 0xC2 or need <= 0:
                return 0
            tail = before[len(before) - back :] + raw[:need]
            try:
                tail.decode("utf-8")
            except UnicodeDecodeError as exc:  # raw ends before the character does: skip what it holds of it
                return len(raw) if len(raw) < need and exc.reason == "unexpected end of data" else 0
            return need
    return 0


def text_piece(raw: bytes, offset: int, size: int, *, before: bytes | None = b"", keep_from: int | None = None,
               keep_to: int | None = None) -> Piece:
    """The bytes ``raw`` at ``offset`` of a content of ``size`` bytes, shown as text: a character begun before them
    or cut by their end (unless the content ends there) is left out, never cutting into ``[keep_from, keep_to)``;
    invalid bytes become U+FFFD and are counted. ``before``: the bytes just before ``raw`` (up to 3), to tell exactly
    whether it starts inside a character; ``None`` when they are not at hand (a search window's context): then up to
    3 leading continuation bytes are taken for the end of a character begun earlier."""
    if offset <= 0:
        lead = 0
    elif before is None:
        lead = utf8_suffix_start(raw)
    else:
        lead = lead_inside_character(raw, before)
    if keep_from is not None:
        lead = min(lead, max(0, keep_from - offset))
    end = offset + len(raw)
    tail = utf8_partial_tail(raw[lead:]) if end < size else 0
    if tail and not utf8_but_cut_end(raw[len(raw) - tail :]):
        tail = 0  # not the start of a real character: show it, replaced
    if keep_to is not None:
        tail = min(tail, max(0, end - keep_to))
    body = raw[lead : len(raw) - tail]
    text = body.decode("utf-8", "replace")
    replaced = invalid_utf8_bytes(body) if "\ufffd" in text else 0
    return Piece(offset + lead, len(body), text, replaced)


def hex_piece(raw: bytes, offset: int) -> Piece:
    """The bytes ``raw`` at ``offset`` as a hex dump: one line per :data:`HEX_LINE_BYTES` bytes,
    ``OFFSET  HEX  |ASCII|`` (offsets in hex, as ``hexdump -C`` prints them)."""
    lines = []
    for at in range(0, len(raw), HEX_LINE_BYTES):
        chunk = raw[at : at + HEX_LINE_BYTES]
        shown = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        lines.append(f"{offset + at:08x}  {chunk.hex(' '):<47}  |{shown}|")
    return Piece(offset, len(raw), "\n".join(lines), 0, "hexdump")


_NOT_CONTROL = bytes(sorted(set(range(256)) - {*range(9), 11, 12, *range(14, 32), 127}))
"""Every byte but the control bytes other than tab, newline and carriage return (C0, DEL): ``translate`` deletes
these, leaving the control bytes (4 times as fast as a regular expression over the decoded text)."""
_C1 = re.compile(rb"\xc2[\x80-\x9f]")
"""A C1 control character (U+0080 to U+009F) in UTF-8."""


def reads_as_text(raw: bytes, offset: int, size: int, before: bytes = b"") -> bool:
    """Whether the bytes ``raw`` at ``offset`` of a binary content of ``size`` bytes are text, shown as
    :func:`text_piece` shows text: valid UTF-8 (but a character cut by its end, which ``text_piece`` leaves for the
    next range) of at least one whole character, holding no control character but tab, newline and carriage return
    (a NUL, an escape sequence, DEL or a C1 control makes it binary, as does any byte that is no UTF-8). Bytes that
    start inside a character (one begun in ``before``, the up to 3 bytes just before ``raw``) are no text either:
    a hex dump shows exactly the bytes asked, so the range after one may start inside a character, and a text
    range would start after it, the bytes between shown by neither. Decided once for a whole range: a range
    holding one such byte stays a hex dump. Never raises."""
    if offset > 0 and lead_inside_character(raw, before):
        return False
    tail = utf8_partial_tail(raw) if offset + len(raw) < size else 0
    if tail and not utf8_but_cut_end(raw[len(raw) - tail :]):
        tail = 0
    body = raw[: len(raw) - tail]
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return bool(body) and not body.translate(None, _NOT_CONTROL) and (b"\xc2" not in body or not _C1.search(body))


def piece(raw: bytes, offset: int, size: int, binary: bool, encoding: str | None = None, **text_options: Any
          ) -> Piece:
    """:func:`hex_piece` for binary content, else :func:`text_piece`; with a single-byte ``encoding``
    (``"latin-1"``, ``"cp1252"``: :mod:`scratchfs.api.encodings`), binary or not, every byte as one character of it,
    ``"encoding"`` naming it; UTF-16 (:func:`~scratchfs.api.encodings.wide_piece`), from an even offset and its
    whole characters (``text_options``' ``before``: the bytes before ``raw``)."""
    if encoding in WIDE:
        skip, length, text, replaced = wide_piece(raw, offset, size, encoding, text_options.get("before", b""))
        return Piece(offset + skip, length, text, replaced, encoding)
    if encoding is not None:
        return Piece(offset, len(raw), decode_single(raw, encoding), 0, encoding)
    return hex_piece(raw, offset) if binary else text_piece(raw, offset, size, **text_options)


def fit(length: int, build: Callable[[int], dict[str, Any]], budget: int) -> dict[str, Any]:
    """``build(k)`` for the largest ``k`` in ``[1, length]`` whose reply fits ``budget`` bytes (``build(1)`` when
    none does: a reply always moves a reader on). ``build(k)`` is a reply showing the first ``k`` bytes of a result;
    its size must grow with ``k``. Costs ``O(log length)`` builds."""
    whole = build(length)
    if length <= 1 or reply_size(whole) <= budget:
        return whole
    low, high = 1, length - 1  # build(low) is the best known to fit (or the floor)
    best = None
    while low <= high:
        mid = (low + high) // 2
        reply = build(mid)
        if reply_size(reply) <= budget:
            best, low = reply, mid + 1
        else:
            high = mid - 1
    return best if best is not None else build(1)


__all__ = ["HEX_LINE_BYTES", "Piece", "fit", "hex_piece", "lead_inside_character", "piece",
           "reads_as_text", "reply_size", "reply_text", "text_piece", "to_json"]
