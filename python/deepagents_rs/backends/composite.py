"""`CompositeBackend`: one file tree assembled from several backends.

A route maps a path prefix such as `/memories/` to a backend that sees the
paths below it with the prefix cut off; every other path goes to the default
backend. Whatever a routed backend reports gets its prefix put back on.

Each operation is written once, as a plan: a generator that yields the backend
calls it needs (`_Call`) and receives their results. `_run` carries a plan out
with the backends' sync methods and `_arun` with their async twins, so the
sync and async faces of the class cannot drift apart.
"""

from collections import defaultdict
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from deepagents_rs import _core
from deepagents_rs.backends import protocol
from deepagents_rs.backends.protocol import (
    BackendProtocol,
    DeleteResult,
    EditResult,
    ExecuteResponse,
    FileInfo,
    FileUploadResponse,
    GlobResult,
    GlobTruncationReason,
    GrepResult,
    LsResult,
    ReadResult,
    SandboxBackendProtocol,
    WriteResult,
)
from deepagents_rs.backends.state import StateBackend

_T = TypeVar("_T")
_RouteMap = dict[str, BackendProtocol]
_RouteTable = list[tuple[str, BackendProtocol]]
_Routed = tuple[BackendProtocol, str, str | None]
_PathResult = TypeVar("_PathResult", WriteResult, EditResult, DeleteResult)

_NO_EXECUTION_ERROR = _core.COMPOSITE_NO_EXECUTION_ERROR

GlobBackendResult = GlobResult | list[FileInfo]
"""What a backend's `glob` may return: a `GlobResult`, or a bare list from older backends."""


# --- routing and merging (the rules are the core's) ------------------------------


def _route_for_path(*, default: BackendProtocol, sorted_routes: _RouteTable, path: str) -> _Routed:
    """Pick the backend for `path` and the path that backend should see.

    Returns `(backend, inner_path, route_prefix)`. A route owns its bare
    directory (`/memories`, seen inside as `/`) and everything below
    `/memories/`; the first owner in `sorted_routes` wins. Unowned paths go to
    `default` unchanged, with `None` as the prefix.
    """
    found = _core.composite_route([prefix for prefix, _ in sorted_routes], path)
    if found is None:
        return default, path, None
    index, inner = found
    prefix, backend = sorted_routes[index]
    return backend, inner, prefix


def _show_outer_path(result: _PathResult, file_path: str) -> _PathResult:
    """Report the caller's path rather than the one the routed backend saw."""
    if result.path is not None:
        result.path = file_path
    return result


# --- results from older backends ----------------------------------------------


def _as_ls_result(raw: LsResult | list[FileInfo]) -> LsResult:
    return raw if isinstance(raw, LsResult) else LsResult(entries=raw)


def _as_glob_result(raw: GlobBackendResult) -> GlobResult:
    return raw if isinstance(raw, GlobResult) else GlobResult(matches=raw)


def _as_capped_grep_result(raw: GrepResult | list[protocol.GrepMatch] | str, max_count: int | None) -> GrepResult:
    """Normalize a grep reply (old backends return a list, or a string on error) and apply the cap."""
    if isinstance(raw, str):
        raw = GrepResult(error=raw)
    elif not isinstance(raw, GrepResult):
        raw = GrepResult(matches=raw)
    return protocol._apply_grep_max_count(raw, max_count)


def _glob_under(route_prefix: str, result: GlobResult) -> GlobResult:
    return GlobResult(
        matches=_core.composite_prefixed(result.matches, route_prefix),
        truncated=result.truncated,
        truncation_reason=result.truncation_reason,
    )


def _union_of_globs(parts: Sequence[GlobResult]) -> GlobResult:
    matches: list[FileInfo] = []
    reason: GlobTruncationReason | None = None
    for part in parts:
        matches.extend(part.matches or [])
        reason = _core.composite_worse_reason(reason, part.truncation_reason)
    return GlobResult(
        matches=_core.composite_sorted_by_path(matches),
        truncated=any(part.truncated for part in parts),
        truncation_reason=reason,
    )


# --- plans and the two ways of running them -------------------------------------


@dataclass(frozen=True)
class _Call:
    """A backend call wanted by a plan; `method` names the sync variant, `"a" + method` the async one."""

    backend: BackendProtocol
    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    def _bind(self, name: str) -> partial[Any]:
        kwargs = self.kwargs
        # Backends written before `max_count` existed reject it; the plan caps their reply instead.
        if "max_count" in kwargs and not protocol._method_accepts_max_count(type(self.backend), name):  # type: ignore[arg-type]
            kwargs = {key: value for key, value in kwargs.items() if key != "max_count"}
        return partial(getattr(self.backend, name), *self.args, **kwargs)

    def run(self) -> Any:
        return self._bind(self.method)()

    async def arun(self) -> Any:
        return await self._bind("a" + self.method)()


_Plan = Generator[_Call, Any, _T]


def _run(plan: _Plan[_T]) -> _T:
    reply = None
    while True:
        try:
            call = plan.send(reply)
        except StopIteration as finished:
            return finished.value
        reply = call.run()


async def _arun(plan: _Plan[_T]) -> _T:
    reply = None
    while True:
        try:
            call = plan.send(reply)
        except StopIteration as finished:
            return finished.value
        reply = await call.arun()


def _grep_call(
    backend: BackendProtocol, pattern: str, path: str | None, glob: str | None, max_count: int | None
) -> _Plan[GrepResult]:
    raw = yield _Call(backend, "grep", (pattern, path, glob), {"max_count": max_count})
    return _as_capped_grep_result(raw, max_count)


class CompositeBackend(BackendProtocol):
    """Backend that sends each path to the backend of its longest matching route prefix.

    Paths no route claims go to `default`. Listing, grep and glob at the root
    (`"/"`, or no path for grep and glob) cover the default backend and every
    route; command execution always goes to `default`.

    Attributes:
        default: Backend for paths outside every route.
        routes: Route prefix -> backend, e.g. `{"/memories/": StoreBackend(...)}`.
        sorted_routes: `routes` as pairs, longest prefix first, the order used for matching.
        artifacts_root: Directory under which middleware offloads artifacts
            (large tool results, conversation history). Defaults to `"/"`.

    Example:
        ```python
        backend = CompositeBackend(default=StateBackend(), routes={"/memories/": StoreBackend()})
        backend.write("/scratch.txt", "kept in agent state")
        backend.write("/memories/facts.md", "kept in the store")
        ```
    """

    def __init__(
        self,
        default: BackendProtocol | StateBackend,
        routes: _RouteMap,
        *,
        artifacts_root: str = "/",
    ) -> None:
        """Set up the routing table.

        Args:
            default: Backend for paths outside every route.
            routes: Route prefix -> backend. Prefixes start with `"/"` and
                should end with one, as in `"/memories/"`.
            artifacts_root: Directory for artifacts offloaded by middleware.
        """
        self.default = default
        self.routes = routes
        self.sorted_routes = sorted(routes.items(), key=lambda item: len(item[0]), reverse=True)
        self.artifacts_root = artifacts_root

    def _resolve(self, path: str) -> _Routed:
        return _route_for_path(default=self.default, sorted_routes=self.sorted_routes, path=path)

    def _get_backend_and_key(self, key: str) -> tuple[BackendProtocol, str]:
        """The backend owning `key`, and `key` as that backend sees it."""
        backend, inner, _prefix = self._resolve(key)
        return backend, inner

    def _group_by_backend(self, paths: Sequence[str]) -> dict[BackendProtocol, list[tuple[int, str]]]:
        """`(position, inner path)` pairs per backend, so each backend gets one batched call."""
        groups: dict[BackendProtocol, list[tuple[int, str]]] = defaultdict(list)
        for position, path in enumerate(paths):
            backend, inner = self._get_backend_and_key(path)
            groups[backend].append((position, inner))
        return groups

    # --- plans ---------------------------------------------------------------

    def _ls_plan(self, path: str) -> _Plan[LsResult]:
        backend, inner, prefix = self._resolve(path)
        listing = _as_ls_result((yield _Call(backend, "ls", (inner,))))
        if listing.error:
            return listing
        if prefix is not None:
            return LsResult(entries=_core.composite_prefixed(listing.entries, prefix))
        if path != "/":
            return listing
        # At the root each route shows up as a directory next to the default backend's entries.
        prefixes = [route for route, _ in self.sorted_routes]
        return LsResult(entries=_core.composite_root_listing(listing.entries, prefixes))

    def _grep_plan(self, pattern: str, path: str | None, glob: str | None, max_count: int | None) -> _Plan[GrepResult]:
        prefix = None
        if path is not None:
            backend, inner, prefix = self._resolve(path)
        if prefix is not None:
            found = yield from _grep_call(backend, pattern, inner, glob, max_count)
            if found.error:
                return found
            return GrepResult(matches=_core.composite_prefixed(found.matches, prefix), truncated=found.truncated)
        if path not in (None, "/"):
            return (yield from _grep_call(self.default, pattern, path, glob, max_count))

        found = yield from _grep_call(self.default, pattern, path, glob, max_count)
        if found.error:
            return found
        matches = list(found.matches or [])
        truncated = found.truncated
        for prefix, backend in self.routes.items():
            budget = _core.composite_grep_budget(max_count, len(matches))
            if budget == 0:
                # The cap is met, so the routes left are never searched; the result may be
                # flagged truncated even when they hold nothing.
                truncated = True
                break
            part = yield from _grep_call(backend, pattern, "/", glob, budget)
            if part.error:
                return part
            matches += _core.composite_prefixed(part.matches, prefix)
            truncated = truncated or part.truncated
        if max_count is not None and len(matches) > max_count:
            # Per-call capping keeps the total within bounds except for a negative cap.
            matches, truncated = matches[:max_count], True
        return GrepResult(matches=matches, truncated=truncated)

    def _glob_plan(self, pattern: str, path: str | None) -> _Plan[GlobResult]:
        prefix = None
        if path is not None:
            backend, inner, prefix = self._resolve(path)
        if prefix is not None:
            found = _as_glob_result((yield _Call(backend, "glob", (pattern, inner))))
            return found if found.error else _glob_under(prefix, found)
        if path not in (None, "/"):
            # Handed back as the backend returned it, legacy list included.
            return (yield _Call(self.default, "glob", (pattern, path)))

        parts = [_as_glob_result((yield _Call(self.default, "glob", (pattern, path))))]
        if parts[0].error:
            return parts[0]
        for prefix, backend in self.routes.items():
            inner_pattern = _core.composite_glob_pattern(pattern, prefix)
            if inner_pattern is None:
                continue
            found = _as_glob_result((yield _Call(backend, "glob", (inner_pattern, "/"))))
            if found.error:
                # A failed route must not pass for a partial success.
                return found
            parts.append(_glob_under(prefix, found))
        return _union_of_globs(parts)

    def _upload_plan(self, files: list[tuple[str, bytes]]) -> _Plan[list[FileUploadResponse]]:
        responses: list[Any] = [None] * len(files)
        for backend, batch in self._group_by_backend([path for path, _ in files]).items():
            payload = [(inner, files[position][1]) for position, inner in batch]
            replies = yield _Call(backend, "upload_files", (payload,))
            for n, (position, _inner) in enumerate(batch):
                error = replies[n].error if n < len(replies) else None
                responses[position] = FileUploadResponse(path=files[position][0], error=error)
        return responses

    def _download_plan(self, paths: list[str]) -> _Plan[list[protocol.FileDownloadResponse]]:
        responses: list[Any] = [None] * len(paths)
        for backend, batch in self._group_by_backend(paths).items():
            replies = yield _Call(backend, "download_files", ([inner for _position, inner in batch],))
            for n, (position, _inner) in enumerate(batch):
                reply = replies[n] if n < len(replies) else protocol.FileDownloadResponse(path=paths[position])
                responses[position] = protocol.FileDownloadResponse(
                    path=paths[position], content=reply.content, error=reply.error
                )
        return responses

    def _shell(self) -> SandboxBackendProtocol:
        if isinstance(self.default, SandboxBackendProtocol):
            return self.default
        # The execute tool is only offered for shell-capable backends; this guards direct calls.
        raise NotImplementedError(_NO_EXECUTION_ERROR)

    # --- BackendProtocol -------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        """List `path`; at `"/"` the routes appear as directories beside the default backend's entries."""
        return _run(self._ls_plan(path))

    async def als(self, path: str) -> LsResult:
        """Async `ls`."""
        return await _arun(self._ls_plan(path))

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read from the backend owning `file_path`."""
        backend, inner = self._get_backend_and_key(file_path)
        return backend.read(inner, offset=offset, limit=limit)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Async `read`."""
        backend, inner = self._get_backend_and_key(file_path)
        return await backend.aread(inner, offset=offset, limit=limit)

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Search for literal text in the owning backend, or in all of them at the root.

        `max_count` caps the matches over all backends together. Once earlier
        backends fill it the rest are skipped and the result is flagged
        `truncated`, even if they would have added nothing.
        """
        return _run(self._grep_plan(pattern, path, glob, max_count))

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Async `grep`."""
        return await _arun(self._grep_plan(pattern, path, glob, max_count))

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find files by glob pattern in the owning backend, or in all of them at the root.

        At the root a pattern naming a route is re-anchored inside it, and a
        `/`-anchored pattern naming none skips the routes (`_core.composite_glob_pattern`).
        """
        return _run(self._glob_plan(pattern, path))

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Async `glob`."""
        return await _arun(self._glob_plan(pattern, path))

    def write(self, file_path: str, content: str) -> WriteResult:
        """Create `file_path` in the backend owning it."""
        backend, inner = self._get_backend_and_key(file_path)
        result = backend.write(inner, content)
        return result if inner == file_path else _show_outer_path(result, file_path)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """Async `write`."""
        backend, inner = self._get_backend_and_key(file_path)
        result = await backend.awrite(inner, content)
        return result if inner == file_path else _show_outer_path(result, file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Replace text in `file_path` through the backend owning it."""
        backend, inner = self._get_backend_and_key(file_path)
        return _show_outer_path(backend.edit(inner, old_string, new_string, replace_all=replace_all), file_path)

    async def aedit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Async `edit`."""
        backend, inner = self._get_backend_and_key(file_path)
        result = await backend.aedit(inner, old_string, new_string, replace_all=replace_all)
        return _show_outer_path(result, file_path)

    def delete(self, file_path: str) -> DeleteResult:
        """Delete `file_path` through the backend owning it.

        The composite always offers deletion, so a route whose backend lacks it
        answers with an error result instead of raising `NotImplementedError`.
        """
        backend, inner = self._get_backend_and_key(file_path)
        try:
            result = backend.delete(inner)
        except NotImplementedError:
            return DeleteResult(error=_core.composite_delete_unsupported(file_path))
        return _show_outer_path(result, file_path)

    async def adelete(self, file_path: str) -> DeleteResult:
        """Async `delete`."""
        backend, inner = self._get_backend_and_key(file_path)
        try:
            result = await backend.adelete(inner)
        except NotImplementedError:
            return DeleteResult(error=_core.composite_delete_unsupported(file_path))
        return _show_outer_path(result, file_path)

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run `command` on the default backend; paths play no part in where it runs.

        `timeout` is passed on only to backends whose `execute` accepts it.

        Raises:
            NotImplementedError: If the default backend cannot execute commands.
        """
        shell = self._shell()
        if timeout is not None and protocol.execute_accepts_timeout(type(shell)):
            return shell.execute(command, timeout=timeout)
        return shell.execute(command)

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Async `execute`."""
        shell = self._shell()
        if timeout is not None and protocol.execute_accepts_timeout(type(shell)):
            return await shell.aexecute(command, timeout=timeout)
        return await shell.aexecute(command)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Upload through one batched call per backend; responses follow the input order and paths."""
        return _run(self._upload_plan(files))

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Async `upload_files`."""
        return await _arun(self._upload_plan(files))

    def download_files(self, paths: list[str]) -> list[protocol.FileDownloadResponse]:
        """Download through one batched call per backend; responses follow the input order and paths."""
        return _run(self._download_plan(paths))

    async def adownload_files(self, paths: list[str]) -> list[protocol.FileDownloadResponse]:
        """Async `download_files`."""
        return await _arun(self._download_plan(paths))
