"""Type stubs for the compiled Rust core (``deepagents_rs._core``).

``tests/test_stubs.py`` checks these signatures against the built module."""

import os
from collections.abc import Callable
from typing import Any

__version__: str
DEFAULT_SUBAGENT_PROMPT: str
DEFAULT_GENERAL_PURPOSE_DESCRIPTION: str
FS_TOOL_TEXTS: dict[str, str]
TOOL_NOT_AVAILABLE: str
FS_TOOL_PARAMETERS: dict[str, str]
GLOB_TIMEOUT: float
SUBAGENT_TEXTS: dict[str, str]
SUMMARY_PROMPT_HEAD: str
SUMMARY_PROMPT_TAIL: str
COMPACT_DESCRIPTION: str
NOTHING_TO_COMPACT: str
COMPACTED: str
COMPACT_FAILED: str

def native_limits(provider: str, model: str) -> tuple[int | None, int | None]:
    """A native model's ``(profile max_input_tokens, default max_tokens)``."""

MEMORY_SYSTEM_PROMPT: str

def upload_response_error(errors: list[str | None]) -> str | None:
    """deepagents' `_upload_response_error` over each file's error (`None` for success)."""

def summary_message(summary: str, file_path: str | None = None) -> dict[str, Any]:
    """The summary message (a dict), naming the history file when there is one."""

def drop_bound_reasoning(message: dict[str, Any]) -> dict[str, Any] | None:
    """The message without its bound reasoning blocks, or `None` when it has none."""

def dangling_tool_results(messages: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]] | None:
    """The error results `PatchToolCallsMiddleware` adds, each with the index of the AI
    message it follows; `None` when no call is dangling."""

def all_plain_messages(messages: list[Any]) -> bool:
    """Whether every message is a plain ``{"role": ..., "content": "<str>"}`` dict as
    ``_convert._plain_dict`` reads one (an exact dict of exactly those two keys, an exact str
    ``role`` among the plain roles)."""

def content_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    """LangChain's `message.content_blocks` as the core reads it (a message as `_convert.to_core` gives it)."""

def state_cutoff(previous: int, effective_cutoff: int) -> int:
    """`_compute_state_cutoff` after an earlier cut at `previous`."""

class SummarizationCall:
    """The core's summarization entry, run around a caller's own handler."""

    def __init__(self, config: dict[str, Any]) -> None: ...
    def cutoff(self, messages: list[dict[str, Any]]) -> int:
        """`_determine_cutoff_index` of the messages."""
    def summarize(self, messages: list[dict[str, Any]], is_async: bool, config: Any = None) -> Any:
        """`_create_summary`: the summary text, awaitable when `is_async`."""
    def offload(
        self,
        messages: list[dict[str, Any]],
        session: str,
        backend: Any,
        files: dict[str, Any] | None,
        is_async: bool,
        config: Any = None,
    ) -> Any:
        """`_offload_to_backend`: `(path | None, files written | None)`, awaitable when `is_async`."""
    def offload_media(
        self,
        messages: list[dict[str, Any]],
        backend: Any,
        files: dict[str, Any] | None,
        is_async: bool,
        config: Any = None,
    ) -> Any:
        """`_offload_inline_media`: `(messages | None, failed blocks, files written | None)`,
        awaitable when `is_async`."""
    def count_tokens(self, request: dict[str, Any]) -> float:
        """`_count_tokens` with the built-in counter."""
    def compact_eligible(self, clauses: Any, count: int, last_ai: dict[str, Any] | None) -> bool:
        """`_is_eligible_for_compaction` of `count` messages whose last AI reply is `last_ai`."""
    def run(self, request: dict[str, Any], responder: Any, is_async: bool, config: Any = None) -> Any:
        """The entry's state writes (`{"commands": [...], "files": ...}`), awaitable when
        `is_async`."""

class EntryCall:
    """The core's memory, skills or filesystem entry, run outside a deepagents_rs agent."""

    def __init__(self, config: dict[str, Any]) -> None: ...
    def hook(self, hook: str, state: dict[str, Any], is_async: bool, config: Any = None) -> Any:
        """The state keys the hook (`"before_agent"` or `"before_model"`) writes, with the
        messages it appends under `messages`, or None; awaitable when `is_async`."""
    def run(self, request: dict[str, Any], model: Any, responder: Any, is_async: bool, config: Any = None) -> Any:
        """The entry's state writes (`{"commands": [...], "files": ...}`), awaitable when
        `is_async`."""
    def tool_specs(self) -> list[tuple[str, str, str]]:
        """The entry's tools as `(name, description, parameters as JSON text)`."""
    def call_tool(self, call: dict[str, Any], files: Any, is_async: bool, config: Any = None) -> Any:
        """The filesystem tool call `call` (`{"name", "args", "id"}`) run over `files`:
        `{"message", "files"}`, awaitable when `is_async`."""
    def refusal(self, call: Any, messages: list[Any]) -> str | None:
        """The filesystem entry's answer to a tool call before its handler runs, or None."""
    def after_tool(self, message: Any, name: str, is_async: bool, files: Any, config: Any = None) -> Any:
        """`{"message": the tool message replacing `message` or None, "files"}`, awaitable
        when `is_async`."""

LIMITS: dict[str, int]

VIDEO_TEXTS: dict[str, str]
VIDEO_LIMITS: dict[str, int | float]

class FrameSampler:
    """The core's choice of a video's frames for ``_video._sample_frames_in_window``:
    ``step`` says whether to keep each decoded frame, ``add`` takes a kept one's JPEG."""

    def __init__(
        self,
        offset: float,
        duration: float,
        rate: float,
        time_base: float,
        stream_start: float,
        max_frames: int,
        max_bytes: int,
        error: type[BaseException],
    ) -> None: ...
    def seconds(self, pts: float | None, time: float | None) -> float | None:
        """A frame's time in seconds from the video's start."""
    def step(self, at: float | None) -> str:
        """``"keep"``, ``"skip"`` or ``"stop"`` for the frame at ``at`` seconds."""
    def add(self, at: float, image_base64: str) -> bool:
        """Adds a kept frame; False when the byte cap stops the read there."""
    def finish(self) -> list[dict[str, Any]]:
        """The content blocks for the model."""

def video_window_error(offset: Any, duration: Any, rate: Any) -> str | None:
    """``_validate_video_window``'s refusal, if any."""

def video_no_frames(offset: float, duration: float) -> str:
    """The refusal of a window no frame was decoded in."""

def video_frame_size_error(width: int, height: int) -> str | None:
    """The refusal of a frame too large to convert, if it is."""

def video_needs_downscale(width: int, height: int) -> bool:
    """Whether a frame is scaled into the output box before it is encoded."""

def video_deadline_error() -> str:
    """The refusal of a read whose decoding ran past its budget."""

def media_after_tool_results_order(kinds: list[str]) -> list[int] | None:
    """The order to send a history in, given each message's kind (``"calls"``, ``"tool"``,
    ``"media"``, other): each tool-call batch's results before its media; None: unchanged."""

def format_memory(template: str, sources: list[str], contents: dict[str, str]) -> str:
    """``MemoryMiddleware._format_agent_memory``: the memory section in ``template``."""

def check_memory_prompt(system_prompt: Any) -> None:
    """``MemoryMiddleware``'s checks of its ``system_prompt``: ``TypeError`` unless str or
    None, ``ValueError`` without the ``{agent_memory}`` slot."""

SKILLS_SYSTEM_PROMPT: str

def check_skills_prompt(system_prompt: Any) -> None:
    """``SkillsMiddleware``'s checks of its ``system_prompt``: ``TypeError`` unless str or
    None, ``ValueError`` naming the missing slots."""

def skill_source_label(path: str) -> str:
    """deepagents' label of a skill source given as a bare path."""

def parse_skill_metadata(content: str, path: str, directory: str, read: Any, warn: Any) -> dict[str, Any] | None:
    """deepagents' ``_parse_skill_metadata``: the ``SkillMetadata`` of a ``SKILL.md``, its YAML
    read by ``read``, the warnings given to ``warn``."""

def skill_metadata_from_download(
    error: str | None, content: bytes | None, path: str, directory: str, read: Any, warn: Any
) -> dict[str, Any] | None:
    """deepagents' ``_skill_metadata_from_response`` for a download's error and bytes."""

def skill_name_problem(name: str, directory: str) -> str | None:
    """The Agent Skills rule ``name`` breaks (deepagents' ``_validate_skill_name``), or None."""

def skill_annotations(skill: dict[str, Any]) -> str:
    """deepagents' ``_format_skill_annotations``."""

def skills_locations(sources: list[tuple[str, str]]) -> str:
    """``SkillsMiddleware._format_skills_locations`` for ``[(path, label)]``."""

def skills_list_text(sources: list[tuple[str, str]], skills: list[dict[str, Any]]) -> str:
    """``SkillsMiddleware._format_skills_list``."""

def skills_load_warnings(errors: list[str]) -> str:
    """``SkillsMiddleware._format_skills_load_warnings``."""

def truncate_skill_load_warning(error: str) -> str:
    """deepagents' ``_truncate_skill_load_warning``."""

def list_skills(backend: Any, source: str, read: Any, warn: Any, is_async: bool) -> Any:
    """deepagents' ``_list_skills_with_errors``: ``(skills, error | None)``, awaitable when
    ``is_async``."""

class CoreAgent:
    """The compiled agent: model, tools, system message, subagents, response format and the
    user's middleware, run by the Rust loop."""

    def __init__(
        self,
        model: tuple[str, str] | tuple[str, str, dict[str, Any] | None] | Any,
        tools: list[Any],
        system: dict[str, Any],
        name: str | None = None,
        subagents: list[dict[str, Any]] | None = None,
        response_format: Any | None = None,
        middleware: list[Any] | None = None,
        private_keys: list[str] | None = None,
        files: dict[str, Any] | None = None,
        summarization: dict[str, Any] | None = None,
        memory: dict[str, Any] | None = None,
        skills: dict[str, Any] | None = None,
        profile: dict[str, Any] | None = None,
        interrupts: Any | None = None,
        task_description: str | Callable[[str], str] | None = None,
        plain: bool = False,
    ) -> None: ...
    def set_last_value_keys(self, keys: list[str]) -> None:
        """The state keys that take one write per step (LangGraph's ``LastValue`` channels),
        once the agent's graph is known; set once."""
    def set_reducers(self, reducers: Any) -> None:
        """The state's reducers (``_reducers.Reducers``: ``keys``, ``fold``/``afold``), or
        None; set once."""
    @property
    def model_id(self) -> str:
        """``provider:name`` of the agent's model."""
    @property
    def node_names(self) -> list[str]:
        """The graph's nodes (hook nodes, ``model``, ``tools``) in LangChain's order."""
    @property
    def registered_node_names(self) -> list[str]:
        """The graph's nodes in the order LangChain's ``create_agent`` adds them: ``model``,
        ``tools``, then each middleware's hook nodes."""
    @property
    def subagent_nodes(self) -> list[tuple[str, list[str]]]:
        """The node names of each subagent the core runs (declarative ones and forks)."""
    @property
    def tool_names(self) -> list[str]:
        """The tools in the order the model sees them."""
    def invoke(
        self,
        state: dict[str, Any],
        recursion_limit: int,
        config: dict[str, Any] | None = None,
        subagent_response_format: Any | None = None,
        tracer: Any | None = None,
    ) -> dict[str, Any]:
        """Run to completion with the GIL released; ``tracer`` reports runs to callbacks. The
        result's ``messages`` are message objects (``_convert.from_core``'s)."""
    def ainvoke(
        self,
        state: dict[str, Any],
        recursion_limit: int,
        config: dict[str, Any] | None = None,
        subagent_response_format: Any | None = None,
        tracer: Any | None = None,
    ) -> Any:
        """An awaitable running the agent on the caller's loop (its result as ``invoke``'s)."""
    def stream(
        self,
        state: dict[str, Any],
        recursion_limit: int,
        modes: list[str],
        subgraphs: bool = False,
        config: dict[str, Any] | None = None,
        subagent_response_format: Any | None = None,
        tracer: Any | None = None,
        steps_before: int = 0,
        start: str | list[tuple[str, dict[str, Any] | None, bool]] | None = None,
        stops: tuple[list[str], list[str]] | None = None,
        resumed: list[str] | None = None,
        subagents: list[tuple[str, dict[str, Any], str, int, dict[str, Any], list[str]]] | None = None,
        control: Any = None,
        awaited: list[str] | None = None,
    ) -> EventStream:
        """Run the agent, reporting raw ``(mode, ns, payload)`` items, then ``("done", (), state)``;
        ``steps_before``: steps the thread ran before this run (reported steps continue from them);
        ``start``: the node to start at (LangGraph's name), not the graph's first, or the tasks
        of a step side by side, ``(node, the state a Send gave it or None, whether a ``tools``
        task runs on the whole state)``; ``stops``:
        nodes to stop before and after (LangGraph's ``interrupt_before``/``_after``);
        ``resumed``: calls of the resumed step answered before it stopped; ``subagents``: the
        subagents of that step to resume, ``(task call id, state, node, steps run, task config,
        finished calls of that step)``; ``awaited``: the calls of that step whose subagents
        resume once their tasks start (``EventStream.resume_subagent``), which wait till then."""
    def astream(
        self,
        state: dict[str, Any],
        recursion_limit: int,
        modes: list[str],
        subgraphs: bool = False,
        config: dict[str, Any] | None = None,
        subagent_response_format: Any | None = None,
        tracer: Any | None = None,
        steps_before: int = 0,
        start: str | list[tuple[str, dict[str, Any] | None, bool]] | None = None,
        stops: tuple[list[str], list[str]] | None = None,
        resumed: list[str] | None = None,
        subagents: list[tuple[str, dict[str, Any], str, int, dict[str, Any], list[str]]] | None = None,
        control: Any = None,
        awaited: list[str] | None = None,
    ) -> AsyncEventStream:
        """``stream`` on the caller's event loop."""

class EventStream:
    """Iterator over a run's raw events; ``close()`` stops the run."""

    def __iter__(self) -> EventStream: ...
    def __next__(self) -> tuple[str, tuple[str, ...], Any]: ...
    def resume_subagent(self, subagent: tuple[str, dict[str, Any], str, int, dict[str, Any], list[str]]) -> None:
        """Hands the run an awaited subagent, as ``stream``'s ``subagents`` lists one."""
    def close(self) -> None: ...

class AsyncEventStream:
    """Async iterator over a run's raw events; ``aclose()`` stops the run."""

    def __aiter__(self) -> AsyncEventStream: ...
    def __anext__(self) -> Any: ...
    def resume_subagent(self, subagent: tuple[str, dict[str, Any], str, int, dict[str, Any], list[str]]) -> None:
        """``EventStream.resume_subagent``."""
    def aclose(self) -> Any: ...

class StreamWriter:
    """LangGraph's stream writer for one step: ``writer(value)`` streams a custom payload."""

    def __call__(self, value: Any) -> None: ...

class GraphParts:
    """Where a compiled subagent's own stream parts go: ``parts((namespace, mode, payload))``
    streams one under the `task` call that runs it."""

    def __call__(self, part: Any) -> None: ...

class ChunkCallback:
    """Receives a LangChain model's chunks while it streams."""

    def __call__(self, chunk: Any) -> None: ...

class ModelNext:
    """``handler`` of a middleware's ``wrap_model_call``: runs the rest of the chain."""

    def __call__(self, raw: dict[str, Any]) -> Any: ...

class ToolNext:
    """``handler`` of a middleware's ``wrap_tool_call``: runs the rest of the chain."""

    def __call__(self, call: Any) -> Any: ...

class GlobMatcher:
    """A glob pattern compiled with wcmatch's ``BRACE | GLOBSTAR`` rules; raises ``ValueError``
    for a pattern wcmatch refuses."""

    def __init__(self, pattern: str) -> None: ...
    def __call__(self, path: str) -> bool: ...

def globmatch(path: str, pattern: str) -> bool:
    """``wcmatch.glob.globmatch(path, pattern, flags=BRACE | GLOBSTAR)``."""

def disk_glob(root: str, pattern: str, timeout: float | None = None) -> tuple[list[str], bool]:
    """The regular files under ``root`` matching ``pattern``, and whether time ran out."""

def disk_grep(
    root: str,
    pattern: str,
    include_glob: str | None = None,
    max_size: int = ...,
    max_count: int | None = None,
    timeout: float | None = None,
) -> tuple[list[tuple[str, list[tuple[int, str]], str | None]], bool]:
    """A literal search of the text files under ``root``: ``(path, [(line, text)], error)``
    per file, and whether it stopped early."""

def disk_read_text(path: str) -> str:
    """A text file's content (strict UTF-8, universal newlines), not following a final symlink."""

def disk_read(path: str, file_path: str, video_limit: int) -> str | dict[str, Any]:
    """``FilesystemBackend.read`` of a resolved path before paging: the text to page, or the
    ``ReadResult`` fields."""

def disk_write(path: str, content: str) -> None:
    """``FilesystemBackend.write``: parent directories made, then the text written."""

def disk_write_text(path: str, content: str, create: bool = True) -> None:
    """Writes UTF-8 text with no newline translation, not following a final symlink."""

def disk_edit(path: str | os.PathLike[str], old: str, new: str, replace_all: bool) -> str | int | None:
    """``FilesystemBackend.edit`` of a resolved path: ``None`` when no regular file is there,
    the refusal's text, or the number of occurrences replaced."""

def disk_delete(path: str | os.PathLike[str]) -> bool:
    """``FilesystemBackend.delete`` of a resolved path: whether anything was there to delete."""

def disk_upload(path: str | os.PathLike[str], content: Any) -> None:
    """One upload of bytes-like ``content`` to a resolved path, its parents made first."""

def disk_download(path: str | os.PathLike[str]) -> bytes | None:
    """One download of a resolved path: its bytes, or ``None`` for a directory."""

def disk_virtual_path(cwd: str | os.PathLike[str], path: str | os.PathLike[str]) -> str:
    """``FilesystemBackend._to_virtual_path``: ``path`` resolved, as a path under ``cwd``
    (``ValueError`` outside it, as ``relative_to`` words it)."""

def disk_grep_shown(
    cwd: str | os.PathLike[str],
    virtual_mode: bool,
    root: str | os.PathLike[str],
    pattern: str,
    include_glob: str | None,
    max_size: int,
    max_count: int | None,
    timeout: float,
) -> tuple[dict[str, list[tuple[int, str]]], bool, list[str], list[str], list[str]]:
    """``FilesystemBackend``'s search without ripgrep, by shown path: ``(hits, truncated,
    unreadable, outside, unresolved)``."""

def disk_rg_place(
    cwd: str | os.PathLike[str],
    virtual_mode: bool,
    base: str | os.PathLike[str],
    real_base: str | os.PathLike[str],
    reported: str,
) -> tuple[str | None, str | None]:
    """Where a file ripgrep reported shows in ``FilesystemBackend.grep``: ``(shown, skipped)``,
    ``skipped`` being ``"search"``, ``"root"`` or ``"unresolved"`` when it is left out."""

def disk_resolve(cwd: str, virtual_mode: bool, key: str) -> str:
    """``FilesystemBackend._resolve_path``: where ``key`` leads (``ValueError`` when virtual
    mode refuses it; a symlink loop's ``RuntimeError`` or ``OSError``)."""

def disk_real_path(cwd: Any, virtual_mode: bool, resolved: Any) -> str:
    """``_real_path`` of a path ``_resolve_path`` gave: under the root in virtual mode, else
    its real path (``os.path.realpath``) without the drive."""

def disk_ls(cwd: str, virtual_mode: bool, dir: str) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """``ls`` of a resolved directory: entries sorted by path, problems met, paths left out
    as outside the root."""

def disk_glob_entries(
    cwd: str, virtual_mode: bool, base: str, pattern: str, timeout: float
) -> tuple[list[dict[str, Any]], bool]:
    """``glob`` under a resolved base: entries sorted by path (those a virtual root cannot
    show left out), and whether the walk ran out of time."""

def shell_execute(
    command: str, cwd: str, env: list[tuple[str, str]], timeout: float, custom: bool, max_output_bytes: int
) -> tuple[str, int, bool]:
    """``LocalShellBackend.execute``: ``/bin/sh -c command`` in ``cwd`` with exactly ``env``,
    without the GIL; deepagents' ``(output, exit_code, truncated)``, the timeout reply
    included. Raises what ``subprocess.run`` raises where the command cannot start or its
    output is not UTF-8."""

# ``CompositeBackend``'s routing rule (``files::composite``).
def composite_route(sorted_prefixes: list[str], path: str) -> tuple[int, str] | None:
    """The route owning ``path`` (prefixes longest first): ``(index, inner path)``."""

# ``BaseSandbox``'s command protocol (``files::sandbox``, ``files::sandbox_search``).
SANDBOX_TEMPLATES: dict[str, str]

def sandbox_ls_cmd(path: str) -> str: ...
def sandbox_parse_ls(output: str, path: str) -> tuple[list[dict[str, Any]] | None, str | None]:
    """``(entries, error)``; raises ``KeyError``/``TypeError`` where deepagents' parser would."""

def sandbox_read_cmd(path: str, file_type: str, offset: int, limit: int) -> str: ...
def sandbox_parse_read(output: str, path: str) -> tuple[dict[str, Any] | None, str | None]:
    """``(ReadResult keyword arguments, error)``."""

def sandbox_write_preflight_cmd(path: str) -> str: ...
def sandbox_preflight_error(output: str, exit_code: int | None, path: str) -> str | None: ...
def sandbox_edit_inline_cmd(path: str, old: str, new: str, replace_all: bool) -> str: ...
def sandbox_edit_tmpfile_cmd(path: str, old_tmp: str, new_tmp: str, replace_all: bool) -> str: ...
def sandbox_edit_result(output: str, path: str, old: str) -> tuple[bool, Any, str | None]:
    """``(was_json, occurrences, error)`` of an edit script's reply."""

def sandbox_edit_error(error: Any, path: str, old: str) -> str: ...
def sandbox_grep_cmd(
    pattern: str, path: str | None, glob: str | None, max_count: int | None, exclude_dirs: list[str]
) -> str: ...
def sandbox_grep_excluded_dirs(path: str | None, exclude_dirs: list[str]) -> list[str]: ...
def sandbox_parse_grep(
    output: str, exit_code: int | None, path: str | None, max_count: int | None
) -> tuple[list[dict[str, Any]] | None, str | None, bool]:
    """``(matches, error, truncated)``."""

def sandbox_glob_cmd(pattern: str, search_path: str) -> str: ...
def sandbox_glob_search_root(path: str | None) -> str: ...
def sandbox_absolutize_glob_path(search_path: str, rel_path: str) -> str: ...
def sandbox_parse_glob(
    output: str, exit_code: int | None, truncated: bool, search_path: str
) -> tuple[list[dict[str, Any]] | None, str | None, bool, str | None, list[tuple[str, str]]]:
    """``(matches, error, truncated, truncation_reason, log lines)``; the host logs the lines."""

# ``BaseSandbox.execute_with_offload``'s capture wrapper (``files::sandbox_capture``).
SANDBOX_CAPTURE: dict[str, Any]

def sandbox_capture_cmd(
    command: str, capture_path: str, inline_budget: int, max_capture_bytes: int | None = None
) -> str: ...
def sandbox_parse_capture(output: str) -> tuple[str | None, tuple[str, int, bool, bool, bool] | None]:
    """``(warning, (output, exit_code, offloaded, capped, preview_has_truncation_marker))``;
    ``None`` for a reply to return as it is."""

# ``BaseSandbox``'s operations run over the user's subclass (``files::sandbox_ops``): each
# returns the protocol's result object, or with ``is_async`` a ``SandboxTask`` making it.
class SandboxTask:
    """An async operation stepped by the caller's task: ``step`` runs it to the next sandbox
    awaitable, ``(False, awaitable)``, or to its end, ``(True, result)``; each later ``step``
    carries what awaiting gave (``value``, or the exception as ``error``)."""

    def step(self, value: Any = None, error: BaseException | None = None) -> tuple[bool, Any]: ...

def sandbox_ls(sandbox: Any, path: str, is_async: bool) -> Any: ...
def sandbox_read(sandbox: Any, path: str, offset: int, limit: int, is_async: bool) -> Any: ...
def sandbox_preflight(sandbox: Any, path: str, is_async: bool) -> Any:
    """``None`` once the parent folders are in place, else the failed ``WriteResult``."""

def sandbox_write(sandbox: Any, path: str, content: str, is_async: bool, preflight: bool = True) -> Any: ...
def sandbox_edit(
    sandbox: Any, path: str, old: str, new: str, replace_all: bool, is_async: bool, way: str | None = None
) -> Any: ...
def sandbox_delete(sandbox: Any, path: str) -> Any: ...
def sandbox_grep(
    sandbox: Any,
    pattern: str,
    path: str | None,
    glob: str | None,
    max_count: int | None,
    is_async: bool,
    seconds: float | None = None,
) -> Any:
    """``seconds`` bounds the async search (``ASYNC_GREP_TIMEOUT``)."""

def sandbox_glob(sandbox: Any, pattern: str, path: str | None, is_async: bool, seconds: float | None = None) -> Any:
    """``seconds`` bounds the async search (``ASYNC_GLOB_TIMEOUT``)."""

def sandbox_offload(
    sandbox: Any,
    command: str,
    capture_path: str,
    max_inline_bytes: int,
    max_capture_bytes: int | None,
    timeout: int | None,
    is_async: bool,
) -> Any:
    """``execute_with_offload``; ``timeout`` reaches ``execute`` only when it takes one."""

# The file rules of ``deepagents_rs.backends.utils`` and the state/store backends
# (``files::text``, ``files::path``, the file tools' formatting).
FILE_TYPE_EXTENSIONS: list[tuple[str, str]]

class IncludeMatcher:
    """``compile_grep_include_glob``'s predicate on root-relative paths; ``ValueError`` with
    the refusal's text."""

    def __init__(self, pattern: str) -> None: ...
    def __call__(self, relative: str) -> bool: ...

def files_read_window(record: Any, offset: int, limit: int) -> dict[str, Any]: ...
def files_replace(content: str, old: str, new: str, replace_all: bool) -> tuple[str, int] | str: ...
def files_validate_path(raw: str, allowed_prefixes: Any = None) -> str: ...
def files_grep(
    files: Any, pattern: str, search_path: str | None, glob: str | None, max_count: int | None
) -> tuple[str | None, list[dict[str, Any]] | None, bool]: ...
def files_glob(
    files: Any, pattern: str, search_path: str | None, entries: bool = True
) -> tuple[str | None, list[Any]]: ...
def files_ls(keys: list[str], directory: str, load: Any) -> list[dict[str, Any]]: ...
def files_format_grep(matches: Any, mode: str) -> str: ...
def files_numbered(lines: list[str], start_line: int) -> str: ...
def files_truncate_text(result: str) -> str: ...
def files_truncate_list(result: list[str]) -> list[str]: ...
def files_sanitize_call_id(tool_call_id: str) -> str: ...
def files_kind(file_path: str, backend: bool) -> str: ...
def files_glob_anchor(pattern: str) -> str: ...
def files_paths_overlap(call_path: str, rule_anchor: str) -> bool: ...
def files_delete_deny_patterns(
    rules: list[tuple[list[str], list[str], str]], target: str, has_descendants: bool
) -> list[str]: ...
def files_content_preview(content: str, head_lines: int, tail_lines: int) -> tuple[str, bool, bool]: ...
def files_under_root(keys: list[str], root: str) -> list[tuple[str, str]]: ...
def files_looks_like_regex(pattern: str) -> bool: ...
def files_retargeted_description(name: str, description: str, visible: list[str], execution: bool) -> str | None: ...
def files_record_text(record: Any) -> str: ...
def files_record_new(content: str, created_at: str | None, encoding: str) -> dict[str, Any]: ...
def files_record_with(record: Any, content: str, modified: bool) -> dict[str, Any]: ...

# ``StoreBackend``'s rules (``python::store_plan``): a plan names the store calls it needs;
# ``send(None)`` starts it, each reply is sent back until the method is ``None`` and
# ``args`` is the result.
class CompositePlan:
    """One ``CompositeBackend`` operation: ``send`` returns ``(method, args, kwargs)`` for the
    next backend call, or ``(None, result, None)``; ``throw`` takes a ``NotImplementedError``."""

    def __init__(self, op: str, composite: Any, resolver: Any, asynchronous: bool, args: tuple[Any, ...]) -> None: ...
    def send(self, reply: Any) -> tuple[Any, Any, dict[str, Any] | None]: ...
    def throw(self, error: BaseException) -> tuple[Any, Any, dict[str, Any] | None]: ...

class StorePlan:
    @staticmethod
    def read(namespace: Any, path: str, offset: Any, limit: Any) -> StorePlan: ...
    @staticmethod
    def write(namespace: Any, path: str, content: str) -> StorePlan: ...
    @staticmethod
    def edit(namespace: Any, path: str, old: str, new: str, replace_all: bool) -> StorePlan: ...
    @staticmethod
    def delete(namespace: Any, path: str) -> StorePlan: ...
    @staticmethod
    def ls(namespace: Any, path: str) -> StorePlan: ...
    @staticmethod
    def grep(namespace: Any, pattern: str, path: str | None, glob: str | None, max_count: Any) -> StorePlan: ...
    @staticmethod
    def glob(namespace: Any, pattern: str, path: str | None) -> StorePlan: ...
    @staticmethod
    def items(namespace: Any, query: Any, filter: Any, page_size: int) -> StorePlan: ...
    @staticmethod
    def upload(namespace: Any, files: list[tuple[Any, Any]]) -> StorePlan: ...
    @staticmethod
    def download(namespace: Any, paths: list[Any]) -> StorePlan: ...
    def send(self, reply: Any) -> tuple[str | None, Any, dict[str, Any] | None]: ...
    def run(self, store: Any, items: Any = None, data: Any = None) -> Any:
        """The whole plan through ``store``'s sync methods, on this thread; ``items`` answer
        the first ``search`` page (a subclass's ``_search_store_paginated``, or a plain
        ``InMemoryStore``'s items); ``data`` (a plain ``InMemoryStore``'s dict) answers ``get``."""

def store_validate_namespace(namespace: Any) -> Any: ...

# ``FilesystemBackend.grep``'s context lines and ripgrep command line and frames
# (``files::grep_context``, ``files::ripgrep``).
def grep_context_spans(lines: list[int], radius: int) -> list[tuple[int, int]]: ...
def disk_context_lines(path: str, spans: list[tuple[int, int]], universal: bool) -> dict[int, str]: ...
def grep_context_attach(
    matched: list[int], lines: dict[int, str], radius: int, pattern: str
) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]: ...
def ripgrep_frame(line: str) -> tuple[str, Any] | None: ...
def ripgrep_command(
    rg: str, pattern: str, base: str, include_glob: str | None, max_count: int | None
) -> tuple[list[str], str | None]: ...
def _panic_for_tests(message: str) -> None:
    """Panics inside Rust on purpose, under the guard every entry point has: raises
    ``RuntimeError`` (for tests)."""

def _gil_on_workers() -> list[str]:
    """The call sites (``file:line``) that took the GIL on a tokio worker thread since the
    last call (for tests: none should)."""

def _result_threads() -> list[tuple[int, int]]:
    """``(thread ident, messages made)`` for each thread that made a run's result messages
    since the last call (for tests: under ``ainvoke``, the event loop's thread only). The
    first call starts the record and returns ``[]``."""

def _run_id() -> Any:
    """A new tool run id as LangChain's ``uuid7()`` makes it: a ``uuid.UUID`` of version 7,
    in order of making within the process."""

def _plain_tool_config(call: Any, manager_type: type, bare: bool, uuid7: Any) -> tuple[dict, Any, Any]:
    """A plain tool call's config, its task's channels and the context its tool runs in (a
    copy of the current one with the config and the task's files set;
    ``_plain_tool_calls.call_plain``),
    made from its run's ``RunBase`` and the call's ``PlainCall.args``: as the general path
    makes them, its tool run's child manager a ``manager_type`` (made bare when ``bare``, else
    called with LangChain's keywords and given ``uuid7()`` as its parent run id)."""

def _plain_call(args: tuple) -> Any:
    """A ``_plain_tool_calls.PlainCall`` for the tool call whose ``_stream.full_config``
    arguments are ``args`` when its run's plain calls can take that path (its run's base made
    by ``run_base`` at the run's first call and kept in its config's ``tool_bases``), else
    ``None``: as a sync tool's job decides in the core."""

def _checkpoint_id(clock: dict, last: str, step: int) -> str:
    """``str(uuid6(clock_seq=step))`` as LangGraph makes it, its last timestamp kept in
    ``clock[last]`` (its ``uuid6``'s module globals): the time from ``time.time_ns()``, the
    node from ``random.getrandbits(48)``."""

def _interns_strings(version: tuple[int, int, int] | None = None) -> bool:
    """Whether dicts handed to Python intern their keys and short values: under ``version``
    (``(major, minor, patch)``), or under this interpreter when ``None`` (for tests)."""

def _python_calls_stats() -> tuple[int, int, int]:
    """``(drainer threads started, drainers replaced as stuck, threads alive)`` of the queue
    of the core's Python calls since start (for tests and benches)."""

def _delay_python_call_turns_for_tests(seconds: float) -> None:
    """Makes each idle drainer handed a turn wait ``seconds`` before it takes it, as a loaded
    machine slow to wake a thread would (for tests; 0 ends it)."""

def _call_timing(on: bool | None = None) -> dict[str, int]:
    """Counts and nanoseconds of the core's calls into Python while counting was on, by name:
    the ``dars-python`` jobs (run, CPU, queued), the drainers' and blocked callers' waits for
    the GIL, the event loops' inboxes (for benches: ``benches/concurrency.py``). ``on``
    switches counting on or off first (off by default: no clock is read)."""

class FsInterrupts:
    """Interrupt-mode ``FilesystemPermission`` rules: which file tools they gate, and whether
    a call fires (deepagents' per-call ``when``)."""

    def __init__(self, rules: list[tuple[list[str], list[str], str]]) -> None: ...
    def tools(self) -> list[str]:
        """The file tools some interrupt rule can gate."""
    def fires(self, tool: str, args: Any, resolve: Any = None) -> bool:
        """Whether a call of ``tool`` with ``args`` goes to a human first; ``resolve`` gives
        where a path leads through symlinks (``None``: it cannot be resolved)."""
    def fires_as(
        self,
        operation: str,
        path_arg: str,
        subtree: bool,
        pattern_arg: str | None,
        args: Any,
        resolve: Any = None,
    ) -> bool:
        """``fires`` for a tool described by its operation, path argument, scope and the
        argument that can move its search root."""

class SlotRecords:
    """Makes records of one slotted frozen dataclass from the values of its given fields, in
    order (the others take ``defaults``), without its ``__init__`` (``_frozen_records``)."""

    def __init__(self, new: Any, names: list[str], defaults: list[Any]) -> None: ...
    def __call__(self, *values: Any) -> Any:
        """The record: ``new()``, each slot set as ``object.__setattr__`` sets it."""

class LoopInbox:
    """An event loop's inbox: the core hands async callbacks to the loop's own thread."""

    def __init__(self, event_loop: Any) -> None: ...
    def drain(self) -> None:
        """Runs every waiting callback (called by the loop when woken)."""
