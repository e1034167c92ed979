"""The reserve file (scratchfs.engine.reserve): which failures count as a full disk, and the release-and-retry."""

from __future__ import annotations

import errno
import sqlite3

import pytest

from scratchfs.engine.reserve import Reserve, is_disk_full
from scratchfs.engine.sqlite_errors import index_error
from scratchfs.foundation.errors import QuotaExceeded, StorageError, StoreClosed, storage_error


def sqlite_full(tmp_path) -> StorageError:
    """The StorageError the index raises for a real SQLITE_FULL (a database at its page limit): no errno."""
    conn = sqlite3.connect(tmp_path / "full.db")
    conn.execute("CREATE TABLE t (v BLOB)")
    conn.execute("PRAGMA max_page_count = 3")
    try:
        conn.execute("INSERT INTO t VALUES (?)", (b"x" * 100_000,))
    except sqlite3.Error as exc:
        return index_error(exc, "deleting a run")  # type: ignore[return-value]
    finally:
        conn.close()
    raise AssertionError("the insert fit")


def test_an_index_sqlite_full_counts_as_a_full_disk_though_it_has_no_errno(tmp_path):
    err = sqlite_full(tmp_path)
    assert isinstance(err, OSError) and err.errno is None and "SQLITE_FULL" in str(err)
    assert is_disk_full(err)


@pytest.mark.parametrize(("exc", "full"), [
    (storage_error(OSError(errno.ENOSPC, "No space left on device"), "cannot write the blob"), True),
    (storage_error(OSError(errno.EDQUOT, "Disk quota exceeded"), "cannot write the blob"), True),
    (OSError(errno.ENOSPC, "No space left on device"), True),
    (storage_error(OSError(errno.EACCES, "Permission denied"), "cannot write the blob"), False),
    (StorageError("the index failed while deleting a run: the index is read-only (SQLITE_READONLY)"), False),
    (StoreClosed("the store is closed"), False),
    (QuotaExceeded("run quota of 10 bytes"), False),
    (OSError(errno.EACCES, "Permission denied"), False),
])
def test_is_disk_full_reads_errno_then_the_text(exc, full):
    assert is_disk_full(exc) is full


def test_run_releases_the_reserve_and_retries_on_an_index_sqlite_full(tmp_path):
    reserve = Reserve(tmp_path / "reserve", size=4096)
    assert reserve.ensure()
    err, calls = sqlite_full(tmp_path), []

    def operation() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise err
        return 7

    assert reserve.run(operation) == 7
    assert len(calls) == 2 and (tmp_path / "reserve").stat().st_size == 4096  # retried, then written again


def test_run_does_not_retry_what_is_not_a_full_disk(tmp_path):
    reserve = Reserve(tmp_path / "reserve", size=4096)
    assert reserve.ensure()
    calls = []

    def operation() -> int:
        calls.append(1)
        raise StorageError("the index failed while deleting a run: the index is read-only (SQLITE_READONLY)")

    with pytest.raises(StorageError, match="read-only"):
        reserve.run(operation)
    assert len(calls) == 1 and (tmp_path / "reserve").exists()
