"""What reaches the model when a spill fails (a busy index, a full disk, S3 down): the one mechanism of every face
that passes a failed spill through (:meth:`scratchfs.Scope.offload`, so the adapter, the pytest plugin and the MCP
proxy; the adapter when it has no scope; the proxy while its store is not open).

A failed spill is never a failed tool call. A result up to the store's ``passthrough_max_bytes`` (bytes as the model
receives it, :func:`~scratchfs.api.policy.result_size`) goes through whole; a larger one would flood the context the
spill exists to protect (a 209 MB result passed whole makes the model API refuse the next request, so the agent's
next step fails anyway): its content becomes a notice of at most 1.5 KiB (:func:`~scratchfs.api.stub.refusal_notice`,
the quota's form) -- a preview (the head; and the tail too for a result class previewed ``head+tail``, a log's last
lines), the size, ``stored: false`` and a note: the store failed (the error's kind, no operator detail), the rest is
not kept, and what to do (retry in a few seconds when the store was out of reach; ask the tool for less otherwise).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import replace

from scratchfs.api.policy import Observation, result_size, should_spill
from scratchfs.api.settings import Settings
from scratchfs.api.stub import refusal_notice
from scratchfs.foundation import checks
from scratchfs.foundation.errors import out_of_reach
from scratchfs.foundation.json_pieces import JsonText
from scratchfs.foundation.limits import PASSTHROUGH_MAX_BYTES, PREVIEW_BYTES, TEXT_PROBE_BYTES
from scratchfs.foundation.text import is_utf8_text, shorten

log = logging.getLogger("scratchfs.api.scope")  # (offload's logger: hosts filter on it)

RETRY_ADVICE = "The store was out of reach for a moment: retry the tool call in a few seconds. If it fails again, " \
    "ask the tool for less (a narrower query, fewer rows, one page)."
"""How a failed spill's notice goes on when the store was out of reach (busy, a backend down or not answering)."""
LESS_ADVICE = "Ask the tool for less (a narrower query, fewer rows, one page): a result this large cannot reach you " \
    "whole while the store cannot keep it."
"""How a failed spill's notice goes on otherwise (a full disk, a file-size limit, an unexpected error)."""


def passed_through(obs: Observation, settings: Settings | None, error: BaseException | None) -> Observation:
    """``obs`` after a failed spill (``error``: what the spill raised; ``None``: a failure with no error to name,
    such as no scope): ``obs`` itself when its content is at most ``settings.passthrough_max_bytes`` as the model
    receives it (``None``: any size), or is no text nor structure (passed untouched, as offload passes it); else
    ``obs`` with its content replaced by the notice (module docstring) and ``refused`` set to the reason. A
    structure's JSON text is measured by writing it in pieces, never held whole. ``settings``: the store's (``None``:
    the defaults, for a face that has no store). Never raises: what it cannot measure goes through as it came."""
    bound, preview_bytes = _bounds(settings)
    if bound is None:
        return obs
    try:
        measured = _measured(obs.content, bound, preview_bytes)
    except Exception as exc:  # (a structure with no JSON text: the loop cannot send it either)
        log.warning("scratchfs: the result of %s could not be measured (%s); passing it through",
                    shorten(obs.tool, 120), type(exc).__name__)
        return obs
    if measured is None:
        return obs
    head, tail, size = measured
    kind = getattr(error, "kind", "error") if error is not None else "error"
    reachable = error is None or not out_of_reach(error)
    mode = "head" if settings is None else settings.preview_modes.get(obs.result_class or "", settings.preview_mode)
    notice = refusal_notice(head, checks.clean_tool(obs.tool), f"the store failed ({kind})", preview_bytes,
                            LESS_ADVICE if reachable else RETRY_ADVICE, size=size, tail=tail, mode=mode)
    return replace(obs, content=notice, refused=f"{kind}: the spill failed and the result is over "
                                                 f"passthrough_max_bytes ({bound:,})")


def unspilled(obs: Observation, settings: Settings | None, extra_bytes: int = 0) -> Observation:
    """``obs``, a result of a face that has no store to spill it to (its scope could not be had, the store is not
    open yet), as a failed spill passes it: :func:`passed_through` when the spill policy would have spilled it
    (:func:`~scratchfs.api.policy.should_spill` under ``settings``, ``None``: the defaults; ``extra_bytes`` as it
    takes them), else ``obs`` itself. Never raises."""
    try:
        spill = should_spill(obs, extra_bytes=extra_bytes) if settings is None else should_spill(
            obs, settings.spill_threshold_bytes, never_spill_tools=settings.never_spill_tools,
            spill_classes=settings.spill_classes, extra_bytes=extra_bytes)
    except Exception:  # (a bug: the result goes through as it came)
        log.error("scratchfs: judging the result of %s failed; passing it through whole", shorten(obs.tool, 120),
                  exc_info=True)
        return obs
    return passed_through(obs, settings, None) if spill else obs


def chunks_passed_through(chunks: Iterable[bytes], tool: str | None, reason: str, advice: str,
                          settings: Settings | None = None, mode: str | None = None) -> tuple[bytes, int, bool]:
    """An input given as ``chunks`` (bytes, in order; a pipe's) that could not be spilled, as :func:`passed_through`
    passes a failed spill: ``(content, size, whole)`` -- the input itself (``whole``) when it is at most
    ``settings.passthrough_max_bytes`` as the model receives it (:func:`~scratchfs.api.policy.result_size`;
    ``settings`` ``None``: the defaults, 64 KiB), else the notice of at most 1.5 KiB
    (:func:`~scratchfs.api.stub.refusal_notice`) as UTF-8: a preview of its head (``mode`` ``"head+tail"``: and its
    tail; ``None``: the settings' ``preview_mode``), its ``size`` in bytes, ``reason`` and ``advice``. Holds at most
    the bound and a preview's bytes, never the whole input past it; raises what reading ``chunks`` raises."""
    bound, preview_bytes = _bounds(settings)
    mode = mode or ("head" if settings is None else settings.preview_mode)
    held, pieces = bytearray(), iter(chunks)
    for chunk in pieces:
        held += chunk
        if bound is not None and len(held) > bound:
            break
    else:
        if bound is None or result_size(bytes(held)) <= bound:
            return bytes(held), len(held), True
    keep = _kept(preview_bytes)
    head, tail, size = bytes(held[:keep]), bytes(held[-keep:]), len(held)
    del held
    for chunk in pieces:  # (drained, its last bytes kept: the rest is not kept anywhere)
        size += len(chunk)
        tail = (tail + chunk)[-keep:]
    notice = refusal_notice(head, checks.clean_tool(tool) if tool else None, reason, preview_bytes, advice, size=size,
                            tail=tail, mode=mode)
    return notice.encode("utf-8"), size, False


def outcome(obs: Observation) -> str:
    """The end of a failed spill's log line: what :func:`passed_through` did with ``obs`` (its result)."""
    return "passing a preview and a notice" if obs.refused is not None else "passing it through whole"


_NO_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
"""A lone surrogate that stands for no byte (``surrogateescape`` writes a byte that is no UTF-8 as U+DC80-U+DCFF)."""


def text_bytes(text: str) -> str | bytes:
    """``text`` to spill: itself when it is UTF-8 text, else its bytes, each lone surrogate U+DC80-U+DCFF the byte it
    stands for (``os.fsdecode``, ``errors="surrogateescape"``: a file name's or a command's bytes that are no UTF-8)
    and any other one U+FFFD, as a view shows both; a spill of text with a lone surrogate is refused, and a result of
    a tool that decoded such bytes went into the context whole. A failed spill's preview shows them so too."""
    if is_utf8_text(text):
        return text
    return _NO_BYTE.sub("\ufffd", text).encode("utf-8", "surrogateescape")


def _measured(content: object, bound: int, preview_bytes: int) -> tuple[bytes, bytes, int] | None:
    """``None`` when ``content`` goes through whole (at most ``bound`` bytes as a model receives it, or neither text
    nor a structure); else its head and tail bytes for a preview and its size in bytes. Raises what writing a
    structure's JSON text raises."""
    keep = _kept(preview_bytes)
    if isinstance(content, (dict, list, tuple)):
        text = JsonText(content, bound)
        if text.whole is not None and result_size(text.whole) <= bound:
            return None
        head = text.head_text()[:keep].encode("utf-8", "backslashreplace")
        return head, b"", text.drained_size()
    if isinstance(content, str):
        if len(content) <= bound and result_size(content) <= bound:
            return None
        size = len(content) if content.isascii() else len(_as_bytes(text_bytes(content)))  # (the bytes a spill keeps)
        return _as_bytes(text_bytes(content[:keep])), _as_bytes(text_bytes(content[-keep:])), size
    if isinstance(content, (bytes, bytearray, memoryview)):
        data = memoryview(content).cast("B")
        if len(data) <= bound and result_size(data) <= bound:
            return None
        return bytes(data[:keep]), bytes(data[-keep:]), len(data)
    return None


def _bounds(settings: Settings | None) -> tuple[int | None, int]:
    """``(passthrough_max_bytes, preview_bytes)`` of ``settings`` (``None``: the defaults), in bytes."""
    if settings is None:
        return PASSTHROUGH_MAX_BYTES, PREVIEW_BYTES
    return settings.passthrough_max_bytes, settings.preview_bytes


def _kept(preview_bytes: int) -> int:
    """The bytes of a failed spill's head (and tail) kept for its notice's preview and its probe of what it is."""
    return max(preview_bytes + 4, TEXT_PROBE_BYTES)


def _as_bytes(text: str | bytes) -> bytes:
    """:func:`text_bytes`'s answer as bytes (UTF-8 text encoded)."""
    return text.encode() if isinstance(text, str) else text


__all__ = ["LESS_ADVICE", "RETRY_ADVICE", "chunks_passed_through", "outcome", "passed_through", "text_bytes",
           "unspilled"]
