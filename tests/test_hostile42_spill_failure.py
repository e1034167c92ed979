"""A failed spill's notice previews a text result's bytes as a spill keeps them (hostile42): a tool's output decoded
with ``errors="surrogateescape"`` (``os.fsdecode``, a command's Latin-1 bytes) holds a lone surrogate for each byte
that is no UTF-8; the preview wrote each as ``?`` (``encode("utf-8", "replace")``), a character the result does not
hold ("caf? 12 rows"), where a spill and its views show U+FFFD. Its size counted each such surrogate 3 bytes
(``surrogatepass``), the spill keeps 1."""

from __future__ import annotations

import json
from pathlib import Path

from scratchfs.api.policy import Observation
from scratchfs.api.settings import Settings
from scratchfs.api.spill_failure import passed_through

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_a_surrogateescaped_results_preview_shows_its_bytes_as_a_spill_does():
    raw = (FIXTURES / "tools/dpkg-query-jq.jsonl").read_bytes().replace(b"Debian", b"D\xe9bian")  # (Latin-1 é)
    text = raw.decode("utf-8", "surrogateescape")
    out = passed_through(Observation(tool="bash", content=text), Settings(passthrough_max_bytes=4096), None)
    notice = json.loads(out.content)
    assert out.refused is not None and "D\ufffdbian" in notice["preview"] and "D?bian" not in notice["preview"]
    assert notice["size"] == len(raw)
    assert notice["preview"].startswith(raw[:40].decode("utf-8", "replace"))
