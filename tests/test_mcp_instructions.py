"""The instructions ``scratchfs mcp`` gives a client at the start named the five tools but not
``scratch_list(spilled=true)``: a model whose context was cut, losing a handle, did not learn that it can list its
handles again (leftovers7). They name that call now, in 47 more bytes (326 -> 373), and the call as written works."""

from __future__ import annotations

import pytest

from scratchfs import ScratchStore

from .mcp_support import ERAS, connect, payload, run, scratchfs_params

INSTRUCTIONS_BOUND = 400
"""Most bytes of the instructions (UTF-8): sent to the model once per session, beside the tool definitions."""


@pytest.mark.parametrize("era", ERAS)
def test_the_instructions_name_the_listing_of_handles_and_it_lists_them(era, tmp_path, fixture_data):
    with ScratchStore(tmp_path) as store:
        handle = store.scope("run-1", "agent-1").spill(fixture_data["browser-rust-book.html"],
                                                       source_tool="browser.get").handle

    async def body():
        async with connect(scratchfs_params("mcp", "--root", str(tmp_path), "--run", "run-1", "--agent", "agent-1"),
                           era) as client:
            said = client.instructions
            assert "scratch_list(spilled=true)" in said, said
            assert len(said.encode()) <= INSTRUCTIONS_BOUND, len(said.encode())
            reply = payload(await client.call_tool("scratch_list", {"spilled": True}))
            assert [row["handle"] for row in reply["entries"]] == [handle]
            assert reply["entries"][0]["tool"] == "browser.get"

    run(body)
