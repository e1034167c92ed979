"""Every default and cap of scratchfs, in one place (bytes, seconds, counts).

Other modules import these names; none writes its own copy of a number. Format constants that belong to a file
format (the seekable format's magic numbers and frame bounds) stay with the format in
:mod:`scratchfs.engine.seekable`.
"""

from __future__ import annotations

# -- settings defaults (ScratchStore arguments) ----------------------------------------------------------------------
DEFAULT_TTL = 3600.0
"""Seconds an entry lives when no TTL is given."""
MAX_TTL = 30 * 24 * 3600.0
"""Longest TTL, in seconds (30 days): this is temporary data."""
MIN_TTL = 1.0
"""Shortest TTL, in seconds: an entry must outlive the call that writes it (a TTL of 1e-7 s added nothing to the
clock's epoch seconds, and the entry was expired on its first read)."""
SPILL_THRESHOLD_BYTES = 8192
"""Results larger than this many bytes are spilled by the spill policy, counted as the model receives them: the UTF-8
bytes of the result's text as a JSON string, escapes included (:func:`scratchfs.api.policy.result_size`)."""
PREVIEW_BYTES = 1024
"""Bytes of content a stub's preview starts from (the stub's budget may show fewer)."""
MAX_PREVIEW_BYTES = 64 * 1024
"""Largest ``preview_bytes`` setting."""
PASSTHROUGH_MAX_BYTES = 64 * 1024
"""Largest result (bytes as the model receives it, :func:`scratchfs.api.policy.result_size`) a failed spill passes
through whole; past it the model gets a notice with a preview instead. 64 KiB is the most any reply of scratchfs
gives the model (``reply_budget_bytes``' ceiling, one ``read_handle`` page): a result that size is one the model could
have read from the store in one call, about 16k tokens; 8 to 64 times the spill threshold, so the results a passing
outage sends through whole are the moderately large ones, never the hundreds of MiB a model API refuses."""
BUSY_TIMEOUT = 30.0
"""Seconds to wait for a busy index or lock before ``StoreBusy``."""
MAX_BUSY_TIMEOUT = 86_400.0
"""Longest busy timeout, in seconds."""
ORPHAN_GRACE = 300.0
"""Seconds a blob with no index row is left alone before a sweep removes it."""
SWEEP_INTERVAL = 300.0
"""Seconds between background sweeps (``start_sweeper``, and the MCP server and proxy)."""
MAX_SWEEP_INTERVAL = 86_400.0
"""Longest background sweep interval, in seconds."""
PATTERN_TIMEOUT = 5.0
"""Seconds one pattern search may spend in the regex engine, and one jq read in jq."""
MAX_PATTERN_TIMEOUT = 3600.0
"""Longest ``pattern_timeout`` setting, in seconds."""
FRAME_BYTES = 128 * 1024
"""Default decompressed size of a blob frame, in bytes (chosen by measurement: ``bench/README.md``)."""
SEGMENT_ENTRY_BYTES = 64 * 1024
"""Content of at most this many bytes (uncompressed) is stored in its writer's segment file instead of a blob file of
its own: creating a file costs ~600 us on ext4, appending to an open one a few (``bench/README.md``, issue 16)."""
SMALL_CONTENT_LEVEL = 1
"""Most zstd level a content of at most ``segment_entry_bytes`` is compressed at (the store's level when that is
lower): on 4 to 64 KiB of the fixtures level 1 stores 1.4% to 6.3% more bytes than level 3 and saves a fifth of the
compression's CPU, which is a fifth of a small spill's (``bench/README.md``, issue 16)."""
MAX_SEGMENT_ENTRY_BYTES = 1024 * 1024
"""Largest ``segment_entry_bytes`` setting (a small blob is made in memory before it is appended)."""
SEGMENT_BYTES = 8 * 1024 * 1024
"""A segment file takes no new blob once it holds this many bytes: its writer starts a new one."""
SEGMENT_ACTIVE = 64
"""Most segment files one process keeps open for appending (one per agent directory it writes to)."""
SEGMENT_COMPACTION = False
"""Whether the sweeper compacts mostly dead segments (off for now: with it on, ``reliability/run.py --kills 120
--workers 4`` lost one acknowledged scratchpad value in two runs of seed 1, cause not yet found; dead segments are
removed either way)."""
SEGMENT_COMPACT_FRACTION = 0.5
"""A closed segment whose live bytes fall under this fraction of its size is compacted by the sweeper."""
ZSTD_LEVEL = 3
"""Default zstd compression level."""
MIN_LEVEL, MAX_LEVEL = -7, 22
"""zstd compression levels accepted."""

# -- reads -----------------------------------------------------------------------------------------------------------
MAX_READ_BYTES = 64 * 1024
"""Most content bytes one ``read_handle`` call returns (a range, or all windows of a search together)."""
DEFAULT_READ_BYTES = 4096
"""Bytes a range read returns when no ``length`` is given."""
DEFAULT_LINES = 50
"""Lines a line read returns when no ``lines`` is given."""
MAX_LINES = 10_000
"""Largest ``lines`` of a line read (the bytes are capped by :data:`MAX_READ_BYTES` too)."""
DEFAULT_CONTEXT = 200
"""Bytes of context on each side of a match when no ``context`` is given."""
MAX_CONTEXT_BYTES = 8 * 1024
"""Largest ``context`` of a search, in bytes on each side of a match."""
LINE_WINDOW_BYTES = 1024
"""``context="line"``: most bytes of the line holding a match shown on each side of it (a longer line -- minified
JavaScript, one line of JSON -- is cut there, and the window says so)."""
DEFAULT_MATCHES = 20
"""Matches a search returns when no ``max_matches`` is given."""
MAX_MATCHES = 1000
"""Largest ``max_matches`` of a search."""
MAX_NEEDLE_BYTES = 4 * 1024
"""Longest ``match`` needle or ``pattern``, in UTF-8 bytes."""
MAX_FILTER_CHARS = 4096
"""Longest jq filter, in characters."""
MAX_SELECTOR_CHARS = 1024
"""Longest CSS selector (``select``), in characters."""
MAX_COLUMN_CHARS = 1024
"""Longest CSV/TSV column name a structure read names, in characters."""
MAX_COLUMNS = 100
"""Most columns one structure read names."""
MAX_CURSOR_CHARS = 4096
"""Longest cursor a call may pass, in characters (a listing cursor holds a key and an agent id, base64)."""

# -- replies (what a model receives) --------------------------------------------------------------------------------
REPLY_BUDGET_BYTES = 8192
"""Default most bytes of one model-facing reply, counted as the model receives them (the UTF-8 bytes of its JSON
text, escapes included): the spill threshold, so a read never brings back more than a spill keeps out."""
MAX_REPLY_BYTES = 64 * 1024
"""Hard ceiling of a reply's ``budget``, in bytes of JSON."""
MAX_KEY_BYTES = 512
"""Longest scratchpad key, in UTF-8 bytes."""
MIN_REPLY_BYTES = 4 * MAX_KEY_BYTES
"""Smallest ``budget`` a call may ask for, in bytes of JSON: room for the reply's own fields and a listing row whose
key is the longest allowed with every character escaped (``"`` costs 2 bytes: 1,026 of JSON)."""
LONG_CALL_BYTES = 600
"""A call a refusal names that is longer than this (UTF-8 bytes of its text, as a tool error's cap of
``MIN_REPLY_BYTES`` counts them; its echoed arguments are long) is written in the message as words, kept whole as
data (a face writes it whole): :meth:`~scratchfs.foundation.calls.Call.shown_when_long`."""
MAX_LIST_ENTRIES = 1000
"""Most entries one listing page holds."""

# -- ids, keys, stubs, listings --------------------------------------------------------------------------------------
MAX_ID_BYTES = 256
"""Longest run id or agent id, in UTF-8 bytes."""
MAX_TOOL_BYTES = 256
"""Longest source tool name, in UTF-8 bytes."""
MAX_STUB_BYTES = 1536
"""Most bytes of a stub's compact JSON: the preview gives way so that the whole stub fits."""
LIST_PREVIEW_BYTES = 256
"""Most bytes of content the index keeps as an entry's preview (for listings)."""
LIST_PREVIEW_CHARS = 80
"""Characters of each value's start shown by ``scratch_list``."""
CLOCK_SLACK_SECONDS = 1.0
"""Seconds an entry's birth (``expires_at - ttl``) may lie ahead of the clock before a read caps its expiry at
``now + ttl`` (processes of one machine read one clock; this absorbs the time between reading it and committing)."""
TOMBSTONE_SECONDS = 3600.0
"""How long a tombstone of an expired or deleted entry is kept, in seconds."""

# -- shape detection (scratchfs.api.shape) ----------------------------------------------------------------------------
SAMPLE_BYTES = 512 * 1024
"""Bytes of the start of a content that shape detection looks at."""
TEXT_PROBE_BYTES = 64 * 1024
"""Bytes of the start of a content that decide whether it is text."""

# -- caches ----------------------------------------------------------------------------------------------------------
MAX_CACHED_VALUE_BYTES = 64 * 1024
"""Largest scratchpad value kept in the in-memory value cache, in bytes."""
VALUE_CACHE_BYTES = 16 * 1024 * 1024
"""Most bytes the value cache holds in all."""
SEEK_TABLE_CACHE_ENTRIES = 512
"""Parsed seek tables kept in memory."""
LINE_TABLE_CACHE_ENTRIES = 256
"""Per-blob line tables kept in memory."""
WIDE_INDEX_CACHE_ENTRIES = 64
"""UTF-16 texts whose per-frame newline counts a process keeps (:mod:`scratchfs.api.wide_index`; 16 bytes a frame of
128 KiB: 128 KiB for 1 GiB of text)."""
WIDE_INDEX_CACHE_BYTES = 16 * 1024 * 1024
"""Most bytes of those counts (and their frames' offsets) a process keeps, in all."""
LOOKUP_CACHE_ENTRIES = 4096
"""Index lookups kept per thread."""
OPEN_BLOB_FILES = 32
"""Blob and segment files a local store keeps open after reading them (file descriptors; :mod:`scratchfs.engine
.open_files`)."""

# -- MCP wire ----------------------------------------------------------------------------------------------------------
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
"""Longest JSON-RPC message line the MCP faces read from stdin, in bytes (its newline not counted): a longer line is
skipped as it arrives, never held whole, and answered with an Invalid Request error."""
MAX_UPSTREAM_MESSAGE_BYTES = 256 * 1024 * 1024
"""Longest line the MCP proxy reads from its upstream server, in bytes: a tool result is held whole to be spilled, so
a longer line (a result of more than this, or an upstream that never ends its line) is skipped as it arrives, logged,
and the call it answered fails when ``--timeout`` runs out."""

# -- inspector -------------------------------------------------------------------------------------------------------
SOON_SECONDS = 300.0
"""Seconds: ``stats`` counts entries expiring within this as expiring soon."""

__all__ = [name for name in dir() if name.isupper()]
