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


@dataclass(frozen=True)
class Stub:
    """What reaches the model instead of a spilled result.

    Attributes:
        handle: the handle to read the whole result back with ``read_handle``.
        preview: the first bytes of the content as text (cut on a UTF-8 character boundary).
        size: the whole content, in bytes.
        note: one or two sentences naming the exact calls that read more.
        source_tool: the tool that produced the result (not part of the JSON).
    """

    handle: str
    preview: str
    size: int
    note: str
    source_tool: str | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The stub as the JSON object that enters the context: ``{handle, preview, size, note}``."""
        return {"handle": self.handle, "preview": self.preview, "size": self.size, "note": self.note}

    def to_json(self) -> str:
        """The stub as compact JSON text (non-ASCII kept as is)."""
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


def utf8_prefix(data: bytes, limit: int) -> bytes:
    """The longest prefix of ``data`` of at most ``limit`` bytes that does not end inside a UTF-8 sequence."""
    if len(data) <= limit:
        return data
    cut = limit
    for back in range(1, 4):  # the last 1..3 bytes: find the lead byte of the last sequence
        if cut - back < 0:
            break
        byte = data[cut - back]
        if byte & 0xC0 != 0x80:  # ASCII or a lead byte
            need = 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4 if byte >> 3 == 0b11110 else 1
            if need > back:
                cut -= back  # that sequence is cut short: leave it out
            break
    return data[:cut]


def make_preview(head: bytes, preview_bytes: int) -> tuple[str, int]:
    """Text of the first bytes of a content, at most ``preview_bytes`` bytes, cut on a UTF-8 character boundary.

    Invalid UTF-8 (binary content) is replaced with U+FFFD so the preview is always valid text. Returns
    ``(text, bytes of the content it covers)``.
    """
    prefix = utf8_prefix(bytes(head[:preview_bytes + 4]), preview_bytes)
    return prefix.decode("utf-8", "replace"), len(prefix)


def make_note(handle: str, size: int, covered: int, tool: str | None, read_bytes: int = 4096) -> str:
    """The stub's note: what was stored, and the exact calls that read the next range and search by match."""
    source = f"Output of {tool}" if tool else "Content"
    if covered >= size:
        more = f'Search it with read_handle(handle="{handle}", match="TEXT").'
    else:
        more = (f'Read on with read_handle(handle="{handle}", offset={covered}, length={read_bytes}) '
                f'or search it with read_handle(handle="{handle}", match="TEXT").')
    return (f"{source} ({size:,} bytes) was stored out of context as {handle}; "
            f"the preview shows bytes 0-{covered}. {more}")
