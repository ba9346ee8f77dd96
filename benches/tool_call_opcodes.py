"""Python bytecode instructions of one tool call's job (deepagents_rs only), counted in a real
run: a count that does not move with the machine's load, for telling two states of the tool
job's Python apart where ``concurrency.py``'s CPU times drown them in noise.

The run is ``concurrency.py``'s agent at one thread: ``create_deep_agent`` with the full default
stack, the Rust Anthropic client over the simulated API (``tests/sim``), a trivial ``echo`` tool
each step (a plain function tool), no saver. What the core runs for each tool call in Python is
counted where it runs (a ``dars-python`` thread under ``invoke`` and ``ainvoke``): the tool's
config (``_stream.config_with_writer``) and the call (the adapter's ``call_in_run`` /
``call_in_async_run``), each frame traced (``sys.settrace`` with ``f_trace_opcodes``) from its
entry on that thread. The counts are per call, after a warm-up run (the first call's imports
and caches are not counted); C code is not counted (``Context.run``, the core's conversions).

``--top N`` lists the N functions with the most instructions per call (their own, not their
callees').

Usage::

    python benches/tool_call_opcodes.py [--steps 20] [--modes invoke,ainvoke] [--top 0]
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


class Counter:
    """Counts the bytecode instructions and Python calls of the traced entry points, by entry
    point and by function (code object)."""

    def __init__(self) -> None:
        self.opcodes: Tally[str] = Tally()
        self.calls: Tally[str] = Tally()
        self.by_code: Tally[Any] = Tally()
        self.entries: Tally[str] = Tally()
        self.on = False
        self._local = threading.local()

    def wrap(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` counted under ``label`` when called outside another counted call."""

        def counted(*args: Any, **kwargs: Any) -> Any:
            if not self.on or getattr(self._local, "label", None) is not None:
                return fn(*args, **kwargs)
            self._local.label = label
            self.entries[label] += 1
            sys.settrace(self._call)
            try:
                return fn(*args, **kwargs)
            finally:
                sys.settrace(None)
                self._local.label = None

        return counted

    def _call(self, frame: Any, event: str, _arg: Any) -> Any:
        if event != "call":
            return None
        self.calls[self._local.label] += 1
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return self._opcode

    def _opcode(self, frame: Any, event: str, _arg: Any) -> Any:
        if event == "opcode":
            self.opcodes[self._local.label] += 1
            self.by_code[frame.f_code] += 1
        return self._opcode


def install(counter: Counter) -> None:
    """Counts the tool job's entry points the core calls (looked up by name at each call, or
    imported once: patched before the first run)."""
    from deepagents_rs import _stream, _tools

    _stream.config_with_writer = counter.wrap("config", _stream.config_with_writer)
    for name in ("call_in_run", "call_in_async_run"):
        setattr(_tools.ToolAdapter, name, counter.wrap("call", getattr(_tools.ToolAdapter, name)))


def one_run(agent: Any, sim: Any, steps: int, mode: str) -> None:
    from sim.anthropic import text, tool_use

    sim.reset()
    sim.script(*(tool_use(("echo", {"text": f"step {i}"})) for i in range(steps - 1)), text("done"))
    inputs = {"messages": [{"role": "user", "content": "go"}]}
    out = agent.invoke(inputs) if mode == "invoke" else asyncio.run(agent.ainvoke(inputs))
    if out["messages"][-1].content != "done" or len(out["messages"]) != 2 * steps:
        raise SystemExit(f"unexpected result: {len(out['messages'])} messages")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--modes", default="invoke,ainvoke")
    parser.add_argument("--top", type=int, default=0)
    args = parser.parse_args()
    import deepagents_rs
    from sim.anthropic import SimAnthropic

    print(f"deepagents_rs: {Path(deepagents_rs.__file__).parent}")
    print(f"one plain tool call ({args.steps - 1} a run), per call: instructions (Python calls)")
    counter = Counter()
    install(counter)
    with SimAnthropic(min_cache_tokens=NO_CACHE_TOKENS, merge_consecutive_roles=True) as sim:
        point_env_at(sim)
        agent = deepagents_rs.create_deep_agent(model=MODEL, tools=[echo])
        print(f"{'mode':<8} {'config':>14} {'call':>14} {'total':>14}")
        for mode in args.modes.split(","):
            one_run(agent, sim, args.steps, mode)
            counter.__init__()
            counter.on = True
            one_run(agent, sim, args.steps, mode)
            counter.on = False
            calls = args.steps - 1
            if counter.entries["config"] != calls or counter.entries["call"] != calls:
                raise SystemExit(f"expected {calls} calls, counted {dict(counter.entries)}")
            cells = [f"{counter.opcodes[k] / calls:,.0f} ({counter.calls[k] / calls:,.0f})" for k in ("config", "call")]
            total = sum(counter.opcodes.values()) / calls
            print(f"{mode:<8} {cells[0]:>14} {cells[1]:>14} {total:>14,.0f}")
            for code, n in counter.by_code.most_common(args.top):
                where = f"{Path(code.co_filename).name}:{code.co_firstlineno} {code.co_name}"
                print(f"    {n / calls:>8,.0f}  {where}")


if __name__ == "__main__":
    main()
