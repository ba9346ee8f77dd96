"""File search by glob in a sandbox: the walking script `BaseSandbox.glob` runs, and its parser.

The script follows the glob contract shared by every backend: a pattern without `/` matches
basenames at any depth, one with `/` matches the path relative to the root (`**` included),
and a leading-dot name only matches a pattern segment that starts with a dot. It prints one
JSON line per regular file, then `warning` lines when the result is partial; a failure before
the walk is a single `error` line instead.
"""

from __future__ import annotations

import base64
import json
import logging
from typing import Any, Final

from deepagents_rs.backends._sandbox_texts import SEARCH_TIMED_OUT
from deepagents_rs.backends.protocol import (
    ASYNC_GLOB_TIMEOUT,
    ExecuteResponse,
    FileInfo,
    GlobResult,
    GlobTruncationReason,
)

logger = logging.getLogger("deepagents_rs.backends.sandbox")

# The body runs inside sh double quotes: no dollar sign, backtick, double quote or backslash
# (chr(92) stands in). The limits bound a model-supplied pattern over an untrusted tree; going
# past one marks the result partial rather than failing it. TIME_BUDGET matches the local
# backend's glob timeout; the host bounds the whole round trip separately.
_GLOB_COMMAND_TEMPLATE: Final = """python3 -c "
import base64, fnmatch, functools, json, os, time

TIME_BUDGET = 5.0
MAX_EXPANSIONS = 1000
MAX_MATCHES = 10000
BACKSLASH = chr(92)

root_arg = base64.b64decode('{path_b64}').decode('utf-8')
pattern = base64.b64decode('{pattern_b64}').decode('utf-8')


def brace_group(pat, start):
    # From the brace at start: where its group closes, and its top-level alternatives.
    depth = 0
    options = ['']
    for at in range(start, len(pat)):
        ch = pat[at]
        if ch == '{{':
            depth += 1
        elif ch == '}}':
            depth -= 1
            if depth == 0:
                return at, options
        if at == start:
            continue
        if ch == ',' and depth == 1:
            options.append('')
        else:
            options[-1] += ch
    return -1, options


def expand_braces(pat):
    # Every alternative spelled out, nested groups too, or None past MAX_EXPANSIONS: the
    # product of n groups grows as 2 to the n and would hang the sandbox.
    start = pat.find('{{')
    end, options = brace_group(pat, start) if start >= 0 else (-1, None)
    if end < 0:
        return [pat]
    head, rest = pat[:start], pat[end + 1:]
    if len(options) == 1:
        # No comma: the group is literal text, yet later groups still expand.
        tails = expand_braces(rest)
        return None if tails is None else [pat[:end + 1] + tail for tail in tails]
    spelled = []
    for option in options:
        tails = expand_braces(option + rest)
        if tails is None:
            return None
        spelled.extend(head + tail for tail in tails)
        if len(spelled) > MAX_EXPANSIONS:
            return None
    return spelled


def caret_to_bang(pat):
    # fnmatch takes a leading ^ in a class literally; bash, ripgrep and wcmatch negate.
    out = []
    at = 0
    while True:
        opening = pat.find('[', at)
        # Searching from opening + 2 keeps a ] right after the bracket as a member.
        closing = pat.find(']', opening + 2) if opening >= 0 else -1
        if closing < 0:
            out.append(pat[at:])
            return ''.join(out)
        members = pat[opening + 1:closing]
        if members.startswith('^'):
            members = '!' + members[1:]
        out.append(pat[at:opening] + '[' + members + ']')
        at = closing + 1


def hidden(name):
    return name.startswith('.')


def name_fits(name, seg):
    # fnmatchcase: plain fnmatch would turn case-insensitive on a non-POSIX host.
    return not (hidden(name) and not hidden(seg)) and fnmatch.fnmatchcase(name, seg)


def segments_fit(names, segs):
    # Memoized, since ** backtracks exponentially on shapes like **/*/**/*.
    @functools.lru_cache(maxsize=None)
    def fits(i, j):
        while j < len(segs):
            if segs[j] != '**':
                if i == len(names) or not name_fits(names[i], segs[j]):
                    return False
                i += 1
                j += 1
                continue
            while j < len(segs) and segs[j] == '**':
                j += 1
            if j == len(segs):
                # A trailing ** needs at least one name below it and never enters dot names.
                return i < len(names) and not any(hidden(n) for n in names[i:])
            for k in range(i, len(names) + 1):
                if fits(k, j):
                    return True
                if k < len(names) and hidden(names[k]):
                    return False
            return False
        return i == len(names)

    return fits(0, 0)


def path_fits(rel, candidates):
    names = [] if rel in ('', '.') else [n for n in rel.split('/') if n]
    for cand in candidates:
        raw = cand.lstrip('/').split('/')
        segs = [s for s in raw if s]
        # A trailing slash asks for a directory, and only files are reported; after ** the
        # slash is absorbed.
        wants_dir = len(raw) > 1 and raw[-1] == '' and segs[-1:] != ['**']
        if not wants_dir and segments_fit(names, segs):
            return True
    return False


def wanted(rel, candidates):
    if '/' in pattern:
        return path_fits(rel, candidates)
    name = rel.rsplit('/', 1)[-1]
    return any(name_fits(name, cand) for cand in candidates)


walk_errors = []


def note_walk_error(err):
    # The failing path, not only the class: it tells one bad mount from an unreadable tree.
    walk_errors.append(type(err).__name__ + ':' + str(getattr(err, 'filename', '?')))


def regular_file_inside(full, real_root, root_prefix):
    real = os.path.realpath(full)
    return (real == real_root or real.startswith(root_prefix)) and os.path.isfile(real)


def walk(real_root, root_prefix, candidates):
    # Pseudo-filesystems never hold user files and are effectively endless.
    skip_top = ('proc', 'sys', 'dev') if real_root == os.sep else ()
    deadline = time.monotonic() + TIME_BUDGET
    found = []
    cut = False
    try:
        # onerror: os.walk would otherwise drop unreadable subtrees without a word.
        for dirpath, dirnames, filenames in os.walk('.', onerror=note_walk_error):
            if cut:
                break
            if dirpath == '.':
                dirnames[:] = [d for d in dirnames if d not in skip_top]
            if time.monotonic() > deadline:
                cut = True
                break
            for name in filenames:
                if time.monotonic() > deadline or len(found) >= MAX_MATCHES:
                    cut = True
                    break
                full = name if dirpath == '.' else os.path.join(dirpath, name)
                rel = full.replace(BACKSLASH, '/')
                if rel.startswith('./'):
                    rel = rel[2:]
                if wanted(rel, candidates) and regular_file_inside(full, real_root, root_prefix):
                    found.append(rel)
    except Exception as exc:
        # A failure mid-walk keeps what was found; the partial set is reported as such.
        walk_errors.append(type(exc).__name__ + ':' + str(exc)[:100])
    return found, cut


def report(found, cut):
    for rel in sorted(found):
        print(json.dumps({{'path': rel, 'is_dir': False}}))
    if walk_errors:
        print(json.dumps({{'warning': 'walk_errors', 'count': len(walk_errors), 'sample': walk_errors[:5]}}))
    if cut:
        print(json.dumps({{'warning': 'truncated'}}))


def prepare():
    # Everything that can fail before a match exists; its failures are the only errors.
    real_root = os.path.realpath(root_arg)
    # realpath of / is / already; adding a separator would give // and lose every match.
    root_prefix = real_root if real_root.endswith(os.sep) else real_root + os.sep
    os.chdir(root_arg)
    if '..' in pattern.replace(BACKSLASH, '/').split('/'):
        return 'invalid_pattern', None
    spelled = expand_braces(pattern)
    if spelled is None:
        return 'pattern_too_broad', None
    return None, (real_root, root_prefix, [caret_to_bang(p) for p in spelled])


try:
    problem, plan = prepare()
except FileNotFoundError:
    problem, plan = 'path_not_found', None
except NotADirectoryError:
    problem, plan = 'not_a_directory', None
except PermissionError:
    problem, plan = 'permission_denied', None
except Exception as exc:
    # Anything else would be a traceback the host cannot parse; keep a bounded message.
    problem, plan = 'internal_error: ' + type(exc).__name__ + ': ' + str(exc)[:200], None
if problem is None:
    report(*walk(*plan))
else:
    print(json.dumps({{'error': problem}}))
" 2>&1"""
"""Walking glob; placeholders `path_b64` (search root) and `pattern_b64`.

Errors: `path_not_found`, `not_a_directory`, `permission_denied`, `invalid_pattern` (a `..`
segment), `pattern_too_broad` (too many brace alternatives) and `internal_error: ...`.
Warnings: `walk_errors` (unreadable subtrees, with a count and a sample; narrowing the search
will not help) and `truncated` (time or match budget spent; narrowing will).
"""


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _build_glob_cmd(pattern: str, search_path: str) -> str:
    # The pattern goes through as typed: the script itself gives bare patterns any depth.
    return _GLOB_COMMAND_TEMPLATE.format(path_b64=_b64(search_path), pattern_b64=_b64(pattern))


def _glob_search_root(path: str | None) -> str:
    """The search root as an absolute path (default `/`).

    Matches are joined onto it, and permission `deny` rules only ever match absolute paths:
    a relative root would let its matches slip past them when `glob` is called directly.
    """
    if not path:
        return "/"
    return path if path.startswith("/") else f"/{path}"


def _absolutize_glob_path(search_path: str, rel_path: str) -> str:
    """A match reported relative to the root, made absolute (`glob` promises absolute paths)."""
    if rel_path.startswith("/"):
        return rel_path
    return f"{search_path.rstrip('/')}/{rel_path}"


class _GlobReport:
    """What the script's lines add up to, read one line at a time."""

    def __init__(self, result: ExecuteResponse, search_path: str) -> None:
        self.search_path = search_path
        self.clipped_by_transport = result.truncated
        self.matches: list[FileInfo] = []
        self.unparsed: list[str] = []
        self.error: Any = None
        self.truncated = result.truncated
        self.reason: GlobTruncationReason | None = "transport" if result.truncated else None

    def take(self, line: str, *, last: bool) -> None:
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            row = None
        if not isinstance(row, dict):
            self._unparsed(line, last=last)
        elif "error" in row:
            self.error = row["error"]
        elif "warning" in row:
            self._warning(row)
        elif isinstance(row.get("path"), str):
            path = _absolutize_glob_path(self.search_path, row["path"])
            self.matches.append({"path": path, "is_dir": bool(row.get("is_dir", False))})
        else:
            # A path that is not a string would break later; report it as unreadable output.
            self._unparsed(line, last=last)

    def _unparsed(self, line: str, *, last: bool) -> None:
        # Only the transport (not the script's own budget) can tear a line, and only the last.
        if last and self.clipped_by_transport:
            logger.debug("Sandbox glob dropped a clipped final line for path %r: %s", self.search_path, line[:200])
        else:
            self.unparsed.append(line)

    def _warning(self, row: dict[str, Any]) -> None:
        # Unreadable subtrees outrank a spent budget: narrowing the search fixes the budget,
        # never the permissions, so the caller must hear about those.
        self.truncated = True
        if row.get("warning") == "walk_errors":
            count = row.get("count", "an unknown number of")
            logger.warning(
                "Sandbox glob could not read %s path(s) under %r; results are incomplete. Sample: %s",
                count,
                self.search_path,
                row.get("sample", []),
            )
            self.reason = "unreadable"
        elif self.reason is None:
            self.reason = "budget"

    def result(self) -> GlobResult:
        where = self.search_path
        if self.error is not None:
            logger.error("Sandbox glob returned error %r for path %r", self.error, where)
            return GlobResult(matches=None, error=f"Path '{where}': {self.error}")
        if self.unparsed:
            first = self.unparsed[0][:200]
            n = len(self.unparsed)
            logger.error("Sandbox glob emitted %d unparseable line(s) for path %r; first: %s", n, where, first)
            return GlobResult(matches=None, error=f"Path '{where}': glob helper emitted unexpected output: {first}")
        return GlobResult(matches=self.matches, truncated=self.truncated, truncation_reason=self.reason)


def _parse_glob_output(result: ExecuteResponse, search_path: str) -> GlobResult:
    """The script's output as a `GlobResult` with absolute paths.

    Lines that are not the script's JSON fail the search rather than being skipped: stderr is
    merged in, so skipping them would turn a crash into a confident "no files". A non-zero
    exit fails it for the same reason, and empty output keeps the transport's truncation flag.
    """
    output = result.output.strip()
    if result.exit_code is not None and result.exit_code != 0:
        detail = output[:200] if output else f"exit code {result.exit_code}"
        logger.error("Sandbox glob helper failed for path %r: %s", search_path, detail)
        return GlobResult(matches=None, error=f"Path '{search_path}': glob helper failed: {detail}")
    if not output:
        reason = "transport" if result.truncated else None
        return GlobResult(matches=[], truncated=result.truncated, truncation_reason=reason)
    report = _GlobReport(result, search_path)
    lines = output.split("\n")
    for index, line in enumerate(lines):
        if line.strip():
            report.take(line, last=index == len(lines) - 1)
    return report.result()


def _glob_timed_out(pattern: str, search_path: str) -> GlobResult:
    """What `aglob` answers once `ASYNC_GLOB_TIMEOUT` has passed."""
    logger.warning("aglob timed out after %ds (pattern=%r, path=%r)", ASYNC_GLOB_TIMEOUT, pattern, search_path)
    return GlobResult(error=SEARCH_TIMED_OUT.format(tool="glob", seconds=ASYNC_GLOB_TIMEOUT))
