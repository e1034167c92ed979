"""The inspector's tables on a terminal (``scratchfs ls``, ``stats``): an id a user copies (run, agent, key) is never
cut, however narrow the terminal, and numbers stand right-aligned. ``scratchfs stats`` in a 60-column terminal printed
``run-`` and ``agent-`` for ``run-r`` and ``agent-a`` (the columns left after every optional one was dropped were still
too wide, and rich cut them all, ids too), and every number stood left-aligned (``overflow="ignore"`` leaves a cell
unjustified)."""

from __future__ import annotations

import io
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from scratchfs.cli.render import entries_listing, stats_listing

_ID = st.text("abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=24)


def _printed(listing, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width)
    console.print(listing.table(width))
    return console.file.getvalue().splitlines()


def _scope_stats(run: str, agent: str) -> SimpleNamespace:
    return SimpleNamespace(run_id=run, agent_id=agent, entries=15, handles=14, scratch=1, bytes_in=20_000_000,
                           bytes_on_disk=2_500_000, oldest_age=161.0, expiring_soon=0, expired=3, expired_bytes=4096)


def test_stats_in_a_60_column_terminal_shows_the_run_and_agent_whole():
    lines = _printed(stats_listing([_scope_stats("run-r", "agent-a")], 300.0), 60)
    row = next(line for line in lines if "run-r" in line)
    assert "│ run-r │ agent-a │" in row, lines
    assert all(len(line) <= 60 for line in lines), lines


def test_numbers_stand_right_aligned():
    lines = _printed(stats_listing([_scope_stats("run-r", "agent-a")], 300.0), 200)
    header = next(line for line in lines if "entries" in line)
    row = next(line for line in lines if "run-r" in line)
    end = header.index("entries") + len("entries")  # (the header's last letter and the number's last digit align)
    assert row[end - 2:end] == "15", (header, row)


@settings(max_examples=150, deadline=None)
@given(runs=st.lists(_ID, min_size=1, max_size=3), agent=_ID, width=st.integers(20, 160))
def test_every_id_is_whole_at_any_width_where_the_ids_fit(runs, agent, width):
    stats = stats_listing([_scope_stats(run, agent) for run in runs], 300.0)
    entries = entries_listing([SimpleNamespace(run_id=run, agent_id=agent, kind="handle",
                                               key="h_" + "a" * 22 + str(i).zfill(2), size=10, stored_size=5,
                                               expires_at=60.0, expires_in=lambda now: 60.0 - now,
                                               source_tool="tool") for i, run in enumerate(runs)],
                              0.0, show_run=True)
    for listing, ids in ((stats, ("run", "agent")), (entries, ("run", "key"))):
        index = [listing.columns.index(c) for c in ids]
        widths = [max(len(c), *(len(r[i]) for r in listing.rows)) for c, i in zip(ids, index, strict=True)]
        wanted = sum(widths) + 3 * len(ids) + 1
        if wanted > width:
            continue  # (the ids alone are wider than the terminal)
        lines = _printed(listing, width)
        assert all(len(line) <= width for line in lines), lines
        body = "\n".join(lines)
        for row in listing.rows:
            for i in index:
                assert f"│ {row[i]} " in body, (row[i], lines)
