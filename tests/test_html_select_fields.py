"""A ``select=`` of a form's controls shows their start tags -- names, types, values -- and an element of no text its
start tag, where each was ``""`` (modeltask12: ``select="form [name]"`` over a settings page gave ``["", "",
"United KingdomFranceGermany", ...]``, no field's name; ``select="img"`` gave no image's ``alt`` or ``src``).
Page: ``fixtures/tools/libxslt-xslt-api.html`` (libxslt's API page, a search form and logo images), and a
``<select>`` made here."""

from __future__ import annotations

from pathlib import Path

from scratchfs.engine.structure import BytesSource
from scratchfs.engine.structure.html import select_page

_PAGE = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "libxslt-xslt-api.html").read_bytes()


def _elements(page: bytes, selector: str) -> list[str]:
    return select_page(BytesSource(page), selector).items


def test_a_forms_fields_show_their_names_types_and_values():
    assert _elements(_PAGE, "form input") == ['<input name="query" type="text" size="20" value>',
                                              '<input name="submit" type="submit" value="Search ...">']
    assert _elements(_PAGE, "form")[0].startswith('<form action="../search.php" enctype=')  # (no text: its tag)


def test_an_image_is_its_start_tag_an_anchor_and_an_element_with_text_as_before():
    images = _elements(_PAGE, "img")
    assert images[0] == '<img src="../epatents.png" alt="Action against software patents">'
    assert len(images) == 9
    assert _elements(_PAGE, "h2") == ["Module xslt from libxslt", "Table of Contents", "Description"]
    assert _elements(_PAGE, 'a[href="../index.html"]')[0] == "[Main Menu](../index.html)"
    # an element of no text that is no form control or embedded content -- an anchor -- stays "": its tag tells nothing
    assert _elements(_PAGE, "a[id]:not([href])") == [""] * 7


def test_a_selects_options_are_one_a_line_with_their_values_and_long_values_are_cut():
    page = (b'<form><select name="country"><option value="uk" selected>United Kingdom</option>'
            b'<option value="fr">France</option></select><textarea name="bio">two\nlines</textarea>'
            b'<button name="go" value="1">Go &amp; see</button><img src="data:image/png;base64,' + b"A" * 5000 +
            b'" alt="x&quot;y"></form>')
    select, textarea, button, image = _elements(page, "select, textarea, button, img")
    assert select == ('<select name="country">\n  <option value="uk" selected>United Kingdom\n'
                      '  <option value="fr">France')
    assert textarea == '<textarea name="bio">\ntwo\nlines'
    assert button == '<button name="go" value="1">Go & see'
    assert image == '<img src="data:image/png;base64,' + "A" * 178 + '..." alt="x&quot;y">'
