"""Ids from models: validated, and encoded as directory names that never leave the root or collide."""

from __future__ import annotations

import os
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs import InvalidArgument, NotFound
from scratchfs.foundation.checks import check_run_id, new_handle, path_part
from scratchfs.foundation.limits import MAX_ID_BYTES, MAX_KEY_BYTES

SAFE = set("abcdefghijklmnopqrstuvwxyz0123456789._-%")


@given(st.text(min_size=1, max_size=300))
def test_path_part_is_one_safe_name(value):
    try:
        check_run_id(value)
    except InvalidArgument:
        return
    name = path_part(value)
    assert set(name) <= SAFE
    assert name not in (".", "..") and not name.startswith(".")
    assert 0 < len(name) <= 130


@given(st.text(min_size=1, max_size=80), st.text(min_size=1, max_size=80))
def test_path_part_is_injective(a, b):
    if a != b:
        assert path_part(a) != path_part(b)
        assert path_part(a).lower() != path_part(b).lower()  # also on case-insensitive file systems


BAD_TEXT = ["", "a\0b", "line\nbreak", "tab\there", "\x7f", "\x85", "\udcff", b"bytes", None, 5]


@pytest.mark.parametrize("bad", [*BAD_TEXT, "x" * (MAX_ID_BYTES + 1), "é" * 129])
def test_bad_ids_raise_invalid_argument(store, bad):
    with pytest.raises(InvalidArgument):
        store.scope(bad, "agent")
    with pytest.raises(InvalidArgument):
        store.scope("run", bad)
    with pytest.raises(InvalidArgument):
        store.delete_run(bad)
    with pytest.raises(InvalidArgument):
        store.list_entries_for_run(bad)


@pytest.mark.parametrize("bad", [*BAD_TEXT, "k" * (MAX_KEY_BYTES + 1)])
def test_bad_keys_raise_invalid_argument(scope, bad):
    for call in (lambda: scope.scratch_write(bad, b"v"), lambda: scope.scratch_read(bad),
                 lambda: scope.scratch_delete(bad)):
        with pytest.raises(InvalidArgument, match="key"):
            call()
    assert scope.scratch_list() == []


def test_longest_ids_and_keys_work(store):
    run, agent, key = "r" * MAX_ID_BYTES, "é" * (MAX_ID_BYTES // 2), "k" * MAX_KEY_BYTES
    scope = store.scope(run, agent)
    scope.scratch_write(key, b"v")
    assert scope.scratch_read(key) == b"v"
    assert [e.key for e in store.list_entries_for_run(run)] == [key]


@pytest.mark.parametrize(("a", "b"), [
    ("../x", "..%2Fx"), ("a/b", "a%2Fb"), ("a\\b", "a/b"), ("A", "a"), (".", "%2E"), ("..", "%2E%2E"),
    (unicodedata.normalize("NFC", "é"), unicodedata.normalize("NFD", "é")), ("x" * 200, "x" * 199 + "y"),
])
def test_tricky_ids_stay_distinct_and_inside_the_root(store, a, b):
    sa, sb = store.scope(a, a), store.scope(b, b)
    ha = sa.spill(b"A" * 100).handle
    hb = sb.spill(b"B" * 100).handle
    assert sa.read_handle(ha).data == b"A" * 100
    assert sb.read_handle(hb).data == b"B" * 100
    with pytest.raises(NotFound):
        sa.read_handle(hb)
    assert store.blobs.run_dir(a) != store.blobs.run_dir(b)
    root = os.path.realpath(store.root / "runs")
    for run in (a, b):
        path = os.path.realpath(store.blobs.agent_dir(run, run))
        assert os.path.commonpath([root, path]) == root and os.path.isdir(path)
    store.delete_run(a)
    assert sb.read_handle(hb).data == b"B" * 100


def test_handles_are_unique_and_unguessable():
    handles = {new_handle() for _ in range(10_000)}
    assert len(handles) == 10_000
    assert all(len(h) == 26 and h.startswith("h_") for h in handles)


def test_tokens_read_their_random_bits_many_at_a_time(monkeypatch):
    # a spill makes two tokens: one getrandom() each was two system calls a spill (issue 16's T1); now one per 64
    from scratchfs.foundation import checks

    reads = []
    real = checks.secrets.token_bytes
    monkeypatch.setattr(checks.secrets, "token_bytes", lambda n: reads.append(n) or real(n))
    tokens = {checks.new_token() for _ in range(640)}
    assert len(tokens) == 640 and all(checks.TOKEN_RE.match(t) for t in tokens)
    assert 10 <= len(reads) <= 11 and set(reads) == {15 * 64}


def test_tokens_of_threads_are_all_different():
    import threading

    from scratchfs.foundation.checks import new_token

    made: list[list[str]] = [[] for _ in range(8)]
    threads = [threading.Thread(target=lambda out=out: out.extend(new_token() for _ in range(2000))) for out in made]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({t for out in made for t in out}) == 8 * 2000


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_a_fork_child_never_hands_out_its_parents_next_tokens():
    from scratchfs.foundation.checks import new_token

    new_token()  # the pool holds the next 63 tokens' bits now
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.write(write_end, " ".join(new_token() for _ in range(63)).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        child = set(pipe.read().decode().split())
    os.waitpid(pid, 0)
    parent = {new_token() for _ in range(63)}
    assert len(child) == 63 and not child & parent
