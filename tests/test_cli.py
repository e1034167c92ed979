"""The scratchfs command line: every verb, its JSON, and its exit codes."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.api.contract import window_hits
from scratchfs.cli import main


@pytest.fixture
def cli(tmp_path, monkeypatch):
    root = tmp_path / "root"
    ScratchStore(root).close()  # a user's store (a command that only reads refuses a root where nothing is)
    monkeypatch.setenv("SCRATCHFS_ROOT", str(root))
    monkeypatch.setenv("SCRATCHFS_RUN_ID", "run-1")
    monkeypatch.setenv("SCRATCHFS_AGENT_ID", "agent-1")
    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(main, list(args), input=input, catch_exceptions=False)

    invoke.root = root
    return invoke


def test_spill_then_read_by_range_and_match(cli, fixture_data, tmp_path):
    data = fixture_data["query-packages-by-month.csv"]
    path = tmp_path / "q.csv"
    path.write_bytes(data)
    result = cli("spill", str(path), "--tool", "sql.query")
    assert result.exit_code == 0, result.output
    stub = json.loads(result.stdout)
    assert set(stub) == {"handle", "preview", "size", "lines", "content_type", "shape", "note"}
    assert stub["size"] == len(data)
    assert stub["content_type"] == "csv"

    ranged = cli("read-handle", stub["handle"], "--offset", "1000", "--length", "300")
    assert ranged.exit_code == 0 and ranged.stdout_bytes == data[1000:1300]

    as_json = json.loads(cli("read-handle", stub["handle"], "--offset", "10", "--length", "5", "--json").stdout)
    assert as_json == {"handle": stub["handle"], "offset": 10, "length": 5, "size": len(data), "next_offset": 15,
                       "remaining": len(data) - 15, "data": data[10:15].decode(),
                       "next_call": f'read_handle(handle="{stub["handle"]}", offset=15, length=5)'}

    found = json.loads(cli("read-handle", stub["handle"], "--match", "numpy", "--context", "10",
                           "--max-matches", "3").stdout)
    first = data.find(b"numpy")
    assert window_hits(found["windows"][0])[0]["offset"] == first
    assert found["windows"][0]["offset"] == first - 10
    assert found["windows"][0]["data"] == data[first - 10 : first + 15].decode()
    assert found["windows"][0]["length"] == 25


def test_spill_from_stdin_and_ttl(cli):
    result = cli("spill", "-", "--tool", "t", "--ttl", "60", input=b"from stdin " * 100)
    stub = json.loads(result.stdout)
    assert cli("read-handle", stub["handle"], "--length", "10").stdout_bytes == b"from stdin"
    (entry,) = json.loads(cli("ls", "--json").stdout)
    assert entry["expires_at"] - entry["created_at"] == pytest.approx(60)


def test_scratchpad_verbs(cli, tmp_path):
    assert cli("scratch-write", "plan", input="step 1").exit_code == 0
    path = tmp_path / "v.bin"
    path.write_bytes(b"\x00\xffbinary")
    assert cli("scratch-write", "blob", str(path), "--ttl", "30").exit_code == 0
    assert cli("scratch-read", "plan").stdout_bytes == b"step 1"
    assert cli("scratch-read", "blob").stdout_bytes == b"\x00\xffbinary"
    listed = json.loads(cli("scratch-list", "--prefix", "pl").stdout)
    assert [e["key"] for e in listed] == ["plan"]
    assert json.loads(cli("scratch-delete", "plan").stdout) == {"key": "plan", "deleted": True}
    gone = cli("scratch-delete", "plan")
    assert gone.exit_code == 1 and "not found" in gone.stderr
    read = cli("scratch-read", "plan")
    assert read.exit_code == 1 and "was deleted at" in read.stderr
    assert gone.stderr == read.stderr  # a second delete says what a read says (it said "or it has expired")
    never = cli("scratch-delete", "never-written")
    assert never.exit_code == 1 and "not found" in never.stderr and never.stderr.count("\n") == 1


def test_ls_delete_agent_delete_run_sweep(cli):
    cli("scratch-write", "k", "--run", "r", "--agent", "a", input="v")
    cli("scratch-write", "k", "--run", "r", "--agent", "b", input="v")
    table = cli("ls", "--run", "r")
    assert table.exit_code == 0 and "scratch" in table.stdout and "agent" in table.stdout
    assert len(json.loads(cli("ls", "--run", "r", "--json").stdout)) == 2
    assert json.loads(cli("delete-agent", "--run", "r", "--agent", "a").stdout)["rows_deleted"] == 1
    assert json.loads(cli("delete-run", "r").stdout)["rows_deleted"] == 1
    assert json.loads(cli("ls", "--run", "r", "--json").stdout) == []
    counts = json.loads(cli("sweep").stdout)
    assert set(counts) >= {"rows_deleted", "files_deleted", "bytes_freed", "orphans_removed"}


def test_deleting_a_run_or_agent_with_no_entries_is_done_and_says_so_on_stderr(cli):
    """delete-run of a run with no entries exited 0 saying nothing: a mistyped run id looked deleted."""
    cli("scratch-write", "k", "--run", "r", "--agent", "a", input="v")
    done = cli("delete-run", "r")
    assert done.exit_code == 0 and done.stderr == ""
    missing = cli("delete-run", "nosuchrun")
    assert missing.exit_code == 0
    assert json.loads(missing.stdout) == {"run_id": "nosuchrun", "rows_deleted": 0}
    assert missing.stderr == "scratchfs: no entries of run 'nosuchrun'\n"
    agent = cli("delete-agent", "--run", "r", "--agent", "nobody")
    assert agent.exit_code == 0 and json.loads(agent.stdout)["rows_deleted"] == 0
    assert agent.stderr == "scratchfs: no entries of agent 'nobody' in run 'r'\n"
    assert "no entries of run 'RUN_ID'" in " ".join(cli("delete-run", "--help").stdout.split())


@pytest.mark.parametrize("args", [
    ("read-handle", "h_" + "a" * 24),
    ("scratch-read", "missing"),
    ("read-handle", "h_" + "a" * 24, "--match", "x"),
])
def test_not_found_exits_1(cli, args):
    result = cli(*args)
    assert result.exit_code == 1
    assert result.stderr.startswith("scratchfs: not found:") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_another_scopes_handle_exits_1(cli):
    stub = json.loads(cli("spill", "--tool", "t", input="x" * 100).stdout)
    assert cli("read-handle", stub["handle"], "--agent", "someone-else").exit_code == 1
    assert cli("read-handle", stub["handle"], "--run", "other-run").exit_code == 1
    cli("delete-run", "run-1")
    assert cli("read-handle", stub["handle"]).exit_code == 1


@pytest.mark.parametrize("args", [
    ("read-handle", "not-a-handle"),
    ("read-handle", "h_" + "a" * 24, "--offset", "-1"),
    ("read-handle", "h_" + "a" * 24, "--offset", "x"),
    ("spill", "--tool", "t", "--ttl", "nan"),
    ("spill", "--tool", "t", "--ttl", "-5"),
    ("spill", "--tool", "t", "--ttl", "1e-7"),  # dead at birth: now + 1e-7 == now in epoch seconds
    ("scratch-write", "k", "--ttl", "0.5"),
    ("spill", "/no/such/file", "--tool", "t"),
    ("scratch-write", "bad\nkey"),
    ("read-handle", "h_" + "a" * 24, "--context", "5"),
    ("read-handle", "h_" + "a" * 24, "--match", "x", "--length", "5"),
    ("read-handle", "h_" + "a" * 24, "--line", "0"),
    ("no-such-command",),
])
def test_bad_usage_exits_2(cli, args):
    result = cli(*args, input="content")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("scratchfs: ")
    assert result.stderr.count("\n") == 1  # one line, no traceback, no usage block


def test_spilling_a_directory_names_load(cli, tmp_path):
    """``spill DIR`` was click's "Is a directory" alone (newuser7): it names the command that spills a folder."""
    (tmp_path / "a.txt").write_text("x")
    result = cli("spill", str(tmp_path), "--tool", "t")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{str(tmp_path)!r} is a directory: " in result.stderr and " load FOLDER` spills each" in result.stderr


def test_int_options_take_ascii_digits_only(cli):
    """``int`` takes Unicode digits (``"٥"`` is 5), underscores, spaces and a ``+``; the contract's integers are JSON
    digits: every integer option of the CLI refuses them as a usage error (exit 2, one line)."""
    stub = json.loads(cli("spill", "--tool", "t", input="0123456789" * 20).stdout)
    assert cli("read-handle", stub["handle"], "--offset", "5", "--length", "3").stdout == "567"
    for value in ("٥", "1_0", "+5", " 5", "5.0", "0x5", "²"):
        result = cli("read-handle", stub["handle"], "--offset", value, "--length", "3")
        assert result.exit_code == 2, (value, result.output)
        assert "is not an integer" in result.stderr and result.stderr.count("\n") == 1, result.stderr
    result = cli("read-handle", stub["handle"], "--offset", "0" * 31 + "5", "--length", "3")  # ASCII, too long
    assert result.exit_code == 2 and "has more than 30 digits" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1
    assert cli("read-handle", stub["handle"], "--offset", "0" * 29 + "5", "--length", "3").stdout == "567"


def test_byte_count_options_take_sizes_as_the_size_settings_do(cli):
    """``--length`` and ``--budget`` are numbers of bytes: ``4KiB`` works there as in ``--reply-budget-bytes 4KiB``
    (it was "not an integer"); ``KB``, a sign or a fraction stays a usage error (exit 2, one line)."""
    stub = json.loads(cli("spill", "--tool", "t", input="0123456789" * 1000).stdout)
    assert cli("read-handle", stub["handle"], "--length", "1KiB").stdout == ("0123456789" * 103)[:1024]
    assert cli("scratch-write", "k", input="abc" * 1000).exit_code == 0
    assert json.loads(cli("scratch-read", "k", "--json", "--length", "1 KiB").stdout)["size"] == 3000
    found = json.loads(cli("read-handle", stub["handle"], "--match", "789", "--budget", "2KiB").stdout)
    assert found["windows"] and len(json.dumps(found, separators=(",", ":")).encode()) <= 2048
    for value in ("4KB", "-1", "1.5KiB", "٤KiB"):
        result = cli("read-handle", stub["handle"], "--match", "x", "--budget", value)
        assert result.exit_code == 2 and "is not a size" in result.stderr, (value, result.stderr)
        assert result.stderr.count("\n") == 1


def test_seconds_options_take_ascii_only(cli):
    """``float`` takes Unicode digits (``"٥"`` is 5.0) and underscores; a span of seconds is an ASCII number: a
    usage error (exit 2, one line), while ASCII forms ``float`` reads (``1e1``, `` 5``) still pass."""
    for value in ("٥", "١٠", "1_0", "５", "٥.٥"):
        result = cli("spill", "--tool", "t", "--ttl", value, input="content")
        assert result.exit_code == 2, (value, result.output)
        assert "is not a number of seconds" in result.stderr and result.stderr.count("\n") == 1, result.stderr
    for value in ("1e1", " 5", "60.5"):
        result = cli("spill", "--tool", "t", "--ttl", value, input="content")
        assert result.exit_code == 0, (value, result.output)
        assert json.loads(result.stdout)["handle"].startswith("h_")


@pytest.mark.parametrize("args", [
    ("read-handle", "h_" + "a" * 24, "--length", "٣"),
    ("read-handle", "h_" + "a" * 24, "--line", "١"),
    ("read-handle", "h_" + "a" * 24, "--lines", "١"),
    ("read-handle", "h_" + "a" * 24, "--match", "x", "--context", "١"),
    ("read-handle", "h_" + "a" * 24, "--match", "x", "--max-matches", "١"),
    ("read-handle", "h_" + "a" * 24, "--record", "١"),
    ("read-handle", "h_" + "a" * 24, "--records", "١"),
    ("read-handle", "h_" + "a" * 24, "--row", "١"),
    ("read-handle", "h_" + "a" * 24, "--rows", "١"),
    ("read-handle", "h_" + "a" * 24, "--budget", "٤٠٩٦"),
    ("scratch-read", "k", "--json", "--offset", "١"),
    ("scratch-read", "k", "--json", "--length", "١"),
    ("ls", "--limit", "١"),
    ("fsck", "--limit", "١"),
    ("fsck", "--limit", "0"),
    ("serve", "--port", "٨٠٨٠"),
    ("serve", "--port", "65536"),
    ("mcp-proxy", "--threshold", "١", "--", "true"),
])
def test_every_int_option_refuses_non_ascii_digits_with_exit_2(cli, args):
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("scratchfs: usage: ") and result.stderr.count("\n") == 1, result.stderr


def test_missing_scope_exits_2(cli, monkeypatch):
    monkeypatch.delenv("SCRATCHFS_RUN_ID")
    result = cli("scratch-read", "k")
    assert result.exit_code == 2 and "--run" in result.stderr


def test_corrupt_blob_exits_3(cli):
    stub = json.loads(cli("spill", "--tool", "t", input="x" * 100_000).stdout)
    with ScratchStore(cli.root) as store:
        (entry,) = store.list_entries_for_run("run-1")
        path = Path(store.blobs.path("run-1", "agent-1", entry.blob))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 3] ^= 0xFF
    path.write_bytes(bytes(raw))
    result = cli("read-handle", stub["handle"])
    assert result.exit_code == 3
    assert result.stderr.startswith("scratchfs: corrupt: ") and stub["handle"] in result.stderr


def test_io_failure_exits_4(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = CliRunner().invoke(main, ["sweep", "--root", str(blocker / "root")])
    assert result.exit_code == 4
    assert result.stderr.startswith("scratchfs: storage: ")


def test_help_documents_every_command_and_the_exit_codes():
    runner = CliRunner()
    top = runner.invoke(main, ["--help"]).output
    for code in ("0    success", "1    not found", "2    bad usage", "3    corrupt", "4    busy", "5    quota",
                 "130  interrupted"):
        assert code in top
    for name, command in main.commands.items():
        assert command.help, f"{name} has no help text"
        assert name in top
        assert runner.invoke(main, [name, "--help"]).exit_code == 0
        for param in command.params:  # the help names each argument as the usage line does (spill said FILE)
            if isinstance(param, click.Argument):
                assert param.human_readable_name in command.help, (name, param.human_readable_name)


def test_the_programs_help_names_the_fleet_settings():
    """``scratchfs --help`` said the store lives at --root, $SCRATCHFS_ROOT or the cache directory, and nothing of a
    fleet's store: a user with the README's $SCRATCHFS_INDEX in mind found it only in each command's --help
    (newuser18). It names the options and the variables that open one now."""
    top = " ".join(CliRunner().invoke(main, ["--help"]).output.split())
    for said in ("--index URL", "--blobs URL", "$SCRATCHFS_INDEX", "$SCRATCHFS_BLOBS", "PostgreSQL index and S3 blobs"):
        assert said in top, said


def test_readme_documents_every_command():
    with open(os.path.join(os.path.dirname(__file__), "..", "README.md"), encoding="utf-8") as f:
        text = f.read()
    for name in main.commands:
        assert f"scratchfs {name}" in text, f"README does not show `scratchfs {name}`"


def test_installed_entry_point_runs(tmp_path):
    env = dict(os.environ, SCRATCHFS_ROOT=str(tmp_path))
    exe = os.path.join(os.path.dirname(sys.executable), "scratchfs")
    result = subprocess.run([exe, "scratch-read", "k", "--run", "r", "--agent", "a"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip().startswith("scratchfs: not found:")
    assert len(result.stderr.strip().splitlines()) == 1


def test_line_and_pattern_reads(cli, fixture_data, tmp_path):
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    path = tmp_path / "grep.txt"
    path.write_bytes(data)
    handle = json.loads(cli("spill", str(path), "--tool", "workspace.grep").stdout)["handle"]
    lines = data.splitlines(keepends=True)
    raw = cli("read-handle", handle, "--line", "100", "--lines", "3")
    assert raw.stdout_bytes == b"".join(lines[99:102])
    assert (f"next: scratchfs read-handle {handle} --line 103 --lines 3 --root {shlex.quote(str(cli.root))} "
            "--run run-1 --agent agent-1") in raw.stderr
    as_json = json.loads(cli("read-handle", handle, "--line", "100", "--lines", "3", "--json").stdout)
    assert (as_json["first_line"], as_json["next_line"], as_json["cut"]) == (100, 103, False)
    found = json.loads(cli("read-handle", handle, "--pattern", r"^\./fileinput\.py:\d+:def (\w+)",
                           "--max-matches", "3", "--context", "0").stdout)
    assert found["pattern"].startswith("^") and found["more"] is True
    first = found["windows"][0]
    assert first["data"].startswith("./fileinput.py:")
    assert first["line"] == 1 and window_hits(first)[0]["line"] == 1
    loud = json.loads(cli("read-handle", handle, "--pattern", "DEF __INIT__", "--ignore-case", "--max-matches",
                          "1").stdout)
    assert window_hits(loud["windows"][0])[0]["offset"] == data.find(b"def __init__")


def test_raw_read_that_stops_early_says_where_to_go_on(cli):
    stub = json.loads(cli("spill", "--tool", "t", input="x" * 100_000).stdout)
    refused = cli("read-handle", stub["handle"], "--length", "100000")  # one rule with MCP: over the cap is refused
    assert refused.exit_code == 2 and "--length 100000 is more than one read returns (65,536 bytes)" in refused.stderr
    result = cli("read-handle", stub["handle"], "--length", "65536")
    assert len(result.stdout_bytes) == 65536
    assert result.exit_code == 0
    assert "--offset 65536 --length 65536" in result.stderr and "34464 bytes follow" in result.stderr
    whole = cli("read-handle", stub["handle"], "--offset", "65536", "--length", "65536")
    assert len(whole.stdout_bytes) == 34464 and whole.stderr == ""


def test_the_next_command_of_a_raw_read_names_the_root_it_read(cli, tmp_path, monkeypatch):
    """The continuation printed after a raw read from a store chosen with --root (not the environment) read the
    default store when run as printed: it names the root now."""
    other = tmp_path / "other root"
    stub = json.loads(cli("--root", str(other), "spill", "--tool", "t", input="y" * 70_000).stdout)
    first = cli("--root", str(other), "read-handle", stub["handle"], "--length", "65536")
    command = first.stderr.split("next: ", 1)[1].strip()
    monkeypatch.delenv("SCRATCHFS_ROOT")
    words = shlex.split(command)
    assert words[:2] == ["scratchfs", "read-handle"] and words[words.index("--root") + 1] == str(other)
    rest = cli(*words[1:])  # as the shell would run it, the environment without the root
    assert rest.exit_code == 0, rest.stderr
    assert rest.stdout_bytes == b"y" * (70_000 - 65536)


def test_quota_exceeded_exits_5(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path))
    with ScratchStore(tmp_path, run_quota_entries=1) as store:
        store.scope("r", "a").scratch_write("k", b"v")
    result = CliRunner().invoke(main, ["scratch-write", "k2", "--run", "r", "--agent", "a", "--run-quota-entries",
                                       "1"], input="v")
    assert result.exit_code == 5
    assert result.stderr.startswith("scratchfs: quota exceeded: ")


def test_closed_stdout_is_one_line_not_a_traceback(tmp_path):
    env = dict(os.environ, SCRATCHFS_ROOT=str(tmp_path), SCRATCHFS_RUN_ID="r", SCRATCHFS_AGENT_ID="a")
    exe = os.path.join(os.path.dirname(sys.executable), "scratchfs")
    subprocess.run([exe, "scratch-write", "k"], input=b"value", env=env, capture_output=True, check=True)
    result = subprocess.run(f'"{exe}" scratch-read k >&-', shell=True, env=env, capture_output=True, text=True)
    assert result.returncode == 4
    assert result.stderr.strip() == "scratchfs: output: standard output is closed"


def test_ls_of_all_runs_shows_the_run(cli):
    cli("scratch-write", "k", "--run", "first-run", input="v")
    cli("scratch-write", "k", "--run", "second-run", input="v")
    listed = cli("ls")  # SCRATCHFS_RUN_ID is set, but ls lists every run unless --run is given: said on stderr
    assert "first-run" in listed.stdout and "second-run" in listed.stdout
    for command in ("ls", "stats"):  # (the exported run filtered nothing, silently: a shell user took the listing
        # for the run's own)
        said = cli(command).stderr
        assert "every run shown: $SCRATCHFS_RUN_ID (run-1) filters no listing" in said, said
        assert f"scratchfs {command} --run run-1 --root {cli.root} shows its entries alone" in said, said
        assert "every run shown" not in cli(command, "--run", "first-run").stderr
    assert json.loads(cli("delete-agent").stdout) == {"run_id": "run-1", "agent_id": "agent-1", "rows_deleted": 0}


def test_demo_without_outputs_is_a_usage_error(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(main, ["demo", "--root", str(tmp_path / "root"), "--fixtures", str(empty)])
    assert result.exit_code == 2
    assert result.stderr.startswith("scratchfs: invalid argument: no recorded outputs")


def test_closed_stdout_is_an_io_failure_not_silence(tmp_path):
    env = {**os.environ, "SCRATCHFS_ROOT": str(tmp_path), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    for command in ("scratch-list", "ls", "stats", "sweep"):
        done = subprocess.run(["bash", "-c", f'"{sys.executable}" -m scratchfs {command} >&-'], env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 4, (command, done.stderr)
        assert done.stderr == "scratchfs: output: standard output is closed\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", [["ls", "--run", "r"], ["scratch-read", "k"], ["scratch-read", "k", "--json"],
                                     ["spill", "-"], ["read-handle", "--all"], ["read-handle", "--length", "100"]])
def test_a_full_stdout_is_the_output_failing_not_the_store(tmp_path, command):
    """``> /dev/full`` said "scratchfs: storage: No space left on device", exit 4: an operator would free the
    store's disk, which had room. The output's failure is named as such (exit 4, as every I/O failure), and the
    store is untouched by it: the value is still there and whole."""
    env = {**os.environ, "SCRATCHFS_ROOT": str(tmp_path), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        scope.scratch_write("k", b"v" * 100_000)
        handle = scope.spill(b"line\n" * 20_000, source_tool="t").handle
    argv = [*command, handle] if command[0] == "read-handle" else command
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "scratchfs", *argv], env=env, input=b"x" * 50_000, stdout=full,
                              stderr=subprocess.PIPE, text=False, timeout=60)
    assert (done.returncode, done.stderr.decode()) == (
        4, "scratchfs: output: No space left on device (writing standard output)\n")
    with ScratchStore(tmp_path) as store:
        assert store.scope("r", "a").scratch_read("k") == b"v" * 100_000


def test_global_options_before_the_command(tmp_path):
    runner = CliRunner()
    root = str(tmp_path)
    spilled = runner.invoke(main, ["--root", root, "--run", "r", "--agent", "a", "spill", "--tool", "t"],
                            input="x" * 10_000)
    assert spilled.exit_code == 0, spilled.output
    handle = json.loads(spilled.stdout)["handle"]
    listed = runner.invoke(main, ["--root", root, "ls"])
    assert listed.exit_code == 0 and handle in listed.stdout
    # an option after the command wins over the same option before it
    other = runner.invoke(main, ["--root", root, "--run", "r", "--agent", "a", "read-handle", handle, "--agent", "b"])
    assert other.exit_code == 1 and "(run 'r', agent 'b')" in other.stderr
    missing = runner.invoke(main, ["--root", root, "read-handle", handle], env={"SCRATCHFS_RUN_ID": None,
                                                                               "SCRATCHFS_AGENT_ID": None})
    assert missing.exit_code == 2 and "Missing option '--run'" in missing.stderr


@pytest.mark.parametrize("column", ["²", "١", "٣"])
def test_a_unicode_digit_column_is_a_name_not_a_traceback(cli, column):
    """``"²".isdigit()`` is true but ``int("²")`` fails (and ``int("١")`` reads an Arabic-Indic one): a column is a
    number only when it is ASCII digits; anything else is a name, and a name no header has is one stderr line."""
    handle = json.loads(cli("spill", "--tool", "t", input="a,b\n1,2\n3,4\n").stdout)["handle"]
    result = CliRunner().invoke(main, ["read-handle", handle, "--column", column, "--json"])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("scratchfs: invalid argument:")
    by_number = json.loads(CliRunner().invoke(main, ["read-handle", handle, "--column", "1", "--json"]).stdout)
    assert by_number["rows"] == [["2"], ["4"]] and by_number["header"] == ["b"]


def test_serve_takes_the_root_given_before_the_command(tmp_path, monkeypatch):
    uvicorn = pytest.importorskip("uvicorn")
    def run(self, sockets=None):  # start, print, and stop at once
        for sock in sockets:
            sock.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    root = tmp_path / "given"
    ScratchStore(root).close()
    result = CliRunner().invoke(main, ["--root", str(root), "serve", "--port", "0", "--json"],
                                env={"SCRATCHFS_ROOT": str(tmp_path / "env")})
    assert result.exit_code == 0, result.output
    assert f"serving {root} " in result.stderr
    assert (root / "index.sqlite").exists() and not (tmp_path / "env").exists()


def test_a_compression_ratio_under_0_1_keeps_two_significant_digits():
    """3 B stored in 320 B printed as '0.0x', as if nothing were held."""
    from scratchfs.cli.render import ratio

    assert [ratio(3, 320), ratio(1, 10), ratio(10, 3), ratio(0, 320), ratio(5, 0)] == \
        ["0.0094x", "0.1x", "3.3x", "0.0x", "-"]


def test_an_error_is_one_stderr_line_whatever_the_message_holds(cli, tmp_path):
    """Attacker's trial: a CSV header with a newline, a NUL and a terminal escape inside a quoted name made the "no
    column" error three lines with a raw NUL and ESC. Every CLI message is one line, control characters escaped, and
    the column names are quoted as JSON."""
    path = tmp_path / "h.csv"
    path.write_bytes(b'a,b,"c\nX\x00Y\x1b[31mRED\n",d\n1,2,3,4\n')
    handle = json.loads(cli("spill", str(path)).stdout)["handle"]
    result = cli("read-handle", handle, "--row", "1", "--column", "zz\nq")
    assert result.exit_code == 2
    assert result.stderr == ('scratchfs: invalid argument: no column "zz\\nq"; the 4 columns are: ["a", "b", '
                             '"c\\nX\\u0000Y\\u001b[31mRED\\n", "d"]\n')  # (Python 3.10 too: csv_rows)
    other = tmp_path / "odd\nname\x1b[2J"
    other.mkdir()
    result = cli("spill", str(other / "missing"))  # a usage error naming a path with a newline and ESC
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "\x1b" not in result.stderr and "odd\\nname\\x1b[2J" in result.stderr


def test_sweep_says_nothing_of_a_planted_segment_link(tmp_path):
    """Attacker's trial: ``scratchfs sweep`` printed "cannot check the segment" twice for one planted link: the
    orphan walk read its cursor after moving it, and walked the first run's agent directories a second time. Then
    once on every sweep: the sweep now leaves a link (or FIFO) at a segment's name without a word; fsck reports it
    (test_inspector::test_links_and_fifos_at_blob_names_are_reported_and_repair_removes_the_names_only)."""
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("r", "a").spill(b"x" * 100)
        store.scope("r", "b").spill(b"y" * 100)
    (root / "runs" / "r" / "a" / ("a" * 24 + ".zseg")).symlink_to("/etc/passwd")
    env = dict(os.environ, SCRATCHFS_ROOT=str(root))
    for _ in range(2):  # the first sweep starts from no cursor, the second from where the first stopped
        result = subprocess.run([sys.executable, "-m", "scratchfs", "sweep"], env=env, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert "cannot check the segment" not in result.stderr, result.stderr


def test_fsck_counts_wholly_dead_segments_in_words(cli):
    # one small entry in one segment, deleted: the segment is wholly dead, and fsck says "1 segment", not "1 segments"
    written = json.loads(cli("scratch-write", "k", "-", input="value\n").stdout)
    assert written["key"] == "k"
    assert cli("scratch-delete", "k").exit_code == 0
    result = cli("fsck")
    assert "(1 segment wholly dead)" in result.stdout, result.stdout


def test_fsck_says_a_dead_segment_dated_ahead_is_left_until_its_date(cli, tmp_path):
    """A wholly dead segment whose modification time is years ahead was counted under "the sweep reclaims wholly dead
    segments", where the sweep leaves it until that date (a file dated ahead may be a live writer's after the clock
    stepped back). fsck now counts it apart and says the sweep leaves it until then."""
    assert cli("scratch-write", "k", "-", input="value\n").exit_code == 0
    assert cli("scratch-delete", "k").exit_code == 0
    [segment] = (tmp_path / "root" / "runs").glob("*/*/*.zseg")
    ahead = time.time() + 10 * 365 * 86400
    os.utime(segment, (ahead, ahead))
    assert cli("sweep").exit_code == 0 and segment.exists()  # the sweep leaves it
    result = cli("fsck")
    assert "(1 segment wholly dead, 1 of them dated more than orphan_grace ahead, which the sweep leaves until " \
           "that date)" in result.stdout, result.stdout
    assert json.loads(cli("fsck", "--json").stdout)["segments"]["dead_dated_ahead"] == 1
    os.utime(segment, (time.time() - 1000, time.time() - 1000))
    assert cli("sweep").exit_code == 0 and not segment.exists()  # once dated in the past, the sweep takes it


def _ls_with_an_import_blocked(blocked: str, root, env: dict) -> subprocess.CompletedProcess:
    """``scratchfs --root ROOT ls`` in a real CLI process with the module ``blocked`` as Python blocks an import
    (``sys.modules[name] = None``); checks it is one line of stderr and exit code 2."""
    program = (f"import sys; sys.modules[{blocked!r}] = None; sys.argv[0] = 'scratchfs'; "
               "from scratchfs.cli import main; main()")
    result = subprocess.run([sys.executable, "-c", program, "--root", str(root), "ls"], capture_output=True,
                            text=True, env={**os.environ, **env}, timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    return result


@pytest.mark.parametrize(("blocked", "env", "extra"), [
    ("psycopg", {"SCRATCHFS_INDEX": "postgresql://127.0.0.1:1/none"}, "postgres"),
    ("boto3", {"SCRATCHFS_INDEX": "postgresql://127.0.0.1:1/none", "SCRATCHFS_BLOBS": "s3://bucket/p"}, "s3"),
])
def test_a_backend_whose_extra_is_not_installed_is_one_line_naming_the_install(tmp_path, blocked, env, extra):
    """A fleet URL without its extra installed ended in a 36-line traceback (``ModuleNotFoundError: No module named
    'psycopg'``, or 'botocore' from inside an ``except`` clause) and exit code 1, "not found" (a new user's trial).
    It is now one line naming the install command, exit code 2, told before anything is created or connected to.
    The module is blocked as Python blocks an import (``sys.modules[name] = None``), in a real CLI process."""
    root = tmp_path / "store"
    result = _ls_with_an_import_blocked(blocked, root, env)
    assert f"pip install 'scratchfs[{extra}]'" in result.stderr and blocked in result.stderr
    assert not root.exists()


@pytest.mark.parametrize(("blocked", "env", "extra", "module"), [
    ("psycopg.pq", {"SCRATCHFS_INDEX": "postgresql://127.0.0.1:1/none"}, "postgres", "psycopg"),
    ("botocore.session", {"SCRATCHFS_INDEX": "postgresql://127.0.0.1:1/none", "SCRATCHFS_BLOBS": "s3://bucket/p"},
     "s3", "boto3"),
])
def test_an_extra_installed_but_not_importable_is_one_line_too(tmp_path, blocked, env, extra, module):
    """An extra whose package is there but does not import -- psycopg without a libpq ('no pq wrapper available',
    psycopg installed without its binary), a broken botocore -- passed the check (it only looked the package up)
    and died with a 20-line ImportError traceback, after the root was made. It is told as a missing extra is, with
    the import's error, before anything is made."""
    root = tmp_path / "store"
    result = _ls_with_an_import_blocked(blocked, root, env)
    assert f"pip install 'scratchfs[{extra}]'" in result.stderr and f"{module} cannot be imported" in result.stderr
    assert blocked in result.stderr and not root.exists()


@pytest.mark.parametrize(("index", "root"), [("sqlite:///srv/scratch/index.sqlite", "--root /srv/scratch"),
                                           ("/srv/my scratch/index.sqlite", "--root '/srv/my scratch'"),
                                           ("file:///srv/scratch/index.sqlite", "--root /srv/scratch"),
                                           ("sqlite:///srv/scratch.db", "--root DIR")])
def test_an_index_url_naming_a_sqlite_file_says_to_give_the_root(tmp_path, index, root):
    """newuser13 gave ``--index sqlite:///.../index.sqlite`` and was told only that it is no postgresql:// URL: the
    SQLite index is always the root's, so the line says to give the root (named when the path names index.sqlite)."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    done = CliRunner().invoke(main, ["ls", "--root", str(tmp_path / "store"), "--index", index])
    assert done.exit_code == 2, done.output
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.rstrip("\n").endswith(
        ": a SQLite index is the file index.sqlite under the store's root, so leave the index unset and give the root "
        f"instead ({root}, $SCRATCHFS_ROOT, or ScratchStore's root)"), done.stderr
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("verb", ["spill", "ls"])
@pytest.mark.parametrize(("env", "says"), [
    ({"SCRATCHFS_BLOBS": "gs://bucket/p"}, "blobs must be an s3://bucket/prefix URL"),
    ({"SCRATCHFS_BLOBS": "s3://bucket/p"}, "s3:// blobs need a postgresql:// index"),
    ({"SCRATCHFS_INDEX": "mysql://h/db", "BLOCK": "psycopg"}, "the index must be a postgresql:// URL"),
])
def test_a_backend_configuration_no_store_can_have_is_told_before_the_root_is_made(tmp_path, verb, env, says):
    """Blobs of an unknown scheme, or s3:// blobs beside the local index, were refused (exit 2) only after the root,
    its SQLite index and folders were made (with a PostgreSQL index: after connecting and creating the schema); a
    read-only verb said 'no store at' the root instead; a mysql:// index without psycopg said 'a postgresql://
    index needs the postgres extra'. Each says what is wrong with the configuration, before anything is made."""
    env = dict(env)  # (the parameter's own dict is both verbs')
    blocked = env.pop("BLOCK", None)
    root = tmp_path / "store"
    args = ["--root", str(root), verb, *(["--run", "r", "--agent", "a"] if verb == "spill" else [])]
    if blocked is None:  # (in this process, click's runner over the same main: 12 start-ups were 10 s of a loaded run)
        ran = CliRunner().invoke(main, args, input="x" * 100, env=env, catch_exceptions=False)
        code, err = ran.exit_code, ran.stderr
    else:  # (a command line of its own, without the module)
        program = (f"import sys; sys.modules[{blocked!r}] = None; sys.argv[0] = 'scratchfs'; "
                   "from scratchfs.cli import main; main()")
        result = subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True,
                                input="x" * 100, env={**os.environ, **env}, timeout=60)
        code, err = result.returncode, result.stderr
    assert code == 2, err
    assert err.startswith(f"scratchfs: invalid argument: {says}") and err.count("\n") == 1, err
    assert not root.exists()


@pytest.mark.parametrize("args", [
    ("ls",), ("stats",), ("fsck",), ("sweep",), ("read-handle", "h_" + "a" * 24), ("scratch-read", "k"),
    ("scratch-list",), ("scratch-delete", "k"), ("delete-run", "r"), ("delete-agent",), ("serve", "--port", "0"),
])
def test_a_command_that_only_reads_does_not_make_a_store_at_a_mistyped_root(tmp_path, args):
    """``scratchfs --root /tmp/typo ls`` printed an empty table, exit 0, and left a new empty store there (an index,
    a 256 KiB reserve file and three folders); ``serve`` said "read-only" and made one too (a new user's trial).
    A command that only reads or removes now says there is no store there (exit 1, one line) and makes nothing; a
    spill still makes the store."""
    root = tmp_path / "typo"
    result = CliRunner().invoke(main, _with_scope(root, args))
    assert result.exit_code == 1, result.output
    assert result.stderr == f"scratchfs: not found: no store at {root}: a spill, scratch-write or load makes one " \
                            "there (check --root or $SCRATCHFS_ROOT)\n"
    assert not root.exists()
    made = CliRunner().invoke(main, ["--root", str(root), "spill", "--tool", "t", "--run", "r", "--agent", "a"],
                              input="x" * 100)
    assert made.exit_code == 0 and (root / "index.sqlite").exists()


@pytest.mark.parametrize("place", ["dangling link", "rebuild"])
def test_a_command_that_only_reads_makes_no_store_behind_a_dangling_link_or_by_a_rebuild(tmp_path, place):
    """Attacker's trial of the read-only verbs: a root that is a link to nowhere said 'storage: cannot create the
    store root ...: File exists' (exit 4), and ``fsck --rebuild-index`` at a mistyped root made a new empty store
    and said 'rebuilt the index: 0 entries', exit 0. Each now says there is no store there (exit 1, one line) and
    makes nothing."""
    root = tmp_path / "typo"
    args = ["--root", str(root), "ls"]
    if place == "dangling link":
        root.symlink_to(tmp_path / "nowhere")
    else:
        args = ["--root", str(root), "fsck", "--rebuild-index"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"scratchfs: not found: no store at {root}") and result.stderr.count("\n") == 1, \
        result.stderr
    assert not (tmp_path / "nowhere").exists() and not root.exists()
    made = CliRunner().invoke(main, ["--root", str(root), "spill", "--tool", "t", "--run", "r", "--agent", "a"],
                              input="x" * 100)
    assert made.exit_code == (2 if place == "dangling link" else 0), made.output  # (a spill does not follow a link:
    assert place != "dangling link" or "symbolic link to nothing, not a directory" in made.stderr  # a bad root, 2)


def _with_scope(root, args):
    scoped = args[0] in ("read-handle", "scratch-read", "scratch-list", "scratch-delete", "delete-agent")
    return ["--root", str(root), *args, *(["--run", "r", "--agent", "a"] if scoped else [])]


@pytest.mark.parametrize("verb", ["ls", "stats"])
@pytest.mark.parametrize("run_id", [b"\xed\xa0\x80", b"", b"a\x01b", b"x" * 300])
def test_ls_and_stats_refuse_a_run_id_no_store_could_hold(tmp_path, verb, run_id):
    """Attacker's trial: ``ls --run`` and ``stats --run`` with bytes that are not UTF-8 (a surrogate from the shell's
    $'\\ud800') died with a UnicodeEncodeError traceback and exit code 1; an empty, control or over-long run id was
    listed as an empty run with exit code 0 -- where every other verb refuses such an id with exit code 2."""
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("r", "a").scratch_write("k", b"v")
    env = dict(os.environ, SCRATCHFS_ROOT=str(root))

    def run(*args: str) -> tuple[int, str]:  # (bytes not UTF-8 on a command line of its own, as the shell gives them;
        if run_id == b"\xed\xa0\x80":  # the other ids in this process, click's runner over the same main: four
            done = subprocess.run([sys.executable, "-m", "scratchfs", *args], env=env, capture_output=True,  # start-
                                  text=True, timeout=60, errors="replace")  # ups a test were 24 s of a loaded run)
            return done.returncode, done.stderr
        ran = CliRunner().invoke(main, list(args), env={"SCRATCHFS_ROOT": str(root)}, catch_exceptions=False)
        return ran.exit_code, ran.stderr

    code, err = run(verb, "--run", os.fsdecode(run_id))
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("scratchfs: invalid argument: run id"), err
    code, err = run("ls", "--run", "r", "--agent", os.fsdecode(run_id))
    assert code == 2 and err.startswith("scratchfs: invalid argument: agent id"), err


def test_fsck_summary_counts_every_problem_it_lists(tmp_path):
    """Attacker's trial: with an agent directory replaced by a link, ``fsck`` exited 3 saying "1 problem remains"
    while its summary read "missing 0, corrupt 0, orphaned 0, incomplete writes 0, repaired 0": the ``unexpected``
    kind (a link or other file where a directory of the root belongs) was left out of the line."""
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("r", "a").spill(b"x" * 50_000)
    agent = root / "runs" / "r" / "a"
    agent.rename(tmp_path / "elsewhere")
    agent.symlink_to(tmp_path / "elsewhere")
    result = CliRunner().invoke(main, ["fsck", "--root", str(root)])
    assert result.exit_code == 3
    summary = result.stdout.splitlines()[0]
    assert "missing 0, corrupt 0, orphaned 0, unexpected 1, incomplete writes 0, repaired 0" in summary, summary
    # (it said "`scratchfs fsck --repair --root ROOT` removes them", but no repair touches a link: newuser9)
    assert result.stderr == ("scratchfs: not clean: 1 problem remains (unexpected); no repair touches it (its detail "
                             "says what it is)\n")


@pytest.mark.parametrize("args", [["--help"], ["ls", "--run", "r"], ["read-handle", "--run", "r", "nope"]])
def test_a_command_run_in_process_leaves_sigterm_and_sighup_as_it_found_them(tmp_path, monkeypatch, args):
    """A test runner (or any program) that runs the CLI in its own process keeps its handlers: a SIGTERM after the
    command is the runner's, not a Terminated raised in whatever runs then."""
    import signal

    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "root"))
    mine = {signum: (lambda *_: None) for signum in (signal.SIGTERM, signal.SIGHUP)}
    before = {signum: signal.signal(signum, handler) for signum, handler in mine.items()}
    try:
        CliRunner().invoke(main, args)
        assert {signum: signal.getsignal(signum) for signum in mine} == mine
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_scratchfs_alone_prints_its_help_as_help():
    """Before: exit 2 and the whole help on one stderr line, its newlines written as '\\n'."""
    result = subprocess.run([sys.executable, "-m", "scratchfs"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == ""
    assert re.match(r"Usage: (python -m )?scratchfs \[OPTIONS\] COMMAND \[ARGS\]...\n", result.stdout)
    assert "\\n" not in result.stdout and "\n  read-handle " in result.stdout


def test_a_postgresql_index_that_cannot_be_reached_leaves_no_root_behind(tmp_path):
    """A well-formed ``postgresql://`` URL naming a port nothing listens on exited 4 ('connection refused') after
    the root was made: its folders, lock files and an empty ``index.sqlite`` at a path the user may have mistyped
    along with the URL. The server is now connected to before the root is made: the same one line and exit 4,
    nothing on disk."""
    root = tmp_path / "store"
    result = subprocess.run([sys.executable, "-m", "scratchfs", "--root", str(root), "spill", "--run", "r",
                             "--agent", "a"], capture_output=True, text=True, input="x" * 100, timeout=60,
                            env={**os.environ, "SCRATCHFS_INDEX": "postgresql://nobody@127.0.0.1:1/nowhere"})
    assert result.returncode == 4, result.stderr
    assert result.stderr.startswith("scratchfs: storage: ") and "refused" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1
    assert not root.exists()


def test_a_raw_read_of_a_fleet_store_hints_the_fleet_not_a_local_root(tmp_path, postgres_dsn, pg_schema):
    """A raw read of a fleet store said 'next: scratchfs read-handle H ... --root /root/.cache/scratchfs ...': the
    root names nothing there (the rows are in PostgreSQL), and run where the variables are unset the command reads
    an empty local store (a new user's trial). The hint names the variables the command needs instead; an embedded
    store's hint keeps its --root."""
    from .services import postgres_url

    url = postgres_url(postgres_dsn, f"{pg_schema}_cli")
    with ScratchStore(tmp_path / "locks", index=url) as store:
        handle = store.scope("r", "a").spill(b"x" * 30_000, source_tool="t").handle
    env = {"SCRATCHFS_INDEX": url, "SCRATCHFS_ROOT": str(tmp_path / "locks"), "SCRATCHFS_RUN_ID": "r",
           "SCRATCHFS_AGENT_ID": "a"}
    result = CliRunner().invoke(main, ["read-handle", handle, "--length", "100"], env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (f"scratchfs: 100 bytes from offset 0; 29900 bytes follow; next: scratchfs read-handle "
                             f"{handle} --offset 100 --length 100 --root {tmp_path / 'locks'} --run r --agent a\n")
    # (newuser26: with local files the root holds the blobs, so the hint names it -- tests/test_fleet_hint_root.py;
    # pasted where $SCRATCHFS_INDEX is unset it is refused naming that variable, never an empty local read)
    unset = CliRunner().invoke(main, ["read-handle", handle, "--offset", "100", "--length", "100", "--root",
                                      str(tmp_path / "locks")], env={**env, "SCRATCHFS_INDEX": None})
    assert unset.exit_code == 2 and "belong to a PostgreSQL index" in unset.stderr, unset.output
    with ScratchStore(tmp_path / "local", index="") as store:
        handle = store.scope("r", "a").spill(b"x" * 30_000, source_tool="t").handle
    result = CliRunner().invoke(main, ["read-handle", handle, "--length", "100", "--root", str(tmp_path / "local")],
                                env={**env, "SCRATCHFS_INDEX": None})
    assert f"--length 100 --root {tmp_path / 'local'} --run r --agent a\n" in result.stderr


def _before_our_code(returncode: int, err: str) -> bool:
    """Whether a SIGINT ended ``scratchfs`` before any code of ours could handle it: before Python installed its own
    handler (killed by the signal, nothing said), while Python itself started ("Fatal Python error: init_...": its
    streams, its site module), or in the script's ``from scratchfs.__main__ import run`` (a traceback that never
    reached :func:`scratchfs.__main__.run`), or while Python read and compiled the script, its default handler set
    and no frame of it running yet (exit 1, ``KeyboardInterrupt`` with no traceback: seen at a load of 10)."""
    import signal

    if (returncode == -signal.SIGINT and err == "") or (returncode, err) == (1, "KeyboardInterrupt\n"):
        return True
    if err.startswith("Fatal Python error: init_"):
        return True
    return err.startswith("Traceback") and err.rstrip().endswith("KeyboardInterrupt") and ", in run\n" not in err


@pytest.mark.alone  # the moment of the signal in the start-up moves with the load beside it
@pytest.mark.parametrize("delay", [0.06, 0.1, 0.14])
def test_a_ctrl_c_while_the_command_line_loads_is_one_line(tmp_path, delay):
    """Ctrl-C in a command's first ~0.2 s, while its modules were still being imported, printed a 12-38 line
    KeyboardInterrupt traceback (newuser4: `timeout -s INT 0.1 scratchfs spill ...`); from 0.25 s on it was one line.
    The script's entry point loads the command line inside its own handler: one line and exit 130 at any moment."""
    import signal

    exe = os.path.join(os.path.dirname(sys.executable), "scratchfs")
    for _ in range(12):
        proc = subprocess.Popen([exe, "--root", str(tmp_path / "root"), "ls"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        if not _before_our_code(proc.returncode, err):
            break  # (else a loaded machine: Python's own start took longer than the delay -- 0.6 to 7 s seen with
        delay *= 1.5  # two cores overcommitted -- and the signal came before any code of ours ran: again, later)
    else:
        pytest.fail(f"12 signals up to {delay / 1.5:.1f} s after the start all came before scratchfs ran: {err!r}")
    if err.startswith("scratchfs: not found: "):  # a fast machine: it had loaded, and ended, before the signal
        assert err.count("\n") == 1 and "Traceback" not in err
        return
    assert (proc.returncode, err) == (130, "scratchfs: interrupted\n")


_SWALLOWED_INTERRUPT = """
import os, signal, sys, types, weakref
import scratchfs.__main__ as entry

def callback(_ref):  # (a weak reference's callback, as the import machinery's module locks have: Python ignores
    os.kill(os.getpid(), signal.SIGINT)  # what it raises, printing 'Exception ignored in: ...')
    for _ in range(10_000):
        pass

class Thing:
    pass

def load(name):
    thing = Thing()
    ref = weakref.ref(thing, callback)
    del thing
    return lambda: print("the command ran")

cli = types.ModuleType("scratchfs.cli")
cli.__getattr__ = load
sys.modules["scratchfs.cli"] = cli
entry.run()
"""


def test_a_ctrl_c_that_python_ignores_while_the_command_line_loads_still_interrupts_it():
    """The clean-clone CI of 15:20 UTC (2026-12-05): a SIGINT 0.14 s into `scratchfs ls` raised KeyboardInterrupt
    inside a module lock's weak-reference callback, which Python prints as an ignored exception and goes on: 'Exception
    ignored in: <function _get_module_lock.<locals>.cb ...> ... KeyboardInterrupt' and the command ran (exit 1,
    not found). The signal is recorded as it comes: one line and exit 130, whatever became of the exception."""
    proc = subprocess.run([sys.executable, "-c", _SWALLOWED_INTERRUPT], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr, proc.stdout) == (130, "scratchfs: interrupted\n", "")


def test_scratch_delete_of_a_handle_says_it_is_a_handle_as_mcp_does(cli):
    """``scratchfs scratch-delete h_...`` said only 'not found: no key ...' (exit 1), where MCP's scratch_delete
    notes that a handle is no scratchpad key and spilled results expire (newuser4: the CLI and MCP answered one
    question two ways). The CLI's one line says it too, and names what does remove spilled results."""
    handle = json.loads(cli("spill", "--tool", "t", input="x" * 100).stdout)["handle"]
    result = cli("scratch-delete", handle)
    assert result.exit_code == 1
    assert result.stderr == (f"scratchfs: not found: no key '{handle}' in this scope (run 'run-1', agent 'agent-1'); "
                             "this is a handle of a spilled result, not a scratchpad key: scratch-delete removes only "
                             "scratchpad values, and spilled results expire after their TTL (or go with delete-run, "
                             "delete-agent)\n")
    assert cli("read-handle", handle).stdout_bytes == b"x" * 100  # nothing deleted
    plain = cli("scratch-delete", "plan")
    assert plain.exit_code == 1 and plain.stderr.startswith("scratchfs: not found: no key 'plan' in this scope (run "
                                                            "'run-1', agent 'agent-1'); ")
    assert " scratch-list " in plain.stderr and " lists the keys of this scope; " in plain.stderr, plain.stderr
    assert plain.stderr.endswith(f" ls --root {cli.root} lists every live entry with the run and agent that hold it "
                                 "(give them as --run and --agent)\n"), plain.stderr  # (another scope's: replies11)


def test_a_name_of_another_scope_names_the_listing_that_finds_its_scope(cli):
    """newuser12: ``scratchfs read-handle <H> --run r1 --agent a2`` of a1's handle said "copy the handle whole ... or
    run the tool again", and not how a shell user finds where it is: ``scratchfs ls`` lists every scope's entries
    (the model's tools list their own scope alone, so MCP's words stay). The command it names finds the handle, and
    its run and agent read it; a name that is near one of this scope's, or expired, says that alone."""
    handle = json.loads(cli("spill", "--tool", "t", "--run", "r1", "--agent", "a1", input="x" * 100).stdout)["handle"]
    cli("scratch-write", "notes", "--run", "r1", "--agent", "a1", input="y")
    listing = f" ls --root {cli.root} lists every live entry with the run and agent that hold it (give them as --run " \
              "and --agent)\n"
    for args in (["read-handle", handle], ["scratch-read", "notes"]):
        missed = cli(*args, "--run", "r1", "--agent", "a2")
        assert missed.exit_code == 1 and missed.stderr.endswith(listing), missed.stderr
        command = missed.stderr.rsplit("; ", 1)[1].split(" lists every")[0]
        assert command.split()[1:] == ["ls", "--root", str(cli.root)], command
        listed = cli(*command.split()[1:], "--json")
        (row,) = [entry for entry in json.loads(listed.stdout) if entry["key"] == args[1]]
        found = cli(*args, "--run", row["run_id"], "--agent", row["agent_id"])
        assert found.exit_code == 0 and found.stdout_bytes in (b"x" * 100, b"y"), found.stderr
    near = cli("read-handle", handle[:-1] + ("a" if handle[-1] != "a" else "b"), "--run", "r1", "--agent", "a1")
    assert "did you mean" in near.stderr and " ls " not in near.stderr, near.stderr


def test_a_read_without_its_scope_names_the_listing_that_finds_it(cli, monkeypatch):
    """newuser14: a handle read in a new shell, the run exported in the last one, got ``Missing option '--run' (or
    $SCRATCHFS_RUN_ID)`` and nothing on where to learn the run: a command that reads or removes what is stored names
    ``scratchfs ls``, which lists every live entry with its run and agent (a write's run is the writer's to choose,
    and its refusal stays as it was)."""
    handle = json.loads(cli("spill", "--tool", "t", "--run", "r1", "--agent", "a1", input="x" * 100).stdout)["handle"]
    cli("scratch-write", "notes", "--run", "r1", "--agent", "a1", input="y")
    monkeypatch.delenv("SCRATCHFS_RUN_ID")
    monkeypatch.delenv("SCRATCHFS_AGENT_ID")
    listing = f" ls --root {cli.root} lists every live entry with the run and agent that hold it (give them as --run " \
              "and --agent) (see "
    for args, option in ((["read-handle", handle], "--run"), (["scratch-read", "notes"], "--run"),
                         (["scratch-delete", "notes", "--run", "r1"], "--agent"),
                         (["scratch-list", "--prefix", "notes"], "--run")):
        missed = cli(*args)
        assert missed.exit_code == 2 and missed.stderr.count("\n") == 1, missed.stderr
        assert missed.stderr.startswith(f"scratchfs: usage: Missing option '{option}' (or $SCRATCHFS_"), missed.stderr
        assert listing in missed.stderr, missed.stderr
        command = missed.stderr.split("): ", 1)[1].split(" lists every")[0]
        (row,) = [entry for entry in json.loads(cli(*command.split()[1:], "--json").stdout)
                  if entry["key"] in args]  # (scratch-list's word: --prefix)
        assert (row["run_id"], row["agent_id"]) == ("r1", "a1")
    written = cli("spill", "--tool", "t", input="x")
    assert written.exit_code == 2 and " ls " not in written.stderr, written.stderr


_MCP_VERBS = re.compile(r"\b(?:read_handle|scratch_(?:list|read|write|delete))\b")


def test_the_cli_names_its_commands_not_the_mcp_tools(cli):
    """helper replies6: the CLI's refusals named MCP tools -- 'scratch_list lists the keys of this scope', 'did you
    mean 'plan'? (scratch_list lists them all)', 'scratch_delete removes only scratchpad values', 'read_handle: row:
    0 is less than the minimum' --, words a shell user has no command for: each names the CLI's command now (the
    command to run, with the store and scope, where it names a call)."""
    handle = json.loads(cli("spill", "--tool", "t", input="a,b\n1,2\n").stdout)["handle"]
    cli("scratch-write", "plan", input="x")
    for args in (["scratch-read", "nokey"], ["scratch-read", "plam"], ["scratch-delete", "nokey"],
                 ["scratch-delete", handle], ["read-handle", handle, "--row", "0"],
                 ["read-handle", handle, "--lines", "0"], ["scratch-read", ""]):
        result = cli(*args)
        assert result.exit_code in (1, 2) and result.stderr.startswith("scratchfs: "), (args, result.stderr)
        assert not _MCP_VERBS.search(result.stderr), (args, result.stderr)
    assert " scratch-list " in cli("scratch-read", "nokey").stderr
    assert "read-handle: --row: 0 is less than the minimum of 1" in cli("read-handle", handle, "--row", "0").stderr


def test_the_cli_names_its_options_not_the_tools_arguments(cli):
    """helper advice2: ``read-handle --budget 1024`` said 'read_handle: budget: 1024 is less than the minimum of
    2048', the MCP tool's words: the command and its option are named now; and a line read mixed with a search
    names the two commands that split it."""
    handle = json.loads(cli("spill", "--tool", "t", input="a x\nb\n").stdout)["handle"]
    cli("scratch-write", "plan", input="x")
    for args, said in ((["read-handle", handle, "--budget", "1024"], "read-handle: --budget: 1024 is less than"),
                       (["read-handle", handle, "--max-matches", "0", "--match", "x"], "read-handle: --max-matches: 0"),
                       (["scratch-read", "plan", "--json", "--budget", "10"], "scratch-read: --budget: 10 is less")):
        result = cli(*args)
        assert result.exit_code == 2 and result.stderr.startswith(f"scratchfs: invalid argument: {said}"), result
    mixed = cli("read-handle", handle, "--line", "1", "--match", "x")
    assert mixed.exit_code == 2 and " make two calls, " in mixed.stderr, mixed.stderr
    scope = f"--root {cli.root} --run run-1 --agent agent-1"
    assert f" read-handle {handle} --match x {scope} and " in mixed.stderr, mixed.stderr
    assert mixed.stderr.endswith(f" read-handle {handle} --line 1 {scope}\n"), mixed.stderr


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="no /proc/self/mem on this system")
@pytest.mark.parametrize("verb", [["spill"], ["scratch-write", "k"]])
def test_a_source_that_fails_to_read_is_named_not_taken_for_the_store(cli, verb):
    """``scratchfs spill /proc/self/mem`` (it opens, and every read fails with EIO) said 'scratchfs: storage:
    Input/output error', exit 4: it reads as the store's own disk failing (newuser4). The line names the file read;
    nothing is stored."""
    result = cli(*verb, "/proc/self/mem")
    assert (result.exit_code, result.stderr) == (4, "scratchfs: input: cannot read '/proc/self/mem': Input/output "
                                                    "error\n")
    with ScratchStore(cli.root) as store:
        assert store.list_entries() == []


def test_read_handle_by_whole_lines_and_from_the_end(cli, tmp_path):
    """--context line: windows of whole lines (a CRLF line's \\r not shown); --line -N: the last lines; a bad
    --context is one usage line (exit 2) naming both forms."""
    data = b"one needle\r\ntwo\nthree needle here\nfour"
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    handle = json.loads(cli("spill", str(path)).stdout)["handle"]
    found = json.loads(cli("read-handle", handle, "--match", "needle", "--context", "line").stdout)
    assert [(w["line"], w["data"]) for w in found["windows"]] == [(1, "one needle"), (3, "three needle here")]
    tail = cli("read-handle", handle, "--line", "-2", "--lines", "5")
    assert tail.stdout_bytes == b"three needle here\nfour"
    assert tail.stderr.startswith("scratchfs: 22 bytes from offset 16, the content's last; the lines before them: ")
    assert f" read-handle {handle} --line -2 --lines 2 --end 16 --root " in tail.stderr, tail.stderr  # lines 1-2,
    before = cli(*shlex.split(tail.stderr.split("them: ", 1)[1])[1:])  # the last 2 before the first read, as run
    assert json.loads(before.stdout)["data"] == "one needle\r\ntwo\n" and before.stderr == ""  # (--end: JSON; line 1
    # read, nothing follows)
    as_json = json.loads(cli("read-handle", handle, "--line", "-9", "--lines", "1", "--json").stdout)
    assert (as_json["first_line"], as_json["data"], as_json["note"]) == (
        1, "one needle\r\n", "line=-9 is before the first line (4 lines): read from line 1, as tail -n does")
    raw = cli("read-handle", handle, "--line", "-9", "--lines", "1")  # the raw read says it on stderr (newuser7)
    assert raw.stdout_bytes == b"one needle\r\n" and raw.stderr.startswith(
        "scratchfs: line=-9 is before the first line (4 lines): read from line 1, as tail -n does\n"), raw.stderr
    for bad in ("lines", "1.5", "-1"):
        result = cli("read-handle", handle, "--match", "needle", "--context", bad)
        assert result.exit_code == 2 and result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and '"line"' in result.stderr, result.stderr


@pytest.mark.parametrize("count", [0, 3, 7, 20])
def test_scratch_list_prints_a_page_at_a_time_the_same_json(cli, monkeypatch, count):
    """``scratchfs scratch-list`` held every entry, every dict and the whole JSON text at once: 437 MB of memory for
    100,000 keys in one agent (atk28), so a big scratchpad failed under ``ulimit -v``. It reads keyset pages and
    prints each as read, byte for byte the indented JSON list it printed (here pages of 7 entries)."""
    from scratchfs.api.scope import Scope
    from scratchfs.cli import scratchpad

    with ScratchStore(cli.root) as store:
        scope = store.scope("run-1", "agent-1")
        for i in range(count):
            scope.scratch_write(f"k{i:02d}", f"value {i} \u00e9\n" * (i + 1))
        scope.scratch_write("other", b"not listed")
        expected = json.dumps([e.to_dict() for e in scope.scratch_list("k")], ensure_ascii=False, indent=2) + "\n"
    monkeypatch.setattr(scratchpad, "MAX_LIST_ENTRIES", 7)
    monkeypatch.setattr(Scope, "scratch_list", lambda *a, **k: pytest.fail("the whole listing was loaded"))
    result = cli("scratch-list", "--prefix", "k")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected
    assert [e["key"] for e in json.loads(result.stdout)] == [f"k{i:02d}" for i in range(count)]


def test_a_scratch_read_next_call_with_a_budget_pastes_as_cli_options(cli):
    """``scratch_read(key=..., offset=..., length=..., budget=2048, version=...)`` -- the next_call of a scratch_read
    given a budget -- runs as ``scratch-read KEY --json --offset --length --budget --version`` (the README maps
    ``budget=N`` to ``--budget N``; scratch-read had no such option: exit 2); a raw read refuses it."""
    assert cli("scratch-write", "big", input="x" * 9000).exit_code == 0
    first = json.loads(cli("scratch-read", "big", "--json", "--budget", "2048").stdout)
    call = first["next_call"]
    assert "budget=2048" in call and len(json.dumps(first, separators=(",", ":")).encode()) <= 2048
    args = dict(re.findall(r'(\w+)=("[^"]*"|\d+)', call))
    assert "length" not in args  # (65536: scratch_read's default, left out since advice4)
    page = cli("scratch-read", "big", "--json", "--offset", args["offset"], "--budget", args["budget"], "--version",
               args["version"].strip('"'))
    assert page.exit_code == 0 and json.loads(page.stdout)["offset"] == int(args["offset"])
    raw = cli("scratch-read", "big", "--budget", "2048")
    assert raw.exit_code == 2 and "--budget" in raw.stderr


@pytest.mark.parametrize(("option", "value", "bound"), [("--length", "100000", "65,536 bytes"),
                                                         ("--length", "1MiB", "65,536 bytes"),
                                                         ("--lines", "20000", "10,000 lines")])
def test_a_read_over_its_cap_names_what_reads_more(cli, option, value, bound):
    """``read-handle --length 100000`` was refused "read_handle: length: 100000 is greater than the maximum of 65536":
    the bound, but not --all, which reads everything (found by the newuser helper, following the README's
    "the CLI's --length exits 2, where --all reads everything"). The refusal names --all, or with --json the paging."""
    stub = json.loads(cli("spill", "--tool", "t", input="0123456789\n" * 20_000).stdout)
    raw = cli("read-handle", stub["handle"], option, value)
    assert raw.exit_code == 2 and raw.stdout == ""
    assert raw.stderr.startswith(f"scratchfs: invalid argument: {option} ") and raw.stderr.count("\n") == 1
    assert f"is more than one read returns ({bound}): --all writes every byte" in raw.stderr
    as_json = cli("read-handle", stub["handle"], option, value, "--json")
    assert as_json.exit_code == 2 and "follow each reply's next_call" in as_json.stderr
    assert cli("read-handle", stub["handle"], "--all").stdout_bytes == b"0123456789\n" * 20_000


@pytest.mark.parametrize(("word", "meant"), [
    ("cat", "read-handle"), ("read", "read-handle"), ("show", "scratch-read"), ("grep", "read-handle"),
    ("rm", "scratch-delete"), ("delete", "delete-run"), ("list", "ls"), ("web", "serve"), ("gc", "sweep"),
    ("check", "fsck"), ("status", "stats"), ("put", "scratch-write"), ("CAT", "read-handle")])
def test_a_newcomers_word_for_a_command_names_the_command(cli, word, meant):
    """newuser14: ``scratchfs cat h_...`` (or ``rm``, ``list``, ``web``...) said ``No such command 'cat'.`` and no
    more -- click guesses a misspelling (``stat``: ``stats``), not another word for the same verb: the command each
    word means is named, one line, exit 2, and it is a command there is."""
    result = cli(word, "h_" + "a" * 24)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"scratchfs: usage: No such command '{word}'. Did you mean '"), result.stderr
    assert f"'{meant}'" in result.stderr and meant in main.commands, result.stderr
    named = re.findall(r"'([a-z-]+)' \(", result.stderr)
    assert named and set(named) <= set(main.commands), named


def test_cat_is_answered_with_the_read_that_prints_every_byte(cli):
    handle = json.loads(cli("spill", "--tool", "t", input="x" * 10_000).stdout)["handle"]
    said = cli("cat", handle).stderr
    assert "--all" in said, said
    assert cli("read-handle", handle, "--all").stdout_bytes == b"x" * 10_000
    assert "Did you mean 'stats'?" in cli("stat").stderr  # (click's guess of a misspelling, kept)
