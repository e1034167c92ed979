"""Standard output, and the input a command reads, whose errors are told from the store's: a command's ``OSError`` is
the store's file system failing (``scratchfs: storage: ...``), its output failing (``scratchfs: output: ...``:
``> /dev/full``, a full disk under a redirected stdout, ``EIO`` of a terminal gone) or its input failing
(``scratchfs: input: cannot read '<file>': ...``: ``EIO`` of ``/proc/self/mem``, a file on a failing disk); all exit
4, but a model or an operator reading "No space left on device" or "Input/output error" must know which file is at
fault. (A file that cannot be opened is click's usage error, exit 2, naming it.)

**How.** While a command runs, :func:`tagged_stdout` puts in ``sys.stdout`` a text stream of the same encoding,
error handler and line buffering over a buffer over :class:`TaggedStdout`, a raw writer of the same descriptor whose
failed ``write`` raises :class:`OutputError` (an ``OSError``) once and then discards what follows (the process is
ending with that error: nothing is to be flushed again at exit, where Python would print an "Exception ignored"
traceback). A reader that went away (``EPIPE``, ``| head``) stays ``BrokenPipeError``, which the group treats as
success; ``EAGAIN`` of a non-blocking descriptor is ``None``, as :class:`io.FileIO` gives it. The standard library's
:mod:`io` layers do the buffering and encoding: only the one system call is ours. A stdout that is not the process's
own (``click.testing.CliRunner`` replaces it) is left as it is.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import sys
from collections.abc import Iterator
from typing import Any

import click

from scratchfs.foundation.errors import InvalidArgument, QuotaExceeded
from scratchfs.foundation.text import plural, shorten

__all__ = ["INPUT_ARGUMENT", "STDIN_NAME", "TERMINAL_READ_BYTES", "InputError", "OutputError", "PathText", "RootText",
           "SourceFile", "TaggedSource", "TaggedStdout", "end_shared_line", "tagged_stdout"]


class OutputError(OSError):
    """Writing standard output failed (``errno`` and ``strerror`` of the failed ``write``)."""


class InputError(OSError):
    """Reading the command's input (a file named on the command line, or stdin) failed; ``strerror`` names it."""


STDIN_NAME = "standard input"
"""The name a :class:`TaggedSource` read from ``-`` has."""


class TaggedSource:
    """A binary file a command reads its content from (``read(n)``, what the store takes), whose read errors are
    :class:`InputError` naming ``name``. ``said``: a terminal's standard input, the line written on stderr before
    the first read (:func:`_typed_in`); its end (Ctrl-D) is then kept: a terminal's end of input is one empty read,
    and the read after it waited for a second Ctrl-D. A terminal's line as long as its line discipline keeps
    (:func:`_line_limit`) is refused: the terminal dropped the rest of it."""

    def __init__(self, file, name: str, said: str | None = None) -> None:
        self._file, self.name = file, name
        self._cap: tuple[int, str] | None = None
        self._read = 0
        self._said = said  # (the line written on stderr before the first read, then None)
        self._typed, self._ended = said is not None, False
        self._pending = b""  # (a terminal's bytes read, not yet given)
        self._limit = _line_limit(file) if self._typed else None

    def cap_stdin(self, most: int, said: str) -> None:
        """Refuse standard input past ``most`` bytes, and any other input that is no regular file (a pipe or device
        named: ``/dev/stdin``, ``/dev/zero``, a FIFO, ``<(yes)``; a regular file named is left alone: its size is its
        own), ``said`` naming the setting that raises it."""
        if self.name == STDIN_NAME or not _regular(self._file):
            self._cap = (most, said)

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (all that is left when negative).

        Raises:
            InputError: the read failed.
            InvalidArgument: a terminal gave a line as long as it keeps (it dropped the rest: the caller stores
                nothing).
            QuotaExceeded: standard input went past its cap (:meth:`cap_stdin`): the caller stores nothing of it.
        """
        if self._said is not None:
            click.echo(self._said, err=True)
            self._said = None
        try:
            data = self._typed_read(size) if self._typed else self._file.read(size)
        except OSError as exc:
            raise InputError(exc.errno, f"cannot read {self.name!r}: {exc.strerror or exc}") from None
        self._read += len(data)
        if self._cap is not None and self._read > self._cap[0]:
            said = ("standard input" if self.name == STDIN_NAME
                    else f"{self.name!r} (no regular file: a pipe or a device)")
            instead = "a file instead of -" if self.name == STDIN_NAME else "a regular file instead"
            raise QuotaExceeded(f"{said} went past its cap of {plural(self._cap[0], 'byte')} and nothing of it was "
                                f"stored: {self._cap[1]}, or name {instead}", alone=True)
        return data

    def _typed_read(self, size: int) -> bytes:
        """Up to ``size`` bytes of a terminal (all until its end when negative), and nothing once one has ended it.
        Each raw read asks for more than a terminal's line, so it is one typed line (or the part Ctrl-D sent), whole:
        one of :func:`_line_limit` bytes or more, its newline aside, lost what followed in the terminal."""
        while not self._ended and (size < 0 or len(self._pending) < size):
            part = getattr(self._file, "read1", self._file.read)(TERMINAL_READ_BYTES)
            self._ended = not part
            if self._limit is not None and len(part) - part.endswith(b"\n") >= self._limit:
                raise InvalidArgument(
                    f"a line typed or pasted into the terminal reached the {plural(self._limit, 'byte')} a terminal "
                    "keeps of a line, which drops the rest, so nothing was stored: pipe it (COMMAND | scratchfs ..., "
                    "xclip -o | scratchfs ...) or name a file")
            self._pending += part
        cut = len(self._pending) if size < 0 else size
        data, self._pending = self._pending[:cut], self._pending[cut:]
        return data

    def close(self) -> None:
        self._file.close()


TERMINAL_READ_BYTES = 65536
"""Bytes a raw read of a terminal asks for: more than one line of it holds (a read gives one line at the most)."""


def _line_limit(file: Any) -> int | None:
    """The bytes of a line a terminal (``file``, in canonical mode) keeps before its newline, past which it drops
    what is typed or pasted: 4,095 on Linux (the line discipline's 4,096-byte buffer; ``fpathconf`` names the POSIX
    least, 255), else ``MAX_CANON`` less 1 (1,023 on macOS); ``None`` when the terminal is not in canonical mode
    (``stty -icanon``: no line is kept) or that cannot be told."""
    try:
        import termios
    except ImportError:
        return None
    try:
        if not termios.tcgetattr(file.fileno())[3] & termios.ICANON:
            return None
        if sys.platform.startswith("linux"):
            return 4095
        return os.fpathconf(file.fileno(), "PC_MAX_CANON") - 1
    except (AttributeError, OSError, ValueError, termios.error):
        return None


def _regular(file: Any) -> bool:
    """Whether ``file`` (an open binary file) is a regular file, whose size is its own (else a pipe, a terminal, a
    device: its bytes may never end); one that cannot be told (no descriptor) counts as not."""
    try:
        return stat.S_ISREG(os.fstat(file.fileno()).st_mode)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


class TaggedStdout(io.RawIOBase):
    """A raw writer of the descriptor ``fd`` (not closed by :meth:`close`): see the module docstring."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.failed = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data) -> int | None:  # type: ignore[override]
        """Write ``data`` (a bytes-like object); the count written, ``None`` when the descriptor would block.

        Raises:
            BrokenPipeError: the reader went away. OutputError: any other failure, once; later writes are dropped.
        """
        if self.failed:
            return len(memoryview(data))
        try:
            return os.write(self._fd, data)
        except BlockingIOError:
            return None
        except BrokenPipeError:
            raise
        except OSError as exc:
            self.failed = True
            raise OutputError(exc.errno, exc.strerror) from None


@contextlib.contextmanager
def tagged_stdout() -> Iterator[None]:
    """Run the body with ``sys.stdout`` writing through :class:`TaggedStdout` and flushed at its end (so that an
    error of the last write is the command's), then put the original back. Raises what flushing raises (the
    original's pending output first, as ``OSError``)."""
    original = sys.stdout
    if original is None or original is not sys.__stdout__ or not isinstance(original, io.TextIOWrapper):
        yield
        return
    try:
        fd = original.fileno()
    except (OSError, ValueError):
        yield
        return
    original.flush()
    tagged = io.TextIOWrapper(io.BufferedWriter(TaggedStdout(fd)), encoding=original.encoding,
                              errors=original.errors, line_buffering=original.line_buffering)
    sys.stdout = tagged
    done = False
    try:
        yield
        done = True
        tagged.flush()
    finally:
        sys.stdout = original
        if not done:  # the body's error is the command's: what it wrote before goes out now, if it can
            with contextlib.suppress(OSError, ValueError):
                tagged.flush()


def refuse_nul(kind: click.ParamType, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> None:
    """A usage error (``kind.fail``) for a path that holds a NUL byte, which no file name can: ``os.stat`` and
    ``open`` raise ``ValueError`` for one -- a traceback from a command run in-process (``main([...])``; a real
    command line cannot carry the byte)."""
    if isinstance(value, (str, bytes)) and ("\0" if isinstance(value, str) else b"\0") in value:
        kind.fail(f"{shorten(os.fsdecode(value))} holds a NUL byte: no file name can", param, ctx)


class PathText(click.Path):
    """``click.Path``, refusing a path with a NUL byte as a usage error (:func:`refuse_nul`), not a traceback."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        refuse_nul(self, value, param, ctx)
        return super().convert(value, param, ctx)


_URL_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


class RootText(PathText):
    """A store's ``--root``: :class:`PathText`, refusing a URL (``postgresql://...``, ``s3://...``, ``file:///...``)
    as a usage error that names where an index or blob store goes -- taken as a path, it made a store in a relative
    directory ``postgresql:/x`` (``./postgresql://x`` is such a directory, if meant)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(readable=False, **kwargs)  # (a root this user may not read is the store's StorageError)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and _URL_RE.match(value):
            self.fail(f"{shorten(value)} is a URL, not a directory: a store's root is a directory of this machine; a "
                      "PostgreSQL index goes in --index ($SCRATCHFS_INDEX), S3 blobs in --blobs ($SCRATCHFS_BLOBS)",
                      param, ctx)
        return super().convert(value, param, ctx)


class SourceFile(click.File):
    """click's binary file (``-``: stdin), opened when the command line is parsed (a file that cannot be opened is a
    usage error naming it; a directory's names ``scratchfs load``, which spills its files), given to the command as a
    :class:`TaggedSource`: a read that fails later is ``scratchfs: input: cannot read '<file>': ...``, not the
    store's storage error."""

    def __init__(self) -> None:
        super().__init__("rb", lazy=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        refuse_nul(self, value, param, ctx)
        try:
            opened = super().convert(value, param, ctx)
        except RuntimeError:  # click's "Was not able to determine binary stream for sys.stdin": stdin is closed
            self.fail("standard input is closed: name a file, or give the content on standard input", param, ctx)
        except click.BadParameter:
            if value != "-" and os.path.isdir(value):  # (click: "Is a directory")
                self.fail(f"{os.fsdecode(value)!r} is a directory: `scratchfs load FOLDER` spills each of its files",
                          param, ctx)
            raise
        if value != "-":
            return TaggedSource(opened, os.fsdecode(value))
        return TaggedSource(opened, STDIN_NAME, _typed_in(opened, ctx.info_name if ctx is not None else None))


def _typed_in(stdin: Any, command: str | None) -> str | None:
    """The line said on stderr when ``command`` reads a terminal's standard input (``scratchfs spill`` typed alone
    waited silently for what was never coming): that it reads it, how to end it, and what to give instead;
    ``None`` when standard input is no terminal (a pipe, a file: nothing is said)."""
    try:
        if not stdin.isatty():
            return None
    except (AttributeError, OSError, ValueError):
        return None
    name = command or "this command"
    return (f"scratchfs: {name} reads its content from standard input, a terminal here: type or paste it, then "
            f"Ctrl-D at the start of a line ends it (Ctrl-C stops); or pipe a command's output into it "
            f"(COMMAND | scratchfs {name} ...), or name a file (scratchfs {name} ... FILE)")


INPUT_ARGUMENT = click.argument("source", type=SourceFile(), default="-", required=False)


def end_shared_line(data: bytes) -> None:
    """End the line ``data`` (the bytes just written on stdout, flushed) left open when stdout and stderr are one
    file -- one pipe (a shell agent's ``2>&1``), one terminal: a ``"\n"`` on stderr, so that the ``scratchfs: ...``
    line written next starts a line of its own, not read as the content's last line's end. Nothing when ``data`` is
    empty or ends a line, or the streams are apart (stdout's bytes are never changed); raises nothing."""
    if not data or data.endswith(b"\n"):
        return
    try:
        out, err = os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):  # (a replaced or closed stream)
        return
    if (out.st_dev, out.st_ino) == (err.st_dev, err.st_ino):
        click.echo("", err=True)
