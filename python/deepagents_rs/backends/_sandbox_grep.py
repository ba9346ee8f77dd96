"""Literal-text search in a sandbox: the shell command `BaseSandbox.grep` runs, and its parser.

Every route prints GNU `grep -HnFZ` records, `path NUL line_number : text`, one per line.
A basename glob (no `/`) goes to ripgrep when it is installed and reads the glob the way GNU
grep would, else to GNU grep's `--include`. A glob with a `/` cannot be an `--include`
(which only ever sees basenames), so a small Python script resolves it against the root.
"""

from __future__ import annotations

import base64
import logging
import shlex
from pathlib import PurePosixPath
from typing import Final

from deepagents_rs.backends._sandbox_texts import SEARCH_TIMED_OUT
from deepagents_rs.backends.protocol import ASYNC_GREP_TIMEOUT, ExecuteResponse, GrepMatch, GrepResult

logger = logging.getLogger("deepagents_rs.backends.sandbox")

# Unlike the basename routes this one ends without `|| true`: a clean run exits 0 even with no
# match, so a non-zero exit is a real failure (bad root, traversal) the parser reports.
_GREP_PATH_GLOB_TEMPLATE: Final = """python3 -c "
import base64, glob, os, sys


def arg(text):
    return base64.b64decode(text).decode('utf-8')


search_path = arg('{path_b64}')
glob_pat = arg('{glob_b64}')
sought = arg('{pattern_b64}')
skip_dirs = set(arg('{exclude_b64}').split(chr(0))) - {{''}}
max_count = {max_count}


def files_to_search():
    # A file is searched as given; the glob only applies below a directory.
    if not os.path.isdir(search_path):
        return [(search_path, search_path)]
    os.chdir(search_path)
    # Without the lstrip a leading slash would send glob.glob to the filesystem root
    # instead of anchoring the pattern at the search root.
    rel_glob = glob_pat.lstrip('/')
    if '..' in rel_glob.replace(chr(92), '/').split('/'):
        sys.stderr.write('glob contains path traversal' + chr(10))
        sys.exit(2)
    real_root = os.path.realpath(search_path)
    chosen = []
    for rel in sorted(glob.glob(rel_glob, recursive=True)):
        if skip_dirs.intersection(rel.replace(chr(92), '/').split('/')[:-1]):
            continue
        real = os.path.realpath(rel)
        if real == real_root or real.startswith(real_root + os.sep):
            # Shown under the root as given, like grep -r prints its hits.
            chosen.append((real, os.path.join(search_path, os.path.relpath(real, real_root))))
    return chosen


hits = 0
for real, shown in files_to_search():
    try:
        with open(real, 'r', encoding='utf-8', errors='ignore') as fh:
            for number, line in enumerate(fh, 1):
                if sought not in line:
                    continue
                # Each record ends in a newline of its own, even for an unterminated last line.
                sys.stdout.write(shown + chr(0) + str(number) + ':' + line.rstrip(chr(10)) + chr(10))
                hits += 1
                # Stop one record past the cap so the host can tell capped from complete.
                if max_count is not None and hits > max_count:
                    sys.exit(0)
    except OSError:
        pass
" 2>/dev/null"""
"""Search through a path glob; placeholders `path_b64`, `glob_b64`, `pattern_b64`, `exclude_b64`
(NUL-joined folder names to skip) and `max_count` (an int or `None`).

Unlike `grep -r` it sorts its hits, skips hidden files (`glob` rules) and decodes files as UTF-8
ignoring bad bytes.
"""

_RG: Final = "rg --no-config --hidden --no-ignore --encoding none --color never -HnF0"

_GLOB_SYNTAX_RG_READS_DIFFERENTLY: Final = ("[", "\\", "**")
"""Glob syntax kept on GNU grep: ripgrep's gitignore dialect gives it another meaning."""

_EXCLUDE_SYNTAX_RG_READS_DIFFERENTLY: Final = (*_GLOB_SYNTAX_RG_READS_DIFFERENTLY, "{", "}", "/")


def _grep_excluded_dirs(path: str | None, exclude_dirs: tuple[str, ...]) -> tuple[str, ...]:
    """`exclude_dirs` without the name of the search root itself.

    GNU `--exclude-dir` also drops a matching root, so searching inside `.git` explicitly would
    otherwise find nothing.
    """
    root_name = PurePosixPath(path or ".").name
    return tuple(name for name in exclude_dirs if name != root_name)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _rg_agrees_with_grep(pattern: str, glob: str | None, excluded: tuple[str, ...]) -> bool:
    """Whether ripgrep would find exactly what GNU grep finds for these arguments.

    GNU grep treats a newline in the pattern as alternatives where rg refuses it; trailing
    blanks, classes, escapes and `**` mean different things to rg's globs.
    """
    if "\n" in pattern:
        return False
    if glob and (glob != glob.rstrip() or any(token in glob for token in _GLOB_SYNTAX_RG_READS_DIFFERENTLY)):
        return False
    return not any(token in name for name in excluded for token in _EXCLUDE_SYNTAX_RG_READS_DIFFERENTLY)


def _rg_literal_glob(glob: str) -> str:
    """`glob` for rg: braces literal as in GNU grep, and a leading `!`/`#` not a negation/comment."""
    escaped = glob.replace("{", r"\{").replace("}", r"\}")
    return "\\" + escaped if escaped.startswith(("!", "#")) else escaped


def _gnu_grep(quoted_pattern: str, quoted_root: str, glob: str | None, excluded: tuple[str, ...]) -> str:
    # -Z puts a NUL after the file name, so names holding ':' stay unambiguous.
    words = ["grep -rHnFZ", *(f"--exclude-dir={shlex.quote(name)}" for name in excluded)]
    if glob:
        words.append(f"--include={shlex.quote(glob)}")
    return " ".join([*words, "-e", quoted_pattern, quoted_root])


def _ripgrep(quoted_pattern: str, quoted_root: str, glob: str | None, excluded: tuple[str, ...]) -> str:
    # rg lets a later --glob win, so the exclusions come after the include.
    words = [_RG]
    if glob:
        words += ["--glob", shlex.quote(_rg_literal_glob(glob))]
    words += [f"--glob {shlex.quote('!' + name + '/')}" for name in excluded]
    return " ".join([*words, "-e", quoted_pattern, "--", quoted_root])


def _build_grep_cmd(
    pattern: str, path: str | None, glob: str | None, max_count: int | None = None,
    *, exclude_dirs: tuple[str, ...] = (),
) -> str:  # fmt: skip
    """The shell command for `BaseSandbox.grep`; see the module docstring for the routes."""
    excluded = _grep_excluded_dirs(path, exclude_dirs)
    if glob and "/" in glob:
        return _GREP_PATH_GLOB_TEMPLATE.format(
            path_b64=_b64(path or "."),
            glob_b64=_b64(glob),
            pattern_b64=_b64(pattern),
            exclude_b64=_b64("\0".join(excluded)),
            max_count=None if max_count is None else int(max_count),
        )
    quoted_pattern, quoted_root = shlex.quote(pattern), shlex.quote(path or ".")
    search = _gnu_grep(quoted_pattern, quoted_root, glob, excluded)
    if _rg_agrees_with_grep(pattern, glob, excluded):
        # rg only searches directories here: for a single file GNU grep's --include and
        # binary-file handling stay in charge.
        rg = _ripgrep(quoted_pattern, quoted_root, glob, excluded)
        search = f"if [ -d {quoted_root} ] && command -v rg >/dev/null 2>&1; then {rg}; else {search}; fi"
    # Known gap kept from deepagents: with stderr dropped and `|| true`, a failing grep (exit
    # 2) reads as "no matches". Telling it from no-match (1) and head's SIGPIPE (141) needs
    # pipefail, which plain sh lacks.
    command = f"{{ {search}; }} 2>/dev/null"
    if max_count is not None:
        # One record past the cap tells "exactly at the cap" from "cut short"; head closing the
        # pipe also stops grep from scanning on.
        command += f" | head -n {int(max_count) + 1}"
    return f"{command} || true"


def _grep_record(line: str) -> GrepMatch | None:
    """One `path NUL line_number : text` record, or `None` if the line is not one."""
    file_path, nul, rest = line.partition("\0")
    number, colon, text = rest.partition(":")
    if not nul or not colon:
        return None
    try:
        return {"path": file_path, "line": int(number), "text": text}
    except ValueError:
        return None


def _parse_grep_output(result: ExecuteResponse, path: str | None, max_count: int | None = None) -> GrepResult:
    """Records into a `GrepResult`; junk lines only fail the search when nothing else matched."""
    where = path or "."
    output = result.output.rstrip("\n")
    if result.exit_code is not None and result.exit_code != 0:
        detail = output.strip() if output else f"exit code {result.exit_code}"
        return GrepResult(error=f"Path '{where}': {detail}")
    if not output:
        return GrepResult(matches=[])
    matches: list[GrepMatch] = []
    junk: str | None = None
    for line in output.split("\n"):
        record = _grep_record(line)
        if record is None:
            junk = line
        else:
            matches.append(record)
    if junk is not None and not matches:
        return GrepResult(error=f"Path '{where}': {junk}")
    if max_count is not None and len(matches) > max_count:
        return GrepResult(matches=matches[:max_count], truncated=True)
    return GrepResult(matches=matches)


def _grep_timed_out(pattern: str, path: str | None, glob: str | None) -> GrepResult:
    """What `agrep` answers once `ASYNC_GREP_TIMEOUT` has passed."""
    logger.warning("agrep timed out after %ds (pattern=%r, path=%r, glob=%r)", ASYNC_GREP_TIMEOUT, pattern, path, glob)
    return GrepResult(error=SEARCH_TIMED_OUT.format(tool="grep", seconds=ASYNC_GREP_TIMEOUT))
