# Ported from deepagents 0.7.32 (MIT), deepagents/middleware/filesystem.py: FilesystemPermission, FsToolName, the tool
# description constants and the configuration half of FilesystemMiddleware (the Rust core provides the tools).
"""Filesystem middleware configuration, as `deepagents.middleware.filesystem` defines it.

`FilesystemMiddleware` here is a configuration holder: it validates its arguments
exactly like deepagents' middleware and stores them under the same attribute
names; the Rust core reads them and provides the filesystem tools itself.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from copy import copy
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Final, Literal

from deepagents_rs._glob import globmatch
from deepagents_rs.backends import CompositeBackend, StateBackend
from deepagents_rs.backends.composite import _route_for_path
from deepagents_rs.backends.protocol import BackendProtocol, SandboxBackendProtocol

__all__ = [
    "DELETE_TOOL_DESCRIPTION",
    "EDIT_FILE_TOOL_DESCRIPTION",
    "EXECUTE_TOOL_DESCRIPTION",
    "GLOB_TIMEOUT",
    "GLOB_TOOL_DESCRIPTION",
    "GREP_TOOL_DESCRIPTION",
    "LIST_FILES_TOOL_DESCRIPTION",
    "READ_FILE_TOOL_DESCRIPTION",
    "READ_FILE_VIDEO_TOOL_DESCRIPTION",
    "TOOLS_EXCLUDED_FROM_EVICTION",
    "WRITE_FILE_TOOL_DESCRIPTION",
    "FilesystemMiddleware",
    "FilesystemOperation",
    "FilesystemPermission",
    "FsToolName",
    "supports_execution",
]

FilesystemOperation = Literal["read", "write"]
"""Classification of filesystem tools as read-only or mutating."""

_DEFAULT_FS_TOOL_OPS: dict[str, FilesystemOperation] = {
    "ls": "read",
    "read_file": "read",
    "glob": "read",
    "grep": "read",
    "write_file": "write",
    "edit_file": "write",
    "delete": "write",
}
"""Default mapping from filesystem tool name to its operation category."""

_FILE_MUTATION_TOOLS: Final = frozenset({"write_file", "edit_file", "delete"})

FsToolName = Literal["ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep", "execute"]
"""Names of the built-in filesystem tools that can be passed to `FilesystemMiddleware(tools=...)`."""

_FS_TOOL_ORDER: tuple[str, ...] = ("ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep")
_ALL_FS_TOOL_NAMES: frozenset[str] = frozenset(_FS_TOOL_ORDER) | {"execute"}

GLOB_TIMEOUT = 10.0  # seconds
"""Outer deadline for the `glob` tool (kept above `FilesystemBackend`'s own walk budget)."""

# Tools whose results are never evicted to the filesystem (see deepagents for the rationale).
TOOLS_EXCLUDED_FROM_EVICTION = (
    "ls",
    "glob",
    "grep",
    "read_file",
    "edit_file",
    "write_file",
    "delete",
)

# The tool descriptions, verbatim (the Rust core's copies in src/middleware/filesystem/texts.rs are
# what the model is offered; these are the module constants deepagents exports).
LIST_FILES_TOOL_DESCRIPTION = """Lists all files in a directory.

This is useful for exploring the filesystem and finding the right file to read or edit.
You should almost ALWAYS use this tool before using the read_file or edit_file tools."""

_READ_FILE_TOOL_DESCRIPTION_TEMPLATE = """Reads a file from the filesystem. Assume any path the user provides is valid; reading a missing file returns an error.

Usage:
- {first_line}. Use `offset`/`limit` to page through large files instead of reading them whole.
- A status header, `@@ field | field | ... @@`, sits above the file content, and every line after it is verbatim file content. When content is truncated, there may be an explanation before the header. Never include the header when editing.
- Speculatively batch multiple `read_file` calls in one response when several files may be useful.
- An empty file returns a system-reminder warning in place of contents.
- Large tool results may be offloaded to a file; the tool message gives the path. Read that path here, paging with `offset`/`limit`.
- Images (`.png`, `.jpg`, etc.), audio, video, and PDFs return multimodal content blocks (https://docs.langchain.com/oss/python/langchain/messages#multimodal).
{multimodal_bullets}
- Always read a file before editing it."""
"""Shared `read_file` description body for the text-only and video-aware variants.

The two variants differ only in the `{first_line}` and `{multimodal_bullets}`
fields, kept in a single template so the common guidance cannot drift between
them.
"""

_IMAGE_PDF_PAGINATION_BULLET = (
    "- For images and PDFs, pagination via `offset`/`limit` is text-only - supply `file_path` only"
)
"""Multimodal bullet shared by both `read_file` descriptions (images/PDFs are not paginated)."""

READ_FILE_TOOL_DESCRIPTION = _READ_FILE_TOOL_DESCRIPTION_TEMPLATE.format(
    first_line="By default, it reads up to 100 lines starting from the beginning of the file",
    multimodal_bullets=_IMAGE_PDF_PAGINATION_BULLET,
)

READ_FILE_VIDEO_TOOL_DESCRIPTION = _READ_FILE_TOOL_DESCRIPTION_TEMPLATE.format(
    first_line="For text files, by default it reads up to 100 lines starting from the beginning of the file",
    multimodal_bullets=(
        f"{_IMAGE_PDF_PAGINATION_BULLET}\n"
        "- For videos, `offset`/`limit` are interpreted as seconds (default window 100 s; sampled at a fixed rate). Use smaller windows when you need more temporal detail."
    ),
)

EDIT_FILE_TOOL_DESCRIPTION = """Performs exact string replacements in files.

Usage:
- You must read the file before editing; this tool errors otherwise.
- Preserve the exact source indentation from the read output, and never include the read status header in old_string or new_string.
- Prefer editing an existing file over creating a new one.
- Only use emojis if the user explicitly requests it."""


WRITE_FILE_TOOL_DESCRIPTION = """Writes content to a file. Creates the file if it does not exist; replaces it entirely if it does.

Usage:
- Use this tool when you intend to create a new file or replace the whole file. You do not need to read the file first.
- Prefer to edit existing files (with the edit_file tool) over creating new ones when possible.
"""

DELETE_TOOL_DESCRIPTION = """Deletes a file or directory from the filesystem.

Usage:
- Permanently removes the file or directory at the given absolute path.
- Deleting a directory removes it and everything inside it, recursively. Prefer
  deleting a directory in one call over deleting each file individually.
- This cannot be undone, so only delete paths you are sure are no longer needed.
"""

GLOB_TOOL_DESCRIPTION = """Find files matching a glob pattern, returning absolute paths.

Supports `*` (any characters within a path segment), `**` (any directories), `?` (single character), `[abc]` (one character from a set), and `{a,b}` (alternatives), e.g. `*.py`, `src/**/*.py`, `*.{yml,yaml}`.

A pattern without `/` matches the file name at any depth under the search root (`*.py` matches `src/app/main.py`). A pattern containing `/` matches the search-root-relative path (`src/**/*.py`). A leading `/` anchors to the search root (`/*.py` matches only top-level Python files).

Leading-dot names are only matched when the pattern segment itself starts with `.` (use `.env`, or `.github/**/*.yml`). Because `**` will not descend into dot-directories, the bare form `*.yml` is *broader* than `**/*.yml` and is usually what you want."""

# Carries its own leading newline so the empty-string substitution below drops
# the whole line cleanly, with no blank line left behind.
_GREP_REGEX_EXECUTE_FALLBACK = "\n- If you genuinely need regex, use the execute tool with `rg '<regex>'` instead."

_GREP_TOOL_DESCRIPTION_TEMPLATE = """Search for a LITERAL text pattern across files (NOT regex).

The pattern is matched verbatim: regex metacharacters are ordinary characters, not operators. To match any of several strings, run a separate grep for each; `grep(pattern="foo|bar")` searches for the literal text "foo|bar", and `.*` or `\\.` match those characters literally.{execute_fallback}

Returns matching files or content per `output_mode`. Offloaded large tool results live under the artifacts root (`/large_tool_results/` by default); grep that directory to search them when you do not know the exact path."""

GREP_TOOL_DESCRIPTION = _GREP_TOOL_DESCRIPTION_TEMPLATE.format(execute_fallback=_GREP_REGEX_EXECUTE_FALLBACK)
_GREP_TOOL_DESCRIPTION_WITHOUT_EXECUTE = _GREP_TOOL_DESCRIPTION_TEMPLATE.format(execute_fallback="")

_EXECUTE_SEARCH_GUIDANCE = (
    "You MUST avoid using search commands like find and grep. Instead use the grep, glob tools to search. "
)
_EXECUTE_GREP_SEARCH_GUIDANCE = (
    "You MUST avoid using shell grep for searches. Instead use the grep tool to search text. "
)
_EXECUTE_GLOB_SEARCH_GUIDANCE = (
    "You MUST avoid using shell find for searches. Instead use the glob tool to find files. "
)
_EXECUTE_GLOB_BAD_EXAMPLE = "\n    - execute(command=\"find . -name '*.py'\")  # Use glob tool instead"
_EXECUTE_GREP_BAD_EXAMPLE = "\n    - execute(command=\"grep -r 'pattern' .\")  # Use grep tool instead"

_EXECUTE_TOOL_DESCRIPTION_TEMPLATE = """Executes a shell command in an isolated sandbox and returns combined stdout/stderr with the exit code (truncated if very large).

Usage:
- Quote paths containing spaces (e.g. cd "/path/with spaces").
- Chain commands with ';' or '&&' (use '&&' when a command depends on the previous); do not use newlines except inside quoted strings.
- Use absolute paths and avoid `cd` so the working directory stays stable; use the optional timeout to override the default.
- {search_guidance}Use read_file rather than cat/head/tail.{glob_bad_example}{grep_bad_example}

Only available on backends implementing SandboxBackendProtocol; otherwise it returns an error."""

EXECUTE_TOOL_DESCRIPTION = _EXECUTE_TOOL_DESCRIPTION_TEMPLATE.format(
    search_guidance=_EXECUTE_SEARCH_GUIDANCE,
    glob_bad_example=_EXECUTE_GLOB_BAD_EXAMPLE,
    grep_bad_example=_EXECUTE_GREP_BAD_EXAMPLE,
)


@dataclass
class FilesystemPermission:
    """A single access rule for filesystem operations.

    With `FilesystemBackend` (directly or behind a `CompositeBackend` route),
    rules are matched against both the requested path and its symlink-resolved
    target; a deny on either blocks the call.
    """

    operations: list[FilesystemOperation]
    paths: list[str]
    mode: Literal["allow", "deny", "interrupt"] = "allow"
    """Effect when a tool call matches this rule:

    - `"allow"` (default): the call proceeds.
    - `"deny"`: the tool returns a permission-denied error.
    - `"interrupt"`: the call is paused for human approval.

        Best paired with patterns that have a literal leading anchor (e.g.,
        `/secrets/**`, `/projects/*/secrets/**`). Bulk tools
        (`ls`/`glob`/`grep`) fire the interrupt based on whether their
        search subtree could overlap the rule's anchored prefix, so a fully
        unanchored pattern (`/**/secrets`) collapses to `/` and
        conservatively over-fires for any bulk call.
    """

    def __post_init__(self) -> None:
        """Validate permission path patterns."""
        for path in self.paths:
            if not path.startswith("/"):
                msg = f"Permission path must start with '/': {path!r}"
                raise ValueError(msg)
            parts = PurePosixPath(path.replace("\\", "/")).parts
            if ".." in parts:
                msg = f"Permission path must not contain '..': {path!r}"
                raise ValueError(msg)
            if "~" in parts:
                msg = f"Permission path must not contain '~': {path!r}"
                raise NotImplementedError(msg)


def _check_fs_permission(
    rules: list[FilesystemPermission],
    operation: FilesystemOperation,
    path: str,
) -> Literal["allow", "deny", "interrupt"]:
    """Return the mode of the first rule matching `operation` on `path` (`"allow"` when none does)."""
    for rule in rules:
        if operation not in rule.operations:
            continue
        if any(globmatch(path, pattern) for pattern in rule.paths):
            return rule.mode
    return "allow"


def _all_paths_scoped_to_routes(
    rules: list[FilesystemPermission],
    backend: BackendProtocol,
) -> bool:
    if not isinstance(backend, CompositeBackend):
        return False

    route_prefixes = list(backend.routes.keys())
    if not route_prefixes:
        return False

    for rule in rules:
        for path in rule.paths:
            if not any(path.startswith(prefix) for prefix in route_prefixes):
                return False
    return True


def supports_execution(backend: BackendProtocol) -> bool:
    """Check if a backend supports command execution.

    For `CompositeBackend`, checks if the default backend supports execution.
    For other backends, checks if they implement `SandboxBackendProtocol`.

    Args:
        backend: The backend to check.

    Returns:
        True if the backend supports execution, False otherwise.
    """
    if isinstance(backend, CompositeBackend):
        return isinstance(backend.default, SandboxBackendProtocol)
    return isinstance(backend, SandboxBackendProtocol)


def _uses_state_backend(backend: BackendProtocol) -> bool:
    """Return whether a backend stores any files in agent state."""
    if isinstance(backend, StateBackend):
        return True
    if not isinstance(backend, CompositeBackend):
        return False
    return _uses_state_backend(backend.default) or any(_uses_state_backend(route) for route in backend.routes.values())


def _routes_to_state_backend(backend: BackendProtocol, path: str) -> bool:
    """Return whether `path` resolves to a `StateBackend` through composite routing."""
    if isinstance(backend, CompositeBackend):
        routed, routed_path, _ = _route_for_path(
            default=backend.default, sorted_routes=backend.sorted_routes, path=path
        )
        return _routes_to_state_backend(routed, routed_path)
    return isinstance(backend, StateBackend)


def _deprecation_category() -> type[Warning]:
    try:
        from langchain_core._api.deprecation import LangChainDeprecationWarning
    except ImportError:
        return DeprecationWarning
    return LangChainDeprecationWarning


class FilesystemMiddleware:
    """Configuration of the filesystem tools (`ls`, `read_file`, `write_file`, `edit_file`,
    `delete`, `glob`, `grep` and, with an execution-capable backend, `execute`).

    Same constructor, defaults and validation as deepagents' `FilesystemMiddleware`;
    every setting is stored under deepagents' attribute name. The tools themselves are
    provided by the Rust core, so `tools` is empty here.

    Args:
        backend: Backend for file storage and optional execution. Defaults to
            `StateBackend()` (ephemeral storage in agent state).
        system_prompt: Optional custom system prompt override.
        custom_tool_descriptions: Optional custom tool descriptions override.
        tool_token_limit_before_evict: Token limit before evicting a tool result to the filesystem.
        human_message_token_limit_before_evict: Token limit before evicting a HumanMessage.
        max_execute_timeout: Maximum per-command timeout override for `execute`, in seconds.
        grep_max_count: Default total cap on grep matches (`None` disables it).
        tools: Allowlist of tool names (`"all"` or `None` for all); must include `read_file`.
        offload_binary_content: Keep binary `read_file` content and inline media out of history.
        permissions: Filesystem rules enforced by the tools.
        _permissions: Deprecated since `0.7.31`; use `permissions`.
    """

    def __init__(
        self,
        *,
        backend: BackendProtocol | None = None,
        system_prompt: str | None = None,
        custom_tool_descriptions: Mapping[str, str] | None = None,
        tool_token_limit_before_evict: int | None = 20000,
        human_message_token_limit_before_evict: int | None = 50000,
        max_execute_timeout: int = 3600,
        grep_max_count: int | None = 1000,
        tools: list[FsToolName] | Literal["all"] | None = None,
        offload_binary_content: bool = False,
        permissions: list[FilesystemPermission] | None = None,
        _permissions: list[FilesystemPermission] | None = None,
    ) -> None:
        """Initialize the filesystem middleware configuration."""
        if permissions is not None and _permissions is not None:
            msg = "Pass only permissions, not both permissions and _permissions."
            raise ValueError(msg)
        if _permissions is not None:
            warnings.warn(
                "`FilesystemMiddleware(_permissions=...)` was deprecated in deepagents 0.7.31 and will be "
                "removed in 0.9.0. Use FilesystemMiddleware(permissions=...) instead.",
                category=_deprecation_category(),
                stacklevel=2,
            )
            permissions = _permissions
        if isinstance(tools, list) and "read_file" not in tools:
            msg = "read_file must be included in tools; it is required by FilesystemMiddleware"
            raise ValueError(msg)
        if max_execute_timeout <= 0:
            msg = f"max_execute_timeout must be positive, got {max_execute_timeout}"
            raise ValueError(msg)
        if grep_max_count is not None and grep_max_count <= 0:
            msg = f"grep_max_count must be positive or None, got {grep_max_count}"
            raise ValueError(msg)
        self.backend: BackendProtocol = backend if backend is not None else StateBackend()
        if callable(self.backend) and not isinstance(self.backend, BackendProtocol):
            msg = (
                "backend must be an initialized backend instance. Backend factories "
                "were removed in deepagents 0.7; pass StateBackend(), "
                "CompositeBackend(...), or another BackendProtocol instance instead."
            )
            raise TypeError(msg)
        self._set_permissions(permissions)

        artifacts_root = self.backend.artifacts_root if isinstance(self.backend, CompositeBackend) else "/"
        _root = artifacts_root.rstrip("/")
        self._large_tool_results_prefix = f"{_root}/large_tool_results"
        self._conversation_history_prefix = f"{_root}/conversation_history"
        self._blobs_prefix = f"{_root}/blobs"
        if offload_binary_content and _routes_to_state_backend(self.backend, f"{self._blobs_prefix}/"):
            msg = (
                f"`offload_binary_content` has no effect: `{self._blobs_prefix}/` routes to a `StateBackend`, "
                "which keeps files in checkpointed state."
            )
            warnings.warn(msg, stacklevel=2)
            offload_binary_content = False
        self._offload_binary_content = offload_binary_content

        self._custom_system_prompt = system_prompt
        self._custom_tool_descriptions: dict[str, str] | Mapping[str, str] = custom_tool_descriptions or {}
        self._tool_token_limit_before_evict = tool_token_limit_before_evict
        self._human_message_token_limit_before_evict = human_message_token_limit_before_evict
        self._max_execute_timeout = max_execute_timeout
        self._grep_max_count = grep_max_count
        if isinstance(tools, list):
            self._enabled_tools: frozenset[str] | None = frozenset(tools)
        elif tools == "all":
            self._enabled_tools = frozenset(_ALL_FS_TOOL_NAMES)
        else:  # None -- user did not specify, defaults to all tools opted-in
            self._enabled_tools = None

        # The Rust core provides the tools; nothing is bound here.
        self.tools: list[Any] = []

    @property
    def name(self) -> str:
        """The middleware name (the class name, as `AgentMiddleware.name`)."""
        return self.__class__.__name__

    def _with_permissions(self, permissions: list[FilesystemPermission]) -> FilesystemMiddleware:
        """Copy the middleware with agent-local rules."""
        configured = copy(self)
        configured._set_permissions(permissions)
        configured.tools = []
        return configured

    def _set_permissions(self, permissions: list[FilesystemPermission] | None) -> None:
        """Validate and copy rules against this middleware's backend."""
        if (
            permissions
            and supports_execution(self.backend)
            and not _all_paths_scoped_to_routes(permissions, self.backend)
        ):
            msg = (
                "FilesystemMiddleware does not yet support permissions with backends that "
                "provide command execution (SandboxBackendProtocol). Tool-level permissions "
                "for the execute tool are not implemented. Either remove permissions or use "
                "a backend without execution support."
            )
            raise NotImplementedError(msg)
        self._permissions: list[FilesystemPermission] = list(permissions or [])


def _route_host_path_prompt(backend: BackendProtocol) -> str:
    from deepagents_rs.backends.composite import CompositeBackend
    from deepagents_rs.backends.filesystem import FilesystemBackend
    from deepagents_rs.backends.local_shell import LocalShellBackend

    """Build a prompt section mapping virtual route paths to host shell paths.

    `execute` runs on the default backend's shell, so virtual paths (e.g.
    `/common/`) may not exist there. Instead of rewriting shell commands, provide
    the model with prefix-substitution mappings so it can generate correct commands
    directly.

    A route exposes a usable host path only when its files live on the same
    filesystem the default's shell runs in, which requires the default to be a
    `LocalShellBackend` (its shell runs on the local host). For such a default, a
    `FilesystemBackend` route maps to a host path based on its mode:

    - virtual mode: the prefix maps to the backend's host root, `route.cwd`
        (e.g. `/common/` -> `/data/`, so `/common/x` is `/data/x` on the host).
    - non-virtual mode: the prefix is stripped and the remaining absolute path is
        used as-is (`root_dir` is ignored), i.e. the prefix maps to the filesystem
        root `/` (e.g. `/legacy/x` is `/x`).

    A remote/sandbox default runs its shell in a separate filesystem, so a local
    `FilesystemBackend` route is not reachable from it. Those routes, along with
    store-backed routes, have no host path mapping and must be accessed through the
    file tools instead.

    Returns an empty string if there are no routes to describe.
    """
    if not isinstance(backend, CompositeBackend):
        return ""

    # Host mappings are only valid when the default's shell shares the local
    # filesystem with the routes (LocalShellBackend). For a remote/sandbox
    # default, no local filesystem route is reachable from the shell.
    default_uses_local_shell = isinstance(backend.default, LocalShellBackend)

    # (virtual_prefix, host_prefix) pairs. A host_prefix of "/" means the virtual
    # prefix is stripped down to the filesystem root.
    host_mappings: list[tuple[str, str]] = []
    no_host_routes: list[str] = []
    for route_prefix, route_backend in backend.sorted_routes:
        if not (default_uses_local_shell and isinstance(route_backend, FilesystemBackend)):
            no_host_routes.append(route_prefix)
        elif route_backend.virtual_mode:
            # Virtual mode: prefix maps to the backend's host root directory.
            host_mappings.append((route_prefix, str(route_backend.cwd)))
        else:
            # Non-virtual mode: prefix is stripped, remaining absolute path used
            # as-is -> the prefix maps to the filesystem root.
            host_mappings.append((route_prefix, "/"))

    if not host_mappings and not no_host_routes:
        return ""

    def _norm(prefix: str) -> str:
        """Ensure a trailing slash so prefix substitution composes for subpaths."""
        return prefix if prefix.endswith("/") else f"{prefix}/"

    def _mapping_line(virtual_prefix: str, host_prefix: str) -> str:
        # Normalize both sides to end with "/" so replacing the virtual prefix with
        # the host prefix yields a correct host path for nested paths.
        virtual = _norm(virtual_prefix)
        host = _norm(host_prefix)
        example = f"`{virtual}dir/x.py` -> `{host}dir/x.py`"
        return f"- `{virtual}` -> `{host}` (e.g. {example})"

    lines = [
        "## Shell paths vs. virtual paths",
        "",
        "The `execute` tool runs commands in the host shell and can only access files that exist on the host filesystem.",
        "",
        "Some paths returned by the file tools are virtual mounts:",
        "",
        "- If a virtual mount has a host path mapping, replace its virtual prefix with the host prefix when running shell commands.",
        (
            "- If a virtual mount does not have a host path mapping, it is not accessible "
            "from the shell. Use the file tools listed above to interact with those files."
        ),
        "",
        "Do not assume that a path returned by a file tool can be used directly in a shell command.",
    ]

    if host_mappings:
        lines.append("")
        lines.append("Host path mappings:")
        lines.extend(_mapping_line(virtual_prefix, host_prefix) for virtual_prefix, host_prefix in host_mappings)

    if no_host_routes:
        lines.append("")
        lines.append("Virtual mounts without a host path mapping (not accessible from the shell):")
        lines.extend(f"- `{prefix}`" for prefix in no_host_routes)

    return "\n".join(lines)
