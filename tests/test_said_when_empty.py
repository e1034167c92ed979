"""Answers that said too little (helper replies3): ``ls --run nope`` and ``stats --run nope`` printed a table's header
alone, where ``delete-run`` says "no entries of run"; the web API's 401 was spaced JSON, unlike every other error
body, of a kind (``unauthorized``) the README's list of kinds did not name."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from scratchfs.cli import main
from scratchfs.web import create_app

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


@pytest.mark.parametrize("command", ["ls", "stats"])
@pytest.mark.parametrize(("filters", "said"), [
    (["--run", "nope"], "no entries of run 'nope'"),
    (["--run", "r1", "--agent", "zz"], "no entries of agent 'zz' in run 'r1'")])
@pytest.mark.parametrize("as_json", [[], ["--json"]])
def test_ls_and_stats_of_a_run_with_no_entries_say_so(tmp_path, command, filters, said, as_json):
    root = str(tmp_path / "root")
    runner = CliRunner()
    wrote = runner.invoke(main, ["--root", root, "scratch-write", "--run", "r1", "--agent", "a", "k"], input="x")
    assert wrote.exit_code == 0, wrote.output
    got = runner.invoke(main, ["--root", root, command, *filters, *as_json])
    assert got.exit_code == 0 and got.stderr == f"scratchfs: {said}\n"
    listed = runner.invoke(main, ["--root", root, command, "--run", "r1", *as_json])
    assert listed.exit_code == 0 and listed.stderr == ""  # (a run with entries: nothing said)


@pytest.mark.parametrize("command", ["ls", "stats"])
@pytest.mark.parametrize("as_json", [[], ["--json"]])
def test_ls_and_stats_of_a_store_with_no_live_entries_say_so(tmp_path, command, as_json):
    """A store whose entries were all deleted (or expired) printed a table's header alone on ls and stats."""
    root = str(tmp_path / "root")
    runner = CliRunner()
    wrote = runner.invoke(main, ["--root", root, "scratch-write", "--run", "r1", "--agent", "a", "k"], input="x")
    assert wrote.exit_code == 0, wrote.output
    listed = runner.invoke(main, ["--root", root, command, *as_json])
    assert listed.exit_code == 0 and listed.stderr == ""
    assert runner.invoke(main, ["--root", root, "delete-run", "r1"]).exit_code == 0
    got = runner.invoke(main, ["--root", root, command, *as_json])
    assert got.exit_code == 0 and got.stderr == "scratchfs: no live entries in this store\n"
    assert got.stdout.strip() == "[]" if as_json else got.stdout.count("\n") == 1  # (the header, or an empty list)


def test_the_web_apis_401_is_shaped_as_every_error_and_its_kind_listed(scratch_store):
    client = TestClient(create_app(scratch_store, "test-token-0123456789abcdef"))
    refused, missing = client.get("/api/runs"), client.get("/api/nope", params={"token": "test-token-0123456789abcdef"})
    assert refused.status_code == 401 and missing.status_code == 404
    assert refused.content == json.dumps(refused.json(), ensure_ascii=False, separators=(",", ":")).encode()
    assert missing.content == json.dumps(missing.json(), ensure_ascii=False, separators=(",", ":")).encode()
    assert set(refused.json()["error"]) == {"kind", "message"} and refused.json()["error"]["kind"] == "unauthorized"
    kinds = " ".join(README.split("Errors are `{\"error\":", 1)[1].split("--", 1)[0].split())
    for kind in ("unauthorized", "forbidden", "not found", "invalid argument", "method not allowed", "internal"):
        assert re.search(rf"\b\d{{3}} {kind}\b|, {kind}\b|or {kind}\b", kinds), kind
