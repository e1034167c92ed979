"""hostile47: a structured tool result (a dict) still being changed by another thread of the agent platform while
``Scope.offload`` writes its JSON text. Each attempt raised ``RuntimeError: dictionary changed size during
iteration``, and the result went to the model WHOLE (5 MB here), logged as "not JSON-serialisable" -- neither true
nor bounded: the spill policy's whole point bypassed by a race. Now the writing is tried again (a few times); a
structure that never holds still long enough becomes the refusal notice (a preview, ``refused`` set), never the
whole of it."""

from __future__ import annotations

import json
import threading

from scratchfs import Observation


def test_a_structure_changed_by_another_thread_while_offloaded_never_floods_the_context(store):
    scope = store.scope("run-1", "agent-1")
    result = {f"package-{i}": {"version": f"1.{i}.0", "summary": "a package " * 5} for i in range(40_000)}
    big = len(json.dumps(result))
    stop, started = threading.Event(), threading.Event()

    def still_filling() -> None:  # (the tool's producer thread, still adding and dropping keys)
        while not stop.is_set():  # (its size is off by 1 to 100 all but a moment each round)
            for i in range(100):
                result[f"late-{i}"] = i
            started.set()
            for i in range(100):
                del result[f"late-{i}"]

    producer = threading.Thread(target=still_filling)
    producer.start()
    try:
        assert started.wait(30)
        outs = [scope.offload(Observation("search", result, result_class="query")) for _ in range(3)]
    finally:
        stop.set()
        producer.join(30)
    for out in outs:
        assert out.stub is not None or out.refused is not None, "the structure reached the model whole"
        assert isinstance(out.content, str) and len(out.content.encode()) < big // 100
        if out.stub is not None:  # (a retry that found it still: its text, valid and whole)
            stored = json.loads(b"".join(scope.iter_content("handle", out.stub.handle)))
            assert stored["package-7"] == {"version": "1.7.0", "summary": "a package " * 5}
        else:
            notice = json.loads(out.content)
            assert notice["stored"] is False and "changed" in notice["note"]
            assert notice["preview"].startswith('{"package-0": {"version": "1.0.0"')
