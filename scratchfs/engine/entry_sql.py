"""The SQL text of an entry's row that the SQLite and PostgreSQL indexes share: its columns and the clause of a
write that replaces the row of its key. Kept out of :mod:`scratchfs.engine.protocols`, the seam the API layer sees,
which speaks no SQL."""

from __future__ import annotations

from scratchfs.engine.protocols import Entry

__all__ = ["ENTRY_COLUMNS", "UPSERT_SET"]

ENTRY_COLUMNS = ", ".join(Entry._fields)
"""The columns of an index's entries table an :class:`~scratchfs.engine.protocols.Entry` is read from, in its
fields' order (both indexes select and insert them so: one list, which a new field cannot leave behind)."""
_ENTRY_KEY = ("run_id", "agent_id", "kind", "key")
UPSERT_SET = (f"ON CONFLICT ({', '.join(_ENTRY_KEY)}) DO UPDATE SET " +
              ", ".join(f"{name} = excluded.{name}" for name in (*Entry._fields, "frame_newlines")
                        if name not in _ENTRY_KEY))
"""The clause of an entry's write that replaces the row of its key: every column but the key set from the row
written (``frame_newlines`` too), in SQLite's and PostgreSQL's common syntax."""
