"""How many examples a property test runs (``tests/conftest.py``): its own count up to DEFAULT_EXAMPLES in the
default run, at least STRESS_EXAMPLES with ``SCRATCHFS_STRESS=1``, BACKEND_EXAMPLES at most on a server backend."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import settings

from tests.conftest import BACKEND_EXAMPLES, DEFAULT_EXAMPLES, STRESS_EXAMPLES, examples_for

LOCAL = SimpleNamespace()
ON_S3 = SimpleNamespace(callspec=SimpleNamespace(params={"backend": "postgres+s3"}))


@pytest.mark.parametrize(("own", "stress", "item", "runs"), [
    (1500, False, LOCAL, DEFAULT_EXAMPLES), (DEFAULT_EXAMPLES, False, LOCAL, None), (60, False, LOCAL, None),
    (1500, True, LOCAL, STRESS_EXAMPLES), (60, True, LOCAL, STRESS_EXAMPLES), (3000, True, LOCAL, 3000),
    (1500, False, ON_S3, BACKEND_EXAMPLES), (60, True, ON_S3, STRESS_EXAMPLES)])
def test_a_property_test_runs_its_own_count_within_the_run_s_bounds(monkeypatch, own, stress, item, runs):
    if stress:
        monkeypatch.setenv("SCRATCHFS_STRESS", "1")
    else:
        monkeypatch.delenv("SCRATCHFS_STRESS", raising=False)
    assert examples_for(settings(max_examples=own), item) == runs
