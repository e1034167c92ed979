"""The agent-loop adapter attacked as a hostile host would (hostile21): callables that are no plain functions, an
event loop whose worker threads are gone, results of text a spill could not write."""

from __future__ import annotations

import asyncio
import functools
import json
import logging

import pytest

from scratchfs import InvalidArgument
from scratchfs.adapter import Offloader


async def _page(n: int) -> str:
    return "x" * n


class _AsyncTool:
    """A tool object whose ``__call__`` is ``async def`` (``inspect.iscoroutinefunction`` says False for it)."""

    async def __call__(self, n: int) -> str:
        return "x" * n


def _later(n: int):
    """A plain function that returns a coroutine (as a lambda or a decorator without ``functools.wraps`` does)."""
    return _page(n)


class _SyncTool:
    def __call__(self, n: int) -> str:
        return "x" * n


@pytest.mark.parametrize("make", [_AsyncTool, lambda: _later], ids=["async-call-object", "def-returning-a-coroutine"])
def test_a_tool_whose_call_gives_an_awaitable_has_its_awaited_result_spilled(scratch_scope, make):
    # the wrapper saw a coroutine (no str, no dict) and passed it through: the loop awaited it and got the whole
    # 9,000-byte page, never spilled, and no line said why
    tool = Offloader(scratch_scope).wrap(make(), name="fetch", result_class="browser")
    out = asyncio.run(tool(9000))
    assert json.loads(out)["size"] == 9000
    obs = asyncio.run(tool.observe(9000))
    assert obs.stub is not None and obs.stub.size == 9000
    assert asyncio.run(tool(10)) == "x" * 10


@pytest.mark.parametrize("make", [_SyncTool, lambda: functools.partial(_page), lambda: functools.partial(len)],
                         ids=["call-object", "partial-async", "partial-sync"])
def test_a_tool_with_no_name_of_its_own_is_one_typed_error_naming_what_to_give(scratch_scope, make):
    # it was an AttributeError ("'functools.partial' object has no attribute '__name__'") with its traceback
    offloader = Offloader(scratch_scope)
    with pytest.raises(InvalidArgument, match=r"has no __name__: give the tool's name, wrap\(func, name="):
        offloader.wrap(make())
    with pytest.raises(InvalidArgument, match="has no __name__"):
        offloader.tool(result_class="query")(make())
    assert offloader.wrap(make(), name="named", result_class="query").tool_name == "named"


def test_a_tool_that_is_not_callable_is_one_typed_error(scratch_scope):
    with pytest.raises(InvalidArgument, match="a tool must be callable, not str"):
        Offloader(scratch_scope).wrap("fetch_page", name="fetch_page")


def test_an_async_tool_whose_loop_cannot_run_threads_still_spills_and_never_raises_what_it_did_not(scratch_scope):
    # asyncio.to_thread raised RuntimeError('Executor shutdown has been called'): the tool had run, its result lost
    tool = Offloader(scratch_scope).wrap(_page, name="fetch", result_class="browser")

    async def main() -> tuple[str, str]:
        await asyncio.get_running_loop().shutdown_default_executor()
        return await tool(9000), await tool(10)

    big, small = asyncio.run(main())
    assert json.loads(big)["size"] == 9000 and small == "x" * 10


LONE = "\udc80\udcff"  # two bytes that are no UTF-8, as os.fsdecode and errors="surrogateescape" keep them


@pytest.mark.parametrize("text", [LONE * 4500, "a\ud800b" * 3000, "ok " * 3000 + "\udcc3"])
def test_text_holding_lone_surrogates_over_the_threshold_is_spilled_not_passed_whole(scratch_scope, caplog, text):
    # a tool decoding a listing or a command's output with errors="surrogateescape" returned text the spill refused
    # ("content is not valid UTF-8 text"): all of it, 27 KB or more of JSON, went into the context
    offloader = Offloader(scratch_scope, default_class="query")
    with caplog.at_level(logging.WARNING):
        obs = offloader.offload("ls", text)
    assert obs.stub is not None, caplog.text
    assert not caplog.records
    data = scratch_scope.read_range(obs.stub.handle, 0, 64).data
    if text.startswith(LONE):  # each escaped byte is stored as the byte it stands for
        assert data[:4] == b"\x80\xff\x80\xff"
    elif text.startswith("a"):  # a surrogate that stands for no byte is stored as U+FFFD, as a view shows it
        assert data[:5] == "a\ufffdb".encode()


@pytest.mark.parametrize("content", [{"name": LONE * 4500}, [LONE] * 3000, {LONE: "x" * 9000}])
def test_a_structure_holding_lone_surrogates_is_spilled_as_json_that_reads_back_to_it(scratch_scope, caplog, content):
    # JSON writes a lone surrogate as its escape, \udc80: the text is spilled so, and parses back to the same value
    obs = Offloader(scratch_scope, default_class="query").offload("ls", content)
    assert obs.stub is not None, caplog.text
    stored = scratch_scope.read_range(obs.stub.handle, 0, obs.stub.size).data
    assert json.loads(stored) == content
    assert b"\\udc80\\udcff" in stored


@pytest.mark.parametrize("content", [LONE * 100, {"k": LONE * 100}, [LONE]])
def test_small_results_holding_lone_surrogates_pass_as_they_came(scratch_scope, content):
    obs = Offloader(scratch_scope, default_class="query").offload("ls", content)
    assert obs.stub is None and obs.content is content
