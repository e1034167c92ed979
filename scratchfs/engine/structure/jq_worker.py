"""jq filters run in a worker process that is killed at a deadline: the ``jq`` binding runs a filter in C holding the
GIL and cannot be interrupted (``last(range(1e10))`` would run for hours at a full core, stall every other thread of
the MCP server and ignore SIGTERM; ``tests/test_jq_runaway.py`` runs such filters). The calling thread waits in
``poll`` (GIL released, signals handled) and, at the deadline, kills the worker and raises
:class:`~scratchfs.foundation.errors.StructureTimeout`.

Every jq run goes to a worker (there is no in-thread slice as in :mod:`scratchfs.engine.pattern_worker`: a jq call
cannot be bounded in the thread at all). A worker is a fresh interpreter running this file by path (it imports only
``jq``; the process plumbing, and why not ``fork``: :mod:`scratchfs.engine.worker_pipe`); it keeps its last compiled
programs, so a small read costs a pipe round trip and two pickles. At most :data:`MAX_WORKERS` run; a call that
finds every one busy waits for one until its deadline (then PoolBusy, which the caller reports as busy, not as a
runaway). A worker that was given more than :data:`KEEP_AFTER_BYTES` of
input is stopped after its call, so idle workers stay small (jq's parse of a document up to 64 MiB takes several
times that). Every worker is killed at exit, busy ones too (:mod:`scratchfs.engine.worker_pipe`); a worker whose
parent is gone reads end-of-file and exits.
"""

from __future__ import annotations

import json
import pickle
import time
from collections.abc import Iterator
from typing import Any

import jq

from scratchfs.engine.worker_loop import limit_memory, reply, requests
from scratchfs.engine.worker_pipe import WORKER_NAME, Pool

if __name__ == WORKER_NAME:  # no scratchfs package in a worker: its sibling is loaded by path, as worker_pipe is
    import importlib.util
    from pathlib import Path

    _spec = importlib.util.spec_from_file_location("scratchfs.engine.structure.numbers",
                                                   Path(__file__).with_name("numbers.py"))
    numbers = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(numbers)
else:
    from scratchfs.engine.structure import numbers

__all__ = ["KEEP_AFTER_BYTES", "MAX_OUTPUT_CHARS", "MAX_WORKERS", "WORKER_MEMORY_BYTES", "run_jq", "workers"]

MAX_WORKERS = 2
"""Most jq worker processes alive at once."""
KEEP_AFTER_BYTES = 4 * 1024 * 1024
"""A worker given more input than this (bytes of the pickled request) is stopped after its call."""
WORKER_MEMORY_BYTES = 4 * 1024**3
"""Address space of a worker (``RLIMIT_AS``): a filter that builds an enormous value (``[range(1e10)]``)
ends there at most, with the worker; a 64 MiB document parses in well under it."""

MAX_OUTPUT_CHARS = 128 * 1024 * 1024
"""Most characters of JSON text a worker sends back for one output (or for all the outputs of one call's records):
twice the largest document jq reads (``.``, ``tostring`` or ``[., .]`` of it fits). Past it the worker answers as
a filter failing at that output (:func:`_too_large`): ``"x" * 1e9`` made one gigabyte of text, which the reading
process took in whole (1.8 GB, ~20 s holding the GIL) before its time limit could say anything."""


_MOST_PROGRAMS = 16
"""Most compiled programs a worker keeps (by their text; then forgotten all together): a read's next pages run
one compiled already."""
_DEEP = "the result is JSON nested too deeply to return; select a shallower part"


def _too_large(what: str, chars: int) -> str:
    return (f"{what} is {chars:,} characters of JSON, more than the {MAX_OUTPUT_CHARS:,} a read returns; narrow the "
            "filter (a path, .[:n], length, keys)")


def _error(mode: str, message: str) -> tuple[str, Any]:
    """The error answer of a request in ``mode`` that failed before any input (see :func:`_apply`)."""
    return "error", message if mode == "page" else (0, message, [])


def _said(exc: ValueError) -> str:
    """jq's message of ``exc``; one the filter raised itself that reads as jq's parse error of the input
    (``error("parse error: ... at line 99999, column 0")``) told as the filter's call, so that no reader takes it for
    the document's (a broken document, a line past its end): the binding raises its parse errors from reading the
    next input (``_ready_next_input``, named in the traceback), a filter's from running it."""
    message = str(exc)
    if not message.startswith("parse error"):
        return message
    frame = exc.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code.co_name.endswith("_next_input"):
            return message
        frame = frame.tb_next
    return f"error({json.dumps(message, ensure_ascii=False)}) raised by the filter"


def _page_texts(outputs: Iterator[str], first: int, need: tuple[int, int, int], more: tuple[int, float],
                ) -> tuple[list[str], bool, str | None]:
    """jq's outputs as JSON texts (``tojson``) from output ``first`` on: every one a page needs -- until their
    texts (a comma each, less ``need[0]`` characters already shown of the first) pass ``need[1]`` (the page's
    budget) or there are more than ``need[2]`` of them -- then more, kept for the next pages, until their texts
    pass ``more[0]`` characters, or the time they take passes three times what the page's took (at least 0.5 s;
    at most ``more[1]`` seconds). Returns ``(texts, stopped, error)``: ``stopped`` when outputs may follow that were not
    taken, ``error`` jq's message at the output after the texts (a filter that fails there), else ``None``."""
    began = time.monotonic()
    texts: list[str] = []
    cost = taken = 0
    skip, budget, count = need
    most_chars, most_seconds = more
    until = None  # when taking more stops (once the page has what it needs)
    try:
        for number, text in enumerate(outputs):
            if number < first:
                continue
            if len(text) > MAX_OUTPUT_CHARS:
                return texts, False, _too_large(f"output {number + 1}", len(text))
            texts.append(text)
            cost += len(text) + 1
            taken += len(text)
            if until is None and (cost - skip > budget or len(texts) > count):
                now = time.monotonic()
                until = now + min(most_seconds, max(0.5, 3 * (now - began)))
            if until is not None and (taken > most_chars or time.monotonic() > until):
                return texts, True, None
    except ValueError as exc:
        return texts, False, _said(exc)
    return texts, False, None


def _record_outputs(jsons: list[str]) -> list[tuple[Any, bool]]:
    """jq's outputs of one record as ``(value, False)``, or ``(JSON text, True)`` for one holding a number a Python
    value cannot hold exactly."""
    out = []
    for text in jsons:
        value, inexact = numbers.load_exact(text)
        out.append((text, True) if inexact is not None else (value, False))
    return out


def _apply(program: Any, mode: str, data: Any) -> Any:
    """The program's outputs, each jq's own JSON text (the program ends in ``tojson``: a number jq did not change
    keeps its literal, ``12345678901234567890`` and ``1e400`` included). For ``mode`` ``"page"`` (``data`` is
    ``(document as UTF-8 bytes, first, need, more, check)``): ``("ok", (texts, stopped, error, imprecise,
    constant))`` -- the first of :data:`~.numbers.PYTHON_CONSTANTS` the document holds (JSON here, said) or ``None``,
    :func:`_page_texts`'s three, and with ``check`` the first number of the document a double cannot hold
    (:func:`~scratchfs.engine.structure.numbers.imprecise_number`), else ``None`` -- ``("error", message)`` (the
    filter fails on the document as a whole), ``("utf8", message)`` for a document that is not UTF-8 or
    ``("constant", literal)`` for one holding a NaN or infinity spelled otherwise (``nan``, ``+inf``: not JSON, and jq
    would read it as a value the document does not hold). For
    ``"records"`` (``data`` is ``(record texts, check)``): ``("ok", ([outputs per record as _record_outputs gives
    them], imprecise))``, or ``("error", (index, message, outputs of the records before it))`` at the first record
    that fails."""
    if mode == "page":
        document, first, need, more, check = data
        try:
            text = document.decode("utf-8")
        except UnicodeDecodeError as exc:
            return "utf8", str(exc)
        try:
            outputs = iter(program.input_text(text))
        except ValueError as exc:
            return "error", _said(exc)
        texts, stopped, error = _page_texts(outputs, first, need, more)
        python, other = numbers.constant_literals(text)  # (after jq's parse: text that is no JSON gets its error)
        if other is not None and (error is None or "parse error" not in error):
            return "constant", other  # jq read it as null or as the largest double, without a word
        return "ok", (texts, stopped, error, numbers.imprecise_number(text) if check else None, python)
    records, check = data
    done: list[list] = []
    chars = 0
    for index, record in enumerate(records):
        try:
            texts = []
            for text in program.input_text(record):
                chars += len(text)
                if chars > MAX_OUTPUT_CHARS:
                    return "error", (index, _too_large("the outputs of this read up to this record", chars), done)
                texts.append(text)
            done.append(_record_outputs(texts))
        except ValueError as exc:
            return "error", (index, str(exc), done)
        except RecursionError:
            return "error", (index, _DEEP, done)
    return "ok", (done, numbers.imprecise_number("\n".join(records)) if check else None)


def _compiled(program_text: str, others: tuple[str, ...], cache: dict[str, Any]) -> list[str | None]:
    """Mode ``"compile"``: jq's compile error of ``program_text`` and of each of ``others``, in order, ``None`` for
    one that compiles (``program_text`` then kept in ``cache`` for the run that follows). Compiling runs jq's
    constant folding, which computes ``"x" * 1e9`` (a gigabyte) then: here, not in the reading process."""
    said: list[str | None] = []
    for number, text in enumerate((program_text, *others)):
        try:
            program = jq.compile(text)
        except ValueError as exc:
            said.append(str(exc))
            continue
        if number == 0:
            if len(cache) >= _MOST_PROGRAMS:
                cache.clear()
            cache[text] = program
        del program
        said.append(None)
    return said


def run_jq(program_text: str, mode: str, data: Any, deadline: float) -> tuple[str, Any]:
    """Run the jq program ``program_text`` (compiled by the caller once already, so it compiles) over ``data`` in a
    worker, until ``deadline`` (a ``time.monotonic()`` value).

    Args:
        program_text: the whole jq program.
        mode: ``"page"`` (``data`` is ``(document bytes, first, (chars, budget, count), (more chars, more
            seconds), check)``: decoded in the worker (bytes pickle faster than a str: 0.8 ms against 3 ms for 2 MiB
            there and back); the JSON texts of the outputs from ``first`` come back, those a page uses and a bounded
            number more, which the caller keeps for the next pages: :func:`_page_texts`) or ``"records"`` (``data``
            is ``(list of JSON texts, check)``, each text one input); ``check``: look for numbers a double cannot
            hold; or ``"compile"`` (``data``: a tuple of more program texts): compile them alone, ``("ok", [jq's
            compile error or None for each, program_text first])`` (:func:`_compiled`).
        data: as ``mode`` says.
        deadline: when the worker is killed.

    Returns:
        ``("ok", outputs)`` or ``("error", detail)``: see :func:`_apply`; ``("died", last words)``: the worker died
        (jq aborts past the worker's :data:`WORKER_MEMORY_BYTES` of address space), with the last line it wrote to
        its stderr (``""``: none; see :meth:`~scratchfs.engine.worker_pipe.Worker.last_words`).

    Raises:
        TimeoutError: the deadline passed (the worker was killed). PoolBusy (a TimeoutError): no worker came free
            before it.
        NoWorker: no worker process could be started (descriptors, memory); the filter is never run unbounded in
            the calling thread instead.
    """
    request = pickle.dumps((program_text, mode, data), protocol=pickle.HIGHEST_PROTOCOL)
    outcome, answer = _POOL.run(request, deadline, keep=len(request) <= KEEP_AFTER_BYTES)
    return answer if outcome == "ok" else ("died", answer or "")


_POOL = Pool(__file__, MAX_WORKERS, "jq")


def workers() -> tuple[int, int]:
    """``(alive, idle)``: jq worker processes running, and those of them waiting for a call."""
    return _POOL.counts()


def serve() -> None:
    """The worker's loop over stdin and stdout: ``(program text, mode, data)`` in, :func:`_apply`'s answer out;
    returns when stdin closes (the parent is gone or stopped it)."""
    limit_memory(WORKER_MEMORY_BYTES)
    cache: dict[str, Any] = {}
    for program_text, mode, data in requests():
        if mode == "compile":
            answer = "ok", _compiled(program_text, data, cache)
            reply(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
            continue
        program = cache.get(program_text)
        try:
            if program is None:
                if len(cache) >= _MOST_PROGRAMS:
                    cache.clear()
                program = cache[program_text] = jq.compile(program_text)
            answer = _apply(program, mode, data)
        except ValueError as exc:  # does not compile (the caller compiled it first, so not expected)
            answer = _error(mode, str(exc))
        del data
        try:
            reply(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
        except RecursionError:  # jq (C) builds values deeper than Python can encode
            reply(pickle.dumps(_error(mode, _DEEP)))


if __name__ == WORKER_NAME:
    serve()
