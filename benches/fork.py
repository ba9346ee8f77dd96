"""Forked subagents: fork cost vs parent history length, and the fork's prompt-cache reads.

Both implementations run side by side in this process:

* ``cost``: the input state already holds a conversation of N messages (alternating
  user / assistant text, ~200 characters each, ending with a user message). The parent's
  first model reply is a ``task`` call to a fork subagent, the fork answers at once and the
  parent then answers. Both are driven by the same scripted LangChain chat model
  (``tests/fake_models.py``), which stamps ``time.perf_counter()`` when each call arrives
  and when it returns. **Fork cost** = from the parent's task-call reply being returned by
  the model to the fork's first model call arriving: dispatching the tool call, preparing
  the fork's state and messages, starting the fork's loop, the fork's pre-model work, and
  LangChain's own ``BaseChatModel.invoke`` around ``_generate``. The model also stamps when
  its ``invoke`` is entered, so the fork cost is reported in two parts: the model's own
  ``invoke`` (LangChain checks, copies and formats every message for tracing, on both sides
  alike) and the harness (everything before it), on the wall clock and in process CPU time.
* ``cache``: ``model="anthropic:claude-sonnet-4-5"`` for both, over one simulated Anthropic
  server (``tests/sim/anthropic.py``, ``min_cache_tokens=64``). A short parent history (a
  user message and one round of a user tool), then a task call to the fork, which answers.
  Reported: the fraction of the fork's first request that was read from the prompt cache,
  for a plain fork, a fork with its own ``system_prompt`` and a fork with narrower ``tools``.
* ``native``: the fork start with the Anthropic model by name on both sides, timed at the
  simulated server in a process of its own, where no LangChain ``invoke`` is inside our
  window and the CPU is the client's alone (``fork_native.py``).

Usage::

    python benches/fork.py [--sizes 10,1000,10000] [--repeat 3] [--scenario all|cost|cache|native]
        [--reply-latency-ms 50]

``deepagents_rs`` is imported from whatever environment runs the script (the repository's
``python/`` directory is *not* put on ``sys.path``). The build type of the loaded extension
module is printed with the results. This is a benchmark script, not a test; it never
touches the network.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The simulator and the scripted model live in tests/; only that directory is added.
sys.path.insert(0, str(REPO / "tests"))
# benches/ itself, for the build check shared with tool_loop.py.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool_loop import build_info, point_env_at

MODEL_STRING = "anthropic:claude-sonnet-4-5"
FORK_NAME = "fixer"
FORK_DESCRIPTION = "Fixes what was diagnosed."
TASK_TEXT = "Fix the bug that was diagnosed above."
FORK_ANSWER = "fixed it"
FINAL_TEXT = "done"
#: Start of deepagents' fork preamble; the fork's first request ends with it.
PREAMBLE = "[The messages above are a prior conversation"
FILLER = (
    "We looked at the failing build again: the parser rejects the trailing comma in the config, "
    "the retry loop hides the original error, and the cache key ignores the locale. Next we check "
    "the logs from last night and compare them with the staging run before changing anything."
)
#: Far above any history here. The scripted model has no profile, so deepagents would fall
#: back to summarizing at 170,000 tokens (~ 3,400 of these messages) and spend a model call
#: on it; deepagents_rs does not summarize. A large window keeps both on the same script.
MAX_INPUT_TOKENS = 10**9


def lookup(key: str) -> str:
    """Look a key up in the project notes.

    Args:
        key: The key to look up.
    """
    return f"notes for {key}: the parser rejects trailing commas since the last release."


def search(query: str) -> str:
    """Search the code base.

    Args:
        query: What to search for.
    """
    return f"3 matches for {query}"


class BenchError(Exception):
    """A run that did not do the work it is timed for; it must not count as fast."""


def fork_spec(**extra: Any) -> dict[str, Any]:
    return {"name": FORK_NAME, "description": FORK_DESCRIPTION, "mode": "fork", **extra}


def task_args() -> dict[str, Any]:
    return {"description": TASK_TEXT, "subagent_type": FORK_NAME}


def text_of(content: Any) -> str:
    """The text of a message content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


# --------------------------------------------------------------------------- scenario 1: cost


def history(n: int, width: int = 200) -> list[dict[str, str]]:
    """N alternating user / assistant messages of ``width`` characters, ending with a user message."""
    msgs = []
    for i in range(n):
        # With an even N the first message is the assistant's; the last is always the user's.
        role = "user" if (n - 1 - i) % 2 == 0 else "assistant"
        msgs.append({"role": role, "content": f"[{i}] {FILLER}"[:width]})
    return msgs


@dataclass
class CostRun:
    fork_s: float  # parent's task-call reply returned -> fork's first call arrives
    wall_s: float  # invoke() wall time
    messages: int
    gc_s: float = 0.0  # Python's cyclic GC pauses inside the fork window (part of fork_s)
    #: The part of fork_s inside the model's own `invoke` (entered -> `_generate` reached).
    model_invoke_s: float = 0.0
    #: Process CPU time (every thread) over the fork window, and over the harness part.
    fork_cpu_s: float = 0.0
    harness_cpu_s: float = 0.0

    @property
    def harness_s(self) -> float:
        """The fork cost less the model's own `invoke`: what the harness itself spends."""
        return self.fork_s - self.model_invoke_s


@dataclass
class CostResult:
    impl: str
    n: int
    runs: list[CostRun]

    def median(self, key: Callable[[CostRun], float]) -> float:
        return statistics.median(key(r) for r in self.runs)


def timed_model_class() -> type:
    from fake_models import ScriptedChatModel
    from pydantic import Field

    class TimedScriptedChatModel(ScriptedChatModel):
        """ScriptedChatModel that stamps (arrival, return) of every call, and when its
        ``invoke`` is entered, on the wall clock and in process CPU time."""

        stamps: list[tuple[float, float]] = Field(default_factory=list, exclude=True)
        cpu_stamps: list[tuple[float, float]] = Field(default_factory=list, exclude=True)
        entered: list[tuple[float, float]] = Field(default_factory=list, exclude=True)

        def invoke(self, input: Any, config: Any = None, *, stop: Any = None, **kwargs: Any) -> Any:
            self.entered.append((time.perf_counter(), time.process_time()))
            return super().invoke(input, config, stop=stop, **kwargs)

        async def ainvoke(self, input: Any, config: Any = None, *, stop: Any = None, **kwargs: Any) -> Any:
            self.entered.append((time.perf_counter(), time.process_time()))
            return await super().ainvoke(input, config, stop=stop, **kwargs)

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            arrived, arrived_cpu = time.perf_counter(), time.process_time()
            result = self._next(messages, stop, kwargs)
            self.stamps.append((arrived, time.perf_counter()))
            self.cpu_stamps.append((arrived_cpu, time.process_time()))
            return result

        async def _agenerate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            return self._generate(messages, stop, run_manager, **kwargs)

    return TimedScriptedChatModel


class GcTimer:
    """Records every cyclic-GC pause (start, end) through ``gc.callbacks``."""

    def __init__(self) -> None:
        self.pauses: list[tuple[float, float]] = []
        self._start = 0.0

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.pauses.append((self._start, time.perf_counter()))

    def __enter__(self) -> GcTimer:  # noqa: PYI034 - final helper class
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)

    def within(self, start: float, end: float) -> float:
        return sum(b - a for a, b in self.pauses if a >= start and b <= end)


def check_cost_run(impl: str, model: Any, out: dict[str, Any], n: int) -> int:
    """Fail loudly unless the parent delegated to the fork and the fork saw the whole history."""
    calls = model.calls
    if len(calls) != 3 or len(model.stamps) != 3 or len(model.entered) != 3 or model.remaining:
        raise BenchError(f"{impl}: expected 3 model calls (parent, fork, parent), got {len(calls)}")
    parent, fork, _ = calls
    # system + N history; the fork: system + N history + the task message.
    if len(parent.messages) != n + 1 or len(fork.messages) != n + 2:
        raise BenchError(
            f"{impl}: parent saw {len(parent.messages)} messages, fork {len(fork.messages)}; "
            f"expected {n + 1} and {n + 2}"
        )
    last = fork.messages[-1]
    if last.type != "human" or not text_of(last.content).startswith(PREAMBLE) or TASK_TEXT not in text_of(last.content):
        raise BenchError(f"{impl}: the fork's first call does not end with the task: {last.content[:80]!r}")
    if text_of(fork.messages[-2].content) != history(n)[-1]["content"]:
        raise BenchError(f"{impl}: the fork's history does not end with the parent's last user message")
    msgs = out["messages"]
    # N history + the task call + the task result + the final answer.
    if len(msgs) != n + 3:
        raise BenchError(f"{impl}: expected {n + 3} messages, got {len(msgs)}")
    result = msgs[-2]
    if (result.type, getattr(result, "name", None), result.content) != ("tool", "task", FORK_ANSWER):
        raise BenchError(f"{impl}: task result is {result.type}/{result.content!r}")
    if msgs[-1].content != FINAL_TEXT:
        raise BenchError(f"{impl}: final message is {msgs[-1].content!r}")
    return len(msgs)


def cost_run(impl: str, module: Any, n: int) -> CostRun:
    from fake_models import ai_tool_calls

    model = timed_model_class()(
        [ai_tool_calls(("task", task_args(), "call_task")), FORK_ANSWER, FINAL_TEXT],
        profile={"max_input_tokens": MAX_INPUT_TOKENS},
    )
    agent = module.create_deep_agent(model=model, subagents=[fork_spec()])
    inp = {"messages": history(n)}
    with GcTimer() as gc_timer:
        t0 = time.perf_counter()
        out = agent.invoke(inp)
        wall = time.perf_counter() - t0
    messages = check_cost_run(impl, model, out, n)
    (_, parent_returned), (fork_arrived, _), _ = model.stamps
    (_, parent_returned_cpu), (fork_arrived_cpu, _), _ = model.cpu_stamps
    _, (fork_entered, fork_entered_cpu), _ = model.entered
    if not parent_returned <= fork_entered <= fork_arrived:
        raise BenchError(f"{impl}: the fork's invoke was not entered inside the fork window")
    gc_s = gc_timer.within(parent_returned, fork_arrived)
    return CostRun(
        fork_arrived - parent_returned,
        wall,
        messages,
        gc_s,
        model_invoke_s=fork_arrived - fork_entered,
        fork_cpu_s=fork_arrived_cpu - parent_returned_cpu,
        harness_cpu_s=fork_entered_cpu - parent_returned_cpu,
    )


def scenario_cost(sizes: list[int], repeat: int) -> tuple[list[CostResult], list[str]]:
    import deepagents
    import deepagents_rs

    runners = {
        impl: functools.partial(cost_run, impl, module)
        for impl, module in (("deepagents_rs", deepagents_rs), ("deepagents", deepagents))
    }
    return measure_sizes(sizes, repeat, runners)


def measure_sizes(
    sizes: list[int], repeat: int, runners: dict[str, Callable[[int], CostRun]]
) -> tuple[list[CostResult], list[str]]:
    """Each implementation's run at each size: a warm-up, then ``repeat`` timed runs."""
    results: list[CostResult] = []
    notes: list[str] = []
    for n in sizes:
        for impl, run in runners.items():
            try:
                run(n)  # warm-up
                runs = [run(n) for _ in range(repeat)]
            except Exception as e:
                if impl == "deepagents":
                    raise
                # Report the exact error, keep measuring the reference.
                notes.append(f"deepagents_rs FAILED at N={n}: {type(e).__name__}: {e}")
                continue
            results.append(CostResult(impl, n, runs))
    return results, notes


def print_head(*columns: tuple[str, int]) -> None:
    """A table's head: each column's title right-aligned in its width, then a rule."""
    head = " ".join(f"{title:>{width}}" for title, width in columns)
    print(head)
    print("-" * len(head))


def report_cost(results: list[CostResult], notes: list[str]) -> bool:
    print("\n== 1. fork cost vs parent history length (ScriptedChatModel, no HTTP)")
    print_head(
        ("N", 6), ("deepagents_rs ms", 17), ("deepagents ms", 14), ("ratio", 7), ("rs gc ms", 9), ("ref gc ms", 10),
        ("rs wall s", 10), ("ref wall s", 11), ("messages", 9),
    )  # fmt: skip
    ok = True
    for n in sorted({r.n for r in results}):
        by = {r.impl: r for r in results if r.n == n}
        rs, ref = by.get("deepagents_rs"), by.get("deepagents")
        counts = {r.runs[0].messages for r in by.values()}
        ok &= rs is not None and ref is not None and len(counts) == 1

        def cell(r: CostResult | None, key: Callable[[CostRun], float], scale: float, width: int, fmt: str) -> str:
            return f"{r.median(key) * scale:>{width}{fmt}}" if r else f"{'FAILED':>{width}}"

        ratio = f"{ref.median(lambda x: x.fork_s) / rs.median(lambda x: x.fork_s):.2f}" if rs and ref else "n/a"
        print(
            f"{n:>6} {cell(rs, lambda x: x.fork_s, 1e3, 17, '.2f')} {cell(ref, lambda x: x.fork_s, 1e3, 14, '.2f')} "
            f"{ratio:>7} {cell(rs, lambda x: x.gc_s, 1e3, 9, '.2f')} {cell(ref, lambda x: x.gc_s, 1e3, 10, '.2f')} "
            f"{cell(rs, lambda x: x.wall_s, 1, 10, '.3f')} {cell(ref, lambda x: x.wall_s, 1, 11, '.3f')} "
            f"{'/'.join(str(c) for c in sorted(counts)):>9}"
        )
    report_cost_parts(results)
    notes.append("ratio = deepagents / deepagents_rs fork cost (higher is better for deepagents_rs)")
    notes.append("gc ms: time Python's cyclic garbage collector ran inside the fork window (included in the fork cost)")
    notes.append(
        "every run checked: 3 model calls, fork saw system + N + task message (ending with the fork "
        "preamble), task result and final answer present, N+3 messages out"
    )
    for note in notes:
        print(f"  {note}")
    return ok


def report_cost_parts(results: list[CostResult]) -> None:
    """The fork cost in its two parts, wall and CPU, and how the harness part grows."""
    print("\n   the fork cost in two parts: the model's own LangChain `invoke` (entered -> `_generate`),")
    print("   which both sides pay alike, and the harness (parent's reply returned -> `invoke` entered)")
    print_head(
        ("N", 6), ("rs invoke ms", 13), ("ref invoke ms", 14), ("rs harness ms", 14), ("ref harness ms", 15),
        ("rs harness cpu", 15), ("ref harness cpu", 16), ("rs fork cpu", 12), ("ref fork cpu", 13),
    )  # fmt: skip
    ms = 1e3
    by = {(r.impl, r.n): r for r in results}
    sizes = sorted({r.n for r in results})
    for n in sizes:
        rs, ref = by.get(("deepagents_rs", n)), by.get(("deepagents", n))

        def cell(r: CostResult | None, key: Callable[[CostRun], float], width: int) -> str:
            return f"{r.median(key) * ms:>{width}.2f}" if r else f"{'FAILED':>{width}}"

        print(
            f"{n:>6} {cell(rs, lambda x: x.model_invoke_s, 13)} {cell(ref, lambda x: x.model_invoke_s, 14)} "
            f"{cell(rs, lambda x: x.harness_s, 14)} {cell(ref, lambda x: x.harness_s, 15)} "
            f"{cell(rs, lambda x: x.harness_cpu_s, 15)} {cell(ref, lambda x: x.harness_cpu_s, 16)} "
            f"{cell(rs, lambda x: x.fork_cpu_s, 12)} {cell(ref, lambda x: x.fork_cpu_s, 13)}"
        )
    for impl in ("deepagents_rs", "deepagents"):
        low, high = by.get((impl, sizes[0])), by.get((impl, sizes[-1]))
        if low and high and len(sizes) > 1:
            growth = [
                high.median(key) / low.median(key)
                for key in (lambda x: x.fork_s, lambda x: x.harness_s, lambda x: x.harness_cpu_s)
            ]
            print(
                f"   {impl} growth N={sizes[-1]} vs N={sizes[0]}: fork cost {growth[0]:.2f}x, "
                f"harness {growth[1]:.2f}x (wall), {growth[2]:.2f}x (cpu)"
            )


# --------------------------------------------------------------------------- scenario 2: cache


VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("plain fork", fork_spec()),
    ("fork with own system_prompt", fork_spec(system_prompt="You fix bugs. Change as little as possible.")),
    ("fork with narrower tools", fork_spec(tools=[lookup])),
    # The same subagent without the parent's conversation: what a fork is compared with.
    (
        "isolated subagent",
        {
            "name": FORK_NAME,
            "description": FORK_DESCRIPTION,
            "system_prompt": "You fix bugs. Change as little as possible.",
        },
    ),
]
PARENT_PROMPT = "You are a careful engineer. Diagnose before you fix."


@dataclass
class CacheResult:
    fraction: float
    read: int
    total: int
    tools: int  # tools offered in the fork's first request
    requests: int
    #: The first request's input cost in uncached-token units, at Anthropic's prices (a cache
    #: write costs 1.25x, a cache read 0.1x an uncached input token).
    cost: float = 0.0


def fork_request_usage(impl: str, sim: Any, *, fork: bool = True) -> CacheResult:
    """The subagent's first request is the third: parent (lookup), parent (task), subagent,
    parent. A fork's ends with deepagents' preamble and the task; an isolated subagent's is
    the task alone."""
    bad = [(r.seq, r.status, r.response) for r in sim.requests if r.status != 200]
    if bad:
        raise BenchError(f"{impl}: the simulator answered non-200: {bad[:2]}")
    if len(sim.requests) != 4 or sim.pending:
        raise BenchError(f"{impl}: {len(sim.requests)} requests, {sim.pending} replies unused; expected 4 and 0")
    parent, sub = sim.requests[1].body, sim.requests[2].body
    last = sub["messages"][-1]
    if (
        last["role"] != "user"
        or (PREAMBLE in text_of(last["content"])) != fork
        or TASK_TEXT not in text_of(last["content"])
    ):
        raise BenchError(f"{impl}: request 2 is not the subagent's first request: {str(last)[:120]}")
    if any(PREAMBLE in text_of(m["content"]) for m in parent["messages"]):
        raise BenchError(f"{impl}: request 1 already carries the fork preamble")
    final = sim.requests[3].body["messages"][-1]
    results = [b for b in final["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    if not results or text_of(results[0]["content"]) != FORK_ANSWER:
        raise BenchError(f"{impl}: the parent's last request does not carry the fork's answer: {str(final)[:120]}")
    usage = sim.requests[2].response["usage"]
    read, created = usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]
    total = usage["input_tokens"] + read + created
    cost = usage["input_tokens"] + 1.25 * created + 0.1 * read
    return CacheResult(read / total, read, total, len(sub.get("tools") or []), len(sim.requests), cost)


def scenario_cache(parent_history: int = 0) -> tuple[list[tuple[str, dict[str, CacheResult | str]]], list[str]]:
    """Each variant on a parent that has ``parent_history`` earlier messages."""
    import deepagents
    import deepagents_rs
    from sim.anthropic import SimAnthropic, text, tool_use

    rows: list[tuple[str, dict[str, CacheResult | str]]] = []
    notes: list[str] = []
    # merge_consecutive_roles: the fork's task message follows the tool result, two user turns
    # in a row, which the real API accepts (and merges) too.
    with SimAnthropic(min_cache_tokens=64, merge_consecutive_roles=True) as sim:
        point_env_at(sim)
        for label, spec in VARIANTS:
            row: dict[str, CacheResult | str] = {}
            for impl, module in (("deepagents", deepagents), ("deepagents_rs", deepagents_rs)):
                sim.reset()
                sim.script(
                    tool_use(("lookup", {"key": "bug"})),
                    tool_use(("task", task_args())),
                    text(FORK_ANSWER),
                    text(FINAL_TEXT),
                )
                try:
                    agent = module.create_deep_agent(
                        model=MODEL_STRING, tools=[lookup, search], system_prompt=PARENT_PROMPT, subagents=[spec]
                    )
                    ask = {"role": "user", "content": "The build fails; please fix it."}
                    earlier = history(parent_history + 1)[:-1] if parent_history else []
                    out = agent.invoke({"messages": [*earlier, ask]})
                    if out["messages"][-1].content != FINAL_TEXT:
                        raise BenchError(f"{impl}: final message is {out['messages'][-1].content!r}")
                    row[impl] = fork_request_usage(impl, sim, fork=spec.get("mode") == "fork")
                except Exception as e:
                    if impl == "deepagents":
                        raise
                    row[impl] = f"FAILED: {type(e).__name__}: {e}"
                    notes.append(f"deepagents_rs FAILED ({label}): {type(e).__name__}: {e}")
            rows.append((label, row))
    return rows, notes


def report_cache(rows: list[tuple[str, dict[str, CacheResult | str]]], notes: list[str]) -> bool:
    print("\n== 2. cache-read fraction of the subagent's first request (simulated Anthropic API, min_cache_tokens=64)")
    head = f"{'variant':<29} {'deepagents':>28} {'deepagents_rs':>28}"
    print(head)
    print("-" * len(head))
    ok = True
    for label, row in rows:
        cells = []
        for impl in ("deepagents", "deepagents_rs"):
            r = row.get(impl)
            if isinstance(r, CacheResult):
                cells.append(f"{r.fraction:.3f} ({r.read}/{r.total}) {r.cost:.0f}")
            else:
                ok = False
                cells.append("FAILED")
        print(f"{label:<29} {cells[0]:>28} {cells[1]:>28}")
    tools = {
        impl: [r[impl].tools if isinstance(r.get(impl), CacheResult) else None for _, r in rows]
        for impl in ("deepagents", "deepagents_rs")
    }
    notes.append("fraction = cache_read / (input + cache_read + cache_creation) tokens, as (read/total)")
    notes.append("then the input cost in uncached-token units: input + 1.25 x cache_creation + 0.1 x cache_read")
    notes.append(f"tools offered in the fork's first request per variant: {tools}")
    notes.append(
        "every run checked: 4 requests, all 200, the third ends with the task (after the fork preamble "
        "for a fork), the parent's last request carries the subagent's answer"
    )
    for note in notes:
        print(f"  {note}")
    return ok


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,1000,10000", help="parent history lengths (default 10,1000,10000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per size; the median is reported")
    parser.add_argument("--scenario", choices=("all", "cost", "cache", "native"), default="all")
    parser.add_argument(
        "--reply-latency-ms",
        type=float,
        default=None,
        help="native: the simulator's wait before the parent's task reply (default fork_native.REPLY_LATENCY_S)",
    )
    parser.add_argument("--parent-history", type=int, default=0, help="earlier parent messages in the cache scenario")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.repeat < 1 or not sizes or min(sizes) < 1:
        parser.error("--repeat and every size must be >= 1")

    import deepagents

    # Both implementations emit LangChainBetaWarning for forks; once is enough.
    warnings.filterwarnings("ignore", message=".*forked subagents.*")
    print(f"python {sys.version.split()[0]}, deepagents {deepagents.__version__}")
    print(f"deepagents_rs core: {build_info()}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other work on the machine skews the numbers)")
    print(f"sizes={sizes} repeat={args.repeat} (median of the timed runs after one warm-up per size)")
    ok = True
    started = time.perf_counter()
    if args.scenario in ("all", "cost"):
        ok &= report_cost(*scenario_cost(sizes, args.repeat))
    if args.scenario in ("all", "cache"):
        ok &= report_cache(*scenario_cache(args.parent_history))
    if args.scenario in ("all", "native"):
        from fork_native import REPLY_LATENCY_S, report_native, scenario_native

        latency = REPLY_LATENCY_S if args.reply_latency_ms is None else args.reply_latency_ms / 1e3
        ok &= report_native(*scenario_native(sizes, args.repeat, latency))
    print(f"\ntotal bench time {time.perf_counter() - started:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
