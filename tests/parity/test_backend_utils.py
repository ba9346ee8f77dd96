"""Parity: the path, pattern and search helpers of ``backends.utils``, called directly.

Each case calls the same helper of ``deepagents.backends.utils`` and of
``deepagents_rs.backends.utils`` with the same arguments and compares the results (an
exception compares by class and message). A few facts are also pinned on deepagents' side
(``expect``) so that a case cannot silently stop exercising the branch it was written for.

Edits, read windows and file data are in ``test_backend_file_data.py``; the glob contract
across every backend is in ``test_glob_contract.py``.
"""

from __future__ import annotations

import copy
import importlib
import types
from collections import UserDict
from typing import Any

import pytest
from langchain_core.messages.content import ContentBlock
from pydantic import TypeAdapter

from .backend_direct import IMPLS, attempt, view


def utils(impl: str) -> Any:
    return importlib.import_module(f"{impl}.backends.utils")


def both(name: str, *args: Any, **kwargs: Any) -> Any:
    """``utils.<name>(*args, **kwargs)`` on both implementations; returns deepagents' view."""
    out = {
        impl: view(attempt(lambda impl=impl: getattr(utils(impl), name)(*copy.deepcopy(args), **copy.deepcopy(kwargs))))
        for impl in IMPLS
    }
    assert out["deepagents_rs"] == out["deepagents"], f"{name}{args!r}"
    return out["deepagents"]


def raised(result: Any) -> str | None:
    """The message of a viewed exception, else ``None``."""
    if isinstance(result, tuple) and result[:1] == ("raised",):
        return result[2]
    return None


# --------------------------------------------------------------------------------------------
# Regex-looking grep patterns and the hint attached to them
# --------------------------------------------------------------------------------------------

REGEX_LIKE = ["alpha|beta", "get_.*_id", "config\\.yaml", "x.+y", "\\bcount\\b", "\\d{3}", "\\W", "\\S*"]
REGEX_LIKE += ["call\\(\\)", "(a|b)", "a.*", "a\\|b", "|"]
# Parentheses, dots, brackets and the lone metacharacters ^ $ ? * + are normal in code searches.
LITERAL = ["print(x)", "obj.attr", "items[1]", "hello world", "FIXME", "x != y", "", "^start", "end$"]
LITERAL += ["maybe?", "p*q", "i++", "[0-9]+", "x{2,3}", "\\n", "C:\\path"]


@pytest.mark.parametrize(
    ("pattern", "expect"), [(p, True) for p in REGEX_LIKE] + [(p, False) for p in LITERAL], ids=repr
)
def test_regex_detection_and_hint(pattern: str, expect: bool) -> None:
    assert both("_looks_like_regex", pattern) is expect
    hint = both("regex_literal_hint", pattern)
    if expect:
        # The hint steers to literal searches, never to shell commands.
        assert "literal text, not regex" in hint and "execute" not in hint
    else:
        assert hint is None


# --------------------------------------------------------------------------------------------
# to_posix_path and validate_path
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expect"),
    [
        ("D:\\a\\b", "D:/a/b"),
        ("D:\\dir\\\\", "D:/dir//"),
        ("a/b\\c", "a/b/c"),
        ("\\\\host\\share\\x", "//host/share/x"),
        ("", ""),
        ("\\", "/"),
        ("/", "/"),
        ("rel\\", "rel/"),
        ("//x", "//x"),
        ("/srv/app", "/srv/app"),
    ],
    ids=repr,
)
def test_to_posix_path(raw: str, expect: str) -> None:
    assert both("to_posix_path", raw) == expect


TRAVERSAL = "Path traversal not allowed"
WINDOWS = "Windows absolute paths are not supported"


@pytest.mark.parametrize(
    ("raw", "expect"),
    [
        ("notes/today.md", "/notes/today.md"),
        ("/srv/data.csv", "/srv/data.csv"),
        ("/a/./b//c/", "/a/b/c"),
        ("a\\b/c\\d.txt", "/a/b/c/d.txt"),
        ("/", "/"),
        (".", "/."),
        ("", "/."),
        # ".." inside a name is not a traversal; only a whole ".." segment is.
        ("x..y/z", "/x..y/z"),
        ("v1..2", "/v1..2"),
        ("/c:/x", "/c:/x"),
        ("a/~/b", "/a/~/b"),
        ("../up", TRAVERSAL),
        ("a/b/../../..", TRAVERSAL),
        ("/a/../b", TRAVERSAL),
        ("a/../b", TRAVERSAL),
        ("~", TRAVERSAL),
        ("~/.ssh/id", TRAVERSAL),
        ("~user/x", TRAVERSAL),
        ("E:\\x", WINDOWS),
        ("z:/y", WINDOWS),
        ("c:", WINDOWS),
    ],
    ids=repr,
)
def test_validate_path(raw: str, expect: str) -> None:
    result = both("validate_path", raw)
    if expect in (TRAVERSAL, WINDOWS):
        assert result[:2] == ("raised", "ValueError") and result[2].startswith(expect)
    else:
        assert result == expect
        assert "\\" not in result


@pytest.mark.parametrize(
    ("raw", "prefixes", "allowed"),
    [
        ("/work/x.txt", ["/work/"], True),
        ("/work/x.txt", ["/work"], True),
        # A prefix ending in "/" needs the whole directory; without the "/" it is plain text.
        ("/workshop/x", ["/work/"], False),
        ("/workshop/x", ["/work"], True),
        ("/work", ["/work/"], False),
        ("/etc/x", ["/work/", "/etc/"], True),
        ("/other", ["/a/", "/b/"], False),
        ("/x", [], False),
        ("sub/../../x", ["/sub/"], False),
    ],
)
def test_validate_path_allowed_prefixes(raw: str, prefixes: list[str], allowed: bool) -> None:
    result = both("validate_path", raw, allowed_prefixes=prefixes)
    message = raised(result)
    assert (message is None) is allowed, result
    if message is not None and ".." not in raw:
        assert message.startswith("Path must start with one of")


# --------------------------------------------------------------------------------------------
# _glob_search_files: the in-memory glob behind StateBackend/StoreBackend
# --------------------------------------------------------------------------------------------

# Modification times chosen so that most recent first differs from path order.
MTIMES = {
    "/lib/core.rs": "2023-05-01T08:00:00",
    "/lib/io/read.rs": "2023-05-01T12:00:00",
    "/lib/io/write.rs": "2023-05-01T07:00:00",
    "/notes/todo.txt": "2023-05-01T09:00:00",
    "/build.rs": "2023-05-01T10:00:00",
    "/lib/mod.rs.bak": "2023-05-01T11:00:00",
}
GLOB_FILES = {p: {"content": "x", "modified_at": t} for p, t in MTIMES.items()}

ALL_RS = ["/lib/io/read.rs", "/build.rs", "/lib/core.rs", "/lib/io/write.rs"]


@pytest.mark.parametrize(
    ("pattern", "path", "expect"),
    [
        # A bare pattern matches basenames at any depth, newest first.
        ("*.rs", "/", ALL_RS),
        ("**/*.rs", "/", ALL_RS),
        ("*.rs", "/lib/", ["/lib/io/read.rs", "/lib/core.rs", "/lib/io/write.rs"]),
        ("*.rs", "/lib", ["/lib/io/read.rs", "/lib/core.rs", "/lib/io/write.rs"]),
        ("*.rs", "/lib/io/", ["/lib/io/read.rs", "/lib/io/write.rs"]),
        ("*.rs", None, ALL_RS),
        # A pattern with "/" is relative to the search root; a leading "/" anchors to it.
        ("lib/**/*.rs", "/", ["/lib/io/read.rs", "/lib/core.rs", "/lib/io/write.rs"]),
        ("io/*.rs", "/lib", ["/lib/io/read.rs", "/lib/io/write.rs"]),
        ("/*.rs", "/", ["/build.rs"]),
        ("/lib/**/*.rs", "/", ["/lib/io/read.rs", "/lib/core.rs", "/lib/io/write.rs"]),
        ("/*.rs", "/lib/", ["/lib/core.rs"]),
        ("*.rs*", "/", ["/lib/io/read.rs", "/lib/mod.rs.bak", "/build.rs", "/lib/core.rs", "/lib/io/write.rs"]),
        ("*.zip", "/", []),
        ("*.rs", "/nowhere/", []),
        # A traversing search root finds nothing rather than escaping.
        ("*.rs", "../lib/", []),
        ("*.rs", "/lib/../", []),
    ],
)
def test_glob_search_files(pattern: str, path: str | None, expect: list[str]) -> None:
    result = both("_glob_search_files", GLOB_FILES, pattern, path)
    assert result == ("\n".join(expect) if expect else "No files found")


# --------------------------------------------------------------------------------------------
# grep over in-memory files: include globs, roots, caps
# --------------------------------------------------------------------------------------------

GREP_FILES = {
    "/pkg/cli/run.go": {"content": "needle one\n"},
    "/main.go": {"content": "needle two\nno\nneedle three\n"},
    "/NOTES.txt": {"content": "a needle\n"},
    "/pkg/doc.md": {"content": "needle\n"},
}


@pytest.mark.parametrize(
    ("glob", "path", "expect"),
    [
        (None, "/", ["/NOTES.txt", "/main.go", "/pkg/cli/run.go", "/pkg/doc.md"]),
        ("*.go", "/", ["/main.go", "/pkg/cli/run.go"]),
        ("**/*.go", "/", ["/main.go", "/pkg/cli/run.go"]),
        ("pkg/**/*.go", "/", ["/pkg/cli/run.go"]),
        ("cli/*.go", "/pkg", ["/pkg/cli/run.go"]),
        ("cli/*.go", "/", []),
        ("/*.go", "/", ["/main.go"]),
        ("/pkg/**/*.go", "/", ["/pkg/cli/run.go"]),
        ("*.txt", "/", ["/NOTES.txt"]),
        ("*.{go,md}", "/", ["/main.go", "/pkg/cli/run.go", "/pkg/doc.md"]),
        ("*.{txt", "/", []),
        ("*.java", "/", []),
        (None, "/pkg", ["/pkg/cli/run.go", "/pkg/doc.md"]),
        (None, None, ["/NOTES.txt", "/main.go", "/pkg/cli/run.go", "/pkg/doc.md"]),
    ],
)
def test_grep_include_globs(glob: str | None, path: str | None, expect: list[str]) -> None:
    result = both("grep_matches_from_files", GREP_FILES, "needle", path, glob)
    assert result["error"] is None
    assert sorted({m["path"] for m in result["matches"]}) == expect


@pytest.mark.parametrize("max_count", [None, 1, 3, 4, 5, 0])
def test_grep_max_count(max_count: int | None) -> None:
    result = both("grep_matches_from_files", GREP_FILES, "needle", "/", max_count=max_count)
    total = 5
    kept = total if max_count is None else min(max_count, total)
    assert len(result["matches"]) == kept
    # Exactly reaching the cap with nothing dropped is not a truncation.
    assert result["truncated"] is (kept < total)


def test_grep_match_lines_and_texts() -> None:
    result = both("grep_matches_from_files", {"/m.go": {"content": "needle two\nno\nneedle three"}}, "needle", "/")
    assert [(m["line"], m["text"]) for m in result["matches"]] == [(1, "needle two"), (3, "needle three")]


# Records the searches read only when the search covers them: a broken record elsewhere is never
# looked at, a covered one fails as on deepagents; legacy line lists and base64 records mixed in.
SCOPED_FILES = {
    "/a/x.py": {"content": "needle\nneedle b", "modified_at": "2024-01-02"},
    "/a/y.py": {"content": ["needle l1", "x", "needle l3"], "modified_at": "2024-01-02"},
    "/a/z.bin": {"content": "bmVlZGxl", "encoding": "base64", "modified_at": "2024-01-03"},
    "/a/w.py": {"content": "needle w"},
    "/b/broken": {"content": 7},
    "/b/odd": "not a record",
}
ROOT_FILE = {**SCOPED_FILES, "/a": {"content": "needle root file", "modified_at": "2023"}}


@pytest.mark.parametrize(
    ("files", "pattern", "path", "expect"),
    [
        (SCOPED_FILES, "*", "/a", ["/a/z.bin", "/a/x.py", "/a/y.py", "/a/w.py"]),
        (SCOPED_FILES, "**/*.py", "/", ["/a/x.py", "/a/y.py", "/a/w.py"]),
        # A root that is itself a file searches only that file, matched by its name.
        (ROOT_FILE, "*", "/a/", ["/a"]),
        (ROOT_FILE, "*.py", "/a", []),
    ],
)
def test_glob_reads_only_covered_records(files: dict[str, Any], pattern: str, path: str, expect: list[str]) -> None:
    assert both("_glob_search_files", files, pattern, path) == ("\n".join(expect) if expect else "No files found")


@pytest.mark.parametrize(
    ("files", "path", "glob", "max_count", "expect"),
    [
        (SCOPED_FILES, "/a", None, None, 5),
        (SCOPED_FILES, "/", "*.py", 2, 2),
        (ROOT_FILE, "/a", None, None, 1),
        (ROOT_FILE, "/a", "*.txt", None, 0),
        (SCOPED_FILES, "/b/broken", None, None, "File content must be a string or a legacy list of strings, got int."),
    ],
)
def test_grep_reads_only_covered_records(
    files: dict[str, Any], path: str, glob: str | None, max_count: int | None, expect: int | str
) -> None:
    result = both("grep_matches_from_files", files, "needle", path, glob, max_count=max_count)
    assert (raised(result) if isinstance(expect, str) else len(result["matches"])) == expect


# --------------------------------------------------------------------------------------------
# File types: what a read returns as text and what as a multimodal block
# --------------------------------------------------------------------------------------------

TYPED_PATHS = [
    "/a/b.txt",
    "/a/b.rs",
    "/a/noext",
    "/a/.hidden",
    "/a/b.PNG",
    "/a/b.jpeg",
    "/a/b.gif",
    "/a/b.webp",
    "/a/b.pdf",
    "/a/b.mp3",
    "/a/b.wav",
    "/a/b.mp4",
    "/a/b.mov",
    "/a/b.webm",
    "/a/b.mkv",
    "/a/b.MKV",
    "/a/b.mkv.txt",
    "/a/b.tar.gz",
]


@pytest.mark.parametrize("path", TYPED_PATHS)
def test_file_type_classification(path: str) -> None:
    shared = both("_get_file_type", path)
    backend = both("_get_backend_read_file_type", path)
    if path.lower().endswith(".mkv"):
        # Not in the shared map, yet backends read it as video bytes.
        assert (shared, backend) == ("text", "video")
    else:
        assert backend == shared
    if path.endswith((".txt", ".rs", "noext", ".hidden")):
        assert shared == "text"


def test_extension_map_matches_and_yields_content_blocks() -> None:
    maps = {impl: utils(impl)._EXTENSION_TO_FILE_TYPE for impl in IMPLS}
    assert maps["deepagents_rs"] == maps["deepagents"]
    adapter = TypeAdapter(ContentBlock)
    for file_type in set(maps["deepagents_rs"].values()):
        adapter.validate_python({"type": file_type, "base64": "eHl6", "mime_type": "application/octet-stream"})


# --------------------------------------------------------------------------------------------
# Maps the searches read as deepagents does: any mapping, and its failures on odd keys and records
# --------------------------------------------------------------------------------------------

PLAIN = {
    "/a/x.py": {"content": "needle\nhay", "modified_at": "2024-01-02"},
    "/b.txt": {"content": "needle b", "modified_at": "2024-01-03"},
}


def mapped(kind: str, files: dict[Any, Any]) -> Any:
    """``files`` as another mapping type (built fresh for each implementation)."""
    if kind == "mappingproxy":
        return types.MappingProxyType(dict(files))
    return UserDict(files)


def on_both(call: Any) -> Any:
    """``call(utils module)`` on both implementations; returns deepagents' view."""
    out = {impl: view(attempt(lambda impl=impl: call(utils(impl)))) for impl in IMPLS}
    assert out["deepagents_rs"] == out["deepagents"]
    return out["deepagents"]


@pytest.mark.parametrize("kind", ["mappingproxy", "userdict"])
def test_searches_take_any_mapping(kind: str) -> None:
    globbed = on_both(lambda u: u._glob_search_files(mapped(kind, PLAIN), "**/*.py", "/"))
    assert globbed == "/a/x.py"
    grepped = on_both(lambda u: u.grep_matches_from_files(mapped(kind, PLAIN), "needle", "/", "*.txt"))
    assert [m["path"] for m in grepped["matches"]] == ["/b.txt"]
    # A search path that is itself a key of the mapping.
    assert on_both(lambda u: u._glob_search_files(mapped(kind, PLAIN), "*", "/b.txt")) == "/b.txt"


def test_a_search_of_something_without_items_fails_as_on_deepagents() -> None:
    result = on_both(lambda u: u.grep_matches_from_files(list(PLAIN), "needle", "/", None))
    assert raised(result) == "'list' object has no attribute 'items'"


@pytest.mark.parametrize(
    ("odd_key", "expect"),
    [
        (3, "'int' object has no attribute 'startswith'"),
        (b"/c.py", "startswith first arg must be bytes or a tuple of bytes, not str"),
        (("/c.py",), "'tuple' object has no attribute 'startswith'"),
    ],
    ids=["int", "bytes", "tuple"],
)
@pytest.mark.parametrize("search", ["glob", "grep"])
def test_keys_that_are_not_text(odd_key: Any, expect: str, search: str) -> None:
    files = {**PLAIN, odd_key: {"content": "needle"}}
    if search == "glob":
        result = both("_glob_search_files", files, "**", "/")
    else:
        result = both("grep_matches_from_files", files, "needle", "/a", None)
    assert raised(result) == expect
    # A root that is a key itself is looked up, the other keys never compared.
    assert both("_glob_search_files", files, "*", "/b.txt") == "/b.txt"


@pytest.mark.parametrize(
    ("records", "expect"),
    [
        # One undated match has nothing to be compared with.
        ({"/c.py": {"content": "x", "modified_at": None}}, "/c.py"),
        ({"/c.py": {"content": "x", "modified_at": None}, "/d.py": {"content": "y"}}, "'<' not supported"),
        ({"/c.py": {"content": "x", "modified_at": None}, "/d.py": {"content": "y", "modified_at": None}}, "'<' not"),
        # Stamps of another type that compare among themselves are sorted as they are.
        ({"/c.py": {"content": "x", "modified_at": 1}, "/d.py": {"content": "y", "modified_at": 2}}, "/d.py\n/c.py"),
        # An undated record outside the match is never compared.
        ({"/c.md": {"content": "x", "modified_at": None}, "/d.py": {"content": "y"}}, "/d.py"),
    ],
)
def test_glob_stamps_that_are_not_text(records: dict[str, Any], expect: str) -> None:
    result = both("_glob_search_files", records, "*.py", "/")
    message = raised(result)
    assert (message or result).startswith(expect)


@pytest.mark.parametrize(
    ("call", "expect"),
    [
        (lambda u, f: u._glob_search_files(f, "**/*.py", "/"), "'str' object has no attribute 'get'"),
        (lambda u, f: u.grep_matches_from_files(f, "needle", "/", None), "'str' object has no attribute 'get'"),
        # Outside the search, or filtered out by its glob, the record is never read.
        (lambda u, f: u._glob_search_files(f, "*.txt", "/"), None),
        (lambda u, f: u.grep_matches_from_files(f, "needle", "/", "*.txt"), None),
        (lambda u, f: u.grep_matches_from_files(f, "needle", "/a", None), None),
    ],
)
def test_records_that_are_not_dicts(call: Any, expect: str | None) -> None:
    files = {**PLAIN, "/c.py": "needle text"}
    assert raised(on_both(lambda u: call(u, files))) == expect


def test_huge_max_count_finds_everything() -> None:
    result = both("grep_matches_from_files", PLAIN, "needle", "/", None, max_count=2**70)
    assert len(result["matches"]) == 2 and result["truncated"] is False
