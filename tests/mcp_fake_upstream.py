"""A small MCP server (mcp 2.x, stdio) for the proxy's tests: one tool per kind of result the proxy must handle.

Run as a script: ``python tests/mcp_fake_upstream.py``. :func:`big_text` is imported by the tests to know the exact
text a tool returned.
"""

from __future__ import annotations

import json
import os
import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

_LINE = "line {i:05d}: héllo wörld ✓ 日本語 — naïve café\n"


def big_text(size: int, salt: str = "") -> str:
    """Text of at most ``size`` UTF-8 bytes (whole characters), with multi-byte characters on every line."""
    parts, total, i = [], 0, 0
    while total < size:
        line = salt + _LINE.format(i=i)
        parts.append(line)
        total += len(line.encode())
        i += 1
    data = "".join(parts).encode()[:size]
    return data.decode("utf-8", "ignore")


_SCHEMA = {"type": "object", "properties": {"size": {"type": "integer"}, "seconds": {"type": "number"}}}
_TOOLS = ["big", "big_effect", "two_blocks", "structured", "mirrored", "mirrored_list", "failing", "image", "annotated",
          "with_meta", "echo_meta", "add_tool", "crash", "sleep", "progress", "json_error"]
_extra_tools: list[str] = []


def _text(text: str, **kwargs) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], **kwargs)


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(name=name, description=f"fake {name}", input_schema=_SCHEMA)
                                        for name in _TOOLS + _extra_tools])


async def call_tool(ctx, params) -> types.CallToolResult:
    args = params.arguments or {}
    size = int(args.get("size", 20_000))
    name = params.name
    if name in ("big", "big_effect"):
        return _text(big_text(size))
    if name == "two_blocks":
        return types.CallToolResult(content=[types.TextContent(text=big_text(size, "a")),
                                             types.TextContent(text=big_text(size, "b"))])
    if name == "structured":
        return _text(big_text(size), structured_content={"rows": size})
    if name == "mirrored":  # what the SDK's MCPServer returns for a tool that returns a str
        return _text(big_text(size), structured_content={"result": big_text(size)})
    if name == "mirrored_list":  # what the SDK's MCPServer returns for a tool that returns a list[str]
        items = [f"item {i}: {big_text(60)}" for i in range(size // 80)]
        return types.CallToolResult(content=[types.TextContent(text=item) for item in items],
                                    structured_content={"result": items})
    if name == "failing":
        return _text(big_text(size), is_error=True)
    if name == "image":
        return types.CallToolResult(content=[types.ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
                                             types.TextContent(text=big_text(size))])
    if name == "annotated":
        return types.CallToolResult(content=[types.TextContent(text=big_text(size),
                                                               annotations=types.Annotations(priority=0.5))])
    if name == "with_meta":
        return _text(big_text(size), _meta={"example.org/receipt": "r-1"})
    if name == "echo_meta":
        return _text(json.dumps(dict(ctx.meta or {}), sort_keys=True))
    if name == "add_tool":
        _extra_tools.append(f"extra_{len(_extra_tools) + 1}")
        await ctx.session.send_tool_list_changed()
        return _text("added")
    if name == "crash":
        sys.stderr.flush()
        os._exit(3)
    if name == "sleep":
        await anyio.sleep(float(args.get("seconds", 30)))
        return _text("slept")
    if name == "progress":
        await ctx.session.report_progress(1, 2, "half way")
        await ctx.session.report_progress(2, 2, "done")
        return _text("finished")
    if name == "json_error":
        raise MCPError(code=types.INVALID_PARAMS, message="fake upstream rejects this")
    raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")


async def list_resources(ctx, params) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[types.Resource(uri="fake://readme", name="readme",
                                                               mime_type="text/plain")])


async def read_resource(ctx, params) -> types.ReadResourceResult:
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, text=big_text(30_000),
                                                                         mime_type="text/plain")])


async def list_prompts(ctx, params) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[types.Prompt(name="greet", description="say hello")])


async def get_prompt(ctx, params) -> types.GetPromptResult:
    return types.GetPromptResult(messages=[types.PromptMessage(role="user",
                                                               content=types.TextContent(text="hello, proxy"))])


server = Server("fake-upstream", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool,
                on_list_resources=list_resources, on_read_resource=read_resource, on_list_prompts=list_prompts,
                on_get_prompt=get_prompt)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream,
                         server.create_initialization_options(NotificationOptions(tools_changed=True)))


if __name__ == "__main__":
    anyio.run(main)
