"""A scratchpad value read page by page is one value: each scratch_read next_call carries the value's version, and a
key written again between two pages refuses the next page (``Changed``) instead of joining two values (issue 16's
attack trial, branch atk10)."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.api.scope import value_version
from scratchfs.api.views import reply_size
from scratchfs.cli.app import main
from scratchfs.foundation.errors import Changed, InvalidArgument, NotFound
from scratchfs.foundation.limits import MAX_KEY_BYTES
from scratchfs.web import create_app

CALL_RE = re.compile(r'scratch_read\(key="k", offset=(\d+)(?:, length=\d+)?, budget=(\d+), version="([a-z2-7]{8})"\)')


@pytest.fixture
def scope(tmp_path):
    with ScratchStore(tmp_path) as store:
        yield store.scope("run", "agent")


def _follow(tools: ScratchTools, first: dict) -> tuple[bytes, list[dict]]:
    replies, data = [first], first["data"].encode()
    while replies[-1]["next_call"]:
        offset, budget, version = CALL_RE.fullmatch(replies[-1]["next_call"]).groups()
        replies.append(tools.call("scratch_read", {"key": "k", "offset": int(offset), "budget": int(budget),
                                                   "version": version}))
        data += replies[-1]["data"].encode()
    return data, replies


def test_pages_of_one_value_carry_its_version_and_join_to_it(scope):
    value = "".join(f"line {i:05d} of the plan\n" for i in range(2_000))
    scope.scratch_write("k", value)
    tools = ScratchTools(scope)
    data, replies = _follow(tools, tools.call("scratch_read", {"key": "k", "budget": 4096}))
    assert data == value.encode() and len(replies) > 5
    entry = scope.store.index.lookup("run", "agent", "scratch", "k", scope.store.now())
    versions = {CALL_RE.fullmatch(r["next_call"]).group(3) for r in replies[:-1]}
    assert versions == {value_version(entry)}


def test_a_value_written_again_between_pages_is_refused_not_joined(scope):
    scope.scratch_write("k", "A" * 20_000)
    tools = ScratchTools(scope)
    first = tools.call("scratch_read", {"key": "k", "budget": 4096})
    offset, budget, version = CALL_RE.fullmatch(first["next_call"]).groups()
    scope.scratch_write("k", "B" * 30_000)  # another writer, between the model's two calls
    with pytest.raises(Changed) as caught:
        tools.call("scratch_read", {"key": "k", "offset": int(offset), "budget": int(budget), "version": version})
    text = error_text(caught.value)
    assert text.startswith("changed: ") and "30,000 bytes" in text  # (its read from offset 0 keeps the budget given:
    assert 'scratch_read(key="k", budget=4096)' in text  # replies10)
    assert isinstance(caught.value, NotFound)  # the version read is gone: a not-found to code that catches those
    again = tools.call("scratch_read", {"key": "k", "budget": 4096})  # as the message says: from offset 0
    assert again["data"].startswith("B") and CALL_RE.fullmatch(again["next_call"]).group(3) != version


def test_a_page_past_the_end_of_a_value_written_again_shorter_is_changed_not_a_bad_offset(scope):
    # the version is checked before the offset: the page's offset was good for the value it was made for
    scope.scratch_write("k", "A" * 20_000)
    first = scope.scratch_read_range("k", 0, 4096)
    scope.scratch_write("k", "short")
    with pytest.raises(Changed, match=r"is version .* \(5 bytes\)"):
        scope.scratch_read_range("k", 4096, 4096, version=first.version)
    with pytest.raises(InvalidArgument, match="offset 4096 is past the end of k"):  # without a version: the offset
        scope.scratch_read_range("k", 4096, 4096)


def test_the_same_bytes_written_again_are_a_new_version(store, clock):
    scope = store.scope("run", "agent")
    scope.scratch_write("k", "same" * 5_000)
    first = scope.scratch_read_range("k", 0, 100)
    clock.advance(0.001)
    scope.scratch_write("k", "same" * 5_000)
    with pytest.raises(Changed):
        scope.scratch_read_range("k", 100, 100, version=first.version)


def test_a_ttl_refresh_or_an_index_rebuild_keeps_the_version(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", b"v" * 10_000)
        version = scope.scratch_read_range("k", 0, 10).version
        entry = store.index.lookup("run", "agent", "scratch", "k", store.now())
        assert version == value_version(entry) and re.fullmatch(r"[a-z2-7]{8}", version)
    (tmp_path / "index.sqlite").unlink()
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"index.sqlite{suffix}").unlink(missing_ok=True)
    result = CliRunner().invoke(main, ["fsck", "--root", str(tmp_path), "--rebuild-index"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    with ScratchStore(tmp_path) as store:
        assert store.scope("run", "agent").scratch_read_range("k", 10, 10, version=version).data == b"v" * 10


def test_pages_read_with_refresh_on_read_keep_their_version(scratch_store_factory, clock):
    scope = scratch_store_factory("refreshing", refresh_on_read=True).scope("run", "agent")
    scope.scratch_write("k", "x" * 20_000, ttl=60)
    first = scope.scratch_read_range("k", 0, 4096)
    clock.advance(30)  # each read moves the expiry: the value is the same
    assert scope.scratch_read_range("k", 4096, 4096, version=first.version).version == first.version


@pytest.mark.parametrize("version", ["", "ABCDEFGH", "abcdefg", "abcdefgh1", "abcdefg1", 12345678, "../../etc"])
def test_a_malformed_version_is_one_invalid_argument(scope, version):
    scope.scratch_write("k", "v")
    with pytest.raises(InvalidArgument):
        ScratchTools(scope).call("scratch_read", {"key": "k", "version": version})


def test_handles_carry_no_version(scope):
    handle = scope.spill(b"x" * 50_000, source_tool="t").handle
    reply = ScratchTools(scope).call("read_handle", {"handle": handle, "budget": 4096})
    assert "version" not in reply["next_call"]


def test_the_cli_and_the_web_api_take_the_version(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("run", "agent").scratch_write("k", "A" * 20_000)
    args = ["--root", str(root), "--run", "run", "--agent", "agent"]
    runner = CliRunner()
    first = json.loads(runner.invoke(main, ["scratch-read", "k", "--json", *args], catch_exceptions=False).stdout)
    version = re.search(r'version="([a-z2-7]{8})"', first["next_call"]).group(1)
    page = runner.invoke(main, ["scratch-read", "k", "--json", "--offset", "100", "--version", version, *args],
                         catch_exceptions=False)
    assert page.exit_code == 0 and json.loads(page.stdout)["offset"] == 100
    refused = runner.invoke(main, ["scratch-read", "k", "--version", version, *args], catch_exceptions=False)
    assert refused.exit_code == 2 and "--version" in refused.stderr
    with ScratchStore(root) as store:
        store.scope("run", "agent").scratch_write("k", "B")
        token = "t" * 32
        with TestClient(create_app(store, token), headers={"Authorization": f"Bearer {token}"}) as client:
            url = "/api/runs/run/agents/agent/scratchpad/read"
            gone = client.get(url, params={"key": "k", "offset": 0, "version": version})
            assert gone.status_code == 409 and gone.json()["error"]["kind"] == "changed"
            now = client.get(url, params={"key": "k"}).json()
            assert now["data"] == "B"
    changed = runner.invoke(main, ["scratch-read", "k", "--json", "--offset", "0", "--version", version, *args],
                            catch_exceptions=False)
    assert changed.exit_code == 1 and changed.stderr.startswith("scratchfs: changed: ")


@pytest.mark.parametrize("small", [True, False], ids=["segment", "blob-file"])
def test_two_values_of_one_size_written_at_one_clock_reading_are_two_versions(tmp_path, small):
    # a frozen or stepped clock (Settings.clock, a VM's coarse time), or two processes writing in the same
    # microsecond: the write time and the sizes are all the same, the bytes are not
    size = 100 if small else 200_000
    with ScratchStore(tmp_path, clock=lambda: 1_700_000_000.0) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", "A" * size)
        first = scope.scratch_read_range("k", 0, 10)
        scope.scratch_write("k", "B" * size)
        with pytest.raises(Changed):
            scope.scratch_read_range("k", 10, 10, version=first.version)
        assert scope.scratch_read_range("k", 0, 10).version != first.version


@pytest.mark.parametrize("key", ["k", '"' * MAX_KEY_BYTES, "\\" * MAX_KEY_BYTES, "é" * (MAX_KEY_BYTES // 2),
                                 "\u2028" * (MAX_KEY_BYTES // 3), "k" * 240])
def test_a_changed_error_is_small_as_the_model_receives_it(scope, key):
    # the key is the model's own: written out once in the call to make, and only when that call is short
    scope.scratch_write(key, "A" * 20_000)
    version = scope.scratch_read_range(key, 0, 1).version
    scope.scratch_write(key, "B" * 30_000)
    with pytest.raises(Changed) as caught:
        ScratchTools(scope).call("scratch_read", {"key": key, "offset": 10, "version": version})
    assert reply_size(error_text(caught.value)) <= 512


def test_a_version_no_read_gave_is_not_said_to_be_of_an_earlier_write(scope, tmp_path, monkeypatch):
    """A new user's trial: a made-up version ('xxxxxxxx') was refused with 'the value was written again after the
    read that gave version ...' -- untrue, no read gave it. The message says what is known: the live value's
    version differs from the one given, written again or the version came from no read of it."""
    scope.scratch_write("big", "A" * 20_000)
    live = scope.scratch_read_range("big", 0, 1).version
    with pytest.raises(Changed) as caught:
        ScratchTools(scope).call("scratch_read", {"key": "big", "offset": 7999, "length": 65536,
                                                  "version": "xxxxxxxx"})
    text = error_text(caught.value)
    assert "after the read that gave" not in text
    assert text.startswith(f"changed: the value of big is version {live!r} (20,000 bytes), not 'xxxxxxxx': it was "
                           "written again since the read that gave 'xxxxxxxx', or no read of it gave that version; "
                           'read it again from offset 0: scratch_read(key="big")'), text
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "root"))
    runner = CliRunner()
    runner.invoke(main, ["scratch-write", "big", "-", "--run", "r", "--agent", "a"], input="B" * 9000,
                  catch_exceptions=False)
    result = runner.invoke(main, ["scratch-read", "big", "--json", "--offset", "7999", "--length", "65536",
                                  "--version", "xxxxxxxx", "--run", "r", "--agent", "a"], catch_exceptions=False)
    assert result.exit_code != 0 and result.stdout == "" and result.stderr.count("\n") == 1, result.output
    assert "or no read of it gave that version" in result.stderr and "after the read that gave" not in result.stderr
