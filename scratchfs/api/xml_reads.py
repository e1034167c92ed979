"""The CSS select of an XML document (``read_handle(handle, select="failure")``), its failures told as a model can
act on them: a document that is not well-formed names the lines where libxml2 stopped, as a call; a selector that
does not parse says how XML's are written (a namespaced name ``prefix|name`` or its local name alone, never
``prefix:name``, which CSS reads as a pseudo-class)."""

from __future__ import annotations

from scratchfs.engine.structure import ContentSource, ItemPage, MalformedXml, xml_select_page
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import BadSelector, InvalidArgument

__all__ = ["XML_SELECT_SAID", "xml_select"]

XML_SELECT_SAID = ("over XML a name matches its local name in any namespace (creator), prefix|name one namespace "
                   "the root declares (dc|creator; not dc:creator, which CSS reads as a pseudo-class)")
"""How a selector over XML is written, as a refusal of one says it."""

_AROUND = 2  # lines a malformed document's line read shows before the line libxml2 names


def xml_select(handle: str, source: ContentSource, selector: str, cursor: str | None, budget: int,
               bound: tuple[float, str]) -> ItemPage:
    """The page of ``selector`` over the XML entry ``handle`` (``source``: its content; ``bound``: the read's time
    limit in seconds and the entry's identity its cursors are bound to):
    :func:`~scratchfs.engine.structure.xmldoc.xml_select_page`. Raises BadSelector (how XML selectors are written,
    and the read of the root's children), InvalidArgument (a document that is not well-formed, with the line read
    where libxml2 stopped; one nested past 256 levels, with the search that fits), StructureTimeout, StoreBusy."""
    timeout, entry = bound
    try:
        return xml_select_page(source, selector, cursor=cursor, budget_bytes=budget, timeout=timeout, entry=entry)
    except BadSelector as exc:
        raise BadSelector(Advice.of(f"{exc}; {XML_SELECT_SAID}; the root's children: ",
                                    Call.of("read_handle", handle=handle, select=":root > *")), exc.selector) from None
    except MalformedXml as exc:
        if exc.deep or not exc.line:
            raise InvalidArgument(Advice.of(f"{handle}: {exc}; read it by lines or by search, e.g. ",
                                            Call.of("read_handle", handle=handle, pattern="REGEX"))) from None
        start = max(1, exc.line - _AROUND)
        raise InvalidArgument(Advice.of(f"{handle}: {exc}, so a select= read parses none of it; the lines there: ",
                                        Call.of("read_handle", handle=handle, line=start, lines=2 * _AROUND + 1)),
                              ) from None
