"""The zstd compressor and decompressor objects of each thread, made once per thread and process.

A zstd context is never shared between threads (python-zstandard's objects are not thread-safe) or processes (a
``fork()`` child makes its own on first use: :data:`scratchfs.foundation.forks.generation`). Compressors are kept per
level and frame size, their match tables sized to the frame (:func:`frame_parameters`).
"""

from __future__ import annotations

import threading

import zstandard

from scratchfs.foundation import forks

__all__ = ["MAX_WINDOW_BYTES", "compress", "compressor", "decompressor", "frame_parameters", "out_of_memory"]

MAX_WINDOW_BYTES = 8 * 1024 * 1024
"""Largest zstd window the reader accepts, in bytes."""


class _Contexts(threading.local):
    generation = -1
    compressors: dict
    decompressor: zstandard.ZstdDecompressor


_contexts = _Contexts()


def _local() -> _Contexts:
    ctx = _contexts
    if ctx.generation != forks.generation:  # first use in this thread, or first use in a forked child
        ctx.generation = forks.generation
        ctx.compressors = {}
        ctx.decompressor = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW_BYTES)
    return ctx


def compressor(level: int, frame_bytes: int) -> zstandard.ZstdCompressor:
    """This thread's compressor for ``level`` and frames of ``frame_bytes`` bytes (its match tables sized to them,
    :func:`frame_parameters`): frames with content size and content checksum (RFC 8878). Raises nothing of its own
    (``zstandard.ZstdError`` only for parameters zstd refuses, which :func:`frame_parameters` never makes)."""
    ctx = _local()
    cctx = ctx.compressors.get((level, frame_bytes))
    if cctx is None:
        cctx = zstandard.ZstdCompressor(compression_params=frame_parameters(level, frame_bytes))
        ctx.compressors[level, frame_bytes] = cctx
    return cctx


def frame_parameters(level: int, frame_bytes: int) -> zstandard.ZstdCompressionParameters:
    """zstd's parameters of ``level`` for inputs of ``frame_bytes`` bytes, with the match finder's hash table at most
    a quarter and its chain table at most an eighth of the frame's size, in entries (``hashLog``/``chainLog`` of the
    zstd manual, ``lib/zstd.h``).

    zstd sizes them for a whole input of that size (2^17 and 2^16 entries for 128 KiB at level 3) and clears them
    for every frame; sized to the frame, 128 KiB frames compress 1.07× as fast for 0-0.8% more bytes on the
    fixtures (``python bench/frame_tables.py``: level 3's 1.091/1.071/1.053/1.019 of one frame against
    1.092/1.074/1.061/1.019), and T2's loop of 4 MiB spills runs at 259 against 246 MB/s (``python
    bench/frame_tables.py --spills``). Decompression does not depend on them.

    Args:
        level: zstd compression level. frame_bytes: the frame size, bytes (4 KiB to 4 MiB).

    Raises nothing: zstd takes any level (past its bounds, its strongest or fastest parameters)."""
    base = zstandard.ZstdCompressionParameters.from_level(level, source_size=frame_bytes)
    bits = max(frame_bytes.bit_length() - 1, 10)  # log2 of the frame size, rounded down
    return zstandard.ZstdCompressionParameters.from_level(
        level, source_size=frame_bytes, hash_log=min(base.hash_log, bits - 2),
        chain_log=min(base.chain_log, bits - 3), write_checksum=1, write_content_size=1)


def decompressor() -> zstandard.ZstdDecompressor:
    """This thread's decompressor (window limited to :data:`MAX_WINDOW_BYTES` bytes). Raises nothing."""
    return _local().decompressor


def out_of_memory(exc: zstandard.ZstdError) -> bool:
    """Whether zstd's error ``exc`` is its failure to allocate (``ZSTD_error_memory_allocation``: "Allocation error :
    not enough memory", under an address-space limit or a full machine): a resource's failure, raised by the caller
    as :class:`MemoryError`, never as a damaged frame or a refused parameter."""
    text = str(exc)
    return "Allocation error" in text or "not enough memory" in text


def compress(level: int, frame_bytes: int, data: bytes | memoryview) -> bytes:
    """One zstd frame of ``data`` by this thread's :func:`compressor`. Raises MemoryError: zstd could not allocate
    (:func:`out_of_memory`)."""
    try:
        return compressor(level, frame_bytes).compress(data)
    except zstandard.ZstdError as exc:
        if out_of_memory(exc):
            raise MemoryError(f"zstd: {exc}") from None
        raise
