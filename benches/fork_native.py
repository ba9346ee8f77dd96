"""The fork start with a provider the harness speaks itself: ``model="anthropic:claude-sonnet-4-5"``
on both sides (deepagents_rs' Rust client; deepagents' ``ChatAnthropic``) over the simulated
Anthropic API (``tests/sim/anthropic.py``) **in a process of its own**, so the window counts
the client's work and nothing of the server's.

The same conversation as ``fork.py``'s cost scenario (the parent delegates to a fork at once,
the fork answers, the parent answers). **Fork start** = from the server starting to write the
parent's ``task`` reply to the fork's request read whole (its last body byte received): the
client is idle waiting for the reply at the first stamp and has sent its whole request at the
second. The window holds everything the client does between the two: reading and parsing the
reply, dispatching the call, building the fork, its pre-model work and its whole request
(encoded and sent, the kernel's loopback send included). With a scripted LangChain model
(``fork.py``), LangChain's own ``invoke`` is part of the window on both sides; here neither
side's window holds anything it does not own.

Both stamps are the server's, on clocks both processes read alike: ``CLOCK_MONOTONIC`` for
the wall time and **the client process' CPU clock** (``CLOCK_PROCESS_CPUTIME_ID`` of the
client, which Linux lets another process read through the clock id ``clock_getcpuclockid``
gives), read at the very instants, exact to the nanosecond and counting every thread of the
client and nothing else. The server sends them back over its control channel (its stdin and
stdout, one JSON line a command). Linux accounts user and system time apart only by 4 ms
ticks, far coarser than a window, so the row gives the total; ``fork_window_perf.py`` splits
it by sampling.

Beside it, the **floor**: the client's CPU for a raw loopback send of as many bytes as its
fork request had (one ``sendall`` on a kept connection to the server's sink, from the client's
CPU clock before it to the server having read the last byte): what the kernel's send of the
request costs at least, shown, not subtracted.

The parent's ``task`` reply comes after ``REPLY_LATENCY_S`` (a model's time to answer; the
window starts once it has passed). The client sleeps while it waits, and the longer it sleeps
the colder it wakes (its caches, and the core it runs on, taken by other work): with no
latency the wait is the simulator's own reading of the parent's request, ~1 ms at 10 messages
and ~10 ms at 10,000, so the same fork start cost about twice the CPU at 10,000 for the wait
alone. A real API answers after hundreds of milliseconds at every N, so every N's window
starts cold, as here; ``--reply-latency-ms 0`` in ``fork.py`` measures the old way.

Messages are shorter than ``fork.py``'s (``WIDTH`` characters): at 10,000 messages both sides
stay under the model's summarization trigger (85% of 200,000 tokens), so the script holds.

Run alone: ``python benches/fork.py --scenario native``.
"""

from __future__ import annotations

import functools
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from fork import (
    FINAL_TEXT,
    FORK_ANSWER,
    MODEL_STRING,
    PREAMBLE,
    TASK_TEXT,
    BenchError,
    CostResult,
    CostRun,
    fork_spec,
    history,
    measure_sizes,
    task_args,
    text_of,
)
from tool_loop import point_env_at

#: Characters per history message: 10,000 of them are about 100,000 tokens by either side's
#: count, far under the trigger (at 40 deepagents already summarizes before the parent's first call).
WIDTH = 20
#: Raw sends measured per request size for the floor (the median is shown).
FLOOR_SENDS = 9
#: Seconds the simulator waits before the parent's ``task`` reply (the window's start), at
#: every N alike: the same sleep before each window (see the module's docstring). Far under a
#: real model's time to answer; from about 20 ms on the window's CPU no longer moves with it.
REPLY_LATENCY_S = 0.05


def cpu_clock_of(pid: int) -> int:
    """The clock id of process ``pid``'s CPU time, as glibc's ``clock_getcpuclockid`` makes it
    (Python does not wrap that call): the pid inverted, shifted past the 3 type bits, type 2
    (CPUCLOCK_SCHED, the scheduler's exact runtime of every thread of the process)."""
    return ((~pid) << 3) | 2


#: How long the server waits for the client's threads to fall asleep before reading its clock.
SETTLE_S = 0.5


class ClientClock:
    """The client process' CPU clock, read from the server once every client thread is
    asleep. Another process' reading of it is up to date only then: a thread running on a
    core adds its time since it was last accounted (a tick, a switch) only when it stops, so
    a thread still running past the request's last byte would be missed in part. At both
    stamps the client is about to wait for the server (its reply, or the fork's answer),
    so it falls asleep within microseconds; what it does until then is counted."""

    def __init__(self, pid: int) -> None:
        self.clock = cpu_clock_of(pid)
        self.tasks = f"/proc/{pid}/task"
        #: Readings where a thread was still running at the deadline (the run fails).
        self.unsettled = 0

    def _running(self) -> bool:
        for tid in os.listdir(self.tasks):
            try:
                with open(f"{self.tasks}/{tid}/stat", "rb") as f:
                    # The state follows the command's closing parenthesis.
                    if f.read().rpartition(b")")[2][1:2] == b"R":
                        return True
            except FileNotFoundError:
                continue
        return False

    def settled(self) -> float:
        deadline = time.monotonic() + SETTLE_S
        while self._running():
            if time.monotonic() > deadline:
                self.unsettled += 1
                break
            time.sleep(0)
        return time.clock_gettime(self.clock)


# --------------------------------------------------------------------------- the server process


def stamped_sim(client_pid: int) -> Any:
    """A SimAnthropic that stamps (monotonic, the client's process CPU) of each request when
    it starts sending the answer (the client waits, idle) and when it has read the body whole."""
    from sim.anthropic import SimAnthropic

    client_cpu = ClientClock(client_pid)

    def stamp() -> tuple[float, float]:
        # The wall time when the event happened; the CPU once the client has settled.
        return time.clock_gettime(time.CLOCK_MONOTONIC), client_cpu.settled()

    class StampedSim(SimAnthropic):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            # Keyed by the request's raw body: `_read` runs before the request is logged.
            self.read_at: list[tuple[float, float]] = []
            self.reply_at: dict[int, tuple[float, float]] = {}

        def reset(self) -> None:
            super().reset()
            self.read_at, self.reply_at = [], {}

        def _read(self, h: Any) -> Any:
            out = super()._read(h)
            # One request at a time on this script, so arrival order is the log's order.
            self.read_at.append(stamp())
            return out

        def _send_json(self, h: Any, status: int, body: Any, headers: Any, rec: Any, started: float) -> None:
            self.reply_at[rec.seq] = stamp()
            super()._send_json(h, status, body, headers, rec, started)

        def _send_frames(self, h: Any, rec: Any, started: float, *args: Any, **kwargs: Any) -> None:
            self.reply_at[rec.seq] = stamp()
            super()._send_frames(h, rec, started, *args, **kwargs)

    return StampedSim(min_cache_tokens=1024, merge_consecutive_roles=True), client_cpu


def sink(listener: socket.socket, client_cpu: ClientClock) -> None:
    """The floor's far end: each message is an 8-byte length and that many bytes; once the
    last is read, the client's CPU clock goes back as 8 bytes."""
    while True:
        conn, _ = listener.accept()
        with conn:
            buf = bytearray(1 << 20)
            view = memoryview(buf)
            while True:
                head = conn.recv(8, socket.MSG_WAITALL)
                if len(head) < 8:
                    break
                left = struct.unpack("!Q", head)[0]
                while left:
                    got = conn.recv_into(view, min(left, len(buf)))
                    if not got:
                        return
                    left -= got
                conn.sendall(struct.pack("!d", client_cpu.settled()))


def serve(client_pid: int, latency_s: float) -> None:
    """The server process: SimAnthropic, the sink, and commands on stdin (one JSON line
    each, one JSON line answered on stdout). The parent's ``task`` reply waits ``latency_s``."""
    from sim.anthropic import Reply, text, tool_use

    sim, client_cpu = stamped_sim(client_pid)
    listener = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=sink, args=(listener, client_cpu), daemon=True).start()
    out = sys.stdout
    print(json.dumps({"base_url": sim.base_url, "sink": listener.getsockname()[1]}), file=out, flush=True)
    for line in sys.stdin:
        op = json.loads(line)["op"]
        if op == "script":
            sim.reset()
            task_reply = Reply(body=tool_use(("task", task_args())), delay=latency_s)
            sim.script(task_reply, text(FORK_ANSWER), text(FINAL_TEXT))
            answer: dict[str, Any] = {}
        elif op == "report":
            deadline = time.monotonic() + 5
            while len(sim.reply_at) < len(sim.requests) and time.monotonic() < deadline:
                time.sleep(0.001)
            answer = {**report_of(sim), "unsettled": client_cpu.unsettled}
        else:
            answer = {"error": f"unknown op {op!r}"}
        print(json.dumps(answer), file=out, flush=True)
    sim.close()


def report_of(sim: Any) -> dict[str, Any]:
    """What the client checks and times, small enough for a line: not the bodies."""
    fork = sim.requests[1].body["messages"] if len(sim.requests) > 1 else [{"role": "", "content": ""}]
    last = fork[-1]["content"]
    return {
        "statuses": [[r.seq, r.status, r.status != 200 and r.response] for r in sim.requests],
        "pending": sim.pending,
        "fork_messages": len(fork),
        "fork_last_role": fork[-1]["role"],
        "fork_last_text": text_of(last) if isinstance(last, list) else last,
        "sizes": [len(r.raw) for r in sim.requests],
        "read_at": sim.read_at,
        "reply_at": [sim.reply_at.get(r.seq) for r in sim.requests],
    }


# --------------------------------------------------------------------------- the client side


class RemoteSim:
    """The client's handle on the server process: its URL, its commands and the floor."""

    def __init__(self, latency_s: float = REPLY_LATENCY_S) -> None:
        tests = str(Path(__file__).resolve().parent.parent / "tests")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "serve", str(os.getpid()), repr(latency_s)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        self.latency_s = latency_s
        hello = self._answer()
        self.base_url: str = hello["base_url"]
        self.sink = socket.create_connection(("127.0.0.1", hello["sink"]))
        self.sink.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.floors: dict[int, float] = {}

    def _answer(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise BenchError(f"the simulator process ended (status {self.proc.wait()})")
        return json.loads(line)

    def command(self, op: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"op": op}) + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def floor(self, size: int) -> float:
        """The client's CPU seconds for a raw loopback send of ``size`` bytes (median)."""
        if size not in self.floors:
            payload = bytes(size)
            runs = []
            for _ in range(FLOOR_SENDS + 1):  # the first one warms the connection
                before = time.process_time()
                self.sink.sendall(struct.pack("!Q", size) + payload)
                runs.append(struct.unpack("!d", self.sink.recv(8, socket.MSG_WAITALL))[0] - before)
            self.floors[size] = statistics.median(runs[1:])
        return self.floors[size]

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sink.close()
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class NativeRun(CostRun):
    #: The fork's request, in bytes (its body), and the floor for sending as many.
    request_bytes: int = 0
    floor_cpu_s: float = 0.0
    #: The window's two stamps on CLOCK_MONOTONIC (for cutting a profile).
    window: tuple[float, float] = (0.0, 0.0)
    #: The simulator's wait before the parent's task reply (the sleep before the window).
    latency_s: float = 0.0


def native_history(n: int) -> list[dict[str, str]]:
    """``fork.py``'s history with a user message first, as the API asks (with an even N the
    first two are then both the user's, which the API merges)."""
    msgs = history(n, WIDTH)
    msgs[0]["role"] = "user"
    return msgs


def check_run(impl: str, report: dict[str, Any], out: dict[str, Any], n: int) -> int:
    """Fail loudly unless the parent delegated, the fork's first request carried the whole
    history and the task, and the parent got the fork's answer."""
    statuses = report["statuses"]
    bad = [s for s in statuses if s[1] != 200]
    if bad:
        raise BenchError(f"{impl}: the simulator answered non-200: {bad[:2]}")
    if len(statuses) != 3 or report["pending"] or None in report["reply_at"] or len(report["read_at"]) != 3:
        raise BenchError(f"{impl}: {len(statuses)} requests, {report['pending']} replies unused; expected 3 and 0")
    if report["unsettled"]:
        raise BenchError(f"{impl}: a client thread still ran {SETTLE_S} s after a stamp; its CPU reading is stale")
    last = report["fork_last_text"]
    if report["fork_last_role"] != "user" or PREAMBLE not in last or TASK_TEXT not in last:
        raise BenchError(f"{impl}: request 1 is not the fork's first request: {last[:120]}")
    # Consecutive user messages (the first two, the last and the task) may be merged.
    if report["fork_messages"] < n - 1:
        raise BenchError(f"{impl}: the fork's first request holds {report['fork_messages']} messages for {n}")
    msgs = out["messages"]
    if len(msgs) != n + 3 or msgs[-2].content != FORK_ANSWER or msgs[-1].content != FINAL_TEXT:
        raise BenchError(f"{impl}: {len(msgs)} messages out, ending {msgs[-1].content!r}")
    return len(msgs)


def run_once(impl: str, agent: Any, sim: RemoteSim, n: int) -> NativeRun:
    sim.command("script")
    t0 = time.perf_counter()
    out = agent.invoke({"messages": native_history(n)})
    wall = time.perf_counter() - t0
    report = sim.command("report")
    messages = check_run(impl, report, out, n)
    answered, answered_cpu = report["reply_at"][0]
    arrived, arrived_cpu = report["read_at"][1]
    cpu = arrived_cpu - answered_cpu
    size = report["sizes"][1]
    return NativeRun(
        arrived - answered, wall, messages, fork_cpu_s=cpu, harness_cpu_s=cpu,
        request_bytes=size, floor_cpu_s=sim.floor(size), window=(answered, arrived), latency_s=sim.latency_s,
    )  # fmt: skip


def scenario_native(
    sizes: list[int], repeat: int, latency_s: float = REPLY_LATENCY_S
) -> tuple[list[CostResult], list[str]]:
    import deepagents
    import deepagents_rs

    with RemoteSim(latency_s) as sim:
        point_env_at(sim)
        runners = {
            impl: functools.partial(
                run_once, impl, module.create_deep_agent(model=MODEL_STRING, subagents=[fork_spec()]), sim
            )
            for impl, module in (("deepagents_rs", deepagents_rs), ("deepagents", deepagents))
        }
        return measure_sizes(sizes, repeat, runners)


def report_native(results: list[CostResult], notes: list[str]) -> bool:
    print(
        f"\n== 3. fork start with {MODEL_STRING} on both sides (simulated API in its own process, {WIDTH}-char messages)"
    )
    print("   from the server starting to write the parent's task reply to the fork's request read whole;")
    print(
        "   cpu: the client process' CPU over it; floor: the client's CPU for a raw loopback send of the request's bytes"
    )
    head = (
        f"{'N':>6} {'rs ms':>8} {'ref ms':>8} {'ratio':>7} {'rs cpu ms':>10} {'ref cpu ms':>11} {'cpu ratio':>10} "
        f"{'rs KB':>8} {'rs floor ms':>12} {'ref KB':>8} {'ref floor ms':>13}"
    )
    print(head)
    print("-" * len(head))
    by = {(r.impl, r.n): r for r in results}
    sizes = sorted({r.n for r in results})
    ok = True
    for n in sizes:
        rs, ref = by.get(("deepagents_rs", n)), by.get(("deepagents", n))
        ok &= rs is not None and ref is not None
        if rs is None or ref is None:
            print(f"{n:>6} {'FAILED':>8}")
            continue
        wall = [r.median(lambda x: x.fork_s) * 1e3 for r in (rs, ref)]
        cpu = [r.median(lambda x: x.fork_cpu_s) * 1e3 for r in (rs, ref)]
        kb = [r.median(lambda x: x.request_bytes) / 1e3 for r in (rs, ref)]
        floor = [r.median(lambda x: x.floor_cpu_s) * 1e3 for r in (rs, ref)]
        print(
            f"{n:>6} {wall[0]:>8.2f} {wall[1]:>8.2f} {wall[1] / wall[0]:>7.1f} "
            f"{cpu[0]:>10.2f} {cpu[1]:>11.2f} {cpu[1] / cpu[0]:>10.1f} "
            f"{kb[0]:>8.1f} {floor[0]:>12.3f} {kb[1]:>8.1f} {floor[1]:>13.3f}"
        )
    for impl in ("deepagents_rs", "deepagents"):
        low, high = by.get((impl, sizes[0])), by.get((impl, sizes[-1]))
        if low and high and len(sizes) > 1:
            wall, cpu = (high.median(k) / low.median(k) for k in (lambda x: x.fork_s, lambda x: x.fork_cpu_s))
            print(f"   {impl} growth N={sizes[-1]} vs N={sizes[0]}: {wall:.2f}x (wall), {cpu:.2f}x (cpu)")
    latencies = sorted({run.latency_s for r in results for run in r.runs if isinstance(run, NativeRun)})
    notes.append("every run checked: 3 requests, all 200, the fork's ends with the preamble and the task, N+3 out")
    notes.append(f"the parent's task reply came {', '.join(f'{s * 1e3:g}' for s in latencies)} ms after its request")
    for note in notes:
        print(f"  {note}")
    return ok


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "serve":
        serve(int(sys.argv[2]), float(sys.argv[3]))
    else:
        sys.exit(__doc__)
