"""Parity: every ``CompositeBackend`` operation over backends that record what they are asked.

The composite's operations are plans run by the core; the routed backends are the caller's
own objects. Each backend here notes every call it gets (method, arguments, and whether it
ran on the caller's thread, or in the caller's running loop for async calls) and answers
with results built from those arguments, so path rewriting on the way in and out shows in
both the notes and the results. The notes and results are compared with deepagents' on the
same inputs: route tables with nested composites, a ``"/"`` route, prefixes without a
trailing slash, a backend mounted twice; legacy reply shapes; errors and exceptions from a
route; caps; batches; a subclass routing by its own ``_get_backend_and_key``. Sync and async.
"""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import CALL_MODES, Call, same


def recorder_class(a: SimpleNamespace, notes: list[Any]) -> type:
    """A backend named ``name`` that notes each call and answers from its arguments.

    ``legacy`` answers ls/grep/glob with bare lists (and grep errors as a string), as
    backends written before the result classes do; ``failing`` names the methods that
    answer with an error result.
    """
    P = a.P

    class Recorder(a.P.SandboxBackendProtocol):
        def __init__(self, name: str, *, legacy: bool = False, failing: tuple[str, ...] = ()) -> None:
            self.name, self.legacy, self.failing = name, legacy, failing

        @property
        def id(self) -> str:
            return self.name

        def _note(self, method: str, *args: Any, **kwargs: Any) -> None:
            try:
                asyncio.get_running_loop()
                in_loop = True
            except RuntimeError:
                in_loop = False
            on_caller = threading.current_thread() is threading.main_thread()
            notes.append([self.name, method, list(args), kwargs, on_caller, in_loop])

        def _ls(self, path: str) -> Any:
            entries = [
                {"path": f"{path.rstrip('/')}/{self.name}.txt", "is_dir": False, "size": 1, "extra": [path]},
                {"path": f"/{self.name}-dir/", "is_dir": True},
            ]
            if "ls" in self.failing:
                return P.LsResult(error=f"{self.name} cannot list {path}")
            return entries if self.legacy else P.LsResult(entries=entries)

        def ls(self, path: str) -> Any:
            self._note("ls", path)
            return self._ls(path)

        async def als(self, path: str) -> Any:
            self._note("als", path)
            return self._ls(path)

        def _grep(self, pattern: str, path: str | None, glob: str | None, count: int) -> Any:
            if "grep" in self.failing:
                text = f"{self.name} grep failed"
                return text if self.legacy else P.GrepResult(error=text)
            matches = [
                {"path": f"/{self.name}/{i}.txt", "line": i, "text": f"{pattern} {path} {glob}"} for i in range(count)
            ]
            return matches if self.legacy else P.GrepResult(matches=matches, truncated=self.name.endswith("cut"))

        def grep(
            self, pattern: str, path: str | None = None, glob: str | None = None, max_count: int | None = None
        ) -> Any:
            self._note("grep", pattern, path, glob, max_count=max_count)
            return self._grep(pattern, path, glob, 3)

        async def agrep(
            self, pattern: str, path: str | None = None, glob: str | None = None, max_count: int | None = None
        ) -> Any:
            self._note("agrep", pattern, path, glob, max_count=max_count)
            return self._grep(pattern, path, glob, 3)

        def _glob(self, pattern: str, path: str | None) -> Any:
            if "glob" in self.failing:
                return P.GlobResult(error=f"{self.name} glob failed", matches=[])
            matches = [{"path": f"/{self.name}/z.md", "size": 2}, {"path": f"/{self.name}/a.md", "pattern": pattern}]
            if self.legacy:
                return matches
            reason = "unreadable" if self.name.endswith("unreadable") else "max_results"
            cut = self.name.endswith(("cut", "unreadable"))
            return P.GlobResult(matches=matches, truncated=cut, truncation_reason=reason if cut else None)

        def glob(self, pattern: str, path: str | None = None) -> Any:
            self._note("glob", pattern, path)
            return self._glob(pattern, path)

        async def aglob(self, pattern: str, path: str | None = None) -> Any:
            self._note("aglob", pattern, path)
            return self._glob(pattern, path)

        def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> Any:
            self._note("read", file_path, offset=offset, limit=limit)
            return P.ReadResult(file_data={"content": f"{self.name}:{file_path}", "encoding": "utf-8"})

        async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> Any:
            self._note("aread", file_path, offset=offset, limit=limit)
            return P.ReadResult(error=f"{self.name} has no {file_path}")

        def write(self, file_path: str, content: str) -> Any:
            self._note("write", file_path, content)
            return P.WriteResult(path=None if content == "refuse" else file_path)

        async def awrite(self, file_path: str, content: str) -> Any:
            self._note("awrite", file_path, content)
            return P.WriteResult(path=None if content == "refuse" else file_path)

        def edit(self, file_path: str, old: str, new: str, replace_all: bool = False) -> Any:
            self._note("edit", file_path, old, new, replace_all=replace_all)
            return P.EditResult(path=file_path, occurrences=2 if replace_all else 1)

        async def aedit(self, file_path: str, old: str, new: str, replace_all: bool = False) -> Any:
            self._note("aedit", file_path, old, new, replace_all=replace_all)
            return P.EditResult(error="no match") if old == "absent" else P.EditResult(path=file_path, occurrences=1)

        def delete(self, file_path: str) -> Any:
            self._note("delete", file_path)
            return P.DeleteResult(path=file_path)

        async def adelete(self, file_path: str) -> Any:
            self._note("adelete", file_path)
            return P.DeleteResult(error=f"{file_path} is gone")

        def upload_files(self, files: list[tuple[str, bytes]]) -> Any:
            self._note("upload_files", files)
            # One reply short: the composite counts the missing one as a success.
            return [P.FileUploadResponse(path=p, error="permission_denied" if b == b"no" else None) for p, b in files][
                : max(len(files) - 1, 1)
            ]

        async def aupload_files(self, files: list[tuple[str, bytes]]) -> Any:
            self._note("aupload_files", files)
            return [P.FileUploadResponse(path=p) for p, _ in files]

        def download_files(self, paths: list[str]) -> Any:
            self._note("download_files", paths)
            return [P.FileDownloadResponse(path=p, content=f"{self.name}{p}".encode()) for p in paths]

        async def adownload_files(self, paths: list[str]) -> Any:
            self._note("adownload_files", paths)
            return [P.FileDownloadResponse(path=p, error="file_not_found") for p in paths[1:]]

        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            self._note("execute", command, timeout=timeout)
            return P.ExecuteResponse(output=f"{self.name} ran {command}", exit_code=0)

        async def aexecute(self, command: str, *, timeout: int | None = None) -> Any:
            self._note("aexecute", command, timeout=timeout)
            return P.ExecuteResponse(output=f"{self.name} ran {command} async", exit_code=1)

    return Recorder


TABLES = {
    "nested routes": lambda R, C: {
        "/memories/": R("mem"),
        "/memories/deep/": R("deep-cut"),
        "/bare": R("bare"),
    },
    "root route": lambda R, C: {"/": R("root"), "/x/": R("x-unreadable")},
    "odd prefixes": lambda R, C: {"/a/b/": R("ab"), "/a": R("a"), "//": R("slashes"), "/t/": R("t", legacy=True)},
    "nested composite": lambda R, C: {
        "/outer/": C(default=R("outer"), routes={"/inner/": R("inner-cut"), "/": R("outer-root")}),
        "/side/": R("side"),
    },
    "mounted twice": lambda R, C: {"/one/": (shared := R("shared")), "/two/": shared, "/three/": R("three")},
    "no routes": lambda R, C: {},
}

PATHS = [
    "/",
    "",
    "/memories",
    "/memories/",
    "/memories/deep",
    "/memories/deep/x.md",
    "/memoriesX/y",
    "/bare",
    "/bare/",
    "/bare/y.txt",
    "/barex",
    "/x",
    "/x/y",
    "/a",
    "/a/b",
    "/a/b/c.txt",
    "/ab",
    "//",
    "//z",
    "/t/f",
    "/outer/inner/f.txt",
    "/outer/f.txt",
    "/outer",
    "/side/s",
    "/one/f",
    "/two/",
    "/three/q",
    "/plain.txt",
]

PATTERNS = ["*.md", "/*.md", "/memories/**/*.md", "memories/*.md", "**/x", "/outer/inner/*", "/x/*", "t/*"]


def _ops(mode: str) -> list[Step]:
    ops: list[Step] = []
    for path in PATHS:
        ops += [
            ("ls", (path,), {}),
            ("read", (path,), {"offset": 3, "limit": 4}),
            ("write", (path, "text"), {}),
            ("write", (path, "refuse"), {}),
            ("edit", (path, "old", "new"), {"replace_all": True}),
            ("edit", (path, "absent", "new"), {}),
            ("delete", (path,), {}),
            ("glob", ("*.md", path), {}),
        ]
    for path in [*PATHS, None]:
        for cap in (None, 0, 1, 4, 7, -2):
            ops.append(("grep", ("hit", path, "*.txt"), {"max_count": cap}))
    for pattern in PATTERNS:
        ops += [("glob", (pattern,), {}), ("glob", (pattern, "/"), {})]
    ops += [
        ("upload_files", ([(p, p.encode() or b"no") for p in PATHS],), {}),
        ("upload_files", ([("/memories/n", b"no"), ("/plain", b"no")],), {}),
        ("upload_files", ([],), {}),
        ("download_files", (PATHS,), {}),
        ("download_files", ([],), {}),
        ("execute", ("ls -la",), {}),
        ("execute", ("sleep 1",), {"timeout": 5}),
    ]
    return ops


Step = tuple[str, tuple[Any, ...]] | tuple[str, tuple[Any, ...], dict[str, Any]]


def _steps(call: Call, comp: Any, notes: list[Any], steps: list[Step]) -> list[Any]:
    """Each step's result (or the exception it raised) with the backend calls it made."""
    out = []
    for method, args, *rest in steps:
        kwargs = rest[0] if rest else {}
        del notes[:]
        try:
            result = call(comp, method, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - compared with deepagents'
            result = exc
        out.append([method, list(args), kwargs, result, list(notes)])
    return out


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("table", list(TABLES))
@pytest.mark.parametrize("default_legacy", [False, True], ids=["results", "legacy"])
def test_every_operation_over_recording_backends(table: str, default_legacy: bool, mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        notes: list[Any] = []
        R = recorder_class(a, notes)
        comp = a.CompositeBackend(
            default=R("default", legacy=default_legacy), routes=TABLES[table](R, a.CompositeBackend)
        )
        return _steps(call, comp, notes, _ops(mode))

    ref = same(scenario, mode)
    # Every backend call happened where the caller is: its thread, or its running loop.
    calls = [note for row in ref for note in row[4]]
    assert calls and all(note[4] for note in calls)
    assert all(note[5] for note in calls) is (mode == "async")


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("failing", ["ls", "grep", "glob"])
@pytest.mark.parametrize("where", ["default", "first route", "second route"])
def test_error_results_from_a_child(failing: str, where: str, mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        notes: list[Any] = []
        R = recorder_class(a, notes)

        def make(name: str, legacy: bool = False) -> Any:
            return R(name, legacy=legacy, failing=(failing,) if where.startswith(name) else ())

        comp = a.CompositeBackend(
            default=make("default"),
            routes={"/first/": make("first", legacy=True), "/second/": make("second")},
        )
        return _steps(
            call,
            comp,
            notes,
            [
                ("ls", ("/",)),
                ("ls", ("/first/",)),
                ("ls", ("/second",)),
                ("grep", ("p",)),
                ("grep", ("p", "/")),
                ("grep", ("p", "/first/")),
                ("grep", ("p", "/second/")),
                ("glob", ("*",)),
                ("glob", ("*", "/second/")),
                ("glob", ("*", "/first")),
            ],
        )

    same(scenario, mode)


@pytest.mark.parametrize("mode", CALL_MODES)
def test_exceptions_from_a_route(mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        class Broken(a.BackendProtocol):
            """Raises from everything; `delete` is the base class's (not supported)."""

            def ls(self, path: str) -> Any:
                raise ValueError(f"ls {path} broke")

            async def als(self, path: str) -> Any:
                raise ValueError(f"als {path} broke")

            def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> Any:
                raise NotImplementedError("no reads here")

            async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> Any:
                raise NotImplementedError("no async reads here")

            def grep(self, *args: Any, **kwargs: Any) -> Any:
                raise KeyError("grep")

            async def agrep(self, *args: Any, **kwargs: Any) -> Any:
                raise KeyError("agrep")

            def glob(self, pattern: str, path: str | None = None) -> Any:
                raise RuntimeError(f"glob {pattern} {path}")

            async def aglob(self, pattern: str, path: str | None = None) -> Any:
                raise RuntimeError(f"aglob {pattern} {path}")

        class NoDelete(a.BackendProtocol):
            def delete(self, file_path: str) -> Any:
                raise NotImplementedError(file_path)

            async def adelete(self, file_path: str) -> Any:
                raise NotImplementedError(file_path)

        comp = a.CompositeBackend(
            default=a.StateBackend(), routes={"/broken/": Broken(), "/nodelete/": NoDelete(), "/base/": Broken()}
        )
        steps: list[Step] = [
            ("ls", ("/broken/x",)),
            ("ls", ("/",)),
            ("read", ("/broken/f",)),
            ("grep", ("p", "/broken")),
            ("grep", ("p",)),
            ("glob", ("*", "/broken/")),
            ("glob", ("*",)),
            ("delete", ("/nodelete/f.txt",)),
            ("delete", ("/base/f.txt",)),
            ("delete", ("/base",)),
        ]
        return [row[3] for row in _steps(call, comp, [], steps)]

    ref = same(scenario, mode)
    assert ref[0] == ("raised", "ValueError", "ls /x broke" if mode == "sync" else "als /x broke")
    assert ref[2][:2] == ("raised", "NotImplementedError")
    assert ref[7]["error"] == "Error: deletion is not supported for '/nodelete/f.txt'."


@pytest.mark.parametrize("mode", CALL_MODES)
def test_paths_that_are_not_text(mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        notes: list[Any] = []
        R = recorder_class(a, notes)
        out = []
        for routes in ({}, {"/m/": R("m")}):
            comp = a.CompositeBackend(default=R("default"), routes=routes)
            steps: list[Step] = [("read", (7,)), ("ls", (None,)), ("delete", (b"/m/x",)), ("download_files", ([3],))]
            out += _steps(call, comp, notes, steps)
        return out

    same(scenario, mode)


@pytest.mark.parametrize("mode", CALL_MODES)
def test_execute_by_the_default_backend(mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        notes: list[Any] = []
        R = recorder_class(a, notes)

        class OldShell(R):
            """`execute` from before `timeout` existed."""

            def execute(self, command: str) -> Any:  # type: ignore[override]
                self._note("execute", command)
                return a.P.ExecuteResponse(output=command)

            async def aexecute(self, command: str) -> Any:  # type: ignore[override]
                self._note("aexecute", command)
                return a.P.ExecuteResponse(output=command)

        out = []
        for default in (R("shell"), OldShell("old"), a.StateBackend()):
            comp = a.CompositeBackend(default=default, routes={"/r/": R("r")})
            timeouts: list[dict[str, Any]] = [{}, {"timeout": 3}, {"timeout": None}, {"timeout": 0}]
            out += _steps(call, comp, notes, [("execute", ("echo hi",), kwargs) for kwargs in timeouts])
        return out

    same(scenario, mode)


@pytest.mark.parametrize("mode", CALL_MODES)
def test_batches_over_unhashable_and_equal_backends(mode: str) -> None:
    """Uploads and downloads group paths by backend as a dict does: backends that compare
    equal share one batch, and an unhashable one raises before any call."""

    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        notes: list[Any] = []
        R = recorder_class(a, notes)

        class Twin(R):
            def __eq__(self, other: object) -> bool:
                return isinstance(other, Twin)

            def __hash__(self) -> int:
                return 1

        class Unhashable(R):
            __hash__ = None  # type: ignore[assignment]

        out = []
        for routes in ({"/p/": Twin("p"), "/q/": Twin("q")}, {"/u/": Unhashable("u")}):
            comp = a.CompositeBackend(default=R("default"), routes=routes)
            steps: list[Step] = [
                ("upload_files", ([("/p/1", b"a"), ("/x", b"b"), ("/q/2", b"c"), ("/u/3", b"d")],)),
                ("download_files", (["/q/1", "/p/2", "/u/3", "/y"],)),
            ]
            out += _steps(call, comp, notes, steps)
        return out

    same(scenario, mode)


@pytest.mark.parametrize("mode", CALL_MODES)
def test_a_subclass_routing_by_its_own_key_rule(mode: str) -> None:
    """deepagents asks `_get_backend_and_key` for reads, writes, edits, deletes and batches
    (not for ls, grep and glob): a subclass's own rule is followed exactly there."""

    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        notes: list[Any] = []
        R = recorder_class(a, notes)

        class Upper(a.CompositeBackend):
            def _get_backend_and_key(self, key: str) -> Any:
                backend, inner = super()._get_backend_and_key(key)
                return (self.default, key.upper()) if backend is self.default else (backend, inner + ".v2")

        comp = Upper(default=R("default"), routes={"/m/": R("m")})
        steps: list[Step] = [
            ("read", ("/m/a",)),
            ("read", ("/b",)),
            ("write", ("/b", "x")),
            ("write", ("/m/c", "x")),
            ("edit", ("/m/c", "o", "n")),
            ("delete", ("/d",)),
            ("upload_files", ([("/m/u", b"1"), ("/v", b"2")],)),
            ("download_files", (["/m/u", "/v"],)),
            ("ls", ("/m/",)),
            ("grep", ("p", "/m/")),
            ("glob", ("*", "/m/")),
        ]
        return _steps(call, comp, notes, steps)

    same(scenario, mode)


@pytest.mark.parametrize("mode", CALL_MODES)
def test_routes_changed_after_construction(mode: str) -> None:
    """The composite reads `default`, `sorted_routes` and `routes` at each call, as deepagents does."""

    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        notes: list[Any] = []
        R = recorder_class(a, notes)
        comp = a.CompositeBackend(default=R("default"), routes={"/m/": R("m")})
        comp.routes["/late/"] = R("late")
        comp.default = R("second default")
        out = _steps(call, comp, notes, [("ls", ("/",)), ("grep", ("p",)), ("glob", ("*",)), ("read", ("/late/x",))])
        comp.sorted_routes = [("/late/", R("late"))]
        return out + _steps(call, comp, notes, [("read", ("/late/x",))])

    same(scenario, mode)
