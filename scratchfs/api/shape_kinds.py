"""Kinds of text told by their lines, for :mod:`scratchfs.api.shape`, tried in this order on a text that is none of
the structured kinds (JSON, HTML, XML) nor terminal output: a unified diff (:mod:`~scratchfs.api.shape_diff`), YAML
(:mod:`~scratchfs.api.shape_yaml`; before Markdown, whose headings its ``#`` comments would be), Markdown
(:mod:`~scratchfs.api.shape_markdown`), a file listing (:mod:`~scratchfs.api.shape_listing`). Each names the parts of
the text with the line each starts at, for a ``line=N`` read; each gates on a scan or two of a byte before reading
more (about 4 us together on 4 KiB that is none of them). Each then reads at most the sample's first
:data:`~scratchfs.api.shape_words.MOST_LINES` lines (:func:`~scratchfs.api.shape_words.within_lines`): a sample of
more -- 512 KiB of short lines, ``#`` or ``- `` or a diff of thousands of one-line files -- is told from those, its
shape saying how much of the content that is (``in the first 120 KiB of 512 KiB``), as it says so of a content larger
than the sample."""

from __future__ import annotations

from scratchfs.api.shape_diff import diff_shape
from scratchfs.api.shape_listing import listing_shape
from scratchfs.api.shape_markdown import markdown_shape
from scratchfs.api.shape_yaml import yaml_shape

__all__ = ["told_by_lines"]

_KINDS = (diff_shape, yaml_shape, markdown_shape, listing_shape)


def told_by_lines(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of the first kind that tells ``sample`` (a content's first bytes; ``complete``: all of it;
    ``lines``: the whole content's line count; ``scope``: what to add when the sample is not all of it; ``size``:
    the whole content's bytes, ``None``: the sample's), else ``None``. Never raises."""
    for told in _KINDS:
        shape = told(sample, lines, complete, scope, size)
        if shape is not None:
            return shape
    return None
