"""Spill policy: which tool results leave the context, and the stub that replaces them.

The decision is conservative (:func:`should_spill`): a result is spilled only when it is larger than the threshold
(counted as :func:`result_size` counts: the bytes of its text as a JSON string, escapes included), its result class
is one that floods context (:data:`SPILL_CLASSES`), it carries no out-of-band meaning a stub would strip, and it does
not come from the store's own verbs or another tool listed in :data:`NEVER_SPILL_TOOLS`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scratchfs.foundation.checks import closest
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.json_pieces import JsonText
from scratchfs.foundation.limits import SPILL_THRESHOLD_BYTES
from scratchfs.foundation.text import json_string_bytes, shorten

if TYPE_CHECKING:  # (an annotation only: the stub's modules, shape detection, load when a spill makes one)
    from scratchfs.api.stub import Stub

SPILL_CLASSES = frozenset({"query", "workspace", "browser"})
"""Result classes whose large results flood the context and may be spilled. ``effect`` and unknown classes never are."""

KNOWN_CLASSES = SPILL_CLASSES | {"effect"}
"""The result classes a program or operator may configure (with a store's own ``spill_classes``): those of
:data:`SPILL_CLASSES` and ``effect`` (a side effect's receipt, never spilled)."""

NEVER_SPILL_TOOLS = frozenset({
    "read_handle", "scratch_write", "scratch_read", "scratch_list", "scratch_delete",
    "report_progress", "tool_search",
    "memory_write", "memory_read", "memory_search", "memory_delete", "memory_update", "memory_list",
    "remember", "recall",
})
"""Tools whose results are never spilled: the store's own verbs, progress reports, memory verbs and tool search.
A name matches after its namespace is stripped (``scratchfs.read_handle``, ``mcp__scratchfs__read_handle``, and after
an ``_`` or ``-``: ``scratchfs_read_handle``); any name starting with ``memory_`` or ``memory.`` counts as a memory
verb."""

_MAX_JSON_BYTES_PER_UNIT = 6  # a control character is 6 bytes as JSON (\u0001); nothing costs more per character
# or per content byte (a 4-byte character is 4 bytes; an invalid byte at most 3, as the U+FFFD that replaces it)


@dataclass(frozen=True)
class Observation:
    """A tool result on its way back to the model.

    Attributes:
        tool: the tool's name.
        content: the result, ``str`` or ``bytes``; or a ``dict``, ``list`` or ``tuple`` (a structured result), which
            :func:`should_spill` judges, and :meth:`scratchfs.Scope.offload` spills, as its JSON text
            (:func:`judged_text`).
        result_class: ``"query"``, ``"workspace"``, ``"browser"`` (may flood the context), ``"effect"`` (a side
            effect's receipt), or ``None`` (unknown: never spilled).
        artifact_id, mutation_complete, metadata, memory_entry_id, persisted: out-of-band meaning; when any is set
            (not ``None``) the result is never spilled.
        stub: set by :meth:`scratchfs.Scope.offload` when the content was replaced by a stub.
        refused: set by :meth:`scratchfs.Scope.offload` when the store refused to keep a result it would have
            spilled (the run is at its quota; or the spill failed and the result is over ``passthrough_max_bytes``):
            the reason; the content is then a short notice with a preview
            (:func:`scratchfs.api.stub.refusal_notice`) instead of the whole result.
    """

    tool: str
    content: str | bytes | dict[str, Any] | list[Any] | tuple[Any, ...]
    result_class: str | None = None
    artifact_id: str | None = None
    mutation_complete: bool | None = None
    metadata: Mapping[str, Any] | None = None
    memory_entry_id: str | None = None
    persisted: bool | None = None
    stub: Stub | None = None
    refused: str | None = None


def check_result_class(value: object, spill_classes: Iterable[str] = SPILL_CLASSES, *, what: str = "result class",
                       open_ended: bool = False) -> str:
    """``value`` if it is a known result class: one of :data:`KNOWN_CLASSES` or of ``spill_classes`` (a store's
    ``spill_classes`` setting), compared exactly (case included). For every place a program or an operator *configures*
    a class (the adapter's ``classes``, ``default_class`` and ``result_class=``, ``mcp-proxy --class``): a
    misspelled class would otherwise mean "unknown: never spilled", silently.

    ``open_ended``: the store is not known yet (an adapter whose scope is picked per call): a class that is not known
    is accepted -- the store's own classes are checked when a result meets them (:meth:`Scope.offload` logs an
    unknown one) -- unless it is a near miss of a known one (another case, a typo), which is refused all the same.

    Raises:
        InvalidArgument: ``value`` is not text, or not a known class; the message names ``what``, the known classes
            and the closest one (``did you mean 'browser'?``).
    """
    known = KNOWN_CLASSES | frozenset(spill_classes)
    if isinstance(value, str) and value in known:
        return value
    names = ", ".join(sorted(known))
    if not isinstance(value, str):
        raise InvalidArgument(f"the {what} must be text, not {type(value).__name__}: {shorten(value)}; the known "
                              f"classes are {names}")
    close = closest(value, known)
    if open_ended and close is None:
        return value
    hint = f"; did you mean {close!r}?" if close else ""
    raise InvalidArgument(f"the {what} is {shorten(value)}, not a known class: the known classes are {names} "
                          f"(effect: never spilled){hint}")


def tool_basename(tool: str) -> str:
    """The tool name without its namespace: ``"mcp__scratchfs__read_handle"`` -> ``"read_handle"`` (what follows
    the last ``__``, ``.``, ``/`` or ``:`` of each line). Linear in the name's length, whatever it holds."""
    return "\n".join(map(_after_namespace, tool.split("\n"))) if "\n" in tool else _after_namespace(tool)


def _after_namespace(line: str) -> str:
    double = line.rfind("__")
    return line[max(double + 2 if double >= 0 else 0, *(line.rfind(sep) + 1 for sep in "./:")):]


def is_never_spilled(tool: str, never_spill_tools: Iterable[str] = NEVER_SPILL_TOOLS) -> bool:
    """True if results of ``tool`` are never spilled (see :data:`NEVER_SPILL_TOOLS`): its name, or the part after
    any namespace separator (``__``, ``.``, ``/``, ``:``, and ``_`` or ``-``, as hosts that name a server's tools
    ``{server}_{tool}`` do: ``scratchfs_read_handle``), is listed or starts with ``memory_``."""
    names = never_spill_tools if isinstance(never_spill_tools, (set, frozenset)) else frozenset(never_spill_tools)
    base = tool_basename(tool)
    if tool in names or base in names or base.startswith("memory_") or tool.startswith("memory."):
        return True
    longest = max(map(len, names), default=0)  # (a tail longer than every name is sliced for no one: linear time)
    return any(tool.startswith("memory_", i + 1) or (len(tool) - i - 1 <= longest and tool[i + 1:] in names)
               for i, char in enumerate(tool) if char in "_-" and 0 < i < len(tool) - 1)


def content_size(content: str | bytes | bytearray | memoryview) -> int:
    """Size of a result as stored, in bytes (UTF-8 for text): the ``size`` of its stub."""
    if isinstance(content, str):
        return len(content.encode("utf-8", "surrogatepass"))
    return memoryview(content).nbytes


def result_size(content: str | bytes | bytearray | memoryview) -> int:
    """Bytes a result costs the model: the UTF-8 bytes of its text written as a JSON string, escapes included and
    the two quotes not (``len(json.dumps(text, ensure_ascii=False).encode()) - 2``), the unit of every reply budget.

    Every face hands a result over as a string inside JSON -- the ``text`` of an MCP text block (and the proxy's
    ``{"result": text}`` structured content), the string an agent loop puts in its tool message -- written as
    ``json.dumps(..., ensure_ascii=False)`` and the MCP SDK write it: a quote, a backslash, ``\\n`` or ``\\t``
    costs 2 bytes, any other control character 6 (``\\u0001``), non-ASCII its UTF-8 bytes. A host that shows the
    model the raw text gives it fewer bytes: this size bounds both. It is never less than :func:`content_size`.
    ``bytes`` count as the text they are shown as (:mod:`scratchfs.api.views`): UTF-8, each invalid sequence
    replaced by U+FFFD (3 bytes).
    """
    if isinstance(content, str):
        return json_string_bytes(content)
    return json_string_bytes(bytes(content).decode("utf-8", "replace"))


def judged_text(content: object) -> str | bytes | bytearray | memoryview | None:
    """The text a result is judged (and spilled) as: ``str`` and bytes-like content as it is; a ``dict``, ``list`` or
    ``tuple`` as its JSON text, ``json.dumps(content, ensure_ascii=False)`` (what an agent loop sends the model);
    ``None`` for content of another type or a structure with no JSON text (whatever writing it raised: a value JSON
    has no form for, a dict changed by another thread as it is written, a lazy list whose iteration fails)."""
    if isinstance(content, (str, bytes, bytearray, memoryview)):
        return content
    if not isinstance(content, (dict, list, tuple)):
        return None
    try:
        return json_text(content)
    except Exception:
        return None


def json_text(content: dict[str, Any] | list[Any] | tuple[Any, ...]) -> str:
    """The JSON text a structured result is judged and spilled as: ``json.dumps(content, ensure_ascii=False)``.

    Raises:
        whatever ``json.dumps`` raises (TypeError, ValueError, RecursionError, an error of a lazy iterable)."""
    return json.dumps(content, ensure_ascii=False)


def _json_head(value: dict[str, Any] | list[Any] | tuple[Any, ...], limit: int) -> str | None:
    """A structure's JSON text (:func:`json_text`) when it is at most ``limit`` characters, else its first pieces,
    just past ``limit`` characters (:class:`~scratchfs.foundation.json_pieces.JsonText`: the rest is never written,
    whatever the size: over ``limit`` characters is over ``limit`` bytes of JSON); ``None`` when writing those
    raises (a value JSON has no form for among them)."""
    try:
        text = JsonText(value, limit)
    except Exception:
        return None
    return text.whole if text.whole is not None else text.head_text()


_FALSE_WORDS = frozenset({"0", "f", "false", "n", "no", "off"})
"""The strings the MCP SDK's ``CallToolResult`` reads as ``isError: false`` (pydantic's lax ``bool``, any case);
``"1"``, ``"t"``, ``"true"``, ``"y"``, ``"yes"``, ``"on"`` it reads as true, and any other string it refuses."""


def mcp_is_error(value: object) -> bool:
    """Whether an MCP tool result's ``isError`` value ``value`` makes it an error, as the MCP SDK's
    ``CallToolResult`` validation reads it (a boolean by the schema; pydantic's lax ``bool`` takes ``0``/``1``,
    ``0.0``/``1.0`` and the words of :data:`_FALSE_WORDS` and their true twins, in any case): ``"false"``,
    ``"no"``, ``0`` are no error. ``None`` is no error, as if absent (a ``_meta`` of ``None`` is absent too); a
    value the SDK refuses (``"maybe"``, ``2``, a list) is not an MCP result it would read, and counts as an error:
    passed through as it came, never spilled. The one rule of every face (:func:`tool_result_out_of_band`; the
    proxy's results are the SDK's, read so already)."""
    if value is None or value is False:
        return False
    if isinstance(value, str):
        return value.lower() not in _FALSE_WORDS
    if isinstance(value, (int, float)):
        return value != 0
    return True


def tool_result_out_of_band(content: object) -> bool:
    """Whether ``content`` is a ``dict`` shaped as an MCP tool result (``CallToolResult`` as JSON, a ``content``
    list beside) that carries meaning out of band: ``isError`` true as the MCP SDK reads it (:func:`mcp_is_error`:
    ``"false"`` is no error; the model must read an error itself) or a ``_meta`` (anything but ``None``, an empty
    one included) -- what ``mcp-proxy`` never spills (:mod:`scratchfs.mcp.proxy_spill`), whichever face the result
    comes through."""
    if not isinstance(content, dict) or not isinstance(content.get("content"), list):
        return False
    return mcp_is_error(content.get("isError")) or content.get("_meta") is not None


def should_spill(
    obs: Observation,
    threshold_bytes: int = SPILL_THRESHOLD_BYTES,
    *,
    never_spill_tools: Iterable[str] = NEVER_SPILL_TOOLS,
    spill_classes: Iterable[str] = SPILL_CLASSES,
    extra_bytes: int = 0,
) -> bool:
    """Decide whether an observation's content should leave the context.

    ``extra_bytes``: bytes of JSON the content costs the model beside its text, counted toward the threshold (the
    wrappers of the several MCP text blocks it came in, :func:`scratchfs.mcp.proxy_spill.spill_result`); 0 for a
    result that is one string.

    True only when all hold: the content is ``str`` or bytes-like, or a ``dict``, ``list`` or ``tuple`` judged as its
    JSON text (:func:`judged_text`, as :meth:`scratchfs.Scope.offload` spills it: its quotes count twice), and is
    larger than ``threshold_bytes`` as the model receives it (:func:`result_size`: its text as a JSON string,
    escapes included; 8,192 control characters are 49,152 bytes of JSON and are spilled); ``obs.result_class`` is
    in ``spill_classes``; no out-of-band field is set (``artifact_id``, ``mutation_complete``, ``metadata``,
    ``memory_entry_id``, ``persisted``), nor is the content an MCP tool result's ``dict`` with ``isError`` or
    ``_meta`` (:func:`tool_result_out_of_band`); the tool is not never-spilled (:func:`is_never_spilled`); and the
    observation was not already offloaded.

    Cheap: a result longer than the threshold (characters, or bytes) is over it without a look at its text, as its
    JSON is at least that long; one of at most a sixth of it is under it (a character or byte is at most 6 bytes of
    JSON); only those between are measured (microseconds for 8 KiB). A structure's text is written in pieces up to
    just past ``threshold_bytes`` characters and no further (a 50 MB one: a few pieces, not all of it): one whose
    text fails there (``{"a": object()}``) is never judged over, but one that fails only past them is judged over,
    as :meth:`scratchfs.Scope.offload` judges it before it spills the text (which then passes it through, logged).
    """
    if obs.stub is not None or obs.result_class not in frozenset(spill_classes):
        return False
    if (obs.artifact_id is not None or obs.mutation_complete is not None or obs.metadata is not None
            or obs.memory_entry_id is not None or obs.persisted is not None):
        return False
    if not isinstance(obs.tool, str) or is_never_spilled(obs.tool, never_spill_tools):
        return False
    if tool_result_out_of_band(obs.content):
        return False
    threshold_bytes -= max(0, extra_bytes)
    content = obs.content if isinstance(obs.content, (str, bytes)) else (
        _json_head(obs.content, threshold_bytes) if isinstance(obs.content, (dict, list, tuple))
        else judged_text(obs.content))
    if isinstance(content, str):
        length = len(content)
    elif isinstance(content, (bytes, bytearray, memoryview)):
        try:
            length = memoryview(content).nbytes
        except ValueError:  # a released memoryview: nothing to spill, it goes through as it is
            return False
    else:
        return False
    if length > threshold_bytes:
        return True  # at least one byte of JSON per character, and per content byte
    if _MAX_JSON_BYTES_PER_UNIT * length <= threshold_bytes:
        return False
    return result_size(content) > threshold_bytes


__all__ = ["KNOWN_CLASSES", "NEVER_SPILL_TOOLS", "SPILL_CLASSES", "Observation", "check_result_class", "content_size",
           "is_never_spilled", "json_text", "judged_text", "mcp_is_error", "result_size", "should_spill",
           "tool_basename", "tool_result_out_of_band"]
