"""``tests/sim``'s simulated Anthropic API (``SimAnthropic``: every request checked, the prompt
cache simulated) in a process of its own, driven from the bench's process through a pipe.

In the bench's own interpreter the simulator competes with the harness it serves: at a long
history it is the busiest thread of the process (parsing, checking and cache-accounting each
2,000-message request in Python: about 90 ms of CPU per model turn at 2,000 messages against
the harness's 2-4 ms), so it holds the GIL most of the time, the harness's threads wait for it
and run on caches it has just used. Its CPU can be subtracted, that interference cannot: the
history's cost measured in-process is partly the simulator's. Here it has its own interpreter,
as a real API is elsewhere (issue 24: the simulated API in its own process).

`SimProcess` has what the benches read of a ``SimAnthropic``: ``base_url``, ``reset()``,
``script(*replies)``, ``requests`` (each with its ``seq`` and ``status``), ``pending``,
``handler_seconds`` and ``cpu_seconds`` (the child's, not in this process's CPU time:
``shares_process`` is ``False``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple, Self

TESTS = Path(__file__).resolve().parent.parent / "tests"


class Request(NamedTuple):
    """One request the simulator answered, as far as the benches check it."""

    seq: int
    status: int


def _serve(kwargs: dict[str, Any]) -> None:
    """The child: the simulator, answering the parent's calls (one JSON line each on stdin,
    one answer line on stdout) until stdin closes."""
    sys.path.insert(0, str(TESTS))
    from sim.anthropic import SimAnthropic

    def answer(value: Any) -> None:
        sys.stdout.write(json.dumps(value) + "\n")
        sys.stdout.flush()

    with SimAnthropic(**kwargs) as sim:
        answer(sim.base_url)
        for line in sys.stdin:
            name, args = json.loads(line)
            if name == "reset":
                sim.reset()
                answer(None)
            elif name == "script":
                sim.script(*args)
                answer(None)
            elif name == "requests":
                answer([(r.seq, r.status) for r in sim.requests])
            else:
                # One property's value: the request list is not re-sent for each number read.
                answer(getattr(sim, name))


class SimProcess:
    """A ``SimAnthropic(**kwargs)`` in a child process (see the module's doc); the scripted
    replies cross as JSON (``sim.anthropic``'s ``text`` and ``tool_use`` make plain dicts)."""

    #: Its CPU is the child's: a bench subtracts nothing of it from its own process's.
    shares_process = False

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.base_url = ""

    def __enter__(self) -> Self:
        self._process = subprocess.Popen(
            [sys.executable, __file__, json.dumps(self.kwargs)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.base_url = self._read()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()

    def _read(self) -> Any:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the simulator's process ended (status {self._process.poll()})")
        return json.loads(line)

    def _call(self, name: str, *args: Any) -> Any:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps([name, args]) + "\n")
        self._process.stdin.flush()
        return self._read()

    def reset(self) -> None:
        self._call("reset")

    def script(self, *replies: Any) -> None:
        self._call("script", *replies)

    @property
    def requests(self) -> list[Request]:
        return [Request(*r) for r in self._call("requests")]

    @property
    def pending(self) -> int:
        return self._call("pending")

    @property
    def handler_seconds(self) -> float:
        return self._call("handler_seconds")

    @property
    def cpu_seconds(self) -> float:
        return self._call("cpu_seconds")


if __name__ == "__main__":
    _serve(json.loads(sys.argv[1]))
