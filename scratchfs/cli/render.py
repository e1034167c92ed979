"""Readable tables for the terminal (``rich``): entry listings and the demo's report."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.table import Table

from scratchfs.engine.protocols import Entry


def human_bytes(size: float) -> str:
    """``1536`` -> ``"1.5 KiB"`` (binary units)."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def human_seconds(seconds: float) -> str:
    """``5400`` -> ``"1h30m"``; negative for the past."""
    sign = "-" if seconds < 0 else ""
    seconds = abs(int(seconds))
    if seconds < 60:
        return f"{sign}{seconds}s"
    if seconds < 3600:
        return f"{sign}{seconds // 60}m{seconds % 60:02d}s"
    return f"{sign}{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def ratio(size: int, stored: int) -> str:
    """Compression ratio as ``"3.2x"`` (``"-"`` when nothing is stored)."""
    return f"{size / stored:.1f}x" if stored else "-"


def entries_table(entries: Iterable[Entry], now: float, title: str | None = None, show_run: bool = False) -> Table:
    """A table of entries: (run,) agent, kind, key, size, on disk, ratio, expires in, source tool."""
    table = Table(title=title)
    columns = [("run", "left")] if show_run else []
    columns += [("agent", "left"), ("kind", "left"), ("key", "left"), ("size", "right"), ("on disk", "right"),
                ("ratio", "right"), ("expires in", "right"), ("tool", "left")]
    for name, justify in columns:
        # a handle must stay whole (it is copied into the next command); other text may fold
        table.add_column(name, justify=justify, no_wrap=name == "key", min_width=26 if name == "key" else None,
                         overflow="fold")
    for e in entries:
        cells = [e.run_id] if show_run else []
        cells += [e.agent_id, e.kind, e.key, human_bytes(e.size), human_bytes(e.stored_size),
                  ratio(e.size, e.stored_size), human_seconds(e.expires_at - now), e.source_tool or ""]
        table.add_row(*cells)
    return table


def stats_table(rows: Iterable, soon: float, title: str | None = None) -> Table:
    """A table of :class:`scratchfs.inspector.ScopeStats`, with a total line."""
    table = Table(title=title)
    for name, justify in (("run", "left"), ("agent", "left"), ("entries", "right"), ("handles", "right"),
                          ("scratch", "right"), ("bytes in", "right"), ("on disk", "right"), ("ratio", "right"),
                          ("oldest", "right"), (f"expiring <{human_seconds(soon)}", "right")):
        table.add_column(name, justify=justify)
    total = [0, 0, 0, 0, 0, 0]
    rows = list(rows)
    for s in rows:
        table.add_row(s.run_id, s.agent_id, str(s.entries), str(s.handles), str(s.scratch), human_bytes(s.bytes_in),
                      human_bytes(s.bytes_on_disk), ratio(s.bytes_in, s.bytes_on_disk),
                      human_seconds(s.oldest_age) + " ago", str(s.expiring_soon))
        for i, value in enumerate((s.entries, s.handles, s.scratch, s.bytes_in, s.bytes_on_disk, s.expiring_soon)):
            total[i] += value
    if len(rows) > 1:
        table.add_section()
        table.add_row("total", "", str(total[0]), str(total[1]), str(total[2]), human_bytes(total[3]),
                      human_bytes(total[4]), ratio(total[3], total[4]), "", str(total[5]))
    return table


def problems_table(problems: Iterable, title: str | None = None) -> Table:
    """A table of :class:`scratchfs.inspector.Problem`."""
    table = Table(title=title)
    for name in ("problem", "run", "agent", "key", "file", "detail", "repaired"):
        table.add_column(name, overflow="fold")
    for p in problems:
        table.add_row(p.kind, p.run_id, p.agent_id, p.key or "-", p.path, p.detail, "yes" if p.repaired else "no")
    return table


def print_table(table: Table) -> None:
    """Print a table to stdout (wide enough not to fold handles)."""
    Console(width=max(120, Console().width)).print(table)
