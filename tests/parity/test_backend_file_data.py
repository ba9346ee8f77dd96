"""Parity: the edit, read-window and file-data helpers of ``backends.utils``, called directly.

``perform_string_replacement`` is behind every backend's ``edit``, ``slice_read_response``
behind the in-memory backends' ``read``, and ``create_file_data``/``file_data_to_string``
define what a stored file looks like (including the legacy list-of-lines content).
Both implementations get the same arguments; results and exceptions must match, and a few
facts are pinned on deepagents' side so each case keeps exercising its branch.
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import pytest

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


# --------------------------------------------------------------------------------------------
# perform_string_replacement
# --------------------------------------------------------------------------------------------

EOF_HINT = "old_string ends with a newline"

#: (content, old, new, replace_all, expected result or a fragment of the error text)
REPLACEMENTS = [
    ("one two", "two", "2", False, ["one 2", 1]),
    ("b b b b", "b", "c", True, ["c c c c", 4]),
    ("first\nsecond\n", "second\n", "2nd\n", False, ["first\n2nd\n", 1]),
    ("abc", "b", "b", False, ["abc", 1]),
    ("aaa", "aa", "b", False, ["ba", 1]),
    ("aaa", "aa", "b", True, ["ba", 1]),
    ("one two", "zzz", "q", False, "String not found in file: 'zzz'"),
    ("", "x", "y", False, "String not found"),
    ("x\r\ny", "x\ny", "z", False, "String not found"),
    ("b b b b", "b", "c", False, "appears 4 times in file. Use replace_all=True"),
    ("abc", "", "x", False, "old_string cannot be empty"),
    # The file lacks a final newline that old_string has: a precise hint, unique or not.
    ("title\nbody text", "title\nbody text\n", "x\n", False, "Retry with the trailing newline removed"),
    ("k k", "k\n", "K\n", False, "would appear 2 times in the file"),
    ("end\n\n", "end\n\n\n", "z", False, EOF_HINT),
    # No hint for a bare newline, a stripped match that is not at the end, or a different end.
    ("abc", "\n", "x", False, "String not found in file: '\n'"),
    ("call foobar", "call foo\n", "y\n", False, "String not found"),
    ("p foo q", "p foo\n", "R\n", False, "String not found"),
]


@pytest.mark.parametrize(("content", "old", "new", "replace_all", "expect"), REPLACEMENTS)
def test_perform_string_replacement(content: str, old: str, new: str, replace_all: bool, expect: Any) -> None:
    result = both("perform_string_replacement", content, old, new, replace_all)
    if isinstance(expect, list):
        assert result == expect
        return
    assert isinstance(result, str) and result.startswith("Error: ")
    assert expect in result
    if expect.startswith("String not found"):
        assert EOF_HINT not in result


# --------------------------------------------------------------------------------------------
# slice_read_response
# --------------------------------------------------------------------------------------------


def text(content: Any, **extra: Any) -> dict[str, Any]:
    return {"content": content, "encoding": "utf-8", **extra}


NO_WINDOW = (None, None, None, None)

#: (file data, offset, limit, expected content, (total, start, end, next_offset)); a string
#: window is the start of the expected error.
WINDOWS = [
    # The final newline (or its absence) survives; CR and CRLF become LF.
    (text("l1\nl2\n"), 0, 100, "l1\nl2\n", (2, 1, 2, None)),
    (text("l1\nl2"), 0, 100, "l1\nl2", (2, 1, 2, None)),
    (text("l1\r\nl2\r\n"), 0, 100, "l1\nl2\n", (2, 1, 2, None)),
    (text("l1\rl2\r"), 0, 100, "l1\nl2\n", (2, 1, 2, None)),
    # Windows inside the file keep each line's terminator and point at the next page.
    (text("1\n2\n3\n4\n5\n"), 2, 2, "3\n4\n", (5, 3, 4, 4)),
    (text("1\r\n2\r\n3\r\n4\r\n"), 1, 2, "2\n3\n", (4, 2, 3, 3)),
    (text("a\n\nb\n"), 1, 1, "\n", (3, 2, 2, 2)),
    (text("1\n2\n3"), 2, 1, "3", (3, 3, 3, None)),
    (text("1\n2\n3"), 2, 5, "3", (3, 3, 3, None)),
    (text("1\n2\n3\n4", created_at="c0", modified_at="m0"), 1, 2, "2\n3\n", (4, 2, 3, 3)),
    # Empty or blank content comes back as is, with no window.
    (text(""), 0, 10, "", NO_WINDOW),
    (text(" \n\t \n"), 0, 10, " \n\t \n", NO_WINDOW),
    (text(" \n"), 0, 0, " \n", NO_WINDOW),
    # A non-positive limit reads nothing, even past the end; a negative offset starts at line 1.
    (text("1\n2\n3"), 0, 0, "", NO_WINDOW),
    (text("1\n2\n3"), 0, -2, "", NO_WINDOW),
    (text("1\n2\n3"), -1, -1, "", NO_WINDOW),
    (text("1\n2\n3"), 50, 0, "", NO_WINDOW),
    (text("1\n2\n3"), -4, 2, "1\n2\n", (3, 1, 2, 2)),
    (text("1\n2"), 7, 3, None, "Line offset 7 exceeds file length (2 lines)"),
    (text("1\n2\n"), 2, 3, None, "Line offset 2 exceeds file length"),
    # Bounds past 64 bits, as Python's ints allow: still an offset past the end, or the whole file.
    (text("1\n2"), 2**70, 3, None, f"Line offset {2**70} exceeds file length (2 lines)"),
    (text("1\n2"), 0, 2**70, "1\n2", (2, 1, 2, None)),
    (text("1\n2\n3"), -(2**70), 1, "1\n", (3, 1, 1, 1)),
    # Legacy list content is joined; base64 content is sliced like text.
    ({"content": ["x", "y"]}, 0, 10, "x\ny", (2, 1, 2, None)),
    ({"content": "aGk=", "encoding": "base64"}, 0, 10, "aGk=", (1, 1, 1, None)),
]


@pytest.mark.parametrize(("data", "offset", "limit", "content", "window"), WINDOWS)
def test_slice_read_response(data: dict, offset: int, limit: int, content: str | None, window: Any) -> None:
    result = both("slice_read_response", data, offset, limit)
    assert result["<type>"] == "ReadResult"
    if isinstance(window, str):
        assert result["error"].startswith(window) and result["file_data"] is None
        return
    assert result["error"] is None
    assert result["file_data"]["content"] == content
    assert (result["total_lines"], result["start_line"], result["end_line"], result["next_offset"]) == window
    # Only a non-positive limit on non-blank content marks the window as never inspected.
    assert result["no_lines_requested"] is (limit <= 0 and content == "" and data["content"] != "")
    for key in ("created_at", "modified_at"):
        assert result["file_data"].get(key) == data.get(key)


# --------------------------------------------------------------------------------------------
# create_file_data / update_file_data / file_data_to_string
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "kwargs"),
    [
        ("hi\nthere", {}),
        ("", {}),
        ("aGk=", {"encoding": "base64"}),
        ("x", {"created_at": "2020-01-01T00:00:00"}),
    ],
)
def test_create_file_data(content: str, kwargs: dict[str, Any]) -> None:
    result = both("create_file_data", content, **kwargs)
    assert result == {
        "content": content,
        "encoding": kwargs.get("encoding", "utf-8"),
        "created_at": "<timestamp>",
        "modified_at": "<timestamp>",
    }
    made = {impl: utils(impl).create_file_data(content, **kwargs) for impl in IMPLS}
    if "created_at" in kwargs:
        assert made["deepagents_rs"]["created_at"] == made["deepagents"]["created_at"] == kwargs["created_at"]
    else:
        for data in made.values():
            assert data["created_at"] == data["modified_at"]


@pytest.mark.parametrize(
    "stored",
    [
        {"content": "a", "encoding": "utf-8", "created_at": "c0", "modified_at": "m0"},
        {"content": ["a", "b"], "created_at": "c0"},
        {"content": "a"},
    ],
)
def test_update_file_data_keeps_creation_time(stored: dict[str, Any]) -> None:
    result = both("update_file_data", stored, "fresh")
    assert result["content"] == "fresh" and result["encoding"] == "utf-8"
    assert result["modified_at"] == "<timestamp>"
    # No creation time is invented for a file that had none.
    assert result.get("created_at") == ("c0" if "created_at" in stored else None)


@pytest.mark.parametrize(
    ("data", "expect"),
    [
        ({"content": "plain"}, "plain"),
        ({"content": "aGk=", "encoding": "base64"}, "aGk="),
        ({"content": ["a", "b", ""]}, "a\nb\n"),
        ({"content": ["only"]}, "only"),
        ({"content": []}, ""),
        ({"content": ["a", 1]}, "got list."),
        ({"content": [None]}, "got list."),
        ({"content": ("a", "b")}, "got tuple."),
        ({"content": 5}, "got int."),
        ({"content": b"x"}, "got bytes."),
    ],
)
def test_file_data_to_string(data: dict[str, Any], expect: str) -> None:
    result = both("file_data_to_string", data)
    if expect.startswith("got "):
        assert result[:2] == ("raised", "TypeError") and result[2].endswith(expect)
    else:
        assert result == expect


# --------------------------------------------------------------------------------------------
# The include-glob matcher is compiled once per pattern
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("impl", IMPLS)
def test_include_glob_is_cached_per_pattern(impl: str) -> None:
    compile_glob = utils(impl).compile_grep_include_glob
    assert compile_glob("*.q") is compile_glob("*.q")
    assert compile_glob("*.q") is not compile_glob("*.r")
    grep = utils(impl).grep_matches_from_files
    # A cached matcher still judges each file set afresh.
    for files in ({"/x.q": text("hit"), "/x.r": text("hit")}, {"/y.q": text("hit"), "/y.s": text("hit")}):
        found = grep(files, "hit", "/", "*.q").matches
        assert [m["path"] for m in found] == [p for p in files if p.endswith(".q")]


@pytest.mark.parametrize("content", [("a hit", "b"), (), b"a hit", bytearray(b"hit"), ["a hit", "b"], {"hit"}])
@pytest.mark.parametrize("glob", [None, "*.txt"])
def test_grep_refuses_content_that_is_not_text_or_lines(content: Any, glob: str | None) -> None:
    # A tuple or bytes would read as lines or as text once converted for the core.
    got = both("grep_matches_from_files", {"/a.txt": text(content)}, "hit", "/", glob)
    raised = isinstance(got, tuple) and got[:2] == ("raised", "TypeError")
    assert raised != isinstance(content, list)
