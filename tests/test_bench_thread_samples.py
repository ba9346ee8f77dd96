"""The 1,000-thread bench's proof of no Python on tokio workers (``benches/concurrency.py
--python-on-workers``) reads ``perf script`` output: each sample counted under its thread's
kind, and as Python when any frame of its stack is the interpreter's or an extension module's.
A miscount there would make the proof say nothing, so its reading is checked on samples of the
shapes perf prints."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benches" / "concurrency.py"


def _bench():
    spec = importlib.util.spec_from_file_location("concurrency_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# perf pads a short thread name on the left in some field sets: the first header has it so.
SCRIPT = """\
  dars-worker 22170 
\t          7c2467 [unknown] (/work/x/python/deepagents_rs/_core.abi3.so)

dars-worker 22171 
\tffffffff8206d3c5 tcp_rearm_rto.part.0 ([kernel.kallsyms])
\t          7c2467 [unknown] (/work/x/python/deepagents_rs/_core.abi3.so)
\t           fe7a7 _PyEval_EvalFrameDefault (/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0)

dars-blocking 22180 
\t           fe7a7 _PyEval_EvalFrameDefault (/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0)

dars-blocking 22181 
\t           1234 validate (/v/lib/python3.11/site-packages/pydantic_core/_pydantic_core.cpython-311-x86_64-linux-gnu.so)

dars-blocking 22182 
\t           9999 malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)

python 22054 
\t          26f2d0 _PyFrame_Clear (/usr/bin/python3.11)

tokio-runtime-w 22300 
\t          7c2467 [unknown] (/work/x/python/deepagents_rs/_core.abi3.so)
"""


def test_samples_are_counted_by_thread_kind_and_python_frames() -> None:
    counts = _bench().thread_samples(SCRIPT)
    assert counts == {
        # The second worker sample has the interpreter deeper in its stack, not at its leaf.
        "tokio worker": {"samples": 2, "python": 1},
        # libpython, then an extension module, then neither.
        "blocking pool": {"samples": 3, "python": 2},
        # A statically linked interpreter is Python too.
        "Python threads": {"samples": 1, "python": 1},
        "other (tokio-runtime-w)": {"samples": 1, "python": 0},
    }


def test_an_empty_recording_counts_nothing() -> None:
    assert _bench().thread_samples("") == {}
