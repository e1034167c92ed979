"""hostile18: ``scratchfs mcp-proxy`` in front of a hostile upstream -- a tool list that never ends, results of many
small blocks, answers of the wrong shape -- each a bounded, typed outcome."""

from __future__ import annotations

import anyio
import mcp_types as types


class _PagedUpstream:
    """An :class:`~scratchfs.mcp.upstream.Upstream` stand-in whose ``tools/list`` pages come from ``page(n, cursor)``;
    ``asked`` counts the pages requested."""

    def __init__(self, page):
        self.page, self.asked = page, 0

    async def request(self, request, result_type, progress=None):
        cursor = request.params.cursor if request.params is not None else None
        self.asked += 1
        return self.page(self.asked, cursor)


def _tools(names):
    return [types.Tool(name=name, input_schema={"type": "object"}) for name in names]


def _listed(store, page, **config):
    from scratchfs.mcp.proxy import Proxy, ProxyConfig

    proxy = Proxy(ProxyConfig("x", **config), store)
    proxy.upstream = upstream = _PagedUpstream(page)
    tools = anyio.run(proxy.upstream_tools)
    return [t.name for t in tools], upstream.asked


def test_a_tool_list_whose_cursor_never_ends_is_read_once_round(scratch_store_factory):
    """An upstream whose every tools/list page names a next cursor (the same one, or the same tools under fresh
    cursors) was asked for 100 pages on each listing, all of them held: 5,000 tools a page took the client's first
    tools/list 80 s (past --timeout) and the proxy to 860 MB. A cursor seen before, or a page that names no tool not
    listed already, ends the listing."""
    store = scratch_store_factory("store")
    names = [f"tool_{i}" for i in range(50)]
    listed, asked = _listed(store, lambda n, cursor: types.ListToolsResult(tools=_tools(names), next_cursor="again"))
    assert (listed, asked) == (names, 2)
    listed, asked = _listed(store, lambda n, cursor: types.ListToolsResult(tools=_tools(names), next_cursor=f"c{n}"))
    assert (listed, asked) == (names, 2)


def test_a_tool_list_of_fresh_names_without_end_stops_at_the_most_tools_offered(scratch_store_factory):
    """Fresh names and fresh cursors on every page: the listing stops once it holds MAX_UPSTREAM_TOOLS tools (the
    first ones, in the upstream's order), however many pages the upstream would give."""
    from scratchfs.mcp.tool_listing import MAX_UPSTREAM_TOOLS

    store = scratch_store_factory("store")
    size = MAX_UPSTREAM_TOOLS // 4 + 7
    listed, asked = _listed(store, lambda n, cursor: types.ListToolsResult(
        tools=_tools(f"t{n}_{i}" for i in range(size)), next_cursor=f"c{n}"))
    assert len(listed) == MAX_UPSTREAM_TOOLS and asked == 4
    assert listed[0] == "t1_0" and listed[-1] == f"t4_{MAX_UPSTREAM_TOOLS - 3 * size - 1}"


def test_a_tool_list_read_slowly_is_offered_as_far_as_it_was_read_at_the_timeout(scratch_store_factory):
    """Each page within --timeout, but a hundred of them are not: the listing as a whole is bounded by --timeout
    (a client's tools/list is a call), and offers the tools read by then."""
    import time

    store = scratch_store_factory("store")

    class Slow(_PagedUpstream):
        async def request(self, request, result_type, progress=None):
            await anyio.sleep(0.3)
            return await super().request(request, result_type, progress)

    from scratchfs.mcp.proxy import Proxy, ProxyConfig

    proxy = Proxy(ProxyConfig("x", timeout=1.0), store)
    proxy.upstream = Slow(lambda n, cursor: types.ListToolsResult(tools=_tools([f"t{n}"]), next_cursor=f"c{n}"))
    started = time.monotonic()
    listed = [t.name for t in anyio.run(proxy.upstream_tools)]
    took = time.monotonic() - started
    assert listed == ["t1", "t2", "t3"] and took < 1.5, (listed, took)


def test_a_tool_list_cut_short_by_the_upstream_is_read_again_on_the_next_listing(scratch_store_factory):
    """An upstream that became unavailable after its first page (or a listing past --timeout) gives the tools read
    by then, but that list is not kept: the next tools/list reads the upstream again, and gets every page. (Kept, a
    listing cut short by a restart hid the tools of the later pages until the upstream said its list changed.)"""
    from scratchfs.foundation.errors import UpstreamUnavailable
    from scratchfs.mcp.proxy import Proxy, ProxyConfig

    store = scratch_store_factory("store")
    pages = {None: (["a"], "c2"), "c2": (["b"], None)}

    def page(n, cursor):
        if n == 2:  # (the first listing's second page: the upstream went away)
            raise UpstreamUnavailable("x: exited")
        names, following = pages[cursor]
        return types.ListToolsResult(tools=_tools(names), next_cursor=following)

    proxy = Proxy(ProxyConfig("x"), store)
    proxy.upstream = upstream = _PagedUpstream(page)
    assert [t.name for t in anyio.run(proxy.upstream_tools)] == ["a"]
    assert [t.name for t in anyio.run(proxy.upstream_tools)] == ["a", "b"]
    assert upstream.asked == 4
    assert [t.name for t in anyio.run(proxy.upstream_tools)] == ["a", "b"] and upstream.asked == 4  # (whole: kept)


def _stub(out) -> dict:
    import json

    assert not out.is_error and len(out.content) == 1 and out.structured_content is None, out
    return json.loads(out.content[0].text)


def test_a_result_of_many_small_text_blocks_is_judged_by_the_blocks_the_model_receives(scratch_scope):
    """4,000 empty text blocks are 104 KB of JSON to the client (``{"type":"text","text":""}`` each), but were judged
    as their joined text, 3,999 newlines, 7,998 bytes: under the threshold, passed through whole. Each block past
    the first costs its wrapper beside the newline that joins it (24 bytes more), counted toward the threshold; what
    is stored is still the joined text."""
    from scratchfs.mcp.proxy import ProxyConfig, spill_result

    def result(texts):
        return types.CallToolResult(content=[types.TextContent(text=text) for text in texts])

    config = ProxyConfig(command="x")
    empty = result([""] * 4000)
    assert len(empty.model_dump_json(by_alias=True, exclude_none=True)) > 100_000
    stub = _stub(spill_result(scratch_scope, config, "t", empty))
    assert scratch_scope.read_range(stub["handle"], 0, 65536).data == b"\n" * 3999
    # at the threshold: two blocks whose content array is 25 bytes (one block's wrapper) and 1 comma over 8,192
    for tail, spilled in [(4167, True), (4166, False)]:
        two = result(["x" * 4000, "y" * tail])
        blocks = ",".join(block.model_dump_json(by_alias=True, exclude_none=True) for block in two.content)
        assert (len(blocks) - len('{"type":"text","text":""}') > 8192) is spilled
        out = spill_result(scratch_scope, config, "t", two)
        assert (out is not two) is spilled
        if spilled:
            handle = _stub(out)["handle"]
            assert scratch_scope.read_range(handle, 0, 65536).data == b"x" * 4000 + b"\n" + b"y" * tail
    # the rest of the policy still holds: an effect's blocks, or a never-spilled tool's, pass whole
    assert spill_result(scratch_scope, ProxyConfig(command="x", default_class="effect"), "t", empty) is empty
    assert spill_result(scratch_scope, config, "scratch_read", empty) is empty


def _raw_proxy(tmp_path, source):
    import sys

    from .mcp_support import scratchfs_params

    upstream = tmp_path / "upstream.py"
    upstream.write_text(source)
    return scratchfs_params("mcp-proxy", "--root", str(tmp_path / "store"), "--run", "r", "--agent", "a", "--timeout",
                            "20", "--", sys.executable, str(upstream))


_SHAPES = '''
if name == "weird_block":
    result = {"content": [{"type": "weird", "text": "w"}]}
elif name == "no_content":
    result = {"tools": []}
else:
    result = {"content": [{"type": "text", "text": "called " + name}]}
'''


def test_an_answer_of_the_wrong_shape_is_said_in_one_line_naming_what_is_wrong(tmp_path):
    """A tools/call answer that is no CallToolResult (a block of a type MCP has none of, no content) failed its
    call 'malformed answer: 12 errors': a count of pydantic's errors, not what was wrong nor what to do. It names
    the first fault's place and says the upstream's other calls still answer; the next call is answered."""
    from .mcp_support import ERAS, connect, error_of, raw_upstream, run

    source = raw_upstream("shapes", [{"name": "weird_block", "inputSchema": {"type": "object"}}], _SHAPES)

    async def body():
        async with connect(_raw_proxy(tmp_path, source), ERAS[0]) as client:
            weird = error_of(await client.call_tool("weird_block", {}))
            empty = error_of(await client.call_tool("no_content", {}))
            assert (await client.call_tool("other", {})).content[0].text == "called other"
            return weird, empty

    weird, empty = run(body)
    tail = ": the upstream's own fault; its other calls still answer"
    assert weird.endswith("malformed answer: its result is no CallToolResult: content[0] is of no type it may "
                          "have (12 faults)" + tail), weird
    assert empty.endswith("malformed answer: its result is no CallToolResult: content: Field required" + tail), empty
    assert "\n" not in weird + empty and "pydantic" not in weird + empty


def test_an_answer_to_initialize_of_the_wrong_shape_is_said_in_one_line(tmp_path):
    """An upstream whose answer to initialize had no capabilities (or a protocolVersion that is no string) was
    reported as pydantic's dump -- several lines, the input echoed, a link to pydantic's site -- in every call's
    error. It is one line naming what is wrong and asking whether the server speaks MCP on stdio."""
    from .mcp_support import ERAS, connect, error_of, raw_upstream, run

    source = raw_upstream("shapes", [], _SHAPES).replace('"capabilities": {"tools": {}},', "")

    async def body():
        async with connect(_raw_proxy(tmp_path, source), ERAS[1]) as client:
            return error_of(await client.call_tool("anything", {}))

    text = run(body)
    assert "its answer to initialize is no InitializeResult: capabilities: Field required (is it an MCP server on " \
           "stdio?); the proxy does not start it again" in text, text
    assert "\n" not in text and "pydantic" not in text


def test_the_upstreams_requests_beyond_twenty_a_second_are_dropped_unread(caplog):
    """An upstream flooding the proxy with requests -- ping, which the SDK answers, or sampling, roots, elicitation,
    which it refuses -- had each read, dispatched and answered by the SDK: 100,000 pings before a call's answer
    delayed it by 43.7 s (load 5.7; --timeout is 60). At most one request each 50 ms is left to the SDK; the others
    are dropped unread (said once on stderr), answers and notifications untouched."""
    import json

    from scratchfs.mcp.notice_gate import NoticeGate

    now = [100.0]
    gate = NoticeGate(clock=lambda: now[0])

    def request(rid, method="ping"):
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method}).encode()

    assert not gate.drops(request(1))
    assert gate.drops(request(2)) and gate.drops(request("s", "sampling/createMessage"))
    now[0] += 0.06
    assert not gate.drops(request("r", "roots/list"))
    assert gate.drops(request(3))
    assert not gate.drops(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}')
    now[0] += 0.06
    assert not gate.drops(request(4))
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "requests faster than 20 a second" in said[0], said
