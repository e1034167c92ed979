"""What a slurp page's note says of its table, JSON lines or JSON texts (:func:`table_note`), beside jq's outputs:
keys renamed from a header that repeats a name, rows or records that could not be read and documents that are not
JSON, passed over (the first named in full, the next by number), rows of a table aligned by spaces given whole, and
a column of percentages; and the bytes the note takes of the page's budget. The slurp read itself is
:mod:`scratchfs.engine.structure.slurp`."""

from __future__ import annotations

import json

from scratchfs.engine.structure.aligned import Layout
from scratchfs.engine.structure.paging import ContentSource
from scratchfs.engine.structure.percent_cells import percent_note
from scratchfs.engine.structure.row_keys import EXTRA_CELLS, row_keys
from scratchfs.engine.structure.table import iter_rows
from scratchfs.foundation.errors import BadRecord
from scratchfs.foundation.text import plural

Whole = tuple[int, str, tuple[int, ...], str]  # (rows given whole: how many, the key of their line, the first's
# numbers; and what is said of a row holding a quote never closed, stray_quotes.runaway_said, or "")
NO_WHOLE: Whole = (0, "", (), "")  # (no row given whole: JSON lines, JSON texts, a table whose every row split)


def table_note(source: ContentSource, form: str, layout: Layout | None, passed: tuple[BadRecord, ...],
               budget: int, whole: Whole = NO_WHOLE, jq: str = "") -> tuple[str | None, int, tuple[BadRecord, ...]]:
    """``(what a slurp page's note says of the table -- keys renamed, rows passed over, rows given whole
    (:func:`_whole_note`), a column of percentages the filter ``jq`` names (:func:`~.percent_cells.percent_note`) --,
    or None; the bytes of JSON kept for it, the byte reads the reads layer adds included; the rows passed over it
    names, :func:`_named`)``."""
    named = _named(passed, budget)
    keyed = _keys_note(source, layout) if form == "rows" else None
    passed_note = _documents_note(source, passed, named) if form == "documents" else _passed_note(
        source, passed, named, form)
    percent = percent_note(source, layout, jq) if form == "rows" and jq else None
    said = (keyed, passed_note, _whole_note(whole), whole[3], percent)
    keyed = "; ".join([one for one in said if one]) or None
    if keyed is None:
        return None, 0, named
    return keyed, len(json.dumps(keyed, ensure_ascii=False).encode("utf-8")) + len(',"note":; ') + (
        _SEE_BYTES * len(named)), named


_SEE_BYTES = 112
"""Bytes of JSON a note's naming of a row passed over grows by when the reads layer adds the byte read that shows it
(`` -- its bytes: read_handle(handle="h_...", offset=N, length=N, budget=N)``, its quotes escaped): room kept."""
_MOST_NAMED = 10
"""Most rows passed over a slurp page's note names in full (as many as a rows page passes over)."""
MOST_NUMBERED = 10
"""Most rows passed over past those named that the note gives by number."""


def _named(passed: tuple[BadRecord, ...], budget: int) -> tuple[BadRecord, ...]:
    """The rows passed over that a page's note names in full (each with what is wrong and, added by the reads layer,
    the byte read that shows it): the first, and those after it while their naming stays within a quarter of
    ``budget`` (the page's bytes of JSON), at most :data:`_MOST_NAMED`."""
    named, used = [], 0
    for bad in passed[:_MOST_NAMED]:
        used += len(str(bad)) + len(" -- passed over; ") + _SEE_BYTES
        if named and used > budget // 4:
            break
        named.append(bad)
    return tuple(named)


def _passed_note(source: ContentSource, passed: tuple[BadRecord, ...], named: tuple[BadRecord, ...], form: str
                 ) -> str | None:
    """What a slurp page says of the rows of a table that could not be read, or the records of JSON lines (``form``
    ``"records"``) not JSON, passed over (``named``: those it names in full, the first of ``passed``): how many,
    each named, then how many more and the first numbers of those; of JSON lines whose only such record is the last
    line (:func:`_ends`), that it is; ``None`` when there are none."""
    if not passed:
        return None
    noun, reader = ("record", "records read (record=N)") if form == "records" else ("row", "rows read (row=N)")
    if form == "records" and len(passed) == 1 and _ends(source, passed[0]):
        return (f"{passed[0]} -- passed over: it is not in the array jq was given: it is the last line (cut short, or "
                "no record), which the stub counts out too")
    count = len(passed)
    said = (f"{plural(count, noun)} could not be read and {'are' if count > 1 else 'is'} not in "
            f"the array jq was given: " + "; ".join(f"{bad} -- passed over" for bad in named))
    rest = passed[len(named) :]
    if rest:
        numbers = ", ".join(str(bad.record) for bad in rest[:MOST_NUMBERED]) + (
            ", …" if len(rest) > MOST_NUMBERED else "")
        said += f"; and {len(rest):,} more ({noun}{'s' if len(rest) > 1 else ''} {numbers}): a {reader} names each"
    return said


def _ends(source: ContentSource, bad: BadRecord) -> bool:
    """Whether only blanks (at most 4 KiB of them) follow ``bad`` (a record or document passed over): the content's
    last, cut short."""
    rest = source.size - bad.offset - bad.length
    return rest <= 4096 and not source.read(bad.offset + bad.length, rest).strip()


def _documents_note(source: ContentSource, passed: tuple[BadRecord, ...], named: tuple[BadRecord, ...],
                    ) -> str | None:
    """What a slurp page says of the documents of a stream of JSON texts that are not JSON, passed over (``named``:
    those it names in full): each named, the last one said to be so when only blanks follow it (cut short), then how
    many more and where the first of those start; ``None`` when there are none."""
    if not passed:
        return None
    ends = _ends(source, passed[-1])
    if len(passed) == 1 and ends:
        return f"{passed[-1]} -- passed over: it is not in the array jq was given: it is the last one (cut short)"
    count = len(passed)
    said = (f"{plural(count, 'document')} {'is' if count == 1 else 'are'} not JSON and not in the array jq was "
            f"given (the documents after {'it' if count == 1 else 'each'} are): "
            + "; ".join(f"{bad} -- passed over" for bad in named))
    more = passed[len(named) :]
    if more:
        where = ", ".join(f"{bad.record:,} at byte {bad.offset:,}" for bad in more[:MOST_NUMBERED]) + (
            ", …" if len(more) > MOST_NUMBERED else "")
        said += f"; and {len(more):,} more (document {where})"
    return said + ("; the last one runs to the content's end (cut short)" if ends else "")


def _whole_note(whole: Whole) -> str | None:
    """What a slurp page says of the rows of a table aligned by spaces given whole (``whole``: how many, the key of
    their line, the first's numbers), whose cells could not be told for certain; ``None`` when there are none."""
    count, key, first, _ = whole
    if not count:
        return None
    numbers = ", ".join(map(str, first)) + (", …" if count > len(first) else "")
    return (f"{plural(count, 'row')} given whole (row {numbers}): cells not told for certain, so every name null "
            f"and the line under {key}: jq=\"[.[] | select(.{key})]\" with slurp=true lists them, row=N reads one")


def _keys_note(source: ContentSource, layout: Layout | None) -> str | None:
    """What a note says of a table whose header repeats a name or has a column named :data:`EXTRA_CELLS` (the
    keys :func:`row_keys` gives instead, the first :data:`_NOTED` of them, each name cut to :data:`_NOTED_CHARS`
    characters: under 1 KiB of JSON, the reply's budget gives it room), else ``None``."""
    header = next(iter(iter_rows(source, layout=layout)), (0, []))[1]
    keys, extra = row_keys(header)
    renamed = [f"column {at} ({_short(name)}) as {_short(key)}"
               for at, (name, key) in enumerate(zip(header, keys, strict=True)) if key != name]  # (numbered as
    # columns= takes them, from 0: a note that counted from 1 had a model read the column after the one it named)
    if not renamed and extra == EXTRA_CELLS:
        return None
    more = f" (and {len(renamed) - _NOTED:,} more columns)" if len(renamed) > _NOTED else ""
    said = [f"the header repeats a name: its rows key {', '.join(renamed[:_NOTED])}{more} (column numbers from 0, "
            "as columns= takes them)"] if renamed else []
    if extra != EXTRA_CELLS:
        said.append(f"the header has a column {EXTRA_CELLS!r}: cells past the header are under {extra!r}")
    return "; ".join(said)


_NOTED = 3
"""Most renamed columns a note names."""
_NOTED_CHARS = 24
"""Most characters of a column name a note shows (of a longer one its start and its end, ``…`` between)."""


def _short(name: str) -> str:
    """``name`` quoted for a note, cut to :data:`_NOTED_CHARS` characters: its start and end (a key's ``_n``)."""
    return repr(name if len(name) <= _NOTED_CHARS else f"{name[:_NOTED_CHARS - 9]}…{name[-8:]}")


__all__ = ["MOST_NUMBERED", "NO_WHOLE", "Whole", "table_note"]
