"""The performance targets, measured in one run: deepagents 0.7.32 and deepagents_rs side by side.

One command runs every measurement the performance issue names, each with both
implementations in the same run on the same machine, prints one table (with the ratio and the
target each row is held to), and writes the results as JSON and a PNG chart:

* **step**: per-step harness time of a 20-step tool loop (the full default stack, the
  Anthropic model by name: deepagents_rs' Rust client, deepagents' ``ChatAnthropic``) against
  the asyncio simulated API (``sim_async.py``) in its own process, no latency, one
  conversation at a time, with a short history and with 2,000 earlier messages
  (``concurrency.py --history``): the client process' CPU time per step (the median of the
  repeats; held to the targets) and, beside it, the wall time less the server's own handling
  time; and, for information, one more step's CPU (a 60-step run's less a 20-step run's, per
  extra step): a step without the once-a-run work a long input brings (reading it, the first
  request's encoding, the result's message objects);
* **fork start**: from the parent's ``task`` reply to the fork's first model call, at 10,
  1,000 and 10,000 parent messages (``fork.py``, scripted model, no HTTP), and its growth
  in process CPU time less the model's own LangChain ``invoke``; and with the Anthropic model
  by name, from the simulated API's reply to the fork's request (``fork_native.py``; the
  parent's ``task`` reply sent after 50 ms at every size, as a model answers), whose growth in
  CPU time is held to the target, and beside it for information the growth with that reply
  sent at once (the client then wakes warmer at 10 messages than at 10,000);
* **fork cache**: the cache-read fraction and input cost of the subagent's first request,
  fork against an isolated subagent, on a parent with 40 earlier messages (``fork.py``,
  simulated API with its prompt cache);
* **threads**: 1,000 concurrent 20-step conversations at 20 ms latency, ``ainvoke`` and
  thread-pool ``invoke``, each in its own process against a fresh server (``concurrency.py``);
  deepagents runs ``--reference-threads`` of them (default 100): its steps per second compare,
  its wall time and RSS do not;
* **checkpointed step**: per-step harness time of a 50-step tool loop on an ``InMemorySaver``
  and a ``SqliteSaver`` thread, fresh and holding 2,000 earlier messages (``threads.py``'s
  native scenario: each side's Anthropic client over the simulated API, the server's handling
  time subtracted);
* **import**: ``import <package>`` in a fresh interpreter, its CPU time held to the target
  (``startup.py``).

Usage::

    pip install ".[bench]"        # deepagents 0.7.32, its providers, matplotlib
    python benches/all.py [--quick] [--out benches/results]

``--quick`` runs fewer threads and repeats (a smoke run, not for the README). The run's
machine (CPUs, load average, Python, the ``_core`` build) is printed and saved with the
results; numbers from a loaded machine are not comparable with an idle one's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import concurrency
import fork
import fork_native
import startup
import threads
from tool_loop import build_info

RS, REF = "deepagents_rs", "deepagents"


def row(metric: str, ref: float | None, rs: float | None, unit: str, target: str, met: bool | None, ratio: bool = True):
    return {
        "metric": metric,
        REF: ref,
        RS: rs,
        "unit": unit,
        "ratio": (ref / rs) if ratio and ref and rs else None,
        "target": target,
        "met": met,
    }


def steps_section(steps: int, repeat: int) -> list[dict[str, Any]]:
    """Per-step harness time as the client process' CPU time per step (the median of
    ``repeat`` runs, each in a fresh process): the harness' own work, which a loaded machine
    does not inflate as it does wall time. The wall time less the server's handling time is
    shown beside it, without a target (see ``concurrency.py``'s docstring)."""
    cpu: dict[tuple[str, int], float] = {}
    wall: dict[tuple[str, int], float] = {}
    # A run's CPU in ms by its number of steps: a longer run less this one, per extra step, is
    # the cost of one more step without the once-a-run work (the input read, the first
    # request's encoding, the result objects), which a 2,000-message history makes large.
    run_cpu: dict[tuple[str, int, int], float] = {}
    longer = 3 * steps
    for history in (0, 2000):
        for impl in ("reference", "rs"):
            for n in (steps, longer):
                runs = [concurrency.run_one(impl, "invoke", 1, n, 0.0, history) for _ in range(repeat)]
                for r in runs:
                    if r["failed"]:
                        raise SystemExit(f"step {impl} history={history}: {r['problems']}")
                run_cpu[(impl, history, n)] = statistics.median(r["cpu"] for r in runs) * 1000
                if n == steps:
                    cpu[(impl, history)] = statistics.median(r["cpu_per_step_ms"] for r in runs)
                    wall[(impl, history)] = statistics.median(r["harness_per_step_ms"] for r in runs)
    rows = []
    for history in (0, 2000):
        ref, rs = cpu[("reference", history)], cpu[("rs", history)]
        rows.append(
            row(f"step, {history or 'no'} earlier messages (CPU)", ref, rs, "ms/step", ">= 50x", ref / rs >= 50)
        )
        ref, rs = wall[("reference", history)], wall[("rs", history)]
        rows.append(row(f"step, {history or 'no'} earlier messages (wall less server)", ref, rs, "ms/step", "", None))
    growth_rs = cpu[("rs", 2000)] / cpu[("rs", 0)]
    growth_ref = cpu[("reference", 2000)] / cpu[("reference", 0)]
    rows.append(
        row("step growth (CPU), 2,000 vs no history", growth_ref, growth_rs, "x", "rs <= 1.5x", growth_rs <= 1.5, False)
    )
    extra: dict[tuple[str, int], float] = {
        (impl, history): (run_cpu[(impl, history, longer)] - run_cpu[(impl, history, steps)]) / (longer - steps)
        for impl in ("reference", "rs")
        for history in (0, 2000)
    }
    for history in (0, 2000):
        label = f"step, {history or 'no'} earlier messages, one more step (CPU, {longer} less {steps} steps)"
        rows.append(row(label, extra[("reference", history)], extra[("rs", history)], "ms/step", "", None))

    def growth(impl: str) -> float | None:
        # A difference of medians: a noisy run can leave no extra cost to divide by.
        return extra[(impl, 2000)] / extra[(impl, 0)] if extra[(impl, 0)] > 0 else None

    rows.append(
        row(
            "one more step's growth (CPU), 2,000 vs no history",
            growth("reference"),
            growth("rs"),
            "x",
            "",
            None,
            False,
        )
    )
    return rows


def fork_sections(repeat: int) -> list[dict[str, Any]]:
    warnings.filterwarnings("ignore", message=".*forked subagents.*")
    results, notes = fork.scenario_cost([10, 1000, 10000], repeat)
    if notes:
        raise SystemExit(f"fork start: {notes}")
    start = {(r.impl, r.n): r.median(lambda run: run.fork_s) * 1000 for r in results}
    rows = [
        row(f"fork start, {n:,} parent messages", start[(REF, n)], start[(RS, n)], "ms", "", None)
        for n in (10, 1000, 10000)
    ]

    # Growth is judged on process CPU time, as the steps are: on a loaded machine the wall
    # clock of a millisecond window is mostly waiting for a core.
    def growth(results: list[Any], key: Any) -> dict[str, float]:
        by = {(r.impl, r.n): r.median(key) for r in results}
        return {impl: by[(impl, 10000)] / by[(impl, 10)] for impl in (REF, RS)}

    # With a LangChain model the window holds the model's own `invoke` (entered ->
    # `_generate`), which checks, copies and formats every message, on both sides alike.
    whole = growth(results, lambda run: run.fork_cpu_s)
    rows.append(
        row("fork start growth, 10,000 vs 10 (CPU, LangChain model)", whole[REF], whole[RS], "x", "", None, False)
    )
    own = {(r.impl, r.n): r.median(lambda run: run.model_invoke_s) * 1000 for r in results}
    rows.append(row("fork start, 10,000: the model's own invoke", own[(REF, 10000)], own[(RS, 10000)], "ms", "", None))
    grown = growth(results, lambda run: run.harness_cpu_s)
    rows.append(
        row(
            "fork start less the model's invoke, growth (CPU)",
            grown[REF],
            grown[RS],
            "x",
            "rs <= 2x",
            grown[RS] <= 2,
            False,
        )
    )
    # The Anthropic model by name: the window is the harness's own from the reply to the
    # request on the wire (deepagents: ChatAnthropic's whole call).
    native, notes = fork_native.scenario_native([10, 1000, 10000], repeat)
    if notes:
        raise SystemExit(f"fork start (native): {notes}")
    cpu = {(r.impl, r.n): r.median(lambda run: run.fork_cpu_s) * 1000 for r in native}
    rows.extend(
        row(
            f"fork start (CPU), Anthropic client, {n:,} parent messages (reply after 50 ms)",
            cpu[(REF, n)],
            cpu[(RS, n)],
            "ms",
            "",
            None,
        )
        for n in (10, 10000)
    )
    grown = growth(native, lambda run: run.fork_cpu_s)
    rows.append(
        row("fork start growth (CPU), Anthropic client", grown[REF], grown[RS], "x", "rs <= 2x", grown[RS] <= 2, False)
    )
    # The same with the parent's reply sent at once (the measure before fork24d): the client
    # then sleeps only while the simulator reads the parent's request, ~1 ms at 10 messages and
    # ~10 ms at 10,000, so the window at 10 starts warm. Shown for information, no target.
    at_once, notes = fork_native.scenario_native([10, 10000], repeat, 0.0)
    if notes:
        raise SystemExit(f"fork start (native, reply at once): {notes}")
    grown = growth(at_once, lambda run: run.fork_cpu_s)
    rows.append(
        row(
            "fork start growth (CPU), Anthropic client, parent's reply at once",
            grown[REF],
            grown[RS],
            "x",
            "",
            None,
            False,
        )
    )
    cache, notes = fork.scenario_cache(40)
    if notes:
        raise SystemExit(f"fork cache: {notes}")
    by = dict(cache)
    for label, name in (("plain fork", "fork"), ("isolated subagent", "isolated subagent")):
        r = by[label]
        rows.append(
            row(f"{name}: first request cache-read fraction", r[REF].fraction, r[RS].fraction, "", "", None, False)
        )
        rows.append(row(f"{name}: first request input cost", r[REF].cost, r[RS].cost, "token units", "", None))
    return rows


def threads_section(count: int, reference_count: int) -> list[dict[str, Any]]:
    rows = []
    for mode in ("ainvoke", "invoke"):
        ref = concurrency.run_one("reference", mode, reference_count, 20, 0.02)
        rs = concurrency.run_one("rs", mode, count, 20, 0.02)
        for r in (ref, rs):
            if r["failed"]:
                raise SystemExit(f"threads {r['impl']} {mode}: {r['problems']}")
        label = f"{count:,} threads x 20 steps, {mode}"
        rows.append(row(f"{label}: wall (ideal {rs['ideal']:.2f} s)", None, rs["wall"], "s", "<= 3 s", rs["wall"] <= 3))
        rows.append(row(f"{label}: CPU", None, rs["cpu"], "s", "", None))
        rows.append(row(f"{label}: peak RSS", None, rs["peak_rss_mib"], "MiB", "< 300 MiB", rs["peak_rss_mib"] < 300))
        rows.append(
            row(
                f"{label}: model steps/s (deepagents: {reference_count} threads)",
                ref["steps_per_s"],
                rs["steps_per_s"],
                "steps/s",
                ">= 7,000",
                rs["steps_per_s"] >= 7000,
                False,
            )
        )
        rows[-1]["ratio"] = rs["steps_per_s"] / ref["steps_per_s"]
    return rows


def checkpoint_section(steps: int, repeat: int) -> list[dict[str, Any]]:
    """``threads.py``'s native scenario: each side's Anthropic client over the simulated API,
    the server's handling time subtracted; on a fresh thread and on one of 2,000 earlier
    messages the saver loads (``threads.py --history``).

    The target (issue 19: "at least 10x less harness time per step") is judged on the
    harness's CPU per step (``threads.py``'s ``cpu``: every thread's, less the saver's own
    ``put`` / ``put_writes``; the simulated server runs in its own process, ``sim_process.py``),
    not on wall time: a run waits for its saver's disk syncs, which neither harness controls,
    and which put a floor under both sides' wall time (``threads.py``'s ``bound``). The wall
    rows are kept for information."""
    import deepagents
    import deepagents_rs

    creates = {RS: deepagents_rs.create_deep_agent, REF: deepagents.create_deep_agent}
    rows = []
    with tempfile.TemporaryDirectory() as tmp, threads.scenarios(["native"], steps) as (scenario,):
        savers = threads.Savers(Path(tmp))
        for kind in ("memory", "sqlite"):
            cpu: dict[tuple[str, int], float] = {}
            wall: dict[tuple[str, int], float] = {}
            for history in (0, 2000):
                by_impl = threads.interleaved(
                    creates,
                    lambda create, kind=kind, history=history: threads.one_run(
                        create, scenario, savers.make(kind), history
                    ),
                    repeat,
                    kind,
                )
                if len(by_impl) != len(creates):
                    raise RuntimeError(f"a {kind} saver run failed (printed above)")
                for impl, runs in by_impl.items():
                    cpu[(impl, history)] = statistics.median(r.cpu for r in runs) / steps * 1000
                    wall[(impl, history)] = statistics.median(r.harness for r in runs) / steps * 1000
                label = f"checkpointed step ({kind} saver{', 2,000 earlier messages' if history else ''})"
                ref, rs = cpu[(REF, history)], cpu[(RS, history)]
                rows.append(row(f"{label}, harness CPU", ref, rs, "ms/step", ">= 10x", ref / rs >= 10))
                rows.append(row(f"{label}, wall", wall[(REF, history)], wall[(RS, history)], "ms/step", "", None))
            growth_rs = cpu[(RS, 2000)] / cpu[(RS, 0)]
            growth_ref = cpu[(REF, 2000)] / cpu[(REF, 0)]
            rows.append(
                row(
                    f"checkpointed step growth ({kind}), 2,000 vs no history, harness CPU",
                    growth_ref,
                    growth_rs,
                    "x",
                    "rs <= 1.5x",
                    growth_rs <= 1.5,
                    False,
                )
            )
    return rows


def import_section(repeat: int) -> list[dict[str, Any]]:
    """``import <package>``, held to its target on CPU time: the work of the import (on
    cached bytecode, as an installed wheel has it), which is what an idle machine's wall time
    shows too; on a loaded machine the wall time mostly measures waiting for a core. The
    wall time is shown beside it."""
    ref, rs = (startup.measure(f"import {pkg}", repeat) for pkg in (REF, RS))
    return [
        row("import, CPU", ref.cpu, rs.cpu, "s", "rs < 0.15 s", rs.cpu < 0.15),
        row("import, wall", ref.seconds, rs.seconds, "s", "", None),
    ]


def fmt(v: float | None) -> str:
    if v is None:
        return ""
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| measurement | deepagents 0.7.32 | deepagents_rs | unit | ratio | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = f"{r['ratio']:.1f}x" if r["ratio"] else ""
        met = {True: "yes", False: "**no**", None: ""}[r["met"]]
        lines.append(
            f"| {r['metric']} | {fmt(r[REF])} | {fmt(r[RS])} | {r['unit']} | {ratio} | {r['target']} | {met} |"
        )
    return "\n".join(lines)


def chart(rows: list[dict[str, Any]], machine: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [r for r in rows if r["ratio"]]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(shown) + 1.5))
    labels = [r["metric"] for r in shown][::-1]
    ratios = [r["ratio"] for r in shown][::-1]
    colors = ["#2a7" if r >= 1 else "#c44" for r in ratios]
    ax.barh(labels, ratios, color=colors)
    ax.set_xscale("log")
    ax.axvline(1, color="#444", linewidth=0.8)
    for y, ratio in enumerate(ratios):
        ax.text(ratio, y, f" {ratio:.1f}x", va="center", fontsize=8)
    ax.set_xlabel("deepagents / deepagents_rs, log scale (higher: deepagents_rs faster or cheaper)")
    ax.set_title(f"deepagents_rs vs deepagents 0.7.32, side by side in one run\n{machine}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer threads and repeats: a smoke run")
    parser.add_argument("--out", type=Path, default=HERE / "results", help="where the JSON and PNG go")
    args = parser.parse_args(argv)
    count, reference_count, repeat = (100, 20, 1) if args.quick else (1000, 100, 3)

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    short = f"{os.cpu_count()} CPUs ({platform.machine()}), load average at start {load}, Python {platform.python_version()}"
    # The results are committed: the module's path is given relative to the repository.
    machine = f"{short}, _core {build_info().replace(str(HERE.parent) + '/', '')}"
    print(machine, flush=True)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    for name, section in (
        ("step", lambda: steps_section(20, repeat)),
        ("fork", lambda: fork_sections(repeat)),
        ("threads", lambda: threads_section(count, reference_count)),
        ("checkpointed step", lambda: checkpoint_section(50, repeat)),
        ("import", lambda: import_section(5 if args.quick else 11)),
    ):
        print(f"-- {name} ...", flush=True)
        try:
            rows += section()
        except Exception as e:  # noqa: BLE001 - the row says so, and the exit status
            print(f"   FAILED: {type(e).__name__}: {e}", flush=True)
            rows.append(row(f"{name}: FAILED ({type(e).__name__}: {e})"[:160], None, None, "", "", False))
    print()
    print(table(rows))
    print(f"\n{machine}; load average at the end {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"total {time.perf_counter() - started:.0f} s")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "all.json").write_text(json.dumps({"machine": machine, "rows": rows}, indent=1) + "\n")
    try:
        chart(rows, short, args.out / "all.png")
        print(f"wrote {args.out / 'all.json'} and {args.out / 'all.png'}")
    except ImportError:
        print(f"wrote {args.out / 'all.json'}; no chart: matplotlib is not installed (pip install '.[bench]')")
        return 1
    return 0 if all(r["met"] is not False for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
