"""The filter of a keyset page of live entries, shared by the SQLite and PostgreSQL indexes.

Entries are listed in the order ``(run_id, created_at, id)``; a page's cursor is the triple of its last entry, and
the next page is the entries after it. Of one run, the filter says so with the run fixed -- ``run_id = ? AND
(created_at, id) > (?, ?)`` -- a range both databases seek to in the indexes ``(run_id, created_at)`` and
``(run_id, kind, created_at)``, so a page costs the same however deep it is and a page of one kind reads only rows
of that kind (a row value ``(run_id, created_at, id) > (?, ?, ?)`` over them would seek only to the run).
"""

from __future__ import annotations

from collections.abc import Callable

LISTING_ORDER = " ORDER BY created_at, agent_id, kind, key"
"""The order of a run's listing through the API, whole or paged (the indexes' ``list_scope`` and ``list_page``):
unique within a run, so entries created at the same instant come out alike both ways. (The inspector's keyset pages
below order such ties by row id, their write order.)"""
NEWEST_FIRST_ORDER = " ORDER BY created_at DESC, agent_id DESC, kind DESC, key DESC"
""":data:`LISTING_ORDER` reversed: a ``list_page`` with ``newest_first`` (``scratch_list(spilled=true)``)."""

Cursor = tuple[str, float, int]
"""``(run_id, created_at, id)`` of the last entry of a page."""


def page_filter(run_id: str | None, agent_id: str | None, kind: str | None, after: Cursor | None,
                mark: Callable[[str], str]) -> tuple[list[str], dict[str, object]] | None:
    """The conditions (joined by ``AND`` by the caller) and their parameters that pick the entries of a run (every
    run when ``run_id`` is ``None``), an agent and a kind (each when given) that come after the cursor ``after``
    (``None``: from the first); ``None`` when none can (a cursor past the run). ``mark(name)`` writes the
    placeholder of the parameter ``name`` (``"?"`` for SQLite, which then takes the values in their order;
    ``"%(name)s"`` for psycopg)."""
    conditions: list[str] = []
    params: dict[str, object] = {}
    for column, value in (("run_id", run_id), ("agent_id", agent_id), ("kind", kind)):
        if value is not None:
            conditions.append(f"{column} = {mark(column)}")
            params[column] = value
    if after is None:
        return conditions, params
    if run_id is None:
        conditions.append(f"(run_id, created_at, id) > ({mark('after_run')}, {mark('after_at')}, {mark('after_id')})")
        params.update(after_run=after[0], after_at=after[1], after_id=after[2])
    elif after[0] > run_id:
        return None  # the cursor is past this run: nothing of it follows
    elif after[0] == run_id:  # (a cursor before the run leaves all of it)
        conditions.append(f"(created_at, id) > ({mark('after_at')}, {mark('after_id')})")
        params.update(after_at=after[1], after_id=after[2])
    return conditions, params


__all__ = ["LISTING_ORDER", "NEWEST_FIRST_ORDER", "Cursor", "page_filter"]
