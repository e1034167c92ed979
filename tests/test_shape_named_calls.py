"""The calls a shape names for an item (``match="NAME"``, ``match=" b/NAME"``, ``match=" PATH "``,
``match="<NAME>:"``, ``pattern="...NAME..."``), run with each item the shape lists, reach that item's own line first
-- not another item's mention of it (a certificate's ``Issuer:`` line naming the next one's subject, a longer name
the name is a prefix of) -- and a name shown in JSON quotes (a name holding a control, bidirectional or zero-width
character, a quote, a comma: :func:`~scratchfs.api.shape_words.called_name`) is one the model writes in its call as
the JSON string it reads, so the call holds the name's real characters (helper shapenames1): over every fixture of
``fixtures/tools/`` and hostile variants (a certificate chain made by ``openssl``, names with regex characters,
controls, quotes, backslashes, non-ASCII, prefixes of other names)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
_CALL_RE = re.compile(r'(match|pattern)="((?:[^"\\]|\\.)*(?:NAME|PATH|KEY)(?:[^"\\]|\\.)*)"')
_ITEM_RE = re.compile(r'(?:: |, )("(?:[^"\\]|\\.)*"|[^,:"(][^,:]*?) \(line ([\d,]+)(\)|, [^)]*\))')
_PARTS_RE = re.compile(r'(?:"(?:[^"\\]|\\.)*"|[^";]|;(?! ))+')
_PLACES = ("NAME", "PATH", "KEY")
_OWN_RE = re.compile(r'\(line ([\d,]+), [^()]*?match=("(?:[^"\\]|\\.)*")\)')  # (an item's own call: a name git quoted)
_FIXTURES = sorted(p.name for p in _TOOLS.iterdir() if p.is_file())


def named_calls(shape: str) -> list[tuple[str, str]]:
    """The calls a shape names with a name in them: (argument, its value with the name's place)."""
    return _CALL_RE.findall(shape)


def items(shape: str) -> list[tuple[str, int]]:
    """The items a shape lists before the part that names its calls (a disassembly's symbols, not its sections
    listed before them), each its name (a JSON-quoted one read as JSON) and its line."""
    parts = _PARTS_RE.findall(shape)
    called = next((at for at, part in enumerate(parts) if _CALL_RE.search(part)), len(parts))
    listed = parts[called - 1] if called else ""
    found = []
    for name, line, said in _ITEM_RE.findall(listed):
        if name.startswith("… ") or re.search(r"\d keys?\)", said) or "line=" in said:
            continue  # (a settings group of keys, "net.* (line 4, 12 keys)", which a key's search does not name;
            # an item that names its own line= read instead: no search finds it, checked below)
        found.append((json.loads(name) if name.startswith('"') else name, int(line.replace(",", ""))))
    return found


def filled(kind: str, value: str, name: str) -> str:
    """The call's value with ``name`` in its place, as the shape says to write it (a pattern's name escaped)."""
    place = next(p for p in _PLACES if p in value)
    return value.replace(place, re.escape(name) if kind == "pattern" else name)


def check_calls(data: bytes, tmp_path: Path, defining: bytes | None = None) -> int:
    """Runs each call the shape of ``data`` names with each item it lists; asserts the first window is the item's
    line or one of the lines up to the next item's (its defining line: ``defining`` in it when given). How many
    calls it ran."""
    ran = 0
    with ScratchStore(root=tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="tool")
        tools = ScratchTools(scope)
        shape = stub.shape or ""
        listed = items(shape)
        starts = sorted({line for _, line in listed})
        own = {int(line.replace(",", "")): json.loads(value) for line, value in _OWN_RE.findall(shape)}
        for kind, value in named_calls(shape):
            for name, line in listed:
                needle = filled(kind, value, name) if line not in own else own[line]  # (a path git quoted,
                # "b/tab\\tx.txt": its item names the search of it as git wrote it, the one call to make)
                found = tools.call("read_handle", {"handle": stub.handle, "match" if line in own else kind: needle,
                                                   "context": "line"})
                windows = found.get("windows") or []
                after = [s for s in starts if s > line]
                end = after[0] if after else line + 50
                assert windows, (shape, kind, needle, found)
                first = windows[0]
                assert line <= first["line"] < end, (name, line, kind, needle, first)
                if defining is not None:
                    assert defining.decode() in first["data"], (name, needle, first)
                ran += 1
    return ran


@pytest.mark.parametrize("fixture", _FIXTURES)
def test_every_fixtures_named_calls_reach_their_items(fixture, tmp_path):
    data = (_TOOLS / fixture).read_bytes()
    check_calls(data, tmp_path, b"Subject:" if data.startswith(b"Certificate:") else None)


def test_the_fixtures_name_calls_at_all(tmp_path):
    """The property above is tried on shapes that name calls: certificates, at least."""
    for name in ("openssl-x509-text-12.txt", "openssl-pkcs7-print-certs-6.txt"):
        assert check_calls((_TOOLS / name).read_bytes(), tmp_path / name) >= 6, name


@pytest.mark.parametrize(("fixture", "shown"), [
    ("openssl-x509-text-chain.txt", ["leaf.example", "Acme Root (2048) [a+b]* Intermediate",
                                     "Acme Root (2048) [a+b]*"]),
    ("openssl-pkcs7-print-certs-chain.txt", ["leaf.example", "Acme Root (2048) [a\\+b]* Intermediate",
                                             "Acme Root (2048) [a\\+b]*"]),
    ("openssl-x509-text-odd-names.txt", ["\u202eevil.exe", "zero\u200bwidth", 'say \\"hi\\" \\\\ there', "Acme, Inc.",
                                         "café ñandú", "tab\\09here"]),
    ("git-diff-odd-names.txt", ["tab\tx.txt", "zero\u200bwidth.txt", "\u202eevil.txt", "colon:file.txt"]),
    ("git-diff-stat-odd-names.txt", ['"tab\\tx.txt"', "zero\u200bwidth.txt", "\u202eevil.txt", '"back\\\\slash.txt"']),
])
def test_hostile_names_are_shown_as_the_call_needs_them(fixture, shown, tmp_path):
    """A chain (each Issuer: line naming the next certificate before its Subject: line; a name holding regex
    characters the prefix of another's) and names holding controls, bidirectional and zero-width characters,
    quotes, backslashes, commas, colons, non-ASCII: each is listed as its real characters (JSON quotes read as JSON;
    a control shown as "?" was a call that found nothing), and each call named for it reaches its own line."""
    data = (_TOOLS / fixture).read_bytes()
    with ScratchStore(root=tmp_path / "shape") as store:
        shape = store.scope("r", "a").spill(data, source_tool="tool").shape
    names = [name for name, _ in items(shape)]
    assert all(name in names for name in shown), (shape, names)
    assert check_calls(data, tmp_path / "calls") >= len(shown)


def test_a_name_git_quoted_is_listed_with_the_search_that_finds_it(tmp_path):
    """``match=" b/NAME"`` misses a path git quoted (`` "b/tab\\tx.txt"``), and only its miss's hint named the
    quoted search, two calls for one (helper leftovers3): the item names that search itself, one call."""
    data = (_TOOLS / "git-diff-odd-names.txt").read_bytes()
    with ScratchStore(root=tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="tool")
        assert '"tab\\tx.txt" (line 292, +5 -0, match="\\"b/tab\\\\tx.txt\\"")' in stub.shape
        assert 'back\\slash.txt (line 31, +5 -0, match="\\"b/back\\\\\\\\slash.txt\\"")' in stub.shape
        found = ScratchTools(scope).call("read_handle", {"handle": stub.handle, "match": '"b/tab\\tx.txt"'})
        assert found["windows"][0]["line"] == 292


def test_a_certificate_no_search_finds_is_listed_with_its_line_read(tmp_path):
    """A certificate's name cut to 48 characters (``…``) or a subject with no CN, OU nor O (shown whole) was listed
    as if the shape's Subject pattern found it, which it cannot (helper leftovers3): such an item names its own
    ``line=`` read instead, which reads the certificate from its start; the one named by its CN is found."""
    data = (_TOOLS / "openssl-x509-text-unnamed.txt").read_bytes()
    with ScratchStore(root=tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="tool")
        shape = stub.shape or ""
        for item in ("Example Trust Services Root Certification Autho… (line 1, line=1 reads it)",
                     '"C = US, ST = Oregon, L = Portland" (line 36, line=36 reads it)',
                     "Acme Widgets Incorporated International Holding… (line 71, line=71 reads it)",
                     "short.example (line 106)"):
            assert item in shape, shape
        tools = ScratchTools(scope)
        for line in (1, 36, 71):
            assert tools.call("read_handle", {"handle": stub.handle, "line": line, "lines": 1})["data"] == \
                "Certificate:\n"
    assert check_calls(data, tmp_path / "calls", b"Subject:") == 1
