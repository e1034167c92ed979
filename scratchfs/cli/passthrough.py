"""``scratchfs spill --threshold SIZE``: spill only an input larger than SIZE, as a model receives it, and write a
smaller one to stdout unchanged -- what :meth:`scratchfs.Scope.offload` decides for a Python agent loop and
``mcp-proxy --threshold`` for an MCP server, for a shell agent whose tool is a pipe (``cmd | scratchfs spill
--threshold 8KiB -``): a short output reaches the model as itself, not as a 1.5 KiB stub of itself.

The input is read up to one byte past SIZE and no further before the decision (a stream of GiB is then spilled from
where that read stopped, the bytes already read first: never held whole); the size is the store's measure of every
reply, :func:`scratchfs.api.policy.result_size` (the input's text as a JSON string, escapes included), so an input of
SIZE bytes full of quotes or control characters is spilled too. Only the size decides: the command spills what it is
given (``--tool`` is a label), where ``offload`` also weighs the result's class and out-of-band fields.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scratchfs.api.policy import result_size
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["MAX_THRESHOLD_BYTES", "READ_BYTES", "small_or_stream"]

MAX_THRESHOLD_BYTES = 16 * 1024 * 1024
"""The largest ``--threshold``: what the decision holds in memory at the most (an input this size inline is past
any reply budget a model is given: 64 KiB at the most)."""

READ_BYTES = 1 << 20
"""Bytes read at a time from the input after the decision, when it is spilled."""


def small_or_stream(source: Any, threshold: int) -> tuple[bytes | None, Iterator[bytes]]:
    """Read ``source`` (a binary file: ``read(n)``) up to ``threshold + 1`` bytes and decide.

    Returns:
        ``(content, ())`` when the whole input is at most ``threshold`` bytes as a model receives it (the content to
        write unchanged); else ``(None, chunks)``: the input's bytes as chunks to spill, the ones read first leading.

    Raises:
        InvalidArgument: ``threshold`` is over :data:`MAX_THRESHOLD_BYTES`.
        whatever ``source.read`` raises (the CLI's input error).
    """
    if threshold > MAX_THRESHOLD_BYTES:
        raise InvalidArgument(f"--threshold is at most 16MiB ({MAX_THRESHOLD_BYTES:,} bytes; it was {threshold:,}): "
                              "an input that large is past any reply budget a model is given")
    head = _read_up_to(source, threshold + 1)
    if len(head) <= threshold and result_size(head) <= threshold:
        return head, iter(())
    return None, _chained(head, source)


def _read_up_to(source: Any, size: int) -> bytes:
    """Up to ``size`` bytes of ``source``, fewer only at its end (a pipe's read may return fewer than asked)."""
    parts, got = [], 0
    while got < size:
        part = source.read(size - got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _chained(head: bytes, source: Any) -> Iterator[bytes]:
    if head:
        yield head
    while part := source.read(READ_BYTES):
        yield part
