"""Parity: ``BaseSandbox`` driven by the core over a real local sandbox, side by side with
deepagents' own ``BaseSandbox``.

Each implementation subclasses its own ``BaseSandbox`` with the same local sandbox: commands
run in ``bash`` (``subprocess``, so timeouts are real), files land on disk under a per-run
root. Every operation is called directly, sync and async, and must give the same result and
leave the same files. Also checked: a sandbox's exceptions reach the caller unchanged, the
sync primitives run on the caller's thread, the async searches give up after their bound,
binary files come back base64-encoded, and shell metacharacters in paths and strings run
nothing.
"""

from __future__ import annotations

import asyncio
import base64
import re
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from .backend_direct import IMPLS, attempt, impl_api, view

MODES = ("sync", "async")


def local_sandbox(impl: str, root: Path, *, slow_async: float = 0.0, capture: bool = False) -> Any:
    a = impl_api(impl)
    P = a.P

    class LocalSandbox(a.sandbox.BaseSandbox):
        enable_capture_offload = capture

        def __init__(self) -> None:
            self.threads: list[int] = []
            self.timeouts: list[Any] = []

        @property
        def id(self) -> str:
            return "local"

        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            self.threads.append(threading.get_ident())
            self.timeouts.append(timeout)
            try:
                proc = subprocess.run(
                    ["bash", "-c", command], cwd=root, capture_output=True, timeout=timeout or 60, check=False
                )
            except subprocess.TimeoutExpired:
                return P.ExecuteResponse(output="timed out", exit_code=124)
            output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
            return P.ExecuteResponse(output=output, exit_code=proc.returncode)

        async def aexecute(self, command: str, *, timeout: int | None = None) -> Any:
            if slow_async:
                await asyncio.sleep(slow_async)
            return await asyncio.to_thread(self.execute, command, timeout=timeout)

        def upload_files(self, files: list[tuple[str, bytes]]) -> list[Any]:
            out = []
            for path, data in files:
                try:
                    Path(path).write_bytes(data)
                    out.append(P.FileUploadResponse(path=path, error=None))
                except FileNotFoundError:
                    out.append(P.FileUploadResponse(path=path, error="file_not_found"))
            return out

        def download_files(self, paths: list[str]) -> list[Any]:
            return [P.FileDownloadResponse(path=p, content=Path(p).read_bytes(), error=None) for p in paths]

    return LocalSandbox()


def call(sandbox: Any, mode: str, name: str, *args: Any, **kwargs: Any) -> Any:
    if mode == "sync":
        return attempt(lambda: getattr(sandbox, name)(*args, **kwargs))
    return attempt(lambda: asyncio.run(getattr(sandbox, f"a{name}")(*args, **kwargs)))


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def fresh_root(tmp_path: Path) -> Path:
    """An empty root at the same path for each implementation (so results compare as they are)."""
    root = tmp_path / "root"
    if root.exists():
        subprocess.run(["rm", "-rf", str(root)], check=True)
    root.mkdir()
    return root


def both(tmp_path: Path, scenario: Any, **kw: Any) -> dict[str, Any]:
    """``scenario(sandbox, root)`` per implementation, each in a root at the same path."""
    out = {}
    for impl in IMPLS:
        root = fresh_root(tmp_path)
        got = scenario(local_sandbox(impl, root, **kw), root)
        out[impl] = (got, tree(root))
    return out


def assert_same(out: dict[str, Any]) -> None:
    ref, ours = out["deepagents"], out["deepagents_rs"]
    assert ours == ref


@pytest.mark.parametrize("mode", MODES)
def test_file_operations(mode: str, tmp_path: Path) -> None:
    def scenario(s: Any, root: Path) -> list[Any]:
        f = f"{root}/dir/a.txt"
        steps = [
            call(s, mode, "write", f, "one\ntwo\none\n"),
            call(s, mode, "read", f),
            call(s, mode, "read", f, offset=1, limit=1),
            call(s, mode, "read", f, offset=-3, limit=0),
            call(s, mode, "edit", f, "one", "uno"),
            call(s, mode, "edit", f, "one", "uno", replace_all=True),
            call(s, mode, "edit", f, "missing", "x"),
            call(s, mode, "edit", f, "", "x"),
            call(s, mode, "edit", f"{root}/nope.txt", "a", "b"),
            call(s, mode, "ls", f"{root}/dir"),
            call(s, mode, "ls", f"{root}/nope"),
            call(s, mode, "grep", "uno", str(root)),
            call(s, mode, "grep", "uno", str(root), "*.txt", max_count=1),
            call(s, mode, "grep", "uno", str(root), "dir/**/*.txt"),
            call(s, mode, "glob", "**/*.txt", str(root)),
            call(s, mode, "glob", "*.txt", f"{root}/nope"),
            call(s, mode, "read", f"{root}/nope.txt"),
        ]
        return [view(x) for x in steps]

    assert_same(both(tmp_path, scenario))


@pytest.mark.parametrize("mode", MODES)
def test_large_edit_goes_through_uploads(mode: str, tmp_path: Path) -> None:
    big_old, big_new = "a" * 30_000, "b" * 30_001

    def scenario(s: Any, root: Path) -> list[Any]:
        f = f"{root}/big.txt"
        (root / "big.txt").write_text(f"head\n{big_old}\ntail\n")
        return [
            view(call(s, mode, "edit", f, big_old, big_new)),
            view(call(s, mode, "edit", f, big_old, big_new)),
            view(call(s, mode, "edit", f"{root}/missing.txt", big_old, big_new)),
        ]

    out = both(tmp_path, scenario)
    assert_same(out)
    assert out["deepagents_rs"][1]["big.txt"] == f"head\n{big_new}\ntail\n".encode()


def test_sync_delete_and_binary_reads(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))

    def scenario(s: Any, root: Path) -> list[Any]:
        (root / "pic.png").write_bytes(png)
        (root / "d").mkdir()
        (root / "d" / "x.txt").write_text("x")
        (root / "bad.txt").write_bytes(b"caf\xe9\n")
        return [
            view(call(s, "sync", "read", f"{root}/pic.png")),
            view(call(s, "sync", "read", f"{root}/bad.txt")),
            view(call(s, "sync", "delete", f"{root}/d")),
            view(call(s, "sync", "delete", f"{root}/d")),
            view(call(s, "async", "delete", f"{root}/pic.png")),
        ]

    out = both(tmp_path, scenario)
    assert_same(out)
    read = out["deepagents_rs"][0][0]
    assert base64.b64decode(read["file_data"]["content"]) == png


@pytest.mark.parametrize("mode", MODES)
def test_shell_metacharacters_run_nothing(mode: str, tmp_path: Path) -> None:
    def scenario(s: Any, root: Path) -> list[Any]:
        names = ["$(touch pwned1)", "`touch pwned2`", "a; touch pwned3", "q'uote\"s", "new\nline"]
        results = []
        for name in names:
            f = f"{root}/{name}.txt"
            results.append(view(call(s, mode, "write", f, f"$(touch pwned4) {name}")))
            results.append(view(call(s, mode, "read", f)))
            results.append(view(call(s, mode, "edit", f, name, "$(touch pwned5)")))
            results.append(view(call(s, mode, "grep", "$(touch pwned6)", f)))
            results.append(view(call(s, mode, "glob", "$(touch pwned7)*", str(root))))
        results.append(view(call(s, "sync", "delete", f"{root}/$(touch pwned8)")))
        assert not list(root.glob("pwned*")), list(root.glob("pwned*"))
        return results

    assert_same(both(tmp_path, scenario))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("capture", [False, True])
def test_execute_with_offload_and_its_timeout(mode: str, capture: bool, tmp_path: Path) -> None:
    def scenario(s: Any, root: Path) -> list[Any]:
        big = "seq 1 5000"
        results = [
            view(call(s, mode, "execute_with_offload", "echo hi; exit 3", f"{root}/cap/1.txt", max_inline_bytes=100)),
            view(call(s, mode, "execute_with_offload", big, f"{root}/cap/2.txt", max_inline_bytes=100, timeout=30)),
            view(call(s, mode, "execute_with_offload", "sleep 5", f"{root}/cap/3.txt", max_inline_bytes=10, timeout=1)),
        ]
        return [results, s.timeouts]

    assert_same(both(tmp_path, scenario, capture=capture))


def test_capture_heredoc_delimiter_is_deepagents_shape() -> None:
    from deepagents_rs.backends.sandbox import _build_capture_execute_cmd

    cmd = _build_capture_execute_cmd("echo hi", "/tmp/x", inline_budget=10)
    delimiters = set(re.findall(r"__DEEPAGENTS_CMD_[A-Z2-7]+__", cmd))
    assert len(delimiters) == 1
    (delimiter,) = delimiters
    assert len(delimiter) == len("__DEEPAGENTS_CMD_") + 16 + 2


def test_sync_primitives_run_on_the_callers_thread(tmp_path: Path) -> None:
    s = local_sandbox("deepagents_rs", tmp_path)
    s.write(f"{tmp_path}/a.txt", "x")
    s.ls(str(tmp_path))
    s.grep("x", str(tmp_path))
    assert set(s.threads) == {threading.get_ident()}


@pytest.mark.parametrize("impl", IMPLS)
def test_sandbox_exceptions_reach_the_caller(impl: str, tmp_path: Path) -> None:
    class Broken(type(local_sandbox(impl, tmp_path))):  # type: ignore[misc]
        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            raise ConnectionError("sandbox gone")

        async def aexecute(self, command: str, *, timeout: int | None = None) -> Any:
            raise ConnectionError("sandbox gone (async)")

    s = Broken()
    got = [
        view(attempt(lambda: s.read("/f"))),
        view(attempt(lambda: asyncio.run(s.aread("/f")))),
        view(attempt(lambda: asyncio.run(s.agrep("x", "/")))),
        view(attempt(lambda: s.write("/f", "x"))),
    ]
    assert got == [
        ("raised", "ConnectionError", "sandbox gone"),
        ("raised", "ConnectionError", "sandbox gone (async)"),
        ("raised", "ConnectionError", "sandbox gone (async)"),
        ("raised", "ConnectionError", "sandbox gone"),
    ]


@pytest.mark.parametrize("op", ["grep", "glob"])
# The bound is shown in the error as Python formats it (`0.2`, `1`: the defaults are ints).
@pytest.mark.parametrize("bound", [0.2, 1])
def test_async_searches_give_up_after_their_bound(op: str, bound: float, tmp_path: Path, monkeypatch: Any) -> None:
    out = {}
    for impl in IMPLS:
        a = impl_api(impl)
        monkeypatch.setattr(a.sandbox, f"ASYNC_{op.upper()}_TIMEOUT", bound)
        s = local_sandbox(impl, tmp_path, slow_async=3.0)
        started = asyncio.run(_timed(getattr(s, f"a{op}")("x", str(tmp_path))))
        out[impl] = (view(started[0]), started[1] < 2.5)
    assert out["deepagents_rs"] == out["deepagents"]
    assert out["deepagents_rs"][1]


async def _timed(coro: Any) -> tuple[Any, float]:
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    result = await coro
    return result, loop.time() - t0


@pytest.mark.parametrize("impl", IMPLS)
def test_write_without_upload_responses_raises(impl: str, tmp_path: Path) -> None:
    class NoReplies(type(local_sandbox(impl, tmp_path))):  # type: ignore[misc]
        def upload_files(self, files: list[tuple[str, bytes]]) -> list[Any]:
            return []

    got = view(attempt(lambda: NoReplies().write(f"{tmp_path}/x", "y")))
    assert got == (
        "raised",
        "AssertionError",
        "Responses was expected to return 1 result, but it returned 0 with type <class 'list'>",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_async_calls_run_in_the_callers_task(impl: str, tmp_path: Path) -> None:
    seen: list[Any] = []

    class Recording(type(local_sandbox(impl, tmp_path))):  # type: ignore[misc]
        async def aexecute(self, command: str, *, timeout: int | None = None) -> Any:
            seen.append(asyncio.current_task())
            return await super().aexecute(command, timeout=timeout)

        async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[Any]:
            seen.append(asyncio.current_task())
            return self.upload_files(files)

    async def scenario() -> Any:
        s = Recording()
        await s.awrite(f"{tmp_path}/a.txt", "x")
        await s.aread(f"{tmp_path}/a.txt")
        await s.aedit(f"{tmp_path}/a.txt", "x", "y" * 60_000)
        await s.als(str(tmp_path))
        return asyncio.current_task()

    caller = asyncio.run(scenario())
    assert len(seen) == 6
    assert all(task is caller for task in seen)


# --------------------------------------------------------------------------------------------
# A subclass's own `_write_preflight`, `_edit_inline`, `_edit_via_upload` (and async twins)
# --------------------------------------------------------------------------------------------

OWN_WAYS = ("_write_preflight", "_edit_inline", "_edit_via_upload")


def own_ways_sandbox(impl: str, root: Path, names: tuple[str, ...], calls: list[Any]) -> Any:
    """The local sandbox with its own versions of `names` (each sync and async): they note
    their arguments (long strings by length), refuse anything containing ``veto``, and else
    call the base's method."""
    local = type(local_sandbox(impl, root))
    P = impl_api(impl).P

    class OwnWays(local):  # type: ignore[misc, valid-type]
        pass

    def noted(name: str, args: tuple[Any, ...]) -> Any:
        calls.append((name, *(len(a) if isinstance(a, str) and len(a) > 100 else a for a in args)))
        if any("veto" in str(a) for a in args):
            kind = P.WriteResult if "preflight" in name else P.EditResult
            return kind(error="vetoed by the subclass")
        return None

    def own(name: str) -> tuple[Any, Any]:
        aname = "_a" + name[1:]

        def sync(self: Any, *args: Any) -> Any:
            return noted(name, args) or getattr(super(OwnWays, self), name)(*args)

        async def asynchronous(self: Any, *args: Any) -> Any:
            return noted(aname, args) or await getattr(super(OwnWays, self), aname)(*args)

        return sync, asynchronous

    for name in names:
        sync, asynchronous = own(name)
        setattr(OwnWays, name, sync)
        setattr(OwnWays, "_a" + name[1:], asynchronous)
    return OwnWays()


@pytest.mark.parametrize("names", [OWN_WAYS, ("_write_preflight",), ("_edit_inline",), ("_edit_via_upload",)])
@pytest.mark.parametrize("mode", MODES)
def test_own_write_and_edit_ways_are_used(names: tuple[str, ...], mode: str, tmp_path: Path) -> None:
    """write and edit go through the subclass's methods, as deepagents' do, and take their results."""
    big = "x" * 60_000

    out = {}
    for impl in IMPLS:
        root = fresh_root(tmp_path)
        calls: list[Any] = []
        s = own_ways_sandbox(impl, root, names, calls)
        f = f"{root}/dir/a.txt"
        steps = [
            call(s, mode, "write", f, f"one\ntwo\n{big}\n"),
            call(s, mode, "write", f"{root}/veto/b.txt", "never"),
            call(s, mode, "edit", f, "one", "uno"),
            call(s, mode, "edit", f, "two", "veto"),
            call(s, mode, "edit", f, big, "small"),
            call(s, mode, "edit", f, "uno", "veto" + big),
            call(s, mode, "edit", f, "", "x"),
            call(s, mode, "read", f),
        ]
        out[impl] = (view(steps), calls, tree(root))
    assert_same(out)
    steps, calls, _ = out["deepagents"]
    assert calls, "the subclass's methods were called"
    assert "vetoed by the subclass" in str(steps)
