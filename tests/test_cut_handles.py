"""A handle cut short (``read_handle(handle="h_w5sc36kf45kckzkgr7")``, 18 of its 24 letters: newuser14) was refused
with no suggestion, where a handle in capitals or quotes gets the one it holds. When exactly one live handle of the
caller's scope starts with it, the refusal names that handle, on every face (all go through ``ScratchTools.call``);
a prefix of another scope's handle, or of two handles, names none."""

from __future__ import annotations

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.foundation import checks
from scratchfs.foundation.errors import InvalidArgument


def _refused(tools, handle):
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": handle})
    return str(caught.value)


@pytest.mark.parametrize("kept", [8, 18, 23])
def test_a_handle_cut_short_names_the_one_it_starts(scratch_scope, kept):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(b"x\n" * 6000, source_tool="t").handle
    scratch_scope.spill(b"y\n" * 6000, source_tool="t")  # (another handle of the scope: not named)
    said = _refused(tools, handle[:2 + kept])
    assert said.startswith("not a handle (expected 'h_' and 24 letters a-z or digits 2-7): ")
    assert said.endswith(f"; did you mean '{handle}', the one handle of this scope that starts so (it was cut short: "
                         "copy all 26 characters)?")
    assert tools.call("read_handle", {"handle": handle, "line": 1, "lines": 1})["data"] == "x\n"


def test_too_short_or_of_another_scope_names_none(scratch_store, scratch_scope):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(b"x\n" * 6000).handle
    other = scratch_store.scope(scratch_scope.run_id, "agent-other").spill(b"y\n" * 6000).handle
    for given in (handle[:9], other[:20], "h_", handle[:20] + "1"):  # (7 letters; another agent's; not base32)
        assert "did you mean" not in _refused(tools, given), given


def test_a_prefix_two_handles_start_names_neither(scratch_scope, monkeypatch):
    made = iter(["h_abcdefghij" + "k" * 12 + "mp", "h_abcdefghij" + "k" * 12 + "np"])  # (sharing 22 letters)
    monkeypatch.setattr(checks, "new_handle", lambda: next(made))
    first = scratch_scope.spill(b"x\n" * 6000).handle
    second = scratch_scope.spill(b"y\n" * 6000).handle
    assert first[:-2] == second[:-2] and first != second
    assert "did you mean" not in _refused(ScratchTools(scratch_scope), first[:-2])
    assert f"did you mean '{first}'" in _refused(ScratchTools(scratch_scope), first[:-1])


def test_another_arguments_refusal_stands_alone(scratch_scope):
    handle = scratch_scope.spill(b"x\n" * 6000).handle
    with pytest.raises(InvalidArgument) as caught:
        ScratchTools(scratch_scope).call("read_handle", {"handle": handle[:20], "line": "one"})
    assert "did you mean" not in str(caught.value) and "line" in str(caught.value)


@pytest.mark.parametrize("more", [[], ["--all"], ["--match", "x"]])
def test_the_cli_names_it_too(tmp_path, more):
    from click.testing import CliRunner

    from scratchfs import ScratchStore
    from scratchfs.cli import main

    with ScratchStore(tmp_path) as store:
        handle = store.scope("r", "a").spill(b"x\n" * 6000).handle
    got = CliRunner().invoke(main, ["read-handle", handle[:20], "--root", str(tmp_path), "--run", "r", "--agent", "a",
                                    *more])
    assert got.exit_code == 2
    assert f"; did you mean '{handle}', the one handle of this scope that starts so" in got.stderr
