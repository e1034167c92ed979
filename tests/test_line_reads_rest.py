"""A read of lines that a cap or a reply budget cut short of the lines asked (``line=1, lines=5000`` on a real 512 KiB
grep output: 105 lines in the model's 8 KiB reply, 779 in the CLI's 64 KiB) named a next read of 5,000 more lines
from where it stopped (leftovers5): the pages ran past the range asked. The next read now asks for what is left of
the range (the rest of a cut line is one of its lines), and following the next_calls ends exactly at line 5,000."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import scratchfs
from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.cli import main
from scratchfs.foundation.call_text import parse_call

GREP = Path(scratchfs.__file__).resolve().parent.parent / "fixtures" / "workspace-grep-stdlib-defs.txt"


def test_following_a_cut_line_read_ends_at_the_last_line_asked(tmp_path):
    with ScratchStore(tmp_path) as store:
        tools = ScratchTools(store.scope("r", "a"))
        handle = store.scope("r", "a").spill(GREP.read_bytes()).handle
        reply = tools.read_handle(handle, line=1, lines=5000)
        assert reply["lines"] == 105 and reply["next_call"].endswith("line=106, lines=4895)"), reply["next_call"]
        read, pages = reply["lines"] - reply["cut"], 1
        while read < 5000:
            verb, arguments = parse_call(reply["next_call"])
            assert verb == "read_handle" and arguments["lines"] == 5000 - read, (read, arguments)
            reply = tools.read_handle(**arguments)
            read, pages = read + reply["lines"] - reply["cut"], pages + 1
        assert read == 5000 and reply["first_line"] + reply["lines"] - 1 == 5000
        assert reply["next_call"].endswith(f"line=5001, lines={reply['lines']})")  # (then the next page, as many)
        assert pages > 10


def test_the_cli_raw_read_cut_at_64_kib_names_the_rest_of_the_range(tmp_path):
    env = {"SCRATCHFS_ROOT": str(tmp_path), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    runner = CliRunner()
    spilled = runner.invoke(main, ["spill", str(GREP)], env=env)
    handle = spilled.stdout.split('"handle": "')[1].split('"')[0]
    read = runner.invoke(main, ["read-handle", handle, "--line", "1", "--lines", "5000"], env=env)
    assert read.exit_code == 0, read.output
    assert len(read.stdout_bytes) == 65536 and not read.stdout_bytes.endswith(b"\n")
    ended = read.stdout_bytes.count(b"\n")
    assert f"--offset 65536 --lines {5000 - ended} " in read.stderr, read.stderr
