"""Bad input never crashes the interpreter, and values come back as deepagents gives them back.

Odd Python values (lone surrogates, datetimes, Decimals, UUIDs, bytes, ints past 64 bits, NaN
and the infinities, sets, tuples, pydantic and arbitrary objects, int-keyed dicts, values nested
thousands deep) are put in messages, model replies, tool arguments and results, input files and
a user middleware's state key; a few bad arguments and configs too. Each runs through
``deepagents`` and ``deepagents_rs`` in a child interpreter (``bad_input_cases``), so a segfault
fails the case instead of killing pytest. deepagents is the oracle: where it keeps a value,
deepagents_rs must keep it, identical and of the same types; where it converts one, convert it
the same way; where it raises, raise the same exception type (or a subclass). deepagents_rs
never lets a bare ``Exception`` escape, and never changes the caller's value.

Two long-lived children take the cases (every kind at every place) from one list as they
finish one (each prints a verdict per case); a case a child crashes or hangs in is reported as
such and the rest run in a fresh child. A hypothesis test fuzzes deepagents_rs alone (values must come back exactly as given),
also in a child of its own.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from bad_input_cases import ALL_PLACES, kinds_for

TESTS = str(Path(__file__).resolve().parent)

CHILD = (
    f"import sys\nsys.path.insert(0, {TESTS!r})\nimport bad_input_cases\nsys.exit(bad_input_cases.main(sys.stdin))\n"
)

#: A case runs in well under a second; a child silent this long is hung.
KIND_TIMEOUT = 45.0
#: Startup (importing both implementations) and one case.
FIRST_LINE_TIMEOUT = 60.0
#: Children running cases at once (each takes cases from one shared list as it finishes one).
CHILDREN = max(1, min(2, os.cpu_count() or 1))

CASES = [(place, kind) for place in ALL_PLACES for kind in kinds_for(place)]


def _describe_exit(returncode: int | None, stderr: str) -> str:
    if returncode is None:
        how = "hung (killed after no output for a while)"
    elif returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        how = f"CRASHED the interpreter ({name}, return code {returncode})"
    else:
        how = f"exited with code {returncode} without a verdict"
    tail = "\n".join(stderr.strip().splitlines()[-25:])
    return f"the child {how}; stderr tail:\n{tail}"


class _Child:
    """One child interpreter, sent cases one at a time; its stdout and stderr read by threads so
    a hang is seen by a timeout, not by a blocked read."""

    def __init__(self, code: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="backslashreplace",
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.err_chunks: list[str] = []
        self.started_any = False  # has it printed a line yet (its start is behind it)
        self.hung = False
        self.readers = [
            threading.Thread(target=self._pump_stdout, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for reader in self.readers:
            reader.start()

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.err_chunks.append(self.proc.stderr.read())

    def run(self, place: str, kind: str) -> dict[str, Any] | None:
        """The case's verdict; ``None`` if the child died or hung in it (it is then dead)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(f"{place} {kind}\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return None
        while True:
            try:
                line = self.lines.get(timeout=KIND_TIMEOUT if self.started_any else FIRST_LINE_TIMEOUT)
            except queue.Empty:
                self.hung = True
                self.proc.kill()
                return None
            if line is None:
                return None
            self.started_any = True
            if line.startswith("RESULT "):
                return json.loads(line[len("RESULT ") :])

    def close(self) -> tuple[int | None, str]:
        """Stop sending cases and wait for the exit; the return code (``None`` if it hung and
        was killed) and the stderr."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()  # the child's end of its input: it exits
        except BrokenPipeError:  # it is dead already (the buffer could not be written)
            pass
        try:
            returncode = self.proc.wait(timeout=KIND_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.hung = True
            self.proc.kill()
            returncode = self.proc.wait()
        for reader in self.readers:
            reader.join(timeout=10)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        return (None if self.hung else returncode), "".join(self.err_chunks)


def _run_cases(
    todo: queue.SimpleQueue[tuple[str, str]], verdicts: dict[tuple[str, str], dict[str, Any]], code: str = CHILD
) -> None:
    """Take cases from ``todo`` until it is empty and run them in one child (``python -c code``);
    after a crash or a hang (that case's failure) the rest run in a fresh child."""
    child: _Child | None = None
    last: tuple[str, str] | None = None  # the last case the current child finished
    while True:
        try:
            case = todo.get_nowait()
        except queue.Empty:
            break
        if child is None:
            child, last = _Child(code), None
        verdict = child.run(*case)
        if verdict is not None:
            verdicts[case], last = verdict, case
            continue
        started = child.started_any
        problem = _describe_exit(*child.close())
        verdicts[case] = {"ok": False, "problems": [problem]}
        child = None
        if not started:
            # It died before running anything: a fresh one would too; fail the rest rather than loop.
            while True:
                try:
                    verdicts[todo.get_nowait()] = {"ok": False, "problems": [problem]}
                except queue.Empty:
                    break
    if child is not None:
        returncode, stderr = child.close()
        if returncode != 0 and last is not None:
            # Every case got a verdict, then the child died (at exit): blame the last one run.
            verdicts[last] = {**verdicts[last], "ok": False}
            verdicts[last]["problems"] = [*verdicts[last]["problems"], _describe_exit(returncode, stderr)]


@pytest.fixture(scope="module")
def verdicts(request: pytest.FixtureRequest) -> dict[tuple[str, str], dict[str, Any]]:
    """The verdicts of the cases this session runs, from ``CHILDREN`` children at a time."""
    todo: queue.SimpleQueue[tuple[str, str]] = queue.SimpleQueue()
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or item.module is not request.module or "place" not in callspec.params:
            continue
        todo.put((callspec.params["place"], callspec.params["kind"]))
    found: dict[tuple[str, str], dict[str, Any]] = {}
    with ThreadPoolExecutor(max_workers=CHILDREN) as pool:
        for done in [pool.submit(_run_cases, todo, found) for _ in range(CHILDREN)]:
            done.result()
    return found


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("place", "kind"), CASES, ids=[f"{p}-{k}" for p, k in CASES])
def test_bad_value(place: str, kind: str, verdicts: dict[tuple[str, str], dict[str, Any]]) -> None:
    verdict = verdicts[place, kind]
    if not verdict["ok"]:
        seen = ""
        if "deepagents" in verdict:
            seen = f"deepagents: {verdict['deepagents']}; deepagents_rs: {verdict['deepagents_rs']}\n"
        pytest.fail(f"{place}/{kind}: {seen}" + "\n".join(verdict["problems"]), pytrace=False)


FUZZ_CHILD = (
    "import sys\n"
    f"sys.path.insert(0, {TESTS!r})\n"
    "import bad_input_fuzz\n"
    "sys.exit(bad_input_fuzz.fuzz_main('deepagents_rs', max_examples=60))\n"
)


@pytest.mark.timeout(300)
def test_fuzz_values_come_back_as_given() -> None:
    """Generated nested values in six places of one deepagents_rs run all come back exactly."""
    pytest.importorskip("hypothesis")
    try:
        proc = subprocess.run(
            [sys.executable, "-c", FUZZ_CHILD],
            check=False,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="backslashreplace",
            timeout=240,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the fuzzing child hung: {exc}", pytrace=False)
    if proc.returncode < 0:
        pytest.fail(_describe_exit(proc.returncode, proc.stderr), pytrace=False)
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-60:])
    assert proc.returncode == 0, f"fuzzing found a value deepagents_rs does not give back as given:\n{tail}"


#: A stand-in for the cases' child speaking the same protocol, for the parent's handling of
#: crashes and hangs: kind ``crash`` aborts, ``hang`` sleeps, ``crash_at_exit`` gives a verdict
#: and aborts at exit; any other kind's verdict carries the child's pid.
FAKE_CHILD = """
import atexit, json, os, sys, time
for line in sys.stdin:
    place, kind = line.split()
    print(f"START {place} {kind}", flush=True)
    if kind == "crash":
        os.abort()
    if kind == "hang":
        time.sleep(60)
    if kind == "crash_at_exit":
        atexit.register(os.abort)
    print("RESULT " + json.dumps({"ok": True, "problems": [], "pid": os.getpid()}), flush=True)
"""


def _fake_verdicts(kinds: list[str], code: str = FAKE_CHILD) -> dict[str, dict[str, Any]]:
    todo: queue.SimpleQueue[tuple[str, str]] = queue.SimpleQueue()
    for kind in kinds:
        todo.put(("place", kind))
    found: dict[tuple[str, str], dict[str, Any]] = {}
    _run_cases(todo, found, code)
    return {kind: verdict for (_, kind), verdict in found.items()}


def test_a_crash_fails_its_case_and_the_next_runs_in_a_fresh_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "KIND_TIMEOUT", 3.0)
    got = _fake_verdicts(["a", "b", "crash", "c", "hang", "d", "crash_at_exit"])
    assert list(got) == ["a", "b", "crash", "c", "hang", "d", "crash_at_exit"]
    assert got["a"]["ok"] and got["b"]["ok"] and got["c"]["ok"] and got["d"]["ok"]
    assert got["a"]["pid"] == got["b"]["pid"], "cases share a child until one crashes"
    assert not got["crash"]["ok"]
    assert "CRASHED the interpreter (SIGABRT" in got["crash"]["problems"][0]
    assert got["c"]["pid"] != got["a"]["pid"]
    assert not got["hang"]["ok"]
    assert "hung" in got["hang"]["problems"][0]
    assert got["d"]["pid"] not in (got["a"]["pid"], got["c"]["pid"])
    # Its verdict came, then the child crashed at exit: the last case run takes the blame.
    assert not got["crash_at_exit"]["ok"]
    assert "CRASHED the interpreter (SIGABRT" in got["crash_at_exit"]["problems"][-1]


def test_a_child_that_cannot_start_fails_every_case_once() -> None:
    got = _fake_verdicts(["a", "b", "c"], code="raise SystemExit('no start')")
    assert [v["ok"] for v in got.values()] == [False, False, False]
    assert all("exited with code 1 without a verdict" in v["problems"][0] for v in got.values())
    assert "no start" in got["a"]["problems"][0]
