"""The preview of an HTML page: the start of its text view (``view="text"``: the page's text as a browser lays it
out), where its first bytes are ``<!DOCTYPE>``, ``<meta>`` and ``<link>`` markup that tell nothing its shape (title,
headings) does not (the Rust book's stub: 552 bytes of its ``<head>``). Its bytes are those the text view reads from
offset 0 (:func:`~scratchfs.engine.structure.html_start.view_start`, told from cuts of the page's start), so the
preview and the read never disagree, and the note reads on with ``view="text", offset=`` the bytes it shows. A page
whose view's start is not told so (no text, nested too deeply, decoded otherwise past the sample) keeps the byte
preview; so does a ``head+tail`` preview (its tail is the page's last bytes)."""

from __future__ import annotations

import re

from scratchfs.api.preview import make_preview
from scratchfs.api.shape_html import heading_counts
from scratchfs.api.stub_reads import after_handle
from scratchfs.engine.structure.html_main import MainStart, main_open_past, main_start, main_text
from scratchfs.engine.structure.html_start import LEAST_VIEW_BYTES, MOST_CUT_BYTES, view_cut, view_start
from scratchfs.foundation.limits import SAMPLE_BYTES
from scratchfs.foundation.text import plural

__all__ = ["IN_TEXT_VIEW", "ViewHead", "page_reads", "view_head", "view_note"]

IN_TEXT_VIEW = ' of its text view (view="text")'
"""What a stub's note says after the bytes an HTML preview shows."""


class ViewHead:
    """The first bytes of an HTML page's text view (``head``: the page's first bytes, ``size``: its bytes, ``most``:
    the preview's bytes), told once (a stub's fitting tries several previews: :meth:`fit`). ``found``: whether they
    were told. ``main``: the selector of the page's main content, when the text is that content's start (the page's
    text before it -- navigation -- skipped: :func:`~scratchfs.engine.structure.html_main.main_start`), else
    ``None``; ``skipped``: the page's bytes before it, and ``element``: how the page marks it (``<main>``, ...)."""

    def __init__(self, head: bytes, size: int, most: int) -> None:
        self.main, self.skipped, self.element = None, 0, ""
        landmark = main_start(head)
        told = None
        if landmark is not None:  # (the page as if its body held its main content alone: that content's text)
            skipped = landmark.start - landmark.body
            told = _main_view(head, size, landmark, most)
            if told is not None:
                self.main, self.skipped, self.element = landmark.selector, skipped, landmark.element
                told = (told[0], False)  # (never all of the page's text: its start was skipped)
        if told is None:
            told = view_start(head, size, most)
        self.found = told is not None
        self.text, self.whole = told or (b"", False)

    def fit(self, limit: int) -> tuple[str, int, bool]:
        """``(preview, bytes of the view it shows, whether that is all of the view)``: the view's first bytes, at most
        ``limit`` of them, cut as a byte preview is (:func:`~scratchfs.api.preview.make_preview`)."""
        text = self.text
        preview, covered, _ = make_preview(text, b"", len(text) + (not self.whole), limit)
        return preview, covered, self.whole and covered >= len(text)


def _main_view(head: bytes, size: int, landmark: MainStart, most: int) -> tuple[bytes, bool] | None:
    """The start of the text view of the page as if its body held its main content (``landmark``) alone, where it
    is the start of what the note's select of the landmark gives, else ``None``. Rendered once: the view's cuts
    (:func:`~scratchfs.engine.structure.html_start.view_cut`), then a parse of the page up to where its last cut
    ends tells the landmark is the select's first match and still open there
    (:func:`~scratchfs.engine.structure.html_main.main_open_past`): the view's text is then all the landmark's.
    Only a landmark that ends before it, or stands where a select renders it otherwise, is rendered by itself too
    (:func:`~scratchfs.engine.structure.html_main.main_text`), the view kept as far as the two agree. Before, every
    stub rendered both (the Node.js process page: 2.5 ms of cuts, 4.1 ms of the landmark's own text)."""
    skipped = landmark.start - landmark.body
    view = view_cut(head[: landmark.body] + head[landmark.start :], size - skipped, most)
    if view is None:
        return None
    most_parsed = max(MOST_CUT_BYTES, 4 * most) + 1024
    inside = main_open_past(head, landmark, view[2] + skipped, most_parsed)
    if inside is None:
        return None
    text = view[0].decode("utf-8")
    if inside and text[:1].strip():  # (no indent nor blank line first, which the select's text strips)
        return _of_main(view[0], _BLANK_LINE.sub("", text))  # (its lines of spaces left blank, as the select's)
    return _of_main(view[0], main_text(head, landmark, most_parsed, 4 * max(most, LEAST_VIEW_BYTES)))


_BLANK_LINE = re.compile(r"^[ \t]+$", re.MULTILINE)
"""A line of spaces and tabs alone, which a select's text leaves empty (``textwrap.dedent`` in
:func:`~scratchfs.engine.structure.html_render.element_text`: a ``<p>&nbsp;</p>``'s line) and the text view keeps."""


def _of_main(view: bytes, own: str | None) -> tuple[bytes, bool] | None:
    """What ``view`` (the start of the text view of the page as if its body held its main content alone) and
    ``own`` (the start of the text ``select=`` of the main content gives; ``None``: that select does not give the
    landmark first) start with alike, if any text, else ``None``: the preview never shows what that select does not
    give -- text after the landmark's end (a ``<main>`` of one line, of none), a landmark the scan took from an
    attribute's value."""
    if not own:
        return None
    text = view.decode("utf-8")
    alike = next((at for at, (one, other) in enumerate(zip(text, own, strict=False))
                  if one != other), min(len(text), len(own)))
    shown = text[:alike].rstrip()
    return (shown.encode("utf-8"), False) if shown else None


def view_head(head: bytes, size: int, most: int) -> ViewHead | None:
    """The :class:`ViewHead` of an HTML page, if its view's first bytes were told (else ``None``: its bytes are
    previewed)."""
    found = ViewHead(head, size, most)
    return found if found.found else None


def view_note(what: str, call: str, covered: int, whole: bool, by_other: str, main: ViewHead | None = None) -> str:
    """The note of an HTML preview that shows ``covered`` bytes of the text view (``whole``: all of it): ``what``
    was stored, and the next calls -- the view read on from where the preview stops, the page's bytes by range from
    its start (``call``: ``read_handle(handle=...``), ``by_other`` (a search). ``main``: the view whose ``main``
    content the preview shows (:class:`ViewHead`), its navigation skipped: the note says so and reads on with a
    select of that content, then the text view from its start."""
    if main is not None and main.main is not None:
        select, start = after_handle(select=main.main), after_handle(view="text", offset=0)
        return (f"{what}; the preview shows the first {plural(covered, 'byte')} of the page's main content "
                f"({main.element}), its navigation before it skipped ({plural(main.skipped, 'byte')} of the page): "
                f"the text view from its start reads them. Next: {call}, {select} | {call}, {start} | {by_other}.")
    if whole:
        return f"{what}; the preview shows all{IN_TEXT_VIEW}. Next: {by_other}."
    return (f"{what}; the preview shows bytes 0-{covered}{IN_TEXT_VIEW}. Next: "
            f"{call}, {after_handle(view='text', offset=covered)} | {by_other}.")


_ENOUGH_HEADINGS = 8
"""Headings a note's ``select=`` of the highest levels reaches for: past its two highest, a level is added while
those chosen hold fewer."""


def _levels(head: bytes) -> list[str]:
    """The heading levels a note selects of the page whose first bytes are ``head``: the two highest of its shape's,
    and, where the shape says each level's count (:func:`~scratchfs.api.shape_html.heading_counts`), the next ones
    while the levels chosen hold fewer than :data:`_ENOUGH_HEADINGS` headings (``(1 h1, 1 h2, 80 h3)``, Node.js's
    ``process`` page, whose ``h1, h2`` were two headings of its 82). The counts are the shape's own, handed over:
    a title or a heading whose words read as counts (``h2: 3``, ``12 headings``) changes nothing."""
    counts, said = heading_counts(head[:SAMPLE_BYTES])
    if not said:
        return [level for level, _ in counts[:2]]
    levels: list[str] = []
    held = 0
    for level, count in counts:
        if len(levels) >= 2 and held >= _ENOUGH_HEADINGS:
            break
        levels.append(level)
        held += count
    return levels


def page_reads(call: str, head: bytes, search: str) -> str:
    """The reads of an HTML page (``head``: its first bytes, the sample its shape told) a note names after its text
    view's next page: the page's headings of the two highest levels its shape counts (``select="h1, h2"``: each
    heading's text, 2,272 bytes of the Rust book's 80) and of the next levels while those hold few
    (:func:`_levels`), if it has any, and ``search`` (``pattern="REGEX"`` or ``match="TEXT"``, after the handle)
    over its text view -- not the page's bytes from its start, whose ``<head>`` markup and scripts a range read
    returns (4,518 bytes of ``python-policy.html``, modelfollow1). ``call``: ``read_handle(handle=...``. Never
    raises."""
    levels = _levels(head)
    select = f"{call}, {after_handle(select=', '.join(f'h{level}' for level in levels))} | " if levels else ""
    return f"{select}{call}, view=\"text\", {search}"
