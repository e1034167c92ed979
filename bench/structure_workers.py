"""Cost of the worker processes of structure reads: a jq read over a ~2 MiB real JSON document (the EC2 service
model fixture, four times in one array) and CSS selects over a small and the 512 KiB real HTML page, each against
the same work done in this process (the anchor), alternated, medians of ``--reps`` repetitions.

    python bench/structure_workers.py [--reps 15] [--filter .metadata.apiVersion]

Rows: ``jq_page in-process`` (the anchor: the engine's read as it was before workers, jq run in this thread and
every output handed back whole), ``jq_page (worker)`` (the engine's read over the bytes), ``read_handle jq``
(``scope.structure.jq``: the store read, decompression and the worker), and for HTML ``select in-process`` (parse,
select, render: the anchor) against ``select_page (worker)``. Last, the text view's CPU per MiB of page in this
process (``inscriptis.get_text``) on the Rust-book page and on a page of nested ``div``s: the rates behind
``html.VIEW_SECONDS_PER_MIB``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import inscriptis
import jq
import lxml.html
from benchlib import FIXTURES

from scratchfs import ScratchStore
from scratchfs.engine.structure import BytesSource, jq_page, jsondoc, select_page
from scratchfs.engine.structure.html_render import element_text


def in_thread(program_text: str, mode: str, data: object, deadline: float) -> tuple[str, object]:
    """``run_jq`` as before workers: jq in this thread, every output whole (no time limit)."""
    text = data[0].decode()  # "page": (document bytes, first, need, more, check)
    try:
        outputs = jq.compile(program_text).input_text(text).all()  # JSON texts: the program ends in tojson
    except ValueError as exc:
        return "error", str(exc)
    return "ok", (outputs[data[1]:], False, None, None)  # texts from the first asked for, all taken, no error


def before_workers(read: Callable[[], object]) -> Callable[[], object]:
    """``read`` with jq run as before workers."""

    def step() -> object:
        saved, jsondoc.run_jq = jsondoc.run_jq, in_thread
        try:
            return read()
        finally:
            jsondoc.run_jq = saved

    return step


def document() -> bytes:
    """~2 MiB of real JSON: the EC2 service model four times, as one array."""
    model = (FIXTURES / "api-ec2-service-model.json").read_bytes()
    return b"[" + b",".join([model] * 4) + b"]"


def timed(steps: dict[str, Callable[[], object]], reps: int) -> dict[str, float]:
    """Median milliseconds of each step, the steps alternated (rotated each repetition) after one warm-up call, and
    for each step after the first its median ratio to the first (the anchor) in the same repetition."""
    for step in steps.values():
        step()
    times: dict[str, list[float]] = {name: [] for name in steps}
    names = list(steps)
    for rep in range(reps):
        for name in names[rep % len(names):] + names[: rep % len(names)]:
            began = time.perf_counter()
            steps[name]()
            times[name].append((time.perf_counter() - began) * 1000)
    out = {name: statistics.median(values) for name, values in times.items()}
    anchor = times[names[0]]
    for name in names[1:]:
        out[f"{name} / {names[0]}"] = statistics.median(a / b for a, b in zip(times[name], anchor, strict=True))
    return out


def jq_rows(flt: str, reps: int) -> dict[str, float]:
    """The jq rows over the 2 MiB document."""
    data = document()
    with tempfile.TemporaryDirectory() as tmp, ScratchStore(tmp) as store:
        scope = store.scope("bench", "jq")
        handle = scope.spill(data, source_tool="bench").handle
        page = scope.structure.jq(handle, flt)
        assert page.to_dict() == jq_page(BytesSource(data), flt).to_dict() == before_workers(
            lambda: jq_page(BytesSource(data), flt))().to_dict()
        return timed({
            "jq_page in-process": before_workers(lambda: jq_page(BytesSource(data), flt)),
            "jq_page (worker)": lambda: jq_page(BytesSource(data), flt),
            "read_handle jq": lambda: scope.structure.jq(handle, flt),
        }, reps)


def select_rows(reps: int) -> dict[str, float]:
    """The select rows over a small page and the 512 KiB Rust-book page."""
    small = b"<html><body>" + b"".join(b"<h2>part %d</h2><p>text</p>" % n for n in range(50)) + b"</body></html>"
    book = (FIXTURES / "browser-rust-book.html").read_bytes()

    def in_process(page: bytes, selector: str) -> list[str]:
        tree = lxml.html.document_fromstring(page.decode())
        return [element_text(element) for element in tree.cssselect(selector)[:100]]

    return {**timed({"select h2, 2 KiB page, in-process": lambda: in_process(small, "h2"),
                     "select h2, 2 KiB page (worker)": lambda: select_page(BytesSource(small), "h2")}, reps),
            **timed({"select h2, 512 KiB page, in-process": lambda: in_process(book, "h2"),
                     "select h2, 512 KiB page (worker)": lambda: select_page(BytesSource(book), "h2")}, reps)}


def view_rates(reps: int) -> dict[str, float]:
    """CPU seconds a MiB of ``inscriptis.get_text`` (the text view's renderer) in this thread, median of ``reps``."""
    nested = (b"<html><body>" + b"<div><p>x</p><span>a</span><div><span>b</span></div></div>" * 20_000
              + b"</body></html>")
    pages = {"Rust-book page": (FIXTURES / "browser-rust-book.html").read_bytes(), "nested divs": nested}
    rates = {}
    for name, page in pages.items():
        text = page.decode("utf-8", "replace")
        samples = []
        for _ in range(max(3, reps // 3)):
            start = time.process_time()
            inscriptis.get_text(text)
            samples.append((time.process_time() - start) / (len(page) / 2**20))
        rates[f"text view CPU, {name}"] = statistics.median(samples)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--filter", default=".[3].metadata.apiVersion")
    args = parser.parse_args()
    rows = {**jq_rows(args.filter, args.reps), **select_rows(args.reps)}
    for name, ms in rows.items():
        print(f"{name:40s} {ms:9.2f} ms" if " / " not in name else f"{name:76s} {ms:6.2f}x")
    for name, rate in view_rates(args.reps).items():
        print(f"{name:40s} {rate:9.2f} s a MiB")
    print(json.dumps({"filter": args.filter, "reps": args.reps, "median_ms": rows}), file=sys.stderr)


if __name__ == "__main__":
    main()
