"""Parity: ``StoreBackend``'s ``ls``, ``download_files`` and ``delete`` over items of every shape.

The core reads the usual item (a dict holding a ``str``) in place and any other through
deepagents' ``FileData`` rules; these cases sit on both sides of that line: multi-byte and
empty text, legacy line lists, content of the wrong kind or missing, ``str`` subclasses,
encodings that are not text or not ``str``, timestamps that are not text, text Python cannot
encode, and keys that need the recursive delete's prefix rule. Each implementation's backend
works on its own ``InMemoryStore`` seeded alike; results (or exceptions), the store calls
made and the items left must equal deepagents'.
"""

from __future__ import annotations

from typing import Any

import pytest

from .backend_direct import CALL_MODES
from .test_store_plans import run_on_items as run


class Text(str):
    """A ``str`` subclass as content (read as text by both)."""


SHAPES: dict[str, dict[str, Any]] = {
    "/s/plain.txt": {"content": "ab\ncd", "encoding": "utf-8", "modified_at": "2024-02-01"},
    "/s/wide.txt": {"content": "héllo ✓ 𝄞", "modified_at": "2024-02-02"},
    "/s/empty.txt": {"content": ""},
    "/s/lines.txt": {"content": ["é", "b", ""], "modified_at": "2024-02-03"},
    "/s/sub.txt": {"content": Text("sub ✓"), "modified_at": Text("2024-02-04")},
    "/s/stamp.txt": {"content": "x", "modified_at": 20240205, "created_at": "c"},
    "/s/latin.txt": {"content": "x", "encoding": "latin-1"},
    "/s/b64.bin": {"content": "aGVsbG8=", "encoding": "base64"},
    "/s/odd-encoding.txt": {"content": "y", "encoding": 7},
    "/s/none-encoding.txt": {"content": "z", "encoding": None},
    "/s/number.txt": {"content": 7},
    "/s/missing": {"other": 1},
    "/s/nested/deep.txt": {"content": "deep"},
    "/s2/x.txt": {"content": "sibling"},
    "/s/trail/": {"content": "a key ending in a slash"},
}
BAD_TEXT = {"/u/surrogate.txt": {"content": "bad \udc80 text"}}


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("directory", ["/s", "/s/", "/", "/s/nested", "/s/trail", "/nowhere"])
def test_ls_sizes_and_stamps(directory: str, mode: str) -> None:
    """Sizes are UTF-8 byte counts of the text; a stamp that is not text shows as ``""``;
    an item without content is left out; one of the wrong kind raises as in deepagents."""
    items = {k: v for k, v in SHAPES.items() if k != "/s/number.txt"}
    out = run(items, mode, [("ls", directory)])
    assert out["deepagents_rs"] == out["deepagents"]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("items", [SHAPES, BAD_TEXT], ids=["shapes", "surrogate"])
def test_ls_errors_as_deepagents(items: dict[str, dict[str, Any]], mode: str) -> None:
    """Content of the wrong kind (``TypeError``) and text UTF-8 cannot hold
    (``UnicodeEncodeError``) raise the same exception as deepagents."""
    directory = "/s" if items is SHAPES else "/u"
    out = run(items, mode, [("ls", directory)])
    assert out["deepagents_rs"] == out["deepagents"]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("path", [*SHAPES, *BAD_TEXT, "/absent"])
def test_download_every_shape(path: str, mode: str) -> None:
    out = run({**SHAPES, **BAD_TEXT}, mode, [("download_files", [path, "/s/plain.txt"])])
    assert out["deepagents_rs"] == out["deepagents"]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("path", ["/s", "/s/", "/s/nested", "/s/trail", "/s/trail/", "/s2", "/s*", "/", "/absent"])
def test_delete_prefixes(path: str, mode: str) -> None:
    """The path itself and everything below it, a trailing ``/`` ignored, wildcards literal."""
    out = run(SHAPES, mode, [("delete", path), ("ls", "/"), ("ls", "/s")])
    assert out["deepagents_rs"] == out["deepagents"]
