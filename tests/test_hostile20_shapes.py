"""A hostile page's shape (helper hostile20): a spill describes its sample (512 KiB at most) on the tool call's path,
so a page of openers that never close -- ``<title>``, ``<h1>``, ``<pre>``, ``<script>``, ``<style>``, ``<br``, ``<``
repeated -- must be described in bounded time; the regexes that found its elements scanned from every opener to the
end (128 KiB of ``<title>``: 40 s; a 1.6 MiB page of ``<script>``: 221 s of one spill). The linear finder finds what
they found: the reference (tests/reference_html_shape.py, the regex version) gives the same shape on any small page."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.shape_html import html_shape
from tests import reference_html_shape
from tests.cpu_time import best_cpu_and_result

CPU_SECONDS = 1.0
"""Most CPU time the shape of one hostile sample may take (8 to 25 ms each on the machine this was written on)."""

_OPENERS = [b"<title>", b"<title", b"<title x", b"<h1>", b"<h2 class=a ", b"<pre>", b"<script>", b"<style>",
            b"<br", b"<", b"<h1><title><pre>", b"<script></style>"]


@pytest.mark.parametrize("opener", _OPENERS, ids=[o.decode() for o in _OPENERS])
@pytest.mark.parametrize("tail", [b"", b"</h3></pre>>"], ids=["open", "closed-other"])
def test_a_page_of_openers_that_never_close_is_described_in_bounded_time(opener, tail):
    sample = (b"<html><body>" + opener * (128 * 1024 // len(opener)) + tail)
    spent, shape = best_cpu_and_result(lambda: html_shape(sample, ""), runs=1, clock=time.process_time)
    assert shape.startswith("HTML, ") and spent < CPU_SECONDS, (opener, spent, shape)


_PIECES = st.sampled_from([b"<title>", b"</title>", b"</TITLE\n>", b"<title a=1>", b"<h1>", b"</h1>", b"<H2 x>",
                           b"</h2 >", b"<h3>", b"</h3>", b"<h1", b"<pre>", b"</pre>", b"<PRE\n", b"<script>",
                           b"</script>", b"<style>", b"</STYLE>", b"<br>", b"<br/>", b"<", b">", b"</", b"a", b" ",
                           b"\n", b"&amp;", b"<div>", b"</div>", b"<ul><li>", b"</ul>", b"<p>", b"\xc3\xa9", b"\xff"])


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(_PIECES, max_size=60))
def test_the_shape_is_the_one_the_regexes_gave(parts):
    sample = b"<html>" + b"".join(parts)
    assert html_shape(sample, "") == reference_html_shape.html_shape(sample, "")
