"""The settings of a store: one frozen record, validated once, shared by the store, the CLI and the MCP proxy.

Every default comes from :mod:`scratchfs.foundation.limits`; every check from :mod:`scratchfs.foundation.checks`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any

from scratchfs.api.policy import NEVER_SPILL_TOOLS, SPILL_CLASSES, check_result_class
from scratchfs.api.preview import PREVIEW_MODES
from scratchfs.engine.seekable import MAX_FRAME_BYTES, MIN_FRAME_BYTES
from scratchfs.foundation import limits
from scratchfs.foundation.checks import check_choice, check_int, check_names, check_seconds, check_ttl
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.text import not_a_size, size_bytes

SEGMENTS_ENV = "SCRATCHFS_SEGMENT_ENTRY_BYTES"
"""Environment variable giving the default ``segment_entry_bytes`` (unset: 65536; 0 turns segment files off)."""


def default_segment_entry_bytes() -> int | str:
    """The default ``segment_entry_bytes``: ``$SCRATCHFS_SEGMENT_ENTRY_BYTES`` if set (0: a blob file per entry),
    else :data:`~scratchfs.foundation.limits.SEGMENT_ENTRY_BYTES` (64 KiB, the measured threshold). The variable is
    a size as every size setting is (:func:`~scratchfs.foundation.text.size_bytes`: ``65536``, ``64KiB``,
    ``1MiB``); a value that is not one -- empty text included, never read as unset -- is returned as it is, for
    validation to refuse (InvalidArgument)."""
    raw = os.environ.get(SEGMENTS_ENV)
    if raw is None:
        return limits.SEGMENT_ENTRY_BYTES
    number = size_bytes(raw.strip())
    return number if number is not None else _FromEnvironment(raw)


class _FromEnvironment(str):
    """The text of ``$SCRATCHFS_SEGMENT_ENTRY_BYTES`` that is no size: validation names the variable, not the
    setting (a ``segment_entry_bytes`` given as text is the caller's own)."""


@dataclass(frozen=True)
class Settings:
    """How a store behaves. Build one with keywords (``Settings(default_ttl=600)``); every field is checked once, in
    ``__post_init__``, and :class:`~scratchfs.foundation.errors.InvalidArgument` names the first bad one (a keyword
    that is no setting too, with the closest one: ``did you mean 'spill_threshold_bytes'?``).

    Attributes:
        default_ttl: seconds an entry lives when no TTL is given (finite, at least 1, at most 30 days).
        spill_threshold_bytes: :meth:`Scope.offload` spills results larger than this many bytes as the model
            receives them (:func:`scratchfs.api.policy.result_size`: the text as a JSON string, escapes included).
        preview_bytes: most bytes of content shown in a stub's preview (0 to 65,536; the stub's 1.5 KiB budget may
            show fewer).
        frame_bytes: decompressed bytes per zstd frame (4 KiB to 4 MiB; see :mod:`scratchfs.engine.seekable`).
        level: zstd compression level (-7 to 22).
        segment_entry_bytes: a content of at most this many bytes is appended to its writer's segment file instead
            of a blob file of its own (0 to 1 MiB; 0: every entry gets a file; see :mod:`scratchfs.engine.segments`).
            Local blobs only. Default: ``$SCRATCHFS_SEGMENT_ENTRY_BYTES``, else 65536 (see
            :func:`default_segment_entry_bytes`).
        busy_timeout: seconds to wait for a busy index or lock before ``StoreBusy``.
        orphan_grace: seconds a blob with no index row is left alone before a sweep removes it.
        durable: ``fsync`` each blob and its directory before its row is committed, and run SQLite with
            ``synchronous=FULL``: what returned then survives a power loss, not only a process crash.
        clock: the one clock of expiry, returning epoch seconds (``time.time``; tests pass a fake); a reading that is
            no finite number makes the call that took it raise InvalidArgument.
        never_spill_tools, spill_classes: the spill policy's lists (see :mod:`scratchfs.api.policy`).
        preview_mode: ``"head"`` or ``"head+tail"``: a spill's stub preview unless the call or ``preview_modes`` says
            otherwise.
        preview_modes: preview mode per result class, for :meth:`Scope.offload` (e.g. ``{"workspace": "head+tail"}``);
            a key that is no known class (:func:`~scratchfs.api.policy.check_result_class`) is InvalidArgument.
        passthrough_max_bytes: a result whose spill fails (a busy index, a full disk, S3 down) goes to the model whole
            when it is at most this many bytes as the model receives it (:func:`scratchfs.api.policy.result_size`;
            a structure: its JSON text so); a larger one becomes a notice of at most 1.5 KiB with a preview
            (:mod:`scratchfs.api.spill_failure`). Default 65,536 (:data:`~scratchfs.foundation.limits.
            PASSTHROUGH_MAX_BYTES`: the most any reply gives the model); 0: never whole; ``None``: always whole,
            however large (the behaviour before this setting).
        detect_shape: detect each spill's content type and shape (from its first 512 KiB) for the stub.
        refresh_on_read: a read pushes the entry's expiry forward by its TTL.
        run_quota_bytes: most stored (compressed) bytes a run may hold, or ``None``.
        run_quota_entries: most entries a run may hold, or ``None``.
        pattern_timeout: seconds one pattern search may spend in the regex engine, and one jq read (a document, or
            a page of records) in jq (wall clock; past it :class:`~scratchfs.foundation.errors.StructureTimeout`).
        sweep_interval: seconds between background sweeps of the MCP server and proxy (0: none).
        reply_budget_bytes: the default most bytes of one model-facing reply, counted as the model receives them
            (its JSON text); 2 KiB to 64 KiB, 8 KiB by default. A call may ask for another, up to 64 KiB.
        index_write_behind: the row of a spill whose blob went to a segment file is committed behind, with others in
            one transaction, instead of one transaction per spill (:mod:`scratchfs.engine.write_behind`; local
            SQLite index and local blobs, no run quota): the spill is acknowledged once its segment record is
            written (``fsync``-ed when ``durable``). On by default; off commits each row before the spill returns.
    """

    default_ttl: float = limits.DEFAULT_TTL
    spill_threshold_bytes: int = limits.SPILL_THRESHOLD_BYTES
    preview_bytes: int = limits.PREVIEW_BYTES
    frame_bytes: int = limits.FRAME_BYTES
    level: int = limits.ZSTD_LEVEL
    segment_entry_bytes: int = field(default_factory=default_segment_entry_bytes)
    busy_timeout: float = limits.BUSY_TIMEOUT
    orphan_grace: float = limits.ORPHAN_GRACE
    durable: bool = False
    clock: Callable[[], float] = time.time
    never_spill_tools: frozenset[str] = NEVER_SPILL_TOOLS
    spill_classes: frozenset[str] = SPILL_CLASSES
    preview_mode: str = "head"
    preview_modes: Mapping[str, str] = field(default_factory=dict)
    passthrough_max_bytes: int | None = limits.PASSTHROUGH_MAX_BYTES
    detect_shape: bool = True
    refresh_on_read: bool = False
    run_quota_bytes: int | None = None
    run_quota_entries: int | None = None
    pattern_timeout: float = limits.PATTERN_TIMEOUT
    sweep_interval: float = limits.SWEEP_INTERVAL
    reply_budget_bytes: int = limits.REPLY_BUDGET_BYTES
    index_write_behind: bool = True

    def __new__(cls, *args: Any, **kwargs: Any) -> Settings:
        # a misspelt keyword is InvalidArgument naming the closest setting, not __init__'s TypeError
        check_names(kwargs, cls.names(), "store setting")
        return super().__new__(cls)

    def __post_init__(self) -> None:
        for name, value in _checked(self).items():
            object.__setattr__(self, name, value)

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with ``changes`` applied (and checked). Raises :class:`InvalidArgument`."""
        return replace(self, **changes)

    @classmethod
    def names(cls) -> frozenset[str]:
        """The names of every setting."""
        return frozenset(f.name for f in fields(cls))


def _quota(value: object, what: str) -> int | None:
    return None if value is None else check_int(value, what, 0)


def _strings(value: object, what: str) -> frozenset[str]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidArgument(f"{what} must be a collection of names, not {type(value).__name__}")
    return frozenset(str(name) for name in value)


def _checked(s: Settings) -> dict[str, Any]:
    """Every field of ``s``, checked and normalised. Raises InvalidArgument naming the first bad one."""
    if not callable(s.clock):
        raise InvalidArgument("clock must be a function returning epoch seconds")
    if isinstance(s.segment_entry_bytes, _FromEnvironment):  # (the variable's text, set aside by its default)
        raise InvalidArgument(f"${SEGMENTS_ENV} (segment_entry_bytes): {not_a_size(s.segment_entry_bytes)}")
    modes = s.preview_modes or {}
    if not isinstance(modes, Mapping):
        raise InvalidArgument(f"preview_modes must be a mapping, not {type(modes).__name__}")
    return {
        "default_ttl": check_ttl(s.default_ttl, limits.DEFAULT_TTL, "default_ttl"),
        "spill_threshold_bytes": check_int(s.spill_threshold_bytes, "spill_threshold_bytes", 0),
        "preview_bytes": check_int(s.preview_bytes, "preview_bytes", 0, limits.MAX_PREVIEW_BYTES),
        "frame_bytes": check_int(s.frame_bytes, "frame_bytes", MIN_FRAME_BYTES, MAX_FRAME_BYTES),
        "level": check_int(s.level, "level", limits.MIN_LEVEL, limits.MAX_LEVEL),
        "segment_entry_bytes": check_int(s.segment_entry_bytes, "segment_entry_bytes", 0,
                                         limits.MAX_SEGMENT_ENTRY_BYTES),
        "busy_timeout": check_seconds(s.busy_timeout, "busy_timeout", limits.MAX_BUSY_TIMEOUT, zero_ok=True),
        "orphan_grace": check_seconds(s.orphan_grace, "orphan_grace", limits.MAX_TTL, zero_ok=True),
        "durable": bool(s.durable),
        "never_spill_tools": _strings(s.never_spill_tools, "never_spill_tools"),
        "spill_classes": (classes := _strings(s.spill_classes, "spill_classes")),
        "preview_mode": check_choice(s.preview_mode, "preview mode", PREVIEW_MODES),
        "preview_modes": MappingProxyType({  # a misspelled class would never match: refused as the adapter's are
            check_result_class(k, classes, what="preview_modes key"): check_choice(v, "preview mode", PREVIEW_MODES)
            for k, v in modes.items()}),
        "passthrough_max_bytes": _quota(s.passthrough_max_bytes, "passthrough_max_bytes"),
        "detect_shape": bool(s.detect_shape),
        "refresh_on_read": bool(s.refresh_on_read),
        "run_quota_bytes": _quota(s.run_quota_bytes, "run_quota_bytes"),
        "run_quota_entries": _quota(s.run_quota_entries, "run_quota_entries"),
        "pattern_timeout": check_seconds(s.pattern_timeout, "pattern_timeout", limits.MAX_PATTERN_TIMEOUT),
        "sweep_interval": check_seconds(s.sweep_interval, "sweep_interval", limits.MAX_SWEEP_INTERVAL, zero_ok=True),
        "reply_budget_bytes": check_int(s.reply_budget_bytes, "reply_budget_bytes", limits.MIN_REPLY_BYTES,
                                        limits.MAX_REPLY_BYTES),
        "index_write_behind": bool(s.index_write_behind),
    }


__all__ = ["SEGMENTS_ENV", "Settings", "default_segment_entry_bytes"]
