"""Agents created in two threads at once, the first agents of the process: the core reads
Python's ``mimetypes`` table once, at the first creation, and a second thread arriving
meanwhile waits for it without holding the interpreter (it once held the GIL while waiting,
and ``mimetypes.init``, which releases the GIL to read files, never got it back).

Run in a fresh interpreter (the table is read once per process); ``mimetypes.init`` is made
to let the second creation start and to give it time to reach the wait before going on."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import mimetypes, threading, time, sys
    sys.path.insert(0, {tests!r})
    import deepagents_rs
    from fake_models import ScriptedChatModel

    second_may_start = threading.Event()
    init = mimetypes.init

    def slow_init(*args, **kwargs):
        second_may_start.set()
        time.sleep(0.5)  # widens the window for the second thread; nothing is timed
        return init(*args, **kwargs)

    mimetypes.inited = False
    mimetypes.init = slow_init
    made = []

    def create(wait):
        if wait:
            second_may_start.wait(30)
        made.append(deepagents_rs.create_deep_agent(model=ScriptedChatModel(["hi"])))

    threads = [threading.Thread(target=create, args=(w,)) for w in (False, True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(len(made))
    """
)


def test_agents_created_in_two_threads_at_once_do_not_deadlock() -> None:
    tests = str(Path(__file__).resolve().parent)
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(tests=tests)], check=False, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2"
