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
_COUNT_RE = re.compile(r"; [\d,]+ (?:failures?|errors?)(?: and [\d,]+ errors?)?: ")  # (the count before the list)

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
    failures = _COUNT_RE.split(shape, 1)[1]
    return [(name, int(line.replace(",", ""))) for name, line in _ITEM_RE.findall(failures.split("; line=N")[0])]


def run(args: list[str], cwd: Path, plugins: bool = False) -> bytes:
    """``python ARGS`` in ``cwd``: its stdout. A pytest run loads no installed plugin unless ``plugins`` (their
    imports, hypothesis and schemathesis among them, cost ~2.2 s of CPU a run, most of this file's time; what they
    change is the header's ``plugins:`` line, which one run still shows)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SCRATCHFS_"))}
    if not plugins:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, env=env, timeout=120,
                          check=False).stdout


@pytest.mark.parametrize("flags", [[], ["-v"], ["-q"], ["-rA"]])
def test_a_pytest_run_names_its_result_and_each_failure_at_its_line(tmp_path, flags):
    (tmp_path / "test_gen.py").write_text(_MODULE)
    out = run(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:scratchfs", "-p", "no:randomly",
               *flags, "test_gen.py"], tmp_path, plugins=not flags)
    lines = out.decode().splitlines()
    assert any(line.startswith("plugins: ") for line in lines) == (not flags)
    shape = shape_of(out)
    assert shape.startswith(f"{TEST_RUN_SHAPE} (pytest), {len(lines)} lines: "), shape
    result = lines[-1].strip("= ")
    assert result.startswith("10 failed, 51 passed, 1 error in "), result
    assert f": {result} (line {len(lines)})" in shape
    bars = [(line.strip("_ "), n) for n, line in enumerate(lines, 1) if re.fullmatch(r"_{3,} .* _{3,}", line)]
    assert len(bars) == 11  # 10 failures and the setup error
    assert "; 10 failures and 1 error: " in shape  # (as the result line tells them)
    assert listed(shape) == bars[: len(listed(shape))] and len(listed(shape)) >= 5
    summary = next(n for n, line in enumerate(lines, 1) if "short test summary info" in line)
    assert f"short test summary info (line {summary})" in shape


def test_a_pytest_run_whose_tests_all_err_at_setup_names_errors_not_failures(tmp_path):
    """A fixture that raises makes each test that uses it an error (``40 errors`` in pytest's result line): the
    shape said ``40 failures: ERROR at setup of ...`` (devout1, a real run of this kind)."""
    (tmp_path / "test_fix.py").write_text(
        "import pytest\n@pytest.fixture\ndef broken():\n    raise RuntimeError('fixture broke')\n"
        "@pytest.mark.parametrize('i', range(12))\ndef test_uses(broken, i):\n    pass\ndef test_ok():\n    pass\n")
    for tb in ("short", "line"):
        out = run(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:scratchfs", "-p",
                   "no:randomly", f"--tb={tb}", "test_fix.py"], tmp_path)
        shape = shape_of(out)
        assert "1 passed, 12 errors in " in shape and "; 12 errors: " in shape, shape
        assert "failure" not in shape, shape


@pytest.mark.parametrize("tb", ["line", "no"])
def test_a_pytest_run_without_failure_bars_lists_its_summary_lines(tmp_path, tb):
    """``--tb=line`` and ``--tb=no`` write no ``___ name ___`` bar for a failure (an error at setup keeps its bar
    with ``line``): the shape listed 1 failure of 11, or none; each is now its FAILED or ERROR summary line."""
    (tmp_path / "test_gen.py").write_text(_MODULE)
    out = run(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:scratchfs", "-p", "no:randomly",
               f"--tb={tb}", "test_gen.py"], tmp_path)
    lines = out.decode().splitlines()
    summary = [(line.split(" - ")[0].split(" ", 1)[1], n) for n, line in enumerate(lines, 1)
               if line.startswith(("FAILED ", "ERROR "))]
    assert len(summary) == 11
    shape = shape_of(out)
    assert "; 10 failures and 1 error: " in shape, shape
    assert listed(shape) == summary[: len(listed(shape))] and len(listed(shape)) >= 3


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
    assert "; 8 failures and 1 error: " in shape and len(failures) == 9
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


_RUNS = ("cargo-test.txt", "node-test-tap.txt", "cargo-test-q-warnings.txt", "cargo-test-nocapture.txt",
         "cargo-test-color.txt", "pytest-color-failures.txt", "pytest-v-failures.txt")  # (coloured:
# tests/test_coloured_kinds.py; pytest -v: tests/test_pytest_reasons_call.py)


@pytest.mark.parametrize("path", [ROOT / "README.md", ROOT / "scratchfs" / "api" / "shape_testrun.py",
                                  Path(__file__), *(p for p in sorted(TOOLS.glob("*.txt")) if p.name not in _RUNS)],
                         ids=lambda p: p.name)
def test_texts_that_are_no_test_run_are_not_told_as_one(path):
    data = path.read_bytes()
    assert not shape_of(data[:512 * 1024]).startswith(TEST_RUN_SHAPE)


def test_a_pytest_result_of_every_outcome_is_told_whole(tmp_path):
    """pytest's result of failures, passes, a skip, an xfail, a warning and an error ran past 60 characters and was cut
    ("... 1 warning, 1 erro…"): the error count, the one part a model needs, was lost (helper realkinds)."""
    (tmp_path / "test_all.py").write_text(
        "import pytest, warnings\ndef test_ok(): pass\ndef test_fail(): assert 0\ndef test_err(nofixture): pass\n"
        "def test_warn(): warnings.warn('w', UserWarning)\n@pytest.mark.skip\ndef test_skip(): pass\n"
        "@pytest.mark.xfail\ndef test_xf(): assert 0\n")
    for flags in ([], ["-q"]):
        out = run(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:scratchfs", "-p",
                   "no:randomly", *flags, "test_all.py"], tmp_path)
        lines = out.decode().splitlines()
        result = lines[-1].strip("= ")
        assert re.fullmatch(r"1 failed, 2 passed, 1 skipped, 1 xfailed, 1 warning, 1 error in [\d.]+s", result)
        assert f": {result} (line {len(lines)})" in shape_of(out), shape_of(out)


def test_a_unittest_result_with_skips_and_a_runner_preamble_is_told_whole():
    """unittest's ``FAILED (failures=1, errors=1, skipped=1)`` was cut at 60 characters; and a runner's preamble before
    the dots line (Django's test runner; the preamble lines written here by hand, the rest a real run) hid the run."""
    module = ("import unittest\nclass T(unittest.TestCase):\n    def test_a(self): self.assertEqual(1, 2)\n"
              "    def test_b(self): pass\n    def test_c(self): raise KeyError('k')\n"
              "    @unittest.skip('why')\n    def test_d(self): pass\n")
    out = subprocess.run([sys.executable, "-c", f"import unittest, sys\nexec({module!r})\nunittest.main(argv=['x'])"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120, check=False).stdout
    preamble = (b"Found 4 test(s).\nCreating test database for alias 'default'...\n"
                b"System check identified no issues (0 silenced).\n")
    for data, skip in ((out, 0), (preamble + out + b"Destroying test database for alias 'default'...\n", 3)):
        lines = data.decode().splitlines()
        ran = next(n for n, line in enumerate(lines, 1) if line.startswith("Ran 4 tests in "))
        told = f": {lines[ran - 1]}: FAILED (failures=1, errors=1, skipped=1) (line {ran})"
        assert told in shape_of(data), shape_of(data)
        assert listed(shape_of(data)) == [(line, n) for n, line in enumerate(lines, 1)
                                          if line.startswith(("FAIL: ", "ERROR: "))]
        assert ran > skip


def test_a_unittest_run_of_thousands_whose_dots_line_runs_past_2_kib_is_told(tmp_path):
    body = ["import unittest", "class T(unittest.TestCase):"]
    body += [f"    def test_{i:04d}(self):\n        self.assertNotEqual({i}, 2999)" for i in range(3000)]
    (tmp_path / "test_k.py").write_text("\n".join(body) + "\n")
    out = subprocess.run([sys.executable, "-m", "unittest", "test_k"], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=120, check=False).stdout
    lines = out.decode().splitlines()
    assert len(lines[0]) == 3000  # (one dots line)
    ran = next(n for n, line in enumerate(lines, 1) if line.startswith("Ran 3000 tests in "))
    assert f": {lines[ran - 1]}: FAILED (failures=1) (line {ran})" in shape_of(out), shape_of(out)
    named = "test_k.T.test_2999" if sys.version_info >= (3, 11) else "test_k.T"  # (unittest's own words: 3.11 names
    assert listed(shape_of(out)) == [(f"FAIL: test_2999 ({named})", 3)]  # the method in the parentheses, 3.10 not)


def test_cargo_test_q_whose_build_warns_first_is_a_test_run_not_the_warnings():
    """``cargo test -q`` hides the build's ``Compiling`` lines: its output starts with the build's warnings, and was
    told as "diagnostics, 0 errors, 2 warnings", its four failures and result not told (helper realkinds)."""
    data = (TOOLS / "cargo-test-q-warnings.txt").read_bytes()
    lines = data.decode().splitlines()
    results = [line for line in lines if line.startswith("test result: ")]
    assert len(results) == 4 and lines[0].startswith("warning: unused variable")
    last = max(n for n, line in enumerate(lines, 1) if line.startswith("test result: "))
    shape = shape_of(data)
    assert shape.startswith(f"{TEST_RUN_SHAPE} (cargo test), {len(lines)} lines: FAILED, 4 passed, 4 failed, 1 "
                            f"ignored in 4 test results (line {last}); "), shape
    failures = [(line[5:-len(" stdout ----")], n) for n, line in enumerate(lines, 1) if line.startswith("---- ")]
    assert listed(shape) == failures


def test_pytest_bars_of_one_character_around_a_long_title_are_read(tmp_path):
    """pytest fills its 80 columns around a title with at least one character a side: a result of every outcome
    (``= 3 failed, 12 passed, ... 2 errors in 0.10s =``) and a failure of a long parametrize id (``_ test_p[xxx...]
    _``) were missed -- "no result line", 4 of 5 failures listed (helper realkinds)."""
    (tmp_path / "test_long.py").write_text(
        "import pytest, warnings\ndef test_f1(): assert 0\ndef test_f2(): assert 0\n"
        "@pytest.mark.parametrize('i', range(12))\ndef test_w(i): warnings.warn('w%d' % i)\n"
        "@pytest.mark.skip\ndef test_s(): pass\n@pytest.mark.xfail\ndef test_xf(): assert 0\n"
        "@pytest.mark.xfail\ndef test_xp(): pass\ndef test_e(nofix): pass\ndef test_e2(nofix2): pass\n"
        "def test_desel(): pass\n@pytest.mark.parametrize('x', ['x' * 90])\ndef test_p(x): assert 0\n")
    out = run(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:scratchfs", "-p", "no:randomly",
               "-k", "not desel", "test_long.py"], tmp_path)
    lines = out.decode().splitlines()
    assert re.fullmatch(r"= (3 failed, 12 passed, 1 skipped, 1 deselected, 1 xfailed, 1 xpassed, 12 warnings, 2 "
                        r"errors in [\d.]+s) =", lines[-1])
    shape = shape_of(out)
    assert f": {lines[-1].strip('= ')} (line {len(lines)}); " in shape, shape
    bars = [(line.strip("_ "), n) for n, line in enumerate(lines, 1) if re.fullmatch(r"_+ \S.* _+", line)]
    assert len(bars) == 5 and bars[-1][0] == "test_p[" + "x" * 90 + "]"
    assert "; 3 failures and 2 errors: " in shape  # (test_p's bar is a failure's)
    assert [line for _, line in listed(shape)] == [line for _, line in bars]


def test_cargo_test_nocapture_names_each_failure_at_its_panic():
    """``cargo test -- --nocapture`` writes each test's output where it runs, with no ``---- name stdout ----``: its
    shape said "2 failed" and listed no failure (helper realkinds); each is at its ``thread 'name' panicked at``."""
    data = (TOOLS / "cargo-test-nocapture.txt").read_bytes()
    lines = data.decode().splitlines()
    assert not any(line.startswith("---- ") for line in lines)
    panics = [(re.match(r"thread '([^']+)'", line)[1], n) for n, line in enumerate(lines, 1)
              if re.match(r"thread '[^']+' \(\d+\) panicked at ", line)]
    shape = shape_of(data)
    assert "FAILED, 1 passed, 2 failed, 1 ignored" in shape and listed(shape) == panics == [
        ("tests::bad_one", 15), ("tests::panics", 41)], shape


@pytest.mark.parametrize("flags", [["-q"], [], ["-q", "-k", "many and 1"]])
def test_a_pytest_collection_names_its_count_and_where_each_files_tests_start(tmp_path, flags):
    """``pytest --collect-only -q`` (helper newuser3, a real one of 641 lines spilled for a model) was plain ``text``:
    the count on its last line and the files its node ids list were the model's to find. Its shape now gives the
    count and, for ``-q``, each file's first test at its line; without ``-q`` the banner's run, with its count."""
    for name in ("test_gen.py", "test_two.py", "test_three.py"):
        (tmp_path / name).write_text(_MODULE)
    out = run(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:scratchfs", "-p", "no:randomly",
               "--collect-only", *flags, "test_gen.py", "test_two.py", "test_three.py"], tmp_path)
    lines = out.decode().splitlines()
    shape = shape_of(out)
    result = lines[-1].strip("= ")
    assert re.fullmatch(r"(186|45/186) tests collected( \(141 deselected\))? in [\d.]+s", result), result
    runner = "pytest --collect-only" if "-q" in flags else "pytest"
    assert shape.startswith(f"{TEST_RUN_SHAPE} ({runner}), {len(lines)} lines: {result} (line {len(lines)})"), shape
    if "-q" in flags:
        firsts, seen = [], set()
        for n, line in enumerate(lines, 1):
            if "::" in line and line.split("::")[0] not in seen:
                seen.add(line.split("::")[0])
                firsts.append((line.split("::")[0], n))
        items = [(name, int(line.replace(",", ""))) for name, line in _ITEM_RE.findall(shape.split("; line=N")[0])]
        assert items[1:] == firsts  # (the first item is the result)
        assert shape.endswith("; line=N reads from one")


@pytest.mark.parametrize("text", [b"a.py::b is a name\nno result here\n", b"x.py::test_a\nx.py::test_b\n"])
def test_node_ids_without_a_collection_count_are_no_test_run(text):
    assert not shape_of(text).startswith(TEST_RUN_SHAPE)
