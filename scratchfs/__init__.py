"""scratchfs: an out-of-context scratch store for LLM agents.

Large tool results are spilled to a local store under an unguessable handle and replaced in the model's context by a
compact stub; the model reads them back in pieces (:meth:`Scope.read_handle`) and keeps a per-run notebook
(``scratch_*``). See README.md for a tour, and its "Layout" section for the modules.
"""

from typing import TYPE_CHECKING

from scratchfs.foundation.lazy import lazy_names

if TYPE_CHECKING:  # what the names are, for type checkers and IDEs; at run time they load on first use
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
        BadCursor,
        BadPattern,
        BadRecord,
        BadSelector,
        Changed,
        CorruptBlob,
        Deleted,
        Expired,
        InvalidArgument,
        JqFailed,
        NotFound,
        NotJson,
        PastLast,
        PatternMatchesEmpty,
        PatternTimeout,
        PatternTooLong,
        QuotaExceeded,
        ScratchError,
        SlurpTooLarge,
        StorageError,
        StoreBusy,
        StoreClosed,
        StructureTimeout,
        UpstreamUnavailable,
        WideHeader,
    )
    from scratchfs.foundation.limits import MAX_READ_BYTES

_WHERE = {  # each public name and the module that defines it, imported on first use (PEP 562)
    name: module
    for module, names in {
        "scratchfs.api.policy": ("NEVER_SPILL_TOOLS", "SPILL_CLASSES", "Observation", "should_spill"),
        "scratchfs.api.results": ("LineSlice", "Matches", "Slice"),
        "scratchfs.api.scope": ("Scope",),
        "scratchfs.api.settings": ("Settings",),
        "scratchfs.api.store": ("ScratchStore",),
        "scratchfs.api.stub": ("Stub",),
        "scratchfs.engine.protocols": ("Entry",),
        "scratchfs.engine.search": ("Hit", "Window"),
        "scratchfs.engine.sweeper": ("SweepResult",),
        "scratchfs.foundation.errors": (
            "BadCursor", "BadPattern", "BadRecord", "BadSelector", "Changed", "CorruptBlob", "Deleted", "Expired",
            "InvalidArgument", "JqFailed",
            "NotFound", "NotJson", "PastLast",
            "PatternMatchesEmpty", "PatternTimeout", "PatternTooLong", "QuotaExceeded", "ScratchError", "SlurpTooLarge",
            "StorageError", "StoreBusy", "StoreClosed", "StructureTimeout", "UpstreamUnavailable", "WideHeader"),
        "scratchfs.foundation.limits": ("MAX_READ_BYTES",),
    }.items()
    for name in names
}


# A public name is imported from its module on first use (foundation.lazy): ``import scratchfs`` stays cheap, so
# that the command line's entry point (scratchfs.__main__) runs before the store's modules load (a Ctrl-C while
# they do is then the CLI's one line).
__getattr__, __dir__ = lazy_names(__name__, _WHERE)


__version__ = "0.1.0"

__all__ = [
    "MAX_READ_BYTES",
    "NEVER_SPILL_TOOLS",
    "SPILL_CLASSES",
    "BadCursor",
    "BadPattern",
    "BadRecord",
    "BadSelector",
    "Changed",
    "CorruptBlob",
    "Deleted",
    "Entry",
    "Expired",
    "Hit",
    "InvalidArgument",
    "JqFailed",
    "LineSlice",
    "Matches",
    "NotFound",
    "NotJson",
    "Observation",
    "PastLast",
    "PatternMatchesEmpty",
    "PatternTimeout",
    "PatternTooLong",
    "QuotaExceeded",
    "Scope",
    "ScratchError",
    "ScratchStore",
    "Settings",
    "Slice",
    "SlurpTooLarge",
    "StorageError",
    "StoreBusy",
    "StoreClosed",
    "StructureTimeout",
    "Stub",
    "SweepResult",
    "UpstreamUnavailable",
    "WideHeader",
    "Window",
    "should_spill",
]
