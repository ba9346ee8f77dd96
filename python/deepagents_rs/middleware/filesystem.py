"""`deepagents.middleware.filesystem`'s public face: permission rules, tool names and texts, and
the `FilesystemMiddleware` configuration.

The filesystem tools themselves run in the Rust core. `FilesystemMiddleware` here only checks
its arguments the way deepagents does and keeps them under deepagents' attribute names, where
the core picks them up (`deepagents_rs._backend_adapter.fs_config`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from copy import copy
from dataclasses import dataclass
from typing import Any, Literal, get_args

from deepagents_rs._core import FS_TOOL_PARAMETERS, LIMITS, media_after_tool_results_order
from deepagents_rs._core import GLOB_TIMEOUT as _CORE_GLOB_TIMEOUT
from deepagents_rs._glob import globmatch
from deepagents_rs.backends import CompositeBackend, StateBackend
from deepagents_rs.backends.composite import _route_for_path
from deepagents_rs.backends.protocol import (
    BackendProtocol,
    FileData,  # noqa: F401 - deepagents' module has it too
    SandboxBackendProtocol,
)
from deepagents_rs.backends.utils import MAX_VIDEO_INPUT_BYTES  # noqa: F401 - deepagents' module has it too
from deepagents_rs.middleware._core_face import CoreEntryFace, TakesContextAndResponseTypes, TracePolicyOnFirstUse
from deepagents_rs.middleware._filesystem_texts import (  # noqa: F401 - deepagents' module has the private ones
    _EXECUTE_TOOL_DESCRIPTION_WITH_GLOB_ONLY,
    _EXECUTE_TOOL_DESCRIPTION_WITH_GREP_ONLY,
    _EXECUTE_TOOL_DESCRIPTION_WITHOUT_SEARCH,
    _GREP_TOOL_DESCRIPTION_WITHOUT_EXECUTE,
    BACKEND_FACTORY_REMOVED,
    DELETE_TOOL_DESCRIPTION,
    EDIT_FILE_TOOL_DESCRIPTION,
    EMPTY_CONTENT_WARNING,
    EXECUTE_TOOL_DESCRIPTION,
    GLOB_PATHLESS_DENIED_HINT,
    GLOB_TOOL_DESCRIPTION,
    GLOB_TRUNCATION_NOTE,
    GLOB_UNREADABLE_NOTE,
    GREP_GLOB_DESCRIPTION,
    GREP_OUTPUT_MODE_DESCRIPTION,
    GREP_REGEX_EXECUTE_FALLBACK,
    GREP_TOOL_DESCRIPTION,
    GREP_TRUNCATION_NOTE,
    LIST_FILES_TOOL_DESCRIPTION,
    NO_LINES_REQUESTED_WARNING,
    OFFLOAD_TO_STATE_HAS_NO_EFFECT,
    PERMISSIONS_WITH_EXECUTION,
    PRIVATE_PERMISSIONS_DEPRECATED,
    READ_FILE_TOOL_DESCRIPTION,
    READ_FILE_TRUNCATION_MSG,
    READ_FILE_VIDEO_TOOL_DESCRIPTION,
    ROUTE_HOST_PATH_MAPPING_LINE,
    ROUTE_HOST_PATH_MAPPINGS_HEADING,
    ROUTE_HOST_PATH_PROMPT_INTRO,
    ROUTE_NO_HOST_MAPPING_HEADING,
    ROUTE_NO_HOST_MAPPING_LINE,
    WRITE_FILE_TOOL_DESCRIPTION,
)
from deepagents_rs.middleware._filesystem_visibility import ToolVisibility
from deepagents_rs.middleware._permission_results import (  # noqa: F401 - deepagents' module has them
    _apply_permissions_to_glob_results,
    _filter_paths_by_permission,
    _find_delete_deny_patterns,
)
from deepagents_rs.middleware._video import (
    VideoExtractionError,  # noqa: F401 - deepagents' module has it too
    extract_video_frames,  # noqa: F401 - the core's video reads call it from here
    video_dependencies_available,
)

__all__ = [
    "DEFAULT_READ_LIMIT",
    "DEFAULT_READ_OFFSET",
    "DELETE_TOOL_DESCRIPTION",
    "EDIT_FILE_TOOL_DESCRIPTION",
    "EMPTY_CONTENT_WARNING",
    "EXECUTE_TOOL_DESCRIPTION",
    "GLOB_PATHLESS_DENIED_HINT",
    "GLOB_TIMEOUT",
    "GLOB_TOOL_DESCRIPTION",
    "GLOB_TRUNCATION_NOTE",
    "GLOB_UNREADABLE_NOTE",
    "GREP_GLOB_DESCRIPTION",
    "GREP_OUTPUT_MODE_DESCRIPTION",
    "GREP_TOOL_DESCRIPTION",
    "GREP_TRUNCATION_NOTE",
    "LIST_FILES_TOOL_DESCRIPTION",
    "NO_LINES_REQUESTED_WARNING",
    "READ_FILE_TOOL_DESCRIPTION",
    "READ_FILE_TRUNCATION_MSG",
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
"""Whether a filesystem tool only looks (`read`) or changes something (`write`)."""

FsToolName = Literal["ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep", "execute"]
"""A built-in filesystem tool, as `FilesystemMiddleware(tools=...)` names it."""

_ALL_FS_TOOL_NAMES: frozenset[str] = frozenset(get_args(FsToolName))

NUM_CHARS_PER_TOKEN: int = LIMITS["NUM_CHARS_PER_TOKEN"]
"""Characters counted as one token where a result's size is weighed against a token limit."""

GLOB_TIMEOUT: float = _CORE_GLOB_TIMEOUT
"""Seconds the `glob` tool waits; above `FilesystemBackend`'s own walk budget, so that one ends
first. The core reads it here at each call, so a new value applies to tools already made."""

DEFAULT_READ_OFFSET: int = LIMITS["DEFAULT_READ_OFFSET"]
"""The line `read_file` starts at when the call names none."""

DEFAULT_READ_LIMIT: int = LIMITS["DEFAULT_READ_LIMIT"]
"""How many lines `read_file` returns when the call names no `limit`."""

TOOLS_EXCLUDED_FROM_EVICTION = ("ls", "glob", "grep", "read_file", "edit_file", "write_file", "delete")
"""Tools whose results are never offloaded to a file, however long they are."""

_PermissionMode = Literal["allow", "deny", "interrupt"]


def _validate_rule_path(pattern: str) -> None:
    """Refuse rule paths that are relative or could step outside the tree they name."""
    if not pattern.startswith("/"):
        raise ValueError(f"Permission path must start with '/': {pattern!r}")
    from pathlib import PurePosixPath  # here: pathlib loads urllib, `import deepagents_rs` need not

    segments = PurePosixPath(pattern.replace("\\", "/")).parts
    if ".." in segments:
        raise ValueError(f"Permission path must not contain '..': {pattern!r}")
    if "~" in segments:
        raise NotImplementedError(f"Permission path must not contain '~': {pattern!r}")


@dataclass
class FilesystemPermission:
    """One access rule: what `mode` applies to `operations` on paths matching any of `paths`.

    Rules are tried in order and the first that matches decides. `paths` are
    absolute glob patterns. Behind a `FilesystemBackend` a path is checked as
    requested and as its symlinks resolve; a deny on either refuses the call.
    """

    operations: list[FilesystemOperation]
    paths: list[str]
    mode: _PermissionMode = "allow"
    """`"allow"` lets a matching call through, `"deny"` makes the tool answer with a
    permission error, `"interrupt"` pauses the call for a human's decision.

    For `"interrupt"`, anchor patterns with a literal prefix (`/secrets/**`):
    `ls`, `glob` and `grep` interrupt when their search tree could overlap that
    prefix, and a pattern with no literal prefix (`/**/secrets`) overlaps every
    tree, so it interrupts every such call.
    """

    def __post_init__(self) -> None:
        """Check every path pattern when the rule is made."""
        for pattern in self.paths:
            _validate_rule_path(pattern)


def _check_fs_permission(
    rules: list[FilesystemPermission],
    operation: FilesystemOperation,
    path: str,
) -> _PermissionMode:
    """The mode of the first rule covering `operation` on `path`; what no rule covers is allowed."""
    deciding = (
        rule.mode
        for rule in rules
        if operation in rule.operations and any(globmatch(path, pattern) for pattern in rule.paths)
    )
    return next(deciding, "allow")


def _all_paths_scoped_to_routes(rules: list[FilesystemPermission], backend: BackendProtocol) -> bool:
    """Whether `backend` is a composite with routes and every rule path lies under one of them.

    Such rules never reach the default backend, so they can coexist with its shell.
    """
    if not isinstance(backend, CompositeBackend) or not backend.routes:
        return False
    prefixes = tuple(backend.routes)
    return all(path.startswith(prefixes) for rule in rules for path in rule.paths)


def supports_execution(backend: BackendProtocol) -> bool:
    """Whether `backend` can run shell commands.

    A `CompositeBackend` runs them on its default backend, so that one decides;
    any other backend must implement `SandboxBackendProtocol`.
    """
    executor = backend.default if isinstance(backend, CompositeBackend) else backend
    return isinstance(executor, SandboxBackendProtocol)


def _routes_to_state_backend(backend: BackendProtocol, path: str) -> bool:
    """Whether `path`, followed through any composite routing, lands on a `StateBackend`."""
    while isinstance(backend, CompositeBackend):
        backend, path, _ = _route_for_path(default=backend.default, sorted_routes=backend.sorted_routes, path=path)
    return isinstance(backend, StateBackend)


def _uses_state_backend(backend: BackendProtocol) -> bool:
    """Whether `backend`, or a backend a composite routes to, is a `StateBackend`."""
    if isinstance(backend, StateBackend):
        return True
    if isinstance(backend, CompositeBackend):
        return _uses_state_backend(backend.default) or any(_uses_state_backend(b) for b in backend.routes.values())
    return False


def _deprecation_category() -> type[Warning]:
    """langchain_core's deprecation warning class when it is installed (deepagents warns with it)."""
    try:
        from deepagents_rs._langchain_private import LangChainDeprecationWarning
    except ModuleNotFoundError:
        return DeprecationWarning
    return LangChainDeprecationWarning


def _merge_permission_args(
    permissions: list[FilesystemPermission] | None,
    legacy: list[FilesystemPermission] | None,
) -> list[FilesystemPermission] | None:
    """Fold the deprecated `_permissions` argument into `permissions` (warning about it)."""
    if legacy is None:
        return permissions
    if permissions is not None:
        raise ValueError("Pass only permissions, not both permissions and _permissions.")
    warnings.warn(PRIVATE_PERMISSIONS_DEPRECATED, category=_deprecation_category(), stacklevel=3)
    return legacy


def _check_limits(tools: object, max_execute_timeout: int, grep_max_count: int | None) -> None:
    if isinstance(tools, list) and "read_file" not in tools:
        raise ValueError("read_file must be included in tools; it is required by FilesystemMiddleware")
    if max_execute_timeout <= 0:
        raise ValueError(f"max_execute_timeout must be positive, got {max_execute_timeout}")
    if grep_max_count is not None and grep_max_count <= 0:
        raise ValueError(f"grep_max_count must be positive or None, got {grep_max_count}")


def _enabled_tool_names(tools: list[FsToolName] | Literal["all"] | None) -> frozenset[str] | None:
    """The allowlisted tool names; `None` (no list given) means every tool."""
    if isinstance(tools, list):
        return frozenset(tools)
    return _ALL_FS_TOOL_NAMES if tools == "all" else None


class _StateSchema:
    """deepagents' state schema of the middleware, made when first read (it needs LangChain):
    `files` when the backend given to `__init__` keeps files in the state, the offloaded
    payloads' key always. On the class, LangChain's default (deepagents sets it per instance)."""

    def __get__(self, obj: Any, owner: type) -> Any:
        if obj is None:
            from langchain.agents.middleware.types import AgentMiddleware

            return AgentMiddleware.state_schema
        from . import _filesystem_state as states

        return states._FilesystemBlobPayloadState if obj._state_backend_given else states._BlobPayloadState


class FilesystemMiddleware(ToolVisibility, TakesContextAndResponseTypes, CoreEntryFace):
    """The filesystem tools: `ls`, `read_file`, `write_file`, `edit_file`, `delete`, `glob`,
    `grep`, and `execute` when the backend has a shell.

    Takes deepagents' arguments with its defaults and refuses what it refuses. In a
    deepagents_rs agent the core builds the tools from these settings; in LangChain's
    `create_agent` (or called directly) `tools`, `wrap_model_call` and `wrap_tool_call` run
    the core's entry, a state backend's files read from and written to the graph's `files`.

    Args:
        backend: Where files live (and commands run, for a sandbox). `StateBackend()`
            by default: files in agent state, for one thread.
        system_prompt: Replaces the filesystem section of the system prompt.
        custom_tool_descriptions: Replacement descriptions, by tool name.
        tool_token_limit_before_evict: Tool results longer than this many tokens are
            offloaded to a file (`None`: never).
        human_message_token_limit_before_evict: The same for user messages.
        max_execute_timeout: Largest per-command timeout `execute` accepts, in seconds.
        grep_max_count: Matches `grep` returns at most unless the call asks
            otherwise (`None`: no cap).
        tools: The tools to offer (`"all"` or `None`: all); a list must name `read_file`.
        offload_binary_content: Keep binary `read_file` results and inline media
            out of the message history (ignored when `blobs/` is in agent state).
        permissions: The access rules the tools enforce.
        _permissions: The same, under its deprecated name (since `0.7.31`).
    """

    def __init__(
        self, *,
        backend: BackendProtocol | None = None,
        system_prompt: str | None = None, custom_tool_descriptions: Mapping[str, str] | None = None,
        tool_token_limit_before_evict: int | None = 20000, human_message_token_limit_before_evict: int | None = 50000,
        max_execute_timeout: int = 3600, grep_max_count: int | None = 1000,
        tools: list[FsToolName] | Literal["all"] | None = None, offload_binary_content: bool = False,
        permissions: list[FilesystemPermission] | None = None, _permissions: list[FilesystemPermission] | None = None,
    ) -> None:  # fmt: skip
        """Check and keep the settings."""
        permissions = _merge_permission_args(permissions, _permissions)
        _check_limits(tools, max_execute_timeout, grep_max_count)
        self.backend: BackendProtocol = StateBackend() if backend is None else backend
        # A class (or other callable) that is no backend is a pre-0.7 backend factory.
        if callable(self.backend) and not isinstance(self.backend, BackendProtocol):
            raise TypeError(BACKEND_FACTORY_REMOVED)
        self._state_backend_given = _uses_state_backend(self.backend)
        self._set_permissions(permissions)

        root = (self.backend.artifacts_root if isinstance(self.backend, CompositeBackend) else "/").rstrip("/")
        self._large_tool_results_prefix = f"{root}/large_tool_results"
        self._conversation_history_prefix = f"{root}/conversation_history"
        self._blobs_prefix = f"{root}/blobs"
        # Offloading blobs into agent state would keep them in the checkpoints anyway.
        if offload_binary_content and _routes_to_state_backend(self.backend, f"{self._blobs_prefix}/"):
            warnings.warn(OFFLOAD_TO_STATE_HAS_NO_EFFECT.format(blobs=self._blobs_prefix), stacklevel=2)
            offload_binary_content = False
        self._offload_binary_content = offload_binary_content

        self._custom_system_prompt = system_prompt
        self._custom_tool_descriptions: Mapping[str, str] = custom_tool_descriptions or {}
        self._tool_token_limit_before_evict = tool_token_limit_before_evict
        self._human_message_token_limit_before_evict = human_message_token_limit_before_evict
        self._max_execute_timeout = max_execute_timeout
        self._grep_max_count = grep_max_count
        self._enabled_tools: frozenset[str] | None = _enabled_tool_names(tools)
        # Asked once, as deepagents asks when it makes the tools: with the `[video]` extra,
        # `read_file` samples videos and describes its `offset`/`limit` as seconds.
        self._video_enabled = video_dependencies_available()

    trace_policy = TracePolicyOnFirstUse()
    state_schema = _StateSchema()

    @property
    def tools(self) -> list[Any]:
        """The enabled tools as LangChain tools, run by the core (made when first asked for:
        they need LangChain)."""
        made = self.__dict__.get("_tools")
        if made is None:
            from ._filesystem_call import core_tools

            made = self.__dict__["_tools"] = core_tools(self)
        return made

    @tools.setter
    def tools(self, value: list[Any]) -> None:
        self.__dict__["_tools"] = value

    @property
    def _uses_state(self) -> bool:
        """Whether the backend (or a route of it) keeps files in the agent state."""
        return _uses_state_backend(self.backend)

    def _with_permissions(self, permissions: list[FilesystemPermission]) -> FilesystemMiddleware:
        """A copy of this middleware enforcing `permissions` (an agent's own rules)."""
        configured = copy(self)
        configured._set_permissions(permissions)
        for made in ("_tools", "_entry_calls"):
            configured.__dict__.pop(made, None)
        return configured

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        """The configuration the core builds the filesystem entry from."""
        from deepagents_rs._backend_adapter import fs_config

        return {"kind": "filesystem", **fs_config(self.backend, None, self, store)}

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        """`handler` on the request with the tools the backend cannot serve (`execute`,
        `delete`) left out, grep's and execute's descriptions fitted to what is left, the
        custom system prompt (and the routes' host paths, with `execute`) added, a large
        last user message moved to a file; the response with the state writes that go
        with it."""
        from ._entry_call import wrap
        from ._filesystem_call import STATE_KEYS, tool_of

        return wrap(self, request, handler, STATE_KEYS, (self._entry(request), tool_of(self, request)))

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        """`wrap_model_call` with an async `handler`."""
        from ._entry_call import awrap
        from ._filesystem_call import STATE_KEYS, tool_of

        return await awrap(self, request, handler, STATE_KEYS, (self._entry(request), tool_of(self, request)))

    def _entry(self, request: Any) -> Any:
        from ._entry_call import entry

        return entry(self, getattr(request, "runtime", None))

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        """Refuses a second write to one path within one AI message; else `handler`'s result,
        with a `read_file` result's payloads offloaded (`offload_binary_content`) and a large
        result of a tool not in `TOOLS_EXCLUDED_FROM_EVICTION` moved to a file."""
        from ._filesystem_call import _config_of, after_tool, refusal

        refused = refusal(self, request)
        if refused is not None:
            return refused
        return after_tool(self, request.tool_call["name"], handler(request), _config_of(request))

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        """`wrap_tool_call` with an async `handler`."""
        from ._filesystem_call import _config_of, aafter_tool, refusal

        refused = refusal(self, request)
        if refused is not None:
            return refused
        return await aafter_tool(self, request.tool_call["name"], await handler(request), _config_of(request))

    def _intercept_large_tool_result(self, tool_result: Any) -> Any:
        """`tool_result` (a `ToolMessage`, or a `Command`'s tool messages) with a result too
        large for `tool_token_limit_before_evict` moved to a file and replaced by a preview."""
        from ._filesystem_call import _current_config, after_tool

        return after_tool(self, "", tool_result, _current_config())

    async def _aintercept_large_tool_result(self, tool_result: Any) -> Any:
        """`_intercept_large_tool_result` with the backend called asynchronously."""
        from ._filesystem_call import _current_config, aafter_tool

        return await aafter_tool(self, "", tool_result, _current_config())

    def _set_permissions(self, permissions: list[FilesystemPermission] | None) -> None:
        """Keep a copy of the rules, refusing them where `execute` could get around them."""
        if (
            permissions
            and supports_execution(self.backend)
            and not _all_paths_scoped_to_routes(permissions, self.backend)
        ):
            raise NotImplementedError(PERMISSIONS_WITH_EXECUTION)
        self._permissions: list[FilesystemPermission] = list(permissions or [])


def _host_prefix(route: BackendProtocol) -> str | None:
    """Where a route's files sit on the host, for a shell on that host; `None` if it has no files there.

    A virtual-mode `FilesystemBackend` roots its paths at `cwd`; a non-virtual
    one uses paths as given, so its route prefix just drops away (host `/`).
    """
    from deepagents_rs.backends.filesystem import FilesystemBackend

    if not isinstance(route, FilesystemBackend):
        return None
    return str(route.cwd) if route.virtual_mode else "/"


def _with_slash(prefix: str) -> str:
    return prefix if prefix.endswith("/") else f"{prefix}/"


def _route_host_path_prompt(backend: BackendProtocol) -> str:
    """The system-prompt section telling the model which virtual route paths its shell can reach.

    `execute` runs on the composite's default backend, where route prefixes
    (say `/common/`) do not exist. Only when that default is a
    `LocalShellBackend` do `FilesystemBackend` routes share the shell's
    filesystem; those get a prefix substitution, every other route is listed as
    reachable through the file tools only. Empty when `backend` has no routes.
    """
    from deepagents_rs.backends.local_shell import LocalShellBackend

    if not isinstance(backend, CompositeBackend) or not backend.sorted_routes:
        return ""
    shell_is_local = isinstance(backend.default, LocalShellBackend)
    mapped: list[str] = []
    unmapped: list[str] = []
    for prefix, route in backend.sorted_routes:
        host = _host_prefix(route) if shell_is_local else None
        if host is None:
            unmapped.append(ROUTE_NO_HOST_MAPPING_LINE.format(prefix=prefix))
        else:
            mapped.append(ROUTE_HOST_PATH_MAPPING_LINE.format(virtual=_with_slash(prefix), host=_with_slash(host)))

    sections = [ROUTE_HOST_PATH_PROMPT_INTRO]
    for heading, lines in ((ROUTE_HOST_PATH_MAPPINGS_HEADING, mapped), (ROUTE_NO_HOST_MAPPING_HEADING, unmapped)):
        if lines:
            sections.append("\n".join([heading, *lines]))
    return "\n\n".join(sections)


def _history_slot(message: Any) -> str:
    """What the core's media ordering tells apart: an AI message calling tools, a tool
    result, a video read's media message, anything else."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    if isinstance(message, AIMessage) and message.tool_calls:
        return "calls"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, HumanMessage) and message.additional_kwargs.get("read_file_media_result") is True:
        return "media"
    return "other"


def _move_media_results_after_tool_results(messages: list[Any]) -> list[Any]:
    """`messages` with each tool-call batch's results ahead of the video reads' media
    messages among them, as the core sends a history (providers want a call's whole batch
    of results before any other message)."""
    order = media_after_tool_results_order([_history_slot(m) for m in messages])
    return list(messages) if order is None else [messages[i] for i in order]


_SCHEMA_NAMES = frozenset(FS_TOOL_PARAMETERS)
"""The tools' input schema classes (`LsSchema`, `ReadFileSchema`, ...), made on first use."""


def __getattr__(name: str) -> Any:
    # `FilesystemState` subclasses LangChain's `AgentState` and the tools' input schemas are
    # pydantic models: made where they are imported only when asked for, so importing this
    # module loads neither.
    if name == "FilesystemState":
        from ._filesystem_state import FilesystemState

        globals()[name] = FilesystemState
        return FilesystemState
    if name in _SCHEMA_NAMES:
        from . import _filesystem_schemas

        made = globals()[name] = getattr(_filesystem_schemas, name)
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
