"""The main job: `scratchfs demo` on the real fixtures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main
from scratchfs.demo import DEMO_OUTPUTS

from .conftest import FIXTURE_FILES, FIXTURES


def test_demo_spills_every_fixture_and_verifies_reads(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--root", str(tmp_path)],  # (no --fixtures: the clone's outputs)
                                catch_exceptions=False, terminal_width=200)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "WRONG" not in out and "DIFFERENT" not in out
    assert out.count(" ok") >= 2 * len(FIXTURE_FILES)
    assert "read back identical" in out
    assert "(1 windows" not in out and "(1 window of 'SourceAddresses')" in out  # was "1 windows"
    for name in (p.name for p in FIXTURE_FILES):  # its tables cut names to 24 characters (api-ec2-service-model.j…)
        assert f"│ {name} " in out, out
    assert f" {FIXTURE_FILES[0].stem} " in out  # (api-ec2-service-model: a name of the file's, as `load` has it)
    assert sorted(DEMO_OUTPUTS) == [p.name for p in FIXTURE_FILES]
    with ScratchStore(tmp_path) as store:
        entries = store.list_entries_for_run("demo")
        assert sorted(e.source_tool for e in entries if e.kind == "handle") == [p.stem for p in FIXTURE_FILES]
        assert sorted(e.kind for e in entries) == ["handle"] * len(FIXTURE_FILES) + ["scratch"]
        assert {e.size for e in entries if e.kind == "handle"} == {p.stat().st_size for p in FIXTURE_FILES}


def test_demo_twice_starts_clean(tmp_path):
    for _ in range(2):
        assert CliRunner().invoke(main, ["demo", "--root", str(tmp_path)]).exit_code == 0
    with ScratchStore(tmp_path) as store:
        assert len(store.list_entries_for_run("demo")) == len(FIXTURE_FILES) + 1


def test_demo_without_a_root_uses_a_temporary_store_and_names_the_right_file(tmp_path, monkeypatch):
    """No --root and no $SCRATCHFS_ROOT: nothing is written to the user's cache directory; the stub shown is named
    after the file it replaced, even when the first file was too small to spill."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.delenv("SCRATCHFS_ROOT", raising=False)
    fixtures = tmp_path / "outputs"
    fixtures.mkdir()
    (fixtures / "a-small.txt").write_bytes(b"tiny\n")
    (fixtures / "b-page.html").write_bytes((FIXTURES / "browser-rust-book.html").read_bytes())
    result = CliRunner().invoke(main, ["demo", "--fixtures", str(fixtures)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "a temporary store at " in result.stdout
    assert "instead of b-page.html" in result.stdout and "instead of a-small.txt" not in result.stdout
    assert not (home / ".cache" / "scratchfs").exists()


def test_demo_without_a_root_stays_local_when_a_fleet_is_exported(tmp_path, monkeypatch):
    """Its temporary store holds the index and the blobs too: a fleet named by the environment is not written to
    (here one that cannot be reached, which a spill into it would fail on)."""
    monkeypatch.delenv("SCRATCHFS_ROOT", raising=False)
    monkeypatch.setenv("SCRATCHFS_INDEX", "postgresql://nobody@127.0.0.1:1/nowhere")
    monkeypatch.setenv("SCRATCHFS_BLOBS", "s3://no-such-bucket/demo")
    fixtures = tmp_path / "outputs"
    fixtures.mkdir()
    (fixtures / "page.html").write_bytes((FIXTURES / "browser-rust-book.html").read_bytes())
    result = CliRunner().invoke(main, ["demo", "--fixtures", str(fixtures)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "a temporary store at " in result.stdout and "instead of page.html" in result.stdout


def test_demo_takes_any_file_and_names_its_tool_after_it(tmp_path):
    """`demo --fixtures DIR` took only .html .htm .json .csv .txt (and named every .txt workspace.grep): a folder of
    JSON lines, TSV, Markdown, YAML, a log, a tar, a binary, a file without a suffix gave "no recorded outputs"
    (helper newuser's finding). Every regular file is taken (hidden ones and folders aside), its tool named after
    it, and each spilled one is read back and checked."""
    folder = tmp_path / "outputs"
    folder.mkdir()
    files = {"events.jsonl": b"".join(b'{"i": %d, "msg": "event number %d"}\n' % (i, i) for i in range(2000)),
             "table.tsv": b"a\tb\n" + b"".join(b"%d\tvalue%d\n" % (i, i) for i in range(3000)),
             "notes.md": b"# Title\n\n" + b"".join(b"- item %d of the list\n" % i for i in range(2000)),
             "conf.yaml": b"".join(b"key%d: value%d\n" % (i, i) for i in range(2000)),
             "build.log": b"".join(b"INFO compiling module_%d\n" % i for i in range(2000)),
             "random.bin": os.urandom(50_000), "no-suffix": b"word " * 5000, "page.HTML": b"<html><body>"
             + b"<p>a paragraph of text</p>" * 2000 + b"</body></html>", "tiny.txt": b"tiny\n"}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    with tarfile.open(folder / "bundle.tar", "w") as tar:
        tar.add(folder / "build.log", arcname="build.log")
    (folder / ".hidden").write_bytes(b"h" * 20_000)
    (folder / "sub").mkdir()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
           "HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "scratchfs", "demo", "--fixtures", str(folder), "--root", str(tmp_path / "r")]
    report = subprocess.run(command, env=env, capture_output=True, timeout=300)
    assert report.returncode == 0, report.stderr
    out = report.stdout.decode()
    names = sorted([*files, "bundle.tar"])
    assert f"{len(names)} real tool outputs" in out and "WRONG" not in out and ".hidden" not in out
    checked = [line.strip() for line in out.split("checked against the original bytes:\n", 1)[1].split("\n\n")[0]
               .splitlines()]
    assert [line.split(":", 1)[0] for line in checked] == names
    assert all("range read ok" in line and "search ok" in line for line in checked if not line.startswith("tiny"))
    listed = json.loads(subprocess.run([*command, "--json"], env=env, capture_output=True, check=True,
                                       timeout=300).stdout)
    assert sorted(e["source_tool"] for e in listed if e["kind"] == "handle") == sorted(
        Path(name).stem for name in names if name != "tiny.txt")


def test_demo_streams_a_large_output_in_memory_that_does_not_grow_with_it(tmp_path):
    """`demo --fixtures DIR` read each file whole (``Path.read_bytes``): a file of a few GiB took that much memory.
    A 48 MiB log is spilled from the file in chunks and its reads checked against the file: the demo's peak of
    Python allocations stays a fraction of it (5.1 MiB measured at 04:17 UTC 2026-12-05, 7.7 MiB when written; 48 MiB
    and more before: ``pytest -s tests/test_demo.py -k streams`` prints it)."""
    import contextlib
    import io
    import tracemalloc

    from scratchfs.demo import run_demo

    folder = tmp_path / "outputs"
    folder.mkdir()
    block = b"".join(b"2026-12-05 03:%02d INFO worker_%d handled request number %d\n" % (i % 60, i % 7, i)
                     for i in range(20_000))
    size = 48 * 1024 * 1024
    with open(folder / "big.log", "wb") as out:
        for _ in range(size // len(block)):
            out.write(block)
        out.write(block[: size % len(block)])
    report = io.StringIO()
    with ScratchStore(tmp_path / "root") as store:
        tracemalloc.start()
        try:
            with contextlib.redirect_stdout(report):
                run_demo(store, str(folder))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        (entry,) = [e for e in store.list_entries_for_run("demo") if e.kind == "handle"]
        assert entry.size == size
    print(f"demo of a 48 MiB log: peak of Python allocations {peak / 2**20:.1f} MiB")  # (the README's figure)
    assert peak < size // 4, peak
    assert "big.log: range read ok" in report.getvalue() and "search ok" in report.getvalue(), report.getvalue()


def test_demo_reads_no_output_through_a_symbolic_link(tmp_path):
    """A link in the folder to a file outside it was followed (``Path.is_file``) and the file it named spilled; the
    rest of the command line opens no link (``load`` names it, skipped). Only regular files are outputs."""
    folder = tmp_path / "outputs"
    folder.mkdir()
    secret = tmp_path / "elsewhere.txt"
    secret.write_bytes(b"not an output of this folder\n" * 1000)
    (folder / "link.txt").symlink_to(secret)
    (folder / "real.txt").write_bytes(b"a real output line\n" * 1000)
    result = CliRunner().invoke(main, ["demo", "--fixtures", str(folder), "--root", str(tmp_path / "r"), "--json"])
    assert result.exit_code == 0, result.output
    assert [e["source_tool"] for e in json.loads(result.stdout) if e["kind"] == "handle"] == ["real"]


def test_demo_prints_odd_file_and_folder_names_as_written_on_one_line(tmp_path):
    """Names were printed through rich's markup and as they were: a folder ``a[/]b`` stopped the demo with a
    traceback (``MarkupError: closing tag '[/]' ... has nothing to close``), a file ``[bold]x.log`` was listed as
    ``x.log`` (and its tool ``[bold]x`` in the run's listing, which ``scratchfs ls`` prints too), a name with bytes
    that are not UTF-8 was a traceback on a strict UTF-8 output (``surrogates not allowed``), a name holding ESC wrote
    a terminal escape and one holding a newline split its report line in two. Each is printed as written, escaped."""
    import io

    from rich.console import Console

    from scratchfs.cli.render import Listing

    folder = tmp_path / ("a[" + "x" * 100) / "]b"  # (a path longer than a line: printed whole, not folded)
    folder.mkdir(parents=True)
    (folder / "[bold]x.log").write_bytes(b"ERROR a line of the log\n" * 2000)
    for name in (b"bad\xff.txt", b"esc\x1b[31m.txt", b"new\nline.txt"):
        with open(os.path.join(os.fsencode(folder), name), "wb") as out:
            out.write(b"small\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
           "HOME": str(tmp_path / "home"), "PYTHONIOENCODING": "utf-8"}  # (strict: as a UTF-8 terminal's)
    command = [sys.executable, "-m", "scratchfs", "demo", "--fixtures", str(folder), "--root", str(tmp_path / "r")]
    report = subprocess.run(command, env=env, capture_output=True, timeout=300)
    assert report.returncode == 0, report.stderr
    out = report.stdout.decode()
    assert f"4 real tool outputs from {folder}," in out
    checked = out.split("checked against the original bytes:\n", 1)[1].split("\n\n")[0].splitlines()
    assert [line.strip().split(": ", 1)[0] for line in checked] == [
        "[bold]x.log", "bad\\xff.txt", "esc\\x1b[31m.txt", "new\\nline.txt"]
    assert "[bold]x.log: range read ok" in out and "\x1b" not in out
    assert "│ [bold]x.log" in out and "│ [bold]x " in out  # (the outputs' table; the run's listing: its tool)
    console = Console(file=io.StringIO(), width=80)
    console.print(Listing(["run", "tool"], rows=[["r[/]", "[bold]t"]], title="[/]").table(80))
    assert "r[/]" in console.file.getvalue() and "[bold]t" in console.file.getvalue()


def test_demo_of_a_folder_it_cannot_list_names_the_folder(tmp_path, monkeypatch):
    """A folder the demo may not list was told ``storage: Permission denied`` (exit 4), as if the store had failed."""
    def refused(self):
        raise PermissionError(13, "Permission denied")

    folder = tmp_path / "locked"
    folder.mkdir()
    monkeypatch.setattr(Path, "iterdir", refused)
    result = CliRunner().invoke(main, ["demo", "--fixtures", str(folder), "--root", str(tmp_path / "r")])
    assert result.exit_code == 2, result.output
    assert f"cannot list {folder}: Permission denied" in result.stderr and "storage" not in result.stderr


def test_demo_of_an_output_of_one_long_word_checks_it_and_goes_on(tmp_path):
    """A hex dump of 600,000 digits on one line (or any run of letters and digits over 4 KiB) stopped the demo: the
    word it searched for was the whole run, 64 KiB, and the search refused it ('match is 65536 bytes, longer than
    the limit of 4096', exit 2), the outputs after it never read. The word is at most 64 characters, and a read the
    store refuses is named on the output's line while the others go on."""
    folder = tmp_path / "outputs"
    folder.mkdir()
    (folder / "hex.txt").write_bytes(b"a" + os.urandom(300_000).hex().encode())  # (a word from its first byte)
    (folder / "log.txt").write_bytes(b"INFO the next output is read too\n" * 1000)
    result = CliRunner().invoke(main, ["demo", "--fixtures", str(folder), "--root", str(tmp_path / "r")],
                                terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "hex.txt: range read ok" in result.stdout and "log.txt: range read ok" in result.stdout
    hex_line = next(line for line in result.stdout.splitlines() if line.strip().startswith("hex.txt:"))
    assert "search ok (1 window of '" in hex_line and len(hex_line.split("'")[1]) == 64, hex_line


def test_demo_help_gives_the_default_root_it_uses():
    """newuser11: ``demo --help`` said ``--root`` defaults to "the user cache directory", as the other commands' do,
    three lines below its own text saying the store is a new temporary directory (which it is)."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    helped = CliRunner().invoke(main, ["demo", "--help"], terminal_width=200)
    assert helped.exit_code == 0
    (root,) = [line for line in helped.stdout.splitlines() if line.strip().startswith("--root")]
    assert "temporary" in root and "cache" not in root, root
