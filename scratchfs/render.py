"""Readable tables for the terminal (``rich``): entry listings and the demo's report."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.table import Table

from .index import Entry


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


def entries_table(entries: Iterable[Entry], now: float, title: str | None = None, show_run: bool = False) -> Table:
    """A table of entries: (run,) agent, kind, key, size, on disk, ratio, expires in, source tool."""
    table = Table(title=title)
    columns = [("run", "left")] if show_run else []
    columns += [("agent", "left"), ("kind", "left"), ("key", "left"), ("size", "right"), ("on disk", "right"),
                ("ratio", "right"), ("expires in", "right"), ("tool", "left")]
    for name, justify in columns:
        table.add_column(name, justify=justify)
    for e in entries:
        ratio = f"{e.size / e.stored_size:.1f}x" if e.stored_size else "-"
        cells = [e.run_id] if show_run else []
        cells += [e.agent_id, e.kind, e.key, human_bytes(e.size), human_bytes(e.stored_size), ratio,
                  human_seconds(e.expires_at - now), e.source_tool or ""]
        table.add_row(*cells)
    return table


def print_table(table: Table) -> None:
    """Print a table to stdout (wide enough not to fold handles)."""
    Console(width=max(120, Console().width)).print(table)
