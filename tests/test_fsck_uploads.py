"""``fsck`` of an S3 store counts the incomplete multipart uploads under its prefix -- what a spill leaves when the
store stopped answering mid-upload (not aborted: the abort would wait as long again) -- with the oldest one's age and
the advice to add the bucket's lifecycle rule; they are not a problem of the store (exit code 0)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.cli import main
from tests.services import postgres_url


def test_fsck_counts_incomplete_uploads_under_the_prefix_and_says_what_ends_them(postgres_dsn, pg_schema, s3_env,
                                                                                 tmp_path):
    index = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path, index=index, blobs=s3_env) as store:
        store.scope("run-1", "agent-1").spill(b"an entry\n" * 1000)
        assert fsck(store).uploads == (0, None)
        client, bucket, prefix = store.blobs.client(), store.blobs.bucket, store.blobs.prefix
        for key in (f"{prefix}/run-1/agent-1/abandoned.zst", f"{prefix}/run-2/agent-1/abandoned.zst"):
            upload = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
            client.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=1, Body=b"x" * 1024)
        client.create_multipart_upload(Bucket=bucket, Key="elsewhere/not-ours.zst")  # outside the prefix
        report = fsck(store)
        assert report.uploads is not None and report.uploads[0] == 2, report.uploads
        assert 0 <= report.uploads[1] < 60  # (seconds since the oldest began: just now; tests/services.py dates
        # moto's uploads as S3 does, where moto gives every upload a date of 2010)
        assert report.clean  # not a problem of the store
        assert report.to_dict()["incomplete_uploads"]["count"] == 2
    done = CliRunner().invoke(main, ["fsck", "--quick", "--root", str(tmp_path), "--index", index, "--blobs", s3_env])
    assert done.exit_code == 0, done.output
    assert "incomplete multipart uploads under the prefix: 2, the oldest begun " in done.output
    assert "lifecycle rule that aborts incomplete multipart uploads" in done.output
    assert "the sweep aborts those of blob objects begun over orphan_grace (300 s) ago" in done.output
    as_json = CliRunner().invoke(main, ["fsck", "--quick", "--json", "--root", str(tmp_path), "--index", index,
                                        "--blobs", s3_env])
    assert json.loads(as_json.output)["incomplete_uploads"]["count"] == 2


def test_a_local_store_has_no_uploads_to_count(tmp_path):
    with ScratchStore(tmp_path, index="sqlite", blobs="file") as store:
        store.scope("run-1", "agent-1").spill(b"an entry\n" * 1000)
        report = fsck(store)
        assert report.uploads is None and "incomplete_uploads" not in report.to_dict()
