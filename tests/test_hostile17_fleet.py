"""hostile17: the fleet backend (PostgreSQL index + S3 objects) under attack -- an object replaced under its row (bytes
flipped, another entry's object copied over it) reads as the original or as CorruptBlob from a host that had not
opened it, never as other bytes; two hosts spilling, reading, deleting runs and sweeping at once give only exact bytes
or typed errors, and leave no orphan object and no row without its object. (Both held when written: kept as guards.)"""

from __future__ import annotations

import collections
import hashlib
import random
import threading
import time

import pytest

from scratchfs import CorruptBlob, NotFound, ScratchStore, StorageError
from tests.services import postgres_url


@pytest.fixture
def urls(postgres_dsn, pg_schema, s3_env):
    return {"index": postgres_url(postgres_dsn, pg_schema), "blobs": s3_env}


def _whole(store, handle):
    return b"".join(store.scope("r", "a").iter_content("handle", handle))


def test_an_object_changed_under_its_row_reads_as_corrupt_never_as_other_bytes(tmp_path, urls):
    data = b"".join(b"%08d some text here %s\n" % (i, b"y" * (i % 50)) for i in range(20000))
    with ScratchStore(tmp_path / "writer", **urls) as store:
        scope = store.scope("r", "a")
        big, other = (scope.spill(data, source_tool="t").handle, scope.spill(data[::-1], source_tool="t").handle)
        small = scope.spill(b'{"a": 1, "b": [1,2,3]}\n' * 10, source_tool="t").handle
        blob = {e.key: store.blobs.key("r", "a", e.blob) for e in store.list_entries()}
        client, bucket = store.blobs.client(), store.blobs.bucket
    originals = {h: client.get_object(Bucket=bucket, Key=blob[h])["Body"].read() for h in (big, small)}
    rnd, host = random.Random(17), 0
    for handle, expected in ((big, data), (small, b'{"a": 1, "b": [1,2,3]}\n' * 10)):
        body = originals[handle]
        # a frame's header and data, the binding frame's fields, the seek table at the end
        size = len(body)
        for pos in sorted({6, size // 2, size - 120, size - 30, size - 3, rnd.randrange(size)}):
            flipped = bytearray(body)
            flipped[pos] ^= 0x04
            client.put_object(Bucket=bucket, Key=blob[handle], Body=bytes(flipped))
            host += 1
            with ScratchStore(tmp_path / f"reader{host}", **urls) as fresh:
                try:
                    got = _whole(fresh, handle)
                except CorruptBlob:
                    continue
                assert got == expected, f"byte {pos} of {len(body)} flipped: other bytes read"
        client.put_object(Bucket=bucket, Key=blob[handle], Body=body)
    client.copy_object(Bucket=bucket, Key=blob[big], CopySource={"Bucket": bucket, "Key": blob[other]})
    with ScratchStore(tmp_path / "last", **urls) as fresh, pytest.raises(CorruptBlob, match="another entry"):
        _whole(fresh, big)  # (a whole, valid blob of another entry: its binding names another token)


def test_two_hosts_racing_spills_reads_deletes_and_sweeps_give_exact_bytes_or_typed_errors(tmp_path, urls):
    outcomes, wrong, handles, lock = collections.Counter(), [], {}, threading.Lock()
    stop = time.monotonic() + 4.0

    def content(i: int) -> bytes:
        return hashlib.sha256(str(i).encode()).hexdigest().encode() * (50 + i % 3000) + b"\n"

    with ScratchStore(tmp_path / "h1", **urls, orphan_grace=0.0) as one, \
            ScratchStore(tmp_path / "h2", **urls, orphan_grace=0.0) as two:

        def guarded(what, work):
            try:
                work()
                outcomes[f"{what} ok"] += 1
            except (NotFound, StorageError) as exc:  # (a handle deleted, expired, or its object gone mid-read)
                outcomes[f"{what} {type(exc).__name__}"] += 1
            except Exception as exc:  # (anything else is the finding)
                wrong.append(f"{what}: {type(exc).__name__}: {exc}")

        def writer(n: int) -> None:
            rnd, store = random.Random(n), (one, two)[n % 2]
            while time.monotonic() < stop:
                i, run = rnd.randrange(10**6), f"run-{rnd.randrange(3)}"

                def spill(i=i, run=run):
                    handle = store.scope(run, "a").spill(content(i), source_tool="t", ttl=rnd.choice([1, 60])).handle
                    with lock:
                        handles[handle] = (run, i)
                guarded("spill", spill)

        def reader(n: int) -> None:
            rnd, store = random.Random(100 + n), (two, one)[n % 2]
            while time.monotonic() < stop:
                with lock:
                    known = list(handles.items())
                if not known:
                    time.sleep(0.01)
                    continue
                handle, (run, i) = rnd.choice(known)
                data = content(i)
                offset = rnd.randrange(len(data))

                def read(handle=handle, run=run, data=data, offset=offset):
                    if store.scope(run, "a").read_handle(handle, offset=offset, length=5000).data != \
                            data[offset : offset + 5000]:
                        wrong.append(f"other bytes read from {handle}")
                guarded("read", read)

        def deleter() -> None:
            rnd = random.Random(5)
            while time.monotonic() < stop:
                time.sleep(rnd.random() / 2)
                guarded("delete", lambda: rnd.choice((one, two)).delete_run(f"run-{rnd.randrange(3)}"))

        def sweeper() -> None:
            while time.monotonic() < stop:
                time.sleep(0.3)
                guarded("sweep", lambda: two.sweep(wait=0))

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)] + [
            threading.Thread(target=reader, args=(n,)) for n in range(3)] + [
            threading.Thread(target=deleter), threading.Thread(target=sweeper)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not wrong, wrong[:5]
        assert outcomes["spill ok"] and outcomes["delete ok"], outcomes  # (the race ran: reads below checked bytes)
        assert sum(count for what, count in outcomes.items() if what.startswith("read ")), outcomes
        time.sleep(1.5)  # (an object a raced spill left without a row is an orphan once its LastModified, whole
        one.sweep(wait=0)  # seconds, is past orphan_grace: a sweep at once left 2 such of 6 runs)
        rows = {entry.blob for entry in one.list_entries()}
        objects = {found.token for found in one.blobs.blob_files()}
        assert (objects - rows, rows - objects) == (set(), set())  # (no orphan object left, no row without one)
