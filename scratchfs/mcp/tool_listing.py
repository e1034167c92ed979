"""The upstream's tool list as ``scratchfs mcp-proxy`` reads it (:meth:`scratchfs.mcp.proxy.Proxy.upstream_tools`):
every page, bounded against an upstream that lists without end.

An upstream whose every ``tools/list`` page named a next cursor -- the same one, or the same tools under fresh ones
-- was asked for 100 pages on each listing, all of them held: 5,000 tools a page took the client's first
``tools/list`` 80 s (past ``--timeout``) and the proxy to 860 MB. The listing now ends at a cursor seen before, at a
page naming no tool not listed already, after :data:`MAX_TOOL_PAGES` pages, at :data:`MAX_UPSTREAM_TOOLS` tools, or
at ``--timeout`` as a whole (a client's ``tools/list`` is a call), offering the tools read by then; each is logged.
A listing the upstream cut short -- it became unavailable, or ``--timeout`` passed -- is not :attr:`ToolList.whole`:
its caller offers it without keeping it, so the next listing reads every page again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Set
from typing import Any, NamedTuple

from scratchfs.foundation.errors import UpstreamUnavailable

log = logging.getLogger("scratchfs.mcp.proxy")

MAX_TOOL_PAGES = 100
"""Most ``tools/list`` pages read from the upstream server."""
MAX_UPSTREAM_TOOLS = 10_000
"""Most upstream tools offered (the first listed)."""


class ToolList(NamedTuple):
    """What :func:`read_tools` read: ``tools``, the upstream's tools offered; ``whole``, False when the upstream cut
    the listing short (it became unavailable, or ``--timeout`` passed), so that it is worth reading again."""

    tools: list[Any]
    whole: bool


async def read_tools(request: Callable[[Any, Any], Awaitable[Any]], own: Set[str], timeout: float) -> ToolList | None:
    """The upstream's tools, every page of its ``tools/list`` read with ``request`` (``Upstream.request``), within
    ``timeout`` seconds in all: a name listed twice is offered once (the first; MCP's names are unique), a name in
    ``own`` (the proxy's own tools) is hidden, and the listing ends early as the module docstring says (logged):
    a :class:`ToolList`. ``None`` when no page could be read (the upstream is unavailable, or slower than
    ``timeout``). Never raises :class:`UpstreamUnavailable` (the upstream's own JSON-RPC error, an ``MCPError``,
    does)."""
    import anyio
    import mcp_types as types

    unique: dict[str, Any] = {}
    shadowed: set[str] = set()
    listed = pages = 0
    cursor: str | None = None
    cursors: set[str] = set()
    ended, whole = None, True
    with anyio.move_on_after(timeout) as deadline:
        try:
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await request(types.ListToolsRequest(params=params), types.ListToolsResult)
                pages += 1
                before = len(unique) + len(shadowed)
                for tool in page.tools:
                    listed += 1
                    if tool.name in own:
                        shadowed.add(tool.name)
                    elif len(unique) < MAX_UPSTREAM_TOOLS:
                        unique.setdefault(tool.name, tool)
                cursor = page.next_cursor
                if not cursor:
                    break
                ended = _why_stop(cursor, cursors, len(unique), len(unique) + len(shadowed) == before, pages)
                if ended:
                    break
                cursors.add(cursor)
        except UpstreamUnavailable:
            ended, whole = "the upstream became unavailable", False
    if not pages:
        return None
    if deadline.cancelled_caught:
        ended, whole = f"--timeout ({timeout:g} s) passed", False
    if ended:
        log.warning("scratchfs mcp-proxy: stopped reading the upstream's tool list after %d pages: %s; offered the "
                    "%s tools read", pages, ended, f"{len(unique):,}")
    if shadowed:
        log.warning("scratchfs mcp-proxy: upstream tools %s are hidden by the proxy's own", sorted(shadowed))
    repeated = listed - len(unique) - len(shadowed)
    if repeated > 0 and len(unique) < MAX_UPSTREAM_TOOLS:
        log.warning("scratchfs mcp-proxy: the upstream listed %d tools under names it had listed already; offered "
                    "the first of each", repeated)
    return ToolList(list(unique.values()), whole)


def _why_stop(cursor: str, cursors: set[str], held: int, nothing_new: bool, pages: int) -> str | None:
    """Why a listing with a next ``cursor`` ends here (``None``: it goes on)."""
    if held >= MAX_UPSTREAM_TOOLS:
        return f"it holds the most tools offered, {MAX_UPSTREAM_TOOLS:,}"
    if cursor in cursors:
        return "its next cursor was one it had given already"
    if nothing_new:
        return "its last page named no tool it had not listed already"
    if pages >= MAX_TOOL_PAGES:
        return f"it ran to {MAX_TOOL_PAGES} pages"
    return None


__all__ = ["MAX_TOOL_PAGES", "MAX_UPSTREAM_TOOLS", "ToolList", "read_tools"]
