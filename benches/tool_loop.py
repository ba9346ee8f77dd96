"""Per-step harness time of a long tool loop: deepagents_rs vs deepagents 0.7.32.

Runs one agent through ``--steps`` model turns, each calling a trivial user tool
``echo``, then a final text answer, with both implementations in this process:

* ``native``: ``model="anthropic:claude-sonnet-4-5"`` for both (deepagents_rs' Rust
  client; deepagents' ``init_chat_model`` -> langchain-anthropic ``ChatAnthropic``),
  both talking to one simulated Anthropic server on loopback
  (``tests/sim/anthropic.py``). The time the server spent in its request handler
  is subtracted from the wall time.
* ``callback``: both driven by the same scripted LangChain chat model
  (``tests/fake_models.py``), no HTTP at all.

Usage::

    python benches/tool_loop.py [--steps 100] [--repeat 3] [--scenario all|native|callback]

``deepagents_rs`` is imported from whatever environment runs the script (the
repository's ``python/`` directory is *not* put on ``sys.path``), so pointing the
script at another install means running it with that install's interpreter. The
build type of the loaded extension module is printed with the results.

This is a benchmark script, not a test; it never touches the network.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The simulator and the scripted model live in tests/; only that directory is added.
sys.path.insert(0, str(REPO / "tests"))

MODEL = "claude-sonnet-4-5"
MODEL_STRING = f"anthropic:{MODEL}"
PROMPT = "Call echo once per step until told otherwise."
FINAL_TEXT = "done"
# Far above any prompt in this benchmark: nothing is cached, so cache accounting
# cannot make one implementation's requests cheaper for the server than the other's.
NO_CACHE_TOKENS = 10**12


def echo(text: str) -> str:
    """Echo the given text back unchanged.

    Args:
        text: The text to echo.
    """
    return text


# --------------------------------------------------------------------------- build info


def build_info() -> str:
    """Where deepagents_rs' extension module was loaded from and which cargo profile built it."""
    import deepagents_rs._core as core

    so = Path(core.__file__)
    size_mb = so.stat().st_size / 1e6
    digest = hashlib.sha256(so.read_bytes()).hexdigest()
    profile = "unknown profile"
    # maturin develop copies target/<profile>/lib<crate>.so next to the package;
    # compare contents to name the profile when the build tree is at hand.
    for candidate in ("debug", "release"):
        built = REPO / "target" / candidate / "libdeepagents_rs.so"
        same_size = built.is_file() and built.stat().st_size == so.stat().st_size
        if same_size and hashlib.sha256(built.read_bytes()).hexdigest() == digest:
            profile = f"{candidate} build (identical to target/{candidate}/libdeepagents_rs.so)"
            break
    else:
        if size_mb > 50:
            profile = "probably a debug build (unstripped, > 50 MB)"
    return f"{so} ({size_mb:.1f} MB, sha256 {digest[:12]}): {profile}"


# --------------------------------------------------------------------------- measurement


class BenchError(Exception):
    """A run that did not do the work it is timed for; it must not count as fast."""


@dataclass
class Run:
    wall_s: float  # invoke() wall time
    server_s: float  # time the simulated server spent in its handler (0 without HTTP)
    messages: int

    @property
    def harness_s(self) -> float:
        return self.wall_s - self.server_s


@dataclass
class Result:
    impl: str
    steps: int
    runs: list[Run]

    def _median(self, key: Callable[[Run], float]) -> float:
        return statistics.median(key(r) for r in self.runs)

    @property
    def harness_s(self) -> float:
        return self._median(lambda r: r.harness_s)

    @property
    def wall_s(self) -> float:
        return self._median(lambda r: r.wall_s)

    @property
    def server_s(self) -> float:
        return self._median(lambda r: r.server_s)

    @property
    def per_step_ms(self) -> float:
        return self.harness_s / self.steps * 1e3


def check_output(impl: str, out: dict[str, Any], steps: int) -> int:
    """Fail loudly unless the run really went through every step."""
    msgs = out["messages"]
    # human, then (ai tool call, tool result) per step, then the final ai answer.
    expected = 2 * steps + 2
    if len(msgs) < expected:
        raise BenchError(f"{impl}: expected at least {expected} messages, got {len(msgs)}")
    echoed = [m for m in msgs if getattr(m, "type", None) == "tool" and m.name == "echo"]
    if len(echoed) != steps:
        raise BenchError(f"{impl}: expected {steps} echo tool results, got {len(echoed)}")
    if echoed[-1].content != f"step {steps - 1}":
        raise BenchError(f"{impl}: last echo returned {echoed[-1].content!r}")
    if msgs[-1].content != FINAL_TEXT:
        raise BenchError(f"{impl}: final message is {msgs[-1].content!r}, expected {FINAL_TEXT!r}")
    return len(msgs)


def measure(
    impl: str,
    steps: int,
    repeat: int,
    one_run: Callable[[], Run],
) -> Result:
    one_run()  # warm-up: imports, lazy initialisation, connection pools, JIT-free caches
    runs = [one_run() for _ in range(repeat)]
    counts = {r.messages for r in runs}
    if len(counts) != 1:
        raise BenchError(f"{impl}: message counts differ between runs: {sorted(counts)}")
    return Result(impl, steps, runs)


def user_input() -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": PROMPT}]}


# --------------------------------------------------------------------------- scenario A


def point_env_at(sim: Any) -> None:
    """Both implementations (and langchain-anthropic) find the simulated server through the
    environment; loopback bypasses any proxy."""
    os.environ["ANTHROPIC_BASE_URL"] = sim.base_url
    os.environ["ANTHROPIC_API_KEY"] = "sk-bench"
    for var in ("NO_PROXY", "no_proxy"):
        os.environ[var] = ",".join(filter(None, [os.environ.get(var), "127.0.0.1", "localhost"]))
    os.environ.pop("ANTHROPIC_AUTH_TOKEN", None)
    # Read before the base URL by both packages.
    os.environ.pop("ANTHROPIC_API_URL", None)


def scenario_native(steps: int, repeat: int) -> tuple[list[Result], list[str]]:
    import deepagents
    import deepagents_rs
    from sim.anthropic import SimAnthropic, text, tool_use

    notes: list[str] = []
    with SimAnthropic(min_cache_tokens=NO_CACHE_TOKENS, merge_consecutive_roles=True) as sim:
        point_env_at(sim)

        def script() -> None:
            sim.reset()
            sim.script(
                *(tool_use(("echo", {"text": f"step {i}"})) for i in range(steps)),
                text(FINAL_TEXT),
            )

        def runner(impl: str, agent: Any) -> Callable[[], Run]:
            def one_run() -> Run:
                script()
                t0 = time.perf_counter()
                out = agent.invoke(user_input())
                wall = time.perf_counter() - t0
                bad = [(r.seq, r.status, r.response) for r in sim.requests if r.status != 200]
                if bad:
                    raise BenchError(f"{impl}: the simulator answered non-200: {bad[:2]}")
                if sim.pending:
                    raise BenchError(f"{impl}: {sim.pending} scripted replies left unused")
                if len(sim.requests) != steps + 1:
                    raise BenchError(f"{impl}: {len(sim.requests)} requests for {steps + 1} replies")
                return Run(wall, sim.handler_seconds, check_output(impl, out, steps))

            return one_run

        results: list[Result] = []
        rs_agent = deepagents_rs.create_deep_agent(model=MODEL_STRING, tools=[echo])
        try:
            results.append(measure("deepagents_rs", steps, repeat, runner("deepagents_rs", rs_agent)))
        except Exception as e:  # noqa: BLE001 - report the exact error, keep measuring the reference
            notes.append(f"deepagents_rs FAILED: {type(e).__name__}: {e}")
        py_agent = deepagents.create_deep_agent(model=MODEL_STRING, tools=[echo])
        results.append(measure("deepagents", steps, repeat, runner("deepagents", py_agent)))

        floor = transport_floor(sim, steps + 1)
        notes.append(
            f"not subtracted (same for both): loopback + http.server parsing floor of a raw "
            f"http.client round trip = {floor * 1e3:.3f} ms per request"
        )
    return results, notes


def transport_floor(sim: Any, requests: int) -> float:
    """Per-request wall time of raw keep-alive round trips minus the handler time."""
    from sim.anthropic import text

    body = json.dumps({"model": MODEL, "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}).encode()
    headers = {"x-api-key": "sk-bench", "anthropic-version": "2023-06-01", "content-type": "application/json"}
    samples = []
    for _ in range(3):
        sim.reset()
        sim.script(*(text("ok") for _ in range(requests)))
        conn = http.client.HTTPConnection("127.0.0.1", sim.port)
        t0 = time.perf_counter()
        for _ in range(requests):
            conn.request("POST", "/v1/messages", body, headers)
            resp = conn.getresponse()
            resp.read()
            if resp.status != 200:
                raise BenchError(f"raw round trip: status {resp.status}")
        wall = time.perf_counter() - t0
        conn.close()
        samples.append((wall - sim.handler_seconds) / requests)
    return statistics.median(samples)


# --------------------------------------------------------------------------- scenario B


def scenario_callback(steps: int, repeat: int) -> tuple[list[Result], list[str]]:
    import deepagents
    import deepagents_rs
    from fake_models import ScriptedChatModel, ai_tool_calls

    def model() -> ScriptedChatModel:
        return ScriptedChatModel([*(ai_tool_calls(("echo", {"text": f"step {i}"})) for i in range(steps)), FINAL_TEXT])

    def runner(impl: str, create: Callable[..., Any]) -> Callable[[], Run]:
        def one_run() -> Run:
            # A fresh script per run; building the agent is not part of the loop.
            m = model()
            agent = create(model=m, tools=[echo])
            t0 = time.perf_counter()
            out = agent.invoke(user_input())
            wall = time.perf_counter() - t0
            if m.remaining:
                raise BenchError(f"{impl}: {m.remaining} scripted responses left unused")
            return Run(wall, 0.0, check_output(impl, out, steps))

        return one_run

    results: list[Result] = []
    notes: list[str] = []
    try:
        results.append(
            measure("deepagents_rs", steps, repeat, runner("deepagents_rs", deepagents_rs.create_deep_agent))
        )
    except Exception as e:  # noqa: BLE001
        notes.append(f"deepagents_rs FAILED: {type(e).__name__}: {e}")
    results.append(measure("deepagents", steps, repeat, runner("deepagents", deepagents.create_deep_agent)))
    return results, notes


# --------------------------------------------------------------------------- report


def report(title: str, results: list[Result], notes: list[str], *, http: bool) -> bool:
    """Print one scenario's table; False when a side failed or the runs differ."""
    print(f"\n== {title}")
    by_impl = {r.impl: r for r in results}
    rs = by_impl.get("deepagents_rs")
    head = f"{'implementation':<15} {'steps':>5} {'total s':>9} {'per-step ms':>12} {'ratio':>7}"
    if http:
        head += f" {'wall s':>9} {'server s':>9}"
    print(head)
    print("-" * len(head))
    for r in results:
        ratio = f"{r.harness_s / rs.harness_s:.2f}" if rs else "n/a"
        line = f"{r.impl:<15} {r.steps:>5} {r.harness_s:>9.3f} {r.per_step_ms:>12.3f} {ratio:>7}"
        if http:
            line += f" {r.wall_s:>9.3f} {r.server_s:>9.3f}"
        print(line)
    msg_counts = {r.impl: r.runs[0].messages for r in results}
    ok = len(results) == 2 and len(set(msg_counts.values())) == 1
    if len(set(msg_counts.values())) != 1:
        notes.append(f"MESSAGE COUNTS DIFFER: {msg_counts}")
    else:
        notes.append(f"both runs produced {next(iter(msg_counts.values()))} messages")
    if rs and "deepagents" in by_impl:
        notes.append(f"ratio deepagents / deepagents_rs = {by_impl['deepagents'].harness_s / rs.harness_s:.2f}x")
    for n in notes:
        print(f"  {n}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100, help="tool-calling model turns per run (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per measurement; the median is reported")
    parser.add_argument("--scenario", choices=("all", "native", "callback"), default="all")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.repeat < 1:
        parser.error("--steps and --repeat must be >= 1")

    import deepagents

    print(f"python {sys.version.split()[0]}, deepagents {deepagents.__version__}")
    print(f"deepagents_rs core: {build_info()}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other work on the machine skews the numbers)")
    print(
        f"steps={args.steps} repeat={args.repeat} (median of the timed runs after one warm-up); "
        "total s = harness time = wall - simulated server handler time"
    )
    ok = True
    if args.scenario in ("all", "native"):
        results, notes = scenario_native(args.steps, args.repeat)
        ok &= report("A. native: model='anthropic:claude-sonnet-4-5' over the simulated API", results, notes, http=True)
    if args.scenario in ("all", "callback"):
        results, notes = scenario_callback(args.steps, args.repeat)
        ok &= report("B. callback: ScriptedChatModel (no HTTP)", results, notes, http=False)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
