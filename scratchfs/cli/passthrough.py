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

import functools
from collections.abc import Callable, Iterator
from typing import Any

import click

from scratchfs.api.policy import result_size
from scratchfs.cli.app import command_settings, resolve_scope, stdout_bytes
from scratchfs.cli.output import end_shared_line
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import PASSTHROUGH_MAX_BYTES

__all__ = ["MAX_THRESHOLD_BYTES", "READ_BYTES", "UNSCOPED_ADVICE", "passes_small_through", "small_or_stream"]

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


UNSCOPED_ADVICE = ("Run the command again with --run and --agent (or $SCRATCHFS_RUN_ID and $SCRATCHFS_AGENT_ID) "
                   "set to store it and read it in pieces, or ask it for less.")
"""How the notice of a large input with no run or agent to store it under goes on."""


def _unscoped(chunks: Iterator[bytes], missing: str, tool: str | None, preview: str | None) -> None:
    """An input over ``--threshold`` with no run or agent to store it under (``missing``: the usage error saying
    which), passed as a failed spill passes a result (:func:`~scratchfs.api.spill_failure.chunks_passed_through`):
    whole to stdout up to ``passthrough_max_bytes`` (the store's default, 64 KiB), else the notice with its preview
    (a line of JSON, ``--preview`` its form); one stderr line says which and what was missing. Exit 0: a failed
    spill is never a failed tool call."""
    from scratchfs.api.spill_failure import chunks_passed_through  # (its stub's modules: loaded for this alone)

    try:
        settings = command_settings()
    except click.UsageError:  # (a bad variable of the store's: the defaults, nothing being stored)
        settings = None
    content, size, whole = chunks_passed_through(
        chunks, tool, f"no run or agent was set to store it under ({missing})", UNSCOPED_ADVICE, settings, preview)
    content += b"" if whole else b"\n"  # (the notice a line of JSON, as the stub is)
    out = stdout_bytes()
    out.write(content)
    out.flush()
    end_shared_line(content)
    bound = PASSTHROUGH_MAX_BYTES if settings is None else settings.passthrough_max_bytes
    done = ("passed through whole (at most passthrough_max_bytes" if whole else
            "not stored: a notice with its preview went to stdout in its place (over passthrough_max_bytes")
    click.echo(f"scratchfs: warning: this output ({size:,} bytes, over --threshold) was {done}, "
               f"{'no bound' if bound is None else f'{bound:,} bytes'}): {missing}", err=True)


def _missing_scope(kwargs: dict[str, Any]) -> str | None:
    """The usage error's words when the command's run, agent or root (its options, then the environment) cannot be
    had, else ``None``."""
    try:
        resolve_scope(kwargs.get("run_id"), kwargs.get("agent_id"), kwargs.get("root"))
    except click.UsageError as exc:
        return exc.message
    return None


def passes_small_through(cap_said: str) -> Callable[[Callable], Callable]:
    """The decorator of ``spill`` (outside its scope and store: its callback takes ``source``, ``threshold``,
    ``max_stdin_bytes``, ``run_id``, ``agent_id`` and ``root`` as click gives them; it gets the source capped --
    a file, or the chunks to spill -- and not the two options) deciding ``--threshold`` first:
    an input at most SIZE is written to stdout unchanged and the command ends there, exit 0, with no store
    opened. Run with no run or agent (``cmd | scratchfs spill --threshold 8KiB`` in a shell agent's environment
    that sets neither), the small output was lost to a usage error, exit 2, before stdin was read: it now passes
    through, and one stderr line says what is missing and that a larger output is not stored for it; a larger one
    passes as a failed spill does (:func:`_unscoped`: whole up to 64 KiB, else a notice with its preview), exit 0,
    one stderr line saying which. Without ``--threshold`` the store reads the source itself.
    ``--max-stdin-bytes`` caps what is stored: an input within a ``--threshold`` above the cap passes through (it
    was refused, exit 5, though nothing of it was to be stored), a larger one is refused as without ``--threshold``.
    ``cap_said``: the setting that raises the cap of standard input (``--max-stdin-bytes``)."""

    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def decided(*, source: Any, threshold: int | None, max_stdin_bytes: int, **kwargs: Any) -> Any:
            if threshold is None:
                source.cap_stdin(max_stdin_bytes, cap_said)
                return func(source=source, **kwargs)
            small, chunks = small_or_stream(source, threshold)  # (uncapped: at most --threshold, 16 MiB, is read)
            missing = _missing_scope(kwargs)
            if small is None:  # (the cap is of what is stored, the bytes the decision read counted: an input within
                source.cap_stdin(max_stdin_bytes, cap_said)  # --threshold, stored nowhere, passes whatever the cap)
                if missing is not None:
                    return _unscoped(chunks, missing, kwargs.get("tool"), kwargs.get("preview"))
                return func(source=chunks, **kwargs)
            out = stdout_bytes()
            out.write(small)
            out.flush()
            if missing is not None:
                end_shared_line(small)
                click.echo(f"scratchfs: warning: this output ({len(small):,} bytes, within --threshold) passed "
                           f"through unchanged, but a larger one would not be stored: {missing}", err=True)
            return None

        return decided

    return decorate
