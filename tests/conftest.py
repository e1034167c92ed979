"""Shared fixtures: the plugin's store, clock and scope under the tests' names, and the real-data fixtures."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from scratchfs import ScratchStore
from tests.services import (  # noqa: F401
    own_postgres_server,
    pg_schema,
    postgres_dsn,
    postgres_server,
    postgres_template,
    postgres_url,
    s3_endpoint,
    s3_env,
)

pytest_plugins = ["pytester", "tests.alone"]  # the alone marker: tests/alone.py


def _bytecode_caches() -> None:
    """Bytecode caches for the suite's processes and the thousands of Python processes it starts (the command line,
    MCP servers, the structure workers), as a plain environment has them: with PYTHONDONTWRITEBYTECODE set (some
    sandboxes set it) none is written, so each process compiles the package from source -- ``python -m scratchfs
    --help`` takes 0.58 s of CPU without them against 0.23 s with them -- and each pytest-xdist worker rewrites
    every test module (collection: 20 s of CPU against 8 s). Done before the workers start (the controller's
    configure), so they and every process they start inherit it."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FIXTURE_FILES = sorted(p for p in FIXTURES.iterdir() if p.suffix in {".html", ".json", ".csv", ".txt"})

# a store fixture is shared by the examples of one test on purpose: every spill gets a fresh handle
settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
STRESS_EXAMPLES = 2000
"""Hypothesis examples per property test with ``SCRATCHFS_STRESS=1``, at least: the profile's, and the floor of a test
that sets its own count (its ``@settings`` would keep it; :func:`pytest_runtest_call` raises it)."""
settings.register_profile("stress", deadline=None, max_examples=STRESS_EXAMPLES,
                          suppress_health_check=list(HealthCheck))
settings.load_profile("stress" if os.environ.get("SCRATCHFS_STRESS") else "default")


BACKENDS = ("local", "postgres+files", "postgres+s3")
"""The combinations the contract tests run against: SQLite + files, PostgreSQL + files, PostgreSQL + S3."""
CONTRACT_MODULES = {"test_read_handle", "test_lines", "test_toolkit", "test_store", "test_patterns", "test_adapter",
                    "test_limits", "test_backend_contract", "test_structure_reads", "test_budgets"}
"""Test modules whose store fixtures run against every combination of :data:`BACKENDS`."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if module in CONTRACT_MODULES and "scratch_store_factory" in metafunc.fixturenames:
        local_only = metafunc.definition.get_closest_marker("local_backend") is not None
        metafunc.parametrize("backend", ("local",) if local_only else BACKENDS, indirect=True)


BACKEND_EXAMPLES = 12
"""Hypothesis examples per property test on the server backends (the local store runs the full profile; the
round-trips there are the same code above the seams, and every request here is a network round trip)."""
DEFAULT_EXAMPLES = 100
"""Hypothesis examples per property test in the default run, at most (Hypothesis's own default): a test that sets a
higher count for itself (150 to 1,500: the search engine's finders, the spill's CPU paths, the table votes) runs it
with ``SCRATCHFS_STRESS=1``, which raises every count to :data:`STRESS_EXAMPLES` at least. Its ``@example`` cases run
every time. (At 300, property tests were 399 s of the suite's 2,381 s summed, those set over 100 examples 195 s of
it -- ``python bench/suite_durations.py`` on a ``--durations=0`` run at 11:44 UTC on 2026-12-06 --: the suite is held
to about 10 minutes on 2 cores, and its long runs go behind the option.)"""


def examples_for(base: settings, item: pytest.Item) -> int | None:
    """The examples this property test runs instead of its own count, or ``None`` for its own."""
    callspec = getattr(item, "callspec", None)
    if os.environ.get("SCRATCHFS_STRESS"):
        return max(base.max_examples, STRESS_EXAMPLES)
    if callspec is not None and callspec.params.get("backend", "local") != "local":
        return min(base.max_examples, BACKEND_EXAMPLES)
    return DEFAULT_EXAMPLES if base.max_examples > DEFAULT_EXAMPLES else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    test = getattr(item, "obj", None)
    base = getattr(test, "_hypothesis_internal_use_settings", None)
    examples = None if base is None else examples_for(base, item)
    if examples is None:
        yield
        return
    test._hypothesis_internal_use_settings = settings(base, max_examples=examples)
    try:
        yield
    finally:
        test._hypothesis_internal_use_settings = base


def pytest_configure(config: pytest.Config) -> None:
    """A run started with SIGINT ignored (``nohup``, a background job of a script: ``pytest ... &``) passed that on to
    every process its tests start, and a stop signal ignored stays so (``scratchfs/mcp/stop_signals.py``): the tests
    that interrupt a child with SIGINT waited out their 300 s timeout. Python's own handler here makes the children
    start with the default disposition again (``tests/test_suite_signals.py``)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _bytecode_caches()


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The storage combination of this test (``"local"`` unless a contract test is parametrized over them)."""
    return getattr(request, "param", "local")


@pytest.fixture
def backend_urls(request: pytest.FixtureRequest, backend: str):
    """``name -> {index=..., blobs=...}``: the URLs of a store named ``name`` on this test's backend (each name its
    own PostgreSQL schema and S3 prefix, so two stores of one test are as separate as two roots)."""
    if backend == "local":
        return lambda name: {}
    dsn, schema = request.getfixturevalue("postgres_dsn"), request.getfixturevalue("pg_schema")
    bucket_url = request.getfixturevalue("s3_env") if backend == "postgres+s3" else None
    names: dict[str, int] = {}

    def urls(name: str) -> dict:
        number = names.setdefault(name, len(names))
        found = {"index": postgres_url(dsn, f"{schema}_{number}")}
        if bucket_url:
            found["blobs"] = f"{bucket_url}-{number}"
        return found

    return urls


@pytest.fixture
def scratch_store_factory(tmp_path, scratch_clock, backend_urls):
    """The plugin's factory (see :mod:`scratchfs.pytest_plugin`), on this test's backend."""
    stores: list[ScratchStore] = []

    def factory(name: str = "extra", **settings):
        settings.setdefault("clock", scratch_clock)
        settings.setdefault("orphan_grace", 0.0)
        store = ScratchStore(tmp_path / name, **backend_urls(name), **settings)
        stores.append(store)
        return store

    yield factory
    for store in stores:
        store.close()


# The store, clock and scope fixtures come from scratchfs's own pytest plugin (scratchfs.pytest_plugin, installed
# with the package): these names are the ones the tests were written with.


@pytest.fixture
def clock(scratch_clock):
    return scratch_clock


@pytest.fixture
def store(scratch_store):
    return scratch_store


@pytest.fixture
def small_frames_store(scratch_store_factory):
    """A store with 4 KiB frames, so that modest contents span many frames."""
    return scratch_store_factory("small", frame_bytes=4096)


@pytest.fixture
def scope(scratch_scope):
    return scratch_scope


@pytest.fixture
def shared_tmp():
    """A directory another (unprivileged) user can traverse, for tests that run a process as one: pytest's own
    tmp_path is private to root. Its subdirectories are made traversable again for the cleanup."""
    path = Path(tempfile.mkdtemp(prefix="scratchfs-shared-"))
    path.chmod(0o755)
    yield path
    for dirpath, dirnames, _files in os.walk(path):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o700)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def fixture_data() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in FIXTURE_FILES}


@pytest.fixture
def segments_on_for_segment_cases(request, monkeypatch):
    """The cases that exercise segment files turn them on (the default, set here so that a
    ``$SCRATCHFS_SEGMENT_ENTRY_BYTES=0`` in the caller's environment does not turn them off), for this process and
    the processes they start."""
    if "segment" in request.node.name:
        monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", "65536")

