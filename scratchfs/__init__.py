"""scratchfs: an out-of-context scratch store for LLM agents.

Large tool results are spilled to a local store under an unguessable handle and replaced in the model's context by a
compact stub; the model reads them back in pieces (:meth:`Scope.read_handle`) and keeps a per-run notebook
(``scratch_*``). See README.md for a tour and ``docs/`` for the design.
"""

from scratchfs.api.policy import NEVER_SPILL_TOOLS, SPILL_CLASSES, Observation, Stub, should_spill
from scratchfs.api.store import MAX_READ_BYTES, LineSlice, Matches, Scope, ScratchStore, Slice
from scratchfs.engine.search import Hit, Window
from scratchfs.engine.sqlite_index import Entry
from scratchfs.engine.sweeper import SweepResult
from scratchfs.foundation.errors import (
    CorruptBlob,
    Deleted,
    Expired,
    InvalidArgument,
    NotFound,
    PatternTimeout,
    PatternTooLong,
    QuotaExceeded,
    ScratchError,
    StorageError,
    StoreBusy,
)

__version__ = "0.1.0"

__all__ = [
    "MAX_READ_BYTES",
    "NEVER_SPILL_TOOLS",
    "SPILL_CLASSES",
    "CorruptBlob",
    "Deleted",
    "Entry",
    "Expired",
    "Hit",
    "InvalidArgument",
    "LineSlice",
    "Matches",
    "NotFound",
    "Observation",
    "PatternTimeout",
    "PatternTooLong",
    "QuotaExceeded",
    "Scope",
    "ScratchError",
    "ScratchStore",
    "Slice",
    "StorageError",
    "StoreBusy",
    "Stub",
    "SweepResult",
    "Window",
    "should_spill",
]
