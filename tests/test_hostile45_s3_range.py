"""A ranged ``GET``'s deadline did not allow for the bytes it asks for (hostile45): botocore hands urllib3 its
headers as bytes (``Range: b'bytes=0-8388607'``), and :func:`~scratchfs.engine.s3_deadlines.payload_bytes` read the
range only from a ``str``, so a read of an 8 MiB range was given the bound of a request of no payload -- one that an
honest store sending at 2 MiB/s could not meet, where an upload of the same 8 MiB was given 8 s more. A header of
bytes is read as its text now."""

from __future__ import annotations

import pytest

from scratchfs.engine import s3_deadlines
from scratchfs.engine.s3_client import make_client


def test_a_real_ranged_get_is_given_its_ranges_bytes(s3_env, monkeypatch):
    bucket = s3_env.split("/")[2]
    given: list[tuple[str, int]] = []
    arm = s3_deadlines.Watchdog.arm

    def spied(self, conn, body, headers):
        given.append((str(dict(headers or {}).get("Range")), s3_deadlines.payload_bytes(body, headers)))
        return arm(self, conn, body, headers)

    monkeypatch.setattr(s3_deadlines.Watchdog, "arm", spied)
    client = make_client(30.0)
    data = bytes(range(256)) * 4096 * 9  # 9 MiB
    client.put_object(Bucket=bucket, Key="k", Body=data)
    assert given[-1][1] == len(data)  # (an upload: its body, as before)
    got = client.get_object(Bucket=bucket, Key="k", Range="bytes=1048576-9437183")["Body"].read()
    assert got == data[1048576:9437184]
    assert given[-1][1] == 8 * 1024 * 1024, given[-1]


@pytest.mark.parametrize("headers", [{"Range": b"bytes=100-199"}, {b"Range": b"bytes=100-199"},
                                     {"range": "bytes=100-199"}])
def test_a_range_header_of_bytes_or_any_case_counts(headers):
    assert s3_deadlines.payload_bytes(None, headers) == 100


def test_a_header_of_no_range_counts_nothing():
    assert s3_deadlines.payload_bytes(None, {"Range": b"\xff\xfe"}) == 0
    assert s3_deadlines.payload_bytes(None, {"Range": "bytes=5-"}) == 0  # (to the end: its size is not known)
    assert s3_deadlines.payload_bytes(None, {"Range": "bytes=" + "9" * 5000 + "-" + "9" * 5001}) == 0
