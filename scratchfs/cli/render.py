"""Listings for people: a table that fits the terminal (``rich``) when stdout is a terminal, plain tab-separated
rows when it is not (a pipe, a file), from one :class:`Listing` of text cells.

An id a user must copy into the next command (a run, an agent, a key or handle) is never cut or folded: its column is
as wide as its longest value, and the other columns give way (an ellipsis in the middle of their text).
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from scratchfs.engine.protocols import Entry
from scratchfs.foundation.text import name_bytes, one_line

if TYPE_CHECKING:  # (rich loads when a table is printed to a terminal: show, scratchfs.cli.console)
    from rich.table import Table


def printable(cell: str) -> str:
    """``cell`` as one line a terminal prints as written: a byte of a name that is no UTF-8 as ``\\xNN``, each
    other control character (the ESC of a terminal escape, a NUL) or lone surrogate as its Python escape
    (:func:`~scratchfs.foundation.text.one_line`); a tab or newline as a space; any other character Python does not
    print (``str.isprintable``: a format character -- a bidirectional override or isolate, a zero-width space, a
    byte order mark, a tag --, a private-use or unassigned one) as its Python escape too, a space (``Zs``) aside: a
    key ``\\u202egnp.txe`` a terminal would show reordered, as ``ext.png``."""
    if cell.isprintable():  # (most cells: no tab, newline, control character or surrogate, so nothing to change)
        return cell
    shown = one_line(name_bytes(cell.replace("\t", " ").replace("\n", " ")))
    return "".join(char if char.isprintable() or unicodedata.category(char) == "Zs" else repr(char)[1:-1]
                   for char in shown)


def human_bytes(size: float) -> str:
    """``1536`` -> ``"1.5 KiB"`` (binary units); a size that rounds to 1024 of a unit is written in the next
    (``1048546`` -> ``"1.0 MiB"``, not ``"1024.0 KiB"``)."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        shown = f"{size:.0f}" if unit == "B" else f"{size:.1f}"
        if abs(float(shown)) < 1024 or unit == "GiB":
            return f"{shown} {unit}"
        size /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def human_seconds(seconds: float) -> str:
    """``5400`` -> ``"1h30m"``, ``90000`` -> ``"1d01h"`` (a day or more in days and hours); negative for the past."""
    sign = "-" if seconds < 0 else ""
    seconds = abs(int(seconds))
    if seconds < 60:
        return f"{sign}{seconds}s"
    if seconds < 3600:
        return f"{sign}{seconds // 60}m{seconds % 60:02d}s"
    if seconds < 86400:
        return f"{sign}{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{sign}{seconds // 86400}d{seconds % 86400 // 3600:02d}h"


def ratio(size: int, stored: int) -> str:
    """Compression ratio as ``"3.2x"``, two significant digits under 0.1 (``"0.0094x"``: a tiny value stores
    more than it holds), ``"-"`` when nothing is stored."""
    if not stored:
        return "-"
    value = size / stored
    return f"{value:.1f}x" if value >= 0.1 or value == 0 else f"{value:.2g}x"


def middle_ellipsis(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters by dropping its middle (``"abc…xyz"``)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    left = (width - 1 + 1) // 2
    return text[:left] + "…" + text[len(text) - (width - 1 - left):]


@dataclass
class Listing:
    """Rows of text cells under named columns, for people.

    ``ids``: columns holding ids a user copies (never cut); ``right``: right-aligned columns (numbers); ``elastic``:
    text columns that may be cut in the middle to fit; ``optional``: columns dropped, first to last, when the
    terminal is too narrow even so; ``total``: an optional last row.
    """

    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    title: str | None = None
    ids: frozenset[str] = frozenset()
    right: frozenset[str] = frozenset()
    elastic: frozenset[str] = frozenset()
    optional: tuple[str, ...] = ()
    total: list[str] | None = None

    def fitted(self, width: int) -> tuple[list[str], list[int]]:
        """The columns shown at ``width`` characters and their widths (elastic ones cut, optional ones dropped, then,
        while the rest is still too wide, the last column that holds no id: an id is never cut)."""
        all_rows = [*self.rows, *([self.total] if self.total else [])]
        natural = {c: max([len(c)] + [len(printable(r[i])) for r in all_rows]) for i, c in enumerate(self.columns)}
        shown = list(self.columns)
        dropping = list(self.optional)
        while True:
            widths = {c: natural[c] for c in shown}
            over = sum(widths.values()) + 3 * len(shown) + 1 - width
            for name in [c for c in shown if c in self.elastic]:
                if over <= 0:
                    break
                cut = min(over, max(0, widths[name] - 8))
                widths[name] -= cut
                over -= cut
            if over <= 0:
                return shown, [widths[c] for c in shown]
            if not dropping:  # (still too wide: the last column that is no id goes, so rich never cuts an id)
                dropping = [c for c in reversed(shown) if c not in self.ids][:1]
                if not dropping:
                    return shown, [widths[c] for c in shown]
            victim = dropping.pop(0)
            if victim in shown:
                shown.remove(victim)

    def table(self, width: int) -> Table:
        """A rich table at most ``width`` characters wide (ids whole; see the class docstring)."""
        from rich.table import Table
        from rich.text import Text

        shown, widths = self.fitted(width)
        index = [self.columns.index(c) for c in shown]
        table = Table(title=None if self.title is None else Text(self.title), expand=False)  # (cells are text as
        # written: a run, key or tool name holding '[/]' or '[bold]' is no rich markup)
        for name, size in zip(shown, widths, strict=True):
            table.add_column(name, justify="right" if name in self.right else "left", no_wrap=True,  # (cells cut
                             overflow="crop", min_width=size if name in self.ids else min(size, len(name)),  # to
                             max_width=size)  # size already; "ignore" would leave numbers unjustified, left)
        for row in self.rows:
            table.add_row(*[Text(middle_ellipsis(printable(row[i]), size))
                            for i, size in zip(index, widths, strict=True)])
        if self.total:
            table.add_section()
            table.add_row(*[Text(middle_ellipsis(printable(self.total[i]), size))
                            for i, size in zip(index, widths, strict=True)])
        return table

    def tsv(self) -> str:
        """The header and rows as tab-separated lines, each cell :func:`printable` (tabs and newlines become spaces)."""
        lines = ["\t".join(self.columns)]
        for row in [*self.rows, *([self.total] if self.total else [])]:
            lines.append("\t".join(printable(cell) for cell in row))
        return "\n".join(lines) + "\n"


def show(listing: Listing, out: TextIO | None = None) -> None:
    """Print a listing to stdout: a table fitted to the terminal when stdout is one, else tab-separated rows."""
    out = out or sys.stdout
    if out.isatty():
        from scratchfs.cli.console import PipedConsole

        console = PipedConsole(file=out)
        console.print(listing.table(console.width))
    else:
        out.write(listing.tsv())
        out.flush()


def entries_listing(entries: Iterable[Entry], now: float, title: str | None = None,
                    show_run: bool = False) -> Listing:
    """Entries: (run,) agent, kind, key, size, on disk, ratio, expires in (at most the ttl, as scratch_list says:
    :meth:`Entry.expires_in`), source tool."""
    columns = (["run"] if show_run else []) + ["agent", "kind", "key", "size", "on disk", "ratio", "expires in",
                                               "tool"]
    listing = Listing(columns, title=title, ids=frozenset({"run", "agent", "key"}),
                      right=frozenset({"size", "on disk", "ratio", "expires in"}), elastic=frozenset({"tool"}),
                      optional=("ratio", "on disk", "kind", "tool", "agent"))
    for e in entries:
        cells = [e.run_id] if show_run else []
        cells += [e.agent_id, e.kind, e.key, human_bytes(e.size), human_bytes(e.stored_size),
                  ratio(e.size, e.stored_size), human_seconds(e.expires_in(now)), e.source_tool or ""]
        listing.rows.append(cells)
    return listing


def stats_listing(rows: Iterable, soon: float, title: str | None = None) -> Listing:
    """Per-scope statistics (:class:`scratchfs.api.inspector.ScopeStats`), with a total line; ``expired`` shows the
    entries expired but not swept yet and the bytes the index stores for them (``"1 (325 B stored)"``; a sweep frees
    whole files, a segment's header too and a segment only once no live entry shares it: ``bytes_freed`` differs)."""
    soon_name = f"expiring <{human_seconds(soon)}"
    numbers = ("entries", "handles", "scratch", "bytes in", "on disk", "ratio", "oldest", soon_name, "expired")
    listing = Listing(["run", "agent", *numbers], title=title, ids=frozenset({"run", "agent"}),
                      right=frozenset(numbers), optional=("ratio", "handles", "scratch", "on disk", "oldest"))
    total = [0, 0, 0, 0, 0, 0, 0, 0]
    rows = list(rows)
    for s in rows:
        expired, expired_bytes = getattr(s, "expired", 0), getattr(s, "expired_bytes", 0)
        listing.rows.append([s.run_id, s.agent_id, str(s.entries), str(s.handles), str(s.scratch),
                             human_bytes(s.bytes_in), human_bytes(s.bytes_on_disk), ratio(s.bytes_in, s.bytes_on_disk),
                             human_seconds(s.oldest_age) + " ago" if s.entries else "-", str(s.expiring_soon),
                             _expired(expired, expired_bytes)])
        for i, value in enumerate((s.entries, s.handles, s.scratch, s.bytes_in, s.bytes_on_disk, s.expiring_soon,
                                   expired, expired_bytes)):
            total[i] += value
    if len(rows) > 1:
        listing.total = ["total", "", str(total[0]), str(total[1]), str(total[2]), human_bytes(total[3]),
                         human_bytes(total[4]), ratio(total[3], total[4]), "", str(total[5]),
                         _expired(total[6], total[7])]
    return listing


def _expired(count: int, stored: int) -> str:
    return f"{count} ({human_bytes(stored)} stored)" if count else "0"


def problems_listing(problems: Iterable, root: str = "", title: str | None = None) -> Listing:
    """Problems found by fsck (:class:`scratchfs.api.inspector.Problem`): ids decoded, paths relative to ``root``."""
    listing = Listing(["problem", "run", "agent", "key", "file", "detail", "repaired"], title=title,
                      ids=frozenset({"run", "agent", "key"}), elastic=frozenset({"file", "detail"}),
                      optional=("file", "repaired"))
    prefix = root.rstrip("/") + "/" if root else ""
    for p in problems:
        path = p.path[len(prefix):] if prefix and p.path.startswith(prefix) else p.path
        listing.rows.append([p.kind, p.run_id, p.agent_id, p.key or "-", path, p.detail,
                             "yes" if p.repaired else "no"])
    return listing


__all__ = ["Listing", "entries_listing", "human_bytes", "human_seconds", "middle_ellipsis", "printable",
           "problems_listing", "ratio", "show", "stats_listing"]
