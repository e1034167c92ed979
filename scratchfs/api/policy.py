"""Spill policy: which tool results leave the context, and the stub that replaces them.

The decision is conservative (:func:`should_spill`): a result is spilled only when it is larger than the threshold,
its result class is one that floods context (:data:`SPILL_CLASSES`), it carries no out-of-band meaning a stub would
strip, and it does not come from the store's own verbs or another tool listed in :data:`NEVER_SPILL_TOOLS`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

SPILL_CLASSES = frozenset({"query", "workspace", "browser"})
"""Result classes whose large results flood the context and may be spilled. ``effect`` and unknown classes never are."""

NEVER_SPILL_TOOLS = frozenset({
    "read_handle", "scratch_write", "scratch_read", "scratch_list", "scratch_delete",
    "report_progress", "tool_search",
    "memory_write", "memory_read", "memory_search", "memory_delete", "memory_update", "memory_list",
    "remember", "recall",
})
"""Tools whose results are never spilled: the store's own verbs, progress reports, memory verbs and tool search.
A name matches after its namespace is stripped (``scratchfs.read_handle``, ``mcp__scratchfs__read_handle``); any
name starting with ``memory_`` or ``memory.`` counts as a memory verb."""

_NAMESPACE_RE = re.compile(r".*(?:__|[./:])")


_READ_BYTES = 4096  # the next calls a note names: read_handle's default range length ...
_LINES = 50  # ... and line count (scratchfs.store.DEFAULT_READ_BYTES, DEFAULT_LINES)
MAX_STUB_BYTES = 1536
"""Most bytes of a stub's compact JSON: the preview gives way so that the whole stub fits."""
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


@dataclass(frozen=True)
class Observation:
    """A tool result on its way back to the model.

    Attributes:
        tool: the tool's name.
        content: the result, ``str`` or ``bytes``.
        result_class: ``"query"``, ``"workspace"``, ``"browser"`` (may flood the context), ``"effect"`` (a side
            effect's receipt), or ``None`` (unknown: never spilled).
        artifact_id, mutation_complete, metadata, memory_entry_id, persisted: out-of-band meaning; when any is set
            (not ``None``) the result is never spilled.
        stub: set by :meth:`scratchfs.Scope.offload` when the content was replaced by a stub.
    """

    tool: str
    content: str | bytes
    result_class: str | None = None
    artifact_id: str | None = None
    mutation_complete: bool | None = None
    metadata: Mapping[str, Any] | None = None
    memory_entry_id: str | None = None
    persisted: bool | None = None
    stub: Stub | None = None


def tool_basename(tool: str) -> str:
    """The tool name without its namespace: ``"mcp__scratchfs__read_handle"`` -> ``"read_handle"``."""
    return _NAMESPACE_RE.sub("", tool)


def is_never_spilled(tool: str, never_spill_tools: Iterable[str] = NEVER_SPILL_TOOLS) -> bool:
    """True if results of ``tool`` are never spilled (see :data:`NEVER_SPILL_TOOLS`)."""
    names = never_spill_tools if isinstance(never_spill_tools, (set, frozenset)) else frozenset(never_spill_tools)
    base = tool_basename(tool)
    return tool in names or base in names or base.startswith("memory_") or tool.startswith("memory.")


def content_size(content: str | bytes | bytearray | memoryview) -> int:
    """Size of a result in bytes (UTF-8 for text)."""
    if isinstance(content, str):
        return len(content.encode("utf-8", "surrogatepass"))
    return memoryview(content).nbytes


def should_spill(
    obs: Observation,
    threshold_bytes: int = 8192,
    *,
    never_spill_tools: Iterable[str] = NEVER_SPILL_TOOLS,
    spill_classes: Iterable[str] = SPILL_CLASSES,
) -> bool:
    """Decide whether an observation's content should leave the context.

    True only when all hold: the content is ``str`` or bytes-like and larger than ``threshold_bytes`` (UTF-8 bytes);
    ``obs.result_class`` is in ``spill_classes``; no out-of-band field is set (``artifact_id``,
    ``mutation_complete``, ``metadata``, ``memory_entry_id``, ``persisted``); the tool is not never-spilled
    (:func:`is_never_spilled`); and the observation was not already offloaded.
    """
    if obs.stub is not None or obs.result_class not in frozenset(spill_classes):
        return False
    if (obs.artifact_id is not None or obs.mutation_complete is not None or obs.metadata is not None
            or obs.memory_entry_id is not None or obs.persisted is not None):
        return False
    if not isinstance(obs.tool, str) or is_never_spilled(obs.tool, never_spill_tools):
        return False
    content = obs.content
    if isinstance(content, str):
        if len(content) > threshold_bytes:
            return True  # at least one byte per character
        if 4 * len(content) <= threshold_bytes:
            return False  # at most four bytes per character
    elif not isinstance(content, (bytes, bytearray, memoryview)):
        return False
    return content_size(content) > threshold_bytes


def utf8_lead_length(byte: int) -> int:
    """Bytes in the UTF-8 sequence that ``byte`` starts (RFC 3629): 2 to 4 for a lead byte, else 1."""
    return 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4 if byte >> 3 == 0b11110 else 1


def utf8_partial_tail(data: bytes | memoryview) -> int:
    """How many bytes at the end of ``data`` are a UTF-8 sequence cut short (0 if none)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # ASCII or a lead byte: the last sequence starts here
            return back if utf8_lead_length(byte) > back else 0
    return 0


def utf8_prefix(data: bytes, limit: int) -> bytes:
    """The longest prefix of ``data`` of at most ``limit`` bytes that does not end inside a UTF-8 sequence."""
    if len(data) <= limit:
        return data
    piece = data[:limit]
    return piece[: len(piece) - utf8_partial_tail(piece)]


def utf8_suffix_start(data: bytes | memoryview) -> int:
    """Index of the first byte of ``data`` that starts a UTF-8 character (skips at most 3 continuation bytes)."""
    start = 0
    while start < min(3, len(data)) and data[start] & 0xC0 == 0x80:
        start += 1
    return start


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
    by line and by pattern (by range and by match for binary content, which has no lines)."""
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
    by_range = f'read_handle(handle="{handle}", offset={covered}, length={_READ_BYTES})'
    if content_type == "binary":
        return (f"{what}; binary content, the preview shows {shows} with U+FFFD for bytes that are not text. "
                f'Next: {by_range} | read_handle(handle="{handle}", match="TEXT").')
    return (f"{what}; the preview shows {shows}. Next: {by_range} | "
            f'read_handle(handle="{handle}", line={next_line}, lines={_LINES}) | '
            f'read_handle(handle="{handle}", pattern="REGEX").')


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
