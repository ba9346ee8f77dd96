"""A LangGraph `InMemoryStore`'s items under a namespace, read from its dict without a `search`.

`StoreBackend`'s whole-namespace operations (ls, grep, glob, delete) need every item under the
namespace. Paging through `store.search` makes one `SearchItem` per item per call (and one
more, empty, call when the count is a multiple of the page size): on an `InMemoryStore` that
is ~90% of those operations. The store keeps its items in `_data`, a dict of namespace -> key ->
`Item` (LangGraph's own comment: "Do not change their names"), and without a query or a filter
its `search` returns exactly `_data`'s items whose namespace starts with the prefix, in that
dict's order, so the pages deepagents concatenates are those items, in the same order.

Only a store whose reading path is `InMemoryStore`'s own is read this way (a subclass that
overrides any method on that path, or anything else, is searched), and only with a namespace
`search` would accept (LangGraph refuses labels with "." or NUL, which deepagents' own check
lets through): anything else takes the `search` calls, which raise as they do in deepagents.
"""

from __future__ import annotations

import sys
from typing import Any

# The methods `InMemoryStore.search`/`asearch` go through; a store type that overrides any
# of them may answer differently, so it is searched.
_READ_PATH = ("search", "asearch", "batch", "abatch", "_prepare_ops", "_filter_items", "_batch_search")

# store type -> whether its reading path is `InMemoryStore`'s own (decided once per type).
_PLAIN: dict[type, bool] = {}


def _plain(kind: type) -> bool:
    try:
        return _PLAIN[kind]
    except KeyError:
        pass
    memory = sys.modules.get("langgraph.store.memory")
    base = getattr(memory, "InMemoryStore", None)
    plain = base is not None and issubclass(kind, base)
    plain = plain and all(getattr(kind, name, None) is getattr(base, name) for name in _READ_PATH)
    _PLAIN[kind] = plain
    return plain


def memory_items(store: Any, namespace: tuple[str, ...]) -> list[Any] | None:
    """The items `store.search(namespace, ...)` pages would hold together, when `store` is an
    `InMemoryStore` read directly; `None` when it must be searched."""
    if not _plain(type(store)):
        return None
    own = getattr(store, "__dict__", None)  # a subclass's instance may hold its own methods
    if own and any(name in own for name in _READ_PATH):
        return None
    if any("." in label or "\x00" in label for label in namespace):
        return None
    data = getattr(store, "_data", None)
    if not isinstance(data, dict):
        return None
    n = len(namespace)
    items: list[Any] = []
    # `list(...)` snapshots the dicts first, as one C call each: another thread's `put` can
    # then not change them under the loop.
    for space, entries in list(data.items()):
        if space[:n] == namespace:
            items.extend(list(entries.values()))
    return items
