"""What :func:`scratchfs.api.shape.describe` returns: a content's type and shape, with what its stub's note reads
first (:class:`Shape`), in a module of its own so that the modules that build a shape (:mod:`scratchfs.api.shape`,
:mod:`scratchfs.api.shape_json`) import it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Shape"]


@dataclass(frozen=True, slots=True)
class Shape:
    """``content_type`` (one of the module's types) and ``text`` (the shape, at most :data:`MAX_SHAPE_CHARS`);
    ``next_read``: the jq filter a JSON object's note names, chosen here when ``text`` names every key
    (:mod:`scratchfs.api.json_next`), else ``None``; ``top``: a JSON document's top level, ``"array"`` or
    ``"object"`` (the reads a note names depend on it: ``.[0]`` or ``.[]`` into an array), else ``None`` (a scalar,
    any other content) -- handed over, so that nothing reads the shape's text back for it; ``first_error``: the line
    (from 1) of a log's or text's first error or exception its text names (:class:`~scratchfs.api.shape_log.Told`),
    which its stub's note reads first, else ``None``."""

    content_type: str
    text: str
    next_read: str | None = None
    top: str | None = None
    first_error: int | None = None
