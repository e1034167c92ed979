"""``fsck``'s last line names what remains by its kind: objects under an S3 prefix that scratchfs did not write were
listed as ``unexpected`` in the table while stderr said "scratchfs: corrupt: 2 problems remain" -- an object that is
not ours is not corruption. The exit code stays 3 (a problem remains: README, ``scratchfs fsck --help``)."""

from __future__ import annotations

from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main
from tests.services import postgres_url


def test_objects_scratchfs_did_not_write_are_told_unexpected_not_corrupt(postgres_dsn, pg_schema, s3_env, tmp_path):
    index = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path, index=index, blobs=s3_env) as store:
        store.scope("run-1", "agent-1").spill(b"an entry\n" * 1000)
        client, bucket, prefix = store.blobs.client(), store.blobs.bucket, store.blobs.prefix
    for key in (f"{prefix}/run-1/agent-1/notes.txt", f"{prefix}/README"):
        client.put_object(Bucket=bucket, Key=key, Body=b"not ours\n")
    found = CliRunner().invoke(main, ["fsck", "--quick", "--root", str(tmp_path), "--index", index, "--blobs", s3_env])
    assert found.exit_code == 3, found.output
    assert "corrupt 0, orphaned 0, unexpected 2," in found.stdout, found.stdout
    assert found.stderr == ("scratchfs: not clean: 2 problems remain (2 unexpected); no repair touches these 2 (their "
                            "details say what they are)\n"), found.stderr
    client.delete_object(Bucket=bucket, Key=f"{prefix}/README")
    one = CliRunner().invoke(main, ["fsck", "--root", str(tmp_path), "--index", index, "--blobs", s3_env])
    assert one.exit_code == 3 and one.stderr.startswith("scratchfs: not clean: 1 problem remains (unexpected); "), \
        one.stderr
