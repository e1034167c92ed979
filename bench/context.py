"""Context economy: bytes that enter a model's context until the answer to a question is there, per strategy.

Tasks: questions over real tool outputs (the four ``fixtures/``) and generated ones shaped like common tool results
(a one-line 2.0 MB JSON API response, the EC2 model as one compact line, JSON lines, a build log with ANSI colours and
``\\r`` progress redraws, a 1.2 MB shop page, a real ``pytest -v`` run of 3,000 tests, ``dpkg-query``'s headerless
TSV). Each answer is computed from
the data with the plain library (``json``, ``csv``, ``re``) and is a short string; a task counts as answered by a
strategy when the answer appears in what the strategy put into the context (ANSI escapes removed from raw output, to
the peers' benefit).

Strategies (scripted, as the peers document them):

* ``inline``: the whole result enters the context.
* ``head``: the first 30,000 bytes (a tool-output cap such as Claude Code's 30,000 characters).
* ``head+tail``: the first and last 15,000 bytes with a marker (middle truncation, as Codex CLI does).
* ``preview+grep``: a 2 KB preview and the file's path; then ``grep -n -m 20 -C 2 -E PATTERN`` (output capped at
  30,000 bytes), then ``sed -n`` of 40 lines around the first hit.
* ``scratchfs``: the stub (its compact JSON, at most 1.5 KiB), then the read the stub's shape suggests: a jq
  filter, records, rows, a CSS selector, the rendered terminal view, or a pattern search (``read_handle``), each
  reply counted as the UTF-8 bytes of its compact JSON: ``read_handle`` as a model calls it (the MCP contract),
  with an 8 KiB reply budget (the rendered terminal view at a match's line calls the engine reader directly).
* ``scratchfs-lean``: the same with a store made with ``preview_bytes=256`` (a stub of about 1 KiB that keeps its
  room for the shape and the note).

Run: ``python bench/context.py`` (about 10 s). Prints a table, writes ``bench/results/context.json`` and draws
``bench/results/context.png``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import percentile  # noqa: E402

from scratchfs import ScratchStore  # noqa: E402
from scratchfs.adapter import parse_call  # noqa: E402
from scratchfs.api.contract import ScratchTools, error_text, to_json  # noqa: E402
from scratchfs.engine.structure import (  # noqa: E402
    BytesSource,
    view_page,
)
from scratchfs.foundation.errors import ScratchError  # noqa: E402
from scratchfs.foundation.limits import MIN_REPLY_BYTES  # noqa: E402

FIXTURES = ROOT / "fixtures"
RESULTS = ROOT / "bench" / "results"
CAP = 30_000
BUDGET = 8192
LEAN_PREVIEW = 256
LEAN = "scratchfs-lean"  # the same store with preview_bytes=256: the stub gives its room to the shape
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


# -- data ---------------------------------------------------------------------------------------------------------

def shop_api(rng: random.Random) -> bytes:
    """A one-line JSON API response of about 2.0 MB (2,037,878 bytes): ``meta``, ``items`` (objects 4 levels deep),
    ``links``."""
    items = []
    for i in range(2200):
        items.append({
            "id": 10_000 + i, "sku": f"SKU-{rng.randrange(16**6):06X}", "name": f"Widget {i} {rng.choice('ABCDEFG')}",
            "price": {"amount": round(rng.uniform(1, 500), 2), "currency": "EUR"},
            "seller": {"id": rng.randrange(1, 400), "name": f"seller-{rng.randrange(1, 400)}",
                       "rating": round(rng.uniform(1, 5), 1)},
            "stock": rng.randrange(0, 900), "tags": rng.sample(["new", "sale", "eco", "bulk", "gift", "tool"], 3),
            "description": " ".join(rng.choice(["sturdy", "light", "steel", "oak", "compact", "fast", "quiet"])
                                    for _ in range(120)),
        })
    doc = {"meta": {"request_id": "req-7f3a9c", "page": 1, "per_page": 2200, "total": 48_213},
           "items": items, "links": {"next": "https://api.example.test/v2/items?page=2&cursor=Zm9vYmFy"}}
    return json.dumps(doc, separators=(",", ":")).encode()


def events_jsonl(rng: random.Random) -> bytes:
    """About 3 MB of JSON-lines events (``ts``, ``level``, ``service``, ``user``, ``status``, ``latency_ms``, ...)."""
    out = []
    for i in range(10_000):
        status = 500 if i in (7_777, 9_901) else rng.choice([200, 200, 200, 201, 204, 301, 404])
        out.append(json.dumps({
            "ts": f"2026-11-30T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z", "seq": i + 1,
            "level": "error" if status == 500 else "info", "service": rng.choice(["auth", "cart", "search", "pay"]),
            "user": f"user-{rng.randrange(5000)}", "request_id": f"{rng.randrange(16**12):012x}", "status": status,
            "latency_ms": rng.randrange(2, 900), "path": f"/api/v1/{rng.choice(['items', 'cart', 'login'])}",
            "msg": ("upstream timeout from inventory-db" if status == 500 else "ok") + " " + "x" * rng.randrange(60),
        }).encode())
    return b"\n".join(out) + b"\n"


def packages_tsv(rng: random.Random) -> bytes:
    """``dpkg-query -W -f '${Package}\\t${Installed-Size}\\t${Version}\\n'`` of 900 packages: a TSV table with no
    header line (about 26 KB), whose question needs every row (the largest)."""
    return "".join(f"lib{rng.choice(['ssl', 'gtk', 'x11', 'py', 'llvm'])}-{i}\t{rng.randrange(10, 500_000)}\t"
                   f"{rng.randrange(1, 9)}.{rng.randrange(30)}-{rng.randrange(9)}\n" for i in range(900)).encode()


def build_log(rng: random.Random) -> bytes:
    """A build/install log with ANSI colours and ``\\r`` progress redraws, about 0.9 MB raw (936,332 bytes), an error
    near the end."""
    parts = []
    for n, pkg in enumerate(["numpy-2.1.3", "scipy-1.14.1", "pandas-2.2.3", "torch-2.5.1", "pillow-11.0.0"]):
        total = 18.3 + 40 * n
        bar = "".join(f"\r\x1b[2K  \x1b[32m{'━' * (p // 3)}\x1b[0m{' ' * (33 - p // 3)} {total * p / 100:.1f}/"
                      f"{total:.1f} MB \x1b[31m{rng.uniform(5, 60):.1f} MB/s\x1b[0m eta 0:00:{99 - p:02d}"
                      for p in range(101))
        parts.append(f"Downloading {pkg}-cp312-manylinux_x86_64.whl ({total:.1f} MB)\n{bar}\n")
    for i in range(2200):
        crate = f"crate_{i:04d}"
        spin = "".join(f"\r\x1b[1m\x1b[36m    Building\x1b[0m [{'=' * (k % 30):<30}] {k}/2200: {crate}"
                       for k in range(i, i + 4))
        parts.append(f"{spin}\r\x1b[K\x1b[1m\x1b[32m   Compiling\x1b[0m {crate} v0.{i % 9}.{i % 17} "
                     f"(/work/crates/{crate})\n")
        if i == 1234:
            parts.append("\x1b[1m\x1b[33mwarning\x1b[0m: unused variable: `legacy_mode` in crate_1234/src/lib.rs:88\n")
    parts.append("\x1b[1m\x1b[31merror[E0425]\x1b[0m\x1b[1m: cannot find value `retry_budget` in this scope\x1b[0m\n"
                 "  \x1b[1m\x1b[34m-->\x1b[0m crates/crate_2187/src/net.rs:214:17\n")
    parts.append("\x1b[1m\x1b[31merror\x1b[0m: could not compile `crate_2187` (lib) due to 1 previous error\n")
    parts.append("".join(f"\r\x1b[2K{w}" for w in ["waiting for jobs", "cleaning up", "done"]) + "\n")
    return "".join(parts).encode()


def shop_page(rng: random.Random) -> bytes:
    """A shop catalogue page of about 1.2 MB (1,214,337 bytes): title, category headings, 3,000 products with name
    and price."""
    parts = ['<!DOCTYPE html><html><head><meta charset="utf-8"><title>Hardware Store — Catalogue 2026</title>'
             "<style>" + ".p{margin:0}" * 2000 + "</style><script>" + "var t=1;" * 3000 + "</script></head><body>"
             '<nav><a href="/">Home</a> <a href="/deals">Deals</a></nav><main><h1>Catalogue 2026</h1>']
    words = ["durable", "steel", "ergonomic", "grip"]
    categories = ["Hand tools", "Power tools", "Fasteners", "Plumbing", "Electrical", "Garden", "Paint", "Safety"]
    for n in range(3000):
        if n % 375 == 0:
            parts.append(f'<section><h2 id="c{n // 375}">{categories[n // 375]}</h2>')
        price = f"{rng.uniform(1, 900):.2f}"
        parts.append(f'<div class="product" id="p{n}"><h3 class="name">{categories[n // 375]} item {n}</h3>'
                     f'<span class="price">€{price}</span><span class="stock">{rng.randrange(50)} in stock</span>'
                     f'<p class="desc">{" ".join(rng.choice(words) for _ in range(30))}</p></div>\n')
        if n % 375 == 374:
            parts.append("</section>\n")
    parts.append('</main><footer><p>Returns within 30 days. Support: help@store.test</p></footer></body></html>\n')
    return "".join(parts).encode()


def pytest_run() -> bytes:
    """A real ``pytest -v`` run of 3,000 generated tests of which 31 fail, each with its own assertion message (about
    250 KB: 256,457 bytes under pytest 9.2 on Python 3.11 here): made here by the pytest of this environment."""
    with tempfile.TemporaryDirectory() as directory:
        Path(directory, "test_orders.py").write_text(
            "import pytest\n\n\n@pytest.mark.parametrize('n', range(3000))\ndef test_order_total(n):\n"
            "    total = n * 3 + (7 if n % 97 == 41 else 0)\n"
            "    assert total == n * 3, f'order {n}: total {total} is off by {total - n * 3}'\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SCRATCHFS_"))}
        return subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "no:xdist", "-p",
                               "no:scratchfs", "-p", "no:randomly", "test_orders.py"], cwd=directory, env=env,
                              capture_output=True, check=False, timeout=300).stdout


def contents() -> dict[str, bytes]:
    rng = random.Random(12)
    kinds = {".json", ".csv", ".html", ".txt"}
    data = {p.name: p.read_bytes() for p in sorted(FIXTURES.iterdir()) if p.suffix in kinds}
    data["ec2-compact.json"] = json.dumps(json.loads(data["api-ec2-service-model.json"]),
                                          separators=(",", ":")).encode()
    data["shop-api.json"] = shop_api(rng)
    data["events.jsonl"] = events_jsonl(rng)
    data["build.log"] = build_log(rng)
    data["shop.html"] = shop_page(rng)
    data["pytest.txt"] = pytest_run()
    data["packages.tsv"] = packages_tsv(rng)
    for name in ("openssl-ciphers-v.txt", "objdump-d-prog.txt",  # (real outputs of kinds modeltask3 tried)
                 "readelf-Ws-libz.txt", "pip-inspect-jq-c-metadata.jsonl"):  # (and modeltask4)
        data[name] = (FIXTURES / "tools" / name).read_bytes()
    return data


# -- tasks --------------------------------------------------------------------------------------------------------

@dataclass
class Env:
    """What a scratchfs step sees: the content, its source, the scope, the stored handle and what earlier steps
    left in ``state``."""

    data: bytes
    source: BytesSource
    scope: Any
    handle: str
    state: dict = field(default_factory=dict)


Step = Callable[[Env], str]


@dataclass
class Task:
    name: str
    content: str
    question: str
    answer: str
    grep: str  # the pattern a model would grep for
    steps: list[Step]  # scratchfs's reads after the stub, each returning the reply's JSON text


def _reply(handle: str, page: Any) -> str:
    return to_json({"handle": handle, **page.to_dict()})


def _call(env: Env, **arguments: Any) -> str:
    """read_handle as a model calls it (MCP's contract, budgeted): the reply's JSON text."""
    return to_json(ScratchTools(env.scope).call("read_handle", {"handle": env.handle, **arguments}))


def jq(flt: str, budget: int = BUDGET) -> Step:
    return lambda env: _call(env, jq=flt, budget=budget)


def slurp(flt: str) -> Step:
    """jq run once over the array of all the records or rows (``slurp=true``)."""
    return lambda env: _call(env, jq=flt, slurp=True, budget=BUDGET)


def records(first: int, count: int, flt: str | None = None) -> Step:
    extra = {"jq": flt} if flt else {}
    return lambda env: _call(env, record=first, records=count, budget=BUDGET, **extra)


def rows(first: int, count: int, columns: list[str] | None = None) -> Step:
    extra = {"columns": columns} if columns else {}
    return lambda env: _call(env, row=first, rows=count, budget=BUDGET, **extra)


def refused_then_named(**arguments: Any) -> list[Step]:
    """A read as a model first writes it (``row=-1``, as it writes ``line=-1``), its tool error the reply (MCP's
    text of it), then the call that error names, pasted back."""
    def first(env: Env) -> str:
        try:
            return _call(env, **arguments)
        except ScratchError as exc:
            env.state["named"] = str(exc)[str(exc).index("read_handle("):] if "read_handle(" in str(exc) else None
            return error_text(exc)

    def then(env: Env) -> str:
        if not env.state.get("named"):
            return ""
        text = env.state["named"]
        for end in (at + 1 for at, char in enumerate(text) if char == ")"):  # (the call, not the words after it)
            try:
                _, named = parse_call(text[:end])
            except ScratchError:
                continue
            return to_json(ScratchTools(env.scope).call("read_handle", named))
        return ""
    return [first, then]


def select(css: str, budget: int = BUDGET, max_elements: int = 100) -> Step:
    return lambda env: _call(env, select=css, budget=max(MIN_REPLY_BYTES, budget))


def search(pattern: str, context: int = 100, max_matches: int = 3) -> Step:
    def step(env: Env) -> str:
        found = env.scope.read_handle(env.handle, pattern=pattern, context=context, max_matches=max_matches)
        if found.windows:
            env.state["match"] = found.windows[0].match_offset
            env.state["line"] = found.windows[0].line
        return _call(env, pattern=pattern, context=context, max_matches=max_matches, budget=BUDGET)
    return step


def lines_at_match(before: int = 2, count: int = 8) -> Step:
    def step(env: Env) -> str:
        line = max(1, env.state.get("line", 1) - before)
        return _call(env, line=line, lines=count, budget=BUDGET)
    return step


def lines_named(name: str, count: int = 30) -> Step:
    """The lines from the one the stub's shape names for ``name`` (``name (line N)``), else from its first match."""
    def step(env: Env) -> str:
        named = re.search(re.escape(name) + r" \(line ([\d,]+)\)", env.state.get("shape") or "")
        if named is None:
            found = env.scope.read_handle(env.handle, pattern=re.escape(name), max_matches=1)
            line = found.windows[0].line if found.windows else 1
        else:
            line = int(named[1].replace(",", ""))
        return _call(env, line=line, lines=count, budget=BUDGET)
    return step


def view_at_match(budget: int = 1024) -> Step:
    return lambda env: _reply(env.handle, view_page(env.source, raw_offset=env.state.get("match", 0),
                                                    budget_bytes=budget))


def view(offset: int = 0, budget: int = BUDGET) -> Step:
    return lambda env: _call(env, view="text", offset=offset, budget=max(MIN_REPLY_BYTES, budget))


def html_text(offset: int = 0, budget: int = BUDGET) -> Step:
    return lambda env: _call(env, view="text", offset=offset, budget=max(MIN_REPLY_BYTES, budget))


def tasks(data: dict[str, bytes]) -> list[Task]:
    out: list[Task] = []
    ec2 = json.loads(data["api-ec2-service-model.json"])
    ops, shapes = list(ec2["operations"]), list(ec2["shapes"])
    for content in ("api-ec2-service-model.json", "ec2-compact.json"):
        tag = "pretty" if content.startswith("api") else "compact"
        late = ops[-1]
        out += [
            Task(f"ec2-{tag}-api-version", content, "Which API version does the model describe?",
                 ec2["metadata"]["apiVersion"], '"apiVersion"', [jq(".metadata.apiVersion")]),
            Task(f"ec2-{tag}-late-op-input", content, f"What is the input shape of {late}?",
                 ec2["operations"][late]["input"]["shape"], late, [jq(f".operations.{late}.input.shape")]),
            Task(f"ec2-{tag}-last-shape-required", content, f"Which members does {shapes[-1]} require?",
                 ec2["shapes"][shapes[-1]]["required"][1], f'"{shapes[-1]}"',
                 [jq(f".shapes.{shapes[-1]}.required")]),
            Task(f"ec2-{tag}-op-count", content, "How many operations are listed?", f"{len(ops)} keys",
                 '"operations"', []),  # the stub's shape says it
        ]
    mid = ops[150]
    out.append(Task("ec2-pretty-mid-op-doc", "api-ec2-service-model.json", f"What does {mid} do?",
                    re.sub(r"<[^>]+>", "", ec2["operations"][mid]["documentation"])[:40], f'"name":"{mid}"|{mid}"',
                    [jq(f'.operations.{mid}.documentation')]))

    shop = json.loads(data["shop-api.json"])
    item = shop["items"][1777]
    cheapest = min(shop["items"], key=lambda i: i["price"]["amount"])
    out += [
        Task("api-item-price", "shop-api.json", f"What does item {item['id']} cost?", str(item["price"]["amount"]),
             f'"id":{item["id"]},', [jq(f'.items[] | select(.id == {item["id"]}) | {{price}}')]),
        Task("api-item-seller", "shop-api.json", f"Who sells {item['sku']}?", item["seller"]["name"],
             item["sku"], [jq(f'.items[] | select(.sku == "{item["sku"]}") | .seller')]),
        Task("api-total", "shop-api.json", "How many items match in total?", str(shop["meta"]["total"]),
             '"total"', [jq(".meta")]),
        Task("api-next-link", "shop-api.json", "What is the next page's URL?", shop["links"]["next"], '"next"',
             [jq(".links.next")]),
        Task("api-cheapest", "shop-api.json", "Which item is the cheapest?", cheapest["name"], '"amount":1\\.',
             [jq("[.items[] | {name, p: .price.amount}] | min_by(.p)")]),
    ]

    events = [json.loads(line) for line in data["events.jsonl"].splitlines()]
    errors = [e for e in events if e["status"] == 500]
    latency = {name: sum(e["latency_ms"] for e in events if e["service"] == name) /
               sum(1 for e in events if e["service"] == name) for name in {e["service"] for e in events}}
    slowest = max(sorted(latency), key=latency.__getitem__)
    out += [
        Task("jsonl-record-8000", "events.jsonl", "Which user made request 8000?", events[7999]["user"],
             '"seq": 8000,', [records(8000, 1)]),
        Task("jsonl-first-error", "events.jsonl", "Which request failed first with a 500?", errors[0]["request_id"],
             '"status": 500', [records(1, 10_000, 'select(.status == 500) | {seq, request_id, msg}')]),
        Task("jsonl-error-message", "events.jsonl", "What did the second failure say?", "upstream timeout",
             '"level": "error"', [records(9000, 1000, 'select(.level == "error") | .msg')]),
        Task("jsonl-last-ts", "events.jsonl", "When was the last event?", events[-1]["ts"], '"seq": 10000,',
             [records(10_000, 1)]),
        Task("jsonl-slowest-service-mean", "events.jsonl", "Which service is slowest on average, and how slow?",
             f"{slowest} {math.floor(latency[slowest])} ms", '"service"',
             [slurp("group_by(.service) | map({s: .[0].service, ms: (map(.latency_ms) | add / length)}) "
                    '| max_by(.ms) | "\\(.s) \\(.ms | floor) ms"')]),
    ]

    packages = [line.split("\t") for line in data["packages.tsv"].decode().splitlines()]
    out.append(Task("tsv-largest-package", "packages.tsv", "Which installed package is largest?",
                    max(packages, key=lambda row: int(row[1]))[0], "\t[0-9]{6}\t",
                    [slurp("max_by(.[1]) | .[0]")]))

    ciphers = [line.split() for line in data["openssl-ciphers-v.txt"].decode().splitlines()]
    weak = [row[0] for row in ciphers if row[2] == "Kx=RSA" and row[5] == "Mac=SHA1"]
    prog = data["objdump-d-prog.txt"].decode().splitlines()
    out += [
        Task("ciphers-rsa-sha1", "openssl-ciphers-v.txt", "Which ciphers use RSA key exchange and SHA1 MACs? (asked "
             "as jq without slurp)", weak[-1], "Kx=RSA .*Mac=SHA1",
             refused_then_named(jq='select(.[2] == "Kx=RSA" and .[5] == "Mac=SHA1") | .[0]')),
        Task("objdump-main-first", "objdump-d-prog.txt", "What is main's first instruction?",
             prog[prog.index("0000000000001267 <main>:") + 1].split("\t")[-1].strip(), "<main>:",
             [lines_named("main", 4)]),
    ]

    symbols = [line.split() for line in data["readelf-Ws-libz.txt"].decode().splitlines()[3:]]
    metadata = [json.loads(line) for line in data["pip-inspect-jq-c-metadata.jsonl"].splitlines()]
    users = [m["name"] for m in metadata if any(d.startswith("referencing") for d in m.get("requires_dist", []))]
    out += [
        Task("readelf-largest", "readelf-Ws-libz.txt", "At what address is libz's largest symbol?",
             max(symbols, key=lambda row: int(row[2]))[1], " [0-9]{4,} FUNC", [slurp("max_by(.Size) | .Value")]),
        Task("metadata-requires", "pip-inspect-jq-c-metadata.jsonl", "Which packages require referencing?",
             users[-1], "referencing",
             [slurp('[.[] | select(any(.requires_dist[]?; startswith("referencing"))) | .name]')]),
    ]

    table = list(csv.reader(io.StringIO(data["query-packages-by-month.csv"].decode(), newline="")))
    body = table[1:]
    out += [
        Task("csv-row-2500", "query-packages-by-month.csv", "Which package is row 2,500?", body[2499][0],
             f"^{re.escape(body[2499][0])},", [rows(2500, 1)]),
        Task("csv-version-of", "query-packages-by-month.csv", f"Which version of {body[3333][0]} is listed?",
             body[3333][1], f"^{re.escape(body[3333][0])},", [search(f"^{re.escape(body[3333][0])},", 80, 1)]),
        Task("csv-last-row", "query-packages-by-month.csv", "What is the last package listed?", body[-1][0],
             "^arx", [rows(len(body), 1)]),
        Task("csv-last-row-from-end", "query-packages-by-month.csv", "What is the last package listed? (asked as "
             "row=-1)", body[-1][0], "^arx", refused_then_named(row=-1)),
        Task("csv-summary-of", "query-packages-by-month.csv", f"What is {body[4100][0]} about?",
             body[4100][3][:40], f"^{re.escape(body[4100][0])},",
             [rows(4101, 1, ["name", "summary"])]),
        Task("csv-months", "query-packages-by-month.csv", "Which months does the table cover?", body[-1][2],
             "2026-1", [rows(len(body), 1, ["month"])]),
    ]

    book = data["browser-rust-book.html"].decode()
    h1s = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<h1[^>]*>(.*?)</h1>", book)]
    out += [
        Task("book-title", "browser-rust-book.html", "What is the page's title?", "The Rust Programming Language",
             "<title>", []),
        Task("book-last-chapter", "browser-rust-book.html", "Which chapter does the page end with?", h1s[-1],
             "<h1", [select("h1", 2048)]),
        Task("book-authors", "browser-rust-book.html", "Who wrote the book?", "Steve Klabnik, Carol Nichols",
             "Klabnik", [html_text(0, 2048)]),
    ]
    shop_html = data["shop.html"].decode()
    price = re.search(r'id="p2345">.*?class="price">(€[\d.]+)<', shop_html).group(1)
    out += [
        Task("shop-price", "shop.html", "What does Garden item 2345 cost?", price, "item 2345<",
             [select("#p2345 .price")]),
        Task("shop-categories", "shop.html", "Which is the last category?", "Safety", "<h2", [select("h2")]),
        Task("shop-support", "shop.html", "How do I reach support?", "help@store.test", "Support",
             [select("footer")]),
    ]

    out += [
        Task("log-error", "build.log", "Why did the build fail?", "error[E0425]: cannot find value `retry_budget`",
             r"error\[", [search(r"error\[", 0, 1), view_at_match()]),
        Task("log-error-location", "build.log", "Where is the failing line?", "crates/crate_2187/src/net.rs:214",
             r"-->", [search(r"error\[", 0, 1), view_at_match()]),
        Task("log-warning", "build.log", "What did the compiler warn about?", "unused variable: `legacy_mode`",
             "warning", [search("warning", 0, 1), view_at_match(512)]),
        Task("log-numpy-done", "build.log", "How large was the numpy download?", "18.3/18.3 MB",
             "numpy", [view(0, 1024)]),
        Task("log-final-state", "build.log", "What did the build print last?", "could not compile `crate_2187`",
             "could not compile", [search("could not compile", 0, 1), view_at_match(512)]),
    ]

    run = data["pytest.txt"].decode().splitlines()
    failed = [line.split(" ")[0].split("::")[1] for line in run if line.endswith("]") and " FAILED " in line]
    reason = next(line for line in run if f"order {failed[4][len('test_order_total['):-1]}: total" in line)
    out += [
        Task("pytest-first-failure", "pytest.txt", "Which test failed first?", failed[0], "FAILED",
             [search("FAILED", 0, 1)]),
        Task("pytest-failure-reason", "pytest.txt", f"Why did {failed[4]} fail?", reason.split("Error: ")[1],
             re.escape(failed[4]), [lines_named(failed[4])]),
        Task("pytest-failed-count", "pytest.txt", "How many tests failed?", f"{len(failed)} failed", " failed",
             [search(r"\d+ failed", 0, 1)]),
    ]

    grep = data["workspace-grep-stdlib-defs.txt"].decode().splitlines()
    target = next(line for line in grep[len(grep) // 2 :] if ":def urlsplit" in line or "def " in line)
    path, number = target.split(":")[0], target.split(":")[1]
    name = re.search(r"(?:def|class) (\w+)", target).group(1)
    out += [
        Task("grep-where-defined", "workspace-grep-stdlib-defs.txt", f"Where is {name} defined?",
             f"{path}:{number}", rf":\s*(def|class) {name}\b",
             [search(rf"^[^:\n]+:\d+:\s*(def|class) {name}\b", 0, 5)]),
        Task("grep-last-file", "workspace-grep-stdlib-defs.txt", "Which file is listed last?", grep[-1].split(":")[0],
             "test_multidigraph", [search(r"test_multidigraph\.py", 0, 1), lines_at_match(0, 200)]),
    ]
    return out


# -- strategies ---------------------------------------------------------------------------------------------------

def visible(text: str) -> str:
    return _ANSI.sub("", text)


def peer_inline(data: bytes, task: Task) -> list[tuple[int, str]]:
    return [(len(data), data.decode("utf-8", "replace"))]


def peer_head(data: bytes, task: Task) -> list[tuple[int, str]]:
    head = data[:CAP].decode("utf-8", "replace")
    marker = f"\n[output truncated: {len(data) - CAP:,} more bytes]" if len(data) > CAP else ""
    return [(len((head + marker).encode()), head + marker)]


def peer_head_tail(data: bytes, task: Task) -> list[tuple[int, str]]:
    if len(data) <= CAP:
        return peer_inline(data, task)
    half = CAP // 2
    text = (data[:half].decode("utf-8", "replace") + f"\n[… {len(data) - CAP:,} bytes truncated …]\n"
            + data[-half:].decode("utf-8", "replace"))
    return [(len(text.encode()), text)]


def peer_preview_grep(data: bytes, task: Task) -> list[tuple[int, str]]:
    preview = data[:2048].decode("utf-8", "replace") + f"\n[… {len(data):,} bytes saved to /tmp/out/{task.content}]"
    steps = [(len(preview.encode()), preview)]
    lines = data.decode("utf-8", "replace").split("\n")
    pattern = re.compile(task.grep)
    hits = [i for i, line in enumerate(lines) if pattern.search(line)][:20]
    shown, seen = [], set()
    for i in hits:  # grep -n -m 20 -C 2
        for j in range(max(0, i - 2), min(len(lines), i + 3)):
            if j not in seen:
                seen.add(j)
                shown.append(f"{j + 1}{':' if j == i else '-'}{lines[j]}")
    out = "\n".join(shown).encode()[:CAP].decode("utf-8", "ignore")
    steps.append((len(out.encode()) + 40, out))
    if hits:
        first = hits[0]
        around = "\n".join(lines[max(0, first - 10) : first + 30]).encode()[:CAP].decode("utf-8", "ignore")
        steps.append((len(around.encode()) + 30, around))
    return steps


PEERS = {"inline": peer_inline, "head": peer_head, "head+tail": peer_head_tail, "preview+grep": peer_preview_grep}


def bytes_to_answer(steps: list[tuple[int, str]], answer: str) -> int | None:
    spent = 0
    for cost, text in steps:
        spent += cost
        if answer in visible(text):
            return spent
    return None


def run_scratchfs(scope: Any, data: bytes, task: Task, handles: dict[str, str]) -> tuple[int | None, int]:
    """Bytes until the answer (or None) and the calls made, stub included."""
    stub = scope.spill(data, source_tool=task.content)
    handles[task.content] = stub.handle
    env = Env(data, BytesSource(data), scope, stub.handle, {"shape": stub.shape})
    steps: list[tuple[int, str]] = []
    text = stub.to_json()
    steps.append((len(text.encode()), text))
    found = bytes_to_answer(steps, task.answer)
    calls = 1
    for step in task.steps:
        if found is not None:
            break
        reply = step(env)
        steps.append((len(reply.encode()), reply))
        calls += 1
        found = bytes_to_answer(steps, task.answer)
    for _ in range(FOLLOWS):  # (a read its time bound cut -- a loaded machine's -- goes on by its next_call)
        follow = _next_call(steps[-1][1]) if found is None else None
        if follow is None:
            break
        reply = to_json(ScratchTools(scope).call(*follow))
        steps.append((len(reply.encode()), reply))
        calls += 1
        found = bytes_to_answer(steps, task.answer)
    return found, calls


FOLLOWS = 3
"""``next_call``s a model follows after a task's own reads when they did not reach the answer."""


def _next_call(text: str) -> tuple[str, dict[str, Any]] | None:
    """The ``next_call`` a reply's JSON ``text`` names, parsed as a model's tool call, or ``None``."""
    try:
        named = json.loads(text).get("next_call") if text.startswith("{") else None
        return parse_call(named) if named else None
    except (ValueError, ScratchError):
        return None


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--no-chart", action="store_true", help="do not draw the PNG")
    parser.add_argument("--out", type=Path, default=RESULTS / "context.json")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    data = contents()
    all_tasks = tasks(data)
    for task in all_tasks:
        assert not set(task.answer) & set('"\\\n'), task.name  # answers are found verbatim in JSON text
        assert task.answer in data[task.content].decode("utf-8", "replace") or task.name.endswith("op-count") \
            or task.name.startswith("log-") or task.name == "ec2-compact-late-op-input" \
            or task.name.endswith("-mean"), task.name  # (a mean: computed, in no output but an aggregate's)
    per_task: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store, \
            ScratchStore(Path(root) / "lean", preview_bytes=LEAN_PREVIEW) as lean:
        scope, lean_scope = store.scope("bench", "context"), lean.scope("bench", "context")
        handles: dict[str, str] = {}
        for task in all_tasks:
            content = data[task.content]
            row: dict[str, Any] = {"task": task.name, "content": task.content, "size": len(content),
                                   "question": task.question, "answer": task.answer}
            for name, peer in PEERS.items():
                row[name] = bytes_to_answer(peer(content, task), task.answer)
            row["scratchfs"], row["scratchfs_calls"] = run_scratchfs(scope, content, task, handles)
            row[LEAN], _ = run_scratchfs(lean_scope, content, task, handles)
            per_task.append(row)
    strategies = [*PEERS, "scratchfs", LEAN]
    summary: dict[str, Any] = {}
    for name in strategies:  # each over the tasks it answers
        got = [r[name] for r in per_task if r[name] is not None]
        summary[name] = {"answered": len(got), "tasks": len(per_task), "median": percentile(got, 0.5),
                         "p90": percentile(got, 0.9)}
    versus: dict[str, Any] = {}
    for ours_name in ("scratchfs", LEAN):
        for name in PEERS:  # the same tasks: those both answer
            both = [r for r in per_task if r[name] is not None and r[ours_name] is not None]
            peer_median = percentile([r[name] for r in both], 0.5)
            ours = percentile([r[ours_name] for r in both], 0.5)
            versus[f"{ours_name} vs {name}"] = {
                "tasks": len(both), "peer_median": peer_median, "scratchfs_median": ours,
                "ratio": round(peer_median / ours, 2) if peer_median and ours else None}
    elapsed = time.perf_counter() - started
    result = {"strategies": summary, "versus": versus, "tasks": per_task, "seconds": round(elapsed, 1),
              "cap_bytes": CAP, "budget_bytes": BUDGET}
    print_table(summary, versus, per_task, elapsed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    if not args.no_chart:
        chart(summary, args.out.with_suffix(".png"))
    return result


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def print_table(summary: dict, versus: dict, per_task: list[dict], elapsed: float) -> None:
    names = list(summary)
    print(f"{'task':<34}{'size':>11}" + "".join(f"{n:>14}" for n in names))
    for row in per_task:
        print(f"{row['task']:<34}{row['size']:>11,}" + "".join(f"{_fmt(row[n]):>14}" for n in names))
    print()
    print(f"{'strategy':<16}{'answered':>10}{'median B':>12}{'p90 B':>12}")
    for name, s in summary.items():
        print(f"{name:<16}{s['answered']:>6}/{s['tasks']:<3}{_fmt(s['median']):>12}{_fmt(s['p90']):>12}")
    print()
    print(f"{'on the tasks both answer':<34}{'tasks':>6}{'peer median':>13}{'ours':>11}{'ratio':>8}")
    for name, v in versus.items():
        print(f"{name:<34}{v['tasks']:>6}{_fmt(v['peer_median']):>13}{_fmt(v['scratchfs_median']):>11}"
              f"{(v['ratio'] or 0):>7.1f}x")
    print(f"\n{len(per_task)} tasks in {elapsed:.1f} s")


def chart(summary: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summary)
    medians = [summary[n]["median"] or 0 for n in names]
    p90s = [summary[n]["p90"] or 0 for n in names]
    fig, ax = plt.subplots(figsize=(10, 4.4), dpi=110)
    x = range(len(names))
    ax.bar([i - 0.2 for i in x], medians, width=0.4, label="median", color="#4C72B0")
    ax.bar([i + 0.2 for i in x], p90s, width=0.4, label="p90", color="#DD8452")
    ax.set_yscale("log")
    ax.set_xticks(list(x), [f"{n}\n{summary[n]['answered']}/{summary[n]['tasks']} answered" for n in names])
    ax.set_ylabel("bytes into context until the answer (log)")
    ax.set_title("Bytes into context until the answer is in view (each strategy over the tasks it answers)",
                 fontsize=10)
    for i, value in enumerate(medians):
        ax.annotate(f"{value:,.0f}", (i - 0.2, value), ha="center", va="bottom", fontsize=7)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


if __name__ == "__main__":
    main()
