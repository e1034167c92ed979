"""A YAML document's shape: its top-level keys, each with the line it stands on and what it holds, against PyYAML's
own reading (``yaml.compose``: each key node's line, each value's kind and length) of documents it dumped; a stream's
documents; a top-level list's items; text that is no YAML (flat headers, a log, a program) stays text."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.shape import describe
from scratchfs.api.shape_yaml import YAML_SHAPE, yaml_shape
from tests.cpu_time import best_cpu_and_result

ROOT = Path(__file__).resolve().parent.parent
_ITEM_RE = re.compile(r"(?:: |, )([A-Za-z_]+) \(line ([\d,]+)(?:, ([^)]*))?\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def held(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode) and node.value:
        return f"{len(node.value):,} key" + ("s" if len(node.value) != 1 else "")
    if isinstance(node, yaml.SequenceNode) and node.value:
        return f"list of {len(node.value):,}"
    return ""


_NAMES = st.text("abcdefghij", min_size=1, max_size=6)
_LEAF = st.one_of(st.integers(-5, 10**6), _NAMES, st.booleans(), st.none())
_VALUE = st.recursive(_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(_NAMES, inner, max_size=4)), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_NAMES, _VALUE, min_size=3, max_size=12), st.dictionaries(_NAMES, _LEAF, min_size=1, max_size=4))
def test_a_dumped_mapping_lists_its_top_level_keys_at_the_lines_pyyaml_reads(document, nested):
    document = {**document, "zzz": nested}  # (one nested mapping at least: a flat one is no YAML to tell)
    data = yaml.safe_dump(document, sort_keys=False).encode()
    shape = yaml_shape(data, data.count(b"\n"), True, "")
    assert shape is not None and shape.startswith(f"{YAML_SHAPE}, "), data
    root = yaml.compose(data)
    expected = [(key.value, key.start_mark.line + 1, held(value)) for key, value in root.value]
    shown = [(name, int(line.replace(",", "")), what or "") for name, line, what in _ITEM_RE.findall(shape)]
    assert shown == expected[: len(shown)] and shown
    if "more;" not in shape:
        assert len(shown) == len(expected)


def test_a_stream_of_kubernetes_objects_names_each_document_and_its_line():
    kinds = ["Service", "Deployment"] * 6
    objects = [{"apiVersion": "v1", "kind": kind, "metadata": {"name": f"obj-{n}", "labels": {"app": "web"}},
                "spec": {"ports": [{"port": 80}, {"port": 443}]}} for n, kind in enumerate(kinds)]
    data = yaml.safe_dump_all(objects, sort_keys=False, explicit_start=True).encode()
    shape = shape_of(data)
    assert shape.startswith(f"{YAML_SHAPE}, ") and "12 documents" in shape, shape
    lines = data.split(b"\n")
    found = re.findall(r"--- kind: (\w+), name: (obj-\d+) \(line (\d+)\)", shape)
    assert [(k, n) for k, n, _ in found] == [(o["kind"], o["metadata"]["name"]) for o in objects][: len(found)]
    assert len(found) >= 5 and all(lines[int(line) - 1] == b"---" for _, _, line in found)


def test_a_top_level_list_lists_its_items_and_a_list_under_a_key_is_counted(tmp_path):
    play = [{"hosts": f"web{n}", "tasks": [{"name": "install", "apt": "name=nginx"}]} for n in range(30)]
    data = yaml.safe_dump(play, sort_keys=False).encode()
    shape = shape_of(data)
    assert shape.startswith(f"{YAML_SHAPE}, ") and "- hosts: web0 (line 1), - hosts: web1 (line " in shape, shape
    listing = {"apiVersion": "v1", "items": [{"kind": "Pod", "metadata": {"name": f"p{n}"}} for n in range(120)],
               "kind": "List", "metadata": {"resourceVersion": ""}}
    data = yaml.safe_dump(listing, sort_keys=False).encode()
    with ScratchStore(tmp_path) as store:
        stub = store.scope("r", "a").spill(data, source_tool="kubectl")
    assert stub.content_type == "text" and "items (line 2, list of 120)" in stub.shape, stub.shape
    assert re.search(r"kind \(line (\d+)\)", stub.shape)[1] == str(data.split(b"\n").index(b"kind: List") + 1)


def test_a_top_level_list_of_items_opening_on_a_mapping_names_each_by_its_name_as_pyyaml_reads_it():
    """A list whose items all open on a key holding a mapping (``pip inspect``'s packages dumped as YAML: ``-
    metadata:``, the name under it) was told as ``- metadata: (line 1), - metadata: (line 57), ...``: nineteen
    identical labels (newuser19). Each item is named by its own ``name:``, at the line PyYAML reads it on."""
    data = (ROOT / "fixtures" / "tools" / "pip-inspect-head.yaml").read_bytes()
    items = yaml.compose(data).value
    metadata = [{key.value: value for key, value in item.value}["metadata"] for item in items]
    names = [{key.value: value.value for key, value in node.value}["name"] for node in metadata]
    want = ", ".join(f"- metadata: name: {name} (line {item.start_mark.line + 1})"
                     for name, item in zip(names, items, strict=True))
    lines = data.count(b"\n")
    assert len(items) == 3 and shape_of(data) == f"{YAML_SHAPE}, {lines} lines: {want}; line=N reads from a key"


def test_text_that_is_no_yaml_stays_text():
    headers = b"".join(b"X-Header-%d: value %d\n" % (n, n) for n in range(300))  # flat: no key under another
    program = (ROOT / "scratchfs" / "api" / "shape.py").read_bytes()
    objects = b"".join(b"  key%d: value,\n  other: {\n" % n for n in range(200))  # a program's object literals
    for data in (headers, program, objects):
        assert not shape_of(data).startswith(YAML_SHAPE), data[:60]


_PREAMBLE = st.lists(st.sampled_from(["", "# a comment", "#", "   # indented comment", "%YAML 1.2"]), max_size=5)


@settings(max_examples=150, deadline=None)
@given(_PREAMBLE, st.lists(st.dictionaries(_NAMES, _VALUE, min_size=1, max_size=4), min_size=2, max_size=6))
def test_a_stream_after_comments_counts_the_documents_pyyaml_reads_at_their_lines(preamble, documents):
    """Comments, blank lines and directives before a stream's first ``---`` are no document: before, they were
    counted as one and listed at line 1 (PyYAML's own example.yaml, whose header comments precede its first
    ``---``: 33 documents said, 32 read)."""
    head = "\n".join(preamble) + "\n" if preamble else ""
    body = yaml.safe_dump_all([{**d, "zz": {"a": 1}} for d in documents], sort_keys=False, explicit_start=True)
    data = (head.replace("%YAML 1.2\n", "") + ("%YAML 1.2\n" if "%YAML 1.2" in preamble else "") + body).encode()
    shape = shape_of(data)
    nodes = list(yaml.compose_all(data))
    assert shape.startswith(f"{YAML_SHAPE}, ") and f", {len(nodes):,} documents" in shape, (shape, data)
    starts = [n for n, line in enumerate(data.split(b"\n"), 1) if line.startswith(b"---")]
    shown = [int(line.replace(",", "")) for line in re.findall(r"--- [^(]*\(line ([\d,]+)\)|--- \(line ([\d,]+)\)",
                                                                 shape) for line in line if line]
    assert shown == starts[: len(shown)] and shown, shape


_LAZY_KEY = rb"(?:[\w$@./][\w$@./ -]{0,120}?|\"[^\"\n]{0,120}\"|'[^'\n]{0,120}')"  # (the key before it was atomic)
_LAZY_KEY_RE = re.compile(rb"\n( *)(- +)?(" + _LAZY_KEY + rb"):(?= |\r?\n)")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text("ab :-./$@'\"\t#", max_size=30), st.integers(100, 140).map(lambda n: "k" * n + ": v"),
                          st.integers(100, 140).map(lambda n: "k " * (n // 2) + ":")), max_size=20))
def test_a_key_taken_whole_is_the_key_the_lazy_match_found(lines):
    """A plain key's run of characters is taken whole (an atomic group, by a lookahead's capture), where the lazy
    match gave one back at a time looking for its ':' -- 3 times the scan over 512 KiB of lines of words (13 ms):
    the same keys, at the same places."""
    from scratchfs.api.shape_yaml import _KEY_RE
    text = ("\n" + "\n".join(lines) + "\n").encode()
    assert [m.span(3) for m in _KEY_RE.finditer(text)] == [m.span(3) for m in _LAZY_KEY_RE.finditer(text)]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_NAMES, st.lists(st.tuples(_NAMES, st.sampled_from(["int", "str", "_Reasons"])),
                                           min_size=1, max_size=5)), min_size=1, max_size=4), st.booleans())
def test_a_type_stub_of_classes_is_no_yaml(classes, commented):
    """A Python type stub's ``class C:`` over ``x: int`` lines reads as YAML's keys: before, cryptography's
    ``exceptions.pyi`` was 'YAML, 17 lines: class _Reasons (line 5, 12 keys)'. A program's line at a line's start
    (``class C:``, ``def f(``, ``import x``) is no YAML."""
    head = "# This file is dual licensed\n\n" if commented else ""
    data = (head + "\n".join(f"class {name.capitalize()}:\n" + "".join(f"    {field}: {kind}\n"
                                                                        for field, kind in fields)
                             for name, fields in classes)).encode()
    assert not shape_of(data).startswith(YAML_SHAPE), shape_of(data)


_FLAT = {  # real flat YAML: every key top-level (fixtures/tools/, fixtures/README.md)
    "kubectl-config-view-empty.yaml": "preferences: {}",  # (kubectl config view, no cluster: was "text, 7 lines")
    "pyenv-FUNDING.yml": "github: [pyenv]",  # (GitHub's FUNDING.yml: was "settings (key: value), 12 lines")
    "rsa-travis.yml": "python:\n  - ",  # (a .travis.yml: lists under keys, was "text, 29 lines")
}


_FLAT_ITEM_RE = re.compile(r"(?:: |, )([\w$-]+) \(line ([\d,]+)(?:, ([^)]*))?\)")


def _pyyaml_keys(data: bytes) -> list[tuple[str, int, str]]:
    """Each top-level key, its line and what it holds as PyYAML reads them (a flow collection, ``[a, b]``, is
    told as the scalar line it is: nothing held)."""
    return [(key.value, key.start_mark.line + 1, "" if getattr(value, "flow_style", False) else held(value))
            for key, value in yaml.compose(data).value]


def _flat_shown(shape: str) -> list[tuple[str, int, str]]:
    return [(key, int(line.replace(",", "")), what or "") for key, line, what in _FLAT_ITEM_RE.findall(shape)]


@pytest.mark.parametrize("name", sorted(_FLAT))
def test_a_real_flat_mapping_is_yaml_its_keys_at_the_lines_pyyaml_reads(name):
    """A mapping whose keys are all top-level is YAML when it holds what only YAML writes (a flow collection, a list
    under a key); each key is listed at PyYAML's line with what it holds (before: text, or settings)."""
    data = (ROOT / "fixtures" / "tools" / name).read_bytes()
    assert _FLAT[name].encode() in data
    shape = shape_of(data)
    assert shape.startswith(f"{YAML_SHAPE}, "), shape
    assert _flat_shown(shape) == _pyyaml_keys(data)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_NAMES, _LEAF, min_size=3, max_size=12), st.lists(_LEAF, min_size=1, max_size=5),
       st.booleans())
def test_a_dumped_flat_mapping_with_a_list_is_yaml_as_pyyaml_reads_it(document, items, flow):
    """PyYAML's dump of a flat mapping with one list value (block entries under its key, or ``[a, b]`` flow): YAML,
    its keys at the lines PyYAML reads them."""
    data = yaml.safe_dump({**document, "zzz": items}, sort_keys=False, default_flow_style=None if flow else False)
    data = data.encode()
    shape = shape_of(data)
    assert shape.startswith(f"{YAML_SHAPE}, "), data
    shown, expected = _flat_shown(shape), _pyyaml_keys(data)
    assert shown == expected[: len(shown)] and shown


def test_a_flat_key_value_dump_without_what_only_yaml_writes_stays_settings():
    """``pip show``, ``/proc/meminfo`` and an environment written ``NAME: value`` (``env | sed 's/=/: /'``) hold no
    flow collection, block scalar, list or document start: settings, as before."""
    env = b"".join(b"VAR_%d: /usr/local/bin:/usr/bin/%d\n" % (n, n) for n in range(40)) + b"HOME: /root\n"
    for data in ((ROOT / "fixtures" / "tools" / "pip-show.txt").read_bytes(),
                 (ROOT / "fixtures" / "tools" / "proc-meminfo.txt").read_bytes(), env):
        assert shape_of(data).startswith("settings (key: value), "), data[:60]


_BLOCKS = {  # real YAML whose block scalars (key: |, key: >) hold prose or a script, or whose comments a licence
    "pyenv-virtualenv-no-response.yml": "closeComment: >",  # (was "text, 13 lines")
    "gcloud-schema-UrlRewrite.yaml": "description: |-",  # (was "text, 55 lines")
    "pyenv-workflow-modified-scripts.yml": "run: |",  # (a GitHub workflow's shell and Python: was "text, 306 lines")
    "gcloud-ext-runtime-java.yaml": '(the "License");',  # (a licence's comment lines ending in ";", ",": was text)
}


@pytest.mark.parametrize("name", sorted(_BLOCKS))
def test_yaml_whose_block_scalars_hold_prose_or_scripts_is_yaml_as_pyyaml_reads_it(name):
    """A block scalar's lines are its key's value: its prose (not keys, nor entries) and its script's lines ending in
    ``;`` or ``{`` no longer make the document text; nor do a licence's comment lines ending in ``;``. Its top-level
    keys at PyYAML's lines, with what each holds."""
    data = (ROOT / "fixtures" / "tools" / name).read_bytes()
    assert _BLOCKS[name].encode() in data
    shape = shape_of(data)
    assert shape.startswith(f"{YAML_SHAPE}, "), shape
    shown, expected = _flat_shown(shape), _pyyaml_keys(data)
    assert shown == expected[: len(shown)] and len(shown) >= min(3, len(expected)), shape


def test_a_top_level_list_of_one_item_is_yaml():
    """gcloud's command definition: one ``- release_tracks: [...]`` item at column 0, every other key under it (was
    "text, 81 lines": every key nested and fewer than two top-level entries)."""
    data = (ROOT / "fixtures" / "tools" / "gcloud-surface-metastore-restore.yaml").read_bytes()
    assert len(yaml.compose(data).value) == 1
    assert shape_of(data).startswith(f"{YAML_SHAPE}, 81 lines: - release_tracks: [ALPHA, BETA, GA] (line 1)")


class _Literal(yaml.SafeDumper):
    pass


_Literal.add_representer(str, lambda dumper, text: dumper.represent_scalar(
    "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None))
_PROSE = st.lists(st.sampled_from(["The service is restored;", "then, run it {here},", "plain words here",
                                   "x = f(y);", "  indented code {", "", "note: a line as a key", "- as an entry"]),
                  min_size=2, max_size=12)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_NAMES, st.one_of(_LEAF, _PROSE.map(lambda lines: "\n".join(lines).strip() + "\n")),
                       min_size=3, max_size=10), st.dictionaries(_NAMES, _LEAF, min_size=1, max_size=3))
def test_a_dumped_mapping_with_literal_blocks_lists_its_keys_at_pyyamls_lines(document, nested):
    """PyYAML's dump of a mapping whose strings over several lines are written as literal blocks (``key: |``) of
    prose and code lines (some reading as keys or entries): YAML, its keys at the lines PyYAML reads them, a block
    told as holding nothing (before: its "note: ..." lines were counted as its keys)."""
    data = yaml.dump({**document, "zzz": nested}, Dumper=_Literal, sort_keys=False).encode()
    shape = shape_of(data)
    assert shape.startswith(f"{YAML_SHAPE}, "), data
    shown, expected = _flat_shown(shape), _pyyaml_keys(data)
    assert shown == expected[: len(shown)] and shown


def test_block_scalars_nested_ever_deeper_are_read_once():
    """512 KiB of ``key: |`` lines each indented past the last, a line of prose under each: every block lies inside
    the one before, and scanning each one's body to the end took 1.1 s of CPU (quadratic in the lines); a block
    inside one already counted is passed over: 0.04 s."""
    lines = []
    for k in range(0, 1400, 2):
        lines += [b" " * k + b"k%d: |" % k, b" " * (k + 1) + b"some words of text here"]
    data = (b"a: 1\nb: 2\nc:\n  d: 1\n" + b"\n".join(lines) + b"\n")[: 512 * 1024]
    spent, shape = best_cpu_and_result(lambda: describe(data, len(data), data.count(b"\n")), runs=1,
                                       clock=time.process_time)
    assert spent < 0.5 and shape.text.startswith(f"{YAML_SHAPE}, "), shape


def test_block_scalars_at_many_indents_keep_a_bounded_number_of_patterns():
    # each block scalar's body is matched by a pattern compiled for its key's indent; a sample's indents are any
    # number up to its size, so the patterns kept are bounded (64), not one per indent ever seen (200 kept before)
    from scratchfs.api import shape_yaml

    parts = [b"jobs:\n"]
    for n in range(200):
        pad = b" " * (2 + n)
        parts.append(pad + b"k%d:\n" % n + pad + b"  run: |\n" + pad + b"    make a;\n" + pad + b"    make b;\n")
    sample = b"".join(parts)
    shape = yaml_shape(sample, sample.count(b"\n"), True, "")
    assert shape is not None and shape.startswith(YAML_SHAPE)
    assert shape_yaml._block_body.cache_info().currsize == 64  # (200 indents met, the last 64 kept)


def _documents_shown(shape: str) -> list[tuple[str, int]]:
    return [(kind, int(line.replace(",", ""))) for kind, line in re.findall(r"--- kind: (\w+)[^(]*\(line ([\d,]+)\)",
                                                                           shape)]


def test_kubectl_objects_whose_configmap_holds_quoted_files_are_a_stream_of_documents():
    """``kubectl create configmap --from-file ... -o yaml`` writes a file holding tabs or trailing blanks as one
    double-quoted scalar folded over many lines (``key: "# SSLeay config...\\n#`` then indented lines): those lines
    are the key's value, as a block scalar's are, so the three objects are YAML, each document named at the line
    PyYAML reads (was "settings (key: value), 275 lines, 14 keys")."""
    data = (ROOT / "fixtures" / "tools" / "kubectl-dry-run-multidoc.yaml").read_bytes()
    assert b'  openssl-req.conf: "# SSLeay' in data
    shape = shape_of(data)
    assert shape.startswith(f"{YAML_SHAPE}, 275 lines, 3 documents: "), shape
    expected = []
    for document in yaml.compose_all(data):
        kind = next(value.value for key, value in document.value if key.value == "kind")
        start = document.start_mark.line  # (the node's first key; its "---" stands on the line before, from 2 on)
        expected.append((kind, start + 1 if start == 0 else start))
    assert _documents_shown(shape) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.text("ab \t=#\n", min_size=40, max_size=120), min_size=1, max_size=3), min_size=2,
                max_size=5))
def test_a_stream_of_configmaps_with_folded_quoted_values_names_each_document_at_pyyamls_line(files):
    """PyYAML writes a value holding tabs as a double-quoted scalar folded at its width, most of the lines here: a
    stream of such ConfigMaps is YAML, each document at PyYAML's line."""
    objects = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{n}"},
                "data": {f"f{k}.conf": "x\t" + text * 6 for k, text in enumerate(texts)}}
               for n, texts in enumerate(files)]
    data = yaml.safe_dump_all(objects, sort_keys=False, explicit_start=True, width=60).encode()
    shape = shape_of(data)
    assert shape.startswith(f"{YAML_SHAPE}, ") and f"{len(objects)} documents" in shape, (shape, data)
    expected = [("ConfigMap", document.start_mark.line) for document in yaml.compose_all(data)]
    shown = _documents_shown(shape)
    assert shown == expected[: len(shown)] and shown, (shape, data)
