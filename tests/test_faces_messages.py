"""Small wording a new user met: counts agree with their nouns."""

from __future__ import annotations

import pytest

from scratchfs import ScratchStore
from scratchfs.foundation.errors import QuotaExceeded


def test_a_quota_of_no_entries_says_one_entry_not_one_entries(tmp_path):
    with ScratchStore(tmp_path / "s", run_quota_entries=0) as store, \
            pytest.raises(QuotaExceeded, match=r"would hold 1 entry, over its quota of 0;"):
        store.scope("r", "a").scratch_write("k", "v")
    with ScratchStore(tmp_path / "t", run_quota_entries=1) as store:
        store.scope("r", "a").scratch_write("k", "v")
        with pytest.raises(QuotaExceeded, match=r"would hold 2 entries, over its quota of 1;"):
            store.scope("r", "a").scratch_write("j", "v")


def test_a_read_one_byte_over_64_kib_is_refused_by_every_face(tmp_path):
    """``scope.read_range(h, 0, 65537)`` returned 65,536 bytes quietly while the CLI's ``read-handle --length 65537``
    and MCP's read_handle refused it: one rule, a read is at most MAX_READ_BYTES, a longer one an invalid argument."""
    from click.testing import CliRunner

    from scratchfs import MAX_READ_BYTES, InvalidArgument
    from scratchfs.api.contract import ScratchTools
    from scratchfs.cli import main

    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"x" * 100_000).handle
        scope.scratch_write("k", "y" * 100_000)
        assert len(scope.read_range(handle, 0, MAX_READ_BYTES).data) == MAX_READ_BYTES
        for read in (lambda: scope.read_range(handle, 0, MAX_READ_BYTES + 1),
                     lambda: scope.scratch_read_range("k", 0, MAX_READ_BYTES + 1),
                     lambda: scope.read_handle(handle, 0, MAX_READ_BYTES + 1),
                     lambda: ScratchTools(scope).call("read_handle", {"handle": handle, "length": MAX_READ_BYTES + 1}),
                     lambda: ScratchTools(scope).call("scratch_read", {"key": "k", "length": MAX_READ_BYTES + 1})):
            with pytest.raises(InvalidArgument, match="65536"):
                read()
        reply = ScratchTools(scope).call("read_handle", {"handle": handle, "length": MAX_READ_BYTES,
                                                         "budget": 65536})
        assert reply["next_offset"] == reply["length"] > 60_000
        reply = ScratchTools(scope).call("scratch_read", {"key": "k", "offset": 3, "budget": 65536})
        assert reply["next_offset"] == 3 + reply["length"] and reply["length"] > 60_000
    result = CliRunner().invoke(main, ["read-handle", handle, "--length", str(MAX_READ_BYTES + 1), "--root",
                                       str(tmp_path / "s"), "--run", "r", "--agent", "a"])
    assert result.exit_code == 2 and "65536" in result.stderr
