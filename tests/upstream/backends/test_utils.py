# Vendored from langchain-ai/deepagents libs/deepagents/tests/unit_tests/backends/test_utils.py @ 23b83ad50f63 (MIT);
# `deepagents.` imports/patch targets rewritten to `deepagents_rs.`.
"""Tests for backends/utils.py utility functions."""

from typing import Any

import pytest
from deepagents_rs.backends.protocol import FileData, ReadResult
from deepagents_rs.backends.utils import (
    _EXTENSION_TO_FILE_TYPE,
    _get_backend_read_file_type,
    _get_file_type,
    _glob_search_files,
    _looks_like_regex,
    compile_grep_include_glob,
    grep_matches_from_files,
    perform_string_replacement,
    regex_literal_hint,
    slice_read_response,
    to_posix_path,
    validate_path,
)
from langchain_core.messages.content import ContentBlock
from pydantic import TypeAdapter

# Drift: `compile_recursive_glob` exists upstream but not in deepagents 0.7.32.
compile_recursive_glob = getattr(
    __import__("deepagents_rs.backends.utils", fromlist=["_"]), "compile_recursive_glob", None
)


class TestLooksLikeRegex:
    """`_looks_like_regex` flags regex syntax in patterns meant for literal grep."""

    @pytest.mark.parametrize(
        "pattern",
        [
            "foo|bar",
            "def .*model",
            "self\\.tools",
            "a.+b",
            "\\bword\\b",
            "\\d+",
            "\\w",
            "\\s+",
            "foo\\(bar\\)",
        ],
    )
    def test_detects_regex(self, pattern: str) -> None:
        assert _looks_like_regex(pattern) is True

    @pytest.mark.parametrize(
        "pattern",
        [
            "def __init__(self):",
            "self.tools",
            "arr[0]",
            "plain text",
            "TODO",
            "a == b",
            "",
            # Metacharacters deliberately treated as literal (see `_REGEX_SIGNAL_RE`
            # docstring): bare `^`, `$`, `?`, `*`, `+` are common in literal code
            # searches and must not trip a false hint.
            "^main",
            "cost$5",
            "value?",
            "a*b",
            "c++",
        ],
    )
    def test_ignores_literal(self, pattern: str) -> None:
        assert _looks_like_regex(pattern) is False

    def test_hint_present_for_regex(self) -> None:
        hint = regex_literal_hint("foo|bar")
        assert hint is not None
        assert "literal text, not regex" in hint
        assert "execute" not in hint

    def test_hint_absent_for_literal(self) -> None:
        assert regex_literal_hint("plain text") is None


class TestToPosixPath:
    """`to_posix_path` is the load-bearing primitive for Windows path handling."""

    @pytest.mark.parametrize(
        ("input_path", "expected"),
        [
            (r"C:\Users\project\file.txt", "C:/Users/project/file.txt"),
            (r"C:\Users\project\skills\my-skill\\", "C:/Users/project/skills/my-skill//"),
            ("already/posix/path", "already/posix/path"),
            (r"mixed/sep\path/with\backslash", "mixed/sep/path/with/backslash"),
            (r"\\server\share\file", "//server/share/file"),
            ("", ""),
            ("/", "/"),
            (r"\\", "//"),
            ("/foo/bar", "/foo/bar"),
        ],
        ids=[
            "windows-drive",
            "trailing-backslash",
            "already-posix",
            "mixed-separators",
            "unc",
            "empty",
            "root",
            "bare-backslashes",
            "posix-absolute",
        ],
    )
    def test_normalizes(self, input_path: str, expected: str) -> None:
        assert to_posix_path(input_path) == expected


class TestValidatePath:
    """Tests for validate_path - the canonical path validation function."""

    @pytest.mark.parametrize(
        ("input_path", "expected"),
        [
            ("foo/bar", "/foo/bar"),
            ("/workspace/file.txt", "/workspace/file.txt"),
            ("/./foo//bar", "/foo/bar"),
            ("foo\\bar\\baz", "/foo/bar/baz"),
            ("foo/bar\\baz/qux", "/foo/bar/baz/qux"),
        ],
    )
    def test_path_normalization(self, input_path: str, expected: str) -> None:
        """Test various path normalization scenarios."""
        assert validate_path(input_path) == expected

    @pytest.mark.parametrize(
        ("invalid_path", "error_match"),
        [
            ("../etc/passwd", "Path traversal not allowed"),
            ("foo/../../etc", "Path traversal not allowed"),
            ("~/secret.txt", "Path traversal not allowed"),
            ("C:\\Users\\file.txt", "Windows absolute paths are not supported"),
            ("D:/data/file.txt", "Windows absolute paths are not supported"),
        ],
    )
    def test_invalid_paths_rejected(self, invalid_path: str, error_match: str) -> None:
        """Test that dangerous paths are rejected."""
        with pytest.raises(ValueError, match=error_match):
            validate_path(invalid_path)

    def test_allowed_prefixes_enforced(self) -> None:
        """Test allowed_prefixes parameter."""
        assert validate_path("/workspace/file.txt", allowed_prefixes=["/workspace/"]) == "/workspace/file.txt"

        with pytest.raises(ValueError, match="Path must start with one of"):
            validate_path("/etc/passwd", allowed_prefixes=["/workspace/"])

    def test_no_backslashes_in_output(self) -> None:
        """Test that output never contains backslashes."""
        paths = ["foo\\bar", "a\\b\\c\\d", "mixed/path\\here"]
        for path in paths:
            result = validate_path(path)
            assert "\\" not in result, f"Backslash in output for input '{path}': {result}"

    def test_root_path(self) -> None:
        """Test that root path normalizes correctly."""
        assert validate_path("/") == "/"

    def test_double_dots_in_filename_allowed(self) -> None:
        """Test that filenames containing `'..'` as a substring are not rejected.

        Only `'..'` as a path component (directory traversal) should be rejected.
        """
        assert validate_path("foo..bar.txt") == "/foo..bar.txt"
        assert validate_path("backup..2024/data.csv") == "/backup..2024/data.csv"
        assert validate_path("v2..0/release") == "/v2..0/release"

    def test_allowed_prefixes_boundary(self) -> None:
        """Test that prefix matching requires exact directory boundary.

        `'/workspace-evil/file'` should NOT match prefix `'/workspace/'`.
        """
        with pytest.raises(ValueError, match="Path must start with one of"):
            validate_path("/workspace-evil/file", allowed_prefixes=["/workspace/"])

    def test_traversal_as_path_component_rejected(self) -> None:
        """Test that `'..'` as a path component is still rejected."""
        with pytest.raises(ValueError, match="Path traversal not allowed"):
            validate_path("foo/../etc/passwd")

        with pytest.raises(ValueError, match="Path traversal not allowed"):
            validate_path("/workspace/../../../etc/shadow")

    def test_dot_and_empty_string_normalize_to_slash_dot(self) -> None:
        """Document that `'.'` and `''` normalize to `'/.'` via `os.path.normpath`."""
        assert validate_path(".") == "/."
        assert validate_path("") == "/."


class TestGlobSearchFiles:
    """Tests for `_glob_search_files` under the shared backend glob contract.

    Bare basename patterns (`*.py`) match at any depth — same rules as
    `compile_grep_include_glob` / FilesystemBackend.
    """

    @pytest.fixture
    def sample_files(self) -> dict[str, Any]:
        """Sample files dict."""
        return {
            "/src/main.py": {"modified_at": "2024-01-01T10:00:00"},
            "/src/utils/helper.py": {"modified_at": "2024-01-01T11:00:00"},
            "/src/utils/common.py": {"modified_at": "2024-01-01T09:00:00"},
            "/docs/readme.md": {"modified_at": "2024-01-01T08:00:00"},
            "/test.py": {"modified_at": "2024-01-01T12:00:00"},
        }

    def _paths(self, result: str) -> set[str]:
        if result == "No files found":
            return set()
        return set(result.strip().split("\n"))

    def test_slashless_basename_glob_matches_at_any_depth(self, sample_files: dict[str, Any]) -> None:
        """`*.py` matches nested and top-level Python files."""
        assert self._paths(_glob_search_files(sample_files, "*.py", "/")) == {
            "/test.py",
            "/src/main.py",
            "/src/utils/helper.py",
            "/src/utils/common.py",
        }

    def test_globstar_matches_same_python_set(self, sample_files: dict[str, Any]) -> None:
        """`**/*.py` matches the same files as bare `*.py`."""
        bare = self._paths(_glob_search_files(sample_files, "*.py", "/"))
        recursive = self._paths(_glob_search_files(sample_files, "**/*.py", "/"))
        assert bare == recursive

    def test_path_filter_still_matches_nested_under_root(self, sample_files: dict[str, Any]) -> None:
        """Path scopes the tree; bare patterns still match nested basenames under it."""
        result = _glob_search_files(sample_files, "*.py", "/src/")
        assert self._paths(result) == {
            "/src/main.py",
            "/src/utils/helper.py",
            "/src/utils/common.py",
        }
        assert "/test.py" not in result

    def test_path_filter_nested_directory(self, sample_files: dict[str, Any]) -> None:
        """Scoping to a nested directory excludes sibling trees."""
        result = _glob_search_files(sample_files, "*.py", "/src/utils/")
        assert self._paths(result) == {"/src/utils/helper.py", "/src/utils/common.py"}
        assert "/src/main.py" not in result

    def test_no_matches(self, sample_files: dict[str, Any]) -> None:
        """Test no matches returns message."""
        assert _glob_search_files(sample_files, "*.xyz", "/") == "No files found"

    def test_sorted_by_modification_time(self, sample_files: dict[str, Any]) -> None:
        """Test results sorted by modification time (most recent first)."""
        result = _glob_search_files(sample_files, "*.py", "/")
        assert result.strip().split("\n")[0] == "/test.py"

    def test_path_traversal_rejected(self, sample_files: dict[str, Any]) -> None:
        """Test that path traversal in path parameter is rejected."""
        result = _glob_search_files(sample_files, "*.py", "../etc/")
        assert result == "No files found"

    def test_path_relative_pattern(self, sample_files: dict[str, Any]) -> None:
        """Patterns containing `/` match relative to the search root."""
        result = _glob_search_files(sample_files, "src/**/*.py", "/")
        assert self._paths(result) == {
            "/src/main.py",
            "/src/utils/helper.py",
            "/src/utils/common.py",
        }
        assert "/test.py" not in result

    def test_leading_slash_anchors_to_root(self, sample_files: dict[str, Any]) -> None:
        """A leading `/` anchors to the search root (top-level only for `/*.py`)."""
        assert self._paths(_glob_search_files(sample_files, "/*.py", "/")) == {"/test.py"}

    def test_leading_slash_with_globstar(self, sample_files: dict[str, Any]) -> None:
        """Patterns with a leading slash and `**` match from the root."""
        result = _glob_search_files(sample_files, "/src/**/*.py", "/")
        assert "/src/main.py" in result
        assert "/src/utils/helper.py" in result

    def test_leading_slash_pattern_with_subdir_path(self) -> None:
        """Leading-slash pattern scoped to a subdirectory path."""
        files = {
            "/foo/a.md": {"modified_at": "2024-01-01T10:00:00"},
            "/foo/b.txt": {"modified_at": "2024-01-01T09:00:00"},
            "/foo/c.md": {"modified_at": "2024-01-01T08:00:00"},
        }
        result = _glob_search_files(files, "/foo/**/*.md", "/")
        assert "/foo/a.md" in result
        assert "/foo/c.md" in result
        assert "/foo/b.txt" not in result


@pytest.mark.skip(reason="drift: fails against deepagents 0.7.32 too: compile_recursive_glob does not exist in 0.7.32")
class TestCompileRecursiveGlobSharesIncludeContract:
    """`compile_recursive_glob` is the walk entry-point for the shared contract."""

    def test_delegates_to_include_glob_matcher(self) -> None:
        paths = ["top.py", "src/app/main.py", "readme.md"]
        for pattern in ("*.py", "**/*.py", "/*.py", "src/**/*.py"):
            expected = [p for p in paths if compile_grep_include_glob(pattern)(p)]
            actual = [p for p in paths if compile_recursive_glob(pattern)(p)]
            assert actual == expected, pattern

    def test_pattern_wcmatch_refuses_raises_value_error(self) -> None:
        """Backends catch `ValueError`; wcmatch's own type is private."""
        with pytest.raises(ValueError, match="Invalid glob pattern"):
            compile_recursive_glob("{a,b}" * 40 + "*.py")

    def test_malformed_but_compilable_patterns_do_not_raise(self) -> None:
        """`*.{py` and `[a-` compile fine and simply match nothing."""
        for pattern in ("*.{py", "[a-", "a{b,c"):
            assert compile_recursive_glob(pattern)("a.py") is False


class TestGrepIncludeGlob:
    """Shared grep include-glob semantics (ripgrep-like) across backends.

    These document the contract implemented by `compile_grep_include_glob` and
    consumed by `grep_matches_from_files` (StateBackend/StoreBackend) and the
    FilesystemBackend Python fallback:

    - A pattern with no `/` matches the basename at any depth (`*.py` matches
      `/src/app/main.py`).
    - A pattern containing `/` matches the path relative to the search root,
      with `**` support (`src/**/*.py` matches `/src/app/main.py`).
    """

    @pytest.fixture
    def sample_files(self) -> dict[str, Any]:
        """Files whose every line contains the literal token `import`."""
        return {
            "/src/app/main.py": {"content": "import os\n"},
            "/top.py": {"content": "import sys\n"},
            "/README.md": {"content": "import note\n"},
        }

    def _paths(self, files: dict[str, Any], glob: str | None, path: str = "/") -> list[str]:
        result = grep_matches_from_files(files, "import", path, glob=glob)
        return sorted(m["path"] for m in result.matches)

    def test_directory_glob_matches_nested(self, sample_files: dict[str, Any]) -> None:
        assert self._paths(sample_files, "src/**/*.py") == ["/src/app/main.py"]

    def test_recursive_glob_matches_all_python(self, sample_files: dict[str, Any]) -> None:
        assert self._paths(sample_files, "**/*.py") == ["/src/app/main.py", "/top.py"]

    def test_slashless_glob_matches_at_any_depth(self, sample_files: dict[str, Any]) -> None:
        assert self._paths(sample_files, "*.py") == ["/src/app/main.py", "/top.py"]

    def test_extension_glob_matches_only_that_extension(self, sample_files: dict[str, Any]) -> None:
        assert self._paths(sample_files, "*.md") == ["/README.md"]

    def test_glob_relative_to_search_root(self, sample_files: dict[str, Any]) -> None:
        """Path-containing patterns resolve relative to the supplied root."""
        assert self._paths(sample_files, "app/*.py", path="/src") == ["/src/app/main.py"]

    def test_leading_slash_anchors_to_root(self, sample_files: dict[str, Any]) -> None:
        """A leading `/` anchors to the root; it narrows rather than widens."""
        assert self._paths(sample_files, "/*.py") == ["/top.py"]

    def test_leading_slash_with_globstar(self, sample_files: dict[str, Any]) -> None:
        """A leading `/` still supports `**` for anchored recursive matches."""
        assert self._paths(sample_files, "/src/**/*.py") == ["/src/app/main.py"]


_content_block_adapter = TypeAdapter(ContentBlock)


def test_get_file_type_returns_text_for_unknown_extensions() -> None:
    assert _get_file_type("/foo/bar.txt") == "text"
    assert _get_file_type("/foo/bar.py") == "text"
    assert _get_file_type("/foo/bar") == "text"


def test_get_file_type_does_not_recognize_mkv() -> None:
    """`.mkv` is intentionally absent from the shared multimodal map."""
    assert _get_file_type("/foo/bar.mkv") == "text"


def test_get_backend_read_file_type_forces_mkv_to_binary() -> None:
    """Backends must read `.mkv` as binary even though it is not in the map."""
    assert _get_backend_read_file_type("/foo/bar.mkv") == "video"


def test_get_backend_read_file_type_matches_get_file_type_for_other_extensions() -> None:
    """The backend classifier only adds `.mkv`; everything else is unchanged."""
    for path in ("/foo/bar.mp4", "/foo/bar.png", "/foo/bar.txt", "/foo/bar", "/foo/bar.pdf"):
        assert _get_backend_read_file_type(path) == _get_file_type(path)


def test_get_file_type_non_text_values_are_valid_content_block_types() -> None:
    """Every non-text file type must be accepted as a ContentBlock `type`."""
    for file_type in _EXTENSION_TO_FILE_TYPE.values():
        block = {"type": file_type, "base64": "dGVzdA==", "mime_type": "application/octet-stream"}
        _content_block_adapter.validate_python(block)


class TestPerformStringReplacement:
    """`perform_string_replacement` underpins every backend's `edit()` path."""

    def test_basic_single_replacement(self) -> None:
        result = perform_string_replacement("hello world", "world", "there")
        assert result == ("hello there", 1)

    def test_not_found_returns_error_string(self) -> None:
        result = perform_string_replacement("hello world", "missing", "x")
        assert isinstance(result, str)
        assert "not found" in result

    def test_multiple_matches_without_replace_all(self) -> None:
        result = perform_string_replacement("a a a", "a", "b")
        assert isinstance(result, str)
        assert "appears 3 times" in result

    def test_multiple_matches_with_replace_all(self) -> None:
        result = perform_string_replacement("a a a", "a", "b", replace_all=True)
        assert result == ("b b b", 3)

    def test_eof_newline_mismatch_returns_actionable_error(self) -> None:
        """Trailing-newline mismatch at EOF must surface a precise hint.

        Models infer terminators on what looks like a well-formed line. When
        the file lacks one, exact-match must hold; the caller needs an
        actionable error so it can self-correct rather than loop on a
        generic "not found".
        """
        content = "# Agent Role:\nyou are an assistant"
        old_string = "# Agent Role:\nyou are an assistant\n"
        new_string = "# Agent Role:\nyou are an assistant\nYou can do anything\n"
        result = perform_string_replacement(content, old_string, new_string)
        assert isinstance(result, str)
        assert "old_string ends with a newline" in result
        assert "Retry with the trailing newline removed" in result

    def test_eof_newline_mismatch_reports_ambiguous_stripped_match(self) -> None:
        """When the stripped key would also be ambiguous, the hint must say so.

        Otherwise the caller fixes the trailing newline, retries, and hits a
        separate `appears N times` error — two round-trips for one cause.
        """
        content = "x x x"
        old_string = "x\n"
        new_string = "Y\n"
        result = perform_string_replacement(content, old_string, new_string)
        assert isinstance(result, str)
        assert "old_string ends with a newline" in result
        assert "appear 3 times" in result
        assert "add surrounding context" in result

    def test_eof_newline_mismatch_does_not_fire_when_match_succeeds(self) -> None:
        """Primary match wins; the EOF-mismatch hint stays dormant."""
        content = "alpha\nbeta\n"
        old_string = "beta\n"
        new_string = "BETA\n"
        result = perform_string_replacement(content, old_string, new_string)
        assert result == ("alpha\nBETA\n", 1)

    def test_eof_newline_mismatch_does_not_fire_for_lone_newline(self) -> None:
        """A lone-newline `old_string` falls through to the generic error."""
        result = perform_string_replacement("hello", "\n", "x")
        assert isinstance(result, str)
        assert "not found" in result
        assert "old_string ends with a newline" not in result

    def test_eof_newline_mismatch_does_not_fire_for_interior_prefix(self) -> None:
        """Interior prefix matches must not trigger the EOF hint.

        `old_string="return foo\n"` against `content="return foobar"`: the
        stripped key matches mid-content, not at EOF. Caller gets the
        generic "not found" error, never a misleading EOF hint that would
        invite a corrupting retry.
        """
        content = "return foobar"
        old_string = "return foo\n"
        new_string = "return baz\n"
        result = perform_string_replacement(content, old_string, new_string)
        assert isinstance(result, str)
        assert "not found" in result
        assert "old_string ends with a newline" not in result

    def test_eof_newline_mismatch_does_not_fire_when_eof_text_differs(self) -> None:
        """If file's EOF text doesn't match the stripped key, no EOF hint."""
        content = "x foo y"
        old_string = "x foo\n"
        new_string = "REPLACED\n"
        result = perform_string_replacement(content, old_string, new_string)
        assert isinstance(result, str)
        assert "not found" in result
        assert "old_string ends with a newline" not in result


class TestSliceReadResponse:
    """`slice_read_response` must round-trip the file's trailing-newline state.

    That state is the load-bearing input to `perform_string_replacement`'s
    EOF-mismatch detection. If it gets dropped here, the EOF hint can't
    fire and callers fall back to the generic "not found" loop.
    """

    @staticmethod
    def _file(content: str) -> FileData:
        return FileData(content=content, encoding="utf-8")

    @staticmethod
    def _content(result: ReadResult) -> str:
        assert result.file_data is not None
        return result.file_data["content"]

    def test_preserves_trailing_newline_when_file_has_one(self) -> None:
        result = slice_read_response(self._file("foo\nbar\n"), offset=0, limit=2000)
        assert self._content(result) == "foo\nbar\n"

    def test_preserves_no_trailing_newline_when_file_lacks_one(self) -> None:
        result = slice_read_response(self._file("foo\nbar"), offset=0, limit=2000)
        assert self._content(result) == "foo\nbar"

    def test_normalizes_crlf_to_lf(self) -> None:
        """State/Store callers may carry CRLF; downstream tooling assumes LF."""
        result = slice_read_response(self._file("foo\r\nbar\r\n"), offset=0, limit=2000)
        content = self._content(result)
        assert "\r" not in content
        assert content == "foo\nbar\n"

    def test_normalizes_bare_cr_to_lf(self) -> None:
        result = slice_read_response(self._file("foo\rbar\r"), offset=0, limit=2000)
        content = self._content(result)
        assert "\r" not in content
        assert content == "foo\nbar\n"

    def test_partial_window_keeps_terminator_on_internal_lines(self) -> None:
        """A window ending on a non-terminal line still ends with that line's terminator."""
        result = slice_read_response(self._file("a\nb\nc\nd\n"), offset=1, limit=2)
        assert self._content(result) == "b\nc\n"

    def test_partial_window_normalizes_crlf(self) -> None:
        """An internal CRLF slice is LF-normalized even though only the window is rewritten."""
        result = slice_read_response(self._file("a\r\nb\r\nc\r\nd\r\n"), offset=1, limit=2)
        content = self._content(result)
        assert content == "b\nc\n"
        assert "\r" not in content

    def test_partial_window_ending_on_unterminated_last_line(self) -> None:
        """A window covering the last line keeps that line's missing-terminator state."""
        result = slice_read_response(self._file("a\nb\nc"), offset=2, limit=1)
        assert self._content(result) == "c"

    def test_partial_window_includes_pagination_metadata(self) -> None:
        result = slice_read_response(self._file("a\nb\nc\nd\n"), offset=1, limit=2)
        assert result.total_lines == 4
        assert result.start_line == 2
        assert result.end_line == 3
        assert result.next_offset == 3

    def test_empty_content_returns_result_without_pagination(self) -> None:
        """Empty files short-circuit to a success result with no pagination metadata."""
        result = slice_read_response(self._file(""), offset=0, limit=100)
        assert result.error is None
        assert self._content(result) == ""
        assert result.total_lines is None
        assert result.start_line is None
        assert result.end_line is None
        assert result.next_offset is None

    def test_whitespace_only_content_returns_result_without_pagination(self) -> None:
        """Whitespace-only content takes the empty branch and is returned verbatim."""
        result = slice_read_response(self._file("   \n\t\n"), offset=0, limit=100)
        assert result.error is None
        assert self._content(result) == "   \n\t\n"
        assert result.total_lines is None

    def test_preserves_timestamps_on_sliced_result(self) -> None:
        """The sliced copy carries `created_at`/`modified_at` through unchanged."""
        file_data = FileData(content="a\nb\nc\nd\n", encoding="utf-8")
        file_data["created_at"] = "t0"
        file_data["modified_at"] = "t1"
        result = slice_read_response(file_data, offset=1, limit=2)
        assert result.file_data is not None
        assert result.file_data.get("created_at") == "t0"
        assert result.file_data.get("modified_at") == "t1"

    def test_offset_beyond_file_returns_error_result(self) -> None:
        result = slice_read_response(self._file("a\nb"), offset=10, limit=5)
        assert result.error is not None
        assert "exceeds file length" in result.error

    @pytest.mark.parametrize("limit", [0, -3])
    def test_non_positive_limit_returns_empty_read(self, limit: int) -> None:
        """A degenerate `limit` reads nothing instead of raising on the line range.

        `no_lines_requested` flags the window as never inspected so the
        middleware can tell it apart from an inspected-but-empty file, whose
        `ReadResult` is otherwise identical.
        """
        result = slice_read_response(self._file("a\nb\nc"), offset=0, limit=limit)
        assert result.error is None
        assert self._content(result) == ""
        assert result.no_lines_requested is True
        assert result.total_lines is None
        assert result.start_line is None
        assert result.end_line is None
        assert result.next_offset is None

    def test_negative_offset_reads_from_first_line(self) -> None:
        """A degenerate `offset` is clamped rather than reported as line 0."""
        result = slice_read_response(self._file("a\nb\nc"), offset=-1, limit=2)
        assert result.error is None
        assert self._content(result) == "a\nb\n"
        assert result.start_line == 1
        assert result.end_line == 2
        assert result.next_offset == 2

    def test_negative_offset_and_non_positive_limit_combine(self) -> None:
        """Both bounds degenerate at once still yields an empty read."""
        result = slice_read_response(self._file("a\nb\nc"), offset=-3, limit=-3)
        assert result.error is None
        assert self._content(result) == ""
        assert result.start_line is None

    def test_zero_limit_takes_precedence_over_offset_past_eof(self) -> None:
        """The zero-limit check runs before the bounds check, so no error is raised.

        Pins the ordering rather than endorsing it: the offset is also invalid
        here, and reporting the empty read first costs the caller a round trip
        to discover that. Reordering would have to change all four read paths.
        """
        result = slice_read_response(self._file("a\nb\nc"), offset=99, limit=0)
        assert result.error is None
        assert self._content(result) == ""

    def test_blank_content_takes_precedence_over_zero_limit(self) -> None:
        """Whitespace-only content is returned verbatim even for a zero limit.

        The blank-content branch precedes the zero-limit branch, so the content
        is the whitespace rather than `""`. The middleware maps either to a
        reminder, but the two branches must not be reordered silently.
        """
        result = slice_read_response(self._file("   \n\t\n"), offset=0, limit=0)
        assert result.error is None
        assert self._content(result) == "   \n\t\n"


class TestGrepMaxCount:
    """`max_count` total-cap semantics for `grep_matches_from_files`.

    Backs `StateBackend`/`StoreBackend`, which delegate their `grep` here.
    """

    @staticmethod
    def _files() -> dict[str, Any]:
        # Two files, three matching lines total.
        return {
            "/a.txt": {"content": "hit\nhit\n"},
            "/b.txt": {"content": "hit\n"},
        }

    def test_over_cap_truncates(self) -> None:
        result = grep_matches_from_files(self._files(), "hit", "/", max_count=2)
        assert result.matches is not None
        assert len(result.matches) == 2
        assert result.truncated is True

    def test_exact_cap_not_truncated(self) -> None:
        """Exactly `max_count` matches with none dropped is reported complete."""
        result = grep_matches_from_files(self._files(), "hit", "/", max_count=3)
        assert result.matches is not None
        assert len(result.matches) == 3
        assert result.truncated is False

    def test_no_cap_returns_all(self) -> None:
        result = grep_matches_from_files(self._files(), "hit", "/")
        assert result.matches is not None
        assert len(result.matches) == 3
        assert result.truncated is False
