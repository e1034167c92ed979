"""One model-facing JSON contract: the CLI's ``--json`` output of ``read-handle`` (range, lines, match, pattern) and
``scratch-read`` is byte for byte the text an MCP client receives for the same call, on text, invalid UTF-8 and
binary content."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main
from scratchfs.mcp.server import ScopeResolver, run_scratch_tool

TEXT = ("naïve café — ünïcödé\n" * 400).encode()
INVALID = b"ok line\n" * 200 + b"\xff\xfe broken \xc3 bytes\n" + b"tail line \xe2\x82\n" * 300
BINARY = bytes(range(256)) * 64

CALLS = [
    ("read_handle", {"offset": 0, "length": 100}),
    ("read_handle", {"offset": 7, "length": 333}),
    ("read_handle", {"line": 3, "lines": 7}),
    ("read_handle", {"match": "line", "context": 20, "max_matches": 5}),
    ("read_handle", {"pattern": "b[a-z]+", "ignore_case": True, "context": 10}),
    ("read_handle", {"match": "x", "context": 0}),
]
OPTION = {"offset": "--offset", "length": "--length", "line": "--line", "lines": "--lines", "match": "--match",
          "pattern": "--pattern", "context": "--context", "max_matches": "--max-matches"}


def _cli(root, *args: str) -> str:
    result = CliRunner().invoke(main, ["--help"] if not args else [*args, "--root", str(root), "--run", "r",
                                                                    "--agent", "a"])
    assert result.exit_code == 0, result.output
    return result.stdout.rstrip("\n")


def _mcp(store: ScratchStore, name: str, arguments: dict) -> str:
    result = run_scratch_tool(ScopeResolver(store, "r", "a"), name, arguments, None)
    assert not result.is_error, result.content[0].text
    return result.content[0].text


@pytest.mark.parametrize("content", [TEXT, INVALID, BINARY], ids=["text", "invalid-utf8", "binary"])
def test_cli_json_is_the_mcp_json_byte_for_byte(tmp_path, content):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(content, source_tool="t").handle
        scope.scratch_write("k", content)
        compared = 0
        for name, arguments in CALLS:
            args = ["read-handle", handle, "--json"]
            for key, value in arguments.items():
                args += ["--ignore-case"] if key == "ignore_case" else [OPTION[key], str(value)]
            expected = _mcp(store, name, {"handle": handle, **arguments})
            assert _cli(tmp_path, *args) == expected
            compared += 1
        for arguments in ({}, {"offset": 5, "length": 70}):
            args = ["scratch-read", "k", "--json"]
            for key, value in arguments.items():
                args += [OPTION[key], str(value)]
            assert _cli(tmp_path, *args) == _mcp(store, "scratch_read", {"key": "k", **arguments})
            compared += 1
    assert compared == len(CALLS) + 2


def test_the_cli_and_mcp_refuse_the_same_arguments(tmp_path):
    with ScratchStore(tmp_path) as store:
        handle = store.scope("r", "a").spill(TEXT, source_tool="t").handle
    result = CliRunner().invoke(main, ["read-handle", handle, "--json", "--length", "100000", "--root", str(tmp_path),
                                       "--run", "r", "--agent", "a"])
    assert result.exit_code == 2
    assert "length" in result.stderr and "65536" in result.stderr


def test_every_face_refuses_a_tool_name_or_arguments_of_any_type_with_one_typed_error(tmp_path, caplog):
    """The MCP server's tool runner, like the adapter, gets an invalid-argument tool error for a name that is not
    text or arguments nested past reason, not a TypeError or RecursionError logged as a bug (atka, fault 3)."""
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    with ScratchStore(tmp_path) as store:
        resolver = ScopeResolver(store, "r", "a")
        for name, arguments, says in (([], {}, "a tool name must be text, not list"),
                                      ({"read_handle": 1}, {}, "a tool name must be text, not dict"),
                                      ("read_handle", {"handle": deep}, "handle: nested more than 8 levels deep"),
                                      ("read_handle", {"handle": "h", "offset": 10**5000}, "of 16610 bits")):
            result = run_scratch_tool(resolver, name, arguments, None)
            assert result.is_error and result.content[0].text.startswith("invalid argument: "), result.content[0]
            assert says in result.content[0].text
    assert not [r for r in caplog.records if r.levelname == "ERROR"]  # none was taken for a bug
