"""The keys of a table's cells in a row read as an object (a ``slurp=true`` read's rows, the names ``columns=``
takes): each column's name, a repeated name numbered, the cells past the header under one key of their own."""

from __future__ import annotations

__all__ = ["EXTRA_CELLS", "first_keys", "row_keys"]

EXTRA_CELLS = "_extra"
"""The key under which a row's cells past the header's columns are listed (a row longer than its header)."""


def row_keys(header: list[str]) -> tuple[list[str], str]:
    """``(the keys of a row's cells, the key of its cells past the header)`` for a table's ``header``: each name
    its own key, except that the n-th column of a repeated name is keyed ``name_n`` (``id``, ``name``, ``id_2``: a
    join's ``SELECT *``), and the cells past the header are under :data:`EXTRA_CELLS`, or ``_extra_2`` (...) when
    the header has a column of that name -- so no cell is keyed as another and lost. A key the header already has
    is passed over (``_3`` when ``id_2`` is a column of its own)."""
    taken = set(header)
    keys = _keys(header, taken, len(header))
    extra, n = EXTRA_CELLS, 1
    while extra in taken:
        n += 1
        extra = f"{EXTRA_CELLS}_{n}"
    return keys, extra


def first_keys(header: list[str], count: int) -> list[str]:
    """The keys of the first ``count`` columns of a table's ``header``: ``row_keys(header)[0][:count]``, at the cost
    of those columns (a shape names 16 of a header of 4,000 columns: 3 ms for all their keys)."""
    return _keys(header, set(header), count)


def _keys(header: list[str], taken: set[str], count: int) -> list[str]:
    """The keys of the first ``count`` columns of ``header``, ``taken`` its names (each key given is added)."""
    seen: dict[str, int] = {}
    keys: list[str] = []
    for name in header[:count]:
        n = seen[name] = seen.get(name, 0) + 1
        key = name
        while n > 1 and key in taken:
            key, n = f"{name}_{n}", n + 1
        taken.add(key)
        keys.append(key)
    return keys
