"""Per-step harness time of a checkpointed tool loop: deepagents_rs vs deepagents 0.7.32.

One agent runs ``--steps`` model turns, each calling a trivial user tool ``echo``, then a
final answer, on a thread (``thread_id``) of a LangGraph saver, with both implementations in
this process, in two scenarios:

* ``scripted``: both driven by the same scripted LangChain chat model (no HTTP);
* ``native``: ``model="anthropic:claude-sonnet-4-5"`` for both (deepagents_rs' Rust client;
  deepagents' langchain-anthropic ``ChatAnthropic``) against one simulated Anthropic server
  on loopback (``tests/sim/anthropic.py``) running in a process of its own
  (``sim_process.py``), the time the server spent in its request handler subtracted, as
  ``tool_loop.py``'s scenario A does;

and three savers:

* ``none``: no checkpointer (the baseline: what checkpointing adds is the difference);
* ``memory``: ``InMemorySaver()``;
* ``sqlite``: ``SqliteSaver`` on a file in a temporary directory (WAL, as LangGraph sets it);
* ``sqlite-shm`` (not run unless asked): the same on ``/dev/shm`` (tmpfs), where a commit's
  ``fsync`` costs nothing: the step's cost without the disk's, which neither implementation
  controls.

The harness time of ``agent.invoke(...)`` is measured (building the agent and the saver is
not), once as a warm-up and then ``--repeat`` times, each on a fresh saver, the two
implementations taking turns (both see the machine's load as it drifts); the median is
reported as per-step milliseconds (total / steps), with the ratio deepagents /
deepagents_rs. Each run is checked: every scripted reply used, ``2 * steps + 2`` messages
(plus the history), and with a saver, the thread's state read back holds them all.

``--history N`` (0 by default) gives the thread ``N`` earlier messages first (user and
assistant turns of about 100 characters, and one answered turn, untimed): the timed run then
continues a thread the saver loads. Without a saver the history is the run's input instead.

``saver floor`` is the time the saver itself takes to store one run's checkpoints: the
``put`` and ``put_writes`` calls of a deepagents run (recorded on an ``InMemorySaver``; the
two implementations make the same calls) replayed one after another on a fresh saver.
``SqliteSaver`` commits each call (an fsync of the WAL), so its floor follows the disk; both
implementations wait for the saver at the end of a run, so ``deepagents / floor`` is the
best ratio any harness could show with these writes on this disk (printed as ``bound``).

``bytes/step`` (SQLite savers): the checkpoint and write rows' blob bytes the timed run added
to the saver's file, per step, for each implementation: what the writes cost on disk, and
whether they grow with ``--history`` (the delta channels' snapshots, every 50 updates, hold
the whole value: LangGraph's format, the same for both). ``saver ms`` (SQLite savers): the
wall time the saver spent in its ``put`` / ``put_writes`` during the timed run (on LangGraph's
background thread), per step: its serializing, SQL and commits, which a run waits for at its
end, so a step costs at least that much.

``cpu`` (``rs cpu``, ``da cpu``, ``cpu ratio``): the harness's own work per step, without
the saver's: the process's CPU time during the run (``time.process_time``: every thread,
the core's and LangGraph's background executor's included) less the CPU time the saver's
``put`` / ``put_writes`` calls took (each measured on its own thread); in ``native`` the
simulated server runs in its own process, so its CPU is in neither number. A disk wait (a commit's fsync) blocks without
running, so it is in neither side's number; the saver's own serializing and SQL are left out
of both. Fair as a comparison because both sides hand the same saver the same calls: their
counts are printed under each table (``saver calls per run``) and must match.

Before each timed run the process's garbage is collected (``gc.collect()``): otherwise the
full collection that the runs before it made due (the other implementation's among them)
lands in whichever timed run happens to cross the threshold, adding that collection's walk
of the whole process (tens of milliseconds, both packages loaded) to its time. Each run's
own allocations still trigger the collections they cause within it.

Usage::

    python benches/threads.py [--steps 50] [--repeat 3] [--savers none,memory,sqlite]
                              [--scenarios scripted,native] [--history 0]

``deepagents_rs`` is imported from whatever environment runs the script. This is a benchmark
script, not a test; it never touches the network.
"""

from __future__ import annotations

import argparse
import copy
import functools
import gc
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool_loop import MODEL_STRING, NO_CACHE_TOKENS, BenchError, build_info, echo, point_env_at

SAVERS = ("none", "memory", "sqlite")
#: Saver kinds that may be asked for by name (``--savers``).
KINDS = (*SAVERS, "sqlite-shm")
SCENARIOS = ("scripted", "native")
THREAD = {"configurable": {"thread_id": "bench"}}
PROMPT = "Call echo once per step."


class Savers:
    """Fresh savers, the SQLite ones each on a new file of one temporary directory."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.made = 0

    def make(self, kind: str) -> Any:
        if kind == "none":
            return None
        if kind == "memory":
            from langgraph.checkpoint.memory import InMemorySaver

            return InMemorySaver()
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.made += 1
        folder = self.tmp if kind == "sqlite" else self.shm()
        return SqliteSaver(sqlite3.connect(folder / f"run{self.made}.sqlite", check_same_thread=False))

    def shm(self) -> Path:
        """A temporary directory on ``/dev/shm`` (tmpfs), inside ``self.tmp``'s lifetime."""
        if getattr(self, "_shm", None) is None:
            self._shm = tempfile.TemporaryDirectory(dir="/dev/shm")
        return Path(self._shm.name)

    def close(self) -> None:
        if getattr(self, "_shm", None) is not None:
            self._shm.cleanup()
            self._shm = None


class SaverClock:
    """The wall time during which a saver is in its ``put`` / ``put_writes`` while installed
    (on whatever threads LangGraph calls them; overlapping calls, which a ``SqliteSaver``'s
    lock serializes, count once), the CPU time those calls take (each call's thread's), and
    how many there were, wrapped on the instance: the saver's own share of a run."""

    def __init__(self, saver: Any) -> None:
        self.saver = saver
        self.seconds = 0.0
        self.cpu = 0.0
        self.calls = {"put": 0, "put_writes": 0}
        self.lock = threading.Lock()
        self.active = 0
        self.since = 0.0
        for name in ("put", "put_writes"):
            setattr(saver, name, self._timed(name, getattr(saver, name)))

    def _timed(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        # With the method's signature: LangGraph reads it (a ``put_writes`` taking
        # ``task_path`` is given the task's path, as the savers' own are).
        @functools.wraps(method)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                if not self.active:
                    self.since = time.perf_counter()
                self.active += 1
                self.calls[name] += 1
            cpu = time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                cpu = time.thread_time() - cpu
                with self.lock:
                    self.cpu += cpu
                    self.active -= 1
                    if not self.active:
                        self.seconds += time.perf_counter() - self.since

        return timed

    def remove(self) -> None:
        for name in ("put", "put_writes"):
            vars(self.saver).pop(name, None)


def stored_bytes(saver: Any) -> int | None:
    """The blob bytes a ``SqliteSaver``'s checkpoint and write rows hold (``None`` for
    another saver)."""
    conn = getattr(saver, "conn", None)
    if not isinstance(conn, sqlite3.Connection):
        return None
    # A saver no run has used yet has no tables (LangGraph creates them on first use).
    saver.setup()
    with saver.lock:
        checkpoints = conn.execute(
            "SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) FROM checkpoints"
        ).fetchone()[0]
        writes = conn.execute("SELECT COALESCE(SUM(LENGTH(value)), 0) FROM writes").fetchone()[0]
    return checkpoints + writes


class Scripted:
    """Scenario ``scripted``: a scripted LangChain chat model, no HTTP."""

    name = "scripted: ScriptedChatModel (no HTTP)"

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.model: Any = None

    def model_arg(self, turns: int = 0) -> Any:
        """The model for one run; ``turns`` plain answers first (the history's own turn)."""
        from fake_models import ScriptedChatModel, ai_tool_calls

        replies = [*(ai_tool_calls(("echo", {"text": f"step {i}"})) for i in range(self.steps)), "done"]
        self.model = ScriptedChatModel(["earlier answer"] * turns + replies)
        return self.model

    def server_seconds(self) -> float:
        if self.model.remaining:
            raise BenchError(f"{self.model.remaining} scripted responses left unused")
        return 0.0


class Native:
    """Scenario ``native``: each implementation's Anthropic client against the simulator."""

    name = f"native: model={MODEL_STRING!r} over the simulated API (server handler time subtracted)"

    def __init__(self, steps: int, sim: Any) -> None:
        self.steps = steps
        self.sim = sim

    def model_arg(self, turns: int = 0) -> str:
        from sim.anthropic import text, tool_use

        self.sim.reset()
        earlier = [text("earlier answer")] * turns
        self.sim.script(*earlier, *(tool_use(("echo", {"text": f"step {i}"})) for i in range(self.steps)), text("done"))
        self.turns = turns
        return MODEL_STRING

    def server_seconds(self) -> float:
        sim = self.sim
        bad = [(r.seq, r.status) for r in sim.requests if r.status != 200]
        if bad:
            raise BenchError(f"the simulator answered non-200: {bad[:2]}")
        if sim.pending:
            raise BenchError(f"{sim.pending} scripted replies left unused")
        expected = self.steps + 1 + getattr(self, "turns", 0)
        if len(sim.requests) != expected:
            raise BenchError(f"{len(sim.requests)} requests for {expected} replies")
        return sim.handler_seconds


def earlier_messages(history: int) -> list[dict]:
    """``history`` earlier messages: user and assistant turns of about 100 characters."""
    turns = [("user", "assistant")[i % 2] for i in range(history)]
    return [{"role": role, "content": f"earlier {role} message {i} " * 4} for i, role in enumerate(turns)]


class Run(NamedTuple):
    """One timed run, per run (not per step)."""

    #: Wall time less the model server's handler time.
    harness: float
    #: The process's CPU time (every thread: the core's, LangGraph's background executor)
    #: less the saver's own calls' CPU (and an in-process simulated server's): the harness's own work,
    #: without the disk waits (an fsync blocks, it does not run) that a wall time carries.
    cpu: float
    #: Blob bytes the run stored (SQLite savers), see `stored_bytes`.
    stored: int | None
    #: Wall seconds inside the saver's ``put`` / ``put_writes`` (overlaps counted once).
    saver_wall: float
    #: The saver's ``put`` and ``put_writes`` calls.
    saver_calls: tuple[int, int]


def one_run(create: Callable[..., Any], scenario: Any, saver: Any, history: int = 0) -> Run:
    """One checked run's harness time (wall and CPU), on a thread of ``history`` earlier
    messages (loaded by the saver; the run's input without one), with what the saver did."""
    steps = scenario.steps
    threaded = saver is not None and history > 0
    agent = create(model=scenario.model_arg(1 if threaded else 0), tools=[echo], checkpointer=saver)
    config = THREAD if saver is not None else None
    prompt = {"role": "user", "content": PROMPT}
    earlier = earlier_messages(history)
    held = history + (2 if threaded else 0)
    if threaded:
        # The thread's history, with the answered turn a real thread ends with (untimed).
        agent.invoke({"messages": [*earlier, {"role": "user", "content": "earlier question"}]}, config)
    sim = scenario.sim if isinstance(scenario, Native) else None
    # The model server's time so far (the untimed turn's) is not the run's.
    before = sim.handler_seconds if sim is not None else 0.0
    # A simulator in this process (`thread_cpu.py`'s, `thread_opcodes.py`'s) runs on this
    # process's CPU clock; `sim_process.SimProcess`'s does not.
    in_process = sim is not None and sim.shares_process
    server_cpu = sim.cpu_seconds if in_process else 0.0
    stored = stored_bytes(saver) if saver is not None else None
    clock = SaverClock(saver) if saver is not None else None
    # The garbage of what ran before (the other implementation's run among it) collected
    # now, not by a collection the timed run's allocations happen to trigger: a full one
    # walks the whole process (both packages), 50-150 ms here, so whichever run it lands in
    # gained 1-3 ms a step. The run's own garbage is still collected within it.
    gc.collect()
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    out = agent.invoke({"messages": [prompt] if threaded else [*earlier, prompt]}, config)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    if in_process:
        cpu -= sim.cpu_seconds - server_cpu
    saver_wall, calls = 0.0, (0, 0)
    if clock is not None:
        clock.remove()
        cpu -= clock.cpu
        saver_wall, calls = clock.seconds, (clock.calls["put"], clock.calls["put_writes"])
    harness = wall - (scenario.server_seconds() - before)
    expected = held + 2 * steps + 2
    if len(out["messages"]) != expected:
        raise BenchError(f"{len(out['messages'])} messages, expected {expected}")
    if saver is not None and len(agent.get_state(THREAD).values["messages"]) != expected:
        raise BenchError("the thread read back does not hold the run's messages")
    written = stored_bytes(saver) - stored if stored is not None else None
    return Run(harness, cpu, written, saver_wall, calls)


def saver_floor(create: Callable[..., Any], steps: int, savers: Savers, kinds: list[str]) -> dict[str, float]:
    """Per-step time of the saver's own ``put``/``put_writes`` for one run's checkpoints."""
    from langgraph.checkpoint.memory import InMemorySaver

    calls: list[tuple[str, tuple]] = []

    class Recording(InMemorySaver):
        def put(self, *args: Any) -> Any:
            calls.append(("put", copy.deepcopy(args)))
            return super().put(*args)

        def put_writes(self, *args: Any) -> Any:
            calls.append(("put_writes", copy.deepcopy(args)))
            return super().put_writes(*args)

    one_run(create, Scripted(steps), Recording())
    out: dict[str, float] = {}
    for kind in kinds:
        saver = savers.make(kind)
        if saver is None:
            continue
        saver.get_tuple(THREAD)  # SqliteSaver creates its tables on first use
        t0 = time.perf_counter()
        for method, args in calls:
            getattr(saver, method)(*args)
        out[kind] = (time.perf_counter() - t0) / steps * 1000
    return out


@contextmanager
def scenarios(names: list[str], steps: int) -> Iterator[list[Any]]:
    if "native" not in names:
        yield [Scripted(steps)]
        return
    from sim_process import SimProcess

    # In a process of its own: in this one, its Python work on a long history's requests
    # (tens of ms a turn) would hold the GIL and the caches the harness needs (see
    # `sim_process`).
    with SimProcess(min_cache_tokens=NO_CACHE_TOKENS, merge_consecutive_roles=True) as sim:
        point_env_at(sim)
        yield [Scripted(steps) if n == "scripted" else Native(steps, sim) for n in names]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--savers", default=",".join(SAVERS))
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--history", type=int, default=0, help="earlier messages on the thread (see above)")
    args = parser.parse_args(argv)
    kinds = [k for k in args.savers.split(",") if k]
    names = [n for n in args.scenarios.split(",") if n]
    for given, allowed in ((kinds, KINDS), (names, SCENARIOS)):
        for k in given:
            if k not in allowed:
                parser.error(f"unknown {k!r}; expected some of {allowed}")

    import deepagents
    import deepagents_rs

    impls = {"deepagents_rs": deepagents_rs.create_deep_agent, "deepagents": deepagents.create_deep_agent}
    print(f"deepagents_rs: {build_info()}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other work on the machine skews the numbers)")
    print(
        f"{args.steps} steps on a thread of {args.history} earlier messages, median of {args.repeat} runs"
        " after a warm-up; harness ms per step"
    )
    ok = True
    with tempfile.TemporaryDirectory() as tmp, scenarios(names, args.steps) as runs:
        savers = Savers(Path(tmp))
        try:
            # The disk's sync time drifts with the machine's other work: the floor is taken
            # before and after, and the bound uses their mean.
            floors = [saver_floor(deepagents.create_deep_agent, args.steps, savers, kinds)]
            results = [(scenario, run_scenario(scenario, kinds, impls, savers, args)) for scenario in runs]
            floors.append(saver_floor(deepagents.create_deep_agent, args.steps, savers, kinds))
        finally:
            savers.close()
    floor = {k: (floors[0][k] + floors[1][k]) / 2 for k in floors[0]}
    for scenario, rows in results:
        ok = print_scenario(scenario, rows, floor) and ok
    if floor:
        shown = "; ".join(f"{k} {a:.3f} then {b:.3f}" for (k, a), b in zip(floors[0].items(), floors[1].values()))
        print(
            "\nsaver floor (its own put/put_writes for one run, replayed serially, before and after), ms per step:"
            f" {shown}\nbound: deepagents' step over the floor's mean, the ratio a harness doing nothing but"
            " the same writes would show"
            "\ncpu: the process's CPU ms per step (all threads) less the saver's put/put_writes' own CPU"
            " (the simulated server runs in its own process): the harness's work without the saver's"
            " (nor its disk waits)"
        )
    return 0 if ok else 1


class Summary(NamedTuple):
    """One implementation's timed runs with one saver, per step (medians)."""

    wall_ms: float
    cpu_ms: float
    bytes: float | None
    saver_ms: float
    #: The saver's ``put`` / ``put_writes`` calls per run, each distinct count seen.
    calls: set[tuple[int, int]]


def print_scenario(scenario: Any, rows: list[tuple[str, dict[str, Summary]]], floor: dict[str, float]) -> bool:
    """One scenario's table; whether every row has both implementations."""
    print(f"\n== {scenario.name}")
    print(
        f"{'saver':<10} {'deepagents_rs':>14} {'deepagents':>11} {'ratio':>7}"
        f" {'rs cpu':>8} {'da cpu':>8} {'cpu ratio':>9}"
        f" {'rs bytes/step':>14} {'da bytes/step':>14} {'rs saver ms':>12} {'da saver ms':>12} {'bound':>7}"
    )
    ok = True
    calls = []
    for kind, row in rows:
        if len(row) != 2:
            ok = False
            continue
        rs, da = row["deepagents_rs"], row["deepagents"]
        line = f"{kind:<10} {rs.wall_ms:>14.3f} {da.wall_ms:>11.3f} {da.wall_ms / rs.wall_ms:>6.1f}x"
        line += f" {rs.cpu_ms:>8.3f} {da.cpu_ms:>8.3f} {da.cpu_ms / rs.cpu_ms:>8.1f}x"
        if rs.bytes is not None and da.bytes is not None:
            line += f" {rs.bytes:>14,.0f} {da.bytes:>14,.0f}"
            line += f" {rs.saver_ms:>12.3f} {da.saver_ms:>12.3f}"
        else:
            line += f" {'':>14} {'':>14} {'':>12} {'':>12}"
        if floor.get(kind):
            line += f" {da.wall_ms / floor[kind]:>6.1f}x"
        print(line)
        if kind != "none":
            shown = " / ".join(", ".join(f"{p} + {w}" for p, w in sorted(s.calls)) for s in (rs, da))
            calls.append(f"{kind} {shown}{'' if rs.calls == da.calls else ' (DIFFER)'}")
    if calls:
        print("saver calls per run (put + put_writes), rs / deepagents: " + "; ".join(calls))
    return ok


def interleaved(
    impls: dict[str, Callable[..., Any]], run: Callable[[Callable[..., Any]], Run], repeat: int, label: str
) -> dict[str, list[Run]]:
    """``run(create)`` for each implementation once as a warm-up, then ``repeat`` rounds of
    one timed run each, the implementations taking turns: both see the machine's load as it
    drifts (runs of one side after all of the other's would put a drift into the ratio). The
    timed runs by implementation; one that fails is reported and left out from then on."""
    runs: dict[str, list[Run]] = {name: [] for name in impls}
    for round_ in range(repeat + 1):
        for name, create in impls.items():
            if name not in runs:
                continue
            try:
                done = run(create)
            except Exception as e:  # noqa: BLE001 - reported, and the exit status says so
                print(f"{label}: {name} FAILED: {type(e).__name__}: {e}")
                del runs[name]
                continue
            if round_:
                runs[name].append(done)
    return runs


def run_scenario(
    scenario: Any, kinds: list[str], impls: dict[str, Callable[..., Any]], savers: Savers, args: Any
) -> list[tuple[str, dict[str, Summary]]]:
    """Each saver's row: by implementation, the medians of its timed runs (the warm-up left
    out; the implementations' runs interleaved), per step."""
    rows = []
    for kind in kinds:
        row: dict[str, Summary] = {}
        ms = 1000 / args.steps
        by_impl = interleaved(
            impls,
            lambda create, kind=kind: one_run(create, scenario, savers.make(kind), args.history),
            args.repeat,
            kind,
        )
        for name, timed in by_impl.items():
            stored = [r.stored for r in timed if r.stored is not None]
            row[name] = Summary(
                wall_ms=statistics.median(r.harness for r in timed) * ms,
                cpu_ms=statistics.median(r.cpu for r in timed) * ms,
                bytes=statistics.median(stored) / args.steps if stored else None,
                saver_ms=statistics.median(r.saver_wall for r in timed) * ms,
                calls={r.saver_calls for r in timed},
            )
        rows.append((kind, row))
    return rows


if __name__ == "__main__":
    sys.exit(main())
