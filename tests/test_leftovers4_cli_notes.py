"""Every note the CLI prints names what a shell user runs (leftovers4): a budget-cut search's note named its other
reads in the model's words (``count=true counts them all; before=23056 shows the last ones``) with no command on
stderr, and a note whose calls the reply did not also give as data (``calls``) had them written as tool calls only.
The source is ``fixtures/tools/dmesg.txt`` (a real ``dmesg``)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from scratchfs.api.contract import ScratchTools
from tests.cli_run import invoke

_DMESG = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dmesg.txt"


def test_a_budget_cut_search_names_its_other_reads_as_options(tmp_path):
    handle = json.loads(invoke(tmp_path / "root", "spill", str(_DMESG)).stdout)["handle"]
    done = invoke(tmp_path / "root", "read-handle", handle, "--match", "a", "--max-matches", "100", "--budget", "2KiB")
    assert done.exit_code == 0, done.output
    reply = json.loads(done.stdout)
    assert "count=true" in reply["note"] and "before=23056" in reply["note"]  # (the model's words, in its JSON)
    said = [line for line in done.stderr.splitlines() if "note" in line]
    assert len(said) == 1 and "--count counts them all" in said[0] and "--before 23056 shows" in said[0], said
    assert "count=true" not in done.stderr and "before=" not in done.stderr
    assert _DMESG.stat().st_size == 23056  # (the --before said is the content's end: the last matches)


def test_a_note_whose_calls_are_not_data_names_them_as_commands(tmp_path, monkeypatch):
    handle = json.loads(invoke(tmp_path / "root", "spill", str(_DMESG)).stdout)["handle"]
    real = ScratchTools.call

    def without_calls(self, verb, arguments):  # (a reply whose note names a read its calls do not give)
        reply = dict(real(self, verb, arguments))
        reply.pop("calls", None)
        reply["note"] = f'the rest: read_handle(handle="{handle}", offset=100, length=50)'
        return reply

    monkeypatch.setattr(ScratchTools, "call", without_calls)
    for args in (["read-handle", handle, "--match", "kernel"], ["scratch-read", "k", "--json"]):
        if args[0] == "scratch-read":
            assert invoke(tmp_path / "root", "scratch-write", "k", str(_DMESG)).exit_code == 0
        done = invoke(tmp_path / "root", *args)
        assert done.exit_code == 0, done.output
        line = next(line for line in done.stderr.splitlines() if "the note's call as a command: " in line)
        command = shlex.split(line.partition("the note's call as a command: ")[2])
        at = command.index("read-handle")
        assert command[at:at + 6] == ["read-handle", handle, "--offset", "100", "--length", "50"], command
        assert "read_handle(" not in done.stderr
