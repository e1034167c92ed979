"""``scratchfs mcp``: the tools over stdio with the official MCP client, in both protocol eras the SDK serves."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp.shared.exceptions import MCPError

from scratchfs import ScratchStore
from scratchfs.cli import main

from .mcp_support import (
    ERAS,
    connect,
    error_of,
    find_all,
    match_offsets,
    payload,
    read_all,
    run,
    scratchfs_params,
    search_all,
    window_is_exact,
)


@pytest.mark.parametrize("era", ERAS)
def test_tools_over_stdio_answer_the_contract_byte_exact(era, tmp_path, fixture_data):
    page = fixture_data["browser-rust-book.html"]
    grep = fixture_data["workspace-grep-stdlib-defs.txt"]
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run-1", "agent-1")
        handle = scope.spill(page, source_tool="browser.get").handle
        damaged = scope.spill(grep, source_tool="workspace.grep").handle
        entry = next(e for e in scope.list_entries() if e.key == damaged)
        path = Path(store.blobs.path("run-1", "agent-1", entry.blob))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    first_multibyte = next(i for i, b in enumerate(page) if b >= 0xC0)

    async def body():
        async with connect(scratchfs_params("mcp", "--root", str(tmp_path), "--run", "run-1", "--agent", "agent-1",
                                            "--allow-meta-scope"), era) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert set(listed) == {"read_handle", "scratch_write", "scratch_read", "scratch_list", "scratch_delete"}
            assert listed["read_handle"].input_schema["required"] == ["handle"]
            assert "next_call" in listed["read_handle"].description
            assert listed["read_handle"].annotations.read_only_hint is True

            # by range: whole characters only, byte-exact, and reading on from next_offset rebuilds the page
            r = payload(await client.call_tool("read_handle", {"handle": handle, "offset": first_multibyte - 10,
                                                               "length": 11}))
            assert r == {"handle": handle, "offset": first_multibyte - 10, "length": 10, "size": len(page),
                         "next_offset": first_multibyte, "remaining": len(page) - first_multibyte,
                         "next_call": f'read_handle(handle="{handle}", offset={first_multibyte}, length=11)',
                         "data": page[first_multibyte - 10 : first_multibyte].decode()}
            inside = payload(await client.call_tool("read_handle", {"handle": handle, "offset": first_multibyte + 1}))
            assert inside["offset"] > first_multibyte + 1
            assert inside["data"].encode() == page[inside["offset"] : inside["offset"] + inside["length"]]
            assert await read_all(client, handle, length=30_000) == page

            # by match: every match of the plain Python loop, each window the original bytes
            windows = await search_all(client, handle, "ownership", context=60)
            assert match_offsets(windows) == find_all(page, b"ownership")
            assert all(window_is_exact(w, page) for w in windows)

            # by lines and by pattern, as the store reads them
            lines = payload(await client.call_tool("read_handle", {"handle": handle, "line": 3348, "lines": 2}))
            assert lines["data"].encode() == b"".join(page.splitlines(keepends=True)[3347:3349])
            assert (lines["first_line"], lines["lines"], lines["next_line"]) == (3348, 2, 3350)
            found = payload(await client.call_tool("read_handle", {"handle": handle, "pattern": r"^<h2 id=\"wh",
                                                                   "ignore_case": True, "max_matches": 2}))
            assert found["pattern"] == r"^<h2 id=\"wh" and found["more"] is True
            assert [w["line"] for w in found["windows"]] == [
                i + 1 for i, ln in enumerate(page.splitlines()) if ln.lower().startswith(b'<h2 id="wh')][:2]
            last = payload(await client.call_tool("read_handle", {"handle": handle, "match": "ownership",
                                                                  "before": len(page), "max_matches": 2}))
            assert match_offsets(last["windows"]) == find_all(page, b"ownership")[-2:]  # from the end, in file order
            assert last["next_before"] == find_all(page, b"ownership")[-2]

            # the scratchpad
            assert payload(await client.call_tool("scratch_write", {"key": "plan", "value": "read ch. 4 — then 5",
                                                                    "ttl": 120}))["size"] == 21
            assert payload(await client.call_tool("scratch_read", {"key": "plan"}))["data"] == "read ch. 4 — then 5"
            listing = payload(await client.call_tool("scratch_list", {}))
            assert [e["key"] for e in listing["entries"]] == ["plan"]
            assert payload(await client.call_tool("scratch_delete", {"key": "plan"})) == {"key": "plan",
                                                                                          "deleted": True}

            # errors are tool errors that say their kind, and the server keeps serving
            assert error_of(await client.call_tool("scratch_read", {"key": "plan"})).startswith("not found: ")
            assert error_of(await client.call_tool("read_handle", {"handle": handle, "offset": "x"})) == (
                "invalid argument: read_handle: offset: \"x\" is not of type 'integer'")
            assert "past the end" in error_of(await client.call_tool("read_handle", {"handle": handle,
                                                                                     "offset": len(page) + 1}))
            with pytest.raises(MCPError, match="Unknown tool: nope"):  # a protocol error, as the spec says
                await client.call_tool("nope", {})
            corrupt = error_of(await client.call_tool("read_handle", {"handle": damaged, "offset": len(grep) // 2}))
            assert corrupt.startswith("corrupt: ") and damaged in corrupt

            # another scope, named in the request's _meta, does not see this scope's handle
            other = {"scratchfs/run_id": "run-2", "scratchfs/agent_id": "agent-9"}
            assert error_of(await client.call_tool("read_handle", {"handle": handle}, meta=other)).startswith(
                "not found: ")
            await client.call_tool("scratch_write", {"key": "theirs", "value": "x"}, meta=other)
            assert payload(await client.call_tool("scratch_list", {}))["entries"] == []
            assert payload(await client.call_tool("scratch_list", {}, meta=other))["entries"][0]["key"] == "theirs"
            assert "run id" in error_of(await client.call_tool("scratch_list", {},
                                                               meta={"scratchfs/run_id": "bad\nid"}))

    run(body)
    with ScratchStore(tmp_path) as store:
        assert [e.key for e in store.scope("run-2", "agent-9").scratch_list()] == ["theirs"]


@pytest.mark.parametrize("era", ERAS)
def test_a_pinned_server_refuses_another_scope_in_meta(era, tmp_path):
    """Started with --run/--agent, the server is pinned: _meta naming another run or agent is refused for every verb
    (read, write, list, delete), and nothing of the other scope is read or written; the pinned ids themselves are
    accepted in _meta."""
    with ScratchStore(tmp_path) as store:
        theirs = store.scope("run-2", "agent-9")
        handle = theirs.spill(b"secret " * 2000, source_tool="t").handle
        theirs.scratch_write("plan", b"their plan")

    async def body():
        async with connect(scratchfs_params("mcp", "--root", str(tmp_path), "--run", "run-1", "--agent", "agent-1"),
                           era) as client:
            for meta in ({"scratchfs/run_id": "run-2", "scratchfs/agent_id": "agent-9"},
                         {"scratchfs/run_id": "run-2"}, {"scratchfs/agent_id": "agent-9"}):
                for name, args in (("read_handle", {"handle": handle}), ("scratch_read", {"key": "plan"}),
                                   ("scratch_list", {}), ("scratch_write", {"key": "plan", "value": "x"}),
                                   ("scratch_delete", {"key": "plan"})):
                    text = error_of(await client.call_tool(name, args, meta=meta))
                    assert text.startswith("invalid argument: this server is pinned to "), (name, meta, text)
            same = {"scratchfs/run_id": "run-1", "scratchfs/agent_id": "agent-1"}
            assert payload(await client.call_tool("scratch_list", {}, meta=same))["entries"] == []

    run(body)
    with ScratchStore(tmp_path) as store:
        assert store.scope("run-2", "agent-9").scratch_read("plan") == b"their plan"
        assert store.scope("run-1", "agent-1").list_entries() == []


def test_scope_from_the_environment_and_meta(tmp_path):
    params = scratchfs_params("mcp", "--root", str(tmp_path), env={"SCRATCHFS_RUN_ID": "env-run"})
    params.env.pop("SCRATCHFS_AGENT_ID", None)  # (unset: an empty variable is refused)

    async def body():
        async with connect(params, ERAS[0]) as client:
            text = error_of(await client.call_tool("scratch_write", {"key": "k", "value": "v"}))
            assert text.startswith("invalid argument: no agent id")
            payload(await client.call_tool("scratch_write", {"key": "k", "value": "v"},
                                           meta={"scratchfs/agent_id": "a-7"}))

    run(body)
    with ScratchStore(tmp_path) as store:
        assert store.scope("env-run", "a-7").scratch_read("k") == b"v"


def test_mcp_without_the_sdk_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "mcp", None)
    result = CliRunner().invoke(main, ["mcp", "--root", str(tmp_path), "--run", "r", "--agent", "a"])
    assert result.exit_code == 2
    assert result.stderr == ("scratchfs: missing dependency: the MCP faces need the mcp package (2.x): "
                             "pip install 'scratchfs[mcp]' (from a clone: pip install -e '.[mcp]')\n")


def aws_environment() -> dict[str, str]:
    """The standard AWS variables of this process (the s3_env fixture's), which boto3 reads as it always does."""
    import os

    return {name: value for name, value in os.environ.items() if name.startswith("AWS_")}


def test_every_setting_the_server_reads_from_the_environment_is_an_option_too(tmp_path, monkeypatch):
    """An MCP client (the SDK's stdio_client, Claude Desktop) starts the server with a minimal environment: the
    user's exported SCRATCHFS_* are lost. Root, scope and segment size given as options work with none of them."""
    from .mcp_support import client_params

    for name in ("SCRATCHFS_ROOT", "SCRATCHFS_RUN_ID", "SCRATCHFS_AGENT_ID"):  # the user's shell: not passed on
        monkeypatch.setenv(name, str(tmp_path / "elsewhere") if name == "SCRATCHFS_ROOT" else "not-these")
    params = client_params("mcp", "--root", str(tmp_path), "--run", "run-1", "--agent", "agent-1",
                           "--segment-entry-bytes", "0")
    assert not [name for name in params.env if name.startswith("SCRATCHFS_")]

    async def body():
        async with connect(params, ERAS[0]) as client:
            payload(await client.call_tool("scratch_write", {"key": "plan", "value": "step 1"}))

    run(body)
    with ScratchStore(tmp_path) as store:
        assert store.scope("run-1", "agent-1").scratch_read("plan") == b"step 1"
        (entry,) = store.scope("run-1", "agent-1").list_entries()
        assert ":" not in entry.blob  # a blob file of its own (segments off), not a place in a segment file
        assert Path(store.blobs.path("run-1", "agent-1", entry.blob)).is_file()


def test_a_fleet_server_says_on_stderr_its_index_and_blobs_as_the_readme_does(tmp_path, postgres_dsn, pg_schema,
                                                                             s3_env):
    """A fleet server's first stderr line (what a client keeps in its log to tell which store it serves) was the
    store's repr, ``serving ScratchStore(root='...', index='...', blobs='...')``, where the README and a server not
    open yet say ``serving the store with index postgresql://... and blobs s3://...`` -- and it named the root, which
    on a fleet host holds no data (newuser18). Now the same words, no password, no query."""
    import json
    import subprocess
    from urllib.parse import urlsplit, urlunsplit

    from tests.services import postgres_url

    from .mcp_support import client_params

    url = urlsplit(postgres_url(postgres_dsn, pg_schema))
    login = url.netloc.rpartition("@")[0]
    if url.password is None and login:  # (trust auth: a password the server ignores, which the line must not show)
        url = url._replace(netloc=f"{login}:s3cret@{url.netloc.rpartition('@')[2]}")
    index = urlunsplit(url)
    shown = f"postgresql://{url.username + '@' if url.username else ''}{url.netloc.rpartition('@')[2]}{url.path}"
    params = client_params("mcp", "--root", str(tmp_path / "host-a"), "--run", "run-1", "--agent", "agent-1",
                           "--index", index, "--blobs", s3_env, env=aws_environment())
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": ERAS[0], "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    done = subprocess.run([params.command, *params.args], input=json.dumps(initialize).encode() + b"\n",
                          env=params.env, cwd=params.cwd, capture_output=True, timeout=120)
    assert json.loads(done.stdout.splitlines()[0])["id"] == 1, done
    first = done.stderr.decode().splitlines()[0]
    assert first == (f"scratchfs mcp: serving the store with index {shown} and blobs {s3_env}; run 'run-1', "
                     f"agent 'agent-1'"), first


def test_the_fleet_index_and_blobs_are_options_of_the_server(tmp_path, postgres_dsn, pg_schema, s3_env):
    """$SCRATCHFS_INDEX / $SCRATCHFS_BLOBS could only come from the environment, which an MCP client does not pass
    on: --index and --blobs open the fleet store with none of the SCRATCHFS_* variables set."""
    from tests.services import postgres_url

    from .mcp_support import client_params

    index = postgres_url(postgres_dsn, pg_schema)
    params = client_params("mcp", "--root", str(tmp_path / "host-a"), "--run", "run-1", "--agent", "agent-1",
                           "--index", index, "--blobs", s3_env, env=aws_environment())

    async def body():
        async with connect(params, ERAS[1]) as client:
            payload(await client.call_tool("scratch_write", {"key": "plan", "value": "on the fleet"}))

    run(body)
    assert not list((tmp_path / "host-a" / "runs").iterdir())  # the value went to the bucket, its row to PostgreSQL
    assert (tmp_path / "host-a" / "index.sqlite").stat().st_size == 0
    with ScratchStore(tmp_path / "host-b", index=index, blobs=s3_env) as store:
        assert store.scope("run-1", "agent-1").scratch_read("plan") == b"on the fleet"


@pytest.mark.parametrize("face", ["mcp", "mcp-proxy"])
def test_a_server_whose_index_is_down_says_what_it_serves_first_and_the_outage_once(tmp_path, face):
    """Started with its PostgreSQL index out of reach, the server's first stderr line was a warning, ``scratchfs: the
    store cannot be opened yet (<the failure>); serving anyway ...``, and its start-up line, which names the store
    and says the same failure, came second -- where the README says the first line says what it serves, and a
    client's log showed the failure twice (newuser22 stopped PostgreSQL under an MCP client). Now the start-up
    line alone, first."""
    import json
    import subprocess

    from tests.services import free_port

    from .mcp_support import client_params
    from .test_mcp_wire import PLAIN_UPSTREAM

    index = f"postgresql://scratch@127.0.0.1:{free_port()}/platform"  # nothing listens there: refused, an outage
    # (an upstream that answers: one that never did held the proxy for its 60 s --timeout after stdin ended)
    upstream = ["--", *PLAIN_UPSTREAM] if face == "mcp-proxy" else []
    params = client_params(face, "--root", str(tmp_path / "host"), "--run", "run-1", "--agent", "agent-1",
                           "--index", index, "--sweep-interval", "0", *upstream)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": ERAS[0], "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    done = subprocess.run([params.command, *params.args], input=json.dumps(initialize).encode() + b"\n",
                          env=params.env, cwd=params.cwd, capture_output=True, timeout=120)
    told = done.stderr.decode()
    assert told.splitlines()[0].startswith(f"scratchfs {face}: serving the store with index postgresql://scratch@"
                                           f"127.0.0.1:"), told
    assert told.count("Connection refused") == 1 and "not open yet" in told.splitlines()[0], told
