"""Parity: ``BackendProtocol``/``SandboxBackendProtocol`` defaults and capability probes.

What a backend that overrides nothing does (every method, sync and async, raises
``NotImplementedError``), the ``agrep`` timeout net and its cap on old-style ``grep``
signatures, the ``max_count``/``timeout`` signature probes and how ``aexecute`` and
``CompositeBackend.execute`` forward a timeout, ``ReadResult``'s window invariants, and how
the filesystem backend classifies OS errors. Backends are defined per implementation, from
that implementation's own base classes, and each scenario's results are compared.
"""

from __future__ import annotations

import asyncio
import errno
import importlib
import logging
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import CALL_MODES, IMPLS, Call, attempt, impl_api, run_both, same, view

FILE_METHODS = [
    ("ls", ("/",)),
    ("read", ("/f.txt",)),
    ("grep", ("needle",)),
    ("glob", ("*.md",)),
    ("write", ("/f.txt", "body")),
    ("edit", ("/f.txt", "old", "new")),
    ("delete", ("/f.txt",)),
    ("upload_files", ([("/f.txt", b"raw")],)),
    ("download_files", (["/f.txt"],)),
]


# --------------------------------------------------------------------------------------------
# A backend that implements nothing
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize(("method", "args"), FILE_METHODS, ids=[m for m, _ in FILE_METHODS])
def test_unimplemented_file_method_raises(method: str, args: tuple[Any, ...], mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        class Nothing(a.BackendProtocol):
            pass

        return call(Nothing(), method, *args)

    assert same(scenario, mode, raises=True)[:2] == ("raised", "NotImplementedError")


@pytest.mark.parametrize("mode", CALL_MODES)
def test_unimplemented_execute_raises(mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        class NoShell(a.P.SandboxBackendProtocol):
            pass

        return call(NoShell(), "execute", "true")

    assert same(scenario, mode, raises=True)[:2] == ("raised", "NotImplementedError")


def test_delete_support_is_detected_by_override() -> None:
    def scenario(a: SimpleNamespace, _call: Call) -> list[bool]:
        class Nothing(a.BackendProtocol):
            pass

        class Deleting(a.BackendProtocol):
            def delete(self, file_path: str) -> Any:
                return a.P.DeleteResult(path=file_path)

        class Inherits(Deleting):
            pass

        return [a.P._supports_delete(cls()) for cls in (Nothing, Deleting, Inherits)]

    assert same(scenario) == [False, True, True]


# --------------------------------------------------------------------------------------------
# agrep: the timeout net and the cap on grep implementations without max_count
# --------------------------------------------------------------------------------------------


def test_grep_timeouts() -> None:
    values = {impl: impl_api(impl).P for impl in IMPLS}
    ref, rs = values["deepagents"], values["deepagents_rs"]
    assert (rs.DEFAULT_GREP_TIMEOUT, rs.ASYNC_GREP_TIMEOUT) == (ref.DEFAULT_GREP_TIMEOUT, ref.ASYNC_GREP_TIMEOUT)
    # Room for a ripgrep run and a fallback search, each with the sync timeout.
    assert rs.ASYNC_GREP_TIMEOUT > 2 * rs.DEFAULT_GREP_TIMEOUT


def test_agrep_timeout_becomes_an_error_result() -> None:
    def scenario(a: SimpleNamespace, _call: Call) -> Any:
        seen: list[Any] = []

        class Slow(a.BackendProtocol):
            def grep(self, pattern: str, path: str | None = None, glob: str | None = None, **_: Any) -> Any:
                return a.P.GrepResult(matches=[])

        async def expire(awaitable: Any, *, timeout: float) -> Any:
            seen.append(timeout)
            awaitable.close()
            raise TimeoutError

        async def run() -> Any:
            real = asyncio.wait_for
            asyncio.wait_for = expire  # type: ignore[assignment]
            try:
                return await Slow().agrep("needle", "/src", "*.py")
            finally:
                asyncio.wait_for = real  # type: ignore[assignment]

        result = asyncio.run(run())
        return {"result": result, "timeouts": seen == [a.P.ASYNC_GREP_TIMEOUT]}

    ref = same(scenario)
    assert ref["timeouts"] is True
    assert ref["result"]["matches"] is None and "timed out" in ref["result"]["error"]


@pytest.mark.parametrize("max_count", [None, 1, 2, 3, 4])
@pytest.mark.parametrize("signature", ["positional_only_args", "keyword_max_count", "var_keyword"])
def test_agrep_caps_results(signature: str, max_count: int | None) -> None:
    def scenario(a: SimpleNamespace, _call: Call) -> Any:
        hits = [{"path": f"/{n}.txt", "line": 1, "text": "needle"} for n in ("a", "b", "c")]
        received: list[Any] = []

        class Old(a.BackendProtocol):
            def grep(self, pattern: str, path: str | None = None, glob: str | None = None) -> Any:  # type: ignore[override]
                received.append("no max_count")
                return a.P.GrepResult(matches=list(hits))

        class Keyword(a.BackendProtocol):
            def grep(self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count=None) -> Any:
                received.append(max_count)
                return a.P.GrepResult(matches=list(hits))

        class Loose(a.BackendProtocol):
            def grep(self, pattern: str, path: str | None = None, glob: str | None = None, **kwargs: Any) -> Any:
                received.append(kwargs)
                return a.P.GrepResult(matches=list(hits))

        cls = {"positional_only_args": Old, "keyword_max_count": Keyword, "var_keyword": Loose}[signature]
        result = asyncio.run(cls().agrep("needle", max_count=max_count))
        return {"result": result, "received": received}

    ref = same(scenario)
    # The cap reaches grep when its signature takes it, and is enforced on the result anyway;
    # a result that was cut says so.
    forwarded = {"positional_only_args": "no max_count", "keyword_max_count": max_count}
    assert ref["received"] == [forwarded.get(signature, {"max_count": max_count})]
    cut = max_count is not None and max_count < 3
    assert len(ref["result"]["matches"]) == (max_count if cut else 3)
    assert ref["result"]["truncated"] is cut


def test_max_count_probe() -> None:
    def scenario(a: SimpleNamespace, _call: Call) -> list[bool]:
        class Keyword(a.BackendProtocol):
            def grep(self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count=None) -> Any:
                return a.P.GrepResult(matches=[])

        class Loose(a.BackendProtocol):
            def grep(self, pattern: str, path: str | None = None, **extra: Any) -> Any:
                return a.P.GrepResult(matches=[])

        class Old(a.BackendProtocol):
            def grep(self, pattern: str, path: str | None = None, glob: str | None = None) -> Any:  # type: ignore[override]
                return a.P.GrepResult(matches=[])

        class AsyncOnly(a.BackendProtocol):
            async def agrep(self, pattern: str, path: str | None = None, glob: str | None = None) -> Any:  # type: ignore[override]
                return a.P.GrepResult(matches=[])

        probe = a.P._method_accepts_max_count
        return [probe(Keyword, "grep"), probe(Loose, "grep"), probe(Old, "grep"), probe(AsyncOnly, "agrep")]

    assert same(scenario) == [True, True, False, False]


# --------------------------------------------------------------------------------------------
# execute and its timeout: the probe, aexecute, and CompositeBackend
# --------------------------------------------------------------------------------------------


def shells(a: SimpleNamespace) -> dict[str, type]:
    """Sandbox backends whose output tells what ``execute`` received."""
    P = a.P

    class Modern(P.SandboxBackendProtocol):
        @property
        def id(self) -> str:
            return "modern"

        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            return P.ExecuteResponse(output=f"{command} timeout={timeout}", exit_code=0)

    class Legacy(P.SandboxBackendProtocol):
        @property
        def id(self) -> str:
            return "legacy"

        def execute(self, command: str) -> Any:  # type: ignore[override]
            return P.ExecuteResponse(output=f"{command} (no timeout)", exit_code=0)

    class Loose(P.SandboxBackendProtocol):
        @property
        def id(self) -> str:
            return "loose"

        def execute(self, command: str, **kwargs: Any) -> Any:  # type: ignore[override]
            return P.ExecuteResponse(output=f"{command} {sorted(kwargs)}", exit_code=0)

    return {"modern": Modern, "legacy": Legacy, "loose": Loose}


def test_timeout_probe() -> None:
    def scenario(a: SimpleNamespace, _call: Call) -> dict[str, bool]:
        a.P.execute_accepts_timeout.cache_clear()
        return {name: a.P.execute_accepts_timeout(cls) for name, cls in shells(a).items()}

    # A **kwargs execute has no named timeout, so it is not given one.
    assert same(scenario) == {"modern": True, "legacy": False, "loose": False}


@pytest.mark.parametrize("impl", IMPLS)
def test_timeout_probe_is_cached(impl: str) -> None:
    a = impl_api(impl)
    probe = a.P.execute_accepts_timeout
    probe.cache_clear()
    modern = shells(a)["modern"]
    probe(modern)
    probe(modern)
    assert probe.cache_info().hits == 1 and probe.cache_info().misses == 1


def test_timeout_probe_logs_uninspectable_execute(caplog: pytest.LogCaptureFixture) -> None:
    logged: dict[str, list[tuple[int, str]]] = {}
    results: dict[str, Any] = {}
    for impl in IMPLS:
        P = impl_api(impl).P

        class Broken(P.SandboxBackendProtocol):
            execute = property(lambda _self: None)  # type: ignore[assignment]

        P.execute_accepts_timeout.cache_clear()
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            results[impl] = view(attempt(lambda P=P, cls=Broken: P.execute_accepts_timeout(cls)))
        logged[impl] = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert results == {"deepagents": False, "deepagents_rs": False}
    assert logged["deepagents_rs"] == logged["deepagents"]
    assert "Could not inspect signature of" in logged["deepagents"][0][1]


@pytest.mark.parametrize("timeout", [None, 42])
@pytest.mark.parametrize("shell", ["modern", "legacy", "loose"])
@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("through", ["direct", "composite"])
def test_execute_timeout_forwarding(through: str, mode: str, shell: str, timeout: int | None) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        a.P.execute_accepts_timeout.cache_clear()
        backend = shells(a)[shell]()
        if through == "composite":
            backend = a.CompositeBackend(default=backend, routes={})
        elif mode == "sync":
            return None  # a direct sync call is the user's own execute
        kwargs = {} if timeout is None else {"timeout": timeout}
        return call(backend, "execute", "ls", **kwargs)

    ref = same(scenario, mode)
    if ref is not None:
        # Only an execute with a named timeout gets one; the others run without it, no error.
        expect = {"modern": f"ls timeout={timeout}", "legacy": "ls (no timeout)", "loose": "ls []"}
        assert ref["output"] == expect[shell]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_composite_execute_without_a_shell(mode: str, tmp_path: Any) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        comp = a.CompositeBackend(default=a.FilesystemBackend(root_dir=str(tmp_path)), routes={})
        return call(comp, "execute", "ls", timeout=5)

    assert same(scenario, mode, raises=True)[:2] == ("raised", "NotImplementedError")


# --------------------------------------------------------------------------------------------
# ReadResult window invariants
# --------------------------------------------------------------------------------------------

VALID_READS = [
    {},
    {"error": "gone"},
    {"total_lines": 9, "start_line": 4, "end_line": 6, "next_offset": 6},
    {"total_lines": 6, "start_line": 4, "end_line": 6},
    {"start_line": 1, "end_line": 1},
    {"no_lines_requested": True},
    {"no_lines_requested": True, "file_data": {"content": "", "encoding": "utf-8"}},
    # An error result may still carry a window; only the never-inspected flag excludes one.
    {"error": "partial", "start_line": 2, "end_line": 2},
]

INVALID_READS = [
    {"start_line": 2},
    {"end_line": 2},
    {"next_offset": 4},
    {"total_lines": 4},
    {"start_line": 5, "end_line": 4},
    {"start_line": 0, "end_line": 1},
    {"start_line": -1, "end_line": -1},
    {"start_line": 2, "end_line": 8, "total_lines": 7},
    {"start_line": 2, "end_line": 4, "next_offset": 5},
    {"start_line": 1, "end_line": 1, "next_offset": 0},
    {"no_lines_requested": True, "error": "gone"},
    {"no_lines_requested": True, "start_line": 1, "end_line": 2},
    {"no_lines_requested": True, "start_line": 1, "end_line": 2, "total_lines": 2},
    {"no_lines_requested": True, "start_line": 1, "end_line": 2, "next_offset": 2},
]


@pytest.mark.parametrize(("kwargs", "valid"), [(k, True) for k in VALID_READS] + [(k, False) for k in INVALID_READS])
def test_read_result_invariants(kwargs: dict[str, Any], valid: bool) -> None:
    def scenario(a: SimpleNamespace, _call: Call) -> Any:
        return a.P.ReadResult(**kwargs)

    ref = same(scenario, raises=not valid)
    if valid:
        assert ref["<type>"] == "ReadResult"
    else:
        assert ref[:2] == ("raised", "ValueError")
        flag = "no_lines_requested" if kwargs.get("no_lines_requested") else "ReadResult"
        assert flag in ref[2]


# --------------------------------------------------------------------------------------------
# Filesystem errors mapped to the standard error codes
# --------------------------------------------------------------------------------------------


def _loop_behind(link: str) -> RuntimeError:
    exc = RuntimeError("could not resolve")
    setattr(exc, link, OSError(errno.ELOOP, "Too many levels of symbolic links"))
    return exc


ERRORS = [
    (FileNotFoundError("missing"), "file_not_found"),
    (PermissionError("nope"), "permission_denied"),
    (IsADirectoryError("a dir"), "is_directory"),
    (NotADirectoryError("not a dir"), "invalid_path"),
    (FileExistsError("taken"), "invalid_path"),
    (OSError(errno.ELOOP, "loop"), "invalid_path"),
    (_loop_behind("__context__"), "invalid_path"),
    (_loop_behind("__cause__"), "invalid_path"),
    # Every ValueError is a bad path, whatever it says.
    (ValueError("bad segment"), "invalid_path"),
    (ValueError("invalid literal for int() with base 10"), "invalid_path"),
    # Only the exception's type counts, never its message.
    (RuntimeError("permission denied"), None),
    (RuntimeError("other"), None),
    (OSError("is a directory"), None),
    # OSError picks its subclass from the errno.
    (OSError(errno.ENOENT, "No such file"), "file_not_found"),
    (KeyError("x"), None),
]


@pytest.mark.parametrize(("exc", "code"), ERRORS, ids=[f"{type(e).__name__}-{c}" for e, c in ERRORS])
def test_exception_to_error_code(exc: BaseException, code: str | None) -> None:
    out = run_both(
        lambda a, _call: importlib.import_module(f"{a.impl}.backends.filesystem")._map_exception_to_standard_error(exc)
    )
    assert out["deepagents"] == code
    assert out["deepagents_rs"] == code
