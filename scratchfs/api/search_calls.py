"""The search a refusal or a note names again, as a call: the same handle, needle or pattern and settings with an
argument or two changed (an ``offset=0``, a ``before=``, no ``view=``), written out only when its needle is short
enough (:data:`HINT_CALL_BYTES`) -- a refusal or note that would echo a long needle a second time names "the same
call" in words instead.
"""

from __future__ import annotations

from collections.abc import Callable

from scratchfs.api.results import Matches
from scratchfs.api.views import reply_size
from scratchfs.engine.pattern_advice import AS_WRITTEN_REWRITE, POSIX_REWRITE, as_written, posix_written
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import BadPattern, InvalidArgument, PatternTimeout, PatternTooLong
from scratchfs.foundation.limits import DEFAULT_CONTEXT, DEFAULT_MATCHES

__all__ = ["ENCODING_STRUCTURE", "HINT_CALL_BYTES", "count_again", "encoding_refusal", "on_past", "same_search",
           "searched_on", "view_end_refusal", "written_as"]

HINT_CALL_BYTES = 256
"""Longest needle or pattern (bytes of its JSON string) :func:`same_search`, :func:`count_again` and
:func:`encoding_refusal` write out again in a call (the notes of
:func:`~scratchfs.api.search_misses.text_view_hint` among their users); a longer one is named in words ("the same
call without view=", ...): the reply's budget (2,048 bytes at least) holds the echoed
needle once, squeezed if need be (:class:`~scratchfs.api.fixed.Squeeze`), not a second copy in the note."""


def same_search(found: Matches, words: str, **changed: object) -> Call | str:
    """The search ``found`` carries the settings of (handle, needle or pattern, ``view``, ``ignore_case``,
    ``context``, ``max_matches``, budget) with ``changed`` (an ``offset``, a ``before``, an ``end``, a ``view``;
    ``None`` leaves one out) as a :class:`~scratchfs.foundation.calls.Call`, which a face writes its own way (the
    CLI as a command); ``words`` (``"the same call with before=N"``) when its needle or pattern is over
    :data:`HINT_CALL_BYTES` bytes of JSON (a refusal's text stays small). Never raises."""
    sought = found.pattern if found.pattern is not None else (found.match or b"").decode("utf-8", "replace")
    if reply_size(sought) > HINT_CALL_BYTES:
        return words
    context = None if found.context == DEFAULT_CONTEXT else found.context
    most = None if found.max_matches == DEFAULT_MATCHES else found.max_matches
    return Call.of("read_handle", handle=found.handle, **{"pattern" if found.pattern is not None else "match": sought},
                   **{"view": found.view, **changed}, ignore_case=True if found.ignore_case else None,
                   context=context, max_matches=most, budget=found.budget)


def count_again(handle: str, match: str | None, pattern: str | None, ignore_case: bool,
                budget: int | None) -> Callable[..., Call | str]:
    """The count of ``match`` or ``pattern`` in ``handle`` (``ignore_case``, ``budget``) made again, as
    :func:`same_search` makes a search: ``again(words, **changed)`` is the call with ``changed`` (``offset``,
    ``end``; ``None`` leaves one out), or ``words`` for a needle over :data:`HINT_CALL_BYTES`. Never raises."""
    name, sought = ("pattern", pattern) if pattern is not None else ("match", match or "")

    def again(words: str, **changed: object) -> Call | str:
        if not isinstance(sought, str) or reply_size(sought) > HINT_CALL_BYTES:  # (bytes: a needle an encoding=
            return words  # wrote, which the call would not write again)
        return Call.of("read_handle", handle=handle, **{name: sought}, count=True, **changed,
                       ignore_case=True if ignore_case else None, budget=budget)

    return again


def view_end_refusal(handle: str, match: str | bytes | None, pattern: str | None, offset: int, end: int,
                     settings: tuple[str, bool, int | str, int], budget: int | None = None) -> InvalidArgument:
    """The refusal of a search of ``handle`` with ``end=`` and a view (``settings``: the view, ``ignore_case``,
    ``context``, ``max_matches``, checked): ``end=`` bounds the stored bytes, and the two searches that work, as
    calls (:func:`same_search`, with the reply ``budget`` the call gave): the stored bytes from ``offset`` to
    ``end``, or the view without ``end=``."""
    view, ignore_case, context, max_matches = settings
    needle = match.encode("utf-8", "surrogatepass") if isinstance(match, str) else match
    found = Matches(handle, needle, [], 0, None, pattern, ignore_case, context, max_matches, budget=budget, view=view)
    return InvalidArgument(Advice.of(
        'end= bounds a search of the stored bytes, not of view="text" (whose offsets are another text\'s): search '
        "the stored bytes from offset= to end=, ", same_search(found, "the same call without view=", view=None,
                                                               offset=offset or None, end=end),
        ", or the view without end=, ", same_search(found, "the same call without end=", offset=offset or None)))


ENCODING_STRUCTURE = "encoding applies to byte, line and search reads, not to a structure read"
"""The start of the refusal of ``encoding=`` with a structure read (``view=``, ``jq=``...)."""


def encoding_refusal(handle: str, arguments: dict[str, object], encoding: object) -> InvalidArgument:
    """The refusal of ``encoding=`` with a search of a view (``arguments``: the search's, ``None`` for those not
    given, ``view`` among them): the view decodes its text itself; the two searches that work, as calls -- the
    view without ``encoding=``, the stored bytes with it and no ``view=`` -- or, for a needle or pattern over
    :data:`HINT_CALL_BYTES`, the words. Never raises."""
    sought = arguments.get("pattern") if arguments.get("pattern") is not None else arguments.get("match")
    head = f'{ENCODING_STRUCTURE}: view="text" decodes the text itself (an HTML page by its charset): search it '
    if not isinstance(sought, str) or reply_size(sought) > HINT_CALL_BYTES:
        return InvalidArgument(f"{head}without encoding=, or search the stored bytes with encoding= and no view=")
    stored = {name: value for name, value in arguments.items() if name != "view"}
    return InvalidArgument(Advice.of(head, "without encoding=, ", Call.of("read_handle", handle=handle, **arguments),
                                     ", or search the stored bytes with encoding= and no view=, ",
                                     Call.of("read_handle", handle=handle, **stored, encoding=encoding)))


def searched_on(asked: Matches, search: Callable[[], Matches], before: int | None = None) -> Matches:
    """``search()`` (a search of ``asked``'s handle and settings; ``before``: the byte a search from the end asked
    the last matches before); a pattern's time limit or reach bound that stops it before it shows a match names
    the offset to search on from past its trouble (its ``skip_offset``, the engine's number, and its words as
    data, ``search_on``): raised again naming the search from there as a call (:func:`same_search`, with the reply
    budget the call gave, ``asked.end``: a search bounded at a byte goes on bounded there, and ``before``: a search
    from the end goes on for the last matches between them), as every search refusal names its way on.

    Raises:
        PatternTimeout, PatternTooLong: as ``search()`` raises them, the call in place of the words; the others as
            it raises them."""
    try:
        return search()
    except (PatternTimeout, PatternTooLong) as exc:
        if before is not None and (exc.skip_offset is None or exc.skip_offset >= before):
            raise  # (no bytes past the trouble before ``before``: the words stay)
        raise on_past(exc, lambda words, offset: same_search(asked, words, offset=offset, before=before,
                                                             end=asked.end)) from None


def on_past(error: PatternTimeout | PatternTooLong, again: Callable[[str, int], Call | str]
            ) -> PatternTimeout | PatternTooLong:
    """``error`` with the way on past its trouble written as a call: ``again(words, offset)`` is the search (or
    count) from ``offset``, the error's ``skip_offset`` (or ``words`` for a needle too long to repeat); ``error``
    itself when it names no way on (a line too long for a line-bound search) or its words stay (a long needle).
    Never raises."""
    way = error.search_on
    if way is None:
        return error
    call = again(f"{way.lead} with offset={way.offset}", way.offset)
    if isinstance(call, str):  # (a needle too long to repeat: the words stay)
        return error
    return type(error)(way.advice(call), error.resume_offset, way.offset)


def written_as(refused: InvalidArgument, pattern: object, ignore_case: bool,
               call: Callable[..., Call]) -> InvalidArgument:
    """The refusal of a ``pattern`` that does not parse where a special character stands (``openat(``), which
    advises the text as written (``match=``) or the character escaped, naming those two searches as calls:
    ``call(match=pattern)`` and ``call(pattern=<escaped>)`` (the same search otherwise: handle, offset, settings,
    budget); ``refused`` itself when it advises neither (:func:`~scratchfs.engine.pattern_advice.as_written`) or
    the pattern is too long to repeat (:data:`HINT_CALL_BYTES`); one of a POSIX class (``[[:alpha:]]+``) names the
    pattern with its classes written as ranges (:func:`~scratchfs.engine.pattern_advice.posix_written`). Which it
    is, ``refused`` says as data (:attr:`~scratchfs.foundation.errors.BadPattern.rewrite`). Never raises."""
    rewrite = refused.rewrite if isinstance(refused, BadPattern) else None
    if isinstance(pattern, str) and rewrite == POSIX_REWRITE:
        written = posix_written(pattern)
        if written is not None and reply_size(written) <= HINT_CALL_BYTES:
            return InvalidArgument(Advice.of(refused, ": ", call(pattern=written)))
    escaped = as_written(pattern, ignore_case) if isinstance(pattern, str) and rewrite == AS_WRITTEN_REWRITE else None
    if escaped is None or reply_size(escaped) > HINT_CALL_BYTES:
        return refused
    return InvalidArgument(Advice.of(refused, ": ", call(match=pattern), " or ", call(pattern=escaped)))
