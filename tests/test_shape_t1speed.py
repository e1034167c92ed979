"""Shortcuts of shape detection (issue 16, T1 "t1speed": a spill's describe made cheaper with the same answers),
each against the code it stands for -- its definition, or a copy of the code before it -- on generated inputs built
around its boundary and on slices of every real output of ``fixtures/``; each also shown taken.

- ``line_stats`` of a sample larger than 32 KiB whose first 4 KiB are not dense is split at once (bounded), with no
  count of all its newlines first: that count cost as much as the split (60 us of 64 KiB).
- ``bare_crs`` of a sample larger than 64 KiB with few ``\\r`` throughout (at most one in 16 bytes: CRLF text of
  lines of 16 bytes or more) searches for a bare one after counting them, not counting the ``\\r\\n`` pairs: the
  search stops at each ``\\r``, the two-byte count costs 2 ns a byte (1.1 ms of 512 KiB).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api.shape_terminal import bare_crs
from scratchfs.foundation.text import line_stats
from tests.test_shape_fastpaths import full_bare_crs, full_line_stats

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL = sorted(p for p in [*FIXTURES.iterdir(), *(FIXTURES / "tools").iterdir()] if p.is_file())


class _CountSpy(bytes):
    """Bytes that record each ``count`` asked of them: ``(sub, start, end)``."""

    calls: list[tuple]

    def count(self, sub, *bounds):  # type: ignore[override]
        self.calls.append((sub, *bounds))
        return super().count(sub, *bounds)


def _spied(data: bytes) -> _CountSpy:
    spy = _CountSpy(data)
    spy.calls = []
    return spy


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"", b"a", b"\r", b"x" * 15, b"y" * 16, b"z" * 40, b"w" * 300]), min_size=1,
                max_size=40), st.lists(st.sampled_from([b"", b"a", b"\r", b"bc", b"x" * 15, b"y" * 90]), min_size=1,
                                       max_size=40), st.integers(1, 3000), st.booleans())
@example([b"z" * 40], [b""], 3000, False)  # (a sparse start, then bare newlines: the split finds it dense)
@example([b""], [b"y" * 90], 100, True)  # (a dense start, then long lines)
def test_line_stats_of_large_samples_as_defined(start, rest, times, ended):
    """Samples past the 32 KiB split at once: a start of one kind of lines and a rest of another, so that the first
    4 KiB may tell the sample's density wrong either way; the answer is the definition's whatever path it takes."""
    sample = b"\n".join(start) * max(1, 4200 // (len(b"\n".join(start)) + 1)) + b"\n" + b"\n".join(rest) * times
    sample = sample[: 40_000 + 8 * times] + (b"\n" if ended else b"")
    assert line_stats(sample) == full_line_stats(sample)


def test_line_stats_of_real_outputs_as_defined():
    for path in REAL:
        data = path.read_bytes()
        for start in (0, 1, 777, len(data) // 3):
            for size in (32 * 1024 + 1, 64 * 1024, 512 * 1024):
                piece = data[start : start + size]
                assert line_stats(piece) == full_line_stats(piece), (path.name, start, size)
                crlf = piece.replace(b"\n", b"\r\n")
                assert line_stats(crlf) == full_line_stats(crlf), (path.name, start, size)


def test_a_sparse_large_sample_is_split_without_counting_it_first():
    """64 KiB of 60-byte lines: only the first 4 KiB are counted (the density probe), not the whole sample."""
    sample = _spied((b"x" * 59 + b"\n") * 1100)
    assert line_stats(sample) == full_line_stats(bytes(sample))
    assert all(call[1:] == (0, 4096) for call in sample.calls if call[0] == b"\n"), sample.calls


def test_a_dense_large_sample_is_still_counted_first():
    """40,000 bare newlines: the probe finds the start dense, the whole is counted and never split."""
    sample = _spied(b"\n" * 40_000 + b"tail")
    assert line_stats(sample) == full_line_stats(bytes(sample))
    assert (b"\n",) in sample.calls


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"", b"a", b"\r", b"\r\r", b"x" * 15, b"y" * 40, b"w" * 300]), min_size=1,
                max_size=40), st.sampled_from([b"\r\n", b"\n", b"\r", b"\n\r"]), st.integers(1, 3000),
       st.sampled_from([b"", b"\r", b"a\rb", b"\r" * 5000]), st.integers(0, 10**6))
@example([b"y" * 40], b"\r\n", 2000, b"\r", 10**6)  # (one bare \r at the end of a large CRLF sample)
@example([b"y" * 40], b"\r\n", 2000, b"\r" * 5000, 300)  # (a run of them inside it: not sparse throughout)
def test_bare_crs_of_large_samples_as_defined(lines, end, times, extra, at):
    sample = (end.join(lines) + end) * times
    sample = sample[: 70_000 + 3 * times]
    at %= len(sample) + 1
    sample = sample[:at] + extra + sample[at:]
    assert bare_crs(sample) == full_bare_crs(sample)


def test_bare_crs_of_real_outputs_as_defined():
    for path in REAL:
        data = path.read_bytes()
        for start in (0, 1, 777, len(data) // 3):
            for size in (64 * 1024 + 1, 512 * 1024):
                for piece in (data[start : start + size], data[start : start + size].replace(b"\n", b"\r\n")):
                    assert bare_crs(piece) == full_bare_crs(piece), (path.name, start, size)
                    cut = piece[: len(piece) // 2] + b"\r" + piece[len(piece) // 2 :]
                    assert bare_crs(cut) == full_bare_crs(cut), (path.name, start, size)


def test_large_crlf_text_is_searched_not_counted_in_pairs():
    """512 KiB of CRLF lines of 60 bytes: its carriage returns counted once, no ``\\r\\n`` counted."""
    sample = _spied((b"x" * 58 + b"\r\n") * 9000)
    assert bare_crs(sample) == 0
    assert (b"\r\n",) not in sample.calls, sample.calls
    dense = _spied(b"\r\n" * 40_000 + b"\r")  # (every other byte a \r: counted, never searched)
    assert bare_crs(dense) == 1
    assert (b"\r\n",) in dense.calls
