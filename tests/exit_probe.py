"""The exit probe: does a process whose daemon threads are inside runs exit cleanly?

A child process builds agents (a LangChain model from ``fake_models`` and the native client
on the simulated Anthropic server), starts daemon threads that loop ``invoke``, ``ainvoke``,
``stream`` and ``astream`` (each run calls tools, so the core calls back into Python), sleeps
a little and lets its main thread return. CPython then finalizes while the core's threads
and the daemon threads are waiting on, or about to retake, the GIL. It must exit 0: a thread
that retakes the GIL once finalization started is ended by CPython 3.11 with
``pthread_exit``, whose forced unwind through Rust frames aborts the process ("FATAL:
exception not rethrown", rc 134).

Too slow for CI (a crash shows in a few runs of a hundred, on a loaded machine)::

    python tests/exit_probe.py --runs 60          # the crash rate: runs, failures, codes
    python tests/exit_probe.py --child            # one child, by hand
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODES = ("invoke", "ainvoke", "stream", "astream")


def loop(agent: Any, mode: str, done: Callable[[], None] = lambda: None) -> None:
    """Runs the agent over and over in ``mode`` until the process ends, calling ``done``
    after each run."""
    inputs = {"messages": [{"role": "user", "content": "go"}]}

    async def arun() -> None:
        while True:
            if mode == "ainvoke":
                await agent.ainvoke(inputs)
            else:
                async for _ in agent.astream(inputs, stream_mode="values"):
                    pass
            done()

    if mode.startswith("a"):
        asyncio.run(arun())
    while True:
        if mode == "invoke":
            agent.invoke(inputs)
        else:
            for _ in agent.stream(inputs, stream_mode="values"):
                pass
        done()


def _echo(text: str) -> str:
    """Echo the text back."""
    return text


def turns() -> Any:
    """A LangChain model that calls ``_echo`` then says "done", every run, without end: a
    script (``ScriptedChatModel``'s) would be repeated in LangChain's repr of the model on
    each call, which with thousands of replies left no time for runs."""
    from fake_models import ScriptedChatModel, ai_tool_calls
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class Turns(ScriptedChatModel):
        def _next(self, messages: list[BaseMessage], stop: Any, kwargs: Any) -> ChatResult:
            done = isinstance(messages[-1], ToolMessage)
            reply = AIMessage(content="done") if done else ai_tool_calls(("_echo", {"text": "a"}, "call_1"))
            return ChatResult(generations=[ChatGeneration(message=reply)])

    return Turns()


def _agents(rounds: int) -> list[Any]:
    from deepagents_rs import create_deep_agent
    from sim.anthropic import SimAnthropic, text, tool_use

    # Each native run takes a tool call then a text reply, from a script long enough for the
    # probe; threads share it, so a run may take two tool calls in a row: it still ends.
    sim = SimAnthropic(min_cache_tokens=1 << 30).__enter__()
    sim.script(*[r for _ in range(rounds) for r in (tool_use(("_echo", {"text": "a"})), text("done"))])
    os.environ["ANTHROPIC_BASE_URL"] = sim.base_url
    os.environ["ANTHROPIC_API_KEY"] = "sk-test-not-a-real-key"
    return [
        create_deep_agent(model=turns(), tools=[_echo]),
        create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[_echo]),
    ]


def child(per_mode: int, sleep: float, modes: list[str]) -> None:
    sys.path.insert(0, str(HERE))
    for agent in _agents(rounds=3_000):
        for mode in modes:
            for _ in range(per_mode):
                threading.Thread(target=loop, args=(agent, mode), daemon=True).start()
    time.sleep(sleep)


def runner(runs: int, per_mode: int, modes: list[str]) -> int:
    codes: collections.Counter[int | str] = collections.Counter()
    shown = 0
    for i in range(runs):
        sleep = random.uniform(0.2, 1.5)
        args = [sys.executable, __file__, "--child", "--per-mode", str(per_mode), "--sleep", f"{sleep:.2f}"]
        args += ["--modes", *modes]
        try:
            done = subprocess.run(args, capture_output=True, text=True, timeout=180, check=False)
        except subprocess.TimeoutExpired:
            codes["hung"] += 1
            print(f"run {i}: hung (slept {sleep:.2f} s)", flush=True)
            continue
        codes[done.returncode] += 1
        if done.returncode != 0 and shown < 5:
            shown += 1
            # The fatal error's first lines say which thread died and how.
            head = "\n    ".join(done.stderr.strip().splitlines()[:2])
            print(f"run {i}: rc {done.returncode} (slept {sleep:.2f} s)\n    {head}", flush=True)
    failed = runs - codes[0]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"runs {runs}, failed {failed}, exit codes {dict(codes)}, load {load}")
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", action="store_true", help="be one probed process")
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--per-mode", type=int, default=2, help="daemon threads per agent and mode")
    parser.add_argument("--sleep", type=float, default=0.5, help="(child) seconds before the main thread returns")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="the ways the daemons run")
    args = parser.parse_args()
    if args.child:
        child(args.per_mode, args.sleep, args.modes)
    else:
        raise SystemExit(runner(args.runs, args.per_mode, args.modes))


if __name__ == "__main__":
    main()
