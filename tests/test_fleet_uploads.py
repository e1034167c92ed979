"""The fleet sweep ends the incomplete multipart uploads crashed writers left (hostile17: a writer killed with SIGKILL
after its first part left one that nothing of ours ever ended, billed forever in a bucket without the lifecycle
rule): those of blob keys under the store's prefix begun over ``orphan_grace`` ago are aborted, nothing else of the
bucket is touched; a spill whose upload a sweep aborted fails with StorageError saying so, nothing stored; a listing
or abort the store refuses is counted and logged, and the rest of the sweep stands. Real PostgreSQL and S3 API
servers (moto, its upload dates and ``NoSuchUpload`` made S3's: tests/services.py, ``faithful_moto``)."""

from __future__ import annotations

import logging
import os
import threading
import time

import pytest

from scratchfs import ScratchStore, StorageError
from scratchfs.api.inspector import fsck
from scratchfs.engine import s3_blobs
from scratchfs.engine.fleet_sweeper import fleet_sweep
from scratchfs.engine.s3_uploads import Upload
from scratchfs.foundation.checks import new_token
from tests.services import postgres_url


@pytest.fixture
def hosts(tmp_path, postgres_dsn, pg_schema, s3_env):
    """``hosts(name, orphan_grace)``: a store (a host) on the test's database and bucket, on the real clock."""
    stores = []

    def open_host(name: str, orphan_grace: float) -> ScratchStore:
        stores.append(ScratchStore(tmp_path / name, index=postgres_url(postgres_dsn, pg_schema), blobs=s3_env,
                                   orphan_grace=orphan_grace, index_write_behind=False))
        return stores[-1]

    yield open_host
    for store in stores:
        store.close()


def crashed_upload(store: ScratchStore, key: str | None = None) -> str:
    """What a writer killed after its first part leaves: a multipart upload begun with the store's own
    :class:`Upload`, one part sent, then dropped (never completed nor aborted). Returns its key."""
    key = key or store.blobs.key("run-1", "agent-1", new_token())
    upload = Upload(store.blobs, key)
    upload.part(os.urandom(64 * 1024))
    return key


def open_uploads(store: ScratchStore) -> list[str]:
    """The keys of every incomplete multipart upload in the store's bucket (any prefix), by a client of the test's."""
    import boto3

    listed = boto3.client("s3").list_multipart_uploads(Bucket=store.blobs.bucket)
    return sorted(upload["Key"] for upload in listed.get("Uploads", []))


def test_a_crashed_writers_upload_is_aborted_once_older_than_the_grace_and_not_before(hosts):
    patient = hosts("patient", 300.0)
    key = crashed_upload(patient)
    counted = fsck(patient).uploads
    assert counted[0] == 1 and 0 <= counted[1] < 60  # (begun just now: moto's own date is 2010's)
    kept = patient.sweep()
    assert (kept.uploads_aborted, kept.upload_failures) == (0, 0)  # begun a moment ago: maybe a write in flight
    assert open_uploads(patient) == [key]
    # the threshold, by the sweep's clock (an upload's age is its Initiated, whole seconds, on this host's clock)
    young = fleet_sweep(patient.index, patient.blobs, patient.now, 300.0, 0, clock=lambda: time.time() + 290)
    assert young.uploads_aborted == 0 and open_uploads(patient) == [key]
    old = fleet_sweep(patient.index, patient.blobs, patient.now, 300.0, 0, clock=lambda: time.time() + 310)
    assert (old.uploads_aborted, old.upload_failures) == (1, 0)
    assert open_uploads(patient) == []
    assert fsck(patient).uploads == (0, None)
    again = crashed_upload(patient)
    time.sleep(1.0)  # (Initiated is whole seconds)
    eager = hosts("eager", 0.0)
    swept = eager.sweep()
    assert swept.uploads_aborted == 1 and swept.to_dict()["uploads_aborted"] == 1
    assert again not in open_uploads(patient) and fsck(patient).uploads == (0, None)
    assert eager.sweep().uploads_aborted == 0  # nothing left to end


def test_uploads_of_other_prefixes_and_keys_that_are_no_blob_keys_are_left_alone(hosts):
    store = hosts("host", 0.0)
    prefix, token = store.blobs.prefix, new_token()
    others = [f"elsewhere/run-1/agent-1/{token}.zst",  # another prefix of the bucket, a blob key of its own
              f"{prefix}/nested/run-1/agent-1/{token}.zst",  # a store at s3://bucket/{prefix}/nested
              f"{prefix}/run-1/agent-1/notes.zst", f"{prefix}/store-id"]  # under ours, no blob key
    for key in others:
        crashed_upload(store, key)
    ours = crashed_upload(store)
    time.sleep(1.0)
    assert fsck(store).uploads[0] == 4  # (fsck counts every upload under the prefix)
    assert store.sweep().uploads_aborted == 1
    assert open_uploads(store) == sorted(others)
    assert ours not in open_uploads(store)


class HeldUpload(Upload):
    """A store's :class:`Upload` held right before its first request of kind ``held_at`` that follows its first
    part (the next part, or the completion) until the test lets it go."""

    held_at = "upload_part"
    reached = threading.Event()
    go = threading.Event()

    def _call(self, doing, method, **kwargs):
        if method == self.held_at and self.parts and not self.reached.is_set():
            self.reached.set()
            assert self.go.wait(60)
        return super()._call(doing, method, **kwargs)


@pytest.mark.parametrize("held_at", ["upload_part", "complete_multipart_upload"])
def test_a_spill_whose_upload_a_sweep_aborted_fails_naming_it_and_stores_nothing(hosts, monkeypatch, held_at):
    """A spill slower than orphan_grace (held between its parts, or before its completion) whose upload another
    host's sweep aborts: StorageError at its next request (S3's NoSuchUpload) naming what happened -- never a hang,
    never a handle that reads nothing -- and no row, no object, no upload left."""
    writer, sweeper = hosts("writer", 0.0), hosts("sweeper", 0.0)
    monkeypatch.setattr(HeldUpload, "held_at", held_at)
    monkeypatch.setattr(HeldUpload, "reached", threading.Event())
    monkeypatch.setattr(HeldUpload, "go", threading.Event())
    monkeypatch.setattr(s3_blobs, "Upload", HeldUpload)
    outcome: list = []

    def spill():
        try:  # incompressible, past one part (8 MiB): a multipart upload of two parts
            outcome.append(writer.scope("run-1", "agent-1").spill(os.urandom(s3_blobs.PART_BYTES + 2 ** 20)))
        except Exception as exc:  # (handed to the test)
            outcome.append(exc)

    thread = threading.Thread(target=spill)
    thread.start()
    try:
        assert HeldUpload.reached.wait(60)
        time.sleep(1.0)  # (Initiated is whole seconds)
        assert sweeper.sweep().uploads_aborted == 1
    finally:
        HeldUpload.go.set()
        thread.join(60)
    assert not thread.is_alive()
    assert isinstance(outcome[0], StorageError), outcome
    said = str(outcome[0])
    assert "multipart upload of scratch/run-1/agent-1/" in said and "was aborted before it completed" in said
    assert "NoSuchUpload" in said and "orphan_grace" in said and "nothing of it is stored" in said
    assert writer.list_entries() == [] and writer.blobs.blob_files() == []
    assert open_uploads(writer) == [] and fsck(writer).uploads == (0, None)


def refuse(store: ScratchStore, operation: str) -> None:
    """The object store answers 403 AccessDenied to every ``operation`` request of ``store``'s client (a role
    without its IAM permission)."""
    from botocore.awsrequest import AWSResponse

    def denied(**_):
        return (AWSResponse("", 403, {}, None),
                {"Error": {"Code": "AccessDenied", "Message": "Access Denied"},
                 "ResponseMetadata": {"HTTPStatusCode": 403}})

    store.blobs.client().meta.events.register(f"before-call.s3.{operation}", denied)


@pytest.mark.parametrize("operation", ["ListMultipartUploads", "AbortMultipartUpload"])
def test_a_refused_listing_or_abort_is_counted_and_logged_once_and_the_sweep_goes_on(hosts, caplog, operation):
    store = hosts("host", 0.0)
    keys = [crashed_upload(store) for _ in range(2)]
    orphan = store.blobs.key("run-9", "agent-1", new_token())
    store.blobs.client().put_object(Bucket=store.blobs.bucket, Key=orphan, Body=b"no row names me")
    time.sleep(1.0)
    refuse(store, operation)
    with caplog.at_level(logging.WARNING, logger="scratchfs"):
        result = store.sweep()
    assert result.orphans_removed == 1 and store.blobs.head(orphan) is None  # the rest of the sweep was done
    assert result.uploads_aborted == 0
    assert result.upload_failures == (1 if operation == "ListMultipartUploads" else 2)
    told = [r.getMessage() for r in caplog.records if "incomplete multipart uploads not ended" in r.getMessage()]
    assert len(told) == 1, told
    assert "error AccessDenied" in told[0] and "check the AWS credentials and the bucket's policy" in told[0]
    assert open_uploads(store) == sorted(keys)  # left for the next sweep
