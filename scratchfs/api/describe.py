"""What a content's row says of it besides its size: line count, content type and shape, list preview -- the same
for a spill (:mod:`scratchfs.api.entries`) and for a row restored from its blob (:mod:`scratchfs.api.restore`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, NamedTuple

from scratchfs.api.preview import list_preview
from scratchfs.api.settings import Settings
from scratchfs.engine.seekable import FormatError
from scratchfs.engine.structure.paging import ContentSource
from scratchfs.foundation.errors import ScratchError
from scratchfs.foundation.limits import LIST_PREVIEW_BYTES

if TYPE_CHECKING:
    from scratchfs.api.shape import Shape

__all__ = ["Description", "describe_content", "json_start", "json_top"]


class Description(NamedTuple):
    """What :func:`describe_content` tells of a content: ``lines`` (a line ends at ``\\n``), ``content_type`` and
    ``shape`` (``None`` when shape detection is off), ``preview`` (the list preview, text: a hex dump for binary
    content, :func:`~scratchfs.api.preview.list_preview`), ``next_read`` (the jq filter a JSON object's stub names,
    chosen by its shape's describer: :attr:`~scratchfs.api.shape.Shape.next_read`), ``top`` (a JSON document's top
    level, ``"array"`` or ``"object"``: :attr:`~scratchfs.api.shape.Shape.top`), ``first_error`` (the line of a log's
    or text's first error or exception: :attr:`~scratchfs.api.shape.Shape.first_error`)."""

    lines: int
    content_type: str | None
    shape: str | None
    preview: str
    next_read: str | None = None
    top: str | None = None
    first_error: int | None = None


def describe_content(settings: Settings, head: bytes, size: int, frame_newlines: bytes, last_byte: int | None,
                     whole: Callable[[], AbstractContextManager[ContentSource]]) -> Description:
    """Describe a content of ``size`` bytes for its row, the same way for a spill and for ``fsck --rebuild-index``.

    Args:
        settings: the store's (``detect_shape``, ``preview_bytes``).
        head: its first bytes (at least ``SAMPLE_BYTES`` when shape detection is on, the whole content if shorter).
        frame_newlines: the ``\\n`` count of each frame (``array('I')`` bytes). last_byte: its last byte, or None.
        whole: opens the whole content as a content source (a context manager), called only for a JSON document
            larger than ``head``, whose top level is then described whole, streamed (or gives a closed
            :class:`~scratchfs.engine.structure.toplevel.TopLevelFeed` that read it while it was written); any
            failure to read it (OSError, FormatError, ScratchError) leaves the shape of ``head``.

    Never raises for the blob.
    """
    lines = sum(memoryview(frame_newlines).cast("I")) + (last_byte not in (None, 0x0A))
    content_type = shape = next_read = top = first_error = None
    if settings.detect_shape:
        found = _shape(head, size, lines, whole)
        content_type, shape, next_read, top = found.content_type, found.text, found.next_read, found.top
        first_error = found.first_error
    preview = list_preview(head, size, min(settings.preview_bytes, LIST_PREVIEW_BYTES), content_type == "binary",
                           LIST_PREVIEW_BYTES)
    return Description(lines, content_type, shape, preview, next_read, top, first_error)


_JSON_START_BYTES = 64  # a content whose first bytes, past a BOM and white space, start with "{" or "[" is JSON


def json_start(head: bytes) -> bool:
    """True if ``head`` (a content's first bytes) starts, past a BOM and white space, with ``{`` or ``[``, within
    its first :data:`_JSON_START_BYTES` bytes."""
    return json_top(head[:_JSON_START_BYTES]) in ("object", "array")


def json_top(head: bytes) -> str | None:
    """The top level of the JSON document whose first bytes are ``head``, by its first byte past a BOM and white
    space: ``"object"`` (``{``), ``"array"`` (``[``), ``"scalar"`` (any other), or ``None`` when there is none."""
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return None if not start else "object" if start == b"{" else "array" if start == b"[" else "scalar"


def _shape(head: bytes, size: int, lines: int, whole: Callable[[], AbstractContextManager[ContentSource]]) -> Shape:
    from scratchfs.api.json_part import may_follow_text  # (shape detection loads when a content is described:
    from scratchfs.api.shape import describe  # a command that writes nothing never pays for its modules)

    if len(head) >= size or not (json_start(head) or may_follow_text(head)):  # (JSON after text lines: json_part)
        return describe(head, size, lines)
    try:
        with whole() as source:
            return describe(head, size, lines, source)
    except (OSError, FormatError, ScratchError):
        return describe(head, size, lines)
