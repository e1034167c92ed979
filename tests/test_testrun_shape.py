"""A test run's shape (pytest, unittest, cargo test, TAP): its result line, sections and failures, each with the line it
starts at, against the plain answer -- real runs of pytest and unittest made here, real outputs of ``cargo test`` and
``node --test`` in ``fixtures/tools`` -- and texts that are no test run staying what they were."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.shape import describe
from scratchfs.api.shape_testrun import TEST_RUN_SHAPE

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "fixtures" / "tools"
_ITEM_RE = re.compile(r"(.+?) \(line ([\d,]+)\)(?:, |; |$)")

_MODULE = """
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("no database")

@pytest.mark.parametrize("i", range(60))
def test_many(i):
    assert i % 7 != 3, f"bad {i}"

def test_setup(broken):
    pass

def test_dict():
    assert {"a": [1, 2, 3]} == {"a": [1, 2, 4]}
"""


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def listed(shape: str) -> list[tuple[str, int]]:
    """The ``name (line N)`` items after the shape's failure count."""
    failures = shape.split(" failures: ", 1)[1] if " failures: " in shape else shape.split(" failure: ", 1)[1]
    return [(name, int(line.replace(",", ""))) for name, line in _ITEM_RE.findall(failures.split("; line=N")[0])]


def run(args: list[str], cwd: Path) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SCRATCHFS_"))}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, env=env, timeout=120,
                          check=False).stdout


@pytest.mark.parametrize("flags", [[], ["-v"], ["-q"], ["-rA"]])
def test_a_pytest_run_names_its_result_and_each_failure_at_its_line(tmp_path, flags):
    (tmp_path / "test_gen.py").write_text(_MODULE)
    out = run(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:scratchfs", "-p", "no:randomly",
               *flags, "test_gen.py"], tmp_path)
    lines = out.decode().splitlines()
    shape = shape_of(out)
    assert shape.startswith(f"{TEST_RUN_SHAPE} (pytest), {len(lines)} lines: "), shape
    result = lines[-1].strip("= ")
    assert result.startswith("10 failed, 51 passed, 1 error in "), result
    assert f": {result} (line {len(lines)})" in shape
    bars = [(line.strip("_ "), n) for n, line in enumerate(lines, 1) if re.fullmatch(r"_{3,} .* _{3,}", line)]
    assert len(bars) == 11  # 10 failures and the setup error
    assert f"; {len(bars)} failures: " in shape
    assert listed(shape) == bars[: len(listed(shape))] and len(listed(shape)) >= 5
    summary = next(n for n, line in enumerate(lines, 1) if "short test summary info" in line)
    assert f"short test summary info (line {summary})" in shape


def test_a_pytest_run_stopped_by_a_collection_error_names_it(tmp_path):
    (tmp_path / "test_bad.py").write_text("def test_x(:\n    pass\n")
    out = run(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:scratchfs", "test_bad.py"],
              tmp_path)
    lines = out.decode().splitlines()
    shape = shape_of(out)
    interrupted = next(n for n, line in enumerate(lines, 1) if line.startswith("!!!") and "Interrupted" in line)
    collecting = next(n for n, line in enumerate(lines, 1) if "ERROR collecting test_bad.py" in line)
    assert f"Interrupted: 1 error during collection (line {interrupted})" in shape, shape
    assert listed(shape) == [("ERROR collecting test_bad.py", collecting)]
    assert f": {lines[-1].strip('= ')} (line {len(lines)})" in shape


@pytest.mark.parametrize("verbose", [False, True])
def test_a_unittest_run_names_its_result_and_each_failure_at_its_line(tmp_path, verbose):
    body = ["import unittest", "class T(unittest.TestCase):"]
    body += [f"    def test_{i:02d}(self):\n        self.assertNotEqual({i} % 5, 2)" for i in range(40)]
    body += ["    def test_boom(self):\n        raise ValueError('boom')"]
    (tmp_path / "test_u.py").write_text("\n".join(body) + "\n")
    out = subprocess.run(  # (its report is on stderr)
        [sys.executable, "-m", "unittest", *(["-v"] if verbose else []), "test_u"], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120, check=False).stdout
    lines = out.decode().splitlines()
    shape = shape_of(out)
    ran = next(n for n, line in enumerate(lines, 1) if line.startswith("Ran 41 tests in "))
    assert f": {lines[ran - 1]}: FAILED (failures=8, errors=1) (line {ran})" in shape, shape
    failures = [(line, n) for n, line in enumerate(lines, 1) if line.startswith(("FAIL: ", "ERROR: "))]
    assert f"; {len(failures)} failures: " in shape and len(failures) == 9
    assert listed(shape) == failures[: len(listed(shape))] and listed(shape)


def test_cargo_test_output_names_its_binaries_its_failures_and_its_result():
    data = (TOOLS / "cargo-test.txt").read_bytes()
    assert shape_of(data) == (
        "test run (cargo test), 72 lines: FAILED, 1 passed, 2 failed, 1 ignored (line 70); Running unittests "
        "src/lib.rs (line 3); 2 failures: tests::it_fails (line 13), tests::it_panics (line 38); line=N reads "
        "from one")
    lines = data.decode().splitlines()
    assert lines[12] == "---- tests::it_fails stdout ----" and lines[69].startswith("test result: FAILED.")


def test_node_test_tap_output_names_its_totals_and_each_not_ok():
    data = (TOOLS / "node-test-tap.txt").read_bytes()
    assert shape_of(data) == (
        "test run (TAP), 85 lines: 5 tests, 2 pass, 3 fail (line 78); 3 failures: fails (line 8), inner bad "
        "(line 51), suite (line 69); line=N reads from one")
    lines = data.decode().splitlines()
    assert [lines[n - 1].strip() for n in (8, 51, 69)] == ["not ok 2 - fails", "not ok 2 - inner bad",
                                                          "not ok 3 - suite"]


_TAP_LINE = st.tuples(st.booleans(), st.booleans(), st.integers(0, 2),
                      st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=12))


@settings(max_examples=150, deadline=None)
@given(st.lists(_TAP_LINE, min_size=1, max_size=40), st.booleans())
def test_tap_failures_are_each_not_ok_but_todo_at_its_line(points, numbered):
    out, expected = ["TAP version 14", f"1..{len(points)}"], []
    for n, (ok, todo, depth, name) in enumerate(points, 1):
        indent = "    " * depth
        out.append(f"{indent}{'ok' if ok else 'not ok'}{f' {n}' if numbered else ''} - {name}"
                   f"{' # TODO later' if todo else ''}")
        if not ok and not todo:
            expected.append((name, len(out)))
        out += [f"{indent}  ---", f"{indent}  duration_ms: 1.5", f"{indent}  ..."]
    shape = shape_of("\n".join(out).encode() + b"\n")
    top = [ok for ok, _, depth, _ in points if depth == 0]
    if not top and not expected:  # (nothing to tell: no result, no failure)
        assert not shape.startswith(TEST_RUN_SHAPE)
        return
    result = f": {sum(top)} ok, {len(top) - sum(top)} not ok (line " if top else ", no result"
    assert shape.startswith(f"{TEST_RUN_SHAPE} (TAP), {len(out)} lines{result}"), shape
    if expected:
        assert f"; {len(expected)} failure{'s' if len(expected) > 1 else ''}: " in shape
        assert listed(shape) == expected[: len(listed(shape))] and listed(shape)
    else:
        assert "failure" not in shape


def test_a_spilled_pytest_run_reads_back_from_the_line_its_stub_names(tmp_path):
    (tmp_path / "test_gen.py").write_text(_MODULE)
    out = run(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:scratchfs", "-v", "test_gen.py"],
              tmp_path)
    with ScratchStore(tmp_path / "store") as store:
        stub = store.scope("r", "a").spill(out, source_tool="pytest")
        assert stub.shape.startswith(f"{TEST_RUN_SHAPE} (pytest)")
        name, line = listed(stub.shape)[0]
        read = store.scope("r", "a").read_handle(stub.handle, line=line, lines=1)
        # (ERRORS come before FAILURES)
        assert read.data.decode().strip("\n").strip("_ ") == name == "ERROR at setup of test_setup"


def test_a_thousand_failures_with_long_names_stay_within_the_shape():
    bar = "=" * 30
    body = [f"{bar} test session starts {bar}", f"{bar} FAILURES {bar}"]
    for i in range(1000):
        body += [f"{'_' * 10} test_{'x' * 300}_{i} {'_' * 10}", "    assert 0", "E   AssertionError"]
    body.append(f"{bar} 1000 failed in 3.21s {bar}")
    shape = shape_of("\n".join(body).encode() + b"\n")
    assert len(shape) <= 600 and "; 1,000 failures: " in shape and "… " in shape
    assert shape.startswith(f"{TEST_RUN_SHAPE} (pytest), 3,003 lines: 1000 failed in 3.21s (line 3,003)")


_RUNS = ("cargo-test.txt", "node-test-tap.txt")


@pytest.mark.parametrize("path", [ROOT / "README.md", ROOT / "scratchfs" / "api" / "shape_testrun.py",
                                  Path(__file__), *(p for p in sorted(TOOLS.glob("*.txt")) if p.name not in _RUNS)],
                         ids=lambda p: p.name)
def test_texts_that_are_no_test_run_are_not_told_as_one(path):
    data = path.read_bytes()
    assert not shape_of(data[:512 * 1024]).startswith(TEST_RUN_SHAPE)
