"""hostile27: the command line attacked -- argv, settings, roots, stdin, signals -- each finding a test."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

_SIGNAL_WHILE_LOADING = """
import os, signal, sys, types
import scratchfs.__main__ as entry

def load(name):  # (the command line's modules are being imported when the signal comes)
    os.kill(os.getpid(), signal.{signal})
    for _ in range(10_000):
        pass
    return lambda: print("the command ran")

cli = types.ModuleType("scratchfs.cli")
cli.__getattr__ = load
sys.modules["scratchfs.cli"] = cli
entry.run()
"""


@pytest.mark.parametrize(("name", "code", "line"), [("SIGTERM", 143, "scratchfs: terminated\n"),
                                                    ("SIGHUP", 129, "scratchfs: hung up\n"),
                                                    ("SIGINT", 130, "scratchfs: interrupted\n")])
def test_a_signal_while_the_command_line_loads_is_its_one_line_and_exit_code(name, code, line):
    """hostile27: `scratchfs spill - < 100MB` sent SIGTERM (or SIGHUP) 0.3-1.5 s after its start, on a loaded
    machine, died of the signal (returncode -15, -1) with nothing on stderr: the command line's modules were still
    loading (1.2 s measured with -X importtime), and only SIGINT was handled there. Each is its one line and its
    documented exit code (143, 129; 130), as once the command runs."""
    proc = subprocess.run([sys.executable, "-c", _SIGNAL_WHILE_LOADING.replace("{signal}", name)],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr, proc.stdout) == (code, line, "")


def _gone_reader_run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """``scratchfs ARGS`` with a stdout whose reader is gone before the first write (``| head -c 0``, at once)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "scratchfs", *args], stdout=write, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, timeout=120, env=env)
    finally:
        os.close(write)


def test_demo_piped_into_a_reader_that_goes_away_is_exit_code_0(tmp_path):
    """hostile27: `scratchfs demo | head -c 10` exited 1 with nothing on stderr -- rich's console ends the process
    so on a broken pipe -- where a reader that goes away is exit 0 for every command (README, exit codes)."""
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "build.log").write_text("line\n" * 50)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = _gone_reader_run(["demo", "--root", str(tmp_path / "root"), "--fixtures", str(tmp_path / "fixtures")], env)
    assert (proc.returncode, proc.stderr) == (0, "")


def _commands_with_a_root() -> list[str]:
    from scratchfs.cli import main

    return sorted(name for name, command in main.commands.items() if any(p.name == "root" for p in command.params))


_NUL_PATHS = [*(["--root", "a\0b", name] for name in _commands_with_a_root()),  # (before the command: the group's)
              *([name, "--root=st\0re"] for name in _commands_with_a_root()),
              ["spill", "in\0put"], ["scratch-write", "key", "\0"], ["load", "fold\0er"], ["demo", "--fixtures", "x\0"]]


@pytest.mark.parametrize("args", _NUL_PATHS, ids=lambda args: " ".join(args).replace("\0", "NUL"))
def test_a_path_with_a_nul_byte_is_one_usage_line(tmp_path, monkeypatch, args):
    """hostile27 (argv fuzz, in-process as the tests run the CLI): a --root, SOURCE, FOLDER or --fixtures holding a
    NUL byte raised ValueError('embedded null byte') out of click's os.stat or open -- a traceback, for every command
    with a --root. One usage line naming the byte, exit 2, nothing made."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    monkeypatch.chdir(tmp_path)
    env = {"SCRATCHFS_ROOT": str(tmp_path / "root"), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    result = CliRunner().invoke(main, [*args, "zz"] if "delete-run" in args else args, env=env,
                                input=b"x", catch_exceptions=False)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("scratchfs: usage: Invalid value for ")
    assert "holds a NUL byte: no file name can" in result.stderr, result.stderr
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("root", ["postgresql://u@db/scratch", "s3://bucket/prefix", "file:///etc", "HTTP://x"])
@pytest.mark.parametrize("where", ["option", "command", "environment"])
def test_a_root_that_is_a_url_is_one_usage_line_naming_index_and_blobs(tmp_path, monkeypatch, root, where):
    """hostile27: SCRATCHFS_ROOT=postgresql://x (a fleet's index given as the root) quietly made a store in the
    relative directory ``postgresql:/x``. A URL is no root: one usage line naming --index and --blobs, nothing made."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    monkeypatch.chdir(tmp_path)
    args = {"option": ["--root", root, "ls"], "command": ["spill", "--root", root, "-"], "environment": ["ls"]}[where]
    env = {"SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a", **({"SCRATCHFS_ROOT": root} if where == "environment"
                                                                   else {})}
    result = CliRunner().invoke(main, args, env=env, input=b"x" * 10_000, catch_exceptions=False)
    assert (result.exit_code, result.stderr.count("\n")) == (2, 1), result.stderr
    assert "is a URL, not a directory" in result.stderr and "--index ($SCRATCHFS_INDEX)" in result.stderr
    assert ("$SCRATCHFS_ROOT" if where == "environment" else "'--root'") in result.stderr
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("inside", ["trash/x", "runs/r/a/new", "journal", "runs/r", "locks/x/y"])
def test_a_new_store_inside_another_store_is_refused(tmp_path, monkeypatch, inside):
    """hostile27: `scratchfs spill F --root S/trash/x` (S a store) made a store there and printed its handle; S's next
    sweep removed it whole ('orphans_removed': 1) and the handle read 'no store at ...'; one in S/runs/r/a/new went
    with `delete-run r`. A new store inside one of another's own directories is refused (exit 2, one line, nothing
    made), through a link too; one made before (a store already) still opens, its entries there to read and move;
    one directly in another's root (fsck's to report, never removed) is let be."""
    from click.testing import CliRunner

    from scratchfs import ScratchStore
    from scratchfs.cli import main

    outer = tmp_path / "outer"
    with ScratchStore(outer) as store:
        store.scope("r", "a").spill(b"outer " * 100, source_tool="t")
        store.scope("r", "a").scratch_write("k", b"v")
    (tmp_path / "in.txt").write_bytes(b"hello\n")
    before = sorted(p.relative_to(outer) for p in outer.rglob("*"))
    roots = [outer / inside]
    if "/" in inside:  # (the same place through a link to the folder above it)
        (tmp_path / "link").symlink_to(outer / inside.split("/")[0])
        roots.append(tmp_path / "link" / inside.split("/", 1)[1])
    for root in roots:
        result = CliRunner().invoke(main, ["spill", str(tmp_path / "in.txt"), "--root", str(root), "--run", "r",
                                           "--agent", "a"], catch_exceptions=False)
        assert result.exit_code == 2, result.stdout
        assert result.stderr == (f"scratchfs: invalid argument: store root {root} is inside the scratchfs store at "
                                 f"{outer} ({inside}): what is inside it is that store's to sweep, repair and delete "
                                 "(its trash/ emptied, a run's folder removed with the run); choose a directory "
                                 "outside that store\n")
    assert sorted(p.relative_to(outer) for p in outer.rglob("*")) == before
    with ScratchStore(tmp_path / "elsewhere") as store:
        handle = store.scope("r", "a").spill(b"inner " * 100, source_tool="t").handle
    (tmp_path / "elsewhere").rename(outer / "trash" / "moved")  # (a store made there before: it opens, and reads)
    with ScratchStore(outer / "trash" / "moved") as store:
        assert store.scope("r", "a").read_handle(handle).data == b"inner " * 100
    ScratchStore(outer / "beside").close()


_HOSTILE_VALUES = ["", " ", "-1", "0", "-0", "nan", "inf", "-inf", "1e400", "1e-400", "9" * 40, "-" + "9" * 40,
                   "18446744073709551616", "0x10", "1_000", "\u0661\u0662", "1.5", "64KB", "1 KiB", "-1KiB", "16EiB",
                   "a\nb", "\r", "\t", "--", "-", "--json", "--help", "-h", os.fsdecode(b"\xff\xfe"), "\u202e",
                   "\U0001f4a5", "$(id)", "../..", "/", "/dev/null", "'", '"', "{}", "line", "text", "latin-1",
                   "x" * 5000, "=", "true", "off", "a\0b"]
"""Values an attacker gives an option: empty, huge, negative, NaN and infinities, 1e400, bytes no UTF-8, control
characters, values that look like options, text too long."""


def _cli_commands() -> dict:
    from scratchfs.cli import main

    return {name: command for name, command in main.commands.items()
            if name not in ("serve", "mcp", "mcp-proxy", "demo")}


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    """A store with one spilled result and one scratchpad value; the working directory a fresh one (a relative
    --root a fuzzed value names is made there, not in the clone)."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    where = tmp_path_factory.mktemp("fuzzed")
    env = {"SCRATCHFS_ROOT": str(where / "root"), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    runner = CliRunner()
    handle = json.loads(runner.invoke(main, ["spill", "-"], input=b"row,n\n" + b"a,1\n" * 3000, env=env).stdout)
    runner.invoke(main, ["scratch-write", "k"], input=b"value", env=env)
    (where / "in.txt").write_bytes(b"abc\n" * 10)
    (where / "fold").mkdir()
    (where / "fold" / "x.txt").write_text("x")
    before = os.getcwd()
    os.chdir(where / "fold")
    try:
        yield {"env": env, "handle": handle["handle"], "where": where}
    finally:
        os.chdir(before)


@st.composite
def _argv(draw, fuzzed):
    import click

    name = draw(st.sampled_from(sorted(_cli_commands())))
    command = _cli_commands()[name]
    value = st.sampled_from(_HOSTILE_VALUES)
    argv = [name]
    for param in command.params:
        if isinstance(param, click.Argument):
            good = {"handle": fuzzed["handle"], "key": "k", "source": str(fuzzed["where"] / "in.txt"),
                    "folder": str(fuzzed["where"] / "fold"), "run_id": "r"}.get(param.name, "x")
            hostile = value.filter(lambda text: not os.path.isdir(text)) if param.name == "folder" else value
            argv.append(draw(st.one_of(st.just(good), hostile)))  # (`load /` spills the whole file system)
    options = [param for param in command.params if isinstance(param, click.Option)]
    for _ in range(draw(st.integers(0, 4))):
        param = draw(st.sampled_from(options))
        option = draw(st.sampled_from(param.opts + param.secondary_opts))
        if param.is_flag:
            argv.append(option)
            continue
        given = draw(value) if option != "--root" else draw(st.sampled_from([fuzzed["env"]["SCRATCHFS_ROOT"], "",
                                                                              "/dev/null", "new root", "a\0b"]))
        form = draw(st.sampled_from(["apart", "=", "abbreviated"]))
        argv += [f"{option}={given}"] if form == "=" else [option[:-1] if form == "abbreviated" else option, given]
    if draw(st.booleans()):
        argv.insert(draw(st.integers(1, len(argv))), draw(st.sampled_from(["--", "--bogus", "--json", "-x"])))
    return argv


_JSON_OUT = {"spill", "scratch-write", "scratch-list", "scratch-delete", "sweep", "load", "delete-run", "delete-agent"}


@settings(max_examples=150)
@given(data=st.data())
def test_argv_fuzz_every_command_exits_documented_with_one_line(fuzzed, data):
    """hostile27: every command (the servers, which run until stopped, and demo aside) given hostile values for its
    options and arguments, in every form (apart, `=`, abbreviated), with `--`, unknown options and options twice:
    a documented exit code, one stderr line for an error (no traceback, no Python repr of an exception), and on
    success the JSON a JSON command prints."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    argv = data.draw(_argv(fuzzed))
    result = CliRunner().invoke(main, argv, env=fuzzed["env"], input=b"in\n")
    assert not (result.exception and not isinstance(result.exception, SystemExit)), (argv, result.exception)
    assert result.exit_code in (0, 1, 2, 3, 4, 5), (argv, result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr, argv
    if result.exit_code != 0:
        assert result.stderr.startswith("scratchfs: ") and result.stderr.count("\n") == 1, (argv, result.stderr)
    elif argv[0] in _JSON_OUT and "--help" not in argv and "-h" not in argv:
        json.loads(result.stdout)


@pytest.mark.parametrize("args", [["spill", "IN", "extra"], ["scratch-write", "k", "IN", "extra"],
                                  ["spill", "IN", "--busy-timeout", "nan"], ["scratch-write", "k", "IN", "--durable=x"],
                                  ["spill", "IN", "--run-quota-bytes", "64KB"]])
def test_a_source_opened_before_a_usage_error_is_closed(tmp_path, args):
    """hostile27 (the argv fuzz, in-process): SOURCE is opened as the command line is parsed; a later option's usage
    error left it open -- 'ResourceWarning: unclosed file' at the next collection, a descriptor held meanwhile by a
    program that runs the CLI in-process. The command's parse closes what it opened when it fails."""
    import gc
    import warnings

    from click.testing import CliRunner

    from scratchfs.cli import main

    source = tmp_path / "in.txt"
    source.write_bytes(b"abc\n")
    env = {"SCRATCHFS_ROOT": str(tmp_path / "root"), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        result = CliRunner().invoke(main, [str(source) if arg == "IN" else arg for arg in args], env=env)
        del result
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
