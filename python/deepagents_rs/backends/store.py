"""`StoreBackend`: files in a LangGraph `BaseStore`, shared across threads and kept."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from deepagents_rs.backends._file_dict import (
    decode_upload,
    glob_files,
    keys_to_delete,
    list_directory,
    replace_text,
    stored_bytes,
)
from deepagents_rs.backends._store_state_texts import (
    NAMESPACE_DISALLOWED_CHARACTERS,
    NAMESPACE_FACTORY_NEEDS_RUNTIME,
    STORE_OUTSIDE_GRAPH,
)
from deepagents_rs.backends.protocol import (
    BackendProtocol,
    DeleteResult,
    EditResult,
    FileData,
    FileDownloadResponse,
    FileUploadResponse,
    ReadResult,
    WriteResult,
)
from deepagents_rs.backends.utils import (
    _get_backend_read_file_type,
    create_file_data,
    grep_matches_from_files,
    slice_read_response,
    update_file_data,
)

# deepagents requires LangGraph, deepagents_rs does not, and imports it only when a store is
# used (`import deepagents_rs` loads no LangGraph module). Without it these names still exist:
# there is never a graph context, so a store must be passed in.


def get_store() -> Any:
    """LangGraph's ``get_store()``: the running graph's store."""
    try:
        from langgraph.config import get_store as graph_store
    except ImportError:  # pragma: no cover - only without langgraph
        raise RuntimeError("LangGraph is not installed") from None
    return graph_store()


def get_runtime() -> Any:
    """LangGraph's ``get_runtime()``: the running graph's runtime."""
    try:
        from langgraph.runtime import get_runtime as graph_runtime
    except ImportError:  # pragma: no cover - only without langgraph
        raise RuntimeError("LangGraph is not installed") from None
    return graph_runtime()


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
    from langgraph.store.base import BaseStore, Item, PutOp

    from deepagents_rs.backends.protocol import GlobResult, GrepResult, LsResult


NamespaceFactory = Callable[["Runtime[Any]"], tuple[str, ...]]

# One namespace component: letters, digits and the punctuation user ids tend to
# carry. Glob and wildcard characters are left out so a component cannot widen
# a store lookup. (`$` also accepts one trailing newline, as deepagents does.)
_SAFE_COMPONENT = re.compile(r"[A-Za-z0-9_.@+:~-]+$")

_PAGE_SIZE = 100
"""Items fetched per `search` call when the backend needs the whole namespace."""

_TIMESTAMPS = ("created_at", "modified_at")


def _validate_namespace(namespace: tuple[str, ...]) -> tuple[str, ...]:
    """Return `namespace` unchanged once every component is a non-empty string of safe characters.

    Raises:
        ValueError: For an empty tuple, an empty component, or a component with
            characters outside `A-Z a-z 0-9 - _ . @ + : ~`.
        TypeError: For a component that is not a string.
    """
    if not namespace:
        raise ValueError("Namespace tuple must not be empty.")
    for index, component in enumerate(namespace):
        if not isinstance(component, str):
            kind = type(component).__name__
            raise TypeError(f"Namespace component at index {index} must be a string, got {kind}.")
        if not component:
            raise ValueError(f"Namespace component at index {index} must not be empty.")
        if _SAFE_COMPONENT.match(component) is None:
            raise ValueError(NAMESPACE_DISALLOWED_CHARACTERS.format(index=index, component=component))
    return namespace


def _item_file_data(item: Item) -> FileData:
    """An item's value as `FileData`, legacy `list[str]` content joined into one string.

    Raises:
        ValueError: When the value has no `content`.
        TypeError: When `content` is neither a string nor a list of strings.
    """
    value = item.value
    content = value.get("content")
    if content is None:
        raise ValueError(f"Store item does not contain valid content field. Got: {value.keys()}")
    if isinstance(content, list) and all(isinstance(line, str) for line in content):
        content = "\n".join(content)
    elif not isinstance(content, str):
        kind = type(content).__name__
        raise TypeError(f"Store item `content` must be a `str` or legacy `list[str]`, got {kind}.")
    file_data = FileData(content=content, encoding=value.get("encoding", "utf-8"))
    for stamp in _TIMESTAMPS:
        if isinstance(value.get(stamp), str):
            file_data[stamp] = value[stamp]
    return file_data


def _store_value(file_data: FileData) -> dict[str, Any]:
    """The dict `put` stores for a file: content, encoding and whichever timestamps it has."""
    value: dict[str, Any] = {"content": file_data["content"], "encoding": file_data["encoding"]}
    value.update((stamp, file_data[stamp]) for stamp in _TIMESTAMPS if stamp in file_data)
    return value


def _readable_files(items: list[Item]) -> dict[str, FileData]:
    """The items that hold file content, by key (items without content are skipped)."""
    files: dict[str, FileData] = {}
    for item in items:
        try:
            files[item.key] = _item_file_data(item)
        except ValueError:
            continue
    return files


def _load_or_skip(item: Item) -> FileData | None:
    try:
        return _item_file_data(item)
    except ValueError:
        return None


def _read_item(file_path: str, item: Item | None, offset: int, limit: int) -> ReadResult:
    if item is None:
        return ReadResult(error=f"File '{file_path}' not found")
    try:
        file_data = _item_file_data(item)
    except ValueError as exc:
        return ReadResult(error=str(exc))
    if _get_backend_read_file_type(file_path) != "text":
        return ReadResult(file_data=file_data)
    return slice_read_response(file_data, offset, limit)


def _written_value(existing: Item | None, content: str) -> dict[str, Any]:
    """The value to store when `content` overwrites `existing` (whose creation time it keeps)."""
    if existing is None:
        file_data = create_file_data(content)
    else:
        file_data = update_file_data(_item_file_data(existing), content)
    file_data["encoding"] = "utf-8"
    return _store_value(file_data)


def _edited_value(
    file_path: str, item: Item | None, old_string: str, new_string: str, replace_all: bool
) -> tuple[dict[str, Any] | None, EditResult]:
    """The value to store after the edit (`None` when nothing changes) and the edit's result."""
    if item is None:
        return None, EditResult(error=f"Error: File '{file_path}' not found")
    try:
        file_data = _item_file_data(item)
    except ValueError as exc:
        return None, EditResult(error=f"Error: {exc}")
    edited = replace_text(file_data, old_string, new_string, replace_all)
    if isinstance(edited, str):
        return None, EditResult(error=edited)
    new_data, occurrences = edited
    return _store_value(new_data), EditResult(path=file_path, occurrences=occurrences)


def _deletions(namespace: tuple[str, ...], items: list[Item], file_path: str) -> list[PutOp]:
    """One tombstone `PutOp` per key a recursive delete of `file_path` removes."""
    from langgraph.store.base import PutOp

    return [PutOp(namespace, key, None) for key in keys_to_delete((str(item.key) for item in items), file_path)]


class StoreBackend(BackendProtocol):
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

    def _scope(self) -> tuple[BaseStore, tuple[str, ...]]:
        """The store and namespace of this call (the store is looked up first)."""
        store = self._get_store()
        return store, self._get_namespace()

    def _all_items(self) -> tuple[BaseStore, tuple[str, ...], list[Item]]:
        """Every item of the namespace, fetched page by page."""
        store, namespace = self._scope()
        items: list[Item] = []
        while True:
            page = store.search(namespace, limit=_PAGE_SIZE, offset=len(items))
            items.extend(page)
            if len(page) < _PAGE_SIZE:
                return store, namespace, items

    async def _aall_items(self) -> tuple[BaseStore, tuple[str, ...], list[Item]]:
        """`_all_items` through the store's async API."""
        store, namespace = self._scope()
        items: list[Item] = []
        while True:
            page = await store.asearch(namespace, limit=_PAGE_SIZE, offset=len(items))
            items.extend(page)
            if len(page) < _PAGE_SIZE:
                return store, namespace, items

    def ls(self, path: str) -> LsResult:
        """The files and subdirectories directly under `path` (subdirectories end in `/`).

        The whole namespace is fetched and filtered here rather than relying on
        store-specific filter semantics; items without content are left out.
        """
        _, _, items = self._all_items()
        by_key = {str(item.key): item for item in items}
        return list_directory(by_key, path, lambda key: _load_or_skip(by_key[key]))

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """The raw lines `offset` to `offset + limit` of a text file, or a whole media file."""
        store, namespace = self._scope()
        return _read_item(file_path, store.get(namespace, file_path), offset, limit)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """`read` through the store's async API."""
        store, namespace = self._scope()
        return _read_item(file_path, await store.aget(namespace, file_path), offset, limit)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Create or replace a text file (an existing file keeps its creation time)."""
        store, namespace = self._scope()
        store.put(namespace, file_path, _written_value(store.get(namespace, file_path), content))
        return WriteResult(path=file_path)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """`write` through the store's async API."""
        store, namespace = self._scope()
        value = _written_value(await store.aget(namespace, file_path), content)
        await store.aput(namespace, file_path, value)
        return WriteResult(path=file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Replace `old_string` by `new_string` in a text file (once, or everywhere with `replace_all`)."""
        store, namespace = self._scope()
        item = store.get(namespace, file_path)
        value, result = _edited_value(file_path, item, old_string, new_string, replace_all)
        if value is not None:
            store.put(namespace, file_path, value)
        return result

    async def aedit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """`edit` through the store's async API."""
        store, namespace = self._scope()
        item = await store.aget(namespace, file_path)
        value, result = _edited_value(file_path, item, old_string, new_string, replace_all)
        if value is not None:
            await store.aput(namespace, file_path, value)
        return result

    def delete(self, file_path: str) -> DeleteResult:
        """Remove a file, or a directory with everything below it; wildcards in `file_path` are literal."""
        store, namespace, items = self._all_items()
        ops = _deletions(namespace, items, file_path)
        if not ops:
            return DeleteResult(error=f"Error: File '{file_path}' not found")
        store.batch(ops)
        return DeleteResult(path=file_path)

    async def adelete(self, file_path: str) -> DeleteResult:
        """`delete` through the store's async API."""
        store, namespace, items = await self._aall_items()
        ops = _deletions(namespace, items, file_path)
        if not ops:
            return DeleteResult(error=f"Error: File '{file_path}' not found")
        await store.abatch(ops)
        return DeleteResult(path=file_path)

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Literal-text search of the stored files under `path`."""
        _, _, items = self._all_items()
        return grep_matches_from_files(_readable_files(items), pattern, path, glob, max_count=max_count)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """The stored files matching `pattern` (see `BackendProtocol.glob`); a refused pattern is an error result."""
        _, _, items = self._all_items()
        return glob_files(_readable_files(items), pattern, path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Store raw bytes, one `put` per file: UTF-8 text as such, anything else base64-encoded."""
        store, namespace = self._scope()
        for path, content in files:
            text, encoding = decode_upload(content)
            store.put(namespace, path, _store_value(create_file_data(text, encoding=encoding)))
        return [FileUploadResponse(path=path, error=None) for path, _ in files]

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """The raw bytes of each path, in order; a missing one reports `file_not_found`."""
        store, namespace = self._scope()
        return [self._download(path, store.get(namespace, path)) for path in paths]

    @staticmethod
    def _download(path: str, item: Item | None) -> FileDownloadResponse:
        if item is None:
            return FileDownloadResponse(path=path, content=None, error="file_not_found")
        file_data = _item_file_data(item)
        binary = file_data["encoding"] == "base64"
        return FileDownloadResponse(path=path, content=stored_bytes(file_data, base64_encoded=binary), error=None)
