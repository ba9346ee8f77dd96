"""A plain LangGraph `InMemoryStore` read from its dict, as its own `get` and `search` read it.

`StoreBackend`'s whole-namespace operations (ls, grep, glob, delete) need every item under the
namespace. Paging through `store.search` makes one `SearchItem` per item per call (and one
more, empty, call when the count is a multiple of the page size): on an `InMemoryStore` that
is ~90% of those operations. The store keeps its items in `_data`, a dict of namespace -> key ->
`Item` (LangGraph's own comment: "Do not change their names"), and without a query or a filter
its `search` returns exactly `_data`'s items whose namespace starts with the prefix, in that
dict's order, so the pages deepagents concatenates are those items, in the same order. Its
`get(namespace, key)` is `_data[namespace].get(str(key))` behind a `batch` of one `GetOp`; the
core makes that same lookup given `_data` (`StorePlan.run`'s `data`).

Only a store whose reading path is `InMemoryStore`'s own is read this way (a subclass that
overrides any method on that path, or anything else, is called), and only with a tuple
namespace `get`/`search` would accept (LangGraph refuses labels with "." or NUL, which
deepagents' own check lets through): anything else takes the store's calls, which raise as
they do in deepagents.
"""

from __future__ import annotations

import sys
from typing import Any

# The methods `InMemoryStore`'s `get`/`search` (and async twins) go through; a store type that
# overrides any of them may answer differently, so it is called.
_READ_PATH = ("get", "aget", "search", "asearch", "batch", "abatch", "_prepare_ops", "_filter_items", "_batch_search")

# store type -> 0 when it must be called, 1 when its reading path is `InMemoryStore`'s own, 2
# when it is but its instances have a `__dict__` that may hold their own methods (decided once
# per type: these checks run on every store operation).
_PLAIN: dict[type, int] = {}


def _plain(kind: type) -> int:
    memory = sys.modules.get("langgraph.store.memory")
    base = getattr(memory, "InMemoryStore", None)
    plain = base is not None and issubclass(kind, base)
    plain = plain and all(getattr(kind, name, None) is getattr(base, name) for name in _READ_PATH)
    _PLAIN[kind] = 0 if not plain else 2 if kind.__dictoffset__ else 1
    return _PLAIN[kind]


def memory_data(store: Any, namespace: tuple[str, ...]) -> dict[Any, Any] | None:
    """`store`'s dict of namespace -> key -> item when `store` is a plain `InMemoryStore` that
    may be read directly in `namespace`; `None` when it must be called."""
    kind = type(store)
    plain = _PLAIN.get(kind)
    if plain is None:
        plain = _plain(kind)
    if not plain or type(namespace) is not tuple:
        return None
    if plain == 2 and any(name in vars(store) for name in _READ_PATH):
        return None
    labels = "/".join(namespace)
    if "." in labels or "\x00" in labels:
        return None
    data = getattr(store, "_data", None)
    return data if isinstance(data, dict) else None


def memory_items(data: dict[Any, Any], namespace: tuple[str, ...]) -> list[Any]:
    """The items `search(namespace, ...)` pages of the store holding `data` would hold together."""
    n = len(namespace)
    items: list[Any] = []
    # `list(...)` snapshots the dicts first, as one C call each: another thread's `put` can
    # then not change them under the loop.
    for space, entries in list(data.items()):
        if space[:n] == namespace:
            items.extend(list(entries.values()))
    return items
