"""The ``alone`` marker under pytest-xdist (``tests/alone.py``): no other test runs beside an ``alone`` test's call,
a worker waiting to run one waits for the test running on the other worker, not for the tests after it, and the
``alone`` tests run after the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

TESTS = '''
import json, os, time
import pytest

LOG = os.environ["ALONE_LOG"]

def note(what, name):
    with open(LOG, "a") as log:
        log.write(json.dumps([what, name, time.monotonic()]) + "\\n")

def _alone(number):
    @pytest.mark.alone
    def test():
        note("start", f"alone{number}")
        time.sleep(0.1)
        note("end", f"alone{number}")
    return test

def _others(first):
    @pytest.mark.parametrize("n", range(first, first + 5))
    def test(n):
        note("start", n)
        time.sleep(0.03)
        note("end", n)
    return test

for _n in range(6):  # each alone test between five others
    globals()[f"test_other_{_n}"], globals()[f"test_alone_{_n}"] = _others(5 * _n), _alone(_n)
'''

CONFTEST = '''
import pytest
from test_mixed import note

@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    if item.get_closest_marker("alone"):
        note("asked", "alone")  # before any lock: the worker asks for the run from here
    yield
'''


def test_an_alone_call_runs_beside_no_test_and_waits_for_one_test_at_most(pytester: pytest.Pytester, monkeypatch,
                                                                          tmp_path):
    """Six ``alone`` tests, each after five others in its file. None runs beside another test, and a worker
    waiting to run one waits for the one test running on the other worker. And they run after the others: strewn
    among them, nearly each one waited for a test on the other worker, idle meanwhile (474 s of worker time in a
    run of the suite); run last, only the first ones do, the others waiting for each other's calls, which run one
    at a time anyway."""
    log = tmp_path / "log"
    monkeypatch.setenv("ALONE_LOG", str(log))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # (xdist alone: the others cost ~2 s a process)
    pytester.makepyfile(test_mixed=TESTS, conftest=CONFTEST)
    pytester.makeini("[pytest]\nmarkers = alone: runs alone\n")
    result = pytester.runpytest_subprocess("-p", "xdist.plugin", "-p", "tests.alone", "-n", "2", "--dist", "load",
                                           "-q")
    result.assert_outcomes(passed=36)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    spans: dict = {}
    for what, name, at in events:
        spans.setdefault(name, {})[what] = at
    asks = sorted(at for what, _, at in events if what == "asked")
    for number in range(6):
        alone = spans[f"alone{number}"]
        beside = [name for name, span in spans.items() if name != f"alone{number}" and "end" in span
                  and span["start"] < alone["end"] and span["end"] > alone["start"]]
        assert beside == [], (number, beside)
        asked = max(at for at in asks if at < alone["start"])
        started_while_waiting = [name for name, span in spans.items() if asked < span.get("start", 0) < alone["start"]]
        assert len(started_while_waiting) <= 1, (number, started_while_waiting)
    others = [span for name, span in spans.items() if isinstance(name, int)]
    waited = [at for at in asks if any(span["start"] < at < span["end"] for span in others)]
    assert len(waited) <= 2, (len(waited), len(asks))


WAITS_TESTS = '''
import json, os, time
import pytest

LOG = os.environ["ALONE_LOG"]

def note(what, name):
    with open(LOG, "a") as log:
        log.write(json.dumps([what, name, time.monotonic()]) + "\\n")

@pytest.mark.parametrize("n", range(8))
@pytest.mark.alone(waits=True)
def test_waits(n):
    note("start", f"waits{n}")
    time.sleep(0.3)
    note("end", f"waits{n}")

@pytest.mark.parametrize("n", range(3))
@pytest.mark.alone
def test_alone(n):
    note("start", f"alone{n}")
    time.sleep(0.1)
    note("end", f"alone{n}")

@pytest.mark.parametrize("n", range(20))
def test_other(n):
    note("start", f"other{n}")
    time.sleep(0.03)
    note("end", f"other{n}")
'''


def test_waits_calls_run_beside_each_other_and_beside_no_other_test(pytester: pytest.Pytester, monkeypatch,
                                                                      tmp_path):
    """Eight ``alone(waits=True)`` tests of 0.3 s (among three ``alone`` ones and twenty others): none runs beside a
    test of another kind, the ``alone`` ones beside none, and the waits ones beside each other -- the eight took
    2.4 s one at a time, about half that here."""
    log = tmp_path / "log"
    monkeypatch.setenv("ALONE_LOG", str(log))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_waits=WAITS_TESTS)
    pytester.makeini("[pytest]\nmarkers = alone: runs alone\n")
    result = pytester.runpytest_subprocess("-p", "xdist.plugin", "-p", "tests.alone", "-n", "2", "--dist", "load",
                                           "-q")
    result.assert_outcomes(passed=31)
    spans: dict = {}
    for what, name, at in (json.loads(line) for line in log.read_text().splitlines()):
        spans.setdefault(name, {})[what] = at

    def beside(name: str) -> list[str]:
        span = spans[name]
        return [other for other, them in spans.items()
                if other != name and them["start"] < span["end"] and them["end"] > span["start"]]

    for number in range(3):
        assert beside(f"alone{number}") == [], number
    paired = 0
    for number in range(8):
        near = beside(f"waits{number}")
        assert all(name.startswith("waits") for name in near), (number, near)
        paired += bool(near)
    assert paired >= 4, paired
    waits = [span for name, span in spans.items() if name.startswith("waits")]
    assert max(span["end"] for span in waits) - min(span["start"] for span in waits) < 2.0
