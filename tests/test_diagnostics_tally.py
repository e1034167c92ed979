"""Many diagnostics are told by their codes and files (helper modeltask11).

``mypy --strict`` over four packages wrote 3,506 errors in 98 files (387 KB); the stub's shape listed its first 4
errors, all ``no-untyped-def`` like the preview, so that a model asked which kinds of error there were, or where
most of them are, had to page through the output or guess codes to count one by one. From 50 errors (or warnings,
when there is no error) the shape counts them by code and by file, most first, and names the search for one code."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.policy import Observation
from scratchfs.api.shape_diagnostics import diagnostics_shape

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _stub(scope, content: bytes) -> dict:
    return json.loads(scope.offload(Observation(tool="bash", content=content.decode(),
                                                result_class="workspace")).content)


def test_mypy_errors_are_counted_by_code_and_file(tools, scratch_scope):
    data = (_TOOLS / "mypy-strict-head.txt").read_bytes()
    errors = re.findall(rb"^([^:\n]+):\d+: error: .*  \[([a-z-]+)\]$", data, re.M)
    codes, files = Counter(code for _, code in errors), Counter(path for path, _ in errors)
    assert len(errors) >= 50 and len(codes) > 3 and len(files) > 3
    stub = _stub(scratch_scope, data)
    told = ", ".join(f"[{code.decode()}] {n}" for code, n in codes.most_common(5))
    assert f"{len(errors)} errors, 0 warnings, 7 notes in {len(files)} files; codes: {told}, … " in stub["shape"]
    (top, n), (second, m) = files.most_common(2)
    assert f"most in {top.decode()} ({n}), {second.decode()} ({m}); first: error: " in stub["shape"]
    assert stub["shape"].endswith('; line=N reads from one, match="CODE", context="line" finds a code\'s')
    code, count = codes.most_common(2)[1]  # the search the shape names, for one code: all its lines, no other
    found = tools.call("read_handle", {"handle": stub["handle"], "match": f"[{code.decode()}]", "context": "line",
                                       "max_matches": 100})
    assert len(found["windows"]) == count and all(f"[{code.decode()}]" in w["data"] for w in found["windows"])


def test_rustc_and_lint_codes_are_counted_too():
    blocks = b"".join(b"error[E0308]: mismatched types\n --> src/m%d.rs:%d:5\n  |\n\n" % (i % 3, i)
                      for i in range(40))
    blocks += b"".join(b"error[E0425]: cannot find value `z`\n --> src/m0.rs:%d:1\n\n" % i for i in range(20))
    shape = diagnostics_shape(blocks, blocks.count(b"\n"), True, "")
    assert "60 errors, 0 warnings in 3 files; codes: [E0308] 40, [E0425] 20; most in src/m0.rs (34), " in shape
    concise = b"".join(b"a/%s.py:%d:1: %s message\n" % (b"xy"[i % 2 : i % 2 + 1], i, b"F401" if i % 4 else b"E501")
                       for i in range(1, 61))
    shape = diagnostics_shape(concise, 60, True, "")
    assert "60 errors, 0 warnings, 0 notes in 2 files; codes: F401 45, E501 15; most in a/y.py (30), a/x.py (30)" \
        in shape


def test_few_diagnostics_are_listed_as_before():
    data = (_TOOLS / "ruff-check-github.txt").read_bytes()  # 29 errors: a page holds them
    shape = diagnostics_shape(data, data.count(b"\n"), True, "")
    assert "codes:" not in shape and "29 errors, 0 warnings, 0 notices: error: CPY001" in shape


def test_annotations_past_the_counted_ones_are_said_to_be_left_out():
    lines = b"".join(b"::error file=src/%d.py,line=%d,col=1::src/%d.py:%d:1: %s message\n"
                     % (i % 4, i, i % 4, i, b"F401" if i % 3 else b"E501") for i in range(1, 6001))
    shape = diagnostics_shape(lines, 6000, True, "")
    assert "6,000 errors, 0 warnings, 0 notices; the first 2,000 in 4 files; codes: F401 1,334, E501 666; " \
           "most in src/1.py (500), src/2.py (500); first: error: F401 message at src/1.py:1:1 (line 1)" in shape
