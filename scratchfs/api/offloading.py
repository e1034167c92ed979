"""A tool result through the spill policy (:meth:`scratchfs.Scope.offload`): unchanged, or its content replaced by
the stub; a structured result (a ``dict``, ``list`` or ``tuple``) judged and spilled as its JSON text, written as a
stream of pieces (:func:`~scratchfs.foundation.json_pieces.json_pieces`) so that a large one is never held as text
whole (``python bench/offload_memory.py``: 54 MiB of JSON text offloaded with 110 MiB of peak growth before, by
``json.dumps``; 8.5 MiB now: the figures are in bench/README.md, the script's row)."""

from __future__ import annotations

import logging
from collections.abc import Generator, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from scratchfs.api.policy import KNOWN_CLASSES, Observation, check_result_class, should_spill, tool_result_out_of_band
from scratchfs.api.spill_failure import outcome, passed_through, text_bytes
from scratchfs.api.stub import FREE_BY_DELETING, NOTHING_TO_FREE, OVER_THE_WHOLE_QUOTA, refusal_notice
from scratchfs.foundation import checks
from scratchfs.foundation.errors import QUOTA_ADVICE, InvalidArgument, QuotaExceeded, ScratchError
from scratchfs.foundation.json_pieces import JsonText
from scratchfs.foundation.text import one_line, shorten, utf8_text

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

log = logging.getLogger("scratchfs.api.scope")  # (the logger these lines always had: hosts filter on it)

_WARNED_CLASSES: set[str] = set()
"""The unknown result classes :func:`offload` has logged (once each; at most :data:`_MOST_WARNED`)."""
_MOST_WARNED = 256


def offload(scope: Scope, obs: Observation, extra_bytes: int = 0) -> Observation:
    """:meth:`scratchfs.Scope.offload` (its docstring says what it does, and what ``extra_bytes`` is); never
    raises."""
    settings = scope.store.settings
    try:
        cls = obs.result_class
        if cls is not None and cls not in KNOWN_CLASSES and cls not in settings.spill_classes:
            _unknown_class(obs, settings.spill_classes)
        if isinstance(obs.content, (dict, list, tuple)):
            return _offload_json(scope, obs)
        if isinstance(obs.content, Iterator) and obs.result_class in settings.spill_classes:
            _not_text(obs)  # (a generator, a map, a file: read only by the loop that joins it; never spilled)
            return obs
        if not should_spill(obs, settings.spill_threshold_bytes, never_spill_tools=settings.never_spill_tools,
                            spill_classes=settings.spill_classes, extra_bytes=extra_bytes):
            return obs
        return _spilled(scope, obs, text_bytes(obs.content) if isinstance(obs.content, str) else obs.content)
    except Exception as exc:  # (a bug: the result goes through as it came, up to passthrough_max_bytes)
        out = passed_through(obs, settings, exc)
        log.error("scratchfs: spilling the result of %s failed; %s", shorten(obs.tool, 120), outcome(out),
                  exc_info=True)
        return out


def _spilled(scope: Scope, obs: Observation, content: object, text: JsonText | None = None) -> Observation:
    """``obs`` with its content replaced by the stub of ``content`` spilled (``text``: the stream ``content`` is,
    for a structure's JSON text); ``obs`` itself when the spill fails, or the notice of a run at its quota."""
    settings = scope.store.settings
    mode = settings.preview_modes.get(obs.result_class or "", settings.preview_mode)
    try:
        stub = scope.spill(content, source_tool=checks.clean_tool(obs.tool), preview=mode)
    except ScratchError as exc:  # expected (a quota, a busy index, a full disk): one line, no traceback
        if text is not None and text.error is not None:
            return _not_json(obs, text.error, text)
        # the run's bound (a quota) or a failure past passthrough_max_bytes: the context keeps its own (a preview
        # and why); any other failure passes the result through whole
        out = _refused(scope, obs, exc, text) if isinstance(exc, QuotaExceeded) else passed_through(obs, settings, exc)
        log.error("scratchfs: spilling the result of %s failed (%s: %s); %s", shorten(obs.tool, 120),
                  exc.kind, one_line(str(exc)), outcome(out))
        return out
    except Exception:
        if text is not None and text.error is not None:
            return _not_json(obs, text.error, text)
        raise
    return replace(obs, content=stub.to_json(), stub=stub)


def _offload_json(scope: Scope, obs: Observation) -> Observation:
    """:func:`offload` of a dict, list or tuple: as its JSON text; ``obs`` as it was when that text is not spilled,
    or when the content has none (logged, whatever writing it raised: a value JSON has no form for, a lazy list
    whose iteration fails). A text past the spill threshold is spilled as it is written (:class:`JsonText`), never
    held whole. A structure another thread changes as it is written (a ``RuntimeError`` "... during iteration") is
    written again, :data:`WRITES` times at most; then it becomes the refusal notice (its text's first bytes as the
    preview), never the whole result."""
    settings = scope.store.settings
    if obs.result_class not in settings.spill_classes or tool_result_out_of_band(obs.content):
        return obs  # never spilled, whatever its size: not written out for nothing (nor an MCP result's error or
        # _meta, which its JSON text, judged below, would no longer show as one: should_spill judges the structure)
    head = ""
    for _ in range(WRITES):
        try:
            return _json_once(scope, obs)
        except _Changed as changed:
            head = changed.head or head
    log.error("scratchfs: the result of %s changed each of the %d times it was written (another thread is still "
              "changing it); passing a preview and a notice", shorten(obs.tool, 120), WRITES)
    content = head.encode("utf-8", "replace")
    notice = refusal_notice(content, checks.clean_tool(obs.tool), CHANGED_REASON, settings.preview_bytes,
                            CHANGED_ADVICE)
    return replace(obs, content=notice, refused=CHANGED_REASON)


WRITES = 3
"""Times a structure's JSON text is written while another thread changes it before it is refused
(:func:`_offload_json`)."""
CHANGED_REASON = "it changed while it was written (another thread was still changing it; it is larger than this)"
CHANGED_ADVICE = "Call the tool again once its result is complete."


class _Changed(Exception):
    """A structure's JSON text failed as another thread changed the structure; ``head``: its first characters
    written (empty when the head itself failed)."""

    def __init__(self, head: str) -> None:
        super().__init__(head[:80])
        self.head = head


def _json_once(scope: Scope, obs: Observation) -> Observation:
    """One writing of :func:`_offload_json`'s structure; raises :class:`_Changed` when another thread changed it
    meanwhile."""
    settings = scope.store.settings
    try:
        text = JsonText(obs.content, settings.spill_threshold_bytes)
    except Exception as exc:
        return _not_json(obs, exc)
    if text.whole is not None:  # (no longer than the threshold in characters: judged as the text it is)
        out = offload(scope, replace(obs, content=utf8_text(text.whole)))  # (a lone surrogate as JSON escapes it)
        return out if out.stub is not None or out.refused is not None else obs
    judged = replace(obs, content=text.head_text())  # (longer than the threshold: the rest of the policy decides)
    if not should_spill(judged, settings.spill_threshold_bytes, never_spill_tools=settings.never_spill_tools,
                        spill_classes=settings.spill_classes):
        return obs
    # (obs itself, the structure, when it is neither spilled nor refused)
    return _spilled(scope, obs, _utf8_pieces(text), text)


def _utf8_pieces(text: JsonText) -> Iterator[bytes]:
    """The pieces of a structure's JSON text as UTF-8, each lone surrogate (in a string: nowhere else) written as
    JSON escapes it, ``\\udc80``: the same value, as ``json.dumps`` with ``ensure_ascii`` writes it."""
    for piece in text:
        try:
            yield piece.encode("utf-8")
        except UnicodeEncodeError:
            yield piece.encode("utf-8", "backslashreplace")


def _not_json(obs: Observation, exc: BaseException, text: JsonText | None = None) -> Observation:
    """``obs`` passed through, logged; raises :class:`_Changed` instead when ``exc`` says that another thread changed
    the structure as it was written (``text``: that writing)."""
    if isinstance(exc, RuntimeError) and "during iteration" in str(exc):
        raise _Changed(text.head_text() if text is not None else "")
    log.warning("scratchfs: the result of %s is not JSON-serialisable (%s: %s); passing it through",
                shorten(obs.tool, 120), type(exc).__name__, shorten(exc))
    return obs


def _refused(scope: Scope, obs: Observation, exc: QuotaExceeded, text: JsonText | None) -> Observation:
    """``obs`` with its content replaced by the notice of a spill refused past the run's quota (``text``: the JSON
    text a structure was spilled as, its size counted by writing the rest)."""
    raw = obs.content
    if text is not None:
        try:
            size = text.drained_size()
        except Exception as error:
            return _not_json(obs, error, text)
        content = text.head_text().encode("utf-8", "replace")
    else:
        content = bytes(raw) if isinstance(raw, (bytes, bytearray, memoryview)) else \
            str(raw).encode("utf-8", "replace")
        size = len(content)
    if exc.alone:  # no deletion makes room for it
        advice = OVER_THE_WHOLE_QUOTA
    else:  # the model can delete this scope's scratchpad values, never its spilled results
        try:
            values = bool(scope.scratch_page(limit=1).entries)
        except ScratchError:
            values = True
        advice = FREE_BY_DELETING if values else NOTHING_TO_FREE
    # the reason without the operator's advice: "delete entries" told the model what its tools cannot do, before
    # the advice of what they can (newuser13)
    reason = one_line(str(exc)).removesuffix(f"; {QUOTA_ADVICE}")
    notice = refusal_notice(content, checks.clean_tool(obs.tool), f"{exc.kind}: {reason}",
                            scope.store.settings.preview_bytes, advice, size=size)
    return replace(obs, content=notice, refused=str(exc))


def _not_text(obs: Observation) -> None:
    """Log (WARNING, once per tool) that ``obs``'s content is an iterator: passed through untouched, never spilled,
    however large it turns out (a tool that yields its output's pieces, whose loop would show the model its repr)."""
    key = f"\0iterator {obs.tool}"  # (kept with the classes logged: one bound for both)
    if key in _WARNED_CLASSES or len(_WARNED_CLASSES) >= _MOST_WARNED:
        return
    _WARNED_CLASSES.add(key)
    log.warning("scratchfs: the result of %s is %s, not text: passed through untouched, never spilled, however "
                "large (join its pieces into a str or bytes first)", shorten(obs.tool, 120),
                f"a {type(obs.content).__name__}" if isinstance(obs.content, Generator) else
                f"an iterator ({type(obs.content).__name__})")


def _unknown_class(obs: Observation, spill_classes: frozenset[str]) -> None:
    """Log (WARNING, once per class) that ``obs`` has a result class no one knows: a misspelling, never spilled."""
    cls = obs.result_class
    key = cls if isinstance(cls, str) else type(cls).__name__
    if key in _WARNED_CLASSES or len(_WARNED_CLASSES) >= _MOST_WARNED:
        return
    _WARNED_CLASSES.add(key)
    try:
        check_result_class(cls, spill_classes)
    except InvalidArgument as exc:
        log.warning("scratchfs: %s; the results of %s with it are never spilled", one_line(str(exc)),
                    shorten(obs.tool, 120))


__all__ = ["CHANGED_ADVICE", "CHANGED_REASON", "WRITES", "offload"]
