"""Content as a stream of byte chunks: every accepted type of content (bytes, text, a binary file, an iterable of
chunks) read without holding a stream in memory whole."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from os import PathLike, fspath

from scratchfs.foundation.errors import InvalidArgument, ScratchError

READ_CHUNK_BYTES = 1024 * 1024
"""Bytes read from a file object per chunk."""


class ContentFailed(ScratchError):
    """Reading the content itself failed: its ``read`` or its iteration raised ``original``, an ``OSError`` that is
    no :class:`~scratchfs.foundation.errors.ScratchError` (a file on a failing disk, a pipe's reader). Carried as a
    ScratchError past the blob stores, which tell an ``OSError`` in their write as the store's own
    ``StorageError`` ("cannot write the blob"); the writer raises ``original`` again, as it was."""

    def __init__(self, original: OSError) -> None:
        super().__init__(str(original))
        self.original = original


def iter_chunks(content: object, chunk_bytes: int = READ_CHUNK_BYTES) -> Iterator[bytes | memoryview]:
    """Yield the bytes of ``content`` in chunks, never holding more than one chunk of a stream.

    ``content`` is ``bytes``/``bytearray``/``memoryview`` (of any shape and format: its bytes in C order, as
    ``tobytes()`` gives them); ``str`` (stored as UTF-8); a binary file object (anything with ``read(n)``; ``str``
    from a text file is encoded as UTF-8); or an iterable of such chunks.

    Raises:
        InvalidArgument: any other type, a chunk of another type (a path's message names the file's ``open("rb")``,
            a structure's -- a ``dict``, a ``list`` of records -- its JSON text, as ``offload`` spills it), a
            released ``memoryview``, or text that is not valid UTF-8 (lone surrogates).
        ContentFailed: the file's ``read`` or the iterable raised an ``OSError`` (``original``).
    """
    if isinstance(content, (bytes, bytearray)):
        yield content
    elif isinstance(content, memoryview):
        yield _view(content)
    elif isinstance(content, str):
        for start in range(0, len(content), chunk_bytes):
            yield _encode(content[start : start + chunk_bytes])
    elif callable(getattr(content, "read", None)):
        while chunk := _guarded(content.read, chunk_bytes):
            yield _as_bytes(chunk)
    elif isinstance(content, Iterable) and not isinstance(content, (dict, set, frozenset)):
        chunks = _guarded(iter, content)
        while (chunk := _guarded(next, chunks, _END)) is not _END:
            yield _as_bytes(chunk)
    else:
        raise InvalidArgument(
            f"content must be bytes, str, a binary file or an iterable of byte chunks, not {type(content).__name__}"
            + _advice(content, (dict,))
        )


_JSON_VALUES = (dict, list, tuple, int, float, bool, type(None))
"""Types of a structure's values: content that holds one is a structure, spilled as its JSON text."""


def _advice(value: object, structures: tuple[type, ...] = _JSON_VALUES) -> str:
    """What to do with content (or a chunk) of a refused type: open a path; write a structure (content of one of
    ``structures``) as its JSON text; nothing for another type."""
    if isinstance(value, PathLike):
        return f": a path is not read; spill the file's bytes, Path({fspath(value)!r}).open(\"rb\")"
    if isinstance(value, structures):
        return (": a structure is spilled as its JSON text, json.dumps(value, ensure_ascii=False), as offload "
                "spills a dict, list or tuple result")
    return ""


_END = object()
"""The end of an iterable's chunks (``None`` is a chunk of a wrong type, refused)."""


def _guarded(call, *args):
    """``call(*args)``, an ``OSError`` it raises (no ScratchError: the store's own) as :class:`ContentFailed`."""
    try:
        return call(*args)
    except ScratchError:
        raise
    except OSError as exc:
        raise ContentFailed(exc) from exc


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(f"content is not valid UTF-8 text (at character {exc.start})") from None


def _as_bytes(chunk: object) -> bytes | bytearray | memoryview:
    if isinstance(chunk, (bytes, bytearray)):
        return chunk
    if isinstance(chunk, memoryview):
        return _view(chunk)
    if isinstance(chunk, str):
        return _encode(chunk)
    raise InvalidArgument(f"a content chunk must be bytes or str, not {type(chunk).__name__}" + _advice(chunk))


def _view(view: memoryview) -> bytes | memoryview:
    """The bytes of a view: itself as bytes when it is contiguous, else a copy (a strided slice such as ``[::2]``,
    or a format ``cast`` refuses). Raises InvalidArgument for a released view."""
    try:
        if view.c_contiguous:
            return view.cast("B")
    except (TypeError, ValueError):
        pass
    try:
        return view.tobytes()
    except ValueError:  # "operation forbidden on released memoryview object"
        raise InvalidArgument("content is a released memoryview: its bytes are gone") from None


__all__ = ["READ_CHUNK_BYTES", "ContentFailed", "iter_chunks"]
