"""Columns written as words (a command line's ``--column``, the web API's ``?columns=``) as ``columns=`` takes them.

``columns=`` of the tools is exact: a string is a name, an integer a 0-based number. A word has no type, and a
header may hold digits as names (years, ports, ids: ``name,2020,2021``), so a word is read (:func:`column_words`):

* a word the table's header holds is that column, whatever it looks like (``2020`` is the column named "2020");
* else ``number:N`` or ASCII digits ``N`` is column number ``N`` (``number:2`` is one even where the header holds a
  column named "2", as advice written for a command line writes a number: ``scratchfs.cli.advice``);
* else the word is a name (one the header does not hold is refused by the read, listing the columns).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scratchfs.foundation.errors import ScratchError
from scratchfs.foundation.limits import MAX_REPLY_BYTES
from scratchfs.foundation.text import digits_int

if TYPE_CHECKING:
    from scratchfs.api.contract import ScratchTools

__all__ = ["NUMBER_PREFIX", "column_words", "word_column"]

NUMBER_PREFIX = "number:"
"""A word's prefix that makes the digits after it a column number, whatever the header holds."""


def word_column(word: str, header: list[str] | tuple[str, ...] = ()) -> str | int:
    """The column ``word`` names in a table of ``header`` (its names; empty for one with no header line): the name
    when the header holds it, else the number of ``number:N`` or of digits ``N``, else the name (see the module)."""
    forced = word.startswith(NUMBER_PREFIX) and word not in header
    if word in header and not forced:
        return word
    number = digits_int(word[len(NUMBER_PREFIX):] if forced else word)
    return word if number is None else number


def column_words(tools: ScratchTools, handle: str, words: list[str]) -> list[str | int]:
    """``words`` as the columns of ``handle``'s table (:func:`word_column`), its header read (a rows read of row 1)
    only when a word could be a number. Raises nothing of its own: an entry whose header cannot be read leaves the
    words as they read without one, for the read itself to refuse what does not fit."""
    header: list[str] = []
    if any(digits_int(w) is not None or w.startswith(NUMBER_PREFIX) for w in words):
        try:
            page = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 1, "budget": MAX_REPLY_BYTES})
        except ScratchError:
            page = {}
        header = [name for name in page.get("header") or [] if isinstance(name, str)]
    return [word_column(word, header) for word in words]
