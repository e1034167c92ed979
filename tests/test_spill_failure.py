"""A failed spill passes a result through whole only up to ``passthrough_max_bytes`` (64 KiB as the model receives
it); past it the model gets a notice with a preview (``stored: false``), never the whole flood. Before, every failed
spill passed the result through whole, whatever its size: a 209 MB result with S3 stopped went into the context.
The failures here are real: a file-size limit that a blob write passes mid-write (tests/spill_failure_scenario.py),
a scope that cannot be had, an MCP proxy whose store is not open; S3 stopped is in tests/test_backend_fleet.py."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from scratchfs import Settings
from scratchfs.adapter import Offloader
from scratchfs.api.policy import Observation
from scratchfs.api.spill_failure import LESS_ADVICE, RETRY_ADVICE, chunks_passed_through, passed_through
from scratchfs.foundation.errors import InvalidArgument, StorageError
from scratchfs.foundation.limits import MAX_STUB_BYTES

REPO = Path(__file__).resolve().parent.parent
SCENARIO = REPO / "tests" / "spill_failure_scenario.py"
TEXT = (REPO / "fixtures" / "workspace-grep-stdlib-defs.txt").read_text()


def scenario(tmp_path, cases: list[dict]) -> list[dict]:
    done = subprocess.run([sys.executable, str(SCENARIO), str(tmp_path), json.dumps(cases)], cwd=REPO,
                          capture_output=True, text=True, timeout=300, env={"PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_a_blob_write_failing_mid_write_passes_a_result_whole_up_to_the_bound_and_a_notice_past_it(tmp_path):
    cases = [{"kind": kind, "bound": bound} for kind in ("text", "bytes", "json")
             for bound in ("size", "size-1", None, 0)] + [{"kind": "text", "bound": 65536}]
    report = scenario(tmp_path, cases)
    assert len(report) == len(cases)
    for case, got in zip(cases, report, strict=True):
        assert got["log"] and "the file-size limit was reached" in got["log"][0], (case, got["log"])
        if case["bound"] in ("size", None):  # at the bound, or no bound (the old behaviour): the result whole
            assert got["whole"] and got["refused"] is None, case
            assert got["log"][0].endswith("; passing it through whole"), case
            continue
        assert not got["whole"] and got["refused"].startswith("storage: "), case  # one byte past, or 0: a notice
        assert got["log"][0].endswith("; passing a preview and a notice"), case
        notice = got["notice"]
        assert set(notice) == {"preview", "size", "stored", "note"} and notice["stored"] is False, case
        assert got["notice_bytes"] <= MAX_STUB_BYTES
        assert notice["note"].endswith(LESS_ADVICE)  # a file-size limit: no retry makes it fit
        assert "the store failed (storage)" in notice["note"] and "file-size" not in notice["note"]  # no internals
        assert "the rest is not kept anywhere" in notice["note"]
    text, binary, structure = report[1]["notice"], report[5]["notice"], report[9]["notice"]
    assert text["size"] == len(TEXT.encode()) and text["preview"].startswith(TEXT[:80])
    assert text["preview"].rstrip().endswith(TEXT.rstrip()[-60:])  # head+tail (a workspace's): its last lines too
    assert binary["preview"].startswith("00000000  1f 8b 08 00")  # a gzip stream, as a hex dump
    assert structure["preview"].startswith('{"version": "2.0", "metadata": {')
    value = json.loads((REPO / "fixtures" / "api-ec2-service-model.json").read_text())
    assert structure["size"] == len(json.dumps(value, ensure_ascii=False).encode())  # counted, never held whole
    assert report[12]["refused"] is not None and report[12]["size"] > 65536  # the default bound: 512 KiB refused


def test_no_scope_for_a_result_is_a_failed_spill_bounded_the_same(caplog):
    def no_scope():
        raise InvalidArgument("no run id in this context")

    off = Offloader(no_scope, default_class="workspace")
    out = off.offload("grep", TEXT)
    notice = json.loads(out.content)
    assert out.refused is not None and notice["stored"] is False and notice["size"] == len(TEXT.encode())
    assert notice["note"].endswith(LESS_ADVICE)
    assert caplog.records[-1].getMessage().endswith("passing a preview and a notice")
    small = TEXT[:60_000]
    assert off.offload("grep", small).content is small  # under the bound: whole, as before
    assert off.offload("grep", TEXT, result_class="effect").content is TEXT  # never spilled: never a notice


def test_an_out_of_reach_store_tells_the_model_to_retry_and_a_structure_is_measured_as_its_json():
    down = StorageError("the object store failed while writing: connection refused (http://10.0.0.5:9000)")
    down.unavailable = True
    value = {"rows": [TEXT[i:i + 100] for i in range(0, 70_000, 100)]}
    out = passed_through(Observation("api", value, "query"), Settings(), down)
    notice = json.loads(out.content)
    assert notice["note"].endswith(RETRY_ADVICE) and "10.0.0.5" not in out.content
    assert notice["size"] == len(json.dumps(value, ensure_ascii=False).encode())
    small = {"rows": value["rows"][:100]}
    assert passed_through(Observation("api", small, "query"), Settings(), down).content is small


@pytest.mark.parametrize("bound", [-1, 1.5, "64KiB"])
def test_a_bad_bound_is_refused(bound):
    with pytest.raises(InvalidArgument, match="passthrough_max_bytes"):
        Settings(passthrough_max_bytes=bound)


def test_the_proxy_passes_a_large_result_as_a_notice_while_its_store_is_not_open():
    mcp_types = pytest.importorskip("mcp_types")
    from scratchfs.mcp.proxy_spill import spill_result

    class Config:
        def class_of(self, tool):
            return "query"

    result = mcp_types.CallToolResult(content=[mcp_types.TextContent(text=TEXT)])
    out = spill_result(None, Config(), "grep", result, settings=Settings())
    notice = json.loads(out.content[0].text)
    assert len(out.content) == 1 and notice["stored"] is False and notice["size"] == len(TEXT.encode())
    small = mcp_types.CallToolResult(content=[mcp_types.TextContent(text=TEXT[:9000])])
    assert spill_result(None, Config(), "grep", small, settings=Settings()) is small  # spillable, under the bound
    unbounded = Settings(passthrough_max_bytes=None)
    assert spill_result(None, Config(), "grep", result, settings=unbounded) is result  # the old behaviour


def test_a_blob_store_that_raises_mid_write_unexpectedly_is_bounded_too(tmp_path, monkeypatch, caplog):
    """A bug's exception mid-write (not a ScratchError) while a structure's JSON text is spilled as a stream: the
    notice counts the text's size without holding it, and the log line keeps its traceback."""
    from scratchfs import ScratchStore
    from scratchfs.engine import seekable

    real_write, written = seekable._write_all, [0]

    def breaks(fd, buffers):  # the blob store accepts 20 KB, then fails as no store error would
        written[0] += sum(len(b) for b in buffers)
        if written[0] > 20_000:
            raise RuntimeError("the blob writer broke")
        real_write(fd, buffers)

    value = json.loads((REPO / "fixtures" / "api-ec2-service-model.json").read_text())
    with ScratchStore(tmp_path, frame_bytes=4096) as store:
        monkeypatch.setattr(seekable, "_write_all", breaks)
        out = store.scope("r", "a").offload(Observation("aws.describe", value, "query"))
        assert written[0] > 20_000  # (it did fail mid-write)
        assert store.list_entries() == []
    notice = json.loads(out.content)
    assert notice["size"] == len(json.dumps(value, ensure_ascii=False).encode()) and notice["stored"] is False
    assert "the store failed (error)" in notice["note"] and "broke" not in notice["note"]
    assert notice["note"].endswith(LESS_ADVICE)
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert record.exc_info is not None and record.getMessage().endswith("passing a preview and a notice")


@pytest.mark.parametrize("cut", [0, 5, 1000, 1023, 1024, 1025, 4000, len(TEXT.encode())])
@pytest.mark.parametrize("quotes", [False, True])
def test_an_input_in_chunks_passes_under_the_same_rule_as_a_result(cut, quotes):
    """leftovers6: ``spill --threshold`` with no run or agent passes its stdin as a failed spill passes a result
    (:func:`~scratchfs.api.spill_failure.chunks_passed_through`): at each size about the bound (1 KiB here; a
    text of quotes, whose JSON escapes double it, too), whole exactly when ``passed_through`` passes the same bytes
    whole, else the same notice, whatever the chunks."""
    data = (TEXT.encode()[:cut] if not quotes else b'"' * cut)
    settings = Settings(passthrough_max_bytes=1024)
    want = passed_through(Observation("grep", data, "query"), settings, None)
    for size in (1, 7, 1 << 20):
        chunks = [data[at : at + size] for at in range(0, len(data), size)]
        content, total, whole = chunks_passed_through(chunks, "grep", "the store failed (error)", LESS_ADVICE,
                                                      settings)
        assert total == len(data)
        assert whole == (want.refused is None)
        assert content == (data if whole else want.content.encode())
