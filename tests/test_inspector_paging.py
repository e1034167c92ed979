"""The inspector streams (issue 13): ``ls`` pages with ``--limit`` and ``--after``, printing as it reads; ``stats``
is aggregated by the index and equals the per-entry aggregate; ``fsck`` can be bounded and resumed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.api import inspector, store_listing
from scratchfs.cli import admin, main


def cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False, terminal_width=200)


@pytest.fixture
def root(tmp_path, clock):
    root = tmp_path / "root"
    with ScratchStore(root, clock=clock, segment_entry_bytes=0) as store:  # a file per entry: one can go missing
        for r in range(2):
            for a in range(2):
                scope = store.scope(f"run-{r}", f"agent-{a}")
                for i in range(6):
                    clock.advance(1)
                    scope.spill(f"{r}/{a}/{i} ".encode() * (100 + i), source_tool=f"tool{i % 3}", ttl=3600 - i)
                scope.scratch_write("k", b"v" * (a + 1), ttl=60)
    return root


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(store_listing, "PAGE_ROWS", 4)
    monkeypatch.setattr(admin, "PAGE_ROWS", 4)


def _cursor(stderr: str) -> str:
    return stderr.split("--cursor ")[1].split(maxsplit=1)[0]


def test_ls_pages_with_a_limit_and_a_cursor(root, small_pages):
    everything = json.loads(cli("ls", "--root", str(root), "--json").stdout)
    assert len(everything) == 28
    assert [(e["run_id"], e["created_at"]) for e in everything] == sorted((e["run_id"], e["created_at"])
                                                                          for e in everything)
    seen, after = [], []
    while True:
        page = cli("ls", "--root", str(root), "--json", "--limit", "5", *after)
        assert page.exit_code == 0
        seen += json.loads(page.stdout)
        if "--cursor" not in page.stderr:
            break
        after = ["--after", _cursor(page.stderr)]
    assert seen == everything
    one_run = json.loads(cli("ls", "--root", str(root), "--run", "run-1", "--agent", "agent-0", "--json").stdout)
    assert [e["key"] for e in one_run] == [e["key"] for e in everything
                                           if (e["run_id"], e["agent_id"]) == ("run-1", "agent-0")]


def test_ls_prints_pages_under_one_header(root, small_pages):
    table = cli("ls", "--root", str(root), "--limit", "6")  # not a terminal: tab-separated rows, one header
    assert table.exit_code == 0
    lines = table.stdout.splitlines()
    assert lines[0].startswith("run\tagent\tkind\tkey") and len(lines) == 7
    assert [line.split("\t")[0] for line in lines[1:]] == ["run-0"] * 6
    assert "6 entries shown; next: " in table.stderr
    assert "scratchfs: 1 entry shown; next: " in cli("ls", "--root", str(root), "--limit", "1").stderr
    assert cli("ls", "--root", str(root), "--after", "garbage").exit_code == 2


def test_stats_in_sql_equals_the_per_entry_aggregate(root, clock):
    clock.advance(30)
    with ScratchStore(root, clock=clock) as store:
        entries = store.list_entries()
        soon = sorted(e.expires_at - clock() for e in entries)[14]  # half of them expire within it
        expected = inspector.stats(entries, clock(), soon=soon)
        got = inspector.stats_in_sql(store, clock(), soon=soon)
        assert got == expected
        assert 0 < sum(s.expiring_soon for s in got) < 28  # the soon cut goes through the entries
        assert inspector.stats_in_sql(store, clock(), soon, "run-1") == [s for s in expected if s.run_id == "run-1"]
    assert json.loads(cli("stats", "--root", str(root), "--json").stdout)[0]["entries"] == 7


def test_fsck_bounded_and_resumed_checks_every_entry_once(root, small_pages):
    with ScratchStore(root) as store:
        victim = store.list_entries()[20]
        os.unlink(store.blobs.path(victim.run_id, victim.agent_id, victim.blob))
        junk = Path(store.blobs.path(victim.run_id, victim.agent_id, "z" * 24))
    junk.write_bytes(b"junk\n")  # an orphan with no seek table: an incomplete write
    checked, missing, after = 0, 0, []
    while True:
        result = cli("fsck", "--root", str(root), "--json", "--quick", "--limit", "9", *after)
        report = json.loads(result.stdout)
        checked += report["entries_checked"]
        missing += report["missing"]
        if not report["next_cursor"]:
            break
        assert report["files_checked"] == report["incomplete"] == 0  # orphans wait for the check's last page
        after = ["--after", report["next_cursor"]]
    assert (checked, missing) == (28, 1)
    assert (report["files_checked"], report["incomplete"]) == (28, 1)  # the last page looked for orphans
    assert [p["path"] for p in report["problems"] if p["kind"] == "incomplete"] == [str(junk)]
    one = json.loads(cli("fsck", "--root", str(root), "--json", "--quick", "--limit", "10000").stdout)
    assert (one["entries_checked"], one["files_checked"], one["incomplete"], one["next_cursor"]) == (28, 28, 1, None)
    junk.unlink()
    whole = json.loads(cli("fsck", "--root", str(root), "--json", "--repair").stdout)
    assert (whole["entries_checked"], whole["missing"], whole["repaired"], whole["files_checked"]) == (28, 1, 1, 27)
