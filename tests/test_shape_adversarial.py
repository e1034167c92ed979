"""Shape detection on adversarial text (helper hostile8): the rules for CR-ended tables (``shape_terminal``'s
``_cr_table``) and ``/proc/PID/sched`` settings (``shape_settings``) never raise and stay fast on any bytes -- lone
carriage returns, quotes everywhere, a megabyte of dashes or colons, titles over rules, BOMs, padded keys."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.shape import describe
from tests.cpu_time import best_cpu_and_result

_PIECES = st.sampled_from([b"\r", b"\n", b"\r\n", b"\n\r", b'"', b'""', b",", b"\t", b";", b":", b"-", b"---\n",
                           b" ", b"a", b"key", b"=", b"1", b"\xef\xbb\xbf", b"se.exec_start", b"  :  ", b"#", b"[s]",
                           b"(", b"\xc3\xa9", b"\x1b[2K", b"\x00", b"\xff"])

CPU_SECONDS = 1.0
"""Most CPU time one describe may take (a 512 KiB sample is described in milliseconds: 2.5 ms at most in 3,000
examples of these pieces, on the machine this was written on; CPU time, not wall clock: load does not lengthen it)."""


def _described_within(data: bytes, size: int) -> None:
    spent, shape = best_cpu_and_result(lambda: describe(data, size, data.count(b"\n") + 1), runs=1,
                                       clock=time.process_time)
    assert shape.content_type and spent < CPU_SECONDS, (shape, data[:200])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(_PIECES, max_size=200), repeat=st.integers(1, 3000), more=st.integers(0, 10**8))
def test_describe_never_raises_and_is_fast_on_any_pieces(parts, repeat, more):
    data = (b"".join(parts) * repeat)[: 600 * 1024]
    _described_within(data, len(data))
    _described_within(data, len(data) + more)  # (a sample of a larger content)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=4096))
def test_describe_never_raises_on_any_bytes(data):
    _described_within(data, len(data))


def test_describe_is_fast_on_a_megabyte_of_one_character():
    for unit in (b"-", b":", b"\r", b'"', b'",', b'"\r', b"a,b\r", b"\r\n\r", b";", b"\t", b"\na="):
        data = unit * ((1 << 20) // len(unit))
        _described_within(data, len(data))
