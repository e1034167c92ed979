"""The pytest plugin, run in a fresh pytest session (pytester), and the loader behind ``scratchfs load``."""

from __future__ import annotations

import json
import os
from importlib.metadata import entry_points

from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main
from scratchfs.loader import iter_files, load_dir

from .conftest import FIXTURES


def test_the_plugin_is_installed_as_a_pytest11_entry_point():
    assert [ep.value for ep in entry_points(group="pytest11") if ep.name == "scratchfs"] == ["scratchfs.pytest_plugin"]


def test_fixtures_in_a_fresh_session(pytester):
    pytester.makepyfile(r'''
        import pytest
        from scratchfs import NotFound, ScratchStore

        STORES = []

        def test_ttl_and_sweep_without_sleeping(scratch_scope, scratch_clock, scratch_store):
            assert isinstance(scratch_store, ScratchStore) and scratch_store.clock is scratch_clock
            assert (scratch_scope.run_id, scratch_scope.agent_id) == ("run-1", "agent-1")
            stub = scratch_scope.spill("x" * 100, ttl=10)
            scratch_scope.scratch_write("note", "y", ttl=10)
            scratch_clock.advance(9.5)
            assert scratch_scope.read_handle(stub.handle).data == b"x" * 100
            scratch_clock.advance(0.5)
            with pytest.raises(NotFound):
                scratch_scope.read_handle(stub.handle)  # a read that finds it expired removes it at once
            assert scratch_store.sweep().rows_deleted == 1  # the note, expired but never read
            STORES.append(scratch_store)

        def test_the_store_was_closed_after_its_test():
            assert STORES[0].closed

        @pytest.mark.scratch_store(frame_bytes=4096, preview_bytes=10, default_ttl=5)
        @pytest.mark.scratch_scope("r-x", "a-y")
        def test_markers_set_the_store_and_scope(scratch_scope, scratch_clock):
            assert (scratch_scope.run_id, scratch_scope.agent_id) == ("r-x", "a-y")
            stub = scratch_scope.spill("abcdefghijklmnop")
            assert stub.preview == "abcdefghij"
            (entry,) = scratch_scope.list_entries()
            assert entry.expires_at == scratch_clock.now + 5

        def test_more_stores_share_the_clock(scratch_store_factory, scratch_clock, tmp_path):
            one, two = scratch_store_factory("one"), scratch_store_factory("two", default_ttl=60)
            assert one.root == tmp_path / "one" and one.clock is two.clock is scratch_clock
            two.scope("r", "a").scratch_write("k", "v")
            scratch_clock.advance(61)
            assert two.scope("r", "a").scratch_list() == []
    ''')
    result = pytester.runpytest("-W", "error", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)


def test_load_spills_every_file_of_a_folder(scratch_scope):
    stubs = load_dir(scratch_scope, FIXTURES, ttl=60)
    files = iter_files(FIXTURES)
    assert list(stubs) == [p.relative_to(FIXTURES).as_posix() for p in files]
    assert "query-packages-by-month.csv" in stubs and "README.md" in stubs
    for path in files:
        stub = stubs[path.relative_to(FIXTURES).as_posix()]
        data = path.read_bytes()
        assert stub.size == len(data) and stub.source_tool == path.stem
        assert scratch_scope.read_handle(stub.handle, len(data) // 2, 100).data == data[len(data) // 2 :][:100]


def test_load_from_the_command_line(tmp_path):
    folder = tmp_path / "outputs"
    (folder / "nested").mkdir(parents=True)
    (folder / "sql.query.csv").write_text("a,b\n1,2\n")
    (folder / "nested" / "grep.txt").write_bytes(b"\xff\x00 binary")
    (folder / ".hidden").write_text("skipped")
    result = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                       "--agent", "a", "--json"])
    assert result.exit_code == 0, result.output
    loaded = json.loads(result.stdout)
    assert [(x["file"], x["source_tool"], x["size"]) for x in loaded] == [
        ("nested/grep.txt", "grep", 9), ("sql.query.csv", "sql.query", 8)]
    with ScratchStore(tmp_path / "root") as store:
        assert store.scope("r", "a").read_handle(loaded[0]["handle"]).data == b"\xff\x00 binary"
    tool = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                     "--agent", "a", "--tool", "recorded"])
    assert {x["source_tool"] for x in json.loads(tool.stdout)} == {"recorded"}
    missing = CliRunner().invoke(main, ["load", str(tmp_path / "nope"), "--run", "r", "--agent", "a"])
    assert missing.exit_code == 2


def test_load_names_what_it_skips_and_follows_no_link(tmp_path):
    """Links, FIFOs and links to folders were left out without a word; they are named on stderr now, and nothing
    behind a link is read."""
    folder = tmp_path / "outputs"
    folder.mkdir()
    (folder / "a.json").write_text('{"a": 1}')
    os.mkfifo(folder / "p.txt")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    (folder / "link.txt").symlink_to(secret)
    (folder / "dirlink").symlink_to(tmp_path)
    result = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                       "--agent", "a"])
    assert result.exit_code == 0, result.output
    assert [x["file"] for x in json.loads(result.stdout)] == ["a.json"]
    assert result.stderr == ("scratchfs: skipped 3 that are not regular files (links are not followed): dirlink, "
                             "link.txt, p.txt\n")
