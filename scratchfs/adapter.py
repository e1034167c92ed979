"""The agent-loop adapter: spill for plain Python tool functions, and the store's verbs as tools for any loop.

Wrap the tools of a hand-written agent loop so that their results pass through :meth:`Scope.offload` (the spill
policy of :mod:`scratchfs.policy`), with the result class set per tool::

    offloader = Offloader(store.scope("run-42", "agent-1"))

    @offloader.tool(result_class="browser")
    def fetch_page(url: str) -> str:
        ...                                   # returns the whole page

    fetch_page("https://...")                 # the page if small, else the stub as compact JSON text
    fetch_page.observe("https://...")         # the Observation, with .stub set when it was spilled

``async def`` tools work the same (``await fetch_page(...)``; the spill runs in a worker thread under asyncio).
A result is measured as every face measures it (:func:`scratchfs.api.policy.result_size`: its text as a JSON
string, escapes included). A tool returning a ``dict``, ``list`` or ``tuple`` is judged by its JSON text (what the loop
sends the model) and spilled as that JSON when the policy says so; anything else that is not ``str`` or ``bytes`` is
passed through untouched, and a failed spill passes the whole result through (logged at ERROR level), as
:meth:`Scope.offload` does all of this.

For the model's side, :func:`tool_definitions` gives the scratchfs tools as ``{name, description, input_schema}``
dicts, and :meth:`Offloader.call_scratch_tool` runs one by name and returns a :class:`ToolReply` whose ``text`` is
what goes back into the transcript (the JSON result of :mod:`scratchfs.toolkit`, or ``"<kind>: <message>"``).
"""

from __future__ import annotations

import asyncio
import difflib
import functools
import inspect
import json
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from scratchfs.api.contract import ScratchTools, error_text, reply_text
from scratchfs.api.policy import Observation, check_result_class
from scratchfs.api.scope import Scope
from scratchfs.api.spill_failure import outcome, unspilled
from scratchfs.api.store import ScratchStore
from scratchfs.api.tools import TOOL_SPECS, tool_specs
from scratchfs.foundation.call_text import parse_call
from scratchfs.foundation.errors import InvalidArgument, ScratchError
from scratchfs.foundation.text import one_line, shorten

log = logging.getLogger(__name__)

_MOST_NOTED = 1024
"""Most tools an Offloader remembers having logged as classless (names may come from anywhere: bounded)."""


@dataclass(frozen=True)
class ToolReply:
    """The answer of a scratchfs tool in an agent loop.

    Attributes:
        text: what goes back to the model: the result as compact JSON, or ``"<kind>: <message>"`` on error.
        is_error: True when the call failed.
        result: the result object (``None`` on error).
        kind: on error, the kind the text starts with, for a loop to branch on without parsing text (the MCP faces'
            tool error text and the web API's ``kind`` name the same): ``"not found"``, ``"changed"``, ``"invalid
            argument"``, ``"corrupt"``, ``"quota exceeded"``, ``"busy"``, ``"storage"``, ``"closed"`` (the
            :attr:`~scratchfs.foundation.errors.ScratchError.kind` of the error), or ``"error"`` for a failure that
            is no ScratchError (a bug, logged); ``None`` when the call succeeded.
    """

    text: str
    is_error: bool
    result: dict[str, Any] | None = None
    kind: str | None = None


def tool_definitions(store: ScratchStore | None = None) -> list[dict[str, Any]]:
    """The scratchfs tools as ``{"name", "description", "input_schema"}`` dicts (the shape most model APIs take),
    with the default reply budget and TTL of ``store``'s settings (``None``: the defaults)."""
    specs = TOOL_SPECS if store is None else tool_specs(store.settings.reply_budget_bytes, store.settings.default_ttl)
    return [{"name": s.name, "description": s.description, "input_schema": s.input_schema} for s in specs.values()]


class Offloader:
    """Applies the spill policy to tool functions' results, in one scope.

    Args:
        scope: the :class:`~scratchfs.store.Scope` spills go to, or a function returning it (called per result,
            e.g. to read the current run from a context variable; one that raises is a failed spill: the result
            passes through whole up to the default ``passthrough_max_bytes``, as a notice past it
            (:func:`~scratchfs.api.spill_failure.unspilled`), logged at ERROR level).
        classes: result class per tool name (``"query"``, ``"workspace"``, ``"browser"``, ``"effect"``, a class of
            the store's ``spill_classes``; ``None``: no class).
        default_class: the class of tools not in ``classes`` (``None``: no class).

    A tool with no class is never spilled, however large its results (the policy spills only the classes that flood
    the context): the first result of each such tool is logged at INFO level, naming it (give it a class; ``"effect"``
    says it is a side effect's receipt, never spilled, and is not logged). INFO, not WARNING: a tool without a class
    is a choice the policy supports (small answers, receipts); the line is there for whoever wonders why a large
    result was not spilled.

    Raises:
        InvalidArgument: a class in ``classes`` or ``default_class`` that is not known (a typo, another case: it would
            mean "never spilled", silently); the message names the known classes and the closest one
            (:func:`~scratchfs.api.policy.check_result_class`). The store's own classes count only when ``scope`` is
            a Scope; with a function, another class is checked when a result meets it (logged if unknown), and only
            a near miss of a known class is refused at once.
    """

    def __init__(self, scope: Scope | Callable[[], Scope], classes: Mapping[str, str | None] | None = None,
                 default_class: str | None = None) -> None:
        self._scope = scope
        self._classes = {tool: None if cls is None else self._checked(cls, f"result class of {shorten(tool)}")
                         for tool, cls in dict(classes or {}).items()}
        self._default = None if default_class is None else self._checked(default_class, "default_class")
        self._unclassed: set[object] = set()  # the tools whose first result with no class was logged

    def _checked(self, value: object, what: str) -> str:
        """``value`` if it is a known result class (see the class docstring); else InvalidArgument."""
        if isinstance(self._scope, Scope):
            return check_result_class(value, self._scope.store.settings.spill_classes, what=what)
        return check_result_class(value, what=what, open_ended=True)

    @property
    def classes(self) -> Mapping[str, str | None]:
        """The result class per tool name (read-only: set one with ``wrap``/``tool``'s ``result_class=``)."""
        return MappingProxyType(self._classes)

    @property
    def default_class(self) -> str | None:
        """The class of the tools not in :attr:`classes` (``None``: no class, never spilled)."""
        return self._default

    @property
    def scope(self) -> Scope:
        """The scope the next result goes to."""
        return self._scope if isinstance(self._scope, Scope) else self._scope()

    def class_of(self, tool: object) -> str | None:
        """The result class of ``tool`` (the default class for a name that is not text, which is never spilled)."""
        return self._classes.get(tool, self._default) if isinstance(tool, str) else self._default

    def _warn_near_miss(self, tool: str) -> None:
        """Warn, once at wrap time, that ``tool`` has no class while ``classes`` names one close to it (a misspelt
        key would otherwise mean "never spilled" with only an INFO line, at its first result)."""
        near = difflib.get_close_matches(tool, [k for k in self._classes if isinstance(k, str)], n=1, cutoff=0.8)
        if near:
            log.warning("scratchfs: tool %s has no result class, so its results are never spilled, however large; "
                        "classes= names %s: did you mean %s?", shorten(tool, 120), shorten(near[0], 120),
                        shorten(tool, 120))

    def _no_class(self, tool: object) -> None:
        """Log, once per tool, that a result of ``tool`` had no class and so was not spilled (see the class)."""
        key = tool if isinstance(tool, str) else type(tool).__name__
        if key in self._unclassed or len(self._unclassed) >= _MOST_NOTED:
            return
        self._unclassed.add(key)
        log.info("scratchfs: tool %s has no result class: its results are never spilled, however large (give it "
                 "result_class=, or the Offloader classes= or default_class=; 'effect' for a side effect's receipt)",
                 shorten(tool, 120))

    def offload(self, tool: str, content: Any, result_class: str | None = None) -> Observation:
        """Pass one result through the spill policy; returns the :class:`~scratchfs.api.policy.Observation` (its
        ``content`` is the stub's JSON text and ``stub`` is set when it was spilled). Never raises for a failed
        spill. A ``dict``, ``list`` or ``tuple`` result is judged (and stored) as its JSON text -- what the loop
        would send the model -- and comes back as it was when it is not spilled (:meth:`Scope.offload`); other
        content that is not ``str`` or ``bytes`` (or a dict or list that is not JSON-serialisable, whatever its
        serialisation raises, or an iterator, such as a generator: logged) comes back untouched. ``result_class``:
        this result's class (``None``: the tool's).

        Raises:
            InvalidArgument: ``result_class`` is not a known class (as the constructor checks its classes)."""
        cls = self.class_of(tool) if result_class is None else self._checked(result_class, "result_class")
        obs = Observation(tool=tool, content=content, result_class=cls)
        if cls is None:
            self._no_class(tool)
            return obs
        if not isinstance(content, (str, bytes, bytearray, memoryview, dict, list, tuple, Iterator)):
            return obs  # (an iterator goes on: Scope.offload passes it through, logged once per tool)
        try:  # the tool has run: a scope function that fails (a context variable not set, a bad run id) is a
            scope = self.scope  # failed spill, as Scope.offload treats one, never a failed tool call
        except ScratchError as exc:  # a run or agent id the store refuses: one line, no traceback
            out = unspilled(obs, None)
            log.error("scratchfs: no scope for the result of %s (%s: %s); %s", shorten(tool, 120), exc.kind,
                      one_line(str(exc)), outcome(out))
            return out
        except Exception:
            out = unspilled(obs, None)
            log.error("scratchfs: no scope for the result of %s; %s", shorten(tool, 120), outcome(out),
                      exc_info=True)
            return out
        return scope.offload(obs)  # (a dict, list or tuple: judged and spilled as its JSON text)

    def wrap(self, func: Callable[..., Any], *, name: str | None = None, result_class: str | None = None
             ) -> Callable[..., Any]:
        """Wrap a sync or async tool function: the wrapper returns the content for the transcript (the result, or
        the stub's JSON text); its ``.observe(...)`` returns the whole Observation. ``name`` defaults to the
        function's ``__name__``; ``result_class`` to the class configured for that name. A tool whose call gives an
        awaitable (an object whose ``__call__`` is ``async def``, a lambda returning a coroutine) gets a wrapper whose
        call gives one too, which awaits the tool's and spills what it gives, as an ``async def`` tool's does.

        Raises:
            InvalidArgument: ``func`` is not callable; ``name`` is not text, or not given for a callable with no
                ``__name__`` (a ``functools.partial``, an object with ``__call__``); ``result_class`` is not a known
                class (as the constructor checks its classes).
        """
        if not callable(func):
            raise InvalidArgument(f"a tool must be callable, not {type(func).__name__}")
        tool = name or getattr(func, "__name__", None)
        if tool is None:
            raise InvalidArgument(f"a {type(func).__name__} object has no __name__: give the tool's name, wrap(func, "
                                  f"name=\"fetch_page\") or @offloader.tool(\"fetch_page\")")
        if not isinstance(tool, str):
            raise InvalidArgument(f"a tool name must be text, not {type(tool).__name__}: {shorten(tool)}")
        if result_class is not None:
            self._classes[tool] = self._checked(result_class, f"result class of {shorten(tool)}")
        elif self._default is None and tool not in self._classes:
            self._warn_near_miss(tool)

        if inspect.iscoroutinefunction(func):
            async def observe_async(*args: Any, **kwargs: Any) -> Observation:
                return await self._offload_awaited(tool, func(*args, **kwargs))

            @functools.wraps(func)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                return (await observe_async(*args, **kwargs)).content

            wrapper: Any = async_wrapper
            wrapper.observe = observe_async
        else:
            def observe(*args: Any, **kwargs: Any) -> Any:
                content = func(*args, **kwargs)
                if inspect.isawaitable(content):  # an async tool that does not look like one: spilled once awaited
                    return self._offload_awaited(tool, content)
                return self.offload(tool, content)

            @functools.wraps(func)
            def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
                obs = observe(*args, **kwargs)
                return _content_of(obs) if inspect.isawaitable(obs) else obs.content

            wrapper = sync_wrapper
            wrapper.observe = observe
        wrapper.tool_name = tool
        return wrapper

    async def _offload_awaited(self, tool: str, awaitable: Any) -> Observation:
        """:meth:`offload` of what ``awaitable`` (a tool's call) gives, in a worker thread under asyncio; inline under
        another event loop library, or when asyncio has no worker thread to give (its default executor shut down,
        the interpreter exiting): the tool has run, and its result is spilled or passed, never lost to an error the
        tool did not raise."""
        content = await awaitable
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # another event loop library: spill inline
            return self.offload(tool, content)
        try:
            return await asyncio.to_thread(self.offload, tool, content)
        except RuntimeError:  # (offload never raises: the thread could not be started) spill inline
            return self.offload(tool, content)

    def tool(self, name: str | Callable[..., Any] | None = None, *, result_class: str | None = None) -> Any:
        """Decorator form of :meth:`wrap`: ``@offloader.tool(result_class="browser")``, ``@offloader.tool("name")``,
        or ``@offloader.tool`` bare (the function given as ``name``: wrapped at once, as by ``@offloader.tool()``).
        Raises InvalidArgument as :meth:`wrap` does: an unknown ``result_class`` with a ``name`` at once; without
        one, when the function is given (the decorator applied), so that the message names the tool (``the result
        class of 'fetch_page' is 'brower', ...; did you mean 'browser'?``)."""
        if callable(name):  # @offloader.tool, no parentheses: name is the tool function itself
            return self.wrap(name, result_class=result_class)
        if result_class is not None and name is not None:
            self._checked(result_class, f"result class of {shorten(name)}")

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            return self.wrap(func, name=name, result_class=result_class)

        return decorate

    def tool_definitions(self) -> list[dict[str, Any]]:
        """:func:`tool_definitions` of this offloader's store: the default reply budget and TTL they tell the model
        are the ones :meth:`call_scratch_tool` replies with (a store's ``reply_budget_bytes`` and ``default_ttl``;
        ``tool_definitions()`` with no store tells the defaults, 8 KiB and 3600 s, whatever the store's). With a
        scope picked per call, the scope function is called once here (and raises what it raises)."""
        return tool_definitions(self.scope.store)

    def call_scratch_tool(self, name: object, arguments: object = None) -> ToolReply:
        """Run a scratchfs tool (``read_handle``, ``scratch_*``) for the model; never raises for a failed call.

        ``name`` and ``arguments`` are taken as the model gave them, of any type: a name that is not a tool's (not
        text, or unknown) or arguments that are not an object (``None``: none; a JSON text of an object counts as
        that object, as OpenAI-style tool calls carry their ``arguments``, and a blank text none; a text that is
        neither says why) or break the tool's schema give ``ToolReply(is_error=True, kind="invalid argument")`` with
        an ``"invalid argument: ..."`` text; any other failure gives an error reply too (``"<kind>: <message>"``,
        ``kind`` set; one that is not a :class:`ScratchError` is a bug, logged with its traceback, as the MCP server
        does)."""
        if isinstance(arguments, str):
            text, arguments = arguments, _object_of(arguments)
            if arguments is text and isinstance(name, str) and name in TOOL_SPECS:
                refused = InvalidArgument(_no_object(name, text))
                return ToolReply(error_text(refused), True, kind=refused.kind)
        try:
            result = ScratchTools(self.scope).call(name, arguments)
        except ScratchError as exc:
            return ToolReply(error_text(exc), True, kind=exc.kind)
        except Exception as exc:  # a bug must not break the agent loop: report it to the model and the log
            log.exception("scratchfs: tool %s failed", shorten(name))
            return ToolReply(error_text(exc), True, kind=ScratchError.kind)
        return ToolReply(reply_text(result), False, result)


async def _content_of(observed: Any) -> Any:
    """The content of the Observation an awaitable gives (the wrapper of a tool whose call gives an awaitable)."""
    return (await observed).content


def _object_of(text: str) -> object:
    """The object a JSON text of tool arguments holds (``'{"handle": "h_..."}'``; a blank text, as some tool calls of
    no arguments carry, none: ``{}``), else ``text`` itself (a text that is no JSON, or JSON of no object, is refused
    as arguments that are not an object, as it was before)."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # (not JSON; an integer past the digit limit; nesting past the stack)
        return text
    return value if isinstance(value, dict) else text


def _no_object(name: str, text: str) -> str:
    """Why the arguments ``text`` given to tool ``name`` are no JSON object (JSON's error, or what it holds
    instead), and the form they take."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:  # (as _object_of reads it)
        why = f"text that does not parse as JSON ({one_line(str(exc))[:120]})"
    else:
        why = f"JSON of a {_JSON_KINDS.get(type(value), type(value).__name__)}, not of an object"
    example = _EXAMPLES.get(name, '{"key": "notes"}')
    return f"the arguments of {name} are {why}: give them as one JSON object of names and values, e.g. {example}"


_EXAMPLES = {"read_handle": '{"handle": "h_..."}', "scratch_list": '{"prefix": ""}'}
"""The arguments :func:`_no_object` shows a tool's caller as an example (the other tools': ``{"key": "notes"}``)."""
_JSON_KINDS = {list: "list", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}
"""JSON's name of each type ``json.loads`` gives (a refusal of arguments that are no object names what they are)."""
def offloaded(scope: Scope | Callable[[], Scope], result_class: str | None, *, name: str | None = None
              ) -> Callable[[Callable], Callable]:
    """Decorator: spill a tool function's large results into ``scope``; shorthand for
    ``Offloader(scope).tool(name, result_class=result_class)``."""
    return Offloader(scope).tool(name, result_class=result_class)


__all__ = ["Offloader", "ToolReply", "offloaded", "parse_call", "tool_definitions"]
