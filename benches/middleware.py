"""Per-step cost of the agent loop's hook chain: deepagents_rs vs deepagents 0.7.32.

Runs the tool loop of ``tool_loop.py``'s callback scenario (a scripted LangChain chat
model, ``--steps`` turns each calling a trivial ``echo`` tool, then a final answer) with
both implementations in this process, in four cases:

* ``none``: no user middleware;
* ``before_model``: one ``AgentMiddleware`` whose ``before_model`` returns ``None``;
* ``wrap_model_call``: one ``AgentMiddleware`` whose ``wrap_model_call`` returns ``handler(request)``;
* ``wrap_tool_call``: one ``AgentMiddleware`` whose ``wrap_tool_call`` returns ``handler(request)``;

each passed as ``create_deep_agent(model=..., tools=[echo], middleware=[...])``. It prints the
per-step time of every (implementation, case), the ratio deepagents / deepagents_rs, and what
each middleware adds per step over the ``none`` loop of the same implementation.

Usage::

    python benches/middleware.py [--steps 100] [--repeat 5]

``deepagents_rs`` is imported from whatever environment runs the script (the repository's
``python/`` directory is *not* put on ``sys.path``). The build type of the loaded extension
module is printed with the results.

This is a benchmark script, not a test; it never touches the network.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The scripted model lives in tests/; only that directory is added.
sys.path.insert(0, str(REPO / "tests"))
# benches/ itself, for the helpers shared with tool_loop.py.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool_loop import FINAL_TEXT, BenchError, build_info, check_output, echo, user_input

IMPLS = ("deepagents_rs", "deepagents")
CASES = ("none", "before_model", "wrap_model_call", "wrap_tool_call")


# --------------------------------------------------------------------------- middleware


def middleware_classes() -> dict[str, type]:
    """One trivial middleware class per case. Each counts its calls, so a run in which the
    middleware was silently dropped is caught instead of timed as fast."""
    from langchain.agents.middleware import AgentMiddleware

    class NoopBeforeModel(AgentMiddleware):
        def __init__(self) -> None:
            super().__init__()
            self.calls = 0

        def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
            self.calls += 1
            return None

    class PassThroughModelCall(AgentMiddleware):
        def __init__(self) -> None:
            super().__init__()
            self.calls = 0

        def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            self.calls += 1
            return handler(request)

    class PassThroughToolCall(AgentMiddleware):
        def __init__(self) -> None:
            super().__init__()
            self.calls = 0

        def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            self.calls += 1
            return handler(request)

    return {
        "before_model": NoopBeforeModel,
        "wrap_model_call": PassThroughModelCall,
        "wrap_tool_call": PassThroughToolCall,
    }


def expected_calls(case: str, steps: int) -> int:
    """Model calls: ``steps`` tool-calling turns plus the final answer; tool calls: ``steps``."""
    return steps if case == "wrap_tool_call" else steps + 1


# --------------------------------------------------------------------------- measurement


@dataclass
class Cell:
    """The timed runs of one (implementation, case)."""

    impl: str
    case: str
    steps: int
    wall_s: list[float] = field(default_factory=list)
    messages: set[int] = field(default_factory=set)
    error: str | None = None

    @property
    def per_step_us(self) -> float:
        return statistics.median(self.wall_s) / self.steps * 1e6


def one_run(
    impl: str, case: str, steps: int, create: Callable[..., Any], classes: dict[str, type]
) -> tuple[float, int]:
    """Build a fresh agent (not timed) and time one ``invoke``; returns (wall s, messages)."""
    from fake_models import ScriptedChatModel, ai_tool_calls

    model = ScriptedChatModel([*(ai_tool_calls(("echo", {"text": f"step {i}"})) for i in range(steps)), FINAL_TEXT])
    mw = classes[case]() if case != "none" else None
    agent = create(model=model, tools=[echo], middleware=[mw] if mw else [])
    # Collect the previous run's garbage now, so it is not collected (and timed) in this one.
    gc.collect()
    t0 = time.perf_counter()
    out = agent.invoke(user_input())
    wall = time.perf_counter() - t0
    if model.remaining:
        raise BenchError(f"{impl}/{case}: {model.remaining} scripted responses left unused")
    if mw is not None and mw.calls != expected_calls(case, steps):
        raise BenchError(f"{impl}/{case}: the middleware ran {mw.calls} times, expected {expected_calls(case, steps)}")
    return wall, check_output(f"{impl}/{case}", out, steps)


def run_all(steps: int, repeat: int) -> dict[tuple[str, str], Cell]:
    """One warm-up per cell, then ``repeat`` rounds. Each round runs every cell once, cases and
    implementations interleaved (in a rotated order), so drift in the machine's load hits all
    cells alike and the differences between cases (the added cost of a middleware) stay
    meaningful."""
    import deepagents
    import deepagents_rs

    creators = {"deepagents_rs": deepagents_rs.create_deep_agent, "deepagents": deepagents.create_deep_agent}
    classes = middleware_classes()
    cells = {(impl, case): Cell(impl, case, steps) for case in CASES for impl in IMPLS}

    def attempt(cell: Cell, timed: bool) -> None:
        if cell.error is not None:
            return
        try:
            wall, n = one_run(cell.impl, cell.case, steps, creators[cell.impl], classes)
        except Exception as e:  # noqa: BLE001 - report the exact error, keep measuring the rest
            cell.error = f"{type(e).__name__}: {e}"
            return
        if timed:
            cell.wall_s.append(wall)
            cell.messages.add(n)

    order = list(cells.values())
    for cell in order:
        attempt(cell, timed=False)
    for r in range(repeat):
        # Rotate the order each round, so no cell always follows the same one.
        k = (r * len(IMPLS)) % len(order)
        for cell in order[k:] + order[:k]:
            attempt(cell, timed=True)
    return cells


# --------------------------------------------------------------------------- report


def fmt_range(cell: Cell) -> str:
    if cell.error is not None or not cell.wall_s:
        return "n/a"
    return f"{min(cell.wall_s) / cell.steps * 1e6:.0f}-{max(cell.wall_s) / cell.steps * 1e6:.0f}"


def report(cells: dict[tuple[str, str], Cell]) -> bool:
    """Print the table; False when a cell failed or the message counts differ."""
    ok = True
    head = (
        f"{'case':<16} {'rs us/step':>11} {'ref us/step':>12} {'ratio':>7} "
        f"{'rs added us':>12} {'ref added us':>13} {'added ratio':>12}"
    )
    print(head)
    print("-" * len(head))

    def us(cell: Cell) -> float | None:
        return cell.per_step_us if cell.error is None and cell.wall_s else None

    def fmt(x: float | None, spec: str) -> str:
        return "n/a" if x is None else format(x, spec)

    rs_base, ref_base = us(cells["deepagents_rs", "none"]), us(cells["deepagents", "none"])
    for case in CASES:
        rs, ref = us(cells["deepagents_rs", case]), us(cells["deepagents", case])
        ratio = ref / rs if rs and ref else None
        rs_added = rs - rs_base if case != "none" and rs is not None and rs_base is not None else None
        ref_added = ref - ref_base if case != "none" and ref is not None and ref_base is not None else None
        # A ratio of two differences is only meaningful when the denominator is clearly positive.
        added_ratio = ref_added / rs_added if rs_added and ref_added and rs_added > 0 and ref_added > 0 else None
        print(
            f"{case:<16} {fmt(rs, '.1f'):>11} {fmt(ref, '.1f'):>12} {fmt(ratio, '.2f'):>7} "
            f"{fmt(rs_added, '.1f'):>12} {fmt(ref_added, '.1f'):>13} {fmt(added_ratio, '.2f'):>12}"
        )
    spread = [
        f"{case} rs {fmt_range(cells['deepagents_rs', case])}, ref {fmt_range(cells['deepagents', case])}"
        for case in CASES
    ]
    print("  run-to-run range (min-max us/step): " + "; ".join(spread))
    for cell in cells.values():
        if cell.error is not None:
            ok = False
            print(f"  {cell.impl}/{cell.case} FAILED: {cell.error}")
    counts = {f"{c.impl}/{c.case}": sorted(c.messages) for c in cells.values() if c.error is None}
    if len({tuple(v) for v in counts.values()}) != 1:
        ok = False
        print(f"  MESSAGE COUNTS DIFFER: {counts}")
    elif counts:
        print(f"  every run produced {next(iter(counts.values()))[0]} messages")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100, help="tool-calling model turns per run (default 100)")
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs per implementation and case; the median is reported"
    )
    args = parser.parse_args(argv)
    if args.steps < 1 or args.repeat < 1:
        parser.error("--steps and --repeat must be >= 1")

    import deepagents

    print(f"python {sys.version.split()[0]}, deepagents {deepagents.__version__}")
    print(f"deepagents_rs core: {build_info()}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other work on the machine skews the numbers)")
    print(
        f"steps={args.steps} repeat={args.repeat} (median of the timed runs after one warm-up, cells interleaved); "
        "us/step = invoke() wall time / steps; ratio = deepagents / deepagents_rs; "
        "added = us/step minus the same implementation's 'none' us/step"
    )
    t0 = time.perf_counter()
    cells = run_all(args.steps, args.repeat)
    print()
    ok = report(cells)
    print(f"  whole run {time.perf_counter() - t0:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
