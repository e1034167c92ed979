"""The README's MCP client configurations are what a client takes (``{"mcpServers": {NAME: {command, args, env?}}}``,
JSON), their ``args`` parse as the ``scratchfs`` command line's, and the ``mcp-proxy`` one beside the ``scratchfs mcp``
one serves the same scope, so that either reads the handles the other gives (a new user's configuration of both
put the proxy's spills under agent ``default``, which the ``agent-1`` server answered ``not found``)."""

from __future__ import annotations

import json
import re

import click

from scratchfs.cli.app import main
from scratchfs.cli.servers import mcp_command, mcp_proxy_command

from .conftest import FIXTURES

_SCOPE = ("--root", "--run", "--agent")


def configurations() -> list[dict]:
    """Each ```json block of the README's ``## MCP`` section, parsed."""
    text = (FIXTURES.parent / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## MCP\n")
    section = text[start : text.index("\n## ", start + 1)]
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", section, flags=re.S)]


def scope_of(args: list[str]) -> dict[str, str]:
    """The scope options of a server's ``args`` (before a proxy's ``--``)."""
    own = args[: args.index("--")] if "--" in args else args
    return {name: own[own.index(name) + 1] for name in _SCOPE if name in own}


def test_each_configuration_is_a_clients_and_its_args_parse():
    servers = [server for config in configurations() for server in config["mcpServers"].values()]
    assert len(servers) >= 3
    commands = {"mcp": mcp_command, "mcp-proxy": mcp_proxy_command}
    for server in servers:
        assert set(server) <= {"command", "args", "env"} and server["command"].startswith("/")
        assert all(isinstance(arg, str) for arg in server["args"])
        assert all(isinstance(value, str) for value in server.get("env", {}).values())
        name, *rest = server["args"]
        with click.Context(main) as parent:
            context = commands[name].make_context(name, list(rest), parent=parent)
        assert context.params["root"] == scope_of(server["args"])["--root"]


def test_the_proxy_beside_the_server_serves_the_same_scope():
    servers = [server for config in configurations() for server in config["mcpServers"].values()]
    plain = next(server for server in servers if server["args"][0] == "mcp")
    proxy = next(server for server in servers if server["args"][0] == "mcp-proxy")
    assert scope_of(proxy["args"]) == scope_of(plain["args"]) and len(scope_of(plain["args"])) == 3
