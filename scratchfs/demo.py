"""``scratchfs demo``: the main job on real tool outputs.

For each recorded output in the fixtures folder: offload it as the agent runtime would (so the spill policy decides),
then show the bytes the tool returned, the bytes that reached the context (the stub), the bytes on disk, and check a
range read and a match search against the original bytes. Then a scratchpad round trip and the run's listing.

Each output is opened once, as a regular file and never through a symbolic link (``O_NOFOLLOW``), and read as a
stream: a file of a few GiB is spilled, and its reads checked against the file, in memory that does not grow with
it (an output of at most :data:`WHOLE_BYTES` is read whole, to be offloaded as a runtime offloads it).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table
from rich.text import Text

from scratchfs.api.policy import Observation, should_spill
from scratchfs.api.scope import Scope
from scratchfs.api.shape_terminal import escapes_parted
from scratchfs.api.store import ScratchStore
from scratchfs.api.stub import Stub
from scratchfs.cli.console import PipedConsole
from scratchfs.cli.render import entries_listing, human_bytes
from scratchfs.foundation.checks import clean_tool
from scratchfs.foundation.errors import InvalidArgument, ScratchError
from scratchfs.foundation.text import one_line

RUN_ID = "demo"
AGENT_ID = "agent-1"

DEMO_OUTPUTS = ("api-ec2-service-model.json", "browser-rust-book.html", "query-packages-by-month.csv",
                "workspace-grep-stdlib-defs.txt")
"""The recorded outputs of this clone's ``fixtures/`` the demo runs on when no folder is given (the folder holds
their provenance and generators too)."""
_CLASSES = {".html": "browser", ".htm": "browser", ".xhtml": "browser", ".json": "query", ".jsonl": "query",
            ".ndjson": "query", ".csv": "query", ".tsv": "query"}


def tool_of(path: Path) -> tuple[str, str]:
    """The tool name and result class an output is offloaded as: the file's name without its last suffix, as
    ``scratchfs load`` records it (``browser-rust-book.html`` -> ``browser-rust-book``; control characters dropped);
    ``browser`` for a web page, ``query`` for JSON, JSON lines, CSV and TSV, ``workspace`` (a file read, a command's
    output) for any other file, binary ones included -- each a class the spill policy spills."""
    return clean_tool(path.stem) or "file", _CLASSES.get(path.suffix.lower(), "workspace")


_WORD = re.compile(rb"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]{5,63}")  # (a hex or base64 run of 64 KiB is no word: its
# first 64 characters are sought, within a search's needle limit)
_WORD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
_CUT_HEAD = re.compile(rb"[^\x1b\x07\n]*(?:\x1b\\|\x07)|(?:\[?[0-?]*[!-/]*[@-~])?(?P<rest>[A-Za-z0-9_]*)")
"""What a window that starts inside a content may start with that is no whole word of its text: the rest of an
OSC sequence (up to its ``ESC \\`` or BEL, before any other escape or line end), or the rest of a CSI (``[K``,
``0;31m``: its ESC before the window) and the word glued to it (``rest``), or the rest of the word the window's
start cuts; or nothing."""
_CUT_TAIL = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b\n]{0,4096}\x1b?)?\Z")
"""An escape sequence a window's end cuts: its ESC, a CSI's start or an OSC's (a hyperlink's address, up to the ESC
of the ``ESC \\`` that ends it)."""


def shown_name(name: str) -> str:
    """A file's name (or a path) as the report prints it, on one line and as written, whatever it holds: each byte
    that is no UTF-8 (``os.fsdecode`` keeps it as a lone surrogate, which no UTF-8 output can write) as ``\\xNN``, each
    control character (a newline, the ESC of a terminal escape) as its Python escape; rich markup (``[bold]``,
    ``[/]``) is never read in it, as every cell and line of the report is printed as plain text."""
    return one_line(os.fsencode(name).decode("utf-8", "backslashreplace"))


def find_fixtures(explicit: str | None) -> Path:
    """The fixtures folder: ``explicit``, else this clone's ``fixtures/`` (beside the package), else ``./fixtures``."""
    if explicit:
        return Path(explicit)
    for candidate in (Path(__file__).resolve().parent.parent / "fixtures", Path.cwd() / "fixtures"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no fixtures folder found: run from a clone of scratchfs or pass --fixtures DIR")


def _regular(path: Path) -> bool:
    """``path`` is a regular file itself, not a symbolic link to one (nor anything else)."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def outputs(folder: Path, every: bool) -> list[Path]:
    """The outputs the demo runs on, sorted by name: with ``every``, each regular file at the top of ``folder`` whose
    name does not start with ``.`` (of any kind: a page, JSON lines, a log, a tar, any binary; a symbolic link is
    none, whatever it points to), else those of :data:`DEMO_OUTPUTS` it holds. Raises FileNotFoundError when there
    is none, InvalidArgument when ``folder`` cannot be listed (no permission)."""
    try:
        files = sorted(p for p in folder.iterdir() if not p.name.startswith(".") and _regular(p) and
                       (every or p.name in DEMO_OUTPUTS))
    except OSError as exc:  # (unreadable: the folder's failure, not the store's)
        raise InvalidArgument(f"cannot list {shown_name(str(folder))}: {exc.strerror or exc}") from None
    if not files:
        raise FileNotFoundError(f"no recorded outputs in {shown_name(str(folder))}: " + (
            "it holds no file" if every else f"none of {', '.join(DEMO_OUTPUTS)}"))
    return files


WHOLE_BYTES = 1024 * 1024
"""Largest output, in bytes, the demo reads whole, to offload it as a runtime does (:meth:`Scope.offload`); a larger
one is streamed (:func:`offload_file`)."""
_CHUNK = 1024 * 1024  # bytes read at a time from a streamed output
_NEEDLE_LOOK = 64 * 1024  # bytes from the middle of an output a word to search for is picked in
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # no link followed, no FIFO waited on


@dataclass(frozen=True)
class Offloaded:
    """An output offloaded by :func:`offload_file`: its ``size`` (bytes, as opened), the bytes of JSON text that
    reached the context (``to_context``), and its ``stub`` when it was spilled (else ``None``)."""

    size: int
    to_context: int
    stub: Stub | None


def _chunks(fd: int, size: int) -> Iterator[bytes]:
    """The first ``size`` bytes of the open file ``fd`` (the size it had when opened: bytes appended meanwhile are
    not followed), :data:`_CHUNK` at a time."""
    at = 0
    while at < size:
        data = os.pread(fd, min(_CHUNK, size - at), at)
        if not data:
            return
        at += len(data)
        yield data


def offload_file(scope: Scope, fd: int, tool: str, result_class: str) -> Offloaded:
    """Offload the regular file open at ``fd`` as a runtime offloads a tool result (:meth:`Scope.offload`, the
    spill policy deciding), streaming it: one of at most :data:`WHOLE_BYTES` is offloaded whole; a larger one is
    judged by the policy on its first ``spill_threshold_bytes + 1`` bytes, which decide as the whole would
    (:func:`~scratchfs.api.policy.should_spill` measures the JSON text only of a result of at most the threshold: a
    longer one is over it, whatever it holds), and it is spilled from the file chunk by chunk. Raises ScratchError
    when the store refuses a streamed spill (a quota, a full disk), OSError when the file cannot be read."""
    size = os.fstat(fd).st_size
    settings = scope.store.settings
    if size <= WHOLE_BYTES:
        data = b"".join(_chunks(fd, size))
        out = scope.offload(Observation(tool=tool, content=data, result_class=result_class))
        text = out.content.encode("utf-8") if isinstance(out.content, str) else out.content
        return Offloaded(len(data), len(text), out.stub)
    head = os.pread(fd, settings.spill_threshold_bytes + 1, 0)
    if not should_spill(Observation(tool=tool, content=head, result_class=result_class),
                        settings.spill_threshold_bytes, never_spill_tools=settings.never_spill_tools,
                        spill_classes=settings.spill_classes):
        return Offloaded(size, size, None)  # (passed through whole, as offload passes it: not read here)
    mode = settings.preview_modes.get(result_class, settings.preview_mode)
    stub = scope.spill(_chunks(fd, size), source_tool=clean_tool(tool), preview=mode)
    return Offloaded(stub.size, len(stub.to_json().encode("utf-8")), stub)


def _first(fd: int, size: int, needle: bytes) -> int:
    """Offset of the first occurrence of ``needle`` in the first ``size`` bytes of ``fd`` (-1: none), read a chunk
    at a time."""
    tail, base = b"", 0
    for chunk in _chunks(fd, size):
        found = (tail + chunk).find(needle)
        if found >= 0:
            return base - len(tail) + found
        base += len(chunk)
        tail = (tail + chunk)[-(len(needle) - 1):] if len(needle) > 1 else b""
    return -1


def check_reads(scope: Scope, handle: str, fd: int, size: int, name: str) -> str:
    """Read a range (256 bytes from the middle) and search a word of the spilled output ``handle`` back, each checked
    against the file open at ``fd`` (``size`` bytes): the report's line for output ``name``. Raises ScratchError
    (a read's refusal, as :meth:`Scope.read_handle` raises it), OSError (the file cannot be read)."""
    middle = size // 2
    part = scope.read_handle(handle, offset=middle, length=256)
    range_ok = part.data == os.pread(fd, 256, middle)
    start = max(0, middle - _NEEDLE_LOOK // 2)
    around = os.pread(fd, _NEEDLE_LOOK, start)
    if not _WORD.search(around):  # (no word near the middle: one of the start)
        start, around = 0, os.pread(fd, _NEEDLE_LOOK, 0)
    needle = pick_needle(around, cut_start=start > 0, cut_end=start + len(around) < size)
    found = scope.read_handle(handle, match=needle, context=40, max_matches=5)
    windows_ok = all(w.data == os.pread(fd, w.length, w.offset) and
                     os.pread(fd, len(needle), w.match_offset) == needle for w in found.windows)
    windows_ok = windows_ok and bool(found.windows) and found.windows[0].match_offset == _first(fd, size, needle)
    more = "+" if found.next_offset is not None else ""
    windows = f"{len(found.windows)}{more} window{'' if len(found.windows) == 1 and not more else 's'}"
    return (f"  {name}: range read {'ok' if range_ok else 'WRONG'} ({len(part.data)} B at byte {middle}), search "
            f"{'ok' if windows_ok else 'WRONG'} ({windows} of {needle.decode('utf-8', 'replace')!r})")


def pick_needle(data: bytes, cut_start: bool = False, cut_end: bool = False) -> bytes:
    """A word from the middle of ``data`` to search for: a word of its text, not one glued to a terminal escape
    sequence (``ESC[K`` then ``set_content`` gave ``Kset_content``) --
    :func:`~scratchfs.api.shape_terminal.escapes_parted`. ``cut_start`` / ``cut_end``: ``data`` is a window of a
    content that starts / ends inside it, maybe inside a word or an escape sequence (``[K``, ``0;31m``, the end of
    an OSC hyperlink's address: their ESC before the window), whose remnants and the word they hold are left out, as
    is the word (or the escape sequence's start) the window's end cuts."""
    head = _CUT_HEAD.match(data) if cut_start else None
    text = data if head is None else data[head.end() :]
    opened = _CUT_TAIL.search(text, max(0, len(text) - 4200)) if cut_end else None
    text = escapes_parted(text if opened is None else text[: opened.start()])
    text = text.rstrip(_WORD_BYTES) if cut_end and opened is None else text  # (each of its words a run of data's
    # bytes; a word that ends where the escape the end cuts starts is whole)
    found = _WORD.search(text, len(text) // 2) or _WORD.search(text)
    if found:
        return found.group(0)
    first = (head.group("rest") or b"") if head is not None else data[: len(data) - len(data.lstrip(_WORD_BYTES))]
    if len(first) >= 6:  # (no whole word: a part of the first run, past any escape's rest, as long as a word: a hex
        return first[:64]  # run's, from the window's start when it starts the content)
    return data[len(data) // 2 : len(data) // 2 + 8] or b"a"


def _one_output(scope: Scope, fd: int, path: Path, checks: list[str], stubs: list[tuple[str, str]]
                ) -> tuple[int, int, int, list[str]]:
    """Offload the output ``path`` (open at ``fd``, a regular file) and check its reads: ``(bytes returned, bytes
    to the context, bytes on disk, the table's cells after its name)``; its report line added to ``checks`` and, when
    spilled, its stub's JSON to ``stubs``."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # (it changed since it was listed)
        checks.append(f"  {shown_name(path.name)}: not read (not a regular file)")
        return 0, 0, 0, ["-"] * 4
    name = shown_name(path.name)
    tool, result_class = tool_of(path)
    try:
        out = offload_file(scope, fd, tool, result_class)
    except (OSError, ScratchError) as exc:  # a read error, a store's refusal: named, and the others go on
        checks.append(f"  {name}: not stored ({getattr(exc, 'kind', None) or exc.strerror}: {exc})")
        return 0, 0, 0, ["-"] * 4
    if out.stub is None:
        checks.append(f"  {name}: kept in context")
        return out.size, out.to_context, 0, [human_bytes(out.size), human_bytes(out.to_context), "-", "-"]
    handle = out.stub.handle
    stubs.append((name, out.stub.to_json()))
    entry = scope.entry("handle", handle)  # (one lookup: the run's listing grows with each output)
    assert entry is not None  # (just spilled, its ttl the store's default: an hour)
    try:
        checks.append(check_reads(scope, handle, fd, out.size, name))
    except (OSError, ScratchError) as exc:  # (a read's refusal or failure: named, and the others go on)
        checks.append(f"  {name}: reads not checked ({getattr(exc, 'kind', None) or exc.strerror}: {exc})")
    return out.size, out.to_context, entry.stored_size, [
        human_bytes(out.size), human_bytes(out.to_context), human_bytes(entry.stored_size),
        f"{1 - out.to_context / max(1, out.size):.1%}"]


def run_demo(store: ScratchStore, fixtures_dir: str | None) -> None:
    """Run the demo against ``store`` under run :data:`RUN_ID` and print its report to stdout."""
    console = PipedConsole() if sys.stdout.isatty() else PipedConsole(width=120)  # (a pipe, a file: no fold)
    folder = find_fixtures(fixtures_dir)
    files = outputs(folder, every=fixtures_dir is not None)
    store.delete_run(RUN_ID)
    scope = store.scope(RUN_ID, AGENT_ID)
    console.print(f"scratchfs demo: {len(files)} real tool outputs from {shown_name(str(folder))}, store at "
                  f"{shown_name(str(store.root))}\n", markup=False, highlight=False, soft_wrap=True)  # (paths whole)

    table = Table(title="each tool result: returned, reached the context, went to disk")
    for name in ("output", "returned", "to context", "on disk", "saved"):
        table.add_column(name, justify="left" if name == "output" else "right", no_wrap=True, overflow="ellipsis",
                         min_width=None if name == "output" else 6)  # (a name is cut only where the width is short)
    checks: list[str] = []  # one line per spilled output: its range read and search checked against the original
    total_in = total_ctx = total_disk = 0
    stubs: list[tuple[str, str]] = []  # (file name, stub JSON) of the outputs that were spilled
    for path in files:
        try:
            fd = os.open(path, _OPEN_FLAGS)
        except OSError as exc:  # unreadable (permissions, gone, a link by now): named, and the others go on
            table.add_row(Text(shown_name(path.name)), "-", "-", "-", "-")
            why = "a symbolic link, not followed" if exc.errno == errno.ELOOP else exc.strerror or exc
            checks.append(f"  {shown_name(path.name)}: not read ({why})")
            continue
        try:
            row = _one_output(scope, fd, path, checks, stubs)
        finally:
            os.close(fd)
        table.add_row(Text(shown_name(path.name)), *row[3])
        total_in, total_ctx, total_disk = total_in + row[0], total_ctx + row[1], total_disk + row[2]
    table.add_section()
    table.add_row("total", human_bytes(total_in), human_bytes(total_ctx), human_bytes(total_disk),
                  f"{1 - total_ctx / max(1, total_in):.1%}")
    console.print(table)
    console.print("read back from the store and checked against the original bytes:", highlight=False)
    for line in checks:
        console.print(line, markup=False, highlight=False, soft_wrap=True)

    if stubs:
        name, stub = stubs[0]
        console.print(f"\nthe stub that reached the context instead of {name} ({len(stub.encode())} bytes):",
                      markup=False, highlight=False, soft_wrap=True)
        console.print(stub, markup=False, highlight=False, soft_wrap=True)

    note = "plan: 1) read the CSV's header 2) search the grep output for 'class Thread'"
    scope.scratch_write("plan", note)
    back = scope.scratch_read("plan").decode("utf-8")
    keys = [e.key for e in scope.scratch_list()]
    console.print(f"\nscratchpad: wrote 'plan' ({len(note)} bytes), read back "
                  f"{'identical' if back == note else 'DIFFERENT'}; keys: {keys}\n")
    listing = entries_listing(store.list_entries_for_run(RUN_ID), store.now(), title=f"run {RUN_ID!r}")
    console.print(listing.table(console.width))


__all__ = [
    "AGENT_ID",
    "DEMO_OUTPUTS",
    "RUN_ID",
    "WHOLE_BYTES",
    "Offloaded",
    "check_reads",
    "find_fixtures",
    "offload_file",
    "outputs",
    "pick_needle",
    "run_demo",
    "shown_name",
    "tool_of",
]
