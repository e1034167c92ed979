"""A long read decompresses the frames after the one it yields ahead, on the process's frame threads
(``SeekableReader.iter_frames``): the frames come back whole and in order, a damaged one fails where it stands, a
read stopped early leaves no work behind, and a read carried into a ``fork()`` child goes on there."""

from __future__ import annotations

import os
import threading
import time

import pytest

from scratchfs.engine import seekable
from scratchfs.engine.binding import FormatError
from scratchfs.engine.frame_pool import frame_pool
from scratchfs.engine.search import LiteralMatcher, search
from scratchfs.engine.seekable import SeekableReader
from tests.test_seekable import open_reader, write_blob

FRAME = 4096


class Counting(SeekableReader):
    """A reader that records which thread decompressed each frame."""

    __slots__ = ("decoded",)

    def __init__(self, source, table) -> None:
        super().__init__(source, table)
        self.decoded: list[tuple[int, str]] = []

    def decode(self, index, raw):
        self.decoded.append((index, threading.current_thread().name))
        return super().decode(index, raw)


@pytest.fixture
def blob(tmp_path, fixture_data):
    data = b"".join(fixture_data.values())[: 256 * FRAME]  # 256 frames
    write_blob(tmp_path / "b.zst", data, frame_bytes=FRAME)
    fd, plain = open_reader(tmp_path / "b.zst")
    yield data, Counting(fd, plain.table)
    os.close(fd)


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    return [(i, data[i : i + FRAME]) for i in range(0, len(data), FRAME)]


def test_a_long_read_yields_every_frame_in_order_some_decompressed_ahead(blob):
    data, reader = blob
    got = []
    for frame in reader.iter_frames(batch_bytes=50_000, ahead=True):
        got.append(frame)
        time.sleep(0.001)  # a slow consumer: the frame threads get a core even on a loaded machine (at load 3 the
        # caller, consuming at full speed, decompressed every frame itself before a thread ran, twice in a full run)
    assert got == _frames(data)
    assert sorted(i for i, _ in reader.decoded) == list(range(256))  # each frame decompressed once
    assert any(name == "scratchfs-zstd" for _, name in reader.decoded)  # ... some on the frame threads
    assert list(reader.iter_frames(250, ahead=True)) == _frames(data)[250:]  # from a frame on


def test_reads_and_searches_decompress_inline_unless_asked(blob):
    """Reading ahead is opt-in: a plain read and a search (``search.READ_AHEAD`` off, see bench/read_ahead.py)
    decompress every frame in the caller's thread, and a search still finds what ``bytes.find`` finds."""
    data, reader = blob
    assert list(reader.iter_frames()) == _frames(data)
    needle = data[100_000:100_012]
    result = search(reader, LiteralMatcher(needle), 0, 10, 1000, 1 << 20, lambda index: 1)
    expected, at = [], data.find(needle)
    while at >= 0:
        expected.append(at)
        at = data.find(needle, at + len(needle))
    assert [hit.offset for window in result.windows for hit in window.matches] == expected
    assert {name for _, name in reader.decoded} == {threading.current_thread().name}
    assert len(reader.decoded) == 2 * 256  # every frame, once for each read


def test_a_short_read_stays_in_the_callers_thread(blob):
    data, reader = blob
    assert list(reader.iter_frames(253, ahead=True)) == _frames(data)[253:]
    assert {name for _, name in reader.decoded} == {threading.current_thread().name}


def test_a_read_stopped_early_leaves_its_frames_ahead_undone(blob):
    data, reader = blob
    frames = reader.iter_frames(ahead=True)
    taken = [next(frames) for _ in range(3)]
    frames.close()
    assert taken == _frames(data)[:3]
    time.sleep(0.2)  # (frames a thread had started finish; the others were cancelled)
    assert len(reader.decoded) <= 3 + 2 * frame_pool.workers  # at most the frames ahead, never the whole blob


def test_a_damaged_frame_fails_after_the_frames_before_it(tmp_path, blob):
    data, reader = blob
    table = reader.table
    raw = bytearray((tmp_path / "b.zst").read_bytes())
    middle = (table.c_offsets[100] + table.c_offsets[101]) // 2
    raw[middle] ^= 0xFF  # inside frame 100's compressed bytes
    (tmp_path / "d.zst").write_bytes(bytes(raw))
    fd, damaged = open_reader(tmp_path / "d.zst")
    got: list[tuple[int, bytes]] = []
    try:
        with pytest.raises(FormatError, match="frame 100"):
            got.extend(damaged.iter_frames(ahead=True))  # (extend keeps what came before the failure)
    finally:
        os.close(fd)
    assert got == _frames(data)[:100]


def test_a_read_carried_into_a_fork_child_goes_on_there(blob):
    data, reader = blob
    frames = reader.iter_frames(ahead=True)
    first = [next(frames) for _ in range(2)]  # frames ahead are queued on the parent's threads now
    pid = os.fork()
    if pid == 0:  # the child: the parent's threads are not here; its frames must still come, whole and in order
        code = 1
        try:
            code = 0 if first + list(frames) == _frames(data) else 2
        finally:
            os._exit(code)
    rest = list(frames)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert first + rest == _frames(data)


def test_the_bound_on_frames_ahead_follows_the_frame_size(monkeypatch, blob):
    data, reader = blob
    monkeypatch.setattr(seekable, "_AHEAD_BYTES", 2 * FRAME)  # two frames' worth: at most two ahead
    frames = reader.iter_frames(ahead=True)
    assert next(frames) == _frames(data)[0]
    time.sleep(0.2)
    assert max(i for i, _ in reader.decoded) <= 2
    frames.close()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_interrupts_at_random_moments_leave_the_frame_threads_working(tmp_path):
    # (an interrupt that lands in a finalizer or a gc callback -- an abandoned read's generator, hypothesis's gc
    # timer once its tests ran -- is swallowed by Python as "Exception ignored in ...": that read goes on)
    # a KeyboardInterrupt from a signal handler lands between two bytecodes of whatever the main thread runs; with
    # queue.Queue and concurrent.futures.Future (locks taken in Python code) one could leave a lock taken, and every
    # later call of the shared pool hung (a trial: 3 of 6 processes hung in Queue.put; 415 calls queued behind two
    # stuck threads in another). Interrupt long reads at random, then the pool must still answer and go idle.
    import random
    import signal

    from scratchfs.engine.frame_pool import FramePool

    data = os.urandom(FRAME * 7) * 9
    write_blob(tmp_path / "k.zst", data, frame_bytes=FRAME)
    fd, reader = open_reader(tmp_path / "k.zst")

    def interrupt(*_):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    rng, interrupted = random.Random(7), 0
    try:
        for _ in range(150):
            try:
                signal.setitimer(signal.ITIMER_REAL, rng.uniform(0, 0.004))
                try:
                    assert b"".join(chunk for _, chunk in reader.iter_frames(ahead=True)) == data
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            except KeyboardInterrupt:
                interrupted += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    try:
        assert b"".join(chunk for _, chunk in reader.iter_frames(ahead=True)) == data
    finally:
        os.close(fd)
    assert interrupted > 10
    assert frame_pool.submit(pow, 2, 5).result(timeout=10) == 32  # the shared pool still answers
    deadline = time.monotonic() + 30
    while (frame_pool.alive or frame_pool.queued) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert (frame_pool.alive, frame_pool.queued) == (0, 0)  # and its threads end once idle
    assert isinstance(FramePool(workers=1).submit(len, b"ab").result(timeout=10), int)
