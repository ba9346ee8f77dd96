"""Python calls per step of a checkpointed tool loop: deepagents_rs vs deepagents 0.7.32.

The same run as ``threads.py``'s ``scripted`` scenario (a scripted LangChain chat model, one
trivial ``echo`` call per step, then a final answer), with every Python function call and
builtin call counted (``sys.setprofile``), divided by the steps. Unlike a time, the count
does not move with the machine's load, so it shows what a change to the thread writer saves.

Columns:

* ``first``: the agent's first run, on a fresh thread (as ``threads.py`` times it:
  deepagents_rs builds its thread graph then), calls on the calling thread per step;
* ``warm``: a second run of the same agent on another thread, calls on the calling thread;
* ``others``: the warm run's calls on the threads LangGraph starts (its background executor),
  per step: with a saver, the saver's ``put`` / ``put_writes`` (serializing, SQL), which
  both implementations hand it; for deepagents also its tools, which LangGraph's tool node
  runs there. The core's own threads (deepagents_rs' model and tool calls) are not counted;
* ``marginal``: what one more step costs on the calling thread: the warm count of a run of
  ``2 * steps`` steps less that of ``steps``, over ``steps`` (the run's fixed cost, such as
  loading a long thread, left out), so a count that grows with ``--history`` is a per-step
  cost that does.

``--history N`` gives the warm runs' threads ``N`` earlier messages first (as ``threads.py``
does, untimed and uncounted).

Rows: no saver, ``InMemorySaver`` and ``SqliteSaver``; for deepagents_rs with the direct
thread writer (``_direct_writer``) and with LangGraph's own runner.

Usage::

    python benches/thread_calls.py [--steps 50] [--history 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from threads import THREAD, Savers, earlier_messages
from tool_loop import echo


class Counts:
    """Calls on the calling thread and on the threads started meanwhile, while `counting`."""

    def __init__(self) -> None:
        self.main = 0
        self.others = 0
        self.lock = threading.Lock()

    def run(self, fn: Any) -> None:
        caller = threading.get_ident()

        def profile(_frame: Any, event: str, _arg: Any) -> None:
            if event not in ("call", "c_call"):
                return
            if threading.get_ident() == caller:
                self.main += 1
            else:
                with self.lock:
                    self.others += 1

        threading.setprofile(profile)
        sys.setprofile(profile)
        try:
            fn()
        finally:
            sys.setprofile(None)
            threading.setprofile(None)


def counted(create: Any, kind: str, steps: int, savers: Savers, history: int) -> tuple[Counts, Counts]:
    """The counts of the agent's first run (fresh thread) and of a warm one (another thread,
    ``history`` earlier messages)."""
    from fake_models import ScriptedChatModel, ai_tool_calls

    replies = [*(ai_tool_calls(("echo", {"text": f"step {i}"})) for i in range(steps)), "done"]
    saver = savers.make(kind)
    threaded = saver is not None and history > 0
    model = ScriptedChatModel(replies + ["earlier answer"] * threaded + replies)
    agent = create(model=model, tools=[echo], checkpointer=saver)
    out = []
    for thread in ("first", "warm"):
        config = {"configurable": {"thread_id": thread}} if saver is not None else None
        earlier = earlier_messages(history) if thread == "warm" else []
        if threaded and thread == "warm":
            agent.invoke({"messages": [*earlier, {"role": "user", "content": "earlier question"}]}, config)
            earlier = []
        result: dict = {}
        counts = Counts()

        def run(config: Any = config, result: dict = result, earlier: list = earlier) -> None:
            result.update(agent.invoke({"messages": [*earlier, {"role": "user", "content": "go"}]}, config))

        counts.run(run)
        held = (history + 2 * threaded) if thread == "warm" else 0
        if len(result["messages"]) != held + 2 * steps + 2:
            raise SystemExit(f"{len(result['messages'])} messages, expected {held + 2 * steps + 2}")
        out.append(counts)
    if saver is not None:
        held = len(agent.get_state(THREAD | {"configurable": {"thread_id": "warm"}}).values["messages"])
        if held != len(result["messages"]):
            raise SystemExit("the thread read back does not hold the run's messages")
    return out[0], out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--history", type=int, default=0, help="earlier messages on the warm runs' threads")
    args = parser.parse_args()
    import deepagents
    import deepagents_rs
    from deepagents_rs import _direct_writer

    steps, history = args.steps, args.history
    print(f"Python calls per step, {steps} steps, scripted model; warm runs on a thread of {history} earlier messages")
    print(f"(counts, not times: the load does not move them; load average {os.getloadavg()[0]:.2f})")
    print(f"{'saver':8} {'implementation':24} {'first':>8} {'warm':>8} {'others':>8} {'marginal':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        savers = Savers(Path(tmp))
        for kind in ("none", "memory", "sqlite"):
            rows = [("deepagents", deepagents.create_deep_agent, None)]
            if kind == "none":
                rows.append(("deepagents_rs", deepagents_rs.create_deep_agent, True))
            else:
                rows.append(("deepagents_rs, runner", deepagents_rs.create_deep_agent, False))
                rows.append(("deepagents_rs, writer", deepagents_rs.create_deep_agent, True))
            for name, create, writer in rows:
                if writer is not None:
                    _direct_writer.ENABLED = writer
                first, warm = counted(create, kind, steps, savers, history)
                _, longer = counted(create, kind, 2 * steps, savers, history)
                marginal = (longer.main - warm.main) / steps
                print(
                    f"{kind:8} {name:24} {first.main / steps:8.0f} {warm.main / steps:8.0f}"
                    f" {warm.others / steps:8.0f} {marginal:9.0f}"
                )
    _direct_writer.ENABLED = True


if __name__ == "__main__":
    main()
