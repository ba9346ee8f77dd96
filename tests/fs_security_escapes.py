"""The escape attempts (``..``, absolute paths, symlinks out, ``~``, NUL bytes, Windows paths), the
tool call each filesystem tool carries one in, what must come of it, and deepagents 0.7.32's own
gaps, marked strict xfail on its side only."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


from fs_security_world import PWNED, SECRET_LINE, World

# --------------------------------------------------------------------------- escapes

PathOf = Callable[[World], str]


@dataclass(frozen=True)
class Escape:
    id: str
    file: PathOf  # an existing outside file, reached through the escape (or a non-file form)
    dir: PathOf  # an outside directory, reached through the escape
    new: PathOf | None = None  # a path that does not exist yet, for write_file
    # "refuse": every tool must answer with an error.
    # "remap": an absolute host path; in virtual mode it means <root>/<path>, so reads find
    #   nothing (error), writes land inside the root, glob/grep find nothing.
    kind: str = "refuse"


def _c(s: str) -> PathOf:
    return lambda w: s


ESCAPES = [
    Escape("dotdot", _c("../outside/secret.txt"), _c("../outside"), _c("../outside.txt")),
    Escape("slash-dotdot", _c("/../outside/secret.txt"), _c("/../outside"), _c("/../outside.txt")),
    Escape("nested-dotdot", _c("/a/../../outside/secret.txt"), _c("/a/../../outside"), _c("/a/../../outside.txt")),
    Escape("tilde", _c("~/secret.txt"), _c("~"), _c("~/x")),
    Escape("backslash-dotdot", _c("..\\outside\\secret.txt"), _c("..\\outside"), _c("..\\outside.txt")),
    Escape("windows-drive", _c("C:\\x"), _c("C:\\")),
    Escape("windows-drive-fwd", _c("c:/outside/secret.txt"), _c("c:/outside")),
    Escape("unc", _c("\\\\server\\share\\x"), _c("\\\\server\\share")),
    Escape("nul", _c("/a\x00b"), _c("/a\x00b")),
    Escape("nul-suffix", _c("/in.txt\x00.md"), _c("/a\x00")),
    Escape("file-symlink", _c("/flink"), _c("/flink")),
    Escape("dir-symlink", _c("/dlink/secret.txt"), _c("/dlink"), _c("/dlink/new.txt")),
    Escape("relative-symlink", _c("/rel/secret.txt"), _c("/rel"), _c("/rel/new.txt")),
    Escape("deep-symlink", _c("/a/b/secret.txt"), _c("/a/b"), _c("/a/b/new.txt")),
    Escape("deeper-symlink", _c("/x/y/z/deep.txt"), _c("/x/y/z"), _c("/x/y/z/new.txt")),
    Escape("dangling-symlink", _c("/dangle"), _c("/dangle")),
    Escape(
        "host-absolute",
        lambda w: str(w.outside / "secret.txt"),
        lambda w: str(w.outside),
        lambda w: str(w.outside / "new.txt"),
        kind="remap",
    ),
    Escape("etc-passwd", _c("/etc/passwd"), _c("/etc"), kind="remap"),
]
SYMLINK_ESCAPES = [e for e in ESCAPES if e.id.endswith("symlink")]
# Escapes that stay refused with virtual_mode=False (see the non-virtual section).
NONVIRTUAL_REFUSED = [e for e in ESCAPES if e.kind == "refuse" and e.id != "unc" and not e.id.endswith("symlink")]

TOOLS = ["read_file", "write_file", "write_file-new", "edit_file", "delete", "ls", "glob", "grep"]


def tool_call(variant: str, esc: Escape, w: World) -> tuple[str, dict[str, Any]] | None:
    """The call of one tool variant carrying the escape; None when the variant does not apply."""
    if variant == "read_file":
        return "read_file", {"file_path": esc.file(w)}
    if variant == "write_file":
        return "write_file", {"file_path": esc.file(w), "content": PWNED}
    if variant == "write_file-new":
        return None if esc.new is None else ("write_file", {"file_path": esc.new(w), "content": PWNED})
    if variant == "edit_file":
        return "edit_file", {"file_path": esc.file(w), "old_string": SECRET_LINE, "new_string": PWNED}
    if variant == "delete":
        return "delete", {"file_path": esc.file(w)}
    if variant == "ls":
        return "ls", {"path": esc.dir(w)}
    if variant == "glob":
        return "glob", {"pattern": "*", "path": esc.dir(w)}
    if variant == "grep":
        return "grep", {"pattern": SECRET_LINE, "path": esc.dir(w), "output_mode": "content"}
    raise AssertionError(variant)


def expectation(esc: Escape, variant: str) -> str:
    """One of "error", "confined" (a write that must land inside the root, error or not), "no-leak"."""
    if esc.kind == "refuse":
        return "error"
    if variant.startswith("write_file"):
        return "confined"
    if variant in ("glob", "grep"):
        return "no-leak"
    return "error"


# --------------------------------------------------------------------------- deepagents' gaps

# Measured against deepagents 0.7.32 (<tmp> stands for the test's temporary directory).
_RAISES_OUTSIDE = (
    "deepagents: FilesystemBackend._resolve_path raises ValueError('Path:<tmp>/outside/... outside root "
    "directory: <tmp>/root'); read/write/edit/delete/ls catch only OSError/RuntimeError, so invoke() raises "
    "(the run stops, nothing is written; the exception text holds both host paths)"
)
_GLOB_LEAKS = (
    "deepagents refuses but leaks both host paths: "
    "'Error: glob failed: Path:<tmp>/outside outside root directory: <tmp>/root'"
)
_GREP_SILENT = (
    "deepagents' grep swallows the ValueError from _resolve_path and answers 'No matches found' "
    "(status success): refused, but not an error result"
)
_NUL_RAISES = "deepagents: invoke() raises ValueError('embedded null byte') (the run stops)"
_NUL_GLOB_SILENT = "deepagents (virtual_mode=False) answers 'No files found' (status success), not an error"
_UNC_WRITE = (
    "deepagents accepts '\\\\server\\share\\x' as the virtual path //server/share/x and writes "
    "<root>/server/share/x: confined, but no error ('Updated file //server/share/x')"
)
_UNC_WALK = (
    "deepagents treats the UNC path as the missing virtual dir //server/share: '{}' (status success), not an error"
)


def _ref_gaps() -> dict[str, str]:
    gaps: dict[str, str] = {}
    for esc in SYMLINK_ESCAPES:
        for variant in TOOLS:
            gaps[f"virtual-{esc.id}-{variant}"] = {"glob": _GLOB_LEAKS, "grep": _GREP_SILENT}.get(
                variant, _RAISES_OUTSIDE
            )
    for esc_id in ("nul", "nul-suffix"):
        for variant in ("read_file", "write_file", "edit_file", "delete", "ls"):
            gaps[f"virtual-{esc_id}-{variant}"] = _NUL_RAISES
        # ("Error: glob failed: embedded null byte" in virtual mode is an error result: fine.)
        gaps[f"virtual-{esc_id}-grep"] = _GREP_SILENT
        gaps[f"nonvirtual-{esc_id}-write_file"] = _NUL_RAISES
        gaps[f"nonvirtual-{esc_id}-glob"] = _NUL_GLOB_SILENT
        gaps[f"nonvirtual-{esc_id}-grep"] = _GREP_SILENT
    gaps["virtual-unc-write_file"] = _UNC_WRITE
    gaps["virtual-unc-glob"] = _UNC_WALK.format("No files found")
    gaps["virtual-unc-grep"] = _UNC_WALK.format("No matches found")
    return gaps


REF_GAPS: dict[str, str] = _ref_gaps()


def ref_gap(request: pytest.FixtureRequest, impl: str, key: str) -> None:
    """Mark a parameter xfail (strict) where the implementation misses the requirement."""
    if impl == "deepagents" and key in REF_GAPS:
        request.applymarker(pytest.mark.xfail(reason=REF_GAPS[key], strict=True))
