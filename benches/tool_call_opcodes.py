"""Python bytecode instructions of a step (deepagents_rs only), counted in a real run, by the
thread that runs them: a count that does not move with the machine's load, for telling two
states of the step's Python apart where ``concurrency.py``'s CPU times drown them in noise.

The run is ``concurrency.py``'s agent at one thread: ``create_deep_agent`` with the full default
stack, the Rust Anthropic client over the simulated API (``tests/sim``), a trivial ``echo`` tool
each step (a plain function tool, or with ``--async-tool`` a coroutine function), no saver.
Every Python frame is traced (``sys.settrace`` with ``f_trace_opcodes``) on the two threads
that run Python in a step:

- ``caller``: the thread calling ``invoke`` (or running ``ainvoke``'s event loop), from the
  call to its return: the run's start and end (the input's and the result's conversion), the
  stream's feed, and under ``ainvoke`` what the loop runs;
- ``drainer``: the core's Python calls (``dars-python`` threads, ``src/python/python_calls.rs``),
  traced from their first call on for their life; ``tool job`` is the part of it under the
  tool job's entry points: the call (the adapter's ``call_in_run`` / ``call_in_async_run``)
  and, where the core still calls it (an async tool's, or before the core made a sync tool's
  ``PlainCall`` itself), the tool's config (``_stream.config_with_writer``).

Each mode runs a conversation of ``--steps`` steps and one of twice as many, after a warm-up
run (the first call's imports and caches are not counted): ``/step`` is the difference over
the extra steps (what one more step costs), ``/20`` (``--steps``) the shorter run's count per
step, its start and end shared out as ``concurrency.py``'s CPU per step shares them; the tool
job is given per call (the longer run's). C code is not counted (``Context.run``, the core's conversions).

``--top N`` lists the N functions with the most instructions per step (their own, not their
callees'), with their thread.

Usage::

    python benches/tool_call_opcodes.py [--steps 20] [--modes invoke,ainvoke] [--async-tool] [--top 0]
    PYTHONPATH=/other/checkout/python python benches/tool_call_opcodes.py ...   # another state
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
from collections import Counter as Tally
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool_loop import NO_CACHE_TOKENS, echo, point_env_at

MODEL = "anthropic:claude-sonnet-4-5"


async def async_echo(text: str) -> str:
    """Echo the given text back unchanged.

    Args:
        text: The text to echo.
    """
    return text


# The same tool as a coroutine function (the simulated API calls `echo`).
async_echo.__name__ = "echo"


class Counter:
    """Counts bytecode instructions and Python calls by thread kind (``caller``, ``drainer``),
    by tool job entry point and by function (code object, with its thread kind)."""

    def __init__(self) -> None:
        self.opcodes: Tally[str] = Tally()
        self.calls: Tally[str] = Tally()
        self.by_code: Tally[Any] = Tally()
        self.entries: Tally[str] = Tally()
        self.on = False
        self.caller: int | None = None
        self._local = threading.local()
        #: The threads the tracer stays installed on (the core's drainers).
        self._traced: set[int] = set()

    def reset(self) -> None:
        for tally in (self.opcodes, self.calls, self.by_code, self.entries):
            tally.clear()

    def wrap(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, a tool job's entry point the core calls on a drainer, counted under
        ``label`` besides its thread's kind; the tracer installed on its thread for good."""

        def counted(*args: Any, **kwargs: Any) -> Any:
            ident = threading.get_ident()
            # Not on the main thread, the caller's (an async tool's config is made on the loop).
            if ident not in self._traced and ident != threading.main_thread().ident:
                self._traced.add(ident)
                sys.settrace(self._call)
            if not self.on or getattr(self._local, "label", None) is not None:
                return fn(*args, **kwargs)
            self._local.label = label
            self.entries[label] += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self._local.label = None

        return counted

    def counting(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on this thread, the caller's, counted."""
        self.caller = threading.get_ident()
        sys.settrace(self._call)
        try:
            return fn(*args)
        finally:
            sys.settrace(None)

    async def acounting(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``await fn(*args)`` on this thread, the event loop's, counted (what the loop runs
        meanwhile too)."""
        self.caller = threading.get_ident()
        sys.settrace(self._call)
        try:
            return await fn(*args)
        finally:
            sys.settrace(None)

    def _call(self, frame: Any, event: str, _arg: Any) -> Any:
        if event != "call" or not self.on:
            return None
        if frame.f_code.co_filename == __file__:
            return None  # this bench's wrappers (what they call is traced)
        kind = "caller" if threading.get_ident() == self.caller else "drainer"
        entry = getattr(self._local, "label", None)
        self.calls[kind] += 1
        if entry is not None:
            self.calls[entry] += 1
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        opcodes, by_code, code = self.opcodes, self.by_code, (kind, frame.f_code)

        def opcode(_frame: Any, event: str, _arg: Any) -> Any:
            if event == "opcode":
                opcodes[kind] += 1
                if entry is not None:
                    opcodes[entry] += 1
                by_code[code] += 1
            return opcode

        return opcode


def install(counter: Counter) -> None:
    """Counts the tool job's entry points the core calls (looked up by name at each call, or
    imported once: patched before the first run)."""
    from deepagents_rs import _stream, _tools

    _stream.config_with_writer = counter.wrap("config", _stream.config_with_writer)
    for name in ("call_in_run", "call_in_async_run"):
        setattr(_tools.ToolAdapter, name, counter.wrap("call", getattr(_tools.ToolAdapter, name)))


def one_run(agent: Any, sim: Any, steps: int, mode: str, counter: Counter | None = None) -> None:
    """A conversation of ``steps`` steps (``steps - 1`` tool calls and a final answer), its
    caller counted by ``counter``."""
    from sim.anthropic import text, tool_use

    sim.reset()
    sim.script(*(tool_use(("echo", {"text": f"step {i}"})) for i in range(steps - 1)), text("done"))
    inputs = {"messages": [{"role": "user", "content": "go"}]}
    if mode == "invoke":
        out = agent.invoke(inputs) if counter is None else counter.counting(agent.invoke, inputs)
    else:
        run = agent.ainvoke(inputs) if counter is None else counter.acounting(agent.ainvoke, inputs)
        out = asyncio.run(run)
    if out["messages"][-1].content != "done" or len(out["messages"]) != 2 * steps:
        raise SystemExit(f"unexpected result: {len(out['messages'])} messages")


def counted_run(agent: Any, sim: Any, steps: int, mode: str, counter: Counter) -> dict[str, Tally]:
    """The counts of one conversation of ``steps`` steps."""
    counter.reset()
    counter.on = True
    try:
        one_run(agent, sim, steps, mode, counter)
    finally:
        counter.on = False
    calls = steps - 1
    # A sync tool's job makes its config in the core (no `config` entry); an async tool's
    # call is a coroutine the event loop runs (no `call` entry on a drainer).
    counted = (counter.entries["config"], counter.entries["call"])
    if calls not in counted or any(n not in (0, calls) for n in counted):
        raise SystemExit(f"expected {calls} tool calls, counted {dict(counter.entries)}")
    return {"opcodes": counter.opcodes.copy(), "calls": counter.calls.copy(), "by_code": counter.by_code.copy()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--modes", default="invoke,ainvoke")
    parser.add_argument("--async-tool", action="store_true", help="the tool as a coroutine function")
    parser.add_argument("--top", type=int, default=0)
    args = parser.parse_args()
    import deepagents_rs
    from sim.anthropic import SimAnthropic

    tool = async_echo if args.async_tool else echo
    print(f"deepagents_rs: {Path(deepagents_rs.__file__).parent}")
    print(
        f"{'an async' if args.async_tool else 'a'} plain tool each step; runs of {args.steps} and {2 * args.steps} steps"
    )
    print(
        f"instructions (Python calls): per step (the longer run's extra steps), per step of the {args.steps}-step run;"
        " tool job per call"
    )
    counter = Counter()
    install(counter)
    with SimAnthropic(min_cache_tokens=NO_CACHE_TOKENS, merge_consecutive_roles=True) as sim:
        point_env_at(sim)
        agent = deepagents_rs.create_deep_agent(model=MODEL, tools=[tool])
        head = ("mode", "tool job", "drainer/step", "caller/step", f"drainer/{args.steps}", f"caller/{args.steps}")
        print(f"{head[0]:<8}" + "".join(f"{h:>16}" for h in head[1:]))
        for mode in args.modes.split(","):
            if mode == "invoke" and args.async_tool:
                continue  # LangChain cannot `invoke` a coroutine-only tool
            one_run(agent, sim, args.steps, mode)
            short = counted_run(agent, sim, args.steps, mode, counter)
            long = counted_run(agent, sim, 2 * args.steps, mode, counter)

            def cell(key: str, per: str, short: dict = short, long: dict = long) -> str:
                got = [(run["opcodes"][key], run["calls"][key]) for run in (short, long)]
                if per == "step":
                    n = [(b - a) / args.steps for a, b in zip(got[0], got[1], strict=True)]
                else:
                    n = [x / args.steps for x in got[0]]
                return f"{n[0]:,.0f} ({n[1]:,.0f})"

            job = [(long["opcodes"][k], long["calls"][k]) for k in ("config", "call")]
            calls = 2 * args.steps - 1
            tool_job = f"{sum(o for o, _ in job) / calls:,.0f} ({sum(c for _, c in job) / calls:,.0f})"
            cells = [
                tool_job,
                cell("drainer", "step"),
                cell("caller", "step"),
                cell("drainer", "run"),
                cell("caller", "run"),
            ]
            print(f"{mode:<8}" + "".join(f"{c:>16}" for c in cells))
            extra = long["by_code"] - short["by_code"]
            for (kind, code), n in extra.most_common(args.top):
                where = f"{Path(code.co_filename).name}:{code.co_firstlineno} {code.co_name}"
                print(f"    {n / args.steps:>8,.0f}  {kind:<8} {where}")


if __name__ == "__main__":
    main()
