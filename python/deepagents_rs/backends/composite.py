"""`CompositeBackend`: one file tree assembled from several backends.

A route maps a path prefix such as `/memories/` to a backend that sees the
paths below it with the prefix cut off; every other path goes to the default
backend. Whatever a routed backend reports gets its prefix put back on.

Each operation is the core's `CompositePlan`: it names the backend calls it needs
one at a time and merges their replies. `_run` makes those calls with the
backends' sync methods and `_arun` awaits their async twins (the plan names
which), so a routed backend, whatever object it is, is called on the caller's
thread or loop.
"""

from typing import Any

from deepagents_rs import _core
from deepagents_rs.backends import protocol
from deepagents_rs.backends.protocol import (
    BackendProtocol,
    DeleteResult,
    EditResult,
    ExecuteResponse,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
)
from deepagents_rs.backends.state import StateBackend

_RouteMap = dict[str, BackendProtocol]

GlobBackendResult = GlobResult | list[protocol.FileInfo]
"""What a backend's `glob` may return: a `GlobResult`, or a bare list from older backends."""


def _route_for_path(
    *, default: BackendProtocol, sorted_routes: list[tuple[str, BackendProtocol]], path: str
) -> tuple[BackendProtocol, str, str | None]:
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


def _run(plan: Any) -> Any:
    call, args, kwargs = plan.send(None)
    while call is not None:
        try:
            reply = call(*args, **kwargs)
        except NotImplementedError as error:
            # The plan turns a route's missing `delete` into an error result; else it re-raises.
            call, args, kwargs = plan.throw(error)
        else:
            call, args, kwargs = plan.send(reply)
    return args


async def _arun(plan: Any) -> Any:
    call, args, kwargs = plan.send(None)
    while call is not None:
        try:
            reply = await call(*args, **kwargs)
        except NotImplementedError as error:
            call, args, kwargs = plan.throw(error)
        else:
            call, args, kwargs = plan.send(reply)
    return args


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

    def _get_backend_and_key(self, key: str) -> tuple[BackendProtocol, str]:
        """The backend owning `key`, and `key` as that backend sees it."""
        backend, inner, _prefix = _route_for_path(default=self.default, sorted_routes=self.sorted_routes, path=key)
        return backend, inner

    def _plan(self, operation: str, asynchronous: bool, *args: Any) -> Any:
        """The core's plan of `operation` with the method's arguments.

        A subclass's own `_get_backend_and_key` is handed over: deepagents routes the
        single-path and batch operations through it.
        """
        own_key = type(self)._get_backend_and_key is not CompositeBackend._get_backend_and_key
        return _core.CompositePlan(operation, self, self._get_backend_and_key if own_key else None, asynchronous, args)

    # --- BackendProtocol -------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        """List `path`; at `"/"` the routes appear as directories beside the default backend's entries."""
        return _run(self._plan("ls", False, path))

    async def als(self, path: str) -> LsResult:
        """Async `ls`."""
        return await _arun(self._plan("ls", True, path))

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> protocol.ReadResult:
        """Read from the backend owning `file_path`."""
        return _run(self._plan("read", False, file_path, offset, limit))

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> protocol.ReadResult:
        """Async `read`."""
        return await _arun(self._plan("read", True, file_path, offset, limit))

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Search for literal text in the owning backend, or in all of them at the root.

        `max_count` caps the matches over all backends together. Once earlier
        backends fill it the rest are skipped and the result is flagged
        `truncated`, even if they would have added nothing.
        """
        return _run(self._plan("grep", False, pattern, path, glob, max_count))

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Async `grep`."""
        return await _arun(self._plan("grep", True, pattern, path, glob, max_count))

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find files by glob pattern in the owning backend, or in all of them at the root.

        At the root a pattern naming a route is re-anchored inside it, and a
        `/`-anchored pattern naming none skips the routes.
        """
        return _run(self._plan("glob", False, pattern, path))

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Async `glob`."""
        return await _arun(self._plan("glob", True, pattern, path))

    def write(self, file_path: str, content: str) -> protocol.WriteResult:
        """Create `file_path` in the backend owning it."""
        return _run(self._plan("write", False, file_path, content))

    async def awrite(self, file_path: str, content: str) -> protocol.WriteResult:
        """Async `write`."""
        return await _arun(self._plan("write", True, file_path, content))

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Replace text in `file_path` through the backend owning it."""
        plan = self._plan("edit", False, file_path, old_string, new_string, replace_all)
        return _run(plan)

    async def aedit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Async `edit`."""
        plan = self._plan("edit", True, file_path, old_string, new_string, replace_all)
        return await _arun(plan)

    def delete(self, file_path: str) -> DeleteResult:
        """Delete `file_path` through the backend owning it.

        The composite always offers deletion, so a route whose backend lacks it
        answers with an error result instead of raising `NotImplementedError`.
        """
        return _run(self._plan("delete", False, file_path))

    async def adelete(self, file_path: str) -> DeleteResult:
        """Async `delete`."""
        return await _arun(self._plan("delete", True, file_path))

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run `command` on the default backend; paths play no part in where it runs.

        `timeout` is passed on only to backends whose `execute` accepts it.

        Raises:
            NotImplementedError: If the default backend cannot execute commands.
        """
        return _run(self._plan("execute", False, command, timeout))

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Async `execute`."""
        return await _arun(self._plan("execute", True, command, timeout))

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Upload through one batched call per backend; responses follow the input order and paths."""
        pairs = [(path, content) for path, content in files]
        return _run(self._plan("upload", False, pairs))

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Async `upload_files`."""
        pairs = [(path, content) for path, content in files]
        return await _arun(self._plan("upload", True, pairs))

    def download_files(self, paths: list[str]) -> list[protocol.FileDownloadResponse]:
        """Download through one batched call per backend; responses follow the input order and paths."""
        return _run(self._plan("download", False, list(paths)))

    async def adownload_files(self, paths: list[str]) -> list[protocol.FileDownloadResponse]:
        """Async `download_files`."""
        return await _arun(self._plan("download", True, list(paths)))
