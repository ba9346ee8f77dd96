"""Helpers the backends share: file records, read windows, edits, paths, glob and grep.

The in-memory backends (state, store) search with `grep_matches_from_files` and
`_glob_search_files`; every backend filters with `compile_grep_include_glob`, so an include
glob means the same thing whichever backend serves it.
"""

import functools
import itertools
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from hashlib import sha256
from pathlib import PurePosixPath
from typing import Any, Final, Literal, overload

from deepagents_rs._glob import compile_glob
from deepagents_rs.backends._utils_texts import (
    AMBIGUOUS_OLD_STRING,
    EOF_NEWLINE_MISMATCH,
    EOF_NEWLINE_MISMATCH_AMBIGUOUS,
    REGEX_LITERAL_HINT,
)
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

# The formats Gemini's multimodal inputs take; everything else is read as text.
_EXTENSION_TO_FILE_TYPE: dict[str, FileType] = {
    extension: kind
    for kind, extensions in (
        ("image", ".png .jpeg .jpg .webp .gif .heic .heif"),
        ("video", ".mp4 .mpeg .mov .avi .flv .mpg .webm .wmv .3gpp"),
        ("audio", ".wav .mp3 .aiff .aac .ogg .flac"),
        ("file", ".pdf .ppt .pptx"),
    )
    for extension in extensions.split()
}

# Video containers outside that list: `read_file` only treats them as video when the optional
# video extra is installed, but a backend must never decode them as text.
_VIDEO_EXTRA_EXTENSIONS: frozenset[str] = frozenset({".mkv"})

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


def _now() -> str:
    return datetime.now(UTC).isoformat()


def file_data_to_string(file_data: FileData) -> str:
    """A record's content as one string; records written by old releases hold a list of lines.

    Raises:
        TypeError: the content is neither a string nor a list of strings.
    """
    content: object = file_data["content"]
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(line, str) for line in content):
        return "\n".join(content)
    msg = f"File content must be a string or a legacy list of strings, got {type(content).__name__}."
    raise TypeError(msg)


def create_file_data(content: str, created_at: str | None = None, encoding: str = "utf-8") -> FileData:
    """A fresh record, modified now and created at `created_at` (default: now)."""
    now = _now()
    return {"content": content, "encoding": encoding, "created_at": created_at or now, "modified_at": now}


def _carry_over(file_data: FileData, content: str, *stamps: str) -> FileData:
    """A record holding `content` with `file_data`'s encoding and those of `stamps` it has."""
    record = FileData(content=content, encoding=file_data.get("encoding", "utf-8"))
    for key in stamps:
        if key in file_data:
            record[key] = file_data[key]  # type: ignore[literal-required]
    return record


def update_file_data(file_data: FileData, content: str) -> FileData:
    """`file_data` rewritten with `content`: same creation time, modified now."""
    record = _carry_over(file_data, content, "created_at")
    record["modified_at"] = _now()
    return record


def _copy_file_data_with_content(file_data: FileData, content: str) -> FileData:
    """`file_data` holding `content` instead, timestamps untouched (a read window, not a write)."""
    return _carry_over(file_data, content, "created_at", "modified_at")


def check_empty_content(content: str) -> str | None:
    """`EMPTY_CONTENT_WARNING` when `content` is empty or only whitespace."""
    return None if content and content.strip() else EMPTY_CONTENT_WARNING


def _get_file_type(path: str) -> FileType:
    """`path`'s kind by extension (case-insensitive), `"text"` for anything unlisted."""
    return _EXTENSION_TO_FILE_TYPE.get(PurePosixPath(path).suffix.lower(), "text")


def _get_backend_read_file_type(path: str) -> FileType:
    """`_get_file_type`, except the extra video containers, which backends must read as binary."""
    if PurePosixPath(path).suffix.lower() in _VIDEO_EXTRA_EXTENSIONS:
        return "video"
    return _get_file_type(path)


def sanitize_tool_call_id(tool_call_id: str) -> str:
    """`tool_call_id` made safe as one path component: separators become `_`, and an id too long
    for a file name becomes `call-<sha256>`."""
    safe = tool_call_id.translate({ord("."): "_", ord("/"): "_", ord("\\"): "_"})
    if len(safe.encode("utf-8")) <= _MAX_TOOL_CALL_PATH_COMPONENT_BYTES:
        return safe
    return f"call-{sha256(tool_call_id.encode('utf-8')).hexdigest()}"


# ---- reading --------------------------------------------------------------------------------


def _split_source(content: str | list[str]) -> list[str]:
    """Content as lines; a string's final newline ends its last line rather than adding one."""
    if not isinstance(content, str):
        return content
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _numbered_rows(lines: Iterable[str], first: int) -> Iterator[tuple[str, str]]:
    """`(marker, text)` rows: a line longer than `MAX_LINE_LENGTH` continues on `N.1`, `N.2`..."""
    width = MAX_LINE_LENGTH
    for number, line in enumerate(lines, first):
        pieces = [line[at : at + width] for at in range(0, len(line), width)] or [line]
        yield str(number), pieces[0]
        for part, piece in enumerate(pieces[1:], 1):
            yield f"{number}.{part}", piece


def format_content_with_line_numbers(content: str | list[str], start_line: int = 1) -> str:
    """Content with a right-aligned line-number gutter, numbered from `start_line`.

    The gutter is followed by two spaces, never a tab, so a source tab cannot pass for the
    separator; readers of this format (a model profile's notice middleware, the CLI's
    renderer) rely on that.
    """
    rows = list(_numbered_rows(_split_source(content), start_line))
    width = max((len(marker) for marker, _ in rows), default=0)
    return "\n".join(f"{marker:>{width}}  {text}" for marker, text in rows)


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
    """
    content = file_data_to_string(file_data)
    offset, limit = normalize_read_bounds(offset, limit)
    if not content.strip():
        return ReadResult(file_data=_copy_file_data_with_content(file_data, content))
    if limit == 0:
        return ReadResult(file_data=_copy_file_data_with_content(file_data, ""), no_lines_requested=True)
    # Keeping the terminators splits on CR and CRLF as well without rewriting the whole file.
    lines = content.splitlines(keepends=True)
    total = len(lines)
    if offset >= total:
        return ReadResult(error=f"Line offset {offset} exceeds file length ({total} lines)")
    stop = min(offset + limit, total)
    window = "".join(lines[offset:stop]).replace("\r\n", "\n").replace("\r", "\n")
    return ReadResult(
        file_data=_copy_file_data_with_content(file_data, window),
        total_lines=total,
        start_line=offset + 1,
        end_line=stop,
        next_offset=stop if stop < total else None,
    )


# ---- editing --------------------------------------------------------------------------------


def _explain_missing(content: str, old_string: str) -> str:
    """Why `old_string` is not in `content`, pointing out a newline the file does not end with.

    Quietly dropping that newline could match interior text, so the model is told instead.
    """
    unterminated = old_string.removesuffix("\n")
    if old_string != unterminated and unterminated and content.endswith(unterminated):
        count = content.count(unterminated)
        if count == 1:
            return EOF_NEWLINE_MISMATCH
        return EOF_NEWLINE_MISMATCH_AMBIGUOUS.format(count=count)
    return f"Error: String not found in file: '{old_string}'"


def perform_string_replacement(
    content: str, old_string: str, new_string: str, replace_all: bool = False
) -> tuple[str, int] | str:
    """`(new content, occurrences)`, or the error text when `old_string` is empty, missing, or
    (without `replace_all`) not unique."""
    if not old_string:
        return EMPTY_OLD_STRING_ERROR
    occurrences = content.count(old_string)
    if occurrences == 0:
        return _explain_missing(content, old_string)
    if occurrences > 1 and not replace_all:
        return AMBIGUOUS_OLD_STRING.format(old_string=old_string, occurrences=occurrences)
    return content.replace(old_string, new_string), occurrences


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
    limit = TOOL_RESULT_TOKEN_LIMIT * 4
    if isinstance(result, list):
        budget = limit - len(repr(TRUNCATION_GUIDANCE)) - 2
        spent = itertools.accumulate(len(repr(item)) + 2 for item in result)
        for kept, used in enumerate(spent):
            if used > budget:
                return [*result[:kept], TRUNCATION_GUIDANCE]
        return result
    if len(result) <= limit:
        return result
    return result[: limit - len(TRUNCATION_GUIDANCE) - 1] + "\n" + TRUNCATION_GUIDANCE


# ---- paths ----------------------------------------------------------------------------------

# What makes a path component a wildcard for `_glob_anchor` (wcmatch with BRACE | GLOBSTAR).
_GLOB_WILDCARD_CHARS = frozenset("*?[{")

_WINDOWS_DRIVE = re.compile(r"[a-zA-Z]:")

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
    parts = PurePosixPath(to_posix_path(pattern)).parts
    fixed = list(itertools.takewhile(lambda part: _GLOB_WILDCARD_CHARS.isdisjoint(part), parts))
    return str(PurePosixPath(*fixed)) if fixed else "/"


def _paths_overlap(call_path: str, rule_anchor: str) -> bool:
    """Whether one path's subtree contains the other's, component-wise (`/secret` does not
    contain `/secrets`)."""
    first, second = PurePosixPath(call_path), PurePosixPath(rule_anchor)
    return first.is_relative_to(second) or second.is_relative_to(first)


def validate_path(path: str, *, allowed_prefixes: Sequence[str] | None = None) -> str:
    """`path` as a virtual path: `os.path.normpath`-ed, forward slashes, a leading `/`.

    Raises:
        ValueError: a `..` component or leading `~`, a Windows drive path, or (when
            `allowed_prefixes` is given) a path under none of the prefixes.
    """
    # Components, not substrings: `foo..bar.txt` is a fine name.
    if ".." in PurePosixPath(to_posix_path(path)).parts or path.startswith("~"):
        raise ValueError(f"Path traversal not allowed: {path}")
    if _WINDOWS_DRIVE.match(path):
        raise ValueError(
            f"Windows absolute paths are not supported: {path}. Please use virtual paths starting with / (e.g., /workspace/file.txt)"
        )
    normalized = os.path.normpath(path).replace("\\", "/")
    if not normalized.startswith("/"):
        normalized = f"/{normalized}"
    # Belt and braces: normpath must not have produced a parent reference either.
    if ".." in normalized.split("/"):
        raise ValueError(f"Path traversal detected after normalization: {path} -> {normalized}")
    if allowed_prefixes is None or any(map(normalized.startswith, allowed_prefixes)):
        return normalized
    raise ValueError(f"Path must start with one of {allowed_prefixes}: {path}")


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


def _filter_files_by_path(files: _FileMap, normalized_path: str) -> _FileMap:
    """The entries of `files` at `normalized_path`: that file itself, or everything below it."""
    if normalized_path in files:
        return {normalized_path: files[normalized_path]}
    prefix = normalized_path if normalized_path == "/" else normalized_path + "/"
    return {key: value for key, value in files.items() if key.startswith(prefix)}


def _relative_to_root(file_path: str, normalized_path: str) -> str:
    """`file_path` relative to the search root; a root that is the file itself gives its name."""
    if normalized_path == "/":
        return file_path[1:]
    if file_path == normalized_path:
        return file_path.rsplit("/", 1)[-1]
    return file_path[len(normalized_path) + 1 :]


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
    # Refused here so every backend answers `../*.py` the same way.
    if ".." in to_posix_path(pattern).split("/"):
        msg = f"Path traversal not allowed in glob pattern {pattern!r}"
        raise InvalidGlobPatternError(msg)
    try:
        compiled = compile_glob(pattern.lstrip("/"))
    except Exception as exc:
        # Broad on purpose (the matcher's own error types are not public); logged because the
        # breadth could also hide a genuine bug behind an "invalid pattern" message.
        logger.warning("wcmatch refused glob pattern %r (%s): %s", pattern, type(exc).__name__, exc)
        msg = f"Invalid glob pattern {pattern!r}: {exc}"
        raise InvalidGlobPatternError(msg) from exc
    if "/" in pattern:
        return compiled
    return lambda rel_path: compiled(PurePosixPath(rel_path).name)


def _glob_search_files(files: _FileMap, pattern: str, path: str | None = None) -> str:
    r"""The paths of `files` under `path` that `pattern` includes, newest first, one a line
    (`"No files found"` when none, or when `path` is not a valid search root).

    Raises:
        InvalidGlobPatternError: as `compile_grep_include_glob`.
    """
    try:
        root = _normalize_path(path)
    except ValueError:
        return "No files found"
    candidates = _filter_files_by_path(files, root)
    included = compile_grep_include_glob(pattern)
    hits = [
        (key, data.get("modified_at", "")) for key, data in candidates.items() if included(_relative_to_root(key, root))
    ]
    if not hits:
        return "No files found"
    # Stable, so files without a date keep their order at the end.
    hits.sort(key=lambda hit: hit[1], reverse=True)
    return "\n".join(key for key, _ in hits)


# ---- grep -----------------------------------------------------------------------------------


def _lines_containing(files: _FileMap, pattern: str) -> Iterator[GrepMatch]:
    """Lazily, each text line of `files` containing `pattern` (binary records are skipped)."""
    for file_path, file_data in files.items():
        if file_data.get("encoding") == "base64":
            continue
        for number, line in enumerate(file_data_to_string(file_data).split("\n"), 1):
            if pattern in line:
                yield {"path": file_path, "line": number, "text": line}


def grep_matches_from_files(
    files: _FileMap, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
) -> GrepResult:
    """The lines of in-memory `files` containing the literal text `pattern`.

    Never raises for bad input: an unusable `path` finds nothing and a refused `glob` is an
    error result. With `max_count`, a match beyond the cap stops the scan and flags the
    result truncated; exactly `max_count` matches is complete.
    """
    try:
        root = _normalize_path(path)
    except ValueError:
        return GrepResult(matches=[])
    candidates = _filter_files_by_path(files, root)
    if glob:
        try:
            included = compile_grep_include_glob(glob)
        except InvalidGlobPatternError as exc:
            return GrepResult(error=str(exc))
        candidates = {key: data for key, data in candidates.items() if included(_relative_to_root(key, root))}
    found: list[GrepMatch] = []
    for match in _lines_containing(candidates, pattern):
        if max_count is not None and len(found) >= max_count:
            return GrepResult(matches=found, truncated=True)
        found.append(match)
    return GrepResult(matches=found)


def build_grep_results_dict(matches: list[GrepMatch]) -> dict[str, list[tuple[int, str]]]:
    """Matches grouped by path as `(line, text)` pairs, in the order given."""
    by_path: dict[str, list[tuple[int, str]]] = {}
    for match in matches:
        by_path.setdefault(match["path"], []).append((match["line"], match["text"]))
    return by_path


def _format_grep_results(
    results: dict[str, list[tuple[int, str]]], output_mode: Literal["files_with_matches", "content", "count"]
) -> str:
    """Grouped matches as text: the paths, `path: count` lines, or each path's matching lines."""
    paths = sorted(results)
    if output_mode == "files_with_matches":
        return "\n".join(paths)
    if output_mode == "count":
        return "\n".join(f"{path}: {len(results[path])}" for path in paths)
    out: list[str] = []
    for path in paths:
        out.append(f"{path}:")
        out.extend(f"  {number}: {text}" for number, text in results[path])
    return "\n".join(out)


def format_grep_matches(
    matches: list[GrepMatch], output_mode: Literal["files_with_matches", "content", "count"]
) -> str:
    """Matches as the grep tool shows them; `content` mode shows context lines when any match
    carries them."""
    if not matches:
        return "No matches found"
    if output_mode == "content" and any("context_before" in match or "context_after" in match for match in matches):
        return _format_grep_with_context(matches)
    return _format_grep_results(build_grep_results_dict(matches), output_mode)


def _format_grep_with_context(matches: list[GrepMatch]) -> str:
    """`grep -C`-style text: matches as `N: text`, context as `N- text`, gaps as `--`.

    Tolerates a mix of matches with and without context keys, since callers can build one.
    """
    by_path: dict[str, list[GrepMatch]] = {}
    for match in matches:
        by_path.setdefault(match["path"], []).append(match)
    out: list[str] = []
    for path in sorted(by_path):
        hits = {match["line"] for match in by_path[path]}
        shown: dict[int, str] = {}
        for match in by_path[path]:
            shown.update((ctx["line"], ctx["text"]) for ctx in match.get("context_before", []))
            shown[match["line"]] = match["text"]
            shown.update((ctx["line"], ctx["text"]) for ctx in match.get("context_after", []))
        out.append(f"{path}:")
        previous: int | None = None
        for number in sorted(shown):
            if previous is not None and number > previous + 1:
                out.append("  --")
            out.append(f"  {number}{':' if number in hits else '-'} {shown[number]}")
            previous = number
    return "\n".join(out)


# Alternation, `.*`, `.+`, or an escaped metacharacter or class. Bare `.`, brackets, `?`, `^`
# and `$` are left out: literal code searches (`self.tools`, `arr[0]`) use them all the time.
_REGEX_SIGNAL_RE = re.compile(r"\||\.\*|\.\+|\\[.wWdDsSbB(){}\[\]|+*?^$]")


def _looks_like_regex(pattern: str) -> bool:
    """Whether `pattern` has unmistakable regex syntax."""
    return _REGEX_SIGNAL_RE.search(pattern) is not None


def regex_literal_hint(pattern: str) -> str | None:
    """A note that grep is literal, for a pattern that looks like a regex (callers show it when
    the search found nothing); `None` otherwise."""
    return REGEX_LITERAL_HINT if _looks_like_regex(pattern) else None
