"""Tool adapters: what the Rust core calls back for each user tool.

Each adapter exposes the tool's ``name``, ``description`` and JSON-schema ``parameters`` (the
model sees exactly these), and ``call`` / ``acall`` returning ``(content, status, artifact,
files)`` the way LangGraph's tool node builds its ToolMessage. Argument validation errors become error
results; any other exception propagates to the caller of ``invoke``, as in deepagents.
"""

from __future__ import annotations

import contextvars
import inspect
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import _compat, _convert, _task_channels
from ._direct_args import args_plan
from ._direct_tools import FALLBACK, acall_direct, call_direct, direct_function
from ._files_context import CURRENT_FILES, use_files
from ._plain_tool_calls import PlainCall, acall_plain, call_plain, task_config_of
from ._task_channels import TaskChannels
from ._task_notes import note_task_error

#: Whether the tool is called by a run under ``ainvoke``/``astream``: deepagents' middleware
#: then runs its async hooks, whose errors name themselves so.
ASYNC_RUN = contextvars.ContextVar("deepagents_rs_async_run", default=False)

# LangGraph's templates: models are trained on their wording, so keep it.
TOOL_INVOCATION_ERROR_TEMPLATE = (
    "Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n"
    " {error}\n"
    " Please fix the error and try again."
)


def _tool_name(tool: Any) -> str | None:
    """The name of a tool in any form `create_deep_agent` takes (a dict's `"name"`, else
    the object's `name` attribute); `None` when that is missing or no string."""
    name = tool.get("name") if isinstance(tool, dict) else getattr(tool, "name", None)
    return name if isinstance(name, str) else None


def _apply_tool_description_overrides(tools: Sequence[Any] | None, overrides: Mapping[str, str]) -> list[Any] | None:
    """A copy of `tools` with the descriptions `overrides` gives by tool name: LangChain
    tools and dict tools are copied with the new one, plain functions kept as they are;
    the caller's tools are not changed. `None` for no tools."""
    from ._harness import described

    return described(tools, overrides)


def _stringify(content: Any) -> Any:
    """LangChain's rule for tool output: str and content-block lists pass, else JSON or str."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, dict) and "type" in b or isinstance(b, str) for b in content):
        return content
    try:
        return json.dumps(content, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(content)


def _validation_message(tool_name: str, args: dict, exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        parts = []
        for err in errors():
            loc = ".".join(str(x) for x in err.get("loc", ()))
            parts.append(f"{loc}: {err.get('msg', 'Unknown error')}")
        detail = "\n".join(parts)
    else:
        detail = str(exc)
    return TOOL_INVOCATION_ERROR_TEMPLATE.format(tool_name=tool_name, tool_kwargs=args, error=detail)


def _is_validation_error(exc: BaseException) -> bool:
    try:
        from pydantic import ValidationError
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, ValidationError)


class ToolAdapter:
    """Base adapter; see the module docstring for the protocol the core relies on."""

    name: str
    description: str
    parameters: dict
    has_async: bool = False
    has_sync: bool = True
    executable: bool = True
    #: LangChain's ``return_direct``: a round calling only such tools ends the run.
    return_direct: bool = False
    #: A provider-side tool's own definition (e.g. Anthropic's web search), sent as is.
    provider_definition: dict | None = None
    #: What to hand a LangChain model's ``bind_tools`` so it renders this tool itself.
    bindable: Any
    #: LangChain's ``extras={"defer_loading": True}``: the schema is withheld until searched
    #: for (a skill listing the tool discloses it).
    defer_loading: bool = False

    def openai_spec(self) -> dict:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    #: Whether the core must hand the tool the run's state (see ``LangChainToolAdapter``).
    injects_state = False
    #: The function a direct call calls and its arguments plan (``LangChainToolAdapter``);
    #: ``_adirect`` a coroutine function's, awaited under ``ainvoke``.
    _direct: Any = None
    _adirect: Any = None

    def call(self, args: dict, tool_call_id: str, config: dict | None = None) -> tuple[Any, str, Any, Any]:
        raise NotImplementedError  # pragma: no cover - abstract

    async def acall(self, args: dict, tool_call_id: str, config: dict | None = None) -> tuple[Any, str, Any, Any]:
        raise NotImplementedError  # pragma: no cover - abstract

    # What the core calls: the call with the run's files open to a `StateBackend()` the tool
    # makes itself, and what it wrote there added to the call's state update.

    def call_in_run(self, args: dict, tool_call_id: str, config: Any = None, *state: Any) -> Any:
        try:
            return self._placed_call(args, tool_call_id, config, state)
        except Exception as exc:
            note_task_error(exc, task_config_of(config))
            raise

    def _placed_call(self, args: dict, tool_call_id: str, config: Any, state: tuple) -> Any:
        """The call with the config ``config_with_writer`` gave it: a plain call's made from
        its run's shared part when the tool is plain and nothing listens, else the general
        one (made now from a ``PlainCall``)."""
        if type(config) is PlainCall:
            if self._direct is not None and not state:
                made = call_plain(self, config, args, tool_call_id)
                if made is not FALLBACK:
                    return _with_written_files(*made)
            config = config.full()
        return self._call_in_run(args, tool_call_id, config, *state)

    def _call_in_run(self, args: dict, tool_call_id: str, config: dict | None, *state: Any) -> Any:
        files = _run_files(config)
        if files is None:
            return self.call(args, tool_call_id, config, *state)
        # `use_files(files.files)`, without its generator: at every tool call.
        token = CURRENT_FILES.set(files.files)
        try:
            result = self.call(args, tool_call_id, config, *state)
        finally:
            CURRENT_FILES.reset(token)
        return _with_written_files(result, files)

    def call_in_async_run(self, args: dict, tool_call_id: str, config: dict | None = None, *state: Any) -> Any:
        """``call_in_run`` for a run under ``ainvoke`` (a sync tool, on a worker thread)."""
        token = ASYNC_RUN.set(True)
        try:
            return self._placed_call(args, tool_call_id, config, state)
        except StopIteration as exc:
            # As LangChain's `run_in_executor` (which runs a sync tool under `ainvoke`) raises
            # it: a StopIteration cannot be set on the run's asyncio future.
            error = RuntimeError()
            note_task_error(error, task_config_of(config))
            raise error from exc
        except Exception as exc:
            note_task_error(exc, task_config_of(config))
            raise
        finally:
            ASYNC_RUN.reset(token)

    async def acall_in_run(self, args: dict, tool_call_id: str, config: Any = None, *state: Any) -> Any:
        ASYNC_RUN.set(True)  # the coroutine runs in a context of its own
        if type(config) is PlainCall:
            # As `_placed_call`: a plain coroutine tool's call made from the run's shared part.
            if self._adirect is not None and not state:
                try:
                    made = await acall_plain(self, config, args, tool_call_id)
                except Exception as exc:
                    note_task_error(exc, task_config_of(config))
                    raise
                if made is not FALLBACK:
                    return _with_written_files(*made)
            config = config.full()
        try:
            files = _run_files(config)
            if files is None:
                return await self.acall(args, tool_call_id, config, *state)
            with use_files(files.files):
                result = await self.acall(args, tool_call_id, config, *state)
            return _with_written_files(result, files)
        except Exception as exc:
            note_task_error(exc, config)
            raise


class LangChainToolAdapter(ToolAdapter):
    """A LangChain ``BaseTool``: its own schema, validation and error handling."""

    def __init__(self, tool: Any) -> None:
        self.tool = tool
        spec = _compat.convert_to_openai_tool(tool)["function"]
        self.name = spec["name"]
        self.description = spec.get("description", "")
        self.parameters = spec.get("parameters", {"type": "object", "properties": {}})
        self.bindable = tool
        self.has_async = _has_native_async(tool)
        self.has_sync = _has_sync(tool)
        self.return_direct = bool(getattr(tool, "return_direct", False))
        self.defer_loading = (getattr(tool, "extras", None) or {}).get("defer_loading") is True
        #: The tool takes arguments LangGraph's tool node injects (``ToolRuntime``,
        #: ``InjectedState``, ``InjectedStore``): the core then hands it the run's state.
        self.injects_state = _takes_injected(tool)
        self._tool_node: Any = None
        #: The function ``invoke`` would call, when calling it directly gives the same result.
        sync_func = direct_function(tool, self.injects_state)
        async_func = direct_function(tool, self.injects_state, asynchronous=True)
        # With the tool's arguments checked with its introspection done once.
        plan = args_plan(tool) if sync_func is not None or async_func is not None else None
        self._direct = None if sync_func is None else (sync_func, plan)
        self._adirect = None if async_func is None else (async_func, plan)

    def _message(self, result: Any, tool_call_id: str, config: dict | None = None) -> tuple:
        if type(result) is str:
            # The common answer (a direct call's plain str, see `_direct_tools._formatted`):
            # no message, command or list, so `_stringify`'s, without the checks' imports.
            return result, "success", None, None
        from langchain_core.messages import ToolMessage

        if isinstance(result, ToolMessage):
            return result.content, result.status, result.artifact, None
        command = _as_command(result)
        if command is not None:
            from ._tool_commands import command_output

            return command_output(command, self.name, tool_call_id, config)
        if isinstance(result, list) and result and all(isinstance(r, _ToolOutputMixin()) for r in result):
            # LangChain passes a list of commands and messages on as it is (`_format_output`).
            from ._tool_commands import refuse_list

            raise refuse_list(result, self.name, tool_call_id, ASYNC_RUN.get())
        return _stringify(result), "success", None, None

    def _inject(self, payload: dict, state: Any, config: dict | None) -> dict:
        """The call with what LangGraph's tool node injects: a ``ToolRuntime`` (the run's
        state, config, stream writer and store), ``InjectedState``, ``InjectedStore``."""
        from langchain.tools import ToolRuntime
        from langgraph.prebuilt import ToolNode

        from deepagents_rs._langgraph_private import CONF, CONFIG_KEY_RUNTIME

        if self._tool_node is None:
            self._tool_node = ToolNode([self.tool])
        state = dict(state or {})
        state["messages"] = [_convert.from_core(m) if isinstance(m, dict) else m for m in state.get("messages", [])]
        graph_runtime = ((config or {}).get(CONF) or {}).get(CONFIG_KEY_RUNTIME)
        runtime = ToolRuntime(
            state=state,
            context=getattr(graph_runtime, "context", None),
            config=dict(config or {}),
            stream_writer=getattr(graph_runtime, "stream_writer", None) or (lambda _: None),
            tool_call_id=payload["id"],
            store=getattr(graph_runtime, "store", None),
            execution_info=getattr(graph_runtime, "execution_info", None),
            server_info=getattr(graph_runtime, "server_info", None),
        )
        return self._tool_node._inject_tool_args(payload, runtime, self.tool)

    def call(
        self, args: dict, tool_call_id: str, config: dict | None = None, state: Any = None
    ) -> tuple[Any, str, Any, Any]:
        payload = {"type": "tool_call", "name": self.name, "args": args, "id": tool_call_id}
        try:
            if self._direct is not None:
                message = call_direct(self.tool, self._direct, args, tool_call_id, config)
                if message is not FALLBACK:
                    return self._message(message, tool_call_id, config)
            if self.injects_state:
                payload = self._inject(payload, state, config)
            return self._message(self.tool.invoke(payload, config), tool_call_id, config)
        except Exception as exc:
            if _is_validation_error(exc):
                return _validation_message(self.name, args, exc), "error", None, None
            raise

    async def acall(
        self, args: dict, tool_call_id: str, config: dict | None = None, state: Any = None
    ) -> tuple[Any, str, Any, Any]:
        payload = {"type": "tool_call", "name": self.name, "args": args, "id": tool_call_id}
        try:
            if self._adirect is not None:
                message = await acall_direct(self.tool, self._adirect, args, tool_call_id, config)
                if message is not FALLBACK:
                    return self._message(message, tool_call_id, config)
            if self.injects_state:
                payload = self._inject(payload, state, config)
            return self._message(await self.tool.ainvoke(payload, config), tool_call_id, config)
        except Exception as exc:
            if _is_validation_error(exc):
                return _validation_message(self.name, args, exc), "error", None, None
            raise


def _run_files(config: dict | None) -> TaskChannels | None:
    """The channels the call's task reads and writes (its config's ``__pregel_send``)."""
    return _task_channels.of((config or {}).get("configurable") or {})


def _with_written_files(result: tuple, channels: TaskChannels) -> tuple:
    """The call's result with what it wrote through its task's channels (a `StateBackend`'s
    files among them; a returned `Command`'s own keys win: LangGraph applies them after the
    writes made during the call; sent messages come before the call's own)."""
    files = channels.files
    if not files.pending and not channels.writes:
        return result
    from ._tool_commands import with_sent_messages

    content, status, artifact, update, *write = result
    channels.check_single_writes(update)
    earlier = channels.earlier(update)
    update = {k: v for k, v in (channels.update(update) or {}).items() if k != "messages"}
    if files.pending:
        update["files"] = {**files.updates(), **(update.get("files") or {})}
    write = with_sent_messages(write[0] if write else None, channels.writes, earlier)
    return (content, status, artifact, update, write)


def _ToolOutputMixin() -> type:
    from langchain_core.messages.tool import ToolOutputMixin

    return ToolOutputMixin


def _as_command(result: Any) -> Any:
    # Without langgraph loaded, no tool can have returned a Command: skip the import.
    types = sys.modules.get("langgraph.types")
    return result if types is not None and isinstance(result, types.Command) else None


def _takes_injected(tool: Any) -> bool:
    """Whether LangGraph's tool node would inject arguments into ``tool`` (it reads the
    function's signature as well as its schema: ``write_todos`` declares ``runtime`` only in
    its signature)."""
    try:
        from deepagents_rs._langgraph_private import _get_all_injected_args
    except ModuleNotFoundError:  # pragma: no cover - without langgraph nothing can be injected
        return bool(_injected_args(tool))
    injected = _get_all_injected_args(tool)
    return bool(injected.state or injected.store or injected.runtime)


def _injected_args(tool: Any) -> set[str]:
    """Arguments LangGraph's tool node injects (ToolRuntime, InjectedState, ...): in the
    tool's input schema but not in the schema the model sees. ``InjectedToolCallId`` is not
    among them: the tool fills it itself from the tool call."""
    from langchain_core.tools import InjectedToolCallId
    from langchain_core.tools.base import get_all_basemodel_annotations

    from deepagents_rs._langchain_private import _is_injected_arg_type

    try:
        schema = tool.get_input_schema()
        full = set(schema.model_fields)
        seen = set(tool.tool_call_schema.model_fields)
        annotations = get_all_basemodel_annotations(schema)
    except Exception:  # noqa: BLE001 - a tool without pydantic schemas has nothing injected
        return set()
    return {
        name
        for name in full - seen
        if not _is_injected_arg_type(annotations.get(name), injected_type=InjectedToolCallId)
    }


def _has_sync(tool: Any) -> bool:
    from langchain_core.tools import StructuredTool, Tool

    if isinstance(tool, (StructuredTool, Tool)):
        return tool.func is not None
    return True


def _has_native_async(tool: Any) -> bool:
    if getattr(tool, "coroutine", None) is not None:
        return True
    from langchain_core.tools import BaseTool, StructuredTool, Tool

    arun = type(tool)._arun
    return arun not in (BaseTool._arun, StructuredTool._arun, Tool._arun)


class FunctionToolAdapter(ToolAdapter):
    """A plain function or coroutine function, validated with a pydantic model of its
    signature (LangChain's rule: the model's values replace the arguments given)."""

    def __init__(self, func: Callable[..., Any]) -> None:
        from ._schema import function_schema

        self.func = func
        self.name, self.description, self.model, self.parameters = function_schema(func)
        self.has_async = inspect.iscoroutinefunction(func)
        self.has_sync = not self.has_async
        self.bindable = self.openai_spec()

    def _kwargs(self, args: dict) -> dict | tuple[Any, str, Any, Any]:
        """The validated arguments, or the error result for arguments that fail validation."""
        try:
            validated = self.model.model_validate(args)
        except Exception as exc:
            if _is_validation_error(exc):
                return _validation_message(self.name, args, exc), "error", None, None
            raise
        return {k: getattr(validated, k) for k in validated.model_fields_set if k in args}

    def call(self, args: dict, tool_call_id: str, config: dict | None = None) -> tuple[Any, str, Any, Any]:
        if self.has_async:
            raise NotImplementedError(f"Tool '{self.name}' is async only; use ainvoke.")
        kwargs = self._kwargs(args)
        if isinstance(kwargs, tuple):
            return kwargs
        return _stringify(self.func(**kwargs)), "success", None, None

    async def acall(self, args: dict, tool_call_id: str, config: dict | None = None) -> tuple[Any, str, Any, Any]:
        kwargs = self._kwargs(args)
        if isinstance(kwargs, tuple):
            return kwargs
        result = self.func(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return _stringify(result), "success", None, None


class DictToolAdapter(ToolAdapter):
    """A tool given as a JSON spec: shown to the model, but with no code to run. LangChain
    treats these as provider-side tools, so a call to one gets the unknown-tool error."""

    executable = False

    def __init__(self, spec: dict) -> None:
        fn = spec.get("function", spec) if spec.get("type") == "function" else spec
        try:
            self.name = fn["name"]
        except KeyError:
            raise ValueError(f"A dict tool needs a 'name': {spec!r}") from None
        self.description = fn.get("description", "")
        self.parameters = fn.get("parameters", fn.get("input_schema", {"type": "object", "properties": {}}))
        self.bindable = spec
        if spec.get("type") not in (None, "function", "custom"):
            self.provider_definition = spec


def to_adapter(tool: Any) -> ToolAdapter:
    """The adapter for anything ``create_deep_agent(tools=...)`` accepts."""
    if isinstance(tool, ToolAdapter):
        return tool
    if _compat.is_lc_tool(tool):
        return LangChainToolAdapter(tool)
    if isinstance(tool, dict):
        return DictToolAdapter(tool)
    if callable(tool):
        if _compat.HAS_LANGCHAIN:
            # LangChain's own conversion gives byte-identical schemas and descriptions.
            return LangChainToolAdapter(_compat.lc_tool(tool))
        return FunctionToolAdapter(tool)
    # deepagents hands anything else to LangChain's `tool()`, which raises this.
    raise ValueError(
        f"The first argument must be a string or a callable with a __name__ for tool decorator. Got {type(tool)}"
    )
