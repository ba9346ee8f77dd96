"""Parity: ``StateBackend`` and ``StoreBackend`` called directly, sync and async.

A scenario is a list of operations run in turn on one backend of each implementation;
every result (or exception) and the stored files left behind must match. ``StoreBackend``
works on a real ``InMemoryStore`` seeded with the same items; ``StateBackend`` gets a plain
dict as the run's ``files`` (its ``_read_files``/``_send_files_update`` hooks, which both
implementations route every call through), so it can be driven outside a graph.

The last test runs an agent: a large tool result evicted into a ``StoreBackend``.
Namespaces, store batching and the outside-a-graph errors are in ``test_store_namespaces.py``.
"""

from __future__ import annotations

import base64
from types import SimpleNamespace
from typing import Any

import pytest
from langchain_core.tools import tool
from langgraph.store.memory import InMemoryStore

from .backend_direct import CALL_MODES, Call, attempt, same, view
from .fs_support import MODES, ai_tool_calls, check, run_fs, store_items, tool_msgs

NS = ("vfs",)
T_OLD = "stamp-from-an-old-release"  # not ISO, so the comparison keeps it

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
NOT_UTF8 = b"\xff\xfe\x00text"


def op_label(op: tuple[Any, ...]) -> str:
    return " ".join(repr(x)[:40] for x in op)


def run_ops(backend: Any, call: Call, ops: list[tuple[Any, ...]]) -> list[Any]:
    """``(method, *args[, kwargs dict])`` each in turn; one ``(label, result)`` per op."""
    out = []
    for op in ops:
        method, *args = op
        kwargs = args.pop() if args and isinstance(args[-1], dict) else {}
        out.append(
            (
                op_label(op),
                attempt(lambda method=method, args=args, kwargs=kwargs: call(backend, method, *args, **kwargs)),
            )
        )
    return out


def store_scenario(ops: list[tuple[Any, ...]], seed: dict[str, Any] | None = None) -> Any:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        store = InMemoryStore()
        for key, value in (seed or {}).items():
            store.put(NS, key, value)
        backend = a.StoreBackend(store=store, namespace=lambda _rt: NS)
        return {"results": run_ops(backend, call, ops), "store": store_items(store)}

    return scenario


def state_scenario(ops: list[tuple[Any, ...]], seed: dict[str, Any] | None = None) -> Any:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        files = {k: dict(v) for k, v in (seed or {}).items()}
        updates: list[dict[str, Any]] = []

        def send(update: dict[str, Any]) -> None:
            updates.append(view(update))
            for path, data in update.items():
                if data is None:
                    files.pop(path, None)
                else:
                    files[path] = data

        backend = a.StateBackend()
        backend._read_files = lambda: files
        backend._send_files_update = send
        return {"results": run_ops(backend, call, ops), "files": files, "updates": updates}

    return scenario


SCENARIOS = {"store": store_scenario, "state": state_scenario}


def results(ref: dict[str, Any]) -> list[Any]:
    """Each operation's result, in order."""
    return [result for _label, result in ref["results"]]


def stored(ref: dict[str, Any], kind: str) -> dict[str, Any]:
    """The files a scenario left behind, by path."""
    if kind == "state":
        return ref["files"]
    return {key: value for (_ns, key), value in ref["store"].items()}


# --------------------------------------------------------------------------------------------
# Writing, reading, editing, listing and searching
# --------------------------------------------------------------------------------------------

CRUD = [
    ("write", "/docs/guide.md", "welcome to the store"),
    ("read", "/docs/guide.md"),
    ("edit", "/docs/guide.md", "welcome", "hello", {"replace_all": False}),
    ("ls", "/docs/"),
    ("ls", "/docs"),
    ("grep", "hello", {"path": "/"}),
    ("glob", "*.md", {"path": "/"}),
    ("glob", "**/*.md", {"path": "/"}),
    ("write", "/docs/guide.md", "replaced body"),
    ("read", "/docs/guide.md"),
    ("write", "/twice.txt", "ab ab ab"),
    ("edit", "/twice.txt", "ab", "cd"),
    ("edit", "/twice.txt", "ab", "cd", {"replace_all": True}),
    ("edit", "/twice.txt", "cd cd", "x"),
    ("read", "/twice.txt"),
    ("edit", "/missing.txt", "a", "b"),
    ("read", "/missing.txt"),
    ("edit", "/twice.txt", "absent", "b"),
    ("edit", "/twice.txt", "", "b"),
]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("kind", ["store", "state"])
def test_crud_and_search(kind: str, mode: str) -> None:
    ref = same(SCENARIOS[kind](CRUD), mode)
    r = results(ref)
    assert r[2]["occurrences"] == 1
    assert [e["path"] for e in r[3]["entries"]] == ["/docs/guide.md"]
    assert r[4] == r[3]
    assert r[6]["matches"] == r[7]["matches"] != []
    assert "appears 3 times" in r[11]["error"]
    assert r[12]["occurrences"] == 3
    assert r[14]["file_data"]["content"] == "x cd"
    assert "not found" in r[15]["error"]
    assert stored(ref, kind)["/docs/guide.md"]["content"] == "replaced body"


LINES = "\n".join(f"row {n}" for n in range(1, 8))

WINDOWS = [
    ("write", "/rows.txt", LINES),
    ("read", "/rows.txt", {"offset": 2, "limit": 3}),
    ("read", "/rows.txt", {"offset": 5, "limit": 10}),
    ("read", "/rows.txt", {"offset": 0, "limit": 0}),
    ("read", "/rows.txt", {"offset": 0, "limit": -3}),
    ("read", "/rows.txt", {"offset": -1, "limit": 0}),
    ("read", "/rows.txt", {"offset": -1, "limit": 2}),
    ("read", "/rows.txt", {"offset": 7, "limit": 2}),
    ("write", "/blank.txt", ""),
    ("read", "/blank.txt"),
    # .mkv is read as video: whole, whatever the window, even past its single line.
    ("write", "/clip.mkv", "one line of bytes"),
    ("read", "/clip.mkv", {"offset": 4, "limit": 10}),
    ("write", "/pic.png", "not sliced"),
    ("read", "/pic.png", {"offset": 3, "limit": 1}),
]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("kind", ["store", "state"])
def test_read_windows(kind: str, mode: str) -> None:
    r = results(same(SCENARIOS[kind](WINDOWS), mode))
    window = r[1]
    assert window["file_data"]["content"] == "row 3\nrow 4\nrow 5\n"
    assert (window["total_lines"], window["start_line"], window["end_line"], window["next_offset"]) == (7, 3, 5, 5)
    for empty in r[3:6]:
        assert empty["file_data"]["content"] == "" and empty["start_line"] is None
    assert (r[6]["start_line"], r[6]["end_line"]) == (1, 2)
    assert "exceeds file length" in r[7]["error"]
    assert r[11]["file_data"]["content"] == "one line of bytes"


NESTED = {
    "/app/main.go": "package main",
    "/app/util/strings.go": "package util",
    "/app/util/maps.go": "package util",
    "/notes/todo.md": "todo",
    "/notes/old/2020.md": "old",
    "/Makefile": "all:",
}

LISTINGS = [("write", p, c) for p, c in NESTED.items()] + [
    ("ls", "/"),
    ("ls", "/app/"),
    ("ls", "/app"),
    ("ls", "/app/util/"),
    ("ls", "/nowhere/"),
    ("ls", "/app/main.go"),
    ("glob", "**/*.go", {"path": "/"}),
    ("glob", "*.md", {"path": "/notes"}),
    ("glob", "**/*.md", {"path": "/"}),
    ("grep", "package", {"path": "/", "glob": "*.go"}),
    ("grep", "package", {"path": "/app/util"}),
    ("grep", "[unclosed", {"path": "/"}),
]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("kind", ["store", "state"])
def test_listings_and_globs(kind: str, mode: str) -> None:
    r = dict(zip([op[:2] for op in LISTINGS], results(same(SCENARIOS[kind](LISTINGS), mode)), strict=True))
    paths = lambda where: sorted(e["path"] for e in r["ls", where]["entries"])
    # One level at a time: subdirectories end in "/", their contents are not listed.
    assert paths("/") == ["/Makefile", "/app/", "/notes/"]
    assert paths("/app/") == ["/app/main.go", "/app/util/"] == paths("/app")
    assert paths("/app/util/") == ["/app/util/maps.go", "/app/util/strings.go"]
    assert r["ls", "/nowhere/"]["entries"] == []
    assert r["grep", "[unclosed"]["matches"] == []


SPECIAL = {
    "/calls.py": "result = run(first, second)\n",
    "/unions.py": "value: bytes | None = None\n",
    "/classes.py": "CHARS = '[0-9]'\nwild = '(.+)'\n",
    "/settings.ini": "db.host = local\n",
    "/ops.py": "area = w * h\nsq = n^2\n",
}

LITERAL_PATTERNS = ["run(first", "bytes | None", "[0-9]", "(.+)", "db.host", "w * h", "n^2", "d.\\.host"]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("kind", ["store", "state"])
def test_grep_is_literal(kind: str, mode: str) -> None:
    ops = [("write", p, c) for p, c in SPECIAL.items()] + [("grep", p, {"path": "/"}) for p in LITERAL_PATTERNS]
    greps = results(same(SCENARIOS[kind](ops), mode))[len(SPECIAL) :]
    found = {p: {m["path"] for m in g["matches"]} for p, g in zip(LITERAL_PATTERNS, greps, strict=True)}
    assert found["bytes | None"] == {"/unions.py"} and found["w * h"] == {"/ops.py"}
    assert found["(.+)"] == {"/classes.py"} and found["d.\\.host"] == set()


# --------------------------------------------------------------------------------------------
# Uploads, downloads and deletes
# --------------------------------------------------------------------------------------------

TRANSFERS = [
    ("upload_files", [("/img/logo.png", PNG), ("/docs/a.txt", b"plain\ntext"), ("/raw.bin", NOT_UTF8)]),
    ("download_files", ["/img/logo.png", "/docs/a.txt", "/raw.bin", "/absent.bin"]),
    ("upload_files", [("/docs/a.txt", b"again")]),
    ("read", "/docs/a.txt"),
    ("upload_files", []),
]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("kind", ["store", "state"])
def test_upload_and_download(kind: str, mode: str) -> None:
    ref = same(SCENARIOS[kind](TRANSFERS), mode)
    downloads = results(ref)[1]
    assert [d["content"] for d in downloads] == [PNG, b"plain\ntext", NOT_UTF8, None]
    assert downloads[3]["error"] == "file_not_found"
    files = stored(ref, kind)
    # UTF-8 text is stored as such, anything else as base64.
    assert files["/img/logo.png"]["encoding"] == files["/raw.bin"]["encoding"] == "base64"
    assert base64.standard_b64decode(files["/raw.bin"]["content"]) == NOT_UTF8
    assert files["/docs/a.txt"] == {"content": "again", "encoding": "utf-8", **dict.fromkeys(TS, "<timestamp>")}


TS = ("created_at", "modified_at")

DELETES = [
    ("write", "/work/a.txt", "a"),
    ("write", "/work/sub/b.txt", "b"),
    ("write", "/workshop.txt", "sibling with a shared prefix"),
    ("write", "/keep.txt", "k"),
    ("write", "*", "a file literally named star"),
    ("delete", "/work"),
    ("read", "/work/a.txt"),
    ("read", "/work/sub/b.txt"),
    ("delete", "/keep.txt"),
    ("delete", "/keep.txt"),
    ("delete", "*"),
    ("delete", "*"),
    ("delete", "/work/"),
    ("ls", "/"),
]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("kind", ["store", "state"])
def test_deletes(kind: str, mode: str) -> None:
    ref = same(SCENARIOS[kind](DELETES), mode)
    r = results(ref)
    assert r[5] == {"<type>": "DeleteResult", "error": None, "path": "/work"}
    assert r[8]["path"] == "/keep.txt" and r[10]["path"] == "*"
    for again in (r[9], r[11], r[12]):
        assert again["path"] is None and "not found" in again["error"]
    # Only the subtree and the literal "*" went; nothing was matched as a wildcard or prefix.
    assert sorted(stored(ref, kind)) == ["/workshop.txt"]


# --------------------------------------------------------------------------------------------
# Legacy files whose content is a list of lines
# --------------------------------------------------------------------------------------------

LEGACY = {
    "/old.txt": {"content": ["first", "second", ""], "created_at": T_OLD, "modified_at": T_OLD},
    "/bare.txt": {"content": ["alpha", "beta"]},
    "/kept.txt": {"content": ["x", "y"], "created_at": T_OLD},
    "/legacy.png": {"content": ["aGVsbG8="]},
}

LEGACY_OPS = [
    ("read", "/old.txt"),
    ("ls", "/"),
    ("grep", "second", {"path": "/"}),
    ("glob", "*.txt", {"path": "/"}),
    ("download_files", ["/old.txt", "/bare.txt"]),
    ("read", "/legacy.png"),
    ("read", "/bare.txt", {"offset": 1, "limit": 1}),
    ("edit", "/bare.txt", "beta", "gamma"),
    ("write", "/kept.txt", "rewritten"),
]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("kind", ["store", "state"])
def test_legacy_list_content(kind: str, mode: str) -> None:
    ref = same(SCENARIOS[kind](LEGACY_OPS, LEGACY), mode)
    r = results(ref)
    assert r[0]["file_data"] == {
        "content": "first\nsecond\n",
        "encoding": "utf-8",
        **dict.fromkeys(TS, T_OLD),
    }
    sizes = {e["path"]: e.get("size") for e in r[1]["entries"]}
    assert sizes["/old.txt"] == len("first\nsecond\n")
    assert r[2]["matches"] == [{"path": "/old.txt", "line": 2, "text": "second"}]
    assert {m["path"]: m["size"] for m in r[3]["matches"]}["/old.txt"] == len("first\nsecond\n")
    assert [d["content"] for d in r[4]] == [b"first\nsecond\n", b"alpha\nbeta"]
    assert r[5]["file_data"] == {"content": "aGVsbG8=", "encoding": "utf-8"}
    files = stored(ref, kind)
    # Reading leaves the legacy value alone; writing and editing store a plain string.
    assert files["/old.txt"]["content"] == ["first", "second", ""] and "encoding" not in files["/old.txt"]
    assert files["/bare.txt"]["content"] == "alpha\ngamma" and files["/bare.txt"]["encoding"] == "utf-8"
    assert files["/kept.txt"]["content"] == "rewritten" and files["/kept.txt"]["created_at"] == T_OLD


BROKEN = {
    "/numbers.txt": {"content": ["ok", 7]},
    "/int.txt": {"content": 5},
    "/empty.txt": {"encoding": "utf-8"},
    "/fine.txt": {"content": "fine"},
}


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("kind", ["store", "state"])
@pytest.mark.parametrize("op", [("read", "/numbers.txt"), ("read", "/int.txt"), ("read", "/empty.txt")])
def test_malformed_content(kind: str, mode: str, op: tuple[Any, ...]) -> None:
    first, fine = results(same(SCENARIOS[kind]([op, ("read", "/fine.txt")], BROKEN), mode))
    assert isinstance(first, tuple) or first["error"] is not None
    if op[1] != "/empty.txt":
        assert first[:2] == ("raised", "TypeError") and first[2].endswith(f"got {'int' if 'int' in op[1] else 'list'}.")
    # One bad item does not spoil the others.
    assert fine["file_data"]["content"] == "fine"


# --------------------------------------------------------------------------------------------
# A large tool result evicted into the store (the agent's eviction step)
# --------------------------------------------------------------------------------------------


@tool(response_format="content_and_artifact")
def export_rows(count: int) -> tuple[str, dict[str, Any]]:
    """Export ``count`` numbered rows."""
    return "".join(f"entry {i:07d}\n" for i in range(count)), {"rows": count}


@pytest.mark.parametrize("mode", MODES)
def test_large_result_is_evicted_into_the_store(mode: str) -> None:
    def setup(a: SimpleNamespace) -> dict[str, Any]:
        store = InMemoryStore()
        return {"backend": a.StoreBackend(store=store, namespace=lambda _rt: NS), "store": store}

    script = [
        ai_tool_calls(("export_rows", {"count": 7000}, "exp_1")),
        ai_tool_calls(("read_file", {"file_path": "/large_tool_results/exp_1", "offset": 6998, "limit": 5})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=setup, tools=[export_rows])
    msgs = tool_msgs(check(run))
    # The model gets a pointer and a preview; name and artifact stay on the message.
    assert msgs[0].content.startswith("Tool result too large") and "/large_tool_results/exp_1" in msgs[0].content
    assert (msgs[0].name, msgs[0].artifact) == ("export_rows", {"rows": 7000})
    assert "entry 0006999" in msgs[1].content
    item = store_items(run.kwargs["deepagents"]["store"])[(NS, "/large_tool_results/exp_1")]
    assert item["content"] == export_rows.func(7000)[0]
