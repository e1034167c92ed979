"""Spill policy: should_spill's conservative decision and offload's never-fail contract."""

from __future__ import annotations

import json
import logging
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import NEVER_SPILL_TOOLS, Observation, ScratchStore, should_spill
from scratchfs.adapter import Offloader
from scratchfs.api.policy import is_never_spilled, tool_basename
from scratchfs.api.settings import Settings
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import MAX_STUB_BYTES
from scratchfs.foundation.text import utf8_prefix

BIG = "x" * 9000


@pytest.mark.parametrize("result_class", ["query", "workspace", "browser"])
def test_large_results_of_flooding_classes_spill(result_class):
    assert should_spill(Observation("some.tool", BIG, result_class))
    assert should_spill(Observation("some.tool", BIG.encode(), result_class))


@pytest.mark.parametrize("obs", [
    Observation("t", "x" * 8192, "query"),  # at the threshold: not larger
    Observation("t", BIG, "effect"),
    Observation("t", BIG, None),
    Observation("t", BIG, "mystery"),
    Observation("t", BIG, "query", artifact_id="a1"),
    Observation("t", BIG, "query", mutation_complete=True),
    Observation("t", BIG, "query", mutation_complete=False),
    Observation("t", BIG, "query", metadata={"k": "v"}),
    Observation("t", BIG, "query", memory_entry_id="m1"),
    Observation("t", BIG, "query", persisted=True),
    Observation("read_handle", BIG, "query"),
    Observation("scratchfs.scratch_read", BIG, "query"),
    Observation("mcp__scratchfs__read_handle", BIG, "query"),
    Observation("report_progress", BIG, "workspace"),
    Observation("tool_search", BIG, "query"),
    Observation("memory_recall_v2", BIG, "query"),
    Observation("t", {"not": "text"}, "query"),  # type: ignore[arg-type]
])
def test_conservative_cases_never_spill(obs):
    assert not should_spill(obs)


def test_threshold_counts_utf8_bytes():
    text = "é" * 4097  # 4,097 characters, 8,194 bytes
    assert should_spill(Observation("t", text, "query"))
    assert not should_spill(Observation("t", "é" * 4096, "query"))
    assert should_spill(Observation("t", "x" * 101, "query"), threshold_bytes=100)


def test_never_spill_list_is_configurable():
    assert not should_spill(Observation("browser.get", BIG, "browser"), never_spill_tools={"browser.get"})
    assert should_spill(Observation("read_handle", BIG, "query"), never_spill_tools=set())
    assert "scratch_write" in NEVER_SPILL_TOOLS


def test_offload_replaces_content_with_the_stub(store):
    scope = store.scope("r", "a")
    out = scope.offload(Observation("sql.query", BIG, "query", ))
    assert out.stub is not None and out.tool == "sql.query"
    assert json.loads(out.content) == out.stub.to_dict()
    assert set(json.loads(out.content)) == {"handle", "preview", "size", "lines", "content_type", "shape", "note"}
    assert scope.read_handle(out.stub.handle, 0, 9000).data == BIG.encode()
    small = Observation("sql.query", "tiny", "query")
    assert scope.offload(small) is small
    assert scope.offload(out) is out  # already offloaded


def test_offload_failure_passes_the_original_through_with_an_error_log(store, caplog):
    scope = store.scope("r", "a")
    obs = Observation("sql.query", BIG, "query")
    store.blobs.write = lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space left on device"))
    with caplog.at_level(logging.ERROR, logger="scratchfs"):
        out = scope.offload(obs)
    assert out is obs
    assert any(r.levelno == logging.ERROR and r.exc_info for r in caplog.records)
    assert scope.list_entries() == []


def test_offload_honours_store_settings(tmp_path):
    with ScratchStore(tmp_path, spill_threshold_bytes=100, never_spill_tools={"x"}, spill_classes={"effect"}) as s:
        scope = s.scope("r", "a")
        assert scope.offload(Observation("t", "y" * 101, "effect")).stub is not None
        assert scope.offload(Observation("t", "y" * 101, "query")).stub is None
        assert scope.offload(Observation("x", "y" * 101, "effect")).stub is None


@given(st.text(max_size=300), st.integers(0, 400))
def test_utf8_prefix_is_the_longest_whole_character_prefix(text, limit):
    data = text.encode()
    cut = utf8_prefix(data, limit)
    assert len(cut) <= limit
    decoded = cut.decode()  # never raises: whole characters only
    assert text.startswith(decoded)
    longer = len(decoded) + 1
    assert len(text[:longer].encode()) > limit or longer > len(text)


def test_stub_fits_even_when_the_shape_is_made_of_control_characters(scope):
    document = json.dumps({"\x01" * 30 + str(i): i for i in range(40)}).encode()
    stub = scope.spill(document, source_tool="t" * 200)
    assert len(stub.to_json().encode()) <= MAX_STUB_BYTES


# -- the threshold is counted in the bytes the model receives: the result's text as a JSON string ----------------------

def json_bytes(text: str) -> int:
    """The plain answer: UTF-8 bytes of ``text`` as the faces write it in JSON, its two quotes not counted."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2


@pytest.mark.parametrize("text", [
    "\x01" * 8192,   # 8,192 characters, 49,152 bytes of JSON (\u0001 each)
    "\x00" * 1366,   # 8,196
    '"' * 4097,      # 8,194 (\" each)
    "\\" * 4097,     # 8,194 (\\ each)
    "\n" * 4097,     # 8,194 (\n each)
    "a\tb\r" * 2048,  # 12,288
    "ok\n" * 2730,   # 10,920: a log of short lines
    "\x1b[0m" * 2000,  # terminal escapes: 18,000
])
def test_a_result_small_in_utf8_but_large_as_json_is_spilled(text, store):
    assert len(text.encode()) <= 8192 < json_bytes(text)
    assert should_spill(Observation("t", text, "query"))
    assert should_spill(Observation("t", text.encode(), "query"))  # bytes: the text they are shown as
    out = store.scope("r", "a").offload(Observation("t", text, "query"))
    assert out.stub is not None and len(out.content.encode()) <= MAX_STUB_BYTES


@pytest.mark.parametrize("text", [
    "x" * 8192, "é" * 4096, "😀" * 2048, "\u2028" * 2730, "\x7f" * 8192,  # written as they are: their UTF-8 bytes
    "\x01" * 1365,  # 8,190 bytes of JSON
    '"' * 4096, "\n" * 4096,
])
def test_a_result_at_most_the_threshold_as_json_passes_through(text):
    assert json_bytes(text) <= 8192
    assert not should_spill(Observation("t", text, "query"))


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from('ab"\\\n\t\x00\x01\x1f\x7fé€😀\u2028\ud800'), max_size=120)
       | st.text(max_size=120), st.integers(0, 800), st.sampled_from([None, "replace"]))
def test_the_decision_is_the_json_size_against_the_threshold(text, threshold, as_bytes):
    content: str | bytes = text
    shown = text
    if as_bytes:  # bytes are judged as the text they are shown as: UTF-8, invalid sequences as U+FFFD
        content = text.encode("utf-8", "surrogatepass")
        shown = content.decode("utf-8", "replace")
    want = json_bytes(shown) > threshold
    assert should_spill(Observation("t", content, "query"), threshold_bytes=threshold) == want


def test_the_measure_is_what_the_mcp_sdk_writes():
    pydantic_core = pytest.importorskip("pydantic_core")
    from scratchfs.api.policy import result_size

    text = "a\x00\x01\x1f\x7f\u2028\u2029\"\\/\b\t\n\f\ré😀" * 3
    assert result_size(text) == len(pydantic_core.to_json(text)) - 2 == json_bytes(text)
    assert result_size(text.encode()) == result_size(text)
    assert result_size(b"\xff\xfe") == 6  # two invalid bytes, each shown as U+FFFD


@pytest.mark.parametrize("text", ["\x01" * 9000, '"\\' * 5000, "ok\n" * 3000, "é\u2028" * 3000])
def test_the_stub_is_measured_as_replies_are_and_never_spills_again(text, store):
    from scratchfs.api.policy import result_size
    from scratchfs.api.views import reply_size

    out = store.scope("r", "a").offload(Observation("t", text, "query"))
    assert out.stub is not None
    assert reply_size(out.stub.to_dict()) == len(out.content.encode()) <= MAX_STUB_BYTES  # the budget's own measure
    assert result_size(out.content) <= 2 * MAX_STUB_BYTES < 8192  # as a string: each byte of JSON at most doubled
    assert not should_spill(Observation("t", out.content, "query"))


@pytest.mark.parametrize("tool", [
    "scratchfs_read_handle",       # {server}_{tool}: langchain-mcp-adapters' tool_name_prefix, many hand-made hosts
    "scratchfs-scratch_read",
    "mcp_scratchfs_scratch_list",  # mcp_{server}_{tool}
    "mem0_memory_search",
    "agent_recall",
])
def test_the_stores_own_verbs_behind_a_prefix_with_an_underscore_or_dash_never_spill(tool, store):
    # a read_handle reply is compact JSON of up to its budget: as a JSON string its quotes count twice, so a full
    # reply is over the threshold and would be spilled into a stub that asks for another read_handle
    scope = store.scope("r", "a")
    handle = scope.spill(json.dumps([{"k": "v" * 40}] * 500)).handle
    from scratchfs.api.contract import ScratchTools, to_json
    reply = to_json(ScratchTools(scope).read_handle(handle, offset=0, length=65536))
    assert should_spill(Observation("some_tool", reply, "query"))
    assert not should_spill(Observation(tool, reply, "query"))
    assert scope.offload(Observation(tool, reply, "query")).stub is None
    assert should_spill(Observation("read_handles", reply, "query"))  # a name that only starts like one spills


@pytest.mark.parametrize("name", ["x" * 200_000, "_" * 200_000, "a-" * 100_000, "a\n" * 100_000 + "ns__tool"])
def test_the_spill_policy_of_a_long_tool_name_costs_linear_time(name):
    """A tool name is the caller's (a hostile or broken host may pass anything): before, telling its basename ran
    ``.*(?:__|[./:])`` from every position (quadratic: 80 s for 100,000 characters without a separator) and the
    never-spill check sliced the name after each ``_`` or ``-`` (quadratic again). The answer is the same as for a
    short name of the same kind, at once."""
    import time

    started = time.thread_time()  # (this thread's CPU: the other worker's test leaves it as it is)
    assert should_spill(Observation(name, BIG, "query"))
    assert is_never_spilled(name + "_read_handle") and not is_never_spilled(name + "_grep")
    assert tool_basename(name + "/mcp__read_handle").rpartition("\n")[2] == "read_handle"
    # linear: about 0.5 s on an idle 2-core machine, 1.9 s at load 15 (CI beside four builds); quadratic was 80 s
    assert time.thread_time() - started < 8.0
    assert tool_basename("a/b\nc.d") == "b\nd" and tool_basename("a___b") == "b" and tool_basename("plain") == "plain"


@pytest.mark.parametrize("key", ["workspce", "Browser", "mine"])
def test_a_preview_mode_for_a_class_that_is_not_known_is_refused(key):
    """``preview_modes={"workspce": "head+tail"}`` was taken and never matched a result: the misspelled class kept
    the default preview, silently, as the adapter's misspelled classes did. It is refused as they are; a class the
    store spills (its ``spill_classes``) may have one."""
    with pytest.raises(InvalidArgument, match=f"the preview_modes key is '{key}', not a known class"):
        Settings(preview_modes={key: "head+tail"})
    assert dict(Settings(spill_classes={"mine"}, preview_modes={"mine": "head"}).preview_modes) == {"mine": "head"}


_JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=40),
                            lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner,
                                                                                       max_size=6), max_leaves=30)


# (40 examples by default, 150 before: each opens a store; their cases are drawn anew each run; SCRATCHFS_STRESS=1
# runs 2,000)
@settings(max_examples=40, deadline=None)
@given(content=st.one_of(st.dictionaries(st.text(max_size=8), _JSON_VALUES, max_size=8),
                         st.lists(_JSON_VALUES, max_size=8)),
       threshold=st.integers(min_value=0, max_value=400))
def test_should_spill_judges_a_structure_as_offload_spills_it(content, threshold):
    """One rule: should_spill judges a dict or list as its JSON text, and offload spills exactly what it says (a new
    user's {"a": "x" * 100000} was False for should_spill, and spilled)."""
    obs = Observation("q", content, result_class="query")
    with tempfile.TemporaryDirectory() as root, ScratchStore(root, spill_threshold_bytes=threshold) as store:
        spilled = store.scope("r", "a").offload(obs).stub is not None
    assert should_spill(obs, threshold) == spilled
    assert should_spill(obs, threshold) == should_spill(
        Observation("q", json.dumps(content, ensure_ascii=False), result_class="query"), threshold)


def test_a_large_dict_is_spilled_by_the_rule_that_judges_it():
    obs = Observation(tool="q", content={"a": "x" * 100000}, result_class="query")
    assert should_spill(obs)
    assert should_spill(Observation("q", ("x" * 8187,), "query"))  # 8,193 bytes of JSON (quotes count twice)
    assert not should_spill(Observation("q", ["x" * 8186], "query"))  # 8,192: not over the threshold
    assert not should_spill(Observation("q", {"a": object()}, "query"))  # no JSON text: never spilled
    assert not should_spill(Observation("q", {"a": "x" * 100000}, "effect"))


def _json_cost(value: object) -> int:
    """The plain Python answer: bytes of JSON a structure costs the model, its text as a JSON string."""
    text = json.dumps(value, ensure_ascii=False)
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2


@settings(max_examples=200, deadline=None)
@given(content=st.lists(_JSON_VALUES, min_size=1, max_size=40), near=st.integers(min_value=-40, max_value=40))
def test_should_spill_a_structure_near_its_threshold_agrees_with_python(content, near):
    """should_spill stops writing a structure's JSON once it is over the threshold (helper replies5): the answer is
    the same as the whole text's, for thresholds around its size."""
    threshold = max(0, _json_cost(content) + near)
    assert should_spill(Observation("q", content, "query"), threshold) == (_json_cost(content) > threshold)


def test_should_spill_a_50_mb_structure_reads_a_few_pieces(monkeypatch):
    """It wrote all of a structure's JSON, in pieces, to learn that it was over 8 KiB: 50 MB here, ~800 pieces."""
    from scratchfs.foundation import json_pieces as pieces_module

    written = []
    whole = pieces_module.json_pieces

    def counted(value, *args):
        for piece in whole(value, *args):
            written.append(len(piece))
            yield piece

    monkeypatch.setattr(pieces_module, "json_pieces", counted)
    big = ["r" * 100] * 500_000  # 51 MB of JSON text, one string shared: 4 MB of memory
    assert should_spill(Observation("q", big, "query"))
    assert len(written) <= 8 and sum(written) < 300_000, (len(written), sum(written))
    written.clear()
    assert not should_spill(Observation("q", big[:10], "query"))  # (small: written whole, 1 KiB)
    assert sum(written) == len(json.dumps(big[:10]))
    assert should_spill(Observation("q", [*big[:100], object()], "query"))  # (past the threshold: not written)
    assert not should_spill(Observation("q", [object(), *big], "query"))  # (in the head: no JSON text)


@pytest.mark.parametrize("extra", [{"isError": True}, {"_meta": {}}, {"_meta": {"trace": "x"}, "isError": False}])
def test_an_mcp_tool_result_with_an_error_or_meta_is_never_spilled(extra):
    """An MCP tool result as a ``dict`` (a ``content`` list) whose ``isError`` is true or which has a ``_meta`` is
    not spilled, whichever face it comes through (the adapter, offload), as ``mcp-proxy`` never spills it: the model
    reads the error itself, and a stub would strip the out-of-band meaning."""
    big = [{"type": "text", "text": "x" * 20_000}]
    assert should_spill(Observation("t", {"content": big}, result_class="query"))  # (the same result, plain)
    assert should_spill(Observation("t", {"content": big, "isError": False}, result_class="query"))
    assert not should_spill(Observation("t", {"content": big, **extra}, result_class="query"))
    assert should_spill(Observation("t", {"text": "x" * 20_000, **extra}, result_class="query"))  # (no MCP shape)


@pytest.mark.parametrize("extra", [{"isError": True}, {"_meta": {}}, {"_meta": {"trace": "x"}, "isError": False}])
def test_offload_and_the_adapter_pass_an_mcp_error_or_meta_result_through_as_it_came(extra, scratch_scope):
    """What ``should_spill`` says of such a result, ``offload`` does: it judged a structure by its JSON text, a string
    that no longer looked like an MCP result, and so spilled an error the model must read (its ``isError`` 20 KiB
    past the preview, the stub saying only ``isError: bool``) and gave the loop a stub string in place of the dict
    it checks for ``isError``."""
    result = {"content": [{"type": "text", "text": "E: failed\n" * 2_000}], **extra}
    out = scratch_scope.offload(Observation("t", result, result_class="query"))
    assert out.stub is None and out.content is result
    tool = Offloader(scratch_scope, default_class="query").wrap(lambda: result, name="mcp_tool")
    assert tool() is result
    assert scratch_scope.store.list_entries_for_run(scratch_scope.run_id) == []
    plain = scratch_scope.offload(Observation("t", {"content": result["content"]}, result_class="query"))
    assert plain.stub is not None  # (the same content with no error or _meta is spilled)
