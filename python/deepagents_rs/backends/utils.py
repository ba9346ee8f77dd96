"""Helpers the backends share: file records, read windows, edits, paths, glob and grep.

The in-memory backends (state, store) search with `grep_matches_from_files` and
`_glob_search_files`; every backend filters with `compile_grep_include_glob`, so an include
glob means the same thing whichever backend serves it.
"""

import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal, overload

from deepagents_rs import _core
from deepagents_rs.backends.protocol import FileData, GrepResult, ReadResult
from deepagents_rs.backends.protocol import FileInfo as _FileInfo
from deepagents_rs.backends.protocol import GrepMatch as _GrepMatch

logger = logging.getLogger(__name__)

# Kept importable from here, where older code looked for them.
FileInfo = _FileInfo
GrepMatch = _GrepMatch

EMPTY_CONTENT_WARNING = "System reminder: File exists but has empty contents"
EMPTY_OLD_STRING_ERROR = "Error: old_string cannot be empty. Provide the exact text to replace."

MAX_LINE_LENGTH = 5000
"""Longest row `format_content_with_line_numbers` prints; longer lines wrap onto `N.k` rows."""

TOOL_RESULT_TOKEN_LIMIT = 20000
"""Tokens a tool result may take (reckoned at four characters each) before it is cut."""

TRUNCATION_GUIDANCE = "... [results truncated, try being more specific with your parameters]"

TRUNCATION_MARKER_TEMPLATE: Final = "... [{omitted_lines} lines truncated] ..."
"""The line that replaces the middle of a head-and-tail preview. Producers report that they
inserted it out of band: the previewed output may contain the same line."""

MAX_VIDEO_INPUT_BYTES: Final = 1024 * 1024 * 1024
"""Largest video `read_file` extracts frames from."""

_MAX_TOOL_CALL_PATH_COMPONENT_BYTES: Final = 128

FileType = Literal["text", "image", "audio", "video", "file"]
"""What a file is, judged by its extension."""

# The core's table (the formats Gemini's multimodal inputs take); everything else is text.
_EXTENSION_TO_FILE_TYPE: dict[str, FileType] = dict(_core.FILE_TYPE_EXTENSIONS)

# The MIME types OpenAI's Responses API accepts as file inputs
# (https://developers.openai.com/api/docs/guides/file-inputs), by top-level type.
_OPENAI_FILE_SUBTYPES: Final = {
    "application": """
        msword vnd.apple.iwork vnd.apple.keynote vnd.apple.pages vnd.google-apps.document
        vnd.google-apps.presentation vnd.google-apps.spreadsheet vnd.ms-excel vnd.ms-powerpoint
        vnd.oasis.opendocument.text vnd.openxmlformats-officedocument.presentationml.presentation
        vnd.openxmlformats-officedocument.spreadsheetml.sheet
        vnd.openxmlformats-officedocument.wordprocessingml.document
        csv graphql javascript json json5 rtf toml typescript yaml x-awk x-bash x-graphql x-httpd-php
        x-httpd-php-source x-iif x-json5 x-ndjson x-patch x-php x-powershell x-protobuf x-rust x-scala
        x-sql x-subrip x-terraform x-toml x-yaml
    """,
    "message": "rfc822",
    "text": """
        calendar css csv html javascript jsx markdown plain rtf srt tsv tsx vbscript vtt xml
        x-R x-asm x-astro x-awk x-bash x-c x-c++ x-clojure x-cmake x-csharp x-dart x-diff x-dockerfile
        x-ejs x-elixir x-erb x-erlang x-go x-golang x-gradle x-graphql x-groovy x-handlebars x-haskell
        x-hcl x-iif x-ini x-jade x-java x-jinja2 x-julia x-kotlin x-less x-liquid x-lisp x-lua
        x-makefile x-mustache x-objectivec x-objectivec++ x-patch x-perl x-php x-properties x-protobuf
        x-pug x-python x-r x-rst x-ruby x-rust x-sass x-scala x-script.python x-scss x-sh x-shellscript
        x-sql x-subrip x-swift x-terraform x-tex x-tmpl x-toml x-twig x-typescript x-vcard x-yaml x-zsh
    """,
}
_OPENAI_FILE_MIME_TYPES: Final = frozenset(
    f"{top}/{sub}" for top, subs in _OPENAI_FILE_SUBTYPES.items() for sub in subs.split()
)


class InvalidGlobPatternError(ValueError):
    """The glob matcher refused a pattern.

    A distinct type lets callers blame the pattern only when the pattern is at fault: a plain
    `ValueError` from the same call may come from the path instead.
    """


# ---- file records ---------------------------------------------------------------------------


def file_data_to_string(file_data: FileData) -> str:
    """A record's content as one string; records written by old releases hold a list of lines.

    Raises:
        TypeError: the content is neither a string nor a list of strings.
    """
    return _core.files_record_text(file_data)


def create_file_data(content: str, created_at: str | None = None, encoding: str = "utf-8") -> FileData:
    """A fresh record, modified now and created at `created_at` (default: now)."""
    return _core.files_record_new(content, created_at or None, encoding)


def update_file_data(file_data: FileData, content: str) -> FileData:
    """`file_data` rewritten with `content`: same encoding and creation time, modified now."""
    return _core.files_record_with(file_data, content, True)


def _copy_file_data_with_content(file_data: FileData, content: str) -> FileData:
    """`file_data` holding `content` instead, timestamps untouched (a read window, not a write)."""
    return _core.files_record_with(file_data, content, False)


def check_empty_content(content: str) -> str | None:
    """`EMPTY_CONTENT_WARNING` when `content` is empty or only whitespace."""
    return None if content and content.strip() else EMPTY_CONTENT_WARNING


def _get_file_type(path: str) -> FileType:
    """`path`'s kind by extension (case-insensitive), `"text"` for anything unlisted."""
    return _core.files_kind(path, False)


def _get_backend_read_file_type(path: str) -> FileType:
    """`_get_file_type`, except the extra video containers (`.mkv`), which backends must read
    as binary."""
    return _core.files_kind(path, True)


def sanitize_tool_call_id(tool_call_id: str) -> str:
    """`tool_call_id` made safe as one path component: separators become `_`, and an id too long
    for a file name becomes `call-<sha256>`."""
    return _core.files_sanitize_call_id(tool_call_id)


# ---- reading --------------------------------------------------------------------------------


def _split_source(content: str | list[str]) -> list[str]:
    """Content as lines; a string's final newline ends its last line rather than adding one."""
    if not isinstance(content, str):
        return content
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def format_content_with_line_numbers(content: str | list[str], start_line: int = 1) -> str:
    """Content with a right-aligned line-number gutter, numbered from `start_line`; a line
    longer than `MAX_LINE_LENGTH` continues on rows `N.1`, `N.2`...

    The gutter is followed by two spaces, never a tab, so a source tab cannot pass for the
    separator; readers of this format (a model profile's notice middleware, the CLI's
    renderer) rely on that.
    """
    return _core.files_numbered(_split_source(content), start_line)


def _format_source_block(content: str | list[str]) -> str:
    """The source lines of a `read_file` result, verbatim, without a final newline."""
    return "\n".join(_split_source(content))


def normalize_read_bounds(offset: int, limit: int) -> tuple[int, int]:
    """`(offset, limit)` as ints, each at least 0.

    Models do send `offset=-1` or `limit=0`. The `int()` matters beyond typing: the sandbox
    backend pastes both into a script it runs. A limit of 0 still has to be answered as an
    empty read by the caller (`ReadResult.no_lines_requested`).
    """
    bounded = (max(int(offset), 0), max(int(limit), 0))
    if bounded != (offset, limit):
        logger.debug(
            "Clamped degenerate read window: offset %r -> %d, limit %r -> %d", offset, bounded[0], limit, bounded[1]
        )
    return bounded


def slice_read_response(file_data: FileData, offset: int, limit: int) -> ReadResult:
    """The window of `limit` lines from line `offset` (0-based) of a stored file, unnumbered.

    Blank content comes back whole with no window (the middleware shows the empty-file
    reminder); a zero limit comes back empty and flagged `no_lines_requested`; an offset
    past the end is an error. The window's line endings become `\\n`, while its last line
    keeps or lacks its terminator as the file does, which `edit` relies on.

    Raises:
        TypeError: as `file_data_to_string`.
    """
    offset, limit = normalize_read_bounds(offset, limit)
    return ReadResult(**_core.files_read_window(file_data, offset, limit))


# ---- editing --------------------------------------------------------------------------------


def perform_string_replacement(
    content: str, old_string: str, new_string: str, replace_all: bool = False
) -> tuple[str, int] | str:
    """`(new content, occurrences)`, or the error text when `old_string` is empty, missing, or
    (without `replace_all`) not unique; a missing string that the file has without its final
    newline is pointed out rather than matched elsewhere."""
    return _core.files_replace(content, old_string, new_string, replace_all)


# ---- result size ----------------------------------------------------------------------------


@overload
def truncate_if_too_long(result: list[str]) -> list[str]: ...


@overload
def truncate_if_too_long(result: str) -> str: ...


def truncate_if_too_long(result: list[str] | str) -> list[str] | str:
    """`result` cut to `TOOL_RESULT_TOKEN_LIMIT` tokens (four characters each), ending with
    `TRUNCATION_GUIDANCE` when anything was cut.

    A list is measured as `str()` renders it (each item's repr plus `", "`) and keeps its
    leading items that fit beside the guidance item.
    """
    if isinstance(result, list):
        return _core.files_truncate_list(result)
    return _core.files_truncate_text(result)


# ---- paths ----------------------------------------------------------------------------------

# A backend's in-memory files: path -> `FileData`.
_FileMap = dict[str, Any]


def to_posix_path(path: str) -> str:
    r"""`path` with every `\` turned into `/`, so `PurePosixPath` splits Windows paths too.

    A POSIX name that really contains a backslash gets split as well; that is rare enough to
    accept, and testing `os.sep` instead would miss Windows paths handed to POSIX hosts.
    """
    return path.replace("\\", "/")


def _glob_anchor(pattern: str) -> str:
    """The leading directories of `pattern` before its first wildcard component (`/` if none).

    A rule anchored at `/` overlaps every path: over-gating is the safe side when the rule's
    reach cannot be pinned down.
    """
    return _core.files_glob_anchor(pattern)


def _paths_overlap(call_path: str, rule_anchor: str) -> bool:
    """Whether one path's subtree contains the other's, component-wise (`/secret` does not
    contain `/secrets`)."""
    return _core.files_paths_overlap(call_path, rule_anchor)


def validate_path(path: str, *, allowed_prefixes: Sequence[str] | None = None) -> str:
    """`path` as a virtual path: `os.path.normpath`-ed, forward slashes, a leading `/`.

    Raises:
        ValueError: a `..` component or leading `~`, a Windows drive path, or (when
            `allowed_prefixes` is given) a path under none of the prefixes.
    """
    return _core.files_validate_path(path, allowed_prefixes)


def _normalize_path(path: str | None) -> str:
    """A search root as `/`-led path without a trailing slash (`None` is the root).

    Raises:
        ValueError: the path is only whitespace.
    """
    path = path or "/"
    if not path.strip():
        msg = "Path cannot be empty"
        raise ValueError(msg)
    if not path.startswith("/"):
        path = "/" + path
    return path if path == "/" else path.rstrip("/")


# ---- glob -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def compile_grep_include_glob(pattern: str) -> Callable[[str], bool]:
    """A predicate on root-relative POSIX paths saying whether `pattern` includes them.

    The one matcher behind both `grep(glob=...)` and `glob()` on every backend, close to
    ripgrep's include globs: a pattern without `/` matches the file name at any depth; one
    with `/` matches the whole relative path (`**` crosses directories); a leading `/` pins
    it to the root. Wildcards skip dot-names unless the pattern's component starts with `.`,
    so `*.yml` finds `.github/workflows/ci.yml` while `**/*.yml` does not. A leading `!` is a
    literal character, not a negation.

    Raises:
        InvalidGlobPatternError: a `..` component, or a pattern the matcher refuses (such as
            a brace expansion too large). Malformed brackets or braces just match nothing.
    """
    try:
        return _core.IncludeMatcher(pattern)
    except ValueError as exc:
        raise InvalidGlobPatternError(str(exc)) from None


def _glob_search_files(files: _FileMap, pattern: str, path: str | None = None) -> str:
    r"""The paths of `files` under `path` that `pattern` includes, newest first, one a line
    (`"No files found"` when none, or when `path` is not a valid search root).

    Raises:
        InvalidGlobPatternError: as `compile_grep_include_glob`.
    """
    error, paths = _core.files_glob(files, pattern, path, False)
    if error is not None:
        raise InvalidGlobPatternError(error)
    return "\n".join(paths) or "No files found"


# ---- grep -----------------------------------------------------------------------------------


def grep_matches_from_files(
    files: _FileMap, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
) -> GrepResult:
    """The lines of in-memory `files` containing the literal text `pattern`.

    Never raises for bad input: an unusable `path` finds nothing and a refused `glob` is an
    error result. With `max_count`, a match beyond the cap stops the scan and flags the
    result truncated; exactly `max_count` matches is complete.
    """
    error, matches, truncated = _core.files_grep(files, pattern, path, glob, max_count)
    return GrepResult(error=error, matches=matches, truncated=truncated)


def build_grep_results_dict(matches: list[GrepMatch]) -> dict[str, list[tuple[int, str]]]:
    """Matches grouped by path as `(line, text)` pairs, in the order given."""
    by_path: dict[str, list[tuple[int, str]]] = {}
    for match in matches:
        by_path.setdefault(match["path"], []).append((match["line"], match["text"]))
    return by_path


def format_grep_matches(
    matches: list[GrepMatch], output_mode: Literal["files_with_matches", "content", "count"]
) -> str:
    """Matches as the grep tool shows them, by path: the paths, `path: count` lines, or each
    path's matching lines (`grep -C` style with `N-` context rows and `--` gaps when any match
    carries context)."""
    return _core.files_format_grep(matches, output_mode)


def _looks_like_regex(pattern: str) -> bool:
    """Whether `pattern` has unmistakable regex syntax: alternation, `.*`, `.+`, or an escaped
    metacharacter or class (bare `.`, brackets, `?`, `^`, `$` are common in literal code
    searches and do not count)."""
    return _core.files_looks_like_regex(pattern)


def regex_literal_hint(pattern: str) -> str | None:
    """A note that grep is literal, for a pattern that looks like a regex (callers show it when
    the search found nothing); `None` otherwise."""
    return _core.FS_TOOL_TEXTS["REGEX_LITERAL_HINT"] if _looks_like_regex(pattern) else None
