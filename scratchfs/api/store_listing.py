"""A store's live entries listed a page of the index at a time (``scratchfs ls``, ``fsck``'s walk, the web
inspector's listings): in order of run, creation time and row id, each with its cursor (:func:`iter_entries`,
:func:`count_entries`), the opaque cursor printed to resume after (:func:`encode_cursor`, :func:`decode_cursor`),
and the refusals of a filter or cursor no listing could match (:func:`check_filter`, :func:`check_run_of`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from scratchfs.api.store import ScratchStore
from scratchfs.engine.protocols import Entry
from scratchfs.foundation import checks, cursors
from scratchfs.foundation.errors import BadCursor

PAGE_ROWS = 1000
"""Entries read per index query while streaming (``ls``, ``fsck``)."""


def encode_cursor(cursor: tuple[str, float, int]) -> str:
    """An opaque, printable cursor (:mod:`scratchfs.foundation.cursors` of ``[run_id, created_at, id]``: a run id,
    an entry's creation time in epoch seconds and its row id) to resume a listing after: URL-safe base64 without
    ``=`` padding, ASCII alone (non-ASCII run ids as ``\\u`` escapes), which :func:`decode_cursor` reads back.
    Never raises (its three values are always JSON's)."""
    return cursors.encode_cursor(cursor, ascii_only=True)


def decode_cursor(text: str) -> tuple[str, float, int]:
    """The cursor :func:`encode_cursor` printed.

    Raises:
        BadCursor: (an InvalidArgument) not such a cursor.
    """
    run, created, row = cursors.decode_cursor(text, (cursors.ID, cursors.NUMBER, cursors.INTEGER),
                                              "not a cursor printed by scratchfs")
    return run, created, row  # type: ignore[return-value]


def iter_entries(store: ScratchStore, now: float, run_id: str | None = None, agent_id: str | None = None,
                 after: tuple[str, float, int] | None = None, limit: int | None = None,
                 kind: str | None = None) -> Iterator[tuple[Entry, tuple[str, float, int]]]:
    """Live entries ordered by run, creation time and row id, each with its cursor, read :data:`PAGE_ROWS` at a time
    (constant memory); of one run, agent and kind (``"handle"`` or ``"scratch"``) when given, filtered by the
    index's query (rows of another kind are not read); after the cursor ``after``; at most ``limit`` (``None``: all).

    Raises:
        InvalidArgument: (at once) ``after`` is a cursor of another run's listing than ``run_id``'s (it would list
            all of the run or nothing: a BadCursor); a ``run_id`` or ``agent_id`` no entry could have
            (:func:`check_filter`).
            StoreBusy, StorageError: while iterating.
    """
    check_filter(run_id, agent_id)
    check_run_of(after, run_id)
    return _iter_entries(store, now, run_id, agent_id, after, limit, kind)


def check_filter(run_id: str | None, agent_id: str | None) -> None:
    """Refuse a run or agent filter (``None``: none) that no entry could have -- empty, not UTF-8 text (a lone
    surrogate, as from undecodable command-line bytes), with a control character, or longer than an id may be --
    as every scoped call does, instead of listing it as empty (or failing in the index's driver). Raises
    InvalidArgument."""
    if run_id is not None:
        checks.check_run_id(run_id)
    if agent_id is not None:
        checks.check_agent_id(agent_id)


def check_run_of(after: tuple[str, float, int] | None, run_id: str | None) -> None:
    """Refuse a cursor ``after`` of another run's listing than ``run_id``'s (``None``: every run's). Raises
    BadCursor (an InvalidArgument)."""
    if after is not None and run_id is not None and after[0] != run_id:
        raise BadCursor(f"the cursor is of run {after[0][:60]!r}'s listing, not of {run_id[:60]!r}'s: pass the "
                        "next_cursor this listing gave, or list again without one")


def _iter_entries(store: ScratchStore, now: float, run_id: str | None, agent_id: str | None,
                  after: tuple[str, float, int] | None, limit: int | None,
                  kind: str | None) -> Iterator[tuple[Entry, tuple[str, float, int]]]:
    if not hasattr(store.index, "page"):  # an index without keyset pages: its whole listing, in the same order
        yield from _listed(store, now, run_id, agent_id, after, limit, kind)
        return
    left = limit
    while left is None or left > 0:
        want = PAGE_ROWS if left is None else min(PAGE_ROWS, left)
        page = store.index.page(now, after, want, run_id, agent_id, kind)
        yield from page
        if len(page) < want:
            return
        after = page[-1][1]
        if left is not None:
            left -= len(page)


def count_entries(store: ScratchStore, now: float, run_id: str | None = None, agent_id: str | None = None,
                  after: tuple[str, float, int] | None = None, kind: str | None = None,
                  rest: Iterable[tuple[Entry, tuple[str, float, int]]] | None = None) -> int:
    """How many live entries :func:`iter_entries` gives after the cursor ``after`` (of one run, agent and kind --
    ``"handle"`` or ``"scratch"`` -- when given): counted by the index in one query when it can (no entry loaded),
    else by walking ``rest`` (the caller's open :func:`iter_entries` from that cursor, of the same filter) or by
    listing them. Raises InvalidArgument (a cursor of another run, :func:`check_run_of`; a filter no entry could have,
    :func:`check_filter`), StoreBusy, StorageError."""
    check_filter(run_id, agent_id)
    check_run_of(after, run_id)
    if hasattr(store.index, "count_after"):
        return store.index.count_after(now, after, run_id, agent_id, kind)
    walk = iter_entries(store, now, run_id, agent_id, after, kind=kind) if rest is None else rest
    return sum(kind is None or e.kind == kind for e, _ in walk)


def _listed(store: ScratchStore, now: float, run_id: str | None, agent_id: str | None,
            after: tuple[str, float, int] | None, limit: int | None,
            kind: str | None) -> Iterator[tuple[Entry, tuple[str, float, int]]]:
    entries = store.list_entries() if run_id is None else store.list_entries_for_run(run_id)
    keyed = sorted(((e, (e.run_id, e.created_at, i)) for i, e in enumerate(entries)
                    if (agent_id is None or e.agent_id == agent_id) and (kind is None or e.kind == kind)),
                   key=lambda pair: pair[1])
    picked = [pair for pair in keyed if after is None or pair[1] > after]
    yield from picked if limit is None else picked[:limit]


__all__ = ["PAGE_ROWS", "check_filter", "check_run_of", "count_entries", "decode_cursor", "encode_cursor",
           "iter_entries"]
