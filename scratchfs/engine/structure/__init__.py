"""Structure-aware reads over a stored content: jq filters (JSON), records (JSON lines), rows (CSV/TSV), the text
view and CSS selectors (HTML), CSS selectors (XML), and the rendered view (terminal output).

Each reader is a pure function over a *content source* (``size``, ``read(offset, length)``,
``iter_frames(first_frame=0)``; :class:`~scratchfs.engine.seekable.SeekableReader` is one) and returns a page whose
compact JSON fits the caller's ``budget_bytes``, with a ``cursor`` that resumes exactly where it stopped (``None`` at
the end). One module per format; :mod:`~scratchfs.engine.structure.paging` holds the shared page types.
"""

from typing import TYPE_CHECKING

from scratchfs.foundation.lazy import lazy_names

if TYPE_CHECKING:  # what the names are, for type checkers; at run time each loads with its module on first use
    from scratchfs.engine.structure.html import MAX_HTML_BYTES, html_text, select_page, text_page
    from scratchfs.engine.structure.jsondoc import MAX_JQ_DOCUMENT_BYTES, jq_page, parse_path
    from scratchfs.engine.structure.jsonl import records_page
    from scratchfs.engine.structure.jsonstream import stream_path
    from scratchfs.engine.structure.paging import (
        BytesSource,
        ContentSource,
        ItemPage,
        ReaderSource,
        TextPage,
        check_page,
        json_bytes,
    )
    from scratchfs.engine.structure.slurp import MAX_SLURP_BYTES, slurp_page
    from scratchfs.engine.structure.table import iter_rows, rows_page
    from scratchfs.engine.structure.terminal import render_line, render_text, view_page
    from scratchfs.engine.structure.xmldoc import MAX_XML_BYTES, MalformedXml, xml_select_page

_WHERE = {  # each public name and the module that defines it, imported on first use (PEP 562): a reader's
    name: module  # module (jq, lxml, the table reader...) loads only when a caller uses it, not with the package
    for module, names in {
        "scratchfs.engine.structure.html": ("MAX_HTML_BYTES", "html_text", "select_page", "text_page"),
        "scratchfs.engine.structure.jsondoc": ("MAX_JQ_DOCUMENT_BYTES", "jq_page", "parse_path"),
        "scratchfs.engine.structure.jsonl": ("records_page",),
        "scratchfs.engine.structure.jsonstream": ("stream_path",),
        "scratchfs.engine.structure.paging": (
            "BytesSource", "ContentSource", "ItemPage", "ReaderSource", "TextPage", "check_page", "json_bytes"),
        "scratchfs.engine.structure.slurp": ("MAX_SLURP_BYTES", "slurp_page"),
        "scratchfs.engine.structure.table": ("iter_rows", "rows_page"),
        "scratchfs.engine.structure.terminal": ("render_line", "render_text", "view_page"),
        "scratchfs.engine.structure.xmldoc": ("MAX_XML_BYTES", "MalformedXml", "xml_select_page"),
    }.items()
    for name in names
}


# A public name is imported from its module on first use (foundation.lazy).
__getattr__, __dir__ = lazy_names(__name__, _WHERE)


__all__ = [
    "MAX_HTML_BYTES",
    "MAX_JQ_DOCUMENT_BYTES",
    "MAX_SLURP_BYTES",
    "MAX_XML_BYTES",
    "BytesSource",
    "ContentSource",
    "ItemPage",
    "MalformedXml",
    "ReaderSource",
    "TextPage",
    "check_page",
    "html_text",
    "iter_rows",
    "jq_page",
    "json_bytes",
    "parse_path",
    "records_page",
    "render_line",
    "render_text",
    "rows_page",
    "select_page",
    "slurp_page",
    "stream_path",
    "text_page",
    "view_page",
    "xml_select_page",
]
