"""`StoreBackend`: files in a LangGraph `BaseStore`, shared across threads and kept.

The backend's rules (namespace checks, item to file data, paging, delete markers, result
shapes) are the core's `StorePlan`: a plan names the store calls it needs one at a time,
and this module makes them with the store's sync methods or awaits their async twins.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from deepagents_rs import _core
from deepagents_rs.backends import protocol
from deepagents_rs.backends._memory_store_reads import memory_data, memory_items
from deepagents_rs.backends._store_state_texts import NAMESPACE_FACTORY_NEEDS_RUNTIME, STORE_OUTSIDE_GRAPH

# deepagents requires LangGraph, deepagents_rs does not, and imports it only when a store is
# used (`import deepagents_rs` loads no LangGraph module). Without it these names still exist:
# there is never a graph context, so a store must be passed in.


def get_store() -> Any:
    """LangGraph's ``get_store()``: the running graph's store."""
    return _langgraph("langgraph.config", "get_store")()


def get_runtime() -> Any:
    """LangGraph's ``get_runtime()``: the running graph's runtime."""
    return _langgraph("langgraph.runtime", "get_runtime")()


_LANGGRAPH: dict[str, Callable[[], Any]] = {}


def _langgraph(module: str, name: str) -> Callable[[], Any]:
    """LangGraph's function `name`, imported on first use and held (an import per call
    costs more than a small store operation)."""
    try:
        return _LANGGRAPH[name]
    except KeyError:
        pass
    try:
        function = getattr(importlib.import_module(module), name)
    except ImportError:  # pragma: no cover - only without langgraph
        raise RuntimeError("LangGraph is not installed") from None
    _LANGGRAPH[name] = function
    return function


def __getattr__(name: str) -> Any:
    # LangGraph's store classes, importable from here as from deepagents' module (None
    # without LangGraph), resolved when first asked for.
    if name in ("BaseStore", "Item", "PutOp"):
        try:
            import langgraph.store.base as store_base
        except ImportError:  # pragma: no cover - only without langgraph
            return None
        return getattr(store_base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    from langgraph.runtime import Runtime
    from langgraph.store.base import BaseStore, Item


NamespaceFactory = Callable[["Runtime[Any]"], tuple[str, ...]]
_Namespace = tuple[str, ...]

_validate_namespace = _core.store_validate_namespace


def _overrides(backend: StoreBackend, name: str) -> bool:
    """Whether a subclass has its own `name`, which the operations must then go through."""
    return getattr(type(backend), name) is not getattr(StoreBackend, name)


# The store's async twin of each method a plan asks for.
_ASYNC = {"get": "aget", "put": "aput", "search": "asearch", "batch": "abatch"}


async def _arun(store: BaseStore, plan: Any, items: list[Item] | None = None, data: Any = None) -> Any:
    """Carry `plan` out with the store's async methods (`aget`, `aput`, `asearch`, `abatch`);
    `plan.run(store, items, data)` is its sync twin (the core makes the calls on the caller's
    thread).

    Given `items` (what a subclass's `_search_store_paginated` found, or a plain
    `InMemoryStore`'s items), they answer the plan's first `search` page and an empty page any
    further one, which ends its paging. Given `data` (a plain `InMemoryStore`'s dict), a `get`
    is that store's own lookup (see `_memory_store_reads`).
    """
    method, args, kwargs = plan.send(None)
    while method is not None:
        if method == "search" and items is not None:
            reply, items = items, []
        elif method == "get" and data is not None:
            namespace, key = args  # the plan's own str path
            reply = data[namespace].get(key)
        else:
            reply = await getattr(store, _ASYNC[method])(*args, **(kwargs or {}))
        method, args, kwargs = plan.send(reply)
    return args


class StoreBackend(protocol.BackendProtocol):
    """Files in a LangGraph `BaseStore`: they outlive threads and can be shared between them.

    Each call works in the namespace the `namespace` factory returns for the
    current run, which is how files are scoped per user, assistant and so on.
    `aread`, `awrite`, `aedit` and `adelete` use the store's native async API.
    """

    def __init__(self, *, namespace: NamespaceFactory, store: BaseStore | None = None) -> None:
        """Create the backend.

        Args:
            namespace: Called with the run's `Runtime` (or `None` outside a graph);
                returns the namespace tuple to work in, for instance
                `lambda rt: (rt.server_info.user.identity, "filesystem")` for one
                namespace per user. Wildcards are refused.
            store: The store to use. Without one, each call takes the store of
                the running LangGraph graph (`get_store()`).
        """
        self._namespace = namespace
        self._store = store

    def _get_store(self) -> BaseStore:
        if self._store is not None:
            return self._store
        try:
            return get_store()
        except (RuntimeError, KeyError):
            raise RuntimeError(STORE_OUTSIDE_GRAPH) from None

    def _get_namespace(self) -> tuple[str, ...]:
        """Ask the factory for the namespace, handing it the run's `Runtime` when there is one.

        Outside a graph the factory gets `None`, which suits factories that ignore
        their argument; one that reads it gets a `RuntimeError` saying why rather
        than an `AttributeError` on `None`.
        """
        try:
            runtime = get_runtime()
        except (RuntimeError, KeyError):
            runtime = None
        try:
            namespace = self._namespace(runtime)
        except AttributeError as exc:
            if runtime is None:
                raise RuntimeError(NAMESPACE_FACTORY_NEEDS_RUNTIME) from exc
            raise
        return _validate_namespace(namespace)

    def _plan(self, make: Callable[..., Any], *args: Any) -> tuple[BaseStore, Any, None, Any]:
        """`_arun`'s arguments: the store of this call, the plan `make` builds in its namespace
        (the store is looked up first), no items, and a plain `InMemoryStore`'s dict, if it is one."""
        store = self._get_store()
        namespace = self._get_namespace()
        return store, make(namespace, *args), None, memory_data(store, namespace)

    def _carry(self, make: Callable[..., Any], *args: Any) -> Any:
        """The plan `make` builds, carried out with the store's sync methods, in one frame (a
        small operation's Python frames are a measurable share of its cost); its `get`s read a
        plain `InMemoryStore`'s dict (see `_memory_store_reads`)."""
        store = self._get_store()
        namespace = self._get_namespace()
        return make(namespace, *args).run(store, None, memory_data(store, namespace))

    def _listing(self, make: Callable[..., Any], args: tuple[Any, ...], searcher: str) -> tuple[Any, ...]:
        """The store, the plan of an operation that reads the whole namespace (ls, grep, glob,
        delete), the namespace's items when an `InMemoryStore` is read directly (see
        `_memory_store_reads`; else `None`: the plan pages through `store.search` itself) and,
        when a subclass has its own `searcher` (`_search_store_paginated` or its async twin),
        that bound method, which must then supply the items as in deepagents (else `None`)."""
        store = self._get_store()
        namespace = self._get_namespace()
        plan = make(namespace, *args)
        if _overrides(self, searcher):
            return store, namespace, plan, None, getattr(self, searcher)
        data = memory_data(store, namespace)
        return store, namespace, plan, None if data is None else memory_items(data, namespace), None

    def _run_listing(self, make: Callable[..., Any], *args: Any) -> Any:
        """A whole-namespace operation carried out with the store's sync methods (see `_listing`)."""
        store, namespace, plan, items, own = self._listing(make, args, "_search_store_paginated")
        if own is not None:
            items = list(own(store, namespace))
        return plan.run(store, items)

    async def _arun_listing(self, make: Callable[..., Any], *args: Any) -> Any:
        """`_run_listing` with the store's async API and `_asearch_store_paginated`."""
        store, namespace, plan, items, own = self._listing(make, args, "_asearch_store_paginated")
        if own is not None:
            items = list(await own(store, namespace))
        return await _arun(store, plan, items)

    def _search_store_paginated(
        self,
        store: BaseStore,
        namespace: _Namespace,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        page_size: int = 100,
    ) -> list[Item]:
        """Every item of `namespace` that `store.search` finds, fetched `page_size` at a time."""
        return _core.StorePlan.items(namespace, query, filter, page_size).run(store)

    async def _asearch_store_paginated(
        self,
        store: BaseStore,
        namespace: _Namespace,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        page_size: int = 100,
    ) -> list[Item]:
        """`_search_store_paginated` through the store's async API."""
        return await _arun(store, _core.StorePlan.items(namespace, query, filter, page_size))

    def ls(self, path: str) -> protocol.LsResult:
        """The files and subdirectories directly under `path` (subdirectories end in `/`).

        The whole namespace is fetched and filtered here rather than relying on
        store-specific filter semantics; items without content are left out.
        """
        return self._run_listing(_core.StorePlan.ls, path)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> protocol.ReadResult:
        """The raw lines `offset` to `offset + limit` of a text file, or a whole media file."""
        return self._carry(_core.StorePlan.read, file_path, offset, limit)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> protocol.ReadResult:
        """`read` through the store's async API."""
        return await _arun(*self._plan(_core.StorePlan.read, file_path, offset, limit))

    def write(self, file_path: str, content: str) -> protocol.WriteResult:
        """Create or replace a text file (an existing file keeps its creation time)."""
        return self._carry(_core.StorePlan.write, file_path, content)

    async def awrite(self, file_path: str, content: str) -> protocol.WriteResult:
        """`write` through the store's async API."""
        return await _arun(*self._plan(_core.StorePlan.write, file_path, content))

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> protocol.EditResult:
        """Replace `old_string` by `new_string` in a text file (once, or everywhere with `replace_all`)."""
        return self._carry(_core.StorePlan.edit, file_path, old_string, new_string, replace_all)

    async def aedit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> protocol.EditResult:
        """`edit` through the store's async API."""
        return await _arun(*self._plan(_core.StorePlan.edit, file_path, old_string, new_string, replace_all))

    def delete(self, file_path: str) -> protocol.DeleteResult:
        """Remove a file, or a directory with everything below it; wildcards in `file_path` are literal."""
        return self._run_listing(_core.StorePlan.delete, file_path)

    async def adelete(self, file_path: str) -> protocol.DeleteResult:
        """`delete` through the store's async API."""
        return await self._arun_listing(_core.StorePlan.delete, file_path)

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> protocol.GrepResult:
        """Literal-text search of the stored files under `path`."""
        return self._run_listing(_core.StorePlan.grep, pattern, path, glob, max_count)

    def glob(self, pattern: str, path: str | None = None) -> protocol.GlobResult:
        """The stored files matching `pattern` (see `BackendProtocol.glob`); a refused pattern is an error result."""
        return self._run_listing(_core.StorePlan.glob, pattern, path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[protocol.FileUploadResponse]:
        """Store raw bytes, one `put` per file: UTF-8 text as such, anything else base64-encoded."""
        store = self._get_store()  # no `get`: nothing to read directly
        return _core.StorePlan.upload(self._get_namespace(), files).run(store)

    def download_files(self, paths: list[str]) -> list[protocol.FileDownloadResponse]:
        """The raw bytes of each path, in order; a missing one reports `file_not_found`."""
        return self._carry(_core.StorePlan.download, paths)
