"""Behaviours every storage combination shares (SQLite + files, PostgreSQL + files, PostgreSQL + S3: the module is
one of conftest's ``CONTRACT_MODULES``, so every test here runs on each): what a model or a program sees must not
depend on where the store keeps its rows and blobs -- the same error types, the same replies, the same counts."""

from __future__ import annotations

import os

import pytest

from scratchfs import Deleted, Expired, NotFound


def test_an_entry_reported_expired_stays_gone_when_the_clock_steps_back(scratch_store_factory, scratch_clock):
    """A read that reports an entry Expired removes its row, on every backend: PostgreSQL used to leave it to the
    sweep, so a clock stepping back (the store's, or the database server's) made a handle and a scratchpad value
    that a read had reported expired readable again -- and listed -- where the local store said NotFound."""
    store = scratch_store_factory("a")
    scope = store.scope("run", "agent")
    handle = scope.spill(b"w" * 20_000, source_tool="t", ttl=10).handle
    scope.scratch_write("k", b"value", ttl=10)
    scratch_clock.advance(11)
    with pytest.raises(Expired):
        scope.read_handle(handle, 0, 10)
    with pytest.raises(Expired):
        scope.scratch_read("k")
    scratch_clock.advance(-31)  # back before the expiry
    with pytest.raises(NotFound):
        scope.read_handle(handle, 0, 10)
    with pytest.raises(NotFound):
        scope.scratch_read("k")
    assert scope.scratch_list() == [] and store.list_entries_for_run("run") == []
    if hasattr(store.blobs, "agent_dir"):  # local files: theirs went with them
        assert not list(store.blobs.agent_dir("run", "agent").glob("*.zst"))
    assert store.sweep(full=True).rows_deleted == 0  # nothing left for the sweep: the reads removed both


YEARS_9_5 = 9.5 * 365.25 * 86400


def test_an_entry_written_while_the_clock_was_ahead_lives_its_ttl_once_a_read_sees_the_clock_corrected(
        scratch_store_factory, scratch_clock):
    """On PostgreSQL an entry written while the clock was 9.5 years fast used to live 9.5 years: no read capped its
    expiry at now + ttl, as the local store's do (README, Clock steps)."""
    store = scratch_store_factory("a")
    scope = store.scope("run", "agent")
    start = scratch_clock()
    scratch_clock.advance(YEARS_9_5)
    handle = scope.spill(b"x" * 20_000, source_tool="t", ttl=60).handle
    scope.scratch_write("k", b"value", ttl=60)
    scratch_clock.set(start)  # corrected
    assert scope.read_handle(handle, 0, 10).data == b"x" * 10  # capped now: expires at start + 60
    assert scope.scratch_read("k") == b"value"
    scratch_clock.advance(59)
    assert scope.read_handle(handle, 0, 10).data == b"x" * 10
    scratch_clock.advance(2)
    with pytest.raises(Expired):
        scope.read_handle(handle, 0, 10)
    with pytest.raises(Expired):
        scope.scratch_read("k")
    assert store.sweep().rows_deleted == 0  # the reads that reported Expired removed them already
    assert store.list_entries_for_run("run") == []


def test_a_sweep_caps_entries_born_in_the_future(scratch_store_factory, scratch_clock):
    """On PostgreSQL the sweep used to leave entries born 9.5 years ahead alone (the local sweep caps them at
    now + ttl), so they outlived their TTL by the whole step. Each entry has a blob of its own (no segment file
    locally), so that the files the sweeps remove are counted too."""
    store = scratch_store_factory("a")
    if hasattr(store.blobs, "segment_entry_bytes"):
        store.blobs.segment_entry_bytes = 0
    scope = store.scope("run", "agent")
    start = scratch_clock()
    scratch_clock.advance(YEARS_9_5)
    for i in range(5):
        scope.spill(b"y" * 10_000, source_tool="t", ttl=60 + i)
    scratch_clock.set(start)
    assert store.sweep().rows_deleted == 0  # nothing expired yet; the five are capped
    assert sorted(e.expires_at - start for e in store.list_entries_for_run("run")) == [60, 61, 62, 63, 64]
    scratch_clock.advance(62)
    result = store.sweep()
    assert (result.rows_deleted, result.files_deleted) == (3, 3)
    scratch_clock.advance(10)
    assert store.sweep().rows_deleted == 2
    assert store.list_entries_for_run("run") == []


@pytest.mark.parametrize("change", ["overwrite", "delete", "delete_run", "sweep"])
def test_a_whole_read_in_progress_survives_an_overwrite_or_a_delete_of_its_entry(scratch_store_factory, scratch_clock,
                                                                                change):
    """iter_content holds its blob open until it ends, "so an overwrite, a delete or a sweep meanwhile changes none
    of the bytes given": on local files an unlinked file stays readable. On S3 the old object was deleted at once,
    and the read failed half-way with StorageError ("the object ... is gone (deleted while it was being read)"): in
    this process the object's deletion -- by an overwrite, a delete, or the sweep of an expired entry -- now waits for
    the readers that hold it open."""
    store = scratch_store_factory("a")
    scope = store.scope("run", "agent")
    data = os.urandom(12 * 1024 * 1024)  # more than one batch of range requests
    scope.scratch_write("k", data, ttl=60)
    chunks = scope.iter_content("scratch", "k")
    first = next(chunks)
    if change == "overwrite":
        scope.scratch_write("k", b"new")
    elif change == "delete":
        assert scope.scratch_delete("k")
    elif change == "delete_run":
        assert store.delete_run("run") == 1
    else:
        scratch_clock.advance(61)
        assert store.sweep(full=True).rows_deleted == 1
    assert first + b"".join(chunks) == data
    if change == "overwrite":
        assert scope.scratch_read("k") == b"new"
    # the old blob is gone once its reader is done, with no sweep: "new" is the one blob left
    assert len(store.blobs.blob_files()) == (change == "overwrite")


def test_the_whole_listing_and_its_pages_order_entries_born_at_the_same_time_alike(scratch_store_factory,
                                                                                 scratch_clock):
    """Entries created at the same instant (a frozen or coarse clock, a burst of writes) came out of
    ``list_entries_for_run`` and ``scratch_list`` in write order, but out of their paged forms in key order: a program
    that read the first page and then the whole list, or compared the two, saw two orders of one run. Both now order
    ties by agent, kind and key (the keyset pages' order, unique within a run)."""
    store = scratch_store_factory("a")
    written = []
    for agent, key in (("b", "z"), ("a", "y"), ("b", "a"), ("a", "m"), ("b", "q")):  # one instant: the clock stands
        store.scope("run", agent).scratch_write(key, b"v")
        written.append((agent, key))
    store.scope("run", "a").spill(b"s" * 20_000, source_tool="t")
    whole = [(e.agent_id, e.kind, e.key) for e in store.list_entries_for_run("run")]
    paged, cursor = [], None
    while True:
        page = store.list_page_for_run("run", limit=2, cursor=cursor)
        paged += [(e.agent_id, e.kind, e.key) for e in page.entries]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert whole == paged == sorted(whole)
    assert [key for _, kind, key in whole if kind == "scratch"] == ["m", "y", "a", "q", "z"]
    listed = [e.key for e in store.scope("run", "b").scratch_list()]
    pages = store.scope("run", "b").scratch_page(limit=10)
    assert listed == [e.key for e in pages.entries] == ["a", "q", "z"]


@pytest.mark.parametrize("kind", ["handle", "scratch"])
def test_a_write_a_delete_of_its_run_overtakes_reads_as_deleted_with_the_run(scratch_store_factory, scratch_clock,
                                                                            monkeypatch, kind):
    """A spill still in flight when its run was deleted returned its stub, and the handle then read as "no handle
    ... in this scope", unlike every entry the delete found ("was deleted with its run at ..."; a new user's trial
    with two writing agents and ``scratchfs delete-run``). The write is ordered before the delete, which took it:
    its key now reads as the others do."""
    store = scratch_store_factory("a")
    scope = store.scope("run", "agent")
    scope.scratch_write("before", b"v")
    real_write = store.blobs.write

    def write_then_delete(*args, **kwargs):
        pending = real_write(*args, **kwargs)
        scratch_clock.advance(5)
        assert store.delete_run("run") == 1  # the entry written before; the one in flight has no row yet
        return pending

    monkeypatch.setattr(store.blobs, "write", write_then_delete)
    deleted_at = scratch_clock() + 5
    if kind == "handle":
        key = scope.spill(b"z" * 20_000, source_tool="t").handle  # the write returns: it came before the delete
        read = lambda: scope.read_handle(key, 0, 10)  # noqa: E731
    else:
        key = "plan"
        scope.scratch_write(key, b"z" * 20_000)
        read = lambda: scope.scratch_read(key)  # noqa: E731
    monkeypatch.setattr(store.blobs, "write", real_write)
    for attempt in (read, lambda: scope.scratch_read("before")):
        with pytest.raises(Deleted) as caught:
            attempt()
        assert "was deleted with its run at " in str(caught.value) and f"(epoch {deleted_at:.3f})" in str(caught.value)
    assert store.list_entries_for_run("run") == []


def _stored_copies_removed(store, clock):
    """A scope of ``store`` with a spill and a scratchpad key 'k' whose stored copies were removed from outside (their
    rows still live): ``(scope, the spill's handle)``."""
    scope = store.scope("run", "agent")
    handle = scope.spill(os.urandom(100_000), source_tool="t").handle
    scope.scratch_write("k", os.urandom(100_000))
    for kind, key in (("handle", handle), ("scratch", "k")):
        store.blobs.unlink("run", "agent", store.index.lookup("run", "agent", kind, key, clock()).blob)
    return scope, handle


def test_a_read_of_an_entry_whose_stored_copy_is_gone_says_so_not_a_near_key(scratch_store_factory, scratch_clock):
    """An entry whose stored copy was removed from outside (its row still live, until a sweep) read as "no handle
    'h_x' in this scope ...; did you mean 'h_x', a handle of this scope one or two characters away?" -- the very
    handle read, so a model read it again and again -- and a key as "no key 'k' ...; scratch_list lists the keys",
    which listed 'k' (hostile helper's finding). Both now say the stored copy is gone and to make it again, on
    every backend; no near handle is ever the handle itself."""
    store = scratch_store_factory("a")
    scope, handle = _stored_copies_removed(store, scratch_clock)
    for read, said in ((lambda: scope.read_handle(handle, 0, 10), f"handle {handle!r} has lost its stored copy "
                        "(removed from outside the store); run the tool that made it again if it is still needed"),
                       (lambda: scope.scratch_read("k"), "key 'k' has lost its stored copy (removed from outside "
                        "the store); write it again if it is still needed")):
        with pytest.raises(NotFound) as caught:
            read()
        assert str(caught.value) == said
    with pytest.raises(NotFound) as near:  # a handle a character away from a live one is still told that one
        scope.read_handle(handle[:-1] + ("a" if handle[-1] != "a" else "b"), 0, 10)
    assert f"did you mean {handle!r}" in str(near.value)


@pytest.mark.parametrize("remover", ["fsck --repair", "a sweep"])
def test_a_read_of_an_entry_whose_broken_row_was_removed_is_told_why(scratch_store_factory, scratch_clock, remover):
    """fsck --repair (and a sweep) removed the row of an entry whose stored copy was gone, and a later read said
    only "no handle ... in this scope", as of one never written (helper attacker's finding): the row now leaves a
    tombstone, and the read raises Deleted saying what removed it, why and when -- on every backend."""
    from scratchfs.api.inspector import fsck

    store = scratch_store_factory("a")
    scope, handle = _stored_copies_removed(store, scratch_clock)
    if remover == "fsck --repair":
        assert fsck(store, repair=True).remaining == 0
    else:
        store.sweep(full=True)
    for read, what in ((lambda: scope.read_handle(handle, 0, 10), f"handle {handle!r}"),
                       (lambda: scope.scratch_read("k"), "key 'k'")):
        with pytest.raises(Deleted) as caught:
            read()
        assert str(caught.value).startswith(f"{what} was removed by {remover} (its stored copy was missing) at "), \
            caught.value
        assert "if it is still needed" in str(caught.value)
    assert store.scope("run", "other").scratch_list() == []
    with pytest.raises(NotFound) as other:  # another scope's read learns nothing
        store.scope("run", "other").read_handle(handle, 0, 10)
    assert type(other.value) is NotFound


def test_a_models_listing_of_its_spilled_results_pages_newest_first_each_once(scratch_store_factory, scratch_clock):
    """``scratch_list(spilled=true)`` (a model whose context was cut finds its handles again) on every backend: the
    index's newest-first page (SQLite's and PostgreSQL's own query), its cursor followed to the end, each handle
    once, newest first -- entries born in the same second included -- another agent's and the notes not listed."""
    from scratchfs.adapter import ScratchTools

    store = scratch_store_factory("a")
    scope = store.scope("run", "agent")
    handles = []
    for i in range(45):
        handles.append(scope.spill(f"result {i}\n" * 40, source_tool=f"tool-{i}").handle)
        if i % 3 == 2:
            scratch_clock.advance(1)  # (three born in each second: the order's tie-break on its id)
    store.scope("run", "other").spill(b"theirs\n" * 40, source_tool="t")
    scope.scratch_write("note", b"mine")
    oldest_first = [e.key for e in scope.list_entries() if e.kind == "handle"]
    tools, listed, cursor = ScratchTools(scope), [], None
    for _ in range(50):
        reply = tools.call("scratch_list", {"spilled": True, "limit": 7, **({"cursor": cursor} if cursor else {})})
        listed += [row["handle"] for row in reply["entries"]]
        if reply["next_call"] is None:
            break
        cursor = reply["next_call"].split('cursor="', 1)[1].split('"', 1)[0]
    assert sorted(listed) == sorted(handles) and len(listed) == len(handles)
    assert listed == oldest_first[::-1]
