"""Every in-page link of the README (``[text](#anchor)``: the Contents line's, a section's to another) names a heading
that is there, by the anchor GitHub gives a heading: its text lower-cased, punctuation but ``-`` and ``_`` dropped,
spaces as ``-``, a repeated one suffixed ``-1``, ``-2``. Headings are the ones a CommonMark parser finds
(markdown-it-py), so a ``#`` comment inside a fenced block is none. (A restructured MCP section must keep every
link that reaches into it.)"""

from __future__ import annotations

import re
from collections import Counter

from markdown_it import MarkdownIt

from .conftest import FIXTURES

README = (FIXTURES.parent / "README.md").read_text(encoding="utf-8")


def slug(text: str) -> str:
    """GitHub's anchor of a heading whose inline Markdown is ``text`` (backticks and other punctuation dropped)."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    seen: Counter[str] = Counter()
    found = set()
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            base = slug(tokens[i + 1].content)
            found.add(base if not seen[base] else f"{base}-{seen[base]}")
            seen[base] += 1
    return found


def test_slug_follows_githubs_rule():
    assert slug("What `mcp-proxy` spills, and why") == "what-mcp-proxy-spills-and-why"
    assert slug("Beyond one host: PostgreSQL and S3") == "beyond-one-host-postgresql-and-s3"
    assert slug("The proxy's upstream") == "the-proxys-upstream"
    assert anchors("# A\n\n```sh\n# not a heading\n```\n\n## A\n") == {"a", "a-1"}


def _in_page_links(text: str) -> list[str]:
    """The targets of ``text``'s in-page links (``[words](#anchor)``) as a Markdown renderer finds them: never in a
    code span or block (the README quotes a page's own ``[#](#processmemoryusage)`` as a select's reply)."""
    found = []
    for token in MarkdownIt("commonmark").parse(text):
        for child in token.children or ():
            href = child.attrGet("href") if child.type == "link_open" else None
            if isinstance(href, str) and href.startswith("#"):
                found.append(href[1:])
    return found


def test_every_in_page_link_of_the_readme_names_a_heading():
    links = _in_page_links(README)
    assert _in_page_links("see [a](#b), not `[c](#d)`") == ["b"]
    assert len(links) >= 30 and "mcp" in links
    assert sorted(set(links) - anchors(README)) == []


def test_the_contents_line_links_every_top_level_section():
    contents = README[README.index("**Contents**") : README.index("\n## ")]
    linked = set(re.findall(r"\]\(#([^)\s]*)\)", contents))
    tokens = MarkdownIt("commonmark").parse(README)
    sections = {slug(tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"}
    assert linked == sections
