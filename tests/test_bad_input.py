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

One child per place runs every kind there (printing a verdict per kind); a kind the child
crashes or hangs in is reported as such and the rest run in a fresh child. Places run two at a
time. A hypothesis test fuzzes deepagents_rs alone (values must come back exactly as given),
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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from bad_input_cases import ALL_PLACES, kinds_for

TESTS = str(Path(__file__).resolve().parent)

CHILD = (
    f"import sys\nsys.path.insert(0, {TESTS!r})\nimport bad_input_cases\nsys.exit(bad_input_cases.main(sys.argv[1:]))\n"
)

#: A kind runs in well under a second; a child silent this long is hung.
KIND_TIMEOUT = 45.0
#: Startup (importing both implementations) and one kind.
FIRST_LINE_TIMEOUT = 60.0

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


def _run_child(place: str, kinds: list[str]) -> tuple[list[str], int | None, str]:
    """Run ``kinds`` at ``place`` in one child; its stdout lines, return code (``None`` if it hung
    and was killed) and stderr."""
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, place, *kinds],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="backslashreplace",
    ) as proc:
        lines: queue.Queue[str | None] = queue.Queue()
        err_chunks: list[str] = []

        def pump_stdout() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line.rstrip("\n"))
            lines.put(None)

        def pump_stderr() -> None:
            assert proc.stderr is not None
            err_chunks.append(proc.stderr.read())

        readers = [threading.Thread(target=pump_stdout, daemon=True), threading.Thread(target=pump_stderr, daemon=True)]
        for reader in readers:
            reader.start()
        out: list[str] = []
        hung = False
        timeout = FIRST_LINE_TIMEOUT
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                hung = True
                proc.kill()
                break
            if line is None:
                break
            out.append(line)
            timeout = KIND_TIMEOUT
        returncode = proc.wait()
        for reader in readers:
            reader.join(timeout=10)
    return out, (None if hung else returncode), "".join(err_chunks)


def run_place(place: str) -> dict[str, dict[str, Any]]:
    """Every kind's verdict at ``place``: the child's, or one saying how the child died in it."""
    remaining = kinds_for(place)
    verdicts: dict[str, dict[str, Any]] = {}
    while remaining:
        lines, returncode, stderr = _run_child(place, remaining)
        started: str | None = None
        last: str | None = None
        for line in lines:
            if line.startswith("START "):
                started = line[len("START ") :]
            elif line.startswith("RESULT "):
                verdict = json.loads(line[len("RESULT ") :])
                verdicts[verdict["kind"]] = verdict
                last, started = verdict["kind"], None
        died = returncode not in (0, 1)  # None: hung and killed
        if started is None and died and last is None and remaining:
            started = remaining[0]  # died before starting any kind
        if started is not None:
            verdicts[started] = {"ok": False, "problems": [_describe_exit(returncode, stderr)]}
        elif died and last is not None:
            # Every kind got a verdict, then the child died (at exit): blame the last one run.
            verdicts[last] = {**verdicts[last], "ok": False}
            verdicts[last]["problems"] = [*verdicts[last]["problems"], _describe_exit(returncode, stderr)]
        left = [k for k in remaining if k not in verdicts]
        if len(left) == len(remaining):  # no progress: give up rather than loop
            for kind in left:
                verdicts[kind] = {"ok": False, "problems": [_describe_exit(returncode, stderr)]}
            left = []
        remaining = left
    return verdicts


@pytest.fixture(scope="module")
def verdicts(request: pytest.FixtureRequest) -> Iterator[dict[str, dict[str, dict[str, Any]]]]:
    """The verdicts of the places this session runs cases of, run two places at a time."""
    wanted: list[str] = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or item.module is not request.module or "place" not in callspec.params:
            continue
        if callspec.params["place"] not in wanted:
            wanted.append(callspec.params["place"])
    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        yield dict(zip(wanted, pool.map(run_place, wanted), strict=True))


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("place", "kind"), CASES, ids=[f"{p}-{k}" for p, k in CASES])
def test_bad_value(place: str, kind: str, verdicts: dict[str, dict[str, dict[str, Any]]]) -> None:
    verdict = verdicts[place][kind]
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
