"""deepagents' ``task`` tool as a LangChain tool, for ``SubAgentMiddleware`` in LangChain's own
``create_agent``: the tool validates the call, hands the chosen subagent its share of the
caller's state, runs it, and answers with deepagents' ``Command`` (the subagent's final answer
as the call's ``ToolMessage``, the state keys it changed merged).

Declarative specs run on our loop (``create_sub_agent``: the core's plain agent); a
``CompiledSubAgent``'s runnable is invoked as deepagents invokes it. Inside
``create_deep_agent`` the core's own ``task`` tool does this instead."""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Sequence
from typing import Annotated, Any, ClassVar, NotRequired, cast

from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain.agents.middleware.types import AgentMiddleware, OmitFromSchema
from langchain.tools import BaseTool, ToolRuntime
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import StructuredTool
from langgraph.types import Command
from langsmith.run_helpers import get_tracing_context, tracing_context
from pydantic import BaseModel, Field, ValidationError, model_validator
from typing_extensions import TypedDict

from .._compiled_subagent import _COMPILED_MISSING_MESSAGES, _task_result
from .._core import SUBAGENT_TEXTS
from . import subagents as _face
from .filesystem import FilesystemMiddleware
from .rubric import _RUBRIC_KEY
from .summarization import SUMMARIZATION_EVENT_KEY, SUMMARIZATION_SESSION_ID_KEY, SummarizationMiddleware
from .unsupported_content import UnsupportedContentMiddleware

_SKILL_TOOLS_DISCLOSED_KEY = "_skill_tools_disclosed"

_SUMMARIZATION_KEYS = frozenset({SUMMARIZATION_EVENT_KEY, SUMMARIZATION_SESSION_ID_KEY})
_FORK_EXCLUDED_STATE_KEYS = _SUMMARIZATION_KEYS | {
    "structured_response",
    "pinned_skills",
    _RUBRIC_KEY,
    _SKILL_TOOLS_DISCLOSED_KEY,
}
"""What a declarative fork does not take from its caller: its own summarization, skills it
has yet to pin, the rubric, a structured response that is not the fork's."""

_FORKED_CONTEXT_KEY = "_deepagents_forked_context"
"""Marks a fork's own state, so its ``task`` refuses to delegate again."""

_FORK_RECURSION_REFUSAL = SUBAGENT_TEXTS["FORK_RECURSION_REFUSAL"]
_FORK_TASK_PREAMBLE = SUBAGENT_TEXTS["FORK_TASK_PREAMBLE"]

# The caller's messages, todos, skills list and fork marker, and what a fork leaves out
# except summarization's keys (those are left to `private_state_keys`).
_EXCLUDED_STATE_KEYS = {"messages", "todos", "skills_metadata", _FORKED_CONTEXT_KEY} | (
    _FORK_EXCLUDED_STATE_KEYS - _SUMMARIZATION_KEYS
)
"""Keys a subagent neither gets from its caller nor hands back (its messages come back as the
one ``ToolMessage``)."""

_TASK_TOOL_INJECTED_ARGS = frozenset({"runtime"})


class TaskToolSchema(BaseModel):
    """Input schema for the `task` tool."""

    description: str = Field(description=SUBAGENT_TEXTS["TASK_DESCRIPTION_ARG"])
    subagent_type: str = Field(description=SUBAGENT_TEXTS["SUBAGENT_TYPE_ARG"])

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data: object) -> object:
        """An argument the schema lacks is an error the model sees (its instructions would
        otherwise be dropped); ``runtime`` is the tool node's, not the model's."""
        if not isinstance(data, dict):
            return data
        arguments = {str(key): value for key, value in data.items()}
        unknown = sorted(arguments.keys() - set(cls.model_fields) - _TASK_TOOL_INJECTED_ARGS)
        if not unknown:
            return data
        # Each error names its key as its location: LangGraph drops errors without one.
        errors: list[Any] = [
            {
                "type": "value_error",
                "loc": (key,),
                "input": arguments[key],
                "ctx": {"error": ValueError(SUBAGENT_TEXTS["UNEXPECTED_TASK_ARGUMENT"].replace("{key}", repr(key)))},
            }
            for key in unknown
        ]
        raise ValidationError.from_exception_data(cls.__name__, errors)


class _ForkedContextState(TypedDict):
    """Declares the fork marker as a channel of the fork's graph (an undeclared input key
    would not reach ``runtime.state``)."""

    _deepagents_forked_context: NotRequired[Annotated[bool, OmitFromSchema(input=False, output=True)]]


class _ForkTaskToolMiddleware(AgentMiddleware):
    """Gives a forked subagent the real `task` tool, guarded against recursion."""

    state_schema = _ForkedContextState

    def __init__(self, task_tool: BaseTool) -> None:
        self.tools = [task_tool]


def _fork_messages(
    messages: Sequence[Any],
    event: Any,
    description: str,
    *,
    preamble: str = _FORK_TASK_PREAMBLE,
) -> list[Any]:
    """A fork's history: the caller's conversation as its model saw it (without the AI
    message making this call), then the task."""
    history = list(messages)
    if history and isinstance(history[-1], AIMessage) and history[-1].tool_calls:
        history.pop()
    seen = SummarizationMiddleware._apply_event_to_messages(history, event)
    return [*seen, HumanMessage(content=preamble + description)]


@contextlib.contextmanager
def _subagent_tracing_context() -> Generator[None, None, None]:
    """The current LangSmith tracing context with ``ls_agent_type="subagent"`` in its
    metadata, everything else as it is."""
    current = get_tracing_context()
    metadata = {**(current.get("metadata") or {}), "ls_agent_type": "subagent"}
    with tracing_context(**{**current, "metadata": metadata}):
        yield


def create_sub_agent(
    spec: Any,
    *,
    state_schema: type | None = None,
    response_format: Any = None,
) -> Runnable:
    """A runnable agent from a raw `SubAgent` spec (which must name `model` and `tools`): our
    plain agent with the spec's middleware, LangChain's ``HumanInTheLoopMiddleware`` for its
    ``interrupt_on`` and ``UnsupportedContentMiddleware``."""
    if "model" not in spec:
        raise ValueError(f"SubAgent '{spec['name']}' must specify 'model'")
    if "tools" not in spec:
        raise ValueError(f"SubAgent '{spec['name']}' must specify 'tools'")
    from .._plain_agent import create_plain_agent

    middleware = list(spec.get("middleware", []))
    if spec.get("interrupt_on"):
        middleware.append(HumanInTheLoopMiddleware(interrupt_on=spec["interrupt_on"]))
    if not any(m.name == UnsupportedContentMiddleware.__name__ for m in middleware):
        middleware.append(UnsupportedContentMiddleware())
    # A model string resolves as deepagents resolves it, served natively where the core's
    # client takes it (as `create_deep_agent`'s models are).
    return create_plain_agent(
        spec["model"],
        system_prompt=spec.get("system_prompt", ""),
        tools=spec["tools"],
        middleware=middleware,
        name=spec["name"],
        response_format=response_format if response_format is not None else spec.get("response_format"),
        state_schema=state_schema,
    )


def _get_subagent_response_format(runtime: ToolRuntime) -> Any:
    """The response format this call's config asks of the subagent, if any."""
    config = runtime.config
    configurable = config.get("configurable") if isinstance(config, dict) else None
    if not isinstance(configurable, dict):
        return None
    return configurable.get(_face.SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY)


def _is_unchanged(key: str, value: object, inputs: dict) -> bool:
    """Whether the subagent handed `key` back as it got it (not an update: it would conflict
    across parallel calls, or be added again by a reducer)."""
    if key not in inputs:
        return False
    # `is True`: an ambiguous comparison (an array's) counts as a change.
    return value is inputs[key] or (value == inputs[key]) is True


def _forked(spec: Any) -> bool:
    return spec.get("mode") == "fork"


class _TaskRunner:
    """The subagents one ``task`` tool runs: the specs, their runnables, the tool's texts."""

    def __init__(
        self, subagents: Sequence[Any], description: str, private_state_keys: frozenset[str], state_schema: type | None
    ) -> None:
        self.description = description
        self.private_state_keys = private_state_keys
        self.state_schema = state_schema
        self.specs = {spec["name"]: spec for spec in subagents}
        self.runnables = {spec["name"]: self.compile(spec) for spec in subagents}

    def tool(self) -> BaseTool:
        return StructuredTool.from_function(
            name="task",
            func=self.task,
            coroutine=self.atask,
            description=self.description,
            infer_schema=False,
            args_schema=TaskToolSchema,
        )

    def declarative(self, spec: Any) -> Any:
        """A declarative spec as it compiles: a fork gets the real ``task`` tool (refusing at
        call time), placed right after its filesystem tools as its caller's is."""
        if not _is_forked_subagent(spec):
            return spec
        resolved = {key: value for key, value in spec.items() if key != "mode"}
        middleware = list(spec.get("middleware", []))
        fs_index = next((i for i, m in enumerate(middleware) if isinstance(m, FilesystemMiddleware)), -1)
        middleware.insert(fs_index + 1, _ForkTaskToolMiddleware(self.tool()))
        resolved["middleware"] = middleware
        return resolved

    def compile(self, spec: Any, response_format: Any = None) -> Runnable:
        if _is_compiled_subagent(spec):
            if response_format is not None:
                raise ValueError(SUBAGENT_TEXTS["COMPILED_RESPONSE_SCHEMA"].replace("{name}", spec["name"]))
            return spec["runnable"].with_config({"metadata": {"lc_agent_name": spec["name"]}, "run_name": spec["name"]})
        # Looked up on the public module, where callers (and tests) may replace it.
        return _face.create_sub_agent(
            self.declarative(spec), state_schema=self.state_schema, response_format=response_format
        )

    def prepare(self, subagent_type: str, description: str, runtime: ToolRuntime) -> tuple[Runnable, dict]:
        """The runnable for this call and the state it starts from."""
        spec = self.specs[subagent_type]
        response_format = _get_subagent_response_format(runtime)
        runnable = self.runnables[subagent_type] if response_format is None else self.compile(spec, response_format)
        shared = _EXCLUDED_STATE_KEYS | self.private_state_keys
        if not _forked(spec):
            state = {k: v for k, v in runtime.state.items() if k not in shared}
            state["messages"] = [HumanMessage(content=description)]
            return runnable, state
        if _is_compiled_subagent(spec):
            # A compiled runnable is opaque: it gets no private state.
            inherited = {k: v for k, v in runtime.state.items() if k not in shared}
        else:
            # A declarative fork is its caller's shape: private channels carry over.
            inherited = {k: v for k, v in runtime.state.items() if k not in _FORK_EXCLUDED_STATE_KEYS}
            inherited[_FORKED_CONTEXT_KEY] = True
        messages = _fork_messages(
            runtime.state.get("messages", []), runtime.state.get(SUMMARIZATION_EVENT_KEY), description
        )
        return runnable, {**inherited, "messages": messages}

    def refusal(self, subagent_type: str, runtime: ToolRuntime) -> str | None:
        if runtime.state.get(_FORKED_CONTEXT_KEY):
            return _FORK_RECURSION_REFUSAL
        if subagent_type not in self.runnables:
            allowed = ", ".join(f"`{name}`" for name in self.runnables)
            return (
                SUBAGENT_TEXTS["UNKNOWN_SUBAGENT"]
                .replace("{subagent_type}", subagent_type)
                .replace("{allowed}", allowed)
            )
        if not runtime.tool_call_id:
            raise ValueError("Tool call ID is required for subagent invocation")
        return None

    def command(self, result: dict, tool_call_id: str, inputs: dict) -> Command:
        """deepagents' answer: the subagent's changed, shareable keys and its final answer."""
        if "messages" not in result:
            raise ValueError(_COMPILED_MISSING_MESSAGES)
        hidden = _EXCLUDED_STATE_KEYS | self.private_state_keys
        update = {k: v for k, v in result.items() if k not in hidden and not _is_unchanged(k, v, inputs)}
        return Command(update={**update, "messages": [ToolMessage(_task_result(result), tool_call_id=tool_call_id)]})

    # The caller's callbacks, tags and configurable reach the subagent as the ambient config
    # it merges in (a LangGraph graph, and our agent alike: `_ambient_config`); only the
    # subagent marker is passed.
    _CONFIG: ClassVar[dict] = {"configurable": {"ls_agent_type": "subagent"}}

    def task(self, description: str, subagent_type: str, runtime: ToolRuntime) -> str | Command:
        refused = self.refusal(subagent_type, runtime)
        if refused is not None:
            return refused
        runnable, state = self.prepare(subagent_type, description, runtime)
        with _subagent_tracing_context():
            result = runnable.invoke(state, self._CONFIG)
        return self.command(result, cast(str, runtime.tool_call_id), state)

    async def atask(self, description: str, subagent_type: str, runtime: ToolRuntime) -> str | Command:
        refused = self.refusal(subagent_type, runtime)
        if refused is not None:
            return refused
        runnable, state = self.prepare(subagent_type, description, runtime)
        with _subagent_tracing_context():
            result = await runnable.ainvoke(state, self._CONFIG)
        return self.command(result, cast(str, runtime.tool_call_id), state)


def _validate_unique_subagent_names(subagents: Sequence[Any]) -> None:
    """The model picks a subagent by name: two specs with one name are refused."""
    names = [spec["name"] for spec in subagents]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ValueError(f"Duplicate subagent name '{name}'; each subagent must have a unique name.")


def _validate_subagent_mode(spec: Any) -> None:
    """A known mode (an explicit `None` is the default), and no skills on a fork."""
    from .._subagents import _mode

    _mode(spec)


def _is_compiled_subagent(spec: Any) -> bool:
    """Whether the spec brings its own runnable."""
    return "runnable" in spec


def _is_forked_subagent(spec: Any) -> bool:
    """A declarative fork: it runs with its caller's state."""
    return _forked(spec) and not _is_compiled_subagent(spec)


def _is_forked_compiled_subagent(spec: Any) -> bool:
    """A runnable given the caller's conversation."""
    return _forked(spec) and _is_compiled_subagent(spec)


def _build_task_tool(
    subagents: Sequence[Any],
    task_description: str | None = None,
    *,
    private_state_keys: frozenset[str] = frozenset(),
    state_schema: type | None = None,
) -> BaseTool:
    """The ``task`` tool over raw and compiled subagent specs. ``task_description`` replaces
    deepagents' description (``{available_agents}`` in it is filled with the listing)."""
    _validate_unique_subagent_names(subagents)
    for spec in subagents:
        _validate_subagent_mode(spec)
    listing = "\n".join(
        _face._describe_subagent_for_tool(s["name"], s["description"], forked=_forked(s)) for s in subagents
    )
    if task_description is None:
        description = _face.TASK_TOOL_DESCRIPTION.format(available_agents=listing)
    elif "{available_agents}" in task_description:
        description = task_description.format(available_agents=listing)
    else:
        description = task_description
    return _TaskRunner(subagents, description, private_state_keys, state_schema).tool()
