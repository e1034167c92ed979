"""What a search of stored content that found nothing says when its content's kind gives no reason
(:func:`~scratchfs.api.search_misses.text_view_hint` gives those): where it looked -- the whole content, or the bytes
from its ``offset`` to the end -- and, when a cheap check finds it, the spelling that does match, with the exact
call that finds it: the same search ignoring case (``ignore_case=true``), or, for a ``match`` of several words
(``user_id``, ``userId``, ``user id``), a pattern that finds them with any of ``-``, ``_``, `` ``, ``.`` or nothing
between them, ignoring case.

The check is bounded: it runs only when the bytes searched (``offset`` to the end) are at most
:data:`HINT_SPAN_BYTES` (1 MiB), as at most two more searches of them (each stopping at its first match), a pattern's
within :data:`HINT_SECONDS` of the regex engine; a larger search says where it looked alone, so a miss in a 1 GB
blob is never searched twice. A miss in a text view gets the case hint too (:func:`case_hinted`, from
:mod:`~scratchfs.api.view_search`; in an HTML page's view, whose lines break a sentence's words, a needle's words with
any white space between them: :func:`spaced_pattern`, :func:`spaced_hinted`): an HTML page's view is in memory,
searched again within :data:`HINT_SECONDS` at any size (about 5.5 ms a MiB when nothing matches: 0.14 s over 25 MiB);
terminal output's within :data:`HINT_SPAN_BYTES` of its stored bytes. A note is at most :data:`NOTE_BYTES` of JSON
(a long needle's call is named in words: "the same call with ...")."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from scratchfs.api.results import Matches
from scratchfs.api.views import reply_size
from scratchfs.engine.patterns import PatternMatcher
from scratchfs.engine.search import Hit, Sink, search
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import ScratchError
from scratchfs.foundation.limits import MAX_NEEDLE_BYTES
from scratchfs.foundation.text import plural

__all__ = ["HINT_SECONDS", "HINT_SPAN_BYTES", "NOTE_BYTES", "NO_MATCH", "SPACED_WORDS", "SPACING", "WHOLE",
           "WITHOUT_OFFSET", "MissNote", "case_hinted", "case_pattern", "no_match_in", "plain_miss", "quoted_hit",
           "spaced_hinted", "spaced_pattern", "unhinted", "whole_too"]

HINT_SPAN_BYTES = 1 << 20
"""Most bytes searched (``offset`` to the end) for which a miss is searched again for a spelling that matches."""

HINT_SECONDS = 0.25
"""Seconds a pattern's check may spend in the regex engine (a slower one gives no hint)."""

NO_MATCH = "no match in "
"""How a plain miss's note starts (:func:`plain_miss`)."""


@dataclass(frozen=True, slots=True)
class MissNote(Advice):
    """A miss's note (``parts`` as an :class:`~scratchfs.foundation.calls.Advice`'s: ``str(note)`` is its text) whose
    hint seeks the needle as the search wrote it -- a spelling that matches, the search from byte 0, the same search
    of a text view, the needle's non-UTF-8 bytes --, which a search in a single-byte encoding (its needle rewritten)
    leaves out: ``plain`` is the note without it (where it looked), or ``None`` when none of it stays. Made where
    the note is written (:func:`plain_miss`, :func:`whole_too`, the notes of
    :func:`~scratchfs.api.search_misses.text_view_hint`) and read by :func:`unhinted`, never from its words."""

    plain: str | None = None

    @classmethod
    def made(cls, plain: str | None, *parts: str | Call | Advice) -> MissNote:
        """The note of ``parts`` (as :meth:`Advice.of` joins them), ``plain`` what stays of it without its hint."""
        return cls(Advice.of(*parts).parts, plain)

_SHOWN_CHARS = 40  # (of the text a spelling found, quoted in the note: at most _SHOWN_BYTES of JSON)
_SHOWN_BYTES = 48
NOTE_BYTES = 299
"""Most bytes of JSON (a string) of a miss's note: a longer hint leaves out the text found, then writes its call in
words. Under 300 so that a hinted miss's whole reply -- the note, its call again as data in ``calls``, the echoed
read -- stays near the 500 bytes ``bench/error_sizes.py`` measures (496 B for the case hint), a tenth of a page."""
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\x00-\x7f]+")  # (ASCII words, camelCase split)
_BETWEEN = "[-_ .]?"


def plain_miss(opened: Any, found: Matches, offset: int, said: bool = True, spelled: bool = True
               ) -> str | Advice | None:
    """The note of ``found``, a forward search of ``opened``'s stored content (an open entry, read under
    :func:`~scratchfs.api.entries.reading`) from byte ``offset`` to the end that found nothing: ``"no match in the
    whole content (N bytes)"`` (or ``"in bytes OFFSET-SIZE"``), and, when the bytes searched are at most
    :data:`HINT_SPAN_BYTES`, the spelling that matches with its call (:func:`_case_hint`, then, when ``spelled``,
    :func:`_spelling_hint`, then :func:`_git_quoted_hint`), at most :data:`NOTE_BYTES` of JSON (the text found left
    out, then the call written in words, when a long needle or settings make it longer); ``said=False`` (a count's
    or a search from the end's, whose reply says where it looked): ``"no match; "`` and the hint alone, or ``None``
    when there is none. A hint is a :class:`MissNote` (its ``plain`` the note without it: where it looked; ``None``
    for ``said=False``) -- but with ``said=False`` one whose call is written in words is plain :class:`Advice` (it
    names no call). Never raises for the check (a failed one gives no hint); a read raises what it raises
    (NotFound, CorruptBlob)."""
    size = found.size
    plain = no_match_in(offset, size) if said else None
    if size - offset > HINT_SPAN_BYTES:
        return plain
    hint = _case_hint(opened, found, offset) or _regex_hint(opened, found, offset) or (
        (_spelling_hint(opened, found, offset) or _git_quoted_hint(opened, found, offset)) if spelled else None)
    if hint is None:
        return plain
    leads, call, words = hint
    note = _fitted(plain, plain or "no match", leads, call, words)
    return note if said or note.calls else Advice(note.parts)  # (said=False, words alone: kept whole)


def case_hinted(plain: str, text: str, line: int, call: Call | str) -> MissNote:
    """``plain``, the note of a search that found nothing, with the hint that ignoring case it matches ``text``
    (quoted: :func:`quoted_hit`) on ``line``, and ``call``, the same search with ``ignore_case=true`` (or its
    words): at most :data:`NOTE_BYTES` of JSON (the text found left out, then the call written in words, when it is
    longer), as :func:`plain_miss` writes its case hint. A :class:`MissNote` whose ``plain`` is ``plain``."""
    return _fitted(plain, plain, _case_leads(text, line), call, _CASE_WORDS)


def case_pattern(found: Matches) -> str:
    """The pattern that finds what ``found`` sought (its pattern, or its needle escaped), for the same search
    ignoring case."""
    return found.pattern if found.pattern is not None else re.escape(_sought(found) or "")


SPACING = r"\s{1,256}"
"""What :func:`spaced_pattern` writes for a run of white space: bounded, so that the pattern's matches are too (a
miss over a 17 MiB view: 119-154 ms, as the needle escaped took, 112-142 ms, where ``\\s+``, unbounded, took 204 ms;
``python bench/view_miss_hint.py``, load 4-6)."""


def spaced_pattern(found: Matches) -> str | None:
    """For a ``match`` of text holding white space: the pattern of its text escaped, each run of white space in it
    as :data:`SPACING` -- what finds its words where a page's text view breaks them across lines (at a ``<br>`` or
    a block's end) or spaces them otherwise (a ``<pre>``'s), as ``re.escape`` of the needle does not. ``None`` for a
    ``pattern``, a needle of bytes that are not UTF-8 or with no white space, or a pattern longer than a search takes
    (``MAX_NEEDLE_BYTES``: the call naming it would be refused)."""
    parts = re.split(r"\s+", _sought(found) or "") if found.pattern is None else []
    pattern = SPACING.join(re.escape(part) for part in parts)
    return pattern if len(parts) > 1 and len(pattern.encode("utf-8")) <= MAX_NEEDLE_BYTES else None


def spaced_hinted(plain: str, text: str, line: int, call: Call | str) -> MissNote:
    """As :func:`case_hinted`, for a match found ignoring case and the white space between its words (``call``: the
    search of :func:`spaced_pattern` ignoring case, or its words)."""
    leads = (f"ignoring case and spacing (line breaks too) it matches {text} (line {line}): ",
             "it matches ignoring case and spacing: ")
    return _fitted(plain, plain, leads, call, SPACED_WORDS)


SPACED_WORDS = f"the same call with pattern= its words joined by {SPACING} and ignore_case=true"
"""The call of :func:`spaced_hinted` in words (a long needle's, or a note over :data:`NOTE_BYTES`)."""
_CASE_WORDS = "the same call with ignore_case=true"


def _case_leads(text: str, line: int) -> tuple[str, str]:
    """The case hint's two leads: the match's ``text`` (quoted) on ``line``, or none of it."""
    return f"ignoring case it matches {text} (line {line}): ", "it matches ignoring case: "


def _fitted(plain: str | None, base: str, leads: tuple[str, str], call: Call | str, words: str) -> MissNote:
    """The note ``plain`` (``base`` when ``None``) with a hint's lead and its call, the first of (call, words) x
    (leads) whose JSON is at most :data:`NOTE_BYTES`, else the last (words, the shorter lead)."""
    tries = [MissNote.made(plain, base, "; ", lead, way) for way in (call, words) for lead in leads]
    return next((note for note in tries if reply_size(str(note)) <= NOTE_BYTES), tries[-1])


def no_match_in(offset: int, size: int, view: bool = False) -> str:
    """Where a forward search of ``size`` bytes from byte ``offset`` to the end that found nothing looked:
    ``"no match in the whole content (N bytes)"``, or ``"no match in bytes OFFSET-SIZE (from offset= to the end)"``;
    ``view``: of a text view (``"the whole text view"``, ``"bytes OFFSET-SIZE of the text view"``)."""
    whole, part = ("text view", " of the text view") if view else ("content", "")
    where = (f"the whole {whole} ({plural(size, 'byte')})" if not offset else
             f"bytes {offset}-{size}{part} (from offset= to the end)")
    return f"{NO_MATCH}{where}"


def unhinted(note: object) -> object:
    """``note`` without the hint a :class:`MissNote` holds (it seeks the needle as the search wrote it: not for a
    search in a single-byte encoding, whose needle was rewritten): its ``plain`` (``None``: nothing stays); any
    other note as it is."""
    return note.plain if isinstance(note, MissNote) else note


WHOLE = "; the whole content: "
"""What a miss from an ``offset`` past 0 says before the call that searches from byte 0 (:func:`whole_too`)."""
WITHOUT_OFFSET = "the same call without offset="
"""That call in words (a long needle's, or one whose note would be over :data:`NOTE_BYTES`)."""


def whole_too(note: str, call: Call | str, view: bool = False) -> MissNote:
    """``note``, a miss's from an ``offset`` past 0 (to the end), with ``call``, the same search or count from byte
    0 (``call`` words, ``"the same call without offset="``, for a needle too long to repeat; ``view``: of a text
    view): the bytes before the offset were not searched, which a count of 0 does not say (``count=true,
    offset=N``: 0 matches, no note). Over :data:`NOTE_BYTES` of JSON, the call is named in words. A
    :class:`MissNote` whose ``plain`` is ``note``."""
    lead = WHOLE.replace("content", "text view") if view else WHOLE
    said = MissNote.made(note, note, lead, call)
    return said if reply_size(str(said)) <= NOTE_BYTES else MissNote.made(note, note, lead, WITHOUT_OFFSET)


_Hint = tuple[tuple[str, str], Call, str]
"""A hint: (its words with the text found, without it), its call, and the call in words."""


def _sought(found: Matches) -> str | None:
    """The needle (as text; ``None`` for bytes that are not UTF-8) or the pattern of ``found``."""
    if found.pattern is not None:
        return found.pattern
    try:
        return (found.match or b"").decode("utf-8")
    except UnicodeDecodeError:
        return None


def _case_hint(opened: Any, found: Matches, offset: int) -> _Hint | None:
    """The same search ignoring case, when ``found`` did not and that finds a match (the first one's text and
    line said)."""
    sought = _sought(found)
    if found.ignore_case or sought is None:
        return None
    hit = _first(opened, case_pattern(found), offset)
    if hit is None:
        return None
    what = "pattern" if found.pattern is not None else "match"
    return _case_leads(_text(opened, hit), hit.line), _call(found, offset, **{what: sought}), _CASE_WORDS


_REGEX_SYNTAX = re.compile(r"\\[^\sA-Za-z0-9]|\\[dDsSwWbB]|\.[*+?]|^\^|\$$|\[[^\]]+\]|\w\|\w|\)[*+?]")
"""What a ``match`` written as a regex holds: an escape (``\\|``, ``\\.``, ``\\d``), ``.*``, an anchor at its
start or end, a class, an alternation between words (``ERROR|WARN``), a group repeated."""
_REGEX_WORDS = "the same call with pattern= in place of match="


def _regex_hint(opened: Any, found: Matches, offset: int) -> _Hint | None:
    """For a ``match`` (literal text) written as a regex (:data:`_REGEX_SYNTAX`): the same search with it as
    ``pattern=``, when that finds a match (the first one's text and line said). A model searched a ``git log
    --stat`` for ``match=" \\| "`` (its stat lines) and was told only that nothing matched."""
    sought = _sought(found) if found.pattern is None else None
    if not sought or _REGEX_SYNTAX.search(sought) is None:
        return None
    hit = _first(opened, sought, offset, found.ignore_case)
    if hit is None or not hit.length:
        return None
    call = Call.of("read_handle", handle=found.handle, pattern=sought, offset=offset or None,
                   ignore_case=found.ignore_case or None, context=found.context, max_matches=found.max_matches,
                   budget=found.budget)
    return ((f"match= is literal text; as a regex it matches {_text(opened, hit)} (line {hit.line}): ",
             "match= is literal text; as a regex it matches: "), call, _REGEX_WORDS)


def _spelling_hint(opened: Any, found: Matches, offset: int) -> _Hint | None:
    """For a ``match`` of two or more words: the pattern of its words with a separator or none between them, ignoring
    case, when it finds a match (the first one's text and line said); none when that pattern is longer than a
    search takes (``MAX_NEEDLE_BYTES``)."""
    sought = _sought(found) if found.pattern is None else None
    words = _WORDS.findall(sought or "")
    if len(words) < 2 or ("".join(words) == sought and not any(w[:1].isupper() for w in words[1:])):
        return None  # (one word, or words run together with no case to split them at)
    pattern = _BETWEEN.join(re.escape(word) for word in words)
    if len(pattern.encode("utf-8")) > MAX_NEEDLE_BYTES:
        return None  # (a call with that pattern would be refused as too long)
    hit = _first(opened, pattern, offset)
    if hit is None:
        return None
    return ((f"spelled {_text(opened, hit)} here (line {hit.line}): ", "spelled otherwise here: "),
            _call(found, offset, pattern=pattern),
            f"the same call with pattern= its words joined by {_BETWEEN} and ignore_case=true")


_GIT_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f", 0x0D: "\\r",
                0x22: '\\"', 0x5C: "\\\\"}
_QUOTE_OPENINGS = 4  # (the spaces of a needle tried as the one before git's opening quote: a search each)
_GIT_QUOTED_WORDS = "the same call with match= the name as git quotes it (\\303\\251 for é)"
"""The call of :func:`_git_quoted_hint` in words (a long needle's, or a note over :data:`NOTE_BYTES`)."""


def _git_quoted(name: bytes) -> str:
    """``name`` inside the quotes git writes a path in when ``core.quotePath`` is on, its default (git-config(1); git's
    ``quote_c_style``): a byte past ASCII or a control one as a three-digit octal escape, a tab, a newline ... as
    ``\\t``, ``\\n``, ``"`` and ``\\`` after a backslash; ``é.txt`` is ``\\303\\251.txt``."""
    return "".join(_GIT_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in name)


def _git_quoted_hint(opened: Any, found: Matches, offset: int) -> _Hint | None:
    """For a ``match`` holding a byte git quotes a path for (non-ASCII, a control character, ``"`` or ``\\``): the
    needle as git writes such a path, when that finds a match, case kept (the first one's text and line said) --
    quoted from after one of its first spaces (`` b/é.txt`` as `` "b/\\303\\251.txt``: a diff's header lines, its
    shape's ``match=" b/NAME"``), closed before spaces that end it (diffstat's ``" PATH "``), else its text escaped
    alone. A diff's shape named the path ``é.txt`` and the search of ``" b/é.txt"`` found nothing (hostile36)."""
    needle = found.match if found.pattern is None and not found.ignore_case else None
    if not needle or _git_quoted(needle) == needle.decode("latin-1"):
        return None
    quoted = []
    for space in [at for at, byte in enumerate(needle) if byte == 0x20][:_QUOTE_OPENINGS]:
        lead, name = needle[: space + 1].decode("utf-8", "replace"), needle[space + 1 :]
        if name.endswith(b" ") and name.strip(b" "):  # (the quotes close before the spaces after the name)
            quoted.append(f'{lead}"{_git_quoted(name.rstrip(b" "))}"{" " * (len(name) - len(name.rstrip(b" ")))}')
        if name:
            quoted.append(f'{lead}"{_git_quoted(name)}')
    for form in dict.fromkeys([*quoted, _git_quoted(needle)]):
        hit = _first(opened, re.escape(form), offset, False) if len(form) <= MAX_NEEDLE_BYTES else None
        if hit is not None:
            call = Call.of("read_handle", handle=found.handle, match=form, offset=offset or None,
                           context=found.context, max_matches=found.max_matches, budget=found.budget)
            return ((f"git quotes such a name: it matches {_text(opened, hit)} (line {hit.line}): ",
                     "git quotes such a name: "), call, _GIT_QUOTED_WORDS)
    return None


def _first(opened: Any, pattern: str, offset: int, ignore_case: bool = True) -> Hit | None:
    """The first match of ``pattern``, ignoring case (or not), from byte ``offset`` of ``opened``, or ``None`` (none,
    or the check failed: past :data:`HINT_SECONDS`, a match too long)."""
    try:
        matcher = PatternMatcher(pattern, ignore_case, timeout=HINT_SECONDS)
        got = search(opened.reader, matcher, offset, 0, 1, 4096, opened.lines.line_of_frame, Sink)
    except ScratchError:  # (a note is never worth an error)
        return None
    return got.windows[0].matches[0] if got.windows else None


def _text(opened: Any, hit: Hit) -> str:
    """The text of ``hit`` as JSON (quoted): :func:`quoted_hit` of its bytes in ``opened``'s content."""
    return quoted_hit(opened.reader.read(hit.offset, min(hit.length, 4 * _SHOWN_CHARS)), hit.length)


def quoted_hit(head: bytes, length: int) -> str:
    """The text of a match of ``length`` bytes whose first bytes (at least ``4 * 40`` of them, or all; any past
    ``length`` are not its) are ``head``,
    as a note quotes it: JSON, its first 40 characters, fewer when their JSON is longer than 48 bytes (control
    characters escaped), ``...`` after a text cut."""
    data = head[: min(length, 4 * _SHOWN_CHARS)].decode("utf-8", "replace")
    keep = min(len(data), _SHOWN_CHARS)
    while True:
        cut = keep < len(data) or length > 4 * _SHOWN_CHARS
        shown = json.dumps(data[:keep] + ("..." if cut else ""), ensure_ascii=False)
        if keep <= 1 or len(shown.encode("utf-8")) <= _SHOWN_BYTES:
            return shown
        keep -= 1


def _call(found: Matches, offset: int, **sought: str) -> Call:
    """The search ``found`` answered, from ``offset``, seeking ``sought`` ignoring case."""
    return Call.of("read_handle", handle=found.handle, **sought, offset=offset or None, ignore_case=True,
                   context=found.context, max_matches=found.max_matches, budget=found.budget)
