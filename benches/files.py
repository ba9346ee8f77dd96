"""Per-call cost of the built-in filesystem tools on a 10,000-file tree: deepagents_rs vs deepagents 0.7.32.

A tree of ``--dirs`` x ``--files-per-dir`` (default 100 x 100) text files of 20 lines each,
with deterministic content, is built once in a temporary directory. For each backend
(``FilesystemBackend(root_dir=<tree>, virtual_mode=True)``, and ``StateBackend()`` with the
same files given in the input's ``files``; with ``--backend composite``, not part of ``all``,
a ``CompositeBackend`` of that ``StateBackend`` and an empty disk route ``/disk/``) and each
tool (``read_file``, ``write_file``, ``edit_file``, ``glob``, ``grep``), one agent run has a
scripted model call that tool N times, one call per model turn, then answer. A baseline run of the same agent makes N calls
of a trivial user tool, ``noop``, instead. The per-call cost of the tool is

    (wall(N tool calls) - wall(N noop calls)) / N

so the agent loop (model callback, history, step overhead) cancels out, and what is left is
what the tool does beyond a trivial Python tool: argument handling, the backend operation,
building and carrying its result. Runs of all cells are interleaved round by round in a
rotated order; each round's tool run is paired with the same round's baseline, and the median
over rounds is reported (``--stat min``: the fastest tool run less the fastest baseline run),
with the ratio deepagents / deepagents_rs, for wall time and for the process's CPU time (all
threads; less moved than wall by other processes on a loaded machine). A per-call cost is a
difference of two runs: where either side's range over the rounds reaches zero, the tool's
own cost is within the runs' noise and the ratio reads ``noise``. A second table gives the tool
runs' own time per model turn (loop and tool together: what a run of that tool costs), which
has no such difference.

Usage::

    python benches/files.py [--impl both|deepagents|deepagents_rs] [--backend all|filesystem|state|composite]
                            [--calls 40] [--walk-calls 10] [--repeat 5] [--stat median|min]
                            [--ops read_file,write_file,...]
                            [--dirs 100] [--files-per-dir 100] [--state-dirs 100]

``deepagents_rs`` is imported from whatever environment runs the script (the repository's
``python/`` directory is *not* put on ``sys.path``). The build type of the loaded extension
module is printed with the results.

This is a benchmark script, not a test; it never touches the network.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import tempfile
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

from tool_loop import BenchError, build_info

FINAL = "done"
LINES = 20
EDIT_OLD = "consectetur-edit-me"  # once per file, on line 5
EDIT_NEW = "consectetur-edited"
STAMP = "2026-01-01T00:00:00+00:00"
OPS = ("read_file", "write_file", "edit_file", "glob", "grep")
WALK_OPS = ("glob", "grep")  # whole-tree walks: fewer calls (see --walk-calls)
BASELINE = "noop"


def noop(path: str) -> str:
    """Do nothing and say ok.

    Args:
        path: Ignored.
    """
    return "ok"


# --------------------------------------------------------------------------- the tree


@dataclass(frozen=True)
class Tree:
    dirs: int
    files: int  # per directory

    @property
    def total(self) -> int:
        return self.dirs * self.files

    @staticmethod
    def path(d: int, f: int) -> str:
        return f"/d{d:03d}/f{f:03d}.txt"

    @staticmethod
    def text(d: int, f: int) -> str:
        """20 lines; line 5 holds the edit target, line 10 the grep needle of file number f."""
        out = []
        for line in range(LINES):
            extra = f" {EDIT_OLD}" if line == 5 else f" needle{f:03d};" if line == 10 else ""
            out.append(f"{d:03d}/{f:03d} line {line:02d}: lorem ipsum dolor sit amet{extra}\n")
        return "".join(out)

    def target(self, i: int, salt: int) -> tuple[int, int]:
        """The i-th file of a run, spread over the tree (distinct for i < total when 7919 ∤ total)."""
        d, f = divmod((i * 7919 + salt) % self.total, self.files)
        return d, f

    def write_to_disk(self, root: Path) -> None:
        for d in range(self.dirs):
            (root / f"d{d:03d}").mkdir()
            for f in range(self.files):
                (root / self.path(d, f)[1:]).write_text(self.text(d, f))

    def state_files(self) -> dict[str, dict[str, str]]:
        return {
            self.path(d, f): {
                "content": self.text(d, f),
                "encoding": "utf-8",
                "created_at": STAMP,
                "modified_at": STAMP,
            }
            for d in range(self.dirs)
            for f in range(self.files)
        }


# --------------------------------------------------------------------------- calls and checks


def call_for(op: str, i: int, tree: Tree) -> tuple[str, dict[str, Any]]:
    if op == BASELINE:
        d, f = tree.target(i, 0)
        return "noop", {"path": tree.path(d, f)}
    if op == "read_file":
        d, f = tree.target(i, 0)
        return "read_file", {"file_path": tree.path(d, f)}
    if op == "write_file":
        d, f = tree.target(i, 0)
        return "write_file", {"file_path": f"/w/f{i:03d}.txt", "content": tree.text(d, f)}
    if op == "edit_file":
        d, f = tree.target(i, tree.total // 2)
        return "edit_file", {"file_path": tree.path(d, f), "old_string": EDIT_OLD, "new_string": EDIT_NEW}
    if op == "glob":
        return "glob", {"pattern": f"f{i % tree.files:03d}.txt"}  # basename at any depth: one per dir
    if op == "grep":
        return "grep", {"pattern": f"needle{i % tree.files:03d};"}  # one file per dir
    raise ValueError(op)


def content_text(value: Any) -> str:
    """A file's content from state: a string, or (older deepagents) a list of lines."""
    content = value.get("content", "") if isinstance(value, dict) else value
    return "\n".join(content) if isinstance(content, list) else str(content)


def check_run(ctx: Ctx, impl: str, op: str, calls: int, out: dict[str, Any]) -> int:
    """Fail loudly unless the run did every call, and each call did its work."""
    msgs = out["messages"]
    if len(msgs) != 2 * calls + 2:
        raise BenchError(f"{impl} {op}: expected {2 * calls + 2} messages, got {len(msgs)}")
    if msgs[-1].content != FINAL:
        raise BenchError(f"{impl} {op}: final message is {msgs[-1].content!r}")
    results = [m for m in msgs if getattr(m, "type", None) == "tool"]
    tool = call_for(op, 0, ctx.tree)[0]
    if len(results) != calls or any(m.name != tool for m in results):
        raise BenchError(f"{impl} {op}: expected {calls} {tool} results, got {[m.name for m in results][:5]}...")
    files = out.get("files") or {}
    for i, m in enumerate(results):
        text = m.content if isinstance(m.content, str) else str(m.content)
        if getattr(m, "status", None) == "error" or text.startswith("Error"):
            raise BenchError(f"{impl} {op} call {i}: error result {text[:300]!r}")
        args = call_for(op, i, ctx.tree)[1]
        if op == BASELINE:
            ok = text == "ok"
        elif op == "read_file":
            d, f = ctx.tree.target(i, 0)
            ok = f"{d:03d}/{f:03d} line 00" in text and f"{d:03d}/{f:03d} line {LINES - 1:02d}" in text
        elif op in WALK_OPS:
            # every directory has exactly one match; a truncated walk or a wrong match fails here
            ok = text.count(f"/f{i % ctx.tree.files:03d}.txt") == ctx.tree.dirs
        elif op == "write_file":
            path = args["file_path"]
            got = content_text(files.get(path)) if ctx.backend != "filesystem" else _read(ctx.root, path)
            ok = got == args["content"]
        else:  # edit_file
            path = args["file_path"]
            got = content_text(files.get(path)) if ctx.backend != "filesystem" else _read(ctx.root, path)
            ok = EDIT_NEW in got and EDIT_OLD not in got
        if not ok:
            raise BenchError(f"{impl} {op} call {i} ({args}) did not do its work; result {text[:300]!r}")
    return len(msgs)


def _read(root: Path | None, path: str) -> str:
    assert root is not None
    p = root / path.lstrip("/")
    return p.read_text() if p.is_file() else ""


# --------------------------------------------------------------------------- running


@dataclass
class Ctx:
    backend: str  # "filesystem" | "state" | "composite"
    tree: Tree
    root: Path | None = None  # the tree on disk (filesystem)
    files: dict[str, Any] | None = None  # the tree as state files (state)


def implementations(which: str) -> dict[str, tuple[Callable[..., Any], Any]]:
    out: dict[str, tuple[Callable[..., Any], Any]] = {}
    if which in ("both", "deepagents_rs"):
        import deepagents_rs

        try:
            from deepagents_rs import backends as rs_backends
        except ImportError as e:  # reported per cell below
            rs_backends = e
        out["deepagents_rs"] = (deepagents_rs.create_deep_agent, rs_backends)
    if which in ("both", "deepagents"):
        import deepagents
        from deepagents import backends

        out["deepagents"] = (deepagents.create_deep_agent, backends)
    return out


def one_run(
    ctx: Ctx, impl: str, impl_mod: tuple[Callable[..., Any], Any], op: str, calls: int
) -> tuple[float, float, int]:
    """One agent run of `calls` calls of `op`: its wall and CPU time (the process's, every
    thread) in seconds, and its message count."""
    from fake_models import ScriptedChatModel, ai_tool_calls

    create, backends = impl_mod
    if isinstance(backends, Exception):
        raise backends
    model = ScriptedChatModel([*(ai_tool_calls(call_for(op, i, ctx.tree)) for i in range(calls)), FINAL])
    payload: dict[str, Any] = {"messages": [{"role": "user", "content": "Work through the files."}]}
    if ctx.backend == "filesystem":
        assert ctx.root is not None
        backend = backends.FilesystemBackend(root_dir=str(ctx.root), virtual_mode=True)
        shutil.rmtree(ctx.root / "w", ignore_errors=True)
    else:
        assert ctx.files is not None
        backend = backends.StateBackend()
        if ctx.backend == "composite":
            # The state tree as the default, beside an (empty) disk route that root globs and
            # greps merge in.
            assert ctx.root is not None
            route = backends.FilesystemBackend(root_dir=str(ctx.root), virtual_mode=True)
            backend = backends.CompositeBackend(default=backend, routes={"/disk/": route})
        payload["files"] = dict(ctx.files)  # a fresh top-level dict per run; file dicts are never mutated
    agent = create(model=model, tools=[noop], backend=backend)
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    out = agent.invoke(payload)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    try:
        if model.remaining:
            raise BenchError(f"{impl} {op}: {model.remaining} scripted responses left unused")
        messages = check_run(ctx, impl, op, calls, out)
    finally:
        restore(ctx, op, calls)
    return wall, cpu, messages


def restore(ctx: Ctx, op: str, calls: int) -> None:
    """Undo a filesystem run's writes and edits (untimed), so every run starts from the same tree."""
    if ctx.backend != "filesystem":
        return
    assert ctx.root is not None
    shutil.rmtree(ctx.root / "w", ignore_errors=True)
    if op == "edit_file":
        for i in range(calls):
            d, f = ctx.tree.target(i, ctx.tree.total // 2)
            (ctx.root / ctx.tree.path(d, f)[1:]).write_text(ctx.tree.text(d, f))


@dataclass
class Cell:
    """One (implementation, tool): per round, the wall and CPU time of the tool run and of
    its paired baseline run (`times[clock]`, `base[clock]`; clock 0 wall, 1 CPU)."""

    impl: str
    op: str
    calls: int
    times: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    base: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    messages: set[int] = field(default_factory=set)

    def per_call_ms(self, clock: int, stat: str) -> list[float]:
        """The tool's cost per call: each round's pair (`median`: the median is taken of these),
        or the fastest tool run less the fastest baseline run (`min`: one value)."""
        tool, base = self.times[clock], self.base[clock]
        if stat == "min":
            return [(min(tool) - min(base)) / self.calls * 1e3]
        return [(w - b) / self.calls * 1e3 for w, b in zip(tool, base, strict=True)]

    def base_per_step_ms(self, clock: int) -> list[float]:
        return [b / (self.calls + 1) * 1e3 for b in self.base[clock]]

    def per_step_ms(self, clock: int) -> list[float]:
        """The tool runs' time per model turn (N tool turns and the answer)."""
        return [t / (self.calls + 1) * 1e3 for t in self.times[clock]]


def run_backend(
    ctx: Ctx,
    impls: dict[str, tuple[Callable[..., Any], Any]],
    ops: list[str],
    calls: int,
    walk_calls: int,
    repeat: int,
) -> tuple[dict[tuple[str, str], Cell], dict[str, str]]:
    """All cells of one backend: a short warm-up, then `repeat` rounds over the cells in a rotated
    order. In a round, each cell runs its tool and a baseline of as many noop calls back to back
    (baseline first in every other slot), so both see the same machine load."""
    cells = {(impl, op): Cell(impl, op, walk_calls if op in WALK_OPS else calls) for impl in impls for op in ops}
    failed: dict[str, str] = {}

    def attempt(impl: str, op: str, calls_now: int) -> tuple[float, float, int] | None:
        if impl in failed:
            return None
        try:
            return one_run(ctx, impl, impls[impl], op, calls_now)
        except Exception as e:  # noqa: BLE001 - report the exact error, keep measuring the others
            failed[impl] = f"{op}: {type(e).__name__}: {e}"
            return None

    order = list(cells.values())
    for cell in order:  # warm-up: imports, lazy initialisation, the OS page cache
        attempt(cell.impl, BASELINE, 2)
        attempt(cell.impl, cell.op, 2)
    for r in range(repeat):
        k = r % len(order)
        for slot, cell in enumerate(order[k:] + order[:k]):
            pair = [BASELINE, cell.op] if (r + slot) % 2 == 0 else [cell.op, BASELINE]
            got = {op: attempt(cell.impl, op, cell.calls) for op in pair}
            if got[BASELINE] is None or got[cell.op] is None:
                continue
            for clock in (0, 1):
                cell.times[clock].append(got[cell.op][clock])
                cell.base[clock].append(got[BASELINE][clock])
            cell.messages.add(got[cell.op][2])
        print(f"  [{ctx.backend}] round {r + 1}/{repeat} done", file=sys.stderr, flush=True)
    return cells, failed


# --------------------------------------------------------------------------- report


def report(
    backend: str,
    cells: dict[tuple[str, str], Cell],
    failed: dict[str, str],
    ops: list[str],
    impls: list[str],
    stat: str = "median",
) -> bool:
    ok = True
    print(f"\n== {backend}")
    head = (
        f"{'tool':<12} {'N':>3} {'rs ms/call':>11} {'ref ms/call':>12} {'ratio':>7}"
        f" {'rs cpu':>8} {'ref cpu':>8} {'ratio':>7} {'rs range':>15} {'ref range':>15}"
    )
    print(head)
    print("-" * len(head))

    def pick(xs: list[float] | None) -> float | None:
        if not xs:
            return None
        return min(xs) if stat == "min" else statistics.median(xs)

    def fmt(x: float | None, spec: str) -> str:
        return "n/a" if x is None else format(x, spec)

    def rng(xs: list[float] | None) -> str:
        return "n/a" if not xs or len(xs) < 2 else f"{min(xs):.2f}..{max(xs):.2f}"

    def ratio(rs: list[float] | None, ref: list[float] | None) -> str:
        # A per-call cost within the noise can come out <= 0, and while either side's range
        # reaches zero the ratio of the two says nothing: "noise" then.
        if not rs or not ref:
            return "n/a"
        if min(rs) <= 0 or min(ref) <= 0:
            return "noise"
        return f"{pick(ref) / pick(rs):.2f}"  # type: ignore[operator]

    def line(label: str, n: int, rs: list[list[float] | None], ref: list[list[float] | None]) -> None:
        """`rs`/`ref`: per clock (wall, CPU), the values the row's figure is picked from."""
        print(
            f"{label:<12} {n:>3} {fmt(pick(rs[0]), '.3f'):>11} {fmt(pick(ref[0]), '.3f'):>12} {ratio(rs[0], ref[0]):>7}"
            f" {fmt(pick(rs[1]), '.3f'):>8} {fmt(pick(ref[1]), '.3f'):>8} {ratio(rs[1], ref[1]):>7}"
            f" {rng(rs[0]):>15} {rng(ref[0]):>15}"
        )

    for n in sorted({c.calls for c in cells.values()}):
        # the loop itself: time per model turn of the baseline runs (N noop turns + the answer)
        per_step: dict[str, tuple[list[float], list[float]]] = {}
        for c in cells.values():
            if c.calls == n:
                for clock in (0, 1):
                    per_step.setdefault(c.impl, ([], []))[clock].extend(c.base_per_step_ms(clock))
        none = (None, None)
        line(f"({BASELINE}/step)", n, list(per_step.get("deepagents_rs", none)), list(per_step.get("deepagents", none)))
    for op in ops:
        rs_cell, ref_cell = cells.get(("deepagents_rs", op)), cells.get(("deepagents", op))
        n = (rs_cell or ref_cell).calls if (rs_cell or ref_cell) else 0
        rs = [rs_cell.per_call_ms(clock, stat) if rs_cell and rs_cell.times[0] else None for clock in (0, 1)]
        ref = [ref_cell.per_call_ms(clock, stat) if ref_cell and ref_cell.times[0] else None for clock in (0, 1)]
        line(op, n, rs, ref)
    # The tool's own cost above is a difference of two runs; where it is within the runs'
    # noise (a range reaching zero), its ratio says nothing. The tool runs' own time per model
    # turn (loop and tool together, what a run of that tool costs) has no such difference.
    print("tool runs, per model turn:")
    for op in ops:
        rs_cell, ref_cell = cells.get(("deepagents_rs", op)), cells.get(("deepagents", op))
        n = (rs_cell or ref_cell).calls if (rs_cell or ref_cell) else 0
        rs = [rs_cell.per_step_ms(clock) if rs_cell and rs_cell.times[0] else None for clock in (0, 1)]
        ref = [ref_cell.per_step_ms(clock) if ref_cell and ref_cell.times[0] else None for clock in (0, 1)]
        line(f"({op})", n, rs, ref)
    for impl in impls:
        if impl in failed:
            print(f"  {impl} FAILED: {failed[impl]}")
            ok = False
    counts = {(c.impl, c.op): sorted(c.messages) for c in cells.values() if c.messages}
    bad = {k: v for k, v in counts.items() if len(v) != 1}
    if bad:
        print(f"  MESSAGE COUNTS DIFFER BETWEEN RUNS: {bad}")
        ok = False
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", choices=("both", "deepagents", "deepagents_rs"), default="both")
    parser.add_argument("--backend", choices=("all", "filesystem", "state", "composite"), default="all")
    parser.add_argument("--ops", default=",".join(OPS), help=f"comma-separated subset of {','.join(OPS)}")
    parser.add_argument("--calls", type=int, default=40, help="tool calls per run for read/write/edit (default 40)")
    parser.add_argument("--walk-calls", type=int, default=10, help="tool calls per run for glob/grep (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds (default 5)")
    parser.add_argument(
        "--stat",
        choices=("median", "min"),
        default="median",
        help="median: of the rounds' paired differences; min: fastest tool run less fastest baseline run",
    )
    parser.add_argument("--dirs", type=int, default=100, help="directories in the tree (default 100)")
    parser.add_argument("--files-per-dir", type=int, default=100, help="files per directory (default 100)")
    parser.add_argument(
        "--state-dirs", type=int, default=None, help="directories of the StateBackend tree (default: --dirs)"
    )
    args = parser.parse_args(argv)
    ops = [o for o in args.ops.split(",") if o]
    if unknown := set(ops) - set(OPS):
        parser.error(f"unknown ops {sorted(unknown)}")
    if min(args.calls, args.walk_calls, args.repeat) < 1:
        parser.error("--calls, --walk-calls and --repeat must be >= 1")
    state_dirs = args.state_dirs or args.dirs
    for dirs in {args.dirs, state_dirs}:
        tree = Tree(dirs, args.files_per_dir)
        if len({tree.target(i, tree.total // 2) for i in range(args.calls)}) != args.calls:
            parser.error(f"--calls {args.calls}: the edit targets repeat on a {tree.total}-file tree")
    if args.files_per_dir > 1000 or max(args.dirs, state_dirs) > 1000:
        parser.error("at most 1000 dirs and 1000 files per dir (3-digit names)")
    if args.walk_calls > args.files_per_dir or args.calls > min(args.dirs, state_dirs) * args.files_per_dir // 2:
        parser.error("too many calls for the tree: each call needs its own file")

    sys.stdout.reconfigure(line_buffering=True)  # keep the table in order with the progress lines on stderr
    import deepagents

    impls = implementations(args.impl)
    print(f"python {sys.version.split()[0]}, deepagents {deepagents.__version__}")
    if "deepagents_rs" in impls:
        print(f"deepagents_rs core: {build_info()}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other work on the machine skews the numbers)")
    rg = shutil.which("rg")
    print(
        f"ripgrep: {rg} (deepagents' FilesystemBackend.grep runs it per call)"
        if rg
        else "ripgrep: not on PATH, so deepagents' FilesystemBackend.grep uses its Python fallback"
    )
    print(
        f"calls={args.calls} (glob/grep: {args.walk_calls}) repeat={args.repeat}; "
        + (
            "ms/call = (fastest run of N tool calls - fastest run of N noop calls) / N; "
            if args.stat == "min"
            else "ms/call = (run of N tool calls - run of N noop calls) / N, paired per round, median over rounds; "
        )
        + "wall, and CPU (the process's, all threads); ratio = deepagents / deepagents_rs"
    )

    ok = True
    backends = ("filesystem", "state") if args.backend == "all" else (args.backend,)
    for backend in backends:
        tree = Tree(args.dirs if backend == "filesystem" else state_dirs, args.files_per_dir)
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="deepagents-files-bench-") as tmp:
            ctx = Ctx(backend=backend, tree=tree)
            if backend == "filesystem":
                ctx.root = Path(tmp)
                tree.write_to_disk(ctx.root)
            else:
                ctx.files = tree.state_files()
                ctx.root = Path(tmp)  # the composite's disk route, left empty
            print(
                f"\n{backend}: {tree.total:,} files ({tree.dirs} dirs x {tree.files}, {LINES} lines each), "
                f"built in {time.perf_counter() - t0:.1f} s",
                flush=True,
            )
            cells, failed = run_backend(ctx, impls, ops, args.calls, args.walk_calls, args.repeat)
        ok &= report(backend, cells, failed, ops, list(impls), args.stat)
    print(f"\nload average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
