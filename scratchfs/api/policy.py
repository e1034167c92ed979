"""Spill policy: which tool results leave the context, and the stub that replaces them.

The decision is conservative (:func:`should_spill`): a result is spilled only when it is larger than the threshold,
its result class is one that floods context (:data:`SPILL_CLASSES`), it carries no out-of-band meaning a stub would
strip, and it does not come from the store's own verbs or another tool listed in :data:`NEVER_SPILL_TOOLS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scratchfs.api.stub import Stub
from scratchfs.foundation.limits import SPILL_THRESHOLD_BYTES

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
    threshold_bytes: int = SPILL_THRESHOLD_BYTES,
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


__all__ = ["NEVER_SPILL_TOOLS", "SPILL_CLASSES", "Observation", "content_size", "is_never_spilled", "should_spill",
           "tool_basename"]
