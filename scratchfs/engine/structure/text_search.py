"""Searches over a rendered text held in memory (an HTML page's text view): the same
:func:`~scratchfs.engine.search.search` as over a stored blob -- the same matchers, windows, line numbers, budget and
time limit -- run over the text's bytes cut into frames of :data:`FRAME_BYTES`, so that a model can search the text
it reads (``view="text"`` with ``match=``), its offsets and lines those of the view.

Time and memory: each frame is a slice of the text (a copy of at most :data:`FRAME_BYTES`, as a blob's frame is
decompressed), kept in the search's buffer as long as a blob's; the line of each frame's start is counted once a
search (one ``bytes.count`` over the text: about 1 ms a MiB).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator

from scratchfs.engine.search import Matcher, SearchResult, Sink, search
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.text import plural

__all__ = ["FRAME_BYTES", "search_text"]

FRAME_BYTES = 256 * 1024
"""Bytes of the text a search takes at a time (a stored blob's frames are of this order)."""


class _Frames:
    """The seek table of a text cut into frames of :data:`FRAME_BYTES` (``size``, ``d_offsets``, ``frame_at``), and
    the frames (``iter_frames``): what :class:`~scratchfs.engine.search.Searcher` reads of a blob's reader."""

    __slots__ = ("d_offsets", "text")

    def __init__(self, text: bytes) -> None:
        self.text = text
        self.d_offsets = [*range(0, len(text), FRAME_BYTES), len(text)]

    @property
    def table(self) -> _Frames:
        return self

    @property
    def size(self) -> int:
        return len(self.text)

    @property
    def frames(self) -> int:
        return len(self.d_offsets) - 1

    def frame_at(self, offset: int) -> int:
        return bisect_right(self.d_offsets, offset) - 1

    def iter_frames(self, first: int = 0, batch_bytes: int = 0, ahead: bool = False) -> Iterator[tuple[int, bytes]]:
        for index in range(first, self.frames):
            start, end = self.d_offsets[index], self.d_offsets[index + 1]
            yield start, self.text[start:end]


def search_text(text: bytes, matcher: Matcher, start: int, context: int, max_matches: int,
                budget: int, sink_class: type[Sink] = Sink) -> SearchResult:
    """The matches of ``matcher`` in ``text`` from byte ``start`` on, as :func:`~scratchfs.engine.search.search`
    finds them in a stored content (``context`` bytes a side, at most ``max_matches`` matches and ``budget`` bytes of
    windows; 1-based line numbers of the text; ``sink_class`` collects the windows: a
    :class:`~scratchfs.engine.line_windows.LineSink` makes them whole lines).

    Raises:
        InvalidArgument: ``start`` past the end of the text.
        PatternTimeout, PatternTooLong: as the search raises them.
    """
    if start > len(text):
        raise InvalidArgument(f"offset {start} is past the end of the text view ({plural(len(text), 'byte')})")
    frames = _Frames(text)
    starts = [1]
    for index in range(frames.frames):  # the line of each frame's first byte (and of the end)
        starts.append(starts[-1] + text.count(b"\n", frames.d_offsets[index], frames.d_offsets[index + 1]))
    return search(frames, matcher, start, context, max_matches, budget, starts.__getitem__,  # type: ignore[arg-type]
                  sink_class)
