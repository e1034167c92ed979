"""Per-run quotas, refresh on read, and errors that say what happened to one's own entry."""

from __future__ import annotations

import json
import logging
import re

import pytest

from scratchfs import Deleted, Expired, NotFound, Observation, QuotaExceeded, ScratchStore
from scratchfs.foundation.limits import MAX_STUB_BYTES


@pytest.fixture
def quota_store(tmp_path, clock):
    with ScratchStore(tmp_path, clock=clock, run_quota_entries=3, run_quota_bytes=20_000) as store:
        yield store


def _segment_bytes(root) -> int:
    return sum(p.stat().st_size for p in (root / "runs").rglob("*") if p.is_file())


@pytest.mark.parametrize("kind", ["spill", "scratch_write"])
def test_a_refused_write_retried_leaves_no_bytes_behind(tmp_path, clock, kind):
    """A write the quota refuses is rolled back from its segment: retried 30 times, the run's files do not grow
    (before: each refused 40 KB value left its bytes in the segment until a sweep, 300 s after the last write)."""
    import base64
    import os

    with ScratchStore(tmp_path, clock=clock, run_quota_bytes=20 * 1024) as store:
        scope = store.scope("q", "a")
        scope.scratch_write("small", b"fits")
        before = _segment_bytes(tmp_path)
        for i in range(30):
            value = base64.b64encode(os.urandom(30_000))
            with pytest.raises(QuotaExceeded):
                scope.spill(value) if kind == "spill" else scope.scratch_write(f"big{i}", value)
        assert _segment_bytes(tmp_path) == before
        assert scope.scratch_read("small") == b"fits"
        scope.scratch_write("after", b"still written")  # the segment goes on after the cut
        assert scope.scratch_read("after") == b"still written"
    with ScratchStore(tmp_path, clock=clock, run_quota_bytes=20 * 1024) as store:
        assert store.scope("q", "a").scratch_read("after") == b"still written"


def test_a_store_whose_only_write_was_refused_leaves_no_segment_file(tmp_path, clock):
    """One refused spill per process (the CLI's case) leaves no empty segment file to wait for a sweep."""
    import os

    for _ in range(3):
        with ScratchStore(tmp_path, clock=clock, run_quota_bytes=10 * 1024) as store, pytest.raises(QuotaExceeded):
            store.scope("qc", "a").spill(os.urandom(30_000))  # alone over the quota: refused after writing
    assert [p.name for p in (tmp_path / "runs").rglob("*") if p.is_file()] == []


def test_entry_quota(quota_store, clock):
    scope = quota_store.scope("run", "a")
    for key in ("a", "b", "c"):
        scope.scratch_write(key, b"v")
    scope.scratch_write("a", b"overwriting does not add an entry")
    with pytest.raises(QuotaExceeded, match="quota of 3"):
        scope.scratch_write("d", b"v")
    with pytest.raises(QuotaExceeded):
        scope.spill(b"x" * 10)
    assert quota_store.scope("other-run", "a").spill(b"x").size == 1  # another run has its own quota
    assert scope.scratch_delete("b")
    scope.scratch_write("d", b"v")
    clock.advance(3601)  # expired entries no longer count
    scope.scratch_write("e", b"v")
    assert len(quota_store.list_entries_for_run("run")) == 1


def test_byte_quota_counts_stored_bytes(quota_store):
    import os

    scope = quota_store.scope("run", "a")
    scope.spill(os.urandom(12_000))  # incompressible: about 12 KB stored
    with pytest.raises(QuotaExceeded, match="stored bytes"):
        scope.spill(os.urandom(12_000))
    assert len(quota_store.list_entries_for_run("run")) == 1
    scope.spill(b"a" * 1_000_000)  # compresses to a few hundred bytes: fits
    files = [f for _, _, fs in os.walk(quota_store.root / "runs") for f in fs]
    assert len(files) == 2  # the refused spill left no file


@pytest.mark.parametrize("content", ["é" * 30_000, b"\x00\xff" * 20_000, bytearray(b"line\n" * 4000)])
def test_offload_over_quota_gives_a_preview_and_a_notice_not_the_flood(quota_store, caplog, content):
    """Before: the 60 KB result went through whole, into the context the quota and the spill exist to protect."""
    scope = quota_store.scope("run", "a")
    for key in ("a", "b", "c"):
        scope.scratch_write(key, b"v")
    obs = Observation("sql.query", content, "query")
    with caplog.at_level(logging.ERROR, logger="scratchfs"):
        out = scope.offload(obs)
    raw = content.encode() if isinstance(content, str) else bytes(content)
    notice = json.loads(out.content)
    assert len(out.content.encode()) <= MAX_STUB_BYTES and out.stub is None
    assert set(notice) == {"preview", "size", "stored", "note"} and notice["stored"] is False
    assert notice["size"] == len(raw) and len(notice["preview"]) > 100
    if b"\x00" in raw:  # binary: a hex dump, as a range read and a stub show it
        assert notice["preview"].startswith("00000000  00 ff 00 ff ")
    else:
        assert raw.decode("utf-8", "replace").startswith(notice["preview"])
    note = notice["note"]
    assert "was NOT stored: quota exceeded: run 'run' is at its quota: it holds 3 entries, its quota 3" in note
    assert out.refused.startswith("run 'run' is at its quota")
    (record,) = [r for r in caplog.records if r.name.startswith("scratchfs")]  # (no other library's)
    assert record.exc_info is None  # an expected refusal: no traceback
    assert record.getMessage().startswith("scratchfs: spilling the result of 'sql.query' failed (quota exceeded: "
                                          "run 'run' is at its quota: it holds 3 entries, its quota 3;")


def test_a_quota_notice_tells_the_model_only_what_it_can_do(quota_store):
    """A run filled by spilled results told the model to 'Free room (scratch_delete values no longer needed)': it
    has no tool that deletes a spilled result, and scratch_delete of a handle deletes nothing (a new user's trial,
    through mcp-proxy). The notice offers deleting values only where the scope holds some."""
    scope, other = quota_store.scope("run", "a"), quota_store.scope("run", "b")  # one run's quota, two scopes
    other.scratch_write("k", b"v")  # a value of b's own
    for _ in range(2):
        scope.spill(b"row\n" * 3000)
    note = json.loads(scope.offload(Observation("sql.query", "x" * 60_000, "query")).content)["note"]
    assert "You cannot free room" in note and "scratch_delete removes only scratchpad values" in note, note
    assert "Free room by deleting" not in note
    assert "delete entries" not in note, note  # (the operator's advice, which no tool of the model's follows)
    note = json.loads(other.offload(Observation("sql.query", "x" * 60_000, "query")).content)["note"]
    assert "Free room by deleting scratchpad values no longer needed (scratch_list, scratch_delete)" in note, note
    from scratchfs.api.contract import ScratchTools

    handle = scope.list_entries()[0].key  # scratch_delete of a handle said only deleted: false
    reply = ScratchTools(scope).call("scratch_delete", {"key": handle})
    assert reply["deleted"] is False and "handle of a spilled result, not a scratchpad key" in reply["note"]
    assert ScratchTools(scope).call("scratch_delete", {"key": "plan"}) == {
        "key": "plan", "deleted": False,
        "note": "nothing deleted: no key 'plan' in this scope (run 'run', agent 'a'); another agent's keys are not "
                "read here; scratch_list lists the keys of this scope"}


def test_a_result_over_the_whole_quota_is_told_so_not_to_delete(quota_store):
    """A result whose stored bytes alone are over the run's byte quota said "... over its quota of 300,000; delete
    entries or wait for them to expire ... Free room by deleting scratchpad values" (a new user's trial: a 1.8 MB
    page against a 300 KB quota): neither deleting nor waiting can make room, and the model was sent to try. The
    error and the notice say no deletion makes room; a result that fits once others are gone keeps the old advice."""
    import os

    scope = quota_store.scope("run", "a")
    scope.scratch_write("k", b"v")  # a value the model could delete: not enough, whatever it deletes
    big = os.urandom(30_000)  # incompressible: about 30 KB stored, over the 20,000-byte quota by itself
    with pytest.raises(QuotaExceeded) as caught:
        scope.spill(big)
    assert caught.value.alone
    assert re.fullmatch(r"the entry alone takes 30,\d{3} stored bytes, over run 'run''s quota of 20,000: no "
                        r"deletion makes room for it; store less", str(caught.value)), str(caught.value)
    note = json.loads(scope.offload(Observation("sql.query", big.hex(), "query")).content)["note"]
    assert "No deletion can make room: this result alone is larger than the run's whole quota" in note, note
    assert "Free room by deleting" not in note and "wait for them to expire" not in note
    scope.spill(os.urandom(12_000))
    with pytest.raises(QuotaExceeded) as caught:  # fits alone: over only with what the run holds
        scope.spill(os.urandom(12_000))
    assert not caught.value.alone and "delete entries or wait for them to expire" in str(caught.value)
    import pickle

    copy = pickle.loads(pickle.dumps(QuotaExceeded("m", alone=True)))
    assert (str(copy), copy.alone) == ("m", True)


def test_a_quota_hit_while_offloading_is_one_stderr_line_naming_the_quota(quota_store, capfd):
    """A quota hit in the adapter's offload printed a whole Python traceback on stderr: it is one log line saying
    the quota was hit and a preview and a notice went on instead; the tool call is not failed."""
    from scratchfs.adapter import Offloader

    scope = quota_store.scope("run", "a")
    for key in ("a", "b", "c"):
        scope.scratch_write(key, b"v")
    handler = logging.StreamHandler()  # stderr, as a host's logging.basicConfig() writes
    logger = logging.getLogger("scratchfs")
    logger.addHandler(handler)
    try:
        tool = Offloader(scope).wrap(lambda: "x" * 10_000, name="sql.query", result_class="query")
        capfd.readouterr()
        assert json.loads(tool())["size"] == 10_000
    finally:
        logger.removeHandler(handler)
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "'sql.query'" in err and "quota exceeded: run 'run' is at its quota: " in err
    assert err.rstrip().endswith("passing a preview and a notice")


def test_refresh_on_read(tmp_path, clock):
    with ScratchStore(tmp_path, clock=clock, refresh_on_read=True) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"x" * 100, ttl=10).handle
        scope.scratch_write("k", b"v", ttl=10)
        for _ in range(5):
            clock.advance(8)
            assert scope.read_handle(handle, 0, 1).data == b"x"
            assert scope.scratch_read("k") == b"v"
        clock.advance(10.5)
        with pytest.raises(Expired):
            scope.read_handle(handle)
    with ScratchStore(tmp_path / "plain", clock=clock) as store:  # off by default
        scope = store.scope("r", "a")
        handle = scope.spill(b"x", ttl=10).handle
        clock.advance(8)
        scope.read_handle(handle)
        clock.advance(8)
        with pytest.raises(Expired):
            scope.read_handle(handle)


def test_a_read_never_revives_a_row_the_sweep_judged_expired(tmp_path, clock, monkeypatch):
    """refresh_on_read: a read that looked its entry up while it was live (t=5, expiry t=10) and refreshes it after
    a sweep (t=12) judged it expired and removed its blob (files first, rows after) revived the row (expiry
    5 + 10 = 15 > 12): the sweep then left a live row with no blob. The refresh is now conditional in SQL on the row
    being still live at a time read just before it."""
    with ScratchStore(tmp_path, clock=clock, refresh_on_read=True, orphan_grace=3600) as store:
        start = clock.now
        scope = store.scope("r", "a")
        handle = scope.spill(bytes(range(256)) * 1024, ttl=10).handle  # 256 KiB: a blob file of its own
        real_lookup, real_unlink = store.index.lookup_with_lines, store.blobs.unlink
        failed, read = [], []

        def delayed_lookup(*args):  # the reader looked up at t=5 and was delayed until the sweep at t=12
            found = real_lookup(*args)
            clock.set(start + 12)
            return found

        def unlink_then_read(run_id, agent_id, blob):  # the sweep removed the blob; its row is deleted after
            size = real_unlink(run_id, agent_id, blob)
            if read:  # the read once (its own not-found path unlinks an expired blob too)
                return size
            read.append(blob)
            clock.set(start + 5)
            monkeypatch.setattr(store.index, "lookup_with_lines", delayed_lookup)
            try:
                scope.read_handle(handle, 0, 1)
            except NotFound as exc:  # its blob is gone: not found, and the row is not revived
                failed.append(exc)
            monkeypatch.setattr(store.index, "lookup_with_lines", real_lookup)
            return size

        clock.set(start + 12)
        monkeypatch.setattr(store.blobs, "unlink", unlink_then_read)
        result = store.sweep()
        assert len(failed) == 1 and clock.now == start + 12
        # the expired row is gone (the read reported it Expired and dropped it, or the sweep did) and the sweep's
        # backstop found no live row left without its blob (before: the revived row, dropped as "missing")
        assert isinstance(failed[0], Expired) and not store.index.has_blob(read[0])
        assert (result.files_deleted, result.missing_files) == (1, 0)
        clock.set(start + 13)
        assert store.list_entries() == []
        # the index refuses to refresh a row expired at the time given, and refreshes a live one
        live = scope.spill(b"y" * 100, ttl=10)
        (entry,) = store.list_entries()
        store.index.touch("r", "a", "handle", live.handle, entry.blob, clock.now + 100, clock.now + 11)
        assert store.list_entries()[0].expires_at == entry.expires_at
        store.index.touch("r", "a", "handle", live.handle, entry.blob, clock.now + 100, clock.now)
        assert store.list_entries()[0].expires_at == clock.now + 100


def test_errors_say_what_happened_to_ones_own_entry(store, clock):
    scope = store.scope("run", "a")
    expired = scope.spill(b"x", ttl=10).handle
    swept = scope.spill(b"x", ttl=10).handle
    deleted_with_run = scope.spill(b"x").handle
    scope.scratch_write("gone", b"v")
    scope.scratch_delete("gone")
    clock.advance(11)
    store.sweep()  # swept's row is gone now; expired's too: both remembered as expired
    with pytest.raises(Expired, match=r"expired at 2100-01-01T00:00:10Z \(epoch 4102444810\.000\); run the tool "
                                      "that made it again if it is still needed"):
        scope.read_handle(swept)
    with pytest.raises(Expired):
        scope.read_handle(expired, match="x")
    with pytest.raises(Deleted, match="was deleted at"):
        scope.scratch_read("gone")
    store.delete_run("run")
    with pytest.raises(Deleted, match="deleted with its run"):
        scope.read_handle(deleted_with_run, line=1)
    # another scope learns nothing: plain NotFound
    other = store.scope("run", "b")
    with pytest.raises(NotFound) as caught:
        other.read_handle(deleted_with_run)
    assert type(caught.value) is NotFound
    assert "no handle" in str(caught.value)
    # an hour later the tombstones are forgotten
    clock.advance(3601)
    store.sweep()
    with pytest.raises(NotFound) as caught:
        scope.read_handle(deleted_with_run)
    assert type(caught.value) is NotFound


def test_an_expired_row_not_yet_swept_says_expired(store, clock):
    scope = store.scope("run", "a")
    scope.scratch_write("k", b"v", ttl=5)
    clock.advance(5)
    with pytest.raises(Expired, match=r"key 'k' expired at .*; write it again if it is still needed"):
        scope.scratch_read("k")
    scope.scratch_write("k", b"again")  # a rewrite clears the past
    assert scope.scratch_read("k") == b"again"


@pytest.mark.parametrize("ttl", [1e-7, 1e-3, 0.5, 0.999, 0, -1, float("nan"), float("inf"), float("-inf")])
def test_a_ttl_under_one_second_is_refused_on_every_face(tmp_path, clock, ttl):
    """A TTL so small that now + ttl == now made an entry that was expired on its first read (atka, fault 2): a TTL
    is at least MIN_TTL (1 second), through the API, the store's default_ttl and the scratch_write tool."""
    from scratchfs import InvalidArgument
    from scratchfs.api.contract import ScratchTools
    from scratchfs.foundation.limits import MIN_TTL

    assert MIN_TTL == 1.0
    with ScratchStore(tmp_path, clock=clock) as store:
        scope = store.scope("run", "a")
        with pytest.raises(InvalidArgument, match="ttl must be finite seconds between 1 and 2592000"):
            scope.spill(b"x" * 100, ttl=ttl)
        with pytest.raises(InvalidArgument, match="ttl must be finite seconds between 1 and 2592000"):
            scope.scratch_write("k", "v", ttl=ttl)
        with pytest.raises(InvalidArgument, match="ttl"):
            ScratchTools(scope).call("scratch_write", {"key": "k", "value": "v", "ttl": ttl})
        assert scope.list_entries() == []  # nothing was written
    with pytest.raises(InvalidArgument, match="default_ttl must be finite seconds between 1"):
        ScratchStore(tmp_path / "other", default_ttl=ttl)


def test_the_ttl_bounds_are_worded_once(tmp_path, clock):
    """default_ttl=0 raised "between 1 and 2592000" chained to "positive, finite seconds of at most 2592000": two
    wordings of one bound in every traceback (and the CLI's --default-ttl gave the second alone)."""
    from scratchfs import InvalidArgument

    with pytest.raises(InvalidArgument) as caught:
        ScratchStore(tmp_path, default_ttl=0)
    assert str(caught.value) == "default_ttl must be finite seconds between 1 and 2592000: 0"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize("make", ["Settings", "with_changes", "ScratchStore"])
def test_a_misspelt_setting_names_the_one_it_meant(tmp_path, make):
    """A misspelt setting was a TypeError (Settings(...): "unexpected keyword argument") or "unknown store
    setting(s): spill_treshold_bytes", with no hint; each names the closest setting now, or lists them all."""
    from scratchfs import InvalidArgument, Settings

    def build(**settings):
        if make == "Settings":
            return Settings(**settings)
        if make == "with_changes":
            return Settings().with_changes(**settings)
        return ScratchStore(tmp_path, **settings)

    with pytest.raises(InvalidArgument) as caught:
        build(spill_treshold_bytes=100)
    assert str(caught.value) == "unknown store setting 'spill_treshold_bytes' (did you mean 'spill_threshold_bytes'?)"
    with pytest.raises(InvalidArgument, match=r"^unknown store settings 'Default_TTL' \(did you mean "
                                              r"'default_ttl'\?\), 'colour'; the store settings are .*"
                                              r"\bspill_threshold_bytes\b"):
        build(colour="red", Default_TTL=60)
    assert not (tmp_path / "index.sqlite").exists()


def test_a_ttl_of_one_second_lives_one_second(tmp_path, clock):
    with ScratchStore(tmp_path, clock=clock) as store:
        scope = store.scope("run", "a")
        handle = scope.spill(b"x" * 100, ttl=1).handle
        scope.scratch_write("k", "v", ttl=1.0)
        assert (scope.read_range(handle, 0, 1).data, scope.scratch_read("k")) == (b"x", b"v")
        clock.advance(1.0)
        with pytest.raises(Expired):
            scope.scratch_read("k")


def test_an_integer_too_large_to_print_is_an_invalid_argument_not_a_value_error(tmp_path, clock):
    """Python refuses to print an int of over 4,300 digits (ValueError): a message naming one such offset or TTL
    was a traceback (atka, fault 3's kind, in the API)."""
    from scratchfs import InvalidArgument

    huge = 10**5000
    with ScratchStore(tmp_path, clock=clock) as store:
        scope = store.scope("run", "a")
        handle = scope.spill(b"x" * 100).handle
        with pytest.raises(InvalidArgument, match="offset is an integer of 16610 bits, out of range"):
            scope.read_range(handle, huge)
        with pytest.raises(InvalidArgument, match="lines is an integer of 16610 bits"):
            scope.read_lines(handle, line=1, lines=huge)
        with pytest.raises(InvalidArgument, match=r"ttl must be .*: <int of 16610 bits>"):
            scope.scratch_write("k", "v", ttl=huge)
        assert scope.read_range(handle, 0, 10**30).data == b"x" * 100  # a large request is still only capped
