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


def test_thread_schedules_are_differenced_and_summed_by_kind() -> None:
    before = {
        1: ("dars-python", 1_000_000_000, 500_000_000, 10, 4),
        2: ("dars-worker", 2_000_000_000, 0, 100, 7),
        3: ("dars-worker", 0, 0, 0, 0),
        # Ended before the second read: left out.
        9: ("dars-python", 5_000_000_000, 0, 1, 1),
    }
    after = {
        1: ("dars-python", 1_250_000_000, 2_500_000_000, 30, 54),
        2: ("dars-worker", 3_000_000_000, 1_000_000_000, 300, 17),
        3: ("dars-worker", 500_000_000, 0, 50, 3),
        # Born meanwhile: counted from zero.
        4: ("python", 100_000_000, 200_000_000, 2, 1),
    }
    assert _bench().sched_by_kind(before, after) == {
        "core's Python calls": {"threads": 1, "cpu_s": 0.25, "wait_s": 2.0, "asleep": 20, "preempted": 50},
        "tokio worker": {"threads": 2, "cpu_s": 1.5, "wait_s": 1.0, "asleep": 250, "preempted": 13},
        "Python threads": {"threads": 1, "cpu_s": 0.1, "wait_s": 0.2, "asleep": 2, "preempted": 1},
    }


def test_this_process_threads_are_read_from_proc() -> None:
    import threading
    import time

    bench = _bench()
    before = bench.thread_sched()
    if not before:
        return  # no /proc schedstat here: the bench reports nothing either
    end = time.thread_time() + 0.05
    while time.thread_time() < end:
        pass
    after = bench.thread_sched()
    me = threading.get_native_id()
    assert me in before and me in after
    # This thread's CPU time, by the scheduler's count, grew by what it spent above.
    assert after[me][1] - before[me][1] >= 40_000_000
