"""End to end with real MCP servers: the proxy in front of ``mcp-server-git`` (over a repository these tests build,
with 300 commits) and of ``mcp-server-sqlite`` (mcp 1.x, from its own virtual environment, over a database of the CSV
fixture), driven by the official client over stdio. The spilled results are read back by range and by match and
compared byte for byte with what the server returns without the proxy. Each real server runs under one client era
(:func:`~tests.mcp_support.one_era`, the two taken in turn): what these test lies between the proxy and its upstream
(the proxy's own handshake with it, the spill, the reads back), the same under either era, and the client's side of
each era is test_mcp_proxy.py's (a large result spilled and read back by range and match, in both); under both eras
they cost a proxy and a real server started, and their results read back, twice."""

from __future__ import annotations

import json
import sys

import pytest
from mcp import StdioServerParameters

from scratchfs.api.contract import window_hits

from .mcp_support import (
    ERAS,
    connect,
    find_all,
    match_offsets,
    one_era,
    payload,
    read_all,
    run,
    scratchfs_params,
    search_all,
    window_is_exact,
)
from .mcp_upstreams import build_git_repo, build_packages_db, sqlite_answer, sqlite_server_venv

GIT_SERVER = [sys.executable, "-m", "mcp_server_git"]
DIFF_TARGET = "HEAD~250"


def stub_of(result) -> dict:
    assert not result.is_error
    (block,) = result.content
    stub = json.loads(block.text)
    assert set(stub) == {"handle", "preview", "size", "lines", "content_type", "shape", "note"}
    return stub


@pytest.fixture(scope="session")
def git_repo(tmp_path_factory):
    """The repository, its commit ids, and git_log / git_diff / git_status as mcp-server-git answers them directly."""
    repo = tmp_path_factory.mktemp("git") / "repo"
    commits = build_git_repo(repo)
    server = StdioServerParameters(command=GIT_SERVER[0], args=[*GIT_SERVER[1:], "--repository", str(repo)])

    async def direct():
        async with connect(server, ERAS[0]) as client:
            answers = {}
            for name, args in (("git_log", {"max_count": 300}), ("git_diff", {"target": DIFF_TARGET}),
                               ("git_status", {})):
                result = await client.call_tool(name, {"repo_path": str(repo), **args})
                (block,) = result.content
                answers[name] = block.text.encode()
            return answers

    return repo, commits, run(direct)


@pytest.mark.parametrize("era", one_era(0))
def test_git_log_and_diff_are_spilled_and_read_back_byte_exact(era, git_repo, tmp_path):
    repo, commits, direct = git_repo
    log, diff = direct["git_log"], direct["git_diff"]
    assert all(sha.encode() in log for sha in commits)  # the direct answer is the whole history
    assert len(log) > 40_000 and len(diff) > 300_000  # larger than a frame (256 KiB): reads cross frames
    params = scratchfs_params("mcp-proxy", "--root", str(tmp_path), "--run", "git-run", "--agent", "a",
                              "--", *GIT_SERVER, "--repository", str(repo))

    async def body():
        async with connect(params, era) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"git_log", "git_diff", "git_status", "read_handle", "scratch_write"} <= names

            stub = stub_of(await client.call_tool("git_log", {"repo_path": str(repo), "max_count": 300}))
            assert stub["size"] == len(log)
            assert await read_all(client, stub["handle"], length=7000) == log
            needle = "naïve café"
            windows = await search_all(client, stub["handle"], needle, context=80)
            assert match_offsets(windows) == find_all(log, needle.encode())
            assert len(match_offsets(windows)) == 300
            assert all(window_is_exact(w, log) for w in windows)
            assert {m["line"] for w in windows for m in window_hits(w)} == {
                log[:i].count(b"\n") + 1 for i in find_all(log, needle.encode())}

            stub = stub_of(await client.call_tool("git_diff", {"repo_path": str(repo), "target": DIFF_TARGET}))
            assert stub["size"] == len(diff)
            assert await read_all(client, stub["handle"]) == diff
            windows = await search_all(client, stub["handle"], "diff --git", context=200)
            assert match_offsets(windows) == find_all(diff, b"diff --git")
            assert all(window_is_exact(w, diff) for w in windows)
            # a range that starts in the middle of the second frame
            middle = payload(await client.call_tool("read_handle", {"handle": stub["handle"], "offset": 300_000,
                                                                    "length": 5000}))
            assert middle["data"].encode() == diff[middle["offset"] : middle["offset"] + middle["length"]]

            status = await client.call_tool("git_status", {"repo_path": str(repo)})  # small: passes through
            assert [b.text.encode() for b in status.content] == [direct["git_status"]]

    run(body)


@pytest.fixture(scope="session")
def sqlite_server(tmp_path_factory):
    """mcp-server-sqlite's command line (from its own venv) over a database of the CSV fixture, and the db path."""
    venv = sqlite_server_venv()
    db = tmp_path_factory.mktemp("sqlite") / "packages.db"
    assert build_packages_db(db) == 4486
    return [str(venv / "bin" / "mcp-server-sqlite"), "--db-path", str(db)], db


@pytest.mark.parametrize("era", one_era(1))
def test_sqlite_query_result_is_spilled_and_searched(era, sqlite_server, tmp_path):
    command, db = sqlite_server
    query = "SELECT name, version, month, summary FROM packages ORDER BY month DESC, name"
    expected = sqlite_answer(db, query).encode()
    assert len(expected) > 500_000
    params = scratchfs_params("mcp-proxy", "--root", str(tmp_path), "--class", "read_query=query",
                              "--class", "write_query=effect", "--", *command)

    async def body():
        async with connect(params, era) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"read_query", "list_tables", "describe_table", "read_handle"} <= names

            stub = stub_of(await client.call_tool("read_query", {"query": query}))
            assert stub["size"] == len(expected) and expected.startswith(stub["preview"].encode())
            assert await read_all(client, stub["handle"]) == expected
            for needle in ("'name': 'aiohasupervisor'", "Home Assistant"):
                windows = await search_all(client, stub["handle"], needle, context=120)
                assert match_offsets(windows) == find_all(expected, needle.encode())
                assert windows, needle
                assert all(window_is_exact(w, expected) for w in windows)

            small = await client.call_tool("read_query", {"query": "SELECT count(*) AS n FROM packages"})
            assert [b.text for b in small.content] == ["[{'n': 4486}]"]

    run(body)
