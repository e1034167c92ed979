"""The scenario of ``tests/test_spill_failure.py``: spills that fail mid-write for real. In a process of its own, the
file-size limit (``RLIMIT_FSIZE``, ``SIGXFSZ`` ignored) is set to 16 KiB after the store is open, so each blob write
fails with ``EFBIG`` once it passes 16 KiB (the store's ``StorageError``, "the file-size limit was reached"), then
each case is offloaded. Usage: ``python tests/spill_failure_scenario.py ROOT CASES_JSON`` where each case is
``{"kind": "text"|"bytes"|"json", "bound": N|null}`` (``bound``: ``passthrough_max_bytes``; ``"size"`` and
``"size-1"`` the result's own size as the model receives it, and one less). Prints one JSON report: per case
``whole`` (the content came back as it went in), ``size`` (its result_size), ``notice`` (the parsed notice, or
``None``), ``notice_bytes``, ``refused``, ``log`` (the ERROR lines)."""

from __future__ import annotations

import gzip
import json
import logging
import resource
import signal
import sys
from pathlib import Path

from scratchfs import ScratchStore
from scratchfs.api.policy import Observation, result_size

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def content(kind: str) -> tuple[object, str, str, int]:
    """The result of a kind (real data from fixtures/), its tool, its class, and its size as a model receives it."""
    if kind == "text":
        text = (FIXTURES / "workspace-grep-stdlib-defs.txt").read_text()
        return text, "grep", "workspace", result_size(text)
    if kind == "bytes":
        data = gzip.compress((FIXTURES / "browser-rust-book.html").read_bytes(), mtime=0)
        return data, "curl.gz", "browser", result_size(data)
    value = json.loads((FIXTURES / "api-ec2-service-model.json").read_text())
    return value, "aws.describe", "query", result_size(json.dumps(value, ensure_ascii=False))


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def main(root: str, cases: list[dict]) -> list[dict]:
    handler = Lines()
    logging.getLogger("scratchfs").addHandler(handler)
    stores = []
    for n, case in enumerate(cases):
        value, tool, cls, size = content(case["kind"])
        bound = {"size": size, "size-1": size - 1}.get(case["bound"], case["bound"])
        store = ScratchStore(f"{root}/{n}", passthrough_max_bytes=bound, preview_modes={"workspace": "head+tail"})
        store.scope("r", "a").spill(b"warm", source_tool="warm")  # (the index written before the limit)
        stores.append((store, value, tool, cls, size))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, resource.RLIM_INFINITY))
    report = []
    for store, value, tool, cls, size in stores:
        handler.lines.clear()
        out = store.scope("r", "a").offload(Observation(tool, value, cls))
        notice = out.content if out.content is not value else None
        report.append({"whole": out.content is value, "size": size, "refused": out.refused,
                       "notice": None if notice is None else json.loads(notice),
                       "notice_bytes": None if notice is None else len(notice.encode()), "log": list(handler.lines)})
    return report


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], json.loads(sys.argv[2]))))
