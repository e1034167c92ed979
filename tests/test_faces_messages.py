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
