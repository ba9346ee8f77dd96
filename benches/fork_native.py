"""The fork start with a provider the harness speaks itself: ``model="anthropic:claude-sonnet-4-5"``
on both sides (deepagents_rs' Rust client; deepagents' ``ChatAnthropic``) over the simulated
Anthropic API (``tests/sim/anthropic.py``) in a thread of this process.

The same conversation as ``fork.py``'s cost scenario (the parent delegates to a fork at once,
the fork answers, the parent answers), timed at the server: **fork start** = from the server
having written the parent's ``task`` reply to the fork's request arriving (its request line
and headers read, before its body is read), on the wall clock and in process CPU time. The
window holds everything the client does between the two: reading and parsing the reply,
dispatching the call, building the fork, its pre-model work and its whole request (encoded
and sent). The server is idle inside it. With a scripted LangChain model (``fork.py``),
LangChain's own ``invoke`` (checks, copies and formats every message) is part of the window
on both sides; here neither side's window holds anything it does not own.

Messages are shorter than ``fork.py``'s (``WIDTH`` characters): at 10,000 messages both sides
stay under the model's summarization trigger (85% of 200,000 tokens), so the script holds.
"""

from __future__ import annotations

import functools
import time
from typing import Any

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


def stamped_sim() -> Any:
    """A SimAnthropic that stamps (wall, process CPU) when each request's handler starts
    (headers read, body not yet) and when its answer has been written."""
    from sim.anthropic import SimAnthropic

    class StampedSim(SimAnthropic):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.stamps: list[list[tuple[float, float] | None]] = []

        def reset(self) -> None:
            super().reset()
            self.stamps = []

        def _handle(self, h: Any) -> None:
            # The slot is taken on arrival, so the stamps are in arrival order; the answered
            # stamp lands after the client may already have the answer (see `answered`).
            stamp: list[tuple[float, float] | None] = [(time.perf_counter(), time.process_time()), None]
            self.stamps.append(stamp)
            super()._handle(h)
            stamp[1] = (time.perf_counter(), time.process_time())

        def answered(self) -> list[list[tuple[float, float]]]:
            """The stamps, once every handler has stamped its end."""
            deadline = time.monotonic() + 5
            while any(end is None for _, end in self.stamps) and time.monotonic() < deadline:
                time.sleep(0.001)
            return self.stamps  # type: ignore[return-value]

    return StampedSim(min_cache_tokens=1024, merge_consecutive_roles=True)


def native_history(n: int) -> list[dict[str, str]]:
    """``fork.py``'s history with a user message first, as the API asks (with an even N the
    first two are then both the user's, which the API merges)."""
    msgs = history(n, WIDTH)
    msgs[0]["role"] = "user"
    return msgs


def check_run(impl: str, sim: Any, out: dict[str, Any], n: int) -> int:
    """Fail loudly unless the parent delegated, the fork's first request carried the whole
    history and the task, and the parent got the fork's answer."""
    bad = [(r.seq, r.status, r.response) for r in sim.requests if r.status != 200]
    if bad:
        raise BenchError(f"{impl}: the simulator answered non-200: {bad[:2]}")
    if len(sim.requests) != 3 or sim.pending or len(sim.answered()) != 3:
        raise BenchError(f"{impl}: {len(sim.requests)} requests, {sim.pending} replies unused; expected 3 and 0")
    fork = sim.requests[1].body["messages"]
    last = text_of(fork[-1]["content"]) if isinstance(fork[-1]["content"], list) else fork[-1]["content"]
    if fork[-1]["role"] != "user" or PREAMBLE not in last or TASK_TEXT not in last:
        raise BenchError(f"{impl}: request 1 is not the fork's first request: {str(fork[-1])[:120]}")
    # Consecutive user messages (the first two, the last and the task) may be merged.
    if len(fork) < n - 1:
        raise BenchError(f"{impl}: the fork's first request holds {len(fork)} messages for {n} in the history")
    msgs = out["messages"]
    if len(msgs) != n + 3 or msgs[-2].content != FORK_ANSWER or msgs[-1].content != FINAL_TEXT:
        raise BenchError(f"{impl}: {len(msgs)} messages out, ending {msgs[-1].content!r}")
    return len(msgs)


def run_once(impl: str, agent: Any, sim: Any, n: int) -> CostRun:
    from sim.anthropic import text, tool_use

    sim.reset()
    sim.script(tool_use(("task", task_args())), text(FORK_ANSWER), text(FINAL_TEXT))
    t0 = time.perf_counter()
    out = agent.invoke({"messages": native_history(n)})
    wall = time.perf_counter() - t0
    messages = check_run(impl, sim, out, n)
    (_, (answered, answered_cpu)), ((arrived, arrived_cpu), _), _ = sim.stamps
    cpu = arrived_cpu - answered_cpu
    return CostRun(arrived - answered, wall, messages, fork_cpu_s=cpu, harness_cpu_s=cpu)


def scenario_native(sizes: list[int], repeat: int) -> tuple[list[CostResult], list[str]]:
    import deepagents
    import deepagents_rs

    with stamped_sim() as sim:
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
        f"\n== 3. fork start with {MODEL_STRING} on both sides (simulated API in this process, {WIDTH}-char messages)"
    )
    print("   from the server having written the parent's task reply to the fork's request arriving")
    head = f"{'N':>6} {'rs ms':>8} {'ref ms':>8} {'ratio':>7} {'rs cpu ms':>10} {'ref cpu ms':>11} {'cpu ratio':>10}"
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
        print(
            f"{n:>6} {wall[0]:>8.2f} {wall[1]:>8.2f} {wall[1] / wall[0]:>7.1f} "
            f"{cpu[0]:>10.2f} {cpu[1]:>11.2f} {cpu[1] / cpu[0]:>10.1f}"
        )
    for impl in ("deepagents_rs", "deepagents"):
        low, high = by.get((impl, sizes[0])), by.get((impl, sizes[-1]))
        if low and high and len(sizes) > 1:
            wall, cpu = (high.median(k) / low.median(k) for k in (lambda x: x.fork_s, lambda x: x.fork_cpu_s))
            print(f"   {impl} growth N={sizes[-1]} vs N={sizes[0]}: {wall:.2f}x (wall), {cpu:.2f}x (cpu)")
    notes.append("every run checked: 3 requests, all 200, the fork's ends with the preamble and the task, N+3 out")
    for note in notes:
        print(f"  {note}")
    return ok
