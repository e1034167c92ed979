"""The S3 blob store against a real S3 API server (moto's, on loopback; tests/services.py): exact bytes back by range
requests, the number of requests a read costs, multipart uploads with bounded memory, batched and scoped deletes,
orphan listing, and typed errors within a bounded time."""

from __future__ import annotations

import os
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.engine.s3_blobs import PART_BYTES, S3Blobs, parse_s3_url
from scratchfs.engine.seekable import SeekableReader, read_seek_table
from scratchfs.foundation.checks import new_token
from scratchfs.foundation.errors import InvalidArgument, StorageError
from tests.services import free_port


def source_reader(source):
    """The engine's seekable reader over an S3 range source, its seek table read through the source."""
    return SeekableReader(source, read_seek_table(source, source.size))


@pytest.fixture
def blobs(s3_env):
    store = S3Blobs(s3_env, frame_bytes=4096, level=3, timeout=5.0)
    yield store
    store.close()


@pytest.fixture(scope="module")
def text(fixture_data):
    return fixture_data["workspace-grep-stdlib-defs.txt"]


def put(blobs, content, run="run-1", agent="agent-1"):
    token = new_token()
    pending = blobs.write(run, agent, token, [content[i : i + 70_000] for i in range(0, len(content), 70_000)])
    pending.release()
    return token, pending


def test_a_blob_reads_back_exactly(blobs, text):
    token, pending = put(blobs, text)
    assert pending.info.size == len(text)
    assert pending.exists()
    source = blobs.open_source("run-1", "agent-1", token)
    assert source.size == pending.info.stored_size
    reader = source_reader(source)
    assert b"".join(chunk for _, chunk in reader.iter_frames()) == text
    rng = random.Random(7)
    for _ in range(50):
        offset = rng.randrange(len(text))
        length = rng.randrange(1, 20_000)
        assert reader.read(offset, length) == text[offset : offset + length]


@settings(max_examples=30)
@given(offset=st.integers(0, 600_000), length=st.integers(1, 70_000))
def test_range_reads_match_slicing(blobs, text, offset, length):
    if not hasattr(blobs, "_hyp_token"):
        blobs._hyp_token = put(blobs, text)[0]
    reader = source_reader(blobs.open_source("run-1", "agent-1", blobs._hyp_token))
    assert reader.read(offset, length) == text[offset : offset + length]


def test_a_read_within_one_frame_costs_two_requests(blobs, text):
    token, _ = put(blobs, text)
    source = blobs.open_source("run-1", "agent-1", token)
    reader = source_reader(source)  # the seek table comes out of the tail fetched on opening
    assert source.requests == 1
    assert reader.read(100_000, 1000) == text[100_000:101_000]
    assert source.requests == 2
    small, _ = put(blobs, b"hello\n" * 100)  # a blob within the tail: the opening request was all
    tiny = blobs.open_source("run-1", "agent-1", small)
    assert source_reader(tiny).read(6, 6) == b"hello\n"
    assert tiny.requests == 1
    again = blobs.open_source("run-1", "agent-1", token)  # an object never changes: its tail is cached
    assert source_reader(again).read(300_000, 100) == text[300_000:300_100]
    assert again.requests == 1


def test_large_spills_use_multipart_with_bounded_memory(blobs):
    """Parts go out while the stream is still being read, each about one part long: what the writer holds is
    bounded by a part (plus a compression batch), not by the content. (The emulator runs in this process, so a
    tracemalloc peak would count the server's copy too; the shape of the upload is what is asserted.)"""
    yielded, parts, puts = [0], [], []
    client = blobs.client()
    client.meta.events.register("before-parameter-build.s3.UploadPart",
                                lambda params, **kw: parts.append((yielded[0], len(params["Body"]))))
    client.meta.events.register("before-call.s3.PutObject", lambda **kw: puts.append(1))
    chunk = random.Random(3).randbytes(1024 * 1024)  # incompressible: 24 MiB in, about 24 MiB stored

    def stream():
        for i in range(24):
            yielded[0] += 1
            yield chunk[i:] + chunk[:i]

    blobs.frame_bytes = 128 * 1024
    token = new_token()
    pending = blobs.write("run-1", "agent-1", token, stream())
    assert puts == []
    assert len(parts) >= 2
    assert parts[0][0] <= 14  # the first part left after about 8 MiB of the 24 MiB were read
    assert all(size <= PART_BYTES + 5 * 1024 * 1024 for _, size in parts)
    assert sum(size for _, size in parts) == pending.info.stored_size
    source = blobs.open_source("run-1", "agent-1", token)
    assert source.size == pending.info.stored_size
    reader = source_reader(source)
    assert reader.read(23 * 1024 * 1024 + 5, 100) == (chunk[23:] + chunk[:23])[5:105]


def test_a_failed_upload_leaves_no_object_and_no_open_upload(blobs):
    def broken():
        yield os.urandom(PART_BYTES + 1024 * 1024)
        raise InvalidArgument("the stream broke")

    blobs.frame_bytes = 1024 * 1024
    with pytest.raises(InvalidArgument):
        blobs.write("run-1", "agent-1", new_token(), broken())
    assert blobs.blob_files() == []
    assert blobs.client().list_multipart_uploads(Bucket=blobs.bucket).get("Uploads", []) == []


def test_missing_objects_and_scoped_deletes(blobs, text):
    a1, _ = put(blobs, b"a1", "run/1", "agent-1")
    a2, _ = put(blobs, b"a2", "run/1", "agent-2")
    b1, pending_b1 = put(blobs, b"b1", "run-2", "agent-1")
    with pytest.raises(FileNotFoundError):
        blobs.open_source("run/1", "agent-1", new_token())
    assert {f.token for f in blobs.blob_files()} == {a1, a2, b1}
    assert all(f.location.startswith("scratch/run%2f1/") for f in blobs.blob_files() if f.token != b1)
    assert blobs.detach_scope("run/1", "agent-2") == 1
    assert {f.token for f in blobs.blob_files()} == {a1, b1}
    assert blobs.detach_scope("run/1", None) == 1
    assert blobs.detach_scope("run/1", None) is None
    assert [f.token for f in blobs.blob_files()] == [b1]
    assert blobs.unlink("run-2", "agent-1", b1) == pending_b1.info.stored_size
    assert not pending_b1.exists()
    assert blobs.unlink("run-2", "agent-1", b1) == 0
    tokens = [put(blobs, b"x", "run-3", "agent-1")[0] for _ in range(5)]
    assert blobs.unlink_many([("run-3", "agent-1", t) for t in tokens]) == 5
    assert blobs.blob_files() == []


def test_keys_outside_the_layout_are_left_alone(blobs):
    client = blobs.client()
    client.put_object(Bucket=blobs.bucket, Key="scratch/run-1/agent-1/not-a-blob.txt", Body=b"mine")
    client.put_object(Bucket=blobs.bucket, Key="elsewhere/run-1/agent-1/" + new_token() + ".zst", Body=b"mine")
    assert blobs.blob_files() == []
    assert blobs.detach_scope("run-1", None) is None


def test_bad_urls_are_refused():
    for url in ("s3://", "s3://A_B/x", "http://bucket/x", "s3://bucket/a//b", "s3://bucket/../x", "s3://ab/x",
                "s3://user:secret@bucket/x"):
        with pytest.raises(InvalidArgument):
            parse_s3_url(url)
    assert parse_s3_url("s3://my-bucket/a/b/") == ("my-bucket", "a/b")
    assert parse_s3_url("s3://my-bucket") == ("my-bucket", "")


@pytest.mark.parametrize("bucket", ["ab", "My_Bucket", "a..b", "-bucket", ""])
def test_a_refused_bucket_name_is_told_with_s3s_rule(bucket):
    """``s3://ab/x`` was refused as ``not a valid S3 bucket name: 'ab'`` alone, leaving a newcomer to guess S3's rule
    (newuser22): the line gives it."""
    with pytest.raises(InvalidArgument) as caught:
        parse_s3_url(f"s3://{bucket}/x")
    assert str(caught.value) == (f"not a valid S3 bucket name: {bucket!r}: a bucket name is 3 to 63 lower-case "
                                 "letters, digits, '.' and '-', beginning and ending with a letter or digit, with no "
                                 "'..' (s3://bucket/prefix)")


# (no `alone` mark: 30 s is many times the two 1 s timeouts)
def test_an_unreachable_store_gives_storage_error_within_a_bounded_time(s3_env, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    blobs = S3Blobs(s3_env, frame_bytes=4096, level=3, timeout=1.0)
    started = time.monotonic()
    with pytest.raises(StorageError) as err:
        blobs.write("run-1", "agent-1", new_token(), [b"data"])
    with pytest.raises(StorageError):
        blobs.open_source("run-1", "agent-1", new_token())
    assert time.monotonic() - started < 30
    assert "scratchfs-test-secret" not in str(err.value)
    assert blobs.unlink("run-1", "agent-1", new_token()) == 0  # never raises


def test_a_refusal_is_a_storage_error_that_does_not_echo_the_credentials(s3_env):
    bucket = parse_s3_url(s3_env)[0]
    # the emulator accepts any key pair: a missing bucket stands in for a refusal
    blobs = S3Blobs(f"s3://{bucket}-missing/x", frame_bytes=4096, level=3, timeout=2.0)
    with pytest.raises(StorageError) as err:
        blobs.write("run-1", "agent-1", new_token(), [b"data"])
    assert "NoSuchBucket" in str(err.value)
    assert os.environ["AWS_SECRET_ACCESS_KEY"] not in str(err.value)
    # (a new user's trial: the message named the object's key only) it names the bucket and the step to take
    assert f"the bucket '{bucket}-missing' does not exist; create it first" in str(err.value), str(err.value)
