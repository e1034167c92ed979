"""Reference copy, for differential tests only (issue 16): ``scratchfs/api/stub.py`` as it was at 7867ff0, before
its CPU work, with the ``render_call`` of ``scratchfs/api/results.py`` of that commit. Not to be edited.

The stub that replaces a spilled result in the context: its preview, its note (the exact next calls) and the
1.5 KiB budget of its compact JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from scratchfs.foundation.limits import DEFAULT_LINES, DEFAULT_READ_BYTES, MAX_STUB_BYTES
from scratchfs.foundation.text import utf8_prefix, utf8_suffix_start


def quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def render_call(verb: str, **arguments: object) -> str:
    parts = []
    for name, value in arguments.items():
        if value is None:
            continue
        if isinstance(value, str):
            shown = quote(value)
        elif isinstance(value, (bool, int, float)):
            shown = repr(value)
        else:  # a list (columns): JSON, as a model writes it
            shown = json.dumps(value, ensure_ascii=False)
        parts.append(f"{name}={shown}")
    return f"{verb}({', '.join(parts)})"

PREVIEW_MODES = ("head", "head+tail")
"""``head``: the first bytes. ``head+tail``: the first and the last bytes, with a marker giving the tail's offset."""


@dataclass(frozen=True)
class Stub:
    """What reaches the model instead of a spilled result.

    Attributes:
        handle: the handle to read the whole result back with ``read_handle``.
        preview: the first bytes of the content as text, cut on a UTF-8 character boundary (``head+tail``: also the
            last bytes, after a marker that gives their byte offset).
        size: the whole content, in bytes.
        note: the exact next calls that read on by range, by line and by pattern.
        lines: the content's line count (``\n`` count, plus one for an unterminated last line).
        content_type: ``json``, ``jsonl``, ``csv``, ``html``, ``xml``, ``log``, ``text`` or ``binary``.
        shape: a one- or two-line summary of the content (keys, columns, title, line lengths, ...).
        source_tool: the tool that produced the result (not part of the JSON).
    """

    handle: str
    preview: str
    size: int
    note: str
    lines: int = 0
    content_type: str | None = None
    shape: str | None = None
    source_tool: str | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The stub as the JSON object that enters the context:
        ``{handle, preview, size, lines, content_type, shape, note}``."""
        return {"handle": self.handle, "preview": self.preview, "size": self.size, "lines": self.lines,
                "content_type": self.content_type, "shape": self.shape, "note": self.note}

    def to_json(self) -> str:
        """The stub as compact JSON text (non-ASCII kept as is); at most :data:`MAX_STUB_BYTES` UTF-8 bytes when
        built by :func:`build_stub`."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))


def make_preview(head: bytes, tail: bytes, size: int, limit: int, mode: str = "head") -> tuple[str, int, int | None]:
    """The preview text of a content, the bytes of its start it covers, and where its tail part starts.

    Args:
        head: the first bytes of the content (at least ``limit`` of them when the content is that long).
        tail: the last bytes of the content (used by ``head+tail``).
        size: the content's size, in bytes.
        limit: most bytes of content the preview shows.
        mode: ``"head"`` or ``"head+tail"`` (:data:`PREVIEW_MODES`).

    Returns:
        ``(text, bytes of the start covered, byte offset of the tail shown or None)``. Invalid UTF-8 (binary
        content) is replaced with U+FFFD, so the preview is always valid text.
    """
    if mode == "head+tail" and size > limit:
        half = limit // 2
        start_bytes = utf8_prefix(bytes(head[: half + 4]), half)
        tail_bytes = bytes(tail[len(tail) - min(len(tail), limit - len(start_bytes)) :])
        tail_bytes = tail_bytes[utf8_suffix_start(tail_bytes) :]
        tail_offset = size - len(tail_bytes)
        omitted = tail_offset - len(start_bytes)
        marker = f"\n[… {omitted:,} bytes omitted; the tail starts at byte {tail_offset} …]\n"
        text = start_bytes.decode("utf-8", "replace") + marker + tail_bytes.decode("utf-8", "replace")
        return text, len(start_bytes), tail_offset
    prefix = utf8_prefix(bytes(head[: limit + 4]), limit)
    return prefix.decode("utf-8", "replace"), len(prefix), None


def make_note(handle: str, size: int, covered: int, next_line: int, lines: int, tool: str | None,
              tail_offset: int | None = None, content_type: str | None = None) -> str:
    """The stub's note: what was stored, what the preview shows, and the exact next calls that read on by range,
    by line and by pattern (by range and by match for binary content, which has no lines). Every call it names fits
    the default reply budget: a line read asks for as many lines as hold about :data:`DEFAULT_READ_BYTES` bytes at
    the content's average line length, and content whose lines are longer than that (one-line JSON, minified pages)
    gets no line read, only ranges and searches."""
    source = f"Output of {_clip(tool, 64)}" if tool else "Content"
    counted = f"{size:,} byte{'' if size == 1 else 's'}"
    if content_type != "binary":
        counted += f", {lines:,} line{'' if lines == 1 else 's'}"
    what = f"{source} ({counted}) stored out of context as {handle}"
    if size == 0:
        return f"{what}; it is empty."
    if covered >= size:
        return f"{what}; the preview shows all of it."
    shows = f"bytes 0-{covered}" + (f" and {tail_offset}-{size}" if tail_offset is not None else "")
    by_range = render_call("read_handle", handle=handle, offset=covered, length=DEFAULT_READ_BYTES)
    if content_type == "binary":
        # changed (2026-12-02): binary content's preview is a hex dump, as a range read gives it
        return (f"{what}; binary content, the preview shows {shows} as a hex dump (OFFSET  HEX  |ASCII|, as a range "
                f"read gives it). Next: {by_range} | {render_call('read_handle', handle=handle, match='TEXT')}.")
    by_pattern = render_call("read_handle", handle=handle, pattern="REGEX")
    by_structure = _structure_call(handle, content_type)
    if content_type in ("csv", "jsonl") and size <= 16 * 1024 * 1024:
        # changed (2026-12-04): a table's or JSON lines' note names one jq over all of them (slurp), within its bound
        by_structure += " | " + render_call("read_handle", handle=handle, jq="JQ", slurp=True)
    if by_structure:
        by_pattern = f"{by_structure} | {by_pattern}"
    average = size / max(1, lines)
    if average > DEFAULT_READ_BYTES:
        return (f"{what}; the preview shows {shows}; its lines average {average:,.0f} bytes, so read it by range. "
                f"Next: {by_range} | {by_pattern}.")
    count = max(1, min(DEFAULT_LINES, int(DEFAULT_READ_BYTES // max(1.0, average))))
    by_line = render_call("read_handle", handle=handle, line=next_line, lines=count)
    if content_type in ("log", "text") and tail_offset is None and lines >= next_line + 2 * count:
        # changed (2026-12-04): a log's or text's note names its last lines too (a build's errors, a test summary)
        by_line += " | " + render_call("read_handle", handle=handle, line=-count, lines=count)
    return f"{what}; the preview shows {shows}. Next: {by_range} | {by_line} | {by_pattern}."


def _structure_call(handle: str, content_type: str | None) -> str | None:
    """The structure read that fits a content type (the shape names what to aim it at), or ``None``."""
    arguments: dict[str, object] | None = {
        "json": {"jq": "keys[]"},  # (changed 2026-12-05: one key a result, paged)
        "jsonl": {"record": 1, "records": 10},
        "csv": {"row": 1, "rows": 20},
        "html": {"view": "text"},
    }.get(content_type or "")
    return render_call("read_handle", handle=handle, **arguments) if arguments else None


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def build_stub(handle: str, head: bytes, tail: bytes, size: int, lines: int, content_type: str | None,
               shape: str | None, tool: str | None, preview_bytes: int, mode: str = "head") -> Stub:
    """Build the stub of a spilled content so that its compact JSON fits :data:`MAX_STUB_BYTES`.

    The preview starts at ``preview_bytes`` bytes of content and shrinks, in proportion to what its JSON escaping
    costs, until the whole stub fits; the note names the next calls from where the preview stops.
    """
    limit = preview_bytes
    while True:
        if content_type == "binary":  # changed (2026-12-02): a hex dump of whole lines of 16 bytes, head only
            covered = min(size, len(head), limit if limit < 16 else limit // 16 * 16)
            rows = [head[at : min(covered, at + 16)] for at in range(0, covered, 16)]
            preview = "\n".join(f"{16 * i:08x}  {' '.join(f'{b:02x}' for b in row):<47}  |"
                                 + "".join(chr(b) if 32 <= b < 127 else "." for b in row) + "|"
                                 for i, row in enumerate(rows))
            tail_offset = None
        else:
            preview, covered, tail_offset = make_preview(head, tail, size, limit, mode)
        next_line = head[:covered].count(b"\n") + 1
        note = make_note(handle, size, covered, next_line, lines, tool, tail_offset, content_type)
        stub = Stub(handle, preview, size, note, lines, content_type, shape, tool)
        total = len(stub.to_json().encode("utf-8"))
        if total <= MAX_STUB_BYTES:
            return stub
        if limit == 0:  # the preview is gone and it still does not fit: the shape gives way too
            while shape and total > MAX_STUB_BYTES:
                shape = shape[: max(0, len(shape) - (total - MAX_STUB_BYTES) - 1)] + "…" if len(shape) > 1 else ""
                stub = Stub(handle, preview, size, note, lines, content_type, shape, tool)
                total = len(stub.to_json().encode("utf-8"))
            return stub
        preview_cost = len(json.dumps(preview, ensure_ascii=False).encode("utf-8")) - 2
        room = max(0, MAX_STUB_BYTES - (total - preview_cost) - 8)  # 8: the note's numbers may grow a digit
        limit = min(limit - 1, int(limit * room / max(1, preview_cost)))
        limit = max(0, limit)


__all__ = ["PREVIEW_MODES", "Stub", "build_stub", "make_note", "make_preview"]
