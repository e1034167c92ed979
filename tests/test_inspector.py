"""The inspector CLI: ``ls`` (table), ``stats``, ``fsck [--repair]``, and ``--json`` on every command."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from scratchfs import NotFound, ScratchStore
from scratchfs.api.inspector import stats_in_sql
from scratchfs.cli import main
from scratchfs.cli.render import stats_listing
from scratchfs.foundation.checks import new_token
from tests.conftest import BACKENDS


@pytest.fixture
def root(tmp_path, fixture_data):
    """A store with entries in two runs and three agents: real outputs spilled, one short-lived scratch value."""
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        a = store.scope("run-a", "agent-1")
        a.spill(fixture_data["browser-rust-book.html"], source_tool="browser.get")
        a.spill(fixture_data["query-packages-by-month.csv"], source_tool="sql.query")
        a.scratch_write("plan", "read the CSV", ttl=60)
        store.scope("run-a", "agent-2").spill(fixture_data["workspace-grep-stdlib-defs.txt"],
                                              source_tool="workspace.grep")
        store.scope("run-b", "agent-1").spill(fixture_data["api-ec2-service-model.json"], source_tool="api.describe")
    return root


def cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False, terminal_width=200)


def test_ls_piped_prints_tab_separated_rows(root):
    table = cli("ls", "--root", str(root))
    assert table.exit_code == 0
    header, *rows = table.stdout.splitlines()
    assert header.split("\t") == ["run", "agent", "kind", "key", "size", "on disk", "ratio", "expires in", "tool"]
    assert len(rows) == 5 and all(len(row.split("\t")) == 9 for row in rows)
    for text in ("run-b", "agent-2", "512.0 KiB", "browser.get", "sql.query", "59m", "plan"):
        assert text in table.stdout, text
    only = cli("ls", "--root", str(root), "--run", "run-a", "--agent", "agent-2")
    assert "workspace.grep" in only.stdout and "browser.get" not in only.stdout
    entries = json.loads(cli("ls", "--root", str(root), "--run", "run-a", "--json").stdout)
    assert sorted(e["source_tool"] or "" for e in entries) == ["", "browser.get", "sql.query", "workspace.grep"]


def test_stats_per_run_and_agent(root):
    result = cli("stats", "--root", str(root), "--json")
    assert result.exit_code == 0
    rows = {(r["run_id"], r["agent_id"]): r for r in json.loads(result.stdout)}
    with ScratchStore(root) as store:
        entries = store.list_entries()
    assert set(rows) == {("run-a", "agent-1"), ("run-a", "agent-2"), ("run-b", "agent-1")}
    mine = [e for e in entries if (e.run_id, e.agent_id) == ("run-a", "agent-1")]
    row = rows[("run-a", "agent-1")]
    assert (row["entries"], row["handles"], row["scratch"]) == (3, 2, 1)
    assert row["bytes_in"] == sum(e.size for e in mine)
    assert row["bytes_on_disk"] == sum(e.stored_size for e in mine) < row["bytes_in"]
    assert row["oldest"] == min(e.created_at for e in mine) and 0 <= row["oldest_age"] < 60
    assert row["expiring_soon"] == 1  # the scratch value with a 60 s TTL
    assert rows[("run-b", "agent-1")]["expiring_soon"] == 0
    assert json.loads(cli("stats", "--root", str(root), "--soon", "7200", "--json").stdout)[0]["expiring_soon"] == 3
    table = cli("stats", "--root", str(root))
    assert "total" in table.stdout and "expiring <5m00s" in table.stdout
    assert [r["run_id"] for r in json.loads(cli("stats", "--root", str(root), "--run", "run-b", "--json").stdout)] \
        == ["run-b"]


def damage(root):
    """Break the store four ways: a file removed, a byte flipped inside a frame, a file cut short, an orphan."""
    with ScratchStore(root) as store:
        entries = {e.source_tool: e for e in store.list_entries()}
        paths = {tool: Path(store.blobs.path(e.run_id, e.agent_id, e.blob)) for tool, e in entries.items()}
    paths["browser.get"].unlink()
    raw = bytearray(paths["sql.query"].read_bytes())
    raw[100] ^= 0xFF
    paths["sql.query"].write_bytes(bytes(raw))
    with open(paths["api.describe"], "r+b") as f:
        f.truncate(os.path.getsize(paths["api.describe"]) - 7)
    orphan = paths["workspace.grep"].with_name(new_token() + ".zst")
    shutil.copy(paths["workspace.grep"], orphan)
    os.utime(orphan, (time.time() - 3600, time.time() - 3600))  # older than orphan_grace: no sweep removed it
    return entries, orphan


def test_an_orphan_younger_than_the_grace_is_reported_as_the_sweeps_not_as_a_problem_left(root):
    """A platform cascade (or a run's row deleted otherwise) leaves blob files no row names, which the sweep removes
    once older than ``orphan_grace``, as the README says; ``fsck`` right after counted each as a problem that remains
    and exited 3, "corrupt" (a new user's trial): monitoring on its exit code alarmed after every cascade. A young
    orphan is now listed (``sweeps``: true) without making fsck exit 3; once older than the grace it is a problem."""
    with ScratchStore(root) as store:
        entry = store.list_entries()[0]
        path = Path(store.blobs.path(entry.run_id, entry.agent_id, entry.blob))
    orphan = path.with_name(new_token() + ".zst")
    shutil.copy(path, orphan)
    young = cli("fsck", "--root", str(root), "--json")
    assert young.exit_code == 0, young.output
    report = json.loads(young.stdout)
    assert report["clean"] and report["orphaned"] == 1
    assert [(p["kind"], p["sweeps"], p["path"]) for p in report["problems"]] == [("orphaned", True, str(orphan))]
    os.utime(orphan, (time.time() - 301, time.time() - 301))
    old = cli("fsck", "--root", str(root))
    assert old.exit_code == 3 and old.stderr.startswith("scratchfs: not clean: 1 problem remains (orphaned);"), \
        old.stderr


def test_an_orphan_dated_in_the_future_is_a_problem_not_the_sweeps(root):
    """An orphan whose modification time is years ahead (a clock set wrong, a copy keeping a bad date) was listed as
    "-97200445 s old, the sweep removes it once older than orphan_grace" with ``sweeps`` true and fsck exiting 0: the
    sweep leaves it until that date, so it stays for years and fsck called the store clean. Only a file the sweep
    will take within about the grace is the sweep's; one dated further ahead is a problem that remains."""
    with ScratchStore(root) as store:
        entry = store.list_entries()[0]
        path = Path(store.blobs.path(entry.run_id, entry.agent_id, entry.blob))
    orphan = path.with_name(new_token() + ".zst")
    shutil.copy(path, orphan)
    ahead = time.time() + 10 * 365 * 86400
    os.utime(orphan, (ahead, ahead))
    found = cli("fsck", "--root", str(root), "--json")
    assert found.exit_code == 3 and found.stderr.startswith("scratchfs: not clean: 1 problem remains (orphaned);"), \
        found.stderr
    [problem] = json.loads(found.stdout)["problems"]
    assert (problem["kind"], problem["sweeps"], problem["path"]) == ("orphaned", False, str(orphan))
    assert "in the future" in problem["detail"] and " -" not in problem["detail"], problem["detail"]
    soon = time.time() + 30  # a little ahead (clocks a little apart): the sweep's within the grace, told as 0 s old
    os.utime(orphan, (soon, soon))
    [problem] = json.loads(cli("fsck", "--root", str(root), "--json").stdout)["problems"]
    assert problem["sweeps"] and "; 0 s old" in problem["detail"], problem["detail"]
    repaired = cli("fsck", "--root", str(root), "--repair")
    assert repaired.exit_code == 0 and not orphan.exists(), repaired.output


def test_an_incomplete_write_dated_in_the_future_is_a_problem_not_the_sweeps(root):
    """An incomplete write (no seek table) whose modification time is years ahead was told "the sweep removes it
    after the grace period" (fsck exit 0, clean), where the sweep leaves it until that date. The sweep still leaves
    it (a file dated ahead may be a live writer's after the clock stepped back); fsck says so, the problem remains
    (exit 3) and ``--repair`` removes it. One a little ahead (clocks a little apart) stays the sweep's."""
    with ScratchStore(root) as store:
        entry = store.list_entries()[0]
        path = Path(store.blobs.path(entry.run_id, entry.agent_id, entry.blob))
    partial = path.with_name(new_token() + ".zst")
    partial.write_bytes(path.read_bytes()[:5000])  # a write cut short: no seek table
    ahead = time.time() + 10 * 365 * 86400
    os.utime(partial, (ahead, ahead))
    assert cli("sweep", "--root", str(root)).exit_code == 0 and partial.exists()  # the sweep leaves it
    found = cli("fsck", "--root", str(root), "--json")
    assert found.exit_code == 3 and found.stderr.startswith("scratchfs: not clean: 1 problem remains (incomplete);"), \
        found.stderr
    [problem] = json.loads(found.stdout)["problems"]
    assert (problem["kind"], problem["sweeps"], problem["path"]) == ("incomplete", False, str(partial))
    assert "in the future" in problem["detail"] and "removes it after" not in problem["detail"], problem["detail"]
    soon = time.time() + 30
    os.utime(partial, (soon, soon))
    found = cli("fsck", "--root", str(root), "--json")
    [problem] = json.loads(found.stdout)["problems"]
    assert found.exit_code == 0 and problem["sweeps"] and "after the grace period" in problem["detail"], found.stdout
    os.utime(partial, (ahead, ahead))
    repaired = cli("fsck", "--root", str(root), "--repair")
    assert repaired.exit_code == 0 and not partial.exists(), repaired.output


def test_links_and_fifos_at_blob_names_are_reported_and_repair_removes_the_names_only(root, tmp_path):
    """A link or FIFO at a blob file's or segment's name in an agent directory was skipped by fsck (exit 0, clean)
    and by the sweep, left there for ever. fsck now reports each (``unexpected``, exit 3); ``--repair`` removes the
    link or FIFO itself -- never its target, and never opens the FIFO (it would block) -- and a directory at such a
    name is reported and left. The sweep says nothing of them (it logged a FIFO segment on every sweep)."""
    with ScratchStore(root) as store:
        entry = store.list_entries()[0]
        folder = Path(store.blobs.path(entry.run_id, entry.agent_id, entry.blob)).parent
    target = tmp_path / "precious"
    target.write_bytes(b"keep me")
    planted = {folder / ("a" * 24 + ".zst"): "symbolic link", folder / ("b" * 24 + ".zst"): "FIFO",
               folder / ("c" * 24 + ".zseg"): "symbolic link", folder / ("d" * 24 + ".zseg"): "FIFO"}
    for path, kind in planted.items():
        path.symlink_to(target) if kind == "symbolic link" else os.mkfifo(path)
    (folder / ("e" * 24 + ".zst")).mkdir()
    env = dict(os.environ, SCRATCHFS_ROOT=str(root))
    for _ in range(2):
        swept = subprocess.run([sys.executable, "-m", "scratchfs", "sweep"], env=env, capture_output=True,
                               text=True, timeout=60)
        assert swept.returncode == 0 and swept.stderr == "", swept.stderr
    found = cli("fsck", "--root", str(root), "--json")
    assert found.exit_code == 3, found.stderr
    assert found.stderr.startswith("scratchfs: not clean: 5 problems remain (5 unexpected);"), found.stderr
    problems = {p["path"]: p for p in json.loads(found.stdout)["problems"]}
    assert set(problems) == {str(p) for p in planted} | {str(folder / ("e" * 24 + ".zst"))}
    for path, kind in planted.items():
        assert problems[str(path)]["kind"] == "unexpected" and kind in problems[str(path)]["detail"]
    repaired = cli("fsck", "--root", str(root), "--repair", "--json")
    assert repaired.exit_code == 3 and "1 problem remains (unexpected)" in repaired.stderr, repaired.stderr  # the dir
    assert not any(os.path.lexists(p) for p in planted) and target.read_bytes() == b"keep me"
    assert (folder / ("e" * 24 + ".zst")).is_dir()


def test_fsck_finds_missing_corrupt_and_orphaned_and_repairs_them(root):
    clean = cli("fsck", "--root", str(root), "--json")
    assert clean.exit_code == 0
    report = json.loads(clean.stdout)
    with ScratchStore(root) as store:
        assert report["bytes_checked"] == sum(e.size for e in store.list_entries())
    assert (report["entries_checked"], report["files_checked"], report["index"], report["clean"]) == (5, 5, "ok", True)

    entries, orphan = damage(root)
    found = cli("fsck", "--root", str(root), "--json")
    assert found.exit_code == 3
    assert found.stderr == ("scratchfs: not clean: 4 problems remain (1 missing, 2 corrupt, 1 orphaned); "
                            f"`scratchfs fsck --repair --root {root}` "
                            "removes 1 missing entry's row, 2 corrupt entries (rows and files) and 1 orphan\n")
    report = json.loads(found.stdout)
    problems = {(p["kind"], p["key"]) for p in report["problems"]}
    assert problems == {("missing", entries["browser.get"].key), ("corrupt", entries["sql.query"].key),
                        ("corrupt", entries["api.describe"].key), ("orphaned", None)}
    assert (report["missing"], report["corrupt"], report["orphaned"], report["repaired"]) == (1, 2, 1, 0)
    assert any(p["path"] == str(orphan) for p in report["problems"])

    quick = json.loads(cli("fsck", "--root", str(root), "--quick", "--json").stdout)
    assert quick["corrupt"] == 1 and quick["bytes_checked"] == 0  # the flipped byte needs the frames decompressed

    table = cli("fsck", "--root", str(root))
    assert table.exit_code == 3 and "missing 1, corrupt 2, orphaned 1" in table.stdout and "orphaned" in table.stdout

    repaired = cli("fsck", "--root", str(root), "--repair", "--json")
    assert repaired.exit_code == 0, repaired.output
    assert json.loads(repaired.stdout)["repaired"] == 4
    assert not orphan.exists()
    again = json.loads(cli("fsck", "--root", str(root), "--json").stdout)
    assert again["clean"] and again["problems"] == [] and again["entries_checked"] == 2
    with ScratchStore(root) as store:
        for tool in ("browser.get", "sql.query", "api.describe"):
            e = entries[tool]
            with pytest.raises(NotFound):
                store.scope(e.run_id, e.agent_id).read_handle(e.key)
        e = entries["workspace.grep"]
        assert store.scope(e.run_id, e.agent_id).read_handle(e.key, 0, 10).data


def test_fsck_repair_reports_a_blob_it_could_not_remove_as_not_repaired(root):
    with ScratchStore(root) as store:
        e = store.list_entries()[0]
        path = Path(store.blobs.path(e.run_id, e.agent_id, e.blob))
    path.unlink()
    path.mkdir()  # a directory where the blob was: verified as corrupt, and no unlink removes it
    out = cli("fsck", "--root", str(root), "--repair", "--json")
    assert out.exit_code == 3, out.output
    report = json.loads(out.stdout)
    assert [(p["kind"], p["key"], p["repaired"]) for p in report["problems"]] == [("corrupt", e.key, False)]
    assert report["repaired"] == 0 and not report["clean"]
    assert "the file could not be" in report["problems"][0]["detail"]
    assert path.is_dir()
    table = cli("fsck", "--root", str(root), "--repair")
    assert table.exit_code in (0, 3)  # the row is gone now; what is left is the directory, no entry names it


def test_fsck_leaves_a_file_whose_writer_is_at_work(root):
    with ScratchStore(root) as store:
        e = store.list_entries()[0]
        path = Path(store.blobs.path(e.run_id, e.agent_id, e.blob))
    pending = path.with_name(new_token() + ".zst")
    pending.write_bytes(b"half written")
    with open(pending, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # as a writer holds it until its row is committed
        report = json.loads(cli("fsck", "--root", str(root), "--repair", "--json").stdout)
        assert report["orphaned"] == 0 and pending.exists()
    assert json.loads(cli("fsck", "--root", str(root), "--json").stdout)["incomplete"] == 1


def test_fsck_progress_bar_stays_off_stdout(root):
    result = cli("fsck", "--root", str(root), "--progress", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["clean"] is True


def test_every_command_takes_json(tmp_path):
    servers = {"mcp", "mcp-proxy"}  # their stdout is the MCP protocol
    for name, command in main.commands.items():
        has_json = any("--json" in getattr(p, "opts", ()) for p in command.params)
        assert has_json != (name in servers), name
    root = str(tmp_path)
    for args in (["sweep"], ["scratch-list", "--run", "r", "--agent", "a"], ["delete-run", "r"]):
        result = cli(*args, "--root", root, "--json")
        assert result.exit_code == 0 and json.loads(result.stdout) is not None
    cli("scratch-write", "k", "--run", "r", "--agent", "a", "--root", root, "--json")
    read = CliRunner().invoke(main, ["scratch-read", "k", "--run", "r", "--agent", "a", "--root", root, "--json"])
    assert json.loads(read.stdout) == {"key": "k", "offset": 0, "length": 0, "size": 0, "next_offset": None,
                                       "next_call": None, "data": ""}
    demo = cli("demo", "--root", root, "--json")
    assert demo.exit_code == 0
    assert len(json.loads(demo.stdout)) == 5


def _on_a_terminal(args: list[str], columns: int) -> str:
    """Run ``scratchfs ARGS`` with its stdout on a pseudo-terminal ``columns`` wide; return what it printed."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    proc = subprocess.run([sys.executable, "-m", "scratchfs", *args], stdout=follower, stderr=subprocess.PIPE,
                          env=env, timeout=60, check=True)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert proc.returncode == 0
    return re.sub(r"\x1b\[[0-9;]*m", "", out.decode())


def test_tables_fit_an_80_column_terminal_and_never_cut_an_id(root):
    with ScratchStore(root) as store:
        entries = store.list_entries()
    for args in (["ls", "--root", str(root)], ["stats", "--root", str(root)]):
        shown = _on_a_terminal(args, 80)
        lines = shown.replace("\r", "").splitlines()
        assert lines and max(len(line) for line in lines) <= 80, args
        for e in entries:
            assert e.run_id in shown
            if args[0] == "ls":
                assert e.key in shown, e.key  # whole, on one line: a handle is copied into the next command


def test_stats_show_expired_entries_not_swept_yet(tmp_path):
    now = [1_800_000_000.0]
    with ScratchStore(tmp_path, clock=lambda: now[0]) as store:
        scope = store.scope("run-x", "agent-x")
        scope.scratch_write("short", b"s" * 5000, ttl=10)
        scope.scratch_write("long", b"l" * 100, ttl=3600)
        store.scope("run-x", "agent-y").scratch_write("gone", b"g" * 100, ttl=10)
        now[0] += 60
        rows = {(r.run_id, r.agent_id): r for r in stats_in_sql(store, now[0])}
        kept = rows[("run-x", "agent-x")]
        assert (kept.entries, kept.expired) == (1, 1) and kept.expired_bytes > 0
        only_expired = rows[("run-x", "agent-y")]
        assert (only_expired.entries, only_expired.expired) == (0, 1)
        d = only_expired.to_dict()  # no live entry: null, not an infinity JSON cannot carry
        assert (d["oldest"], d["next_expiry"], d["oldest_age"]) == (None, None, 0.0)
        json.dumps([r.to_dict() for r in rows.values()], allow_nan=False)  # what stats --json and /api/stats print
        store.sweep()
        after = {(r.run_id, r.agent_id): r for r in stats_in_sql(store, now[0])}
        assert after[("run-x", "agent-x")].expired == 0 and ("run-x", "agent-y") not in after


@pytest.mark.parametrize("args", [["stats", "--soon", "nan"], ["stats", "--soon", "1e400"], ["stats", "--soon", "-1"],
                                  ["mcp", "--sweep-interval", "nan"], ["mcp-proxy", "--timeout", "nan", "--", "true"],
                                  ["scratch-write", "k", "--ttl", "inf"], ["scratch-write", "k", "--ttl", "x"]])
def test_seconds_options_refuse_nan_infinity_and_negatives_in_one_line(tmp_path, args):
    words = ["--root", str(tmp_path), "--run", "r", "--agent", "a", *args]
    if args[0] in ("mcp", "mcp-proxy"):  # (a server, a command line of its own: in this process one not refused
        result = subprocess.run([sys.executable, "-m", "scratchfs", *words], input=b"v", capture_output=True,  # would
                                timeout=60)  # serve on; the others run here, click's runner over the same main: 7
        code, err = result.returncode, result.stderr.decode()  # start-ups were 6.5 s of a loaded run)
    else:
        ran = CliRunner().invoke(main, words, input=b"v", catch_exceptions=False)
        code, err = ran.exit_code, ran.stderr
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("scratchfs: usage: Invalid value for"), lines
    assert not (tmp_path / "runs" / "r").exists()  # nothing written


def test_fsck_does_not_call_a_value_replaced_while_it_ran_missing(tmp_path, monkeypatch, fixture_data):
    """Attacker's trial (writers overwriting scratchpad values while ``fsck`` ran, local and fleet): fsck reported
    "missing" entries -- exit code 3, "N problems remain" -- for values overwritten between its listing and its
    check (the old blob is removed once the new row is committed): a live store that lost nothing was reported
    damaged. An entry whose blob is gone is missing only if a row still names that blob."""
    from scratchfs.api import inspector

    value = fixture_data["workspace-grep-stdlib-defs.txt"]
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("r", "a")
        scope.scratch_write("plan", value[:100_000])
        scope.scratch_write("other", os.urandom(300_000))  # a blob file of its own
        verify = inspector.verify_blob
        replaced = []

        def overwrite_then_verify(blobs, entry, *args):
            if entry.key == "plan" and not replaced:  # a writer replaces the value fsck is about to check
                replaced.append(scope.scratch_write("plan", value[:120_000]))
            return verify(blobs, entry, *args)

        monkeypatch.setattr(inspector, "verify_blob", overwrite_then_verify)
        report = inspector.fsck(store)
        monkeypatch.setattr(inspector, "verify_blob", verify)
        assert replaced and report.problems == [] and report.clean
        other = next(e for e in store.list_entries() if e.key == "other")
        os.unlink(store.blobs.locate("r", "a", other.blob))  # a blob truly gone is still found
        assert [(p.kind, p.key) for p in inspector.fsck(store).problems] == [("missing", "other")]
        assert scope.scratch_read("plan") == value[:120_000]


def test_stats_says_its_expired_bytes_are_the_stored_ones_which_a_sweep_frees_with_the_files_headers(tmp_path):
    """newuser20: ``stats`` showed an expired entry's bytes as "1 (333 B)" where ``sweep`` then freed 373 (the
    segment's header too) -- and 0 while a live entry shares the segment. The words now say what each counts: the
    cell "stored" (the entries' ``stored_size``), the command's help that a sweep frees whole files."""
    now = [1_800_000_000.0]
    with ScratchStore(tmp_path, clock=lambda: now[0]) as store:
        store.scope("run-x", "agent-y").scratch_write("gone", b"g" * 300, ttl=10)
        now[0] += 60
        (row,) = stats_in_sql(store, now[0])
        segments = list((tmp_path / "runs").rglob("*.zseg"))
        (segment,) = [path.stat().st_size for path in segments]
        assert 300 < row.expired_bytes < segment  # (the entry's span; its file holds the segment's header too)
        assert stats_listing([row], 300.0).rows[0][-1] == f"1 ({row.expired_bytes} B stored)"  # (what stats prints)
        helped = " ".join(CliRunner().invoke(main, ["stats", "--help"]).stdout.split())
        assert "the bytes the index stores for them (a sweep's bytes_freed counts the files it removes" in helped
        assert store.sweep().bytes_freed == segment


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_stats_count_expired_entries_not_swept_yet_on_every_index(store, clock):
    """The fleet's PostgreSQL index showed ``expired 0`` (and ``[]`` for a run holding only expired entries) where
    the SQLite index counts them: both answer the same."""
    scope = store.scope("exp", "agent-1")
    scope.scratch_write("short-1", b"s" * 5000, ttl=10)
    scope.scratch_write("short-2", b"t" * 7000, ttl=10)
    store.scope("mixed", "agent-1").scratch_write("short", b"m" * 100, ttl=10)
    store.scope("mixed", "agent-1").scratch_write("long", b"l" * 100, ttl=3600)
    (before,) = stats_in_sql(store, store.now(), run_id="exp")
    assert (before.entries, before.expired) == (2, 0) and before.bytes_on_disk > 0
    clock.advance(60)
    rows = {(r.run_id, r.agent_id): r for r in stats_in_sql(store, store.now(), soon=3600)}
    exp, mixed = rows[("exp", "agent-1")], rows[("mixed", "agent-1")]
    assert (exp.entries, exp.expired, exp.bytes_in, exp.bytes_on_disk) == (0, 2, 0, 0)
    assert exp.expired_bytes == before.bytes_on_disk
    assert (mixed.entries, mixed.expired, mixed.bytes_in, mixed.expiring_soon) == (1, 1, 100, 1)
    assert mixed.next_expiry == mixed.oldest + 3600
    assert mixed.newest == mixed.oldest == store.list_entries_for_run("mixed")[0].created_at  # the live one's
    only = stats_in_sql(store, store.now(), run_id="exp")
    assert [(r.run_id, r.expired) for r in only] == [("exp", 2)]
    d = only[0].to_dict()
    assert (d["oldest"], d["next_expiry"], d["oldest_age"], d["newest"]) == (None, None, 0.0, None)
    store.sweep()
    assert stats_in_sql(store, store.now(), run_id="exp") == []


def test_ls_tells_a_day_or_more_in_days_and_hours(scratch_scope, scratch_store, tmp_path):
    """``ls`` wrote every time until expiry in hours: a 30-day TTL as ``719h59m``, and the store a test of the pytest
    plugin left behind (its clock in 2100, read on the wall clock) as ``640519h21m``. A day or more is days and
    hours now (``29d23h``); under a day it reads as before (``59m59s``, ``23h59m``)."""
    from scratchfs.cli.render import human_seconds

    assert [human_seconds(s) for s in (59, 3599, 86399, 86400, 90000, 30 * 86400 - 1, -90000)] == [
        "59s", "59m59s", "23h59m", "1d00h", "1d01h", "29d23h", "-1d01h"]
    scratch_scope.spill("x" * 10_000, source_tool="t", ttl=30 * 86400)
    scratch_store.close()
    result = CliRunner().invoke(main, ["--root", str(tmp_path / "scratchfs"), "ls"])
    assert result.exit_code == 0, result.output
    row = result.stdout.splitlines()[1].split("\t")
    assert row[7] == "30d00h", row  # (at most the ttl on the wall clock, rr9: the entry was born in 2100)


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_stats_count_an_entry_born_in_the_future_at_most_its_ttl_ahead(store, clock):
    """An entry written on a clock ahead of now (the pytest plugin's clock starts in 2100; a clock stepped back)
    is listed expiring in its ttl (``ls``, ``scratch_list``), but ``/api/runs``, the page's "next expiry" and
    ``stats`` showed its raw ``expires_at``: 26687d 7h for a test's store read on the wall clock."""
    from scratchfs.api.inspector import stats

    store.scope("born", "agent-1").scratch_write("plan", b"p" * 100, ttl=600)
    store.scope("born", "agent-1").scratch_write("long", b"l" * 100, ttl=7200)
    clock.set(clock.now - 30 * 86400)  # the store read a month before its entries' birth
    now = store.now()
    (row,) = stats_in_sql(store, now, soon=900, run_id="born")
    assert row.next_expiry == now + 600  # was now + 30 days + 600
    assert row.expiring_soon == 1  # the 600 s one, within 900 s
    assert row == stats(store.list_entries_for_run("born"), now, soon=900)[0]
    assert min(e.expires_in(now) for e in store.list_entries_for_run("born")) == row.next_expiry - now
