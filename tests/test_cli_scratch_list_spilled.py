"""``scratch_list(spilled=true)`` pages a scope's live spilled results for a model that lost a handle, but
``scratchfs scratch-list`` had no ``--spilled``: a shell agent could not find its handles again, and such a reply's
``next_call`` written as a command (``scratch-list --spilled --cursor ...``) was a usage error (leftovers7).
``--spilled`` lists them as ``scratch-list`` lists keys -- a JSON array of entries, newest first here, ``--limit``
one page and the ``next:`` command on stderr, the tool's cursor taken -- and refuses ``--prefix`` (exit 2)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

import scratchfs
from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.cli import main

FIXTURES = Path(scratchfs.__file__).resolve().parent.parent / "fixtures"
SPILLED = ("browser-rust-book.html", "query-packages-by-month.csv", "workspace-grep-stdlib-defs.txt",
           "api-ec2-service-model.json")


@pytest.fixture
def root(tmp_path):
    """A store whose scope run-1/agent-1 holds the four real outputs of :data:`SPILLED` spilled (tool ``t.<name>``)
    and two scratchpad values, and whose scope run-1/agent-2 holds one more spilled result."""
    path = tmp_path / "root"
    with ScratchStore(path) as store:
        scope = store.scope("run-1", "agent-1")
        for name in SPILLED:
            scope.spill((FIXTURES / name).read_bytes(), source_tool=f"t.{name}")
        scope.scratch_write("plan", b"step 1")
        scope.scratch_write("h_note", b"a key, not a handle")
        store.scope("run-1", "agent-2").spill((FIXTURES / SPILLED[0]).read_bytes(), source_tool="other")
    return path


def _invoke(root: Path, *args: str):
    return CliRunner().invoke(main, ["scratch-list", "--root", str(root), "--run", "run-1", "--agent", "agent-1",
                                     *args], catch_exceptions=False)


def _model_handles(root: Path) -> list[str]:
    with ScratchStore(root) as store:
        reply = ScratchTools(store.scope("run-1", "agent-1")).scratch_list(spilled=True)
    return [row["handle"] for row in reply["entries"]]


def test_spilled_lists_the_scopes_handles_newest_first_as_the_model_tool_does(root):
    result = _invoke(root, "--spilled")
    assert result.exit_code == 0, result.stderr
    entries = json.loads(result.stdout)
    assert [e["source_tool"] for e in entries] == [f"t.{name}" for name in reversed(SPILLED)]
    assert {e["kind"] for e in entries} == {"handle"} and {e["agent_id"] for e in entries} == {"agent-1"}
    assert [e["key"] for e in entries] == _model_handles(root)
    sizes = {e["source_tool"]: e["size"] for e in entries}
    assert sizes["t.browser-rust-book.html"] == (FIXTURES / "browser-rust-book.html").stat().st_size
    assert result.stderr == ""
    keys = json.loads(_invoke(root).stdout)
    assert [e["key"] for e in keys] == ["plan", "h_note"]  # (without --spilled: the scratchpad, as before)


def test_spilled_pages_and_its_next_line_goes_on(root):
    first = _invoke(root, "--spilled", "--limit", "3")
    assert first.exit_code == 0, first.stderr
    assert first.stderr.startswith("scratchfs: 3 entries shown; next: "), first.stderr
    argv = shlex.split(first.stderr.split(" next: ", 1)[1])
    assert argv[1:5] == ["scratch-list", "--spilled", "--limit", "3"] and "--cursor" in argv, argv
    rest = CliRunner().invoke(main, argv[1:], catch_exceptions=False)
    assert rest.exit_code == 0 and rest.stderr == "", rest.stderr
    shown = [e["key"] for e in json.loads(first.stdout) + json.loads(rest.stdout)]
    assert shown == _model_handles(root) and len(shown) == 4


def test_the_model_tools_spilled_cursor_goes_on_with_spilled(root):
    with ScratchStore(root) as store:
        reply = ScratchTools(store.scope("run-1", "agent-1")).scratch_list(spilled=True, limit=1)
    cursor = reply["next_call"].split('cursor="', 1)[1].split('"', 1)[0]
    rest = _invoke(root, "--spilled", "--cursor", cursor)
    assert rest.exit_code == 0, rest.stderr
    assert [e["key"] for e in json.loads(rest.stdout)] == _model_handles(root)[1:]
    keys = _invoke(root, "--cursor", cursor)  # (another listing's cursor: refused, the listing named from its start)
    assert keys.exit_code == 2 and keys.stdout == "" and "Traceback" not in keys.stderr
    assert "scratch-list --root" in keys.stderr and "--spilled" not in keys.stderr, keys.stderr


def test_spilled_with_a_prefix_is_a_usage_error_saying_what_to_do(root):
    result = _invoke(root, "--spilled", "--prefix", "h_")
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "--prefix filters scratchpad keys" in result.stderr and "without --prefix" in result.stderr


def test_an_empty_scope_lists_no_spilled_result(root):
    result = CliRunner().invoke(main, ["scratch-list", "--spilled", "--root", str(root), "--run", "run-1",
                                       "--agent", "agent-3"], catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout == "[]\n", result.stderr
