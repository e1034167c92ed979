"""The text of an HTML page or element as the text view shows it: ``inscriptis`` (a pure-Python HTML-to-text renderer
that keeps a page's layout -- blocks, lists, ``<pre>`` -- where lxml's ``text_content()`` runs it together; why it
and not another: :mod:`scratchfs.engine.structure.html`), adapted to what a browser shows and a model reads: tables
one row a line, cells between :data:`CELL_SEPARATOR`, never padded (:class:`_FlatTable`), a block's text kept in
pieces (linear, not quadratic, in its length), white space inherited as in CSS, ``<div>`` not indented, raised,
lowered and struck text marked (:func:`parser_config`), and an element rendered where it stands
(:func:`element_text`).

It runs in the HTML worker (:mod:`scratchfs.engine.structure.html_worker`, which loads this file by path, after its
siblings :mod:`scratchfs.engine.structure.html_codec` and :mod:`~scratchfs.engine.structure.html_fields`): it
imports ``lxml`` and ``inscriptis`` and, of ``scratchfs``, those siblings alone. Importing it replaces inscriptis's
text block (:class:`_PartsBlock`, inscriptis 2.x).
"""

from __future__ import annotations

import contextlib
import functools
import textwrap
from collections.abc import Iterator
from typing import Any

import inscriptis.model.canvas
import lxml.etree
import lxml.html
from inscriptis import Inscriptis
from inscriptis.css_profiles import CSS_PROFILES
from inscriptis.html_properties import Display
from inscriptis.model.canvas import Canvas
from inscriptis.model.canvas.block import Block
from inscriptis.model.config import ParserConfig
from inscriptis.model.html_element import HtmlElement
from inscriptis.model.table import Table
from inscriptis.model.tag import CustomHtmlTagHandlerMapping
from inscriptis.model.tag.table_tag import table_end_handler

from scratchfs.engine.structure.html_codec import VIEW_SPACES
from scratchfs.engine.structure.html_fields import control_text

__all__ = ["CELL_SEPARATOR", "element_text", "parser_config"]


class _PartsBlock(Block):
    """inscriptis's text block, its text kept as a list of pieces joined when it is read: inscriptis appends each
    piece to the block's string (``self._content += text``, an attribute: a copy each time), quadratic in a block's
    length -- a rustdoc source page of 7.6 MiB, a few blocks of millions of characters, ran past its time limit.
    Text is written as lxml decoded it, not unescaped again (inscriptis did: ``&amp;lt;`` showed as ``<``, where a
    browser shows ``&lt;``), and a ``<pre>``'s Unicode spaces as ``" "`` (:data:`VIEW_SPACES`)."""

    __slots__ = ("_parts",)

    def __init__(self, idx: int, prefix: Any) -> None:
        super().__init__(idx, prefix)
        self._parts: list[str] = []

    def merge_normal_text(self, text: str) -> None:
        normalized = []
        for ch in text:  # (inscriptis's own collapse of blank space, piece by piece)
            if not ch.isspace() or ch in _KEPT_SPACES:  # (a no-break or other Unicode space is no white space CSS
                normalized.append(" " if ch in _KEPT_SPACES else ch)  # collapses: a browser shows each, so an indent
                self.collapsable_whitespace = False  # written &nbsp;&nbsp;&nbsp;&nbsp;x is kept, each one " ")
            elif not self.collapsable_whitespace:
                normalized.append(" ")
                self.collapsable_whitespace = True
        if normalized:
            first = self.prefix.first if not (self._content or self._parts) else ""
            self._append("".join((first, *normalized)))

    def merge_pre_text(self, text: str) -> None:
        text = text.translate(VIEW_SPACES)
        self._append("".join((self.prefix.first, text.replace("\n", "\n" + self.prefix.rest))))
        self.collapsable_whitespace = False

    def _append(self, text: str) -> None:
        self._parts.append(text)
        self.idx += len(text)

    @property
    def content(self) -> str:
        if self._parts:
            self._content += "".join(self._parts)
            self._parts.clear()
        return Block.content.fget(self)

    def new_block(self) -> Block:
        self.prefix.consumed = False
        return _PartsBlock(idx=self.idx + 1, prefix=self.prefix)


if "_content" in getattr(Block, "__slots__", ()) and hasattr(Block, "merge_normal_text"):  # (inscriptis 2.x)
    inscriptis.model.canvas.Block = _PartsBlock  # the canvas opens its first block with it


_KEPT_SPACES = frozenset(chr(space) for space in VIEW_SPACES)  # (CSS Text 3, 4.1: spaces, tabs, line ends collapse)

CELL_SEPARATOR = " | "
"""What stands between two cells of a table row in the text view (:class:`_FlatTable`)."""


class _FlatTable(Table):  # type: ignore[misc]
    """A table as the text view renders it: each row on one line, its cells' texts (stripped) joined by
    :data:`CELL_SEPARATOR`, the blank cells at the end of a row and rows of blank cells left out. inscriptis pads every
    cell to its column's widest and its row's tallest: a page's layout tables rendered at up to 20 times their text
    (``pydoc -w typing``: 152,413 bytes of HTML, 1,162,496 of text, 96% spaces). A model pays for every byte and needs
    no alignment. A row with a cell of several lines (a list, a ``<br>``) or holding a table is :func:`_tall_row`,
    between empty lines, so that a nested table's rows are not read as the outer row's cells. ``depth``: the tables
    around it. Annotations are not kept (the text view asks for none)."""

    __slots__ = ("depth",)

    def get_text(self) -> str:
        rows: list[str] = []
        tall = False  # (the last row written was of several lines)
        for row in self.rows:
            cells, nested = [], False
            for cell in row.columns:
                cell.normalize_blocks()  # (the cell's text as one line a block)
                cells.append("\n".join(line.rstrip() for line in cell.blocks).strip())
                nested = nested or (bool(cells[-1]) and getattr(cell, "holds_table", False))
            while cells and not cells[-1]:
                cells.pop()
            if not cells:
                continue
            was_tall, tall = tall, nested or any("\n" in cell for cell in cells)
            rows += [""] if rows and (tall or was_tall) else []  # (a row of several lines between empty lines)
            rows.append(_tall_row(cells, self.depth < _INDENTED_DEPTH) if tall else CELL_SEPARATOR.join(cells))
        return "\n".join(rows) + "\n"

    def get_annotations(self, idx: int, left_margin_len: int) -> list:
        return []


_INDENTED_DEPTH = 3
"""Tables nested deeper than this indent their rows' later lines no further (a line's indent stays at most 6 spaces:
a page of tables nested 2,000 deep is not rendered in quadratic space)."""


def _tall_row(cells: list[str], indent: bool) -> str:
    """A row with a cell of several lines, its blank cells at the start (a layout's margin) left out: its one cell as
    it is (a layout table's block of text), or each cell on lines of its own, every cell but the first opened by
    ``"| "`` (a blank one is ``"|"``), the lines of a cell after its first indented two spaces (``indent``), so the
    row's cells and the rows of a table nested in one are told apart: ``x`` | (``in 1`` | ``in 2`` / ``in 3``) |
    ``y`` is ``x``, ``| in 1 | in 2``, ``  in 3``, ``| y``."""
    while not cells[0]:
        del cells[0]
    if len(cells) == 1:
        return cells[0]
    lines = [("| " if number else "") + (cell.replace("\n", "\n  ") if indent else cell) if cell else "|"
             for number, cell in enumerate(cells)]
    return "\n".join(line.rstrip() for part in lines for line in part.split("\n"))


def _table_start(state: Any, _attributes: dict) -> None:
    """inscriptis's ``<table>`` handler, opening a :class:`_FlatTable` (``depth``: the tables it is in); the cell of
    the table it is in is marked ``holds_table``: its row is of several lines even when this table is one line."""
    if state.current_table and state.current_table[-1].rows and state.current_table[-1].rows[-1].columns:
        state.current_table[-1].rows[-1].columns[-1].holds_table = True
    state.tags[-1].set_canvas(Canvas())
    table = _FlatTable(left_margin_len=state.tags[-1].canvas.left_margin, cell_separator=CELL_SEPARATOR)
    table.depth = len(state.current_table)
    state.current_table.append(table)


def _table_end(state: Any) -> None:
    """inscriptis's ``</table>`` handler with inscriptis 2.7.6's fix (2.7.6 requires Python 3.11; 3.10 gets 2.7.5):
    the block its ``write_verbatim_text`` opened kept the table's padding, so each table in a block indented the
    tables and the text after it two more spaces."""
    table_end_handler(state)
    if state.tags[-2].display == Display.block:
        state.tags[-2].canvas.current_block.prefix.remove_last_prefix()


@functools.lru_cache(maxsize=1)
def _tables_drift() -> bool:
    """Whether the installed inscriptis indents a block's second table more than its first (before 2.7.6)."""
    page = "<div><table><tr><td>a</td></tr></table><table><tr><td>b</td></tr></table></div>"
    lines = Inscriptis(lxml.html.document_fromstring(page), ParserConfig()).get_text().splitlines()
    first, second = (next(line for line in lines if line.strip() == cell) for cell in ("a", "b"))
    return len(second) > len(first)


# inscriptis's default ("relaxed") profile, but a definition list's terms and descriptions on lines of their own, as
# a browser shows them (the profile has no rule for them: pydoc's "<dt>f(x)</dt><dd>Does y.</dd>" ran on as one line,
# "f(x)Does y."), and the marks a browser shows by the text's place or a line through it, in the plain-text ways of
# writing them: 10<sup>6</sup> is "10^6" (it was "106"), H<sub>2</sub>O "H_2O", a price struck through "~~$50~~"
# (it was "$50", beside the price that holds)
# -- and a <span> inline with nothing added around it, as a browser shows it (the profile put a space on each side:
# Sphinx's inline code <code><span>os</span><span>.</span><span>sep</span></code> read "os . sep", a link split over
# spans "www.example. com", and a search for what the page shows found nothing)
# -- and white space inherited, as in CSS (inscriptis gave each element but <pre>s "normal" white space: the <code>
# in a <pre> collapsed its lines, the Rust book's every code block was one line); a tag of no rule inherits too
# -- and a <div> not indented, as in a browser (2 spaces each: 35,649 of 197,249 bytes of rustc's lint listing's view)
_STRUCK = HtmlElement(prefix="~~", suffix="~~")
_PRE_TAGS = ("pre", "xmp", "listing", "plaintext")


def _inheriting(rule: HtmlElement) -> HtmlElement:  # (get_refined_html_element: None is the parent's white space)
    rule = rule.__copy__()
    rule.whitespace = None
    return rule


class _Rules(dict):  # type: ignore[type-arg]
    """The CSS profile, whose rule for a tag of none is an inline element inheriting its parent's white space."""

    def get(self, tag: str, default: Any = None) -> Any:
        return super().get(tag) or _INLINE


_INLINE = _inheriting(HtmlElement())
_PRE_BODY = HtmlElement(whitespace=CSS_PROFILES["relaxed"]["pre"].whitespace)  # (the root, inside a <pre>)
_CSS = _Rules({tag: rule if tag in ("body", *_PRE_TAGS) else _inheriting(rule) for tag, rule in {
    **CSS_PROFILES["relaxed"], "span": HtmlElement(display=Display.inline), "div": HtmlElement(display=Display.block),
    "dt": HtmlElement(display=Display.block), "dd": HtmlElement(display=Display.block),
    "sup": HtmlElement(prefix="^"), "sub": HtmlElement(prefix="_"), "s": _STRUCK, "strike": _STRUCK, "del": _STRUCK,
}.items()})


@functools.lru_cache(maxsize=2)
def parser_config(pre: bool = False, links: bool = False) -> ParserConfig:
    """inscriptis's configuration for a rendering: its default, but for tables, rendered unpadded
    (:class:`_FlatTable`), and with :func:`_table_end` when the installed version lets sibling tables drift right
    (:func:`_tables_drift`), so that a page's text is the same on every Python; ``<dt>`` and ``<dd>`` are blocks;
    white space inherited (:data:`_CSS`). ``pre``: the rendering starts inside a ``<pre>`` (an element in one);
    ``links``: each ``<a href>`` as ``[text](href)`` (inscriptis's ``display_links``)."""
    ends = {"table": _table_end} if _tables_drift() else {}
    css = _Rules({**_CSS, "body": _PRE_BODY}) if pre else _CSS
    return ParserConfig(css=css, table_cell_separator=CELL_SEPARATOR, display_links=links,
                        custom_html_tag_handler_mapping=CustomHtmlTagHandlerMapping({"table": _table_start}, ends))


def element_text(element: Any, config: ParserConfig | None = None) -> str:
    """An element's text as the text view renders it where it stands (:func:`_in_context`), a browser's ``innerText``
    but for cells between :data:`CELL_SEPARATOR` (a tab there; lxml's ``text_content()`` runs cells, items, blocks
    together): rows, blocks, list items and ``<br>`` on lines of their own, inline elements joined as written, an
    item without its bullet, code in a ``<pre>`` with its lines; blank lines around it and the indent common to its
    lines left out. When inscriptis renders nothing (it drops ``<title>``, ``<script>``, ``<style>``), the element's
    text content (comments left out), stripped. The element's tail (the text after its end tag, which lxml keeps on
    it) is no part of it (inscriptis renders a node's tail after the node: ``<b>bold</b> after`` was "bold after").
    A link (``<a href>``) is ``[text](href)``, its target with its text: a select of ``a[href*="crates.io"]`` gave
    "rand crate", "crates.io", ..., no address, where the model was asked for the links (modeltask9). A form control
    (``<input>``, ``<select>``, ...) and an element of no text are their start tag, attributes and all, then their text
    (:func:`~scratchfs.engine.structure.html_fields.control_text`: a form's fields were ``""``, no name)."""
    tail, element.tail = element.tail, None
    link = element.tag == "a" and element.get("href") is not None
    try:
        with _in_context(element) as (root, pre):
            chosen = parser_config(pre=pre, links=True) if link else parser_config(pre=True) if pre else config
            text = Inscriptis(root, chosen or parser_config()).get_text()
    finally:
        element.tail = tail
    text = textwrap.dedent(text).strip("\n").rstrip()
    return control_text(element, text or element.text_content().strip())

_ROWS, _CELLS = ("thead", "tbody", "tfoot", "tr"), ("td", "th")


@contextlib.contextmanager
def _in_context(element: Any) -> Iterator[tuple[Any, bool]]:
    """``(what to render, inside a <pre>)`` for ``element`` as the page lays it out: a row (or a table's head, body,
    foot) in a ``<table>`` and a cell in a row of one (alone, inscriptis ran its cells together), a list item as a
    block (alone, inscriptis gave an ``<ol>``'s item a ``*``); moved into the table and put back, its tag restored."""
    tag, parent, pre = element.tag, element.getparent(), next(element.iterancestors(*_PRE_TAGS), None) is not None
    if parent is None or tag not in (*_ROWS, *_CELLS, "li"):
        yield element, pre
        return
    before, root = element.getprevious(), lxml.html.Element("table")  # (index() is linear: quadratic over rows)
    try:
        if tag == "li":
            element.tag = "div"
            yield element, pre
        else:
            (root if tag in _ROWS else lxml.etree.SubElement(root, "tr")).append(element)
            yield root, pre
    finally:
        element.tag = tag
        if element.getparent() is not parent:
            parent.insert(0, element) if before is None else before.addnext(element)
