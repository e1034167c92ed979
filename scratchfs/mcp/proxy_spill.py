"""The spill policy of ``scratchfs mcp-proxy`` applied to one upstream ``CallToolResult`` (see
:mod:`scratchfs.mcp.proxy` for the rules), and the one stderr line that says when a result the policy would spill
went through whole only because it carries structured content."""

from __future__ import annotations

import logging
from collections.abc import MutableSet
from typing import Any, Protocol

from scratchfs.api.policy import Observation, result_size, should_spill
from scratchfs.api.scope import Scope
from scratchfs.api.settings import Settings
from scratchfs.api.spill_failure import unspilled
from scratchfs.foundation.text import shorten

log = logging.getLogger(__name__)

BLOCK_JSON_BYTES = len('{"type":"text","text":""}') + len(",") - len("\\n")
"""Bytes of JSON each text block past the first costs the model beyond the newline that joins it in the stored text
(24): its wrapper, the text's quotes included, and the comma before it, less the newline's two bytes (``\\n``).
4,000 empty blocks are 104 KB of JSON, which were judged as 3,999 newlines, 7,998 bytes, and passed through whole."""
MOST_NOTED = 1024
"""Most tools whose structured pass-through is remembered (and so logged once each); past it, no more are logged."""


class ClassOf(Protocol):
    def class_of(self, tool: str) -> str:
        """The result class of an upstream tool."""


def spill_result(scope: Scope | None, config: ClassOf, tool: str, result: Any,
                 noted: MutableSet[str] | None = None, settings: Settings | None = None) -> Any:
    """Apply the spill policy to an upstream ``CallToolResult``: the result unchanged, or one text block holding the
    stub. Blocking (call it from a worker thread); never raises (a failed spill passes the result through, up to the
    store's ``passthrough_max_bytes``: :mod:`scratchfs.api.spill_failure`). ``scope`` ``None``: the store is not open
    yet, and a result the policy would spill (under ``settings``) goes as a failed spill's does.

    A result the policy would spill (all text, over the threshold, a spilling class) that goes through whole only
    because of its structured content -- a tool of the SDK's ``MCPServer`` returning a pydantic model or a dict --
    is logged at WARNING level (on stderr), once per tool: when ``noted`` (the tools logged so far) does not hold it
    yet, and it then does (``None``: every such result is logged).
    """
    import mcp_types as types

    # conservative, as for an Observation: anything but None counts as set (an empty ``_meta`` included), and a
    # result type other than "complete" (an extension's) is meaning the stub's new result would rewrite
    if result.is_error or result.meta is not None or not result.content:
        return result
    if result.result_type not in (None, "complete"):
        return result
    if any(not isinstance(block, types.TextContent) or block.annotations is not None or block.meta is not None
           for block in result.content):
        return result
    texts = [block.text for block in result.content]
    text = texts[0] if len(texts) == 1 else "\n".join(texts)
    # what the SDK's MCPServer adds to a str result ({"result": text}) or to a list[str] one, a block per item
    # ({"result": [text, ...]}): nothing a stub strips; it becomes {"result": stub} or {"result": [stub]}
    mirrored = result.structured_content == {"result": text}
    listed = not mirrored and bool(texts) and result.structured_content == {"result": texts}  # one item too
    obs, extra = Observation(tool=tool, content=text, result_class=config.class_of(tool)), BLOCK_JSON_BYTES * (
        len(texts) - 1)
    if result.structured_content is not None and not (mirrored or listed):
        if scope is not None:
            note_structured(scope, obs, noted, extra)
        return result
    out = unspilled(obs, settings, extra) if scope is None else scope.offload(obs, extra_bytes=extra)
    if out.stub is None and out.refused is None:  # not spilled (or a failed spill): the result as it came
        return result
    structured = {"result": out.content} if mirrored else {"result": [out.content]} if listed else None
    return types.CallToolResult(content=[types.TextContent(text=out.content)], structured_content=structured)


def note_structured(scope: Scope, obs: Observation, noted: MutableSet[str] | None, extra_bytes: int = 0) -> None:
    """Log that ``obs`` (a result with structured content) passes through whole, if the policy would otherwise have
    spilled it (``extra_bytes``: as :func:`~scratchfs.api.policy.should_spill` takes it) and its tool is not in
    ``noted`` yet (then added; see :func:`spill_result`). Never raises."""
    tool = obs.tool
    if noted is not None and (tool in noted or len(noted) >= MOST_NOTED):
        return
    settings = scope.store.settings
    if not should_spill(obs, settings.spill_threshold_bytes, never_spill_tools=settings.never_spill_tools,
                        spill_classes=settings.spill_classes, extra_bytes=extra_bytes):
        return
    if noted is not None:
        noted.add(tool)
    log.warning("scratchfs mcp-proxy: tool %s returned %d bytes with structured content: passed through whole, not "
                "spilled (a stub would strip what its output schema promises); for large results, have the tool "
                "return text (a str, or @mcp.tool(structured_output=False)) or fewer rows. Said once per tool",
                shorten(tool, 120), result_size(obs.content))


__all__ = ["BLOCK_JSON_BYTES", "MOST_NOTED", "ClassOf", "note_structured", "spill_result"]
