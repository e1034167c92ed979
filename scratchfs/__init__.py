"""scratchfs: an out-of-context scratch store for LLM agents.

Large tool results are spilled to a local store under an unguessable handle and replaced in the model's context by a
compact stub; the model reads them back in pieces (:meth:`Scope.read_handle`) and keeps a per-run notebook
(``scratch_*``). See README.md for a tour, and its "Layout" section for the modules.
"""

from scratchfs.api.policy import NEVER_SPILL_TOOLS, SPILL_CLASSES, Observation, should_spill
from scratchfs.api.results import LineSlice, Matches, Slice
from scratchfs.api.scope import Scope
from scratchfs.api.settings import Settings
from scratchfs.api.store import ScratchStore
from scratchfs.api.stub import Stub
from scratchfs.engine.protocols import Entry
from scratchfs.engine.search import Hit, Window
from scratchfs.engine.sweeper import SweepResult
from scratchfs.foundation.errors import (
    BadRecord,
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
    StoreClosed,
    StructureTimeout,
)
from scratchfs.foundation.limits import MAX_READ_BYTES

__version__ = "0.1.0"

__all__ = [
    "MAX_READ_BYTES",
    "NEVER_SPILL_TOOLS",
    "SPILL_CLASSES",
    "BadRecord",
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
    "Settings",
    "Slice",
    "StorageError",
    "StoreBusy",
    "StoreClosed",
    "StructureTimeout",
    "Stub",
    "SweepResult",
    "Window",
    "should_spill",
]
