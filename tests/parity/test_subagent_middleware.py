"""Parity: `SubAgentMiddleware` in LangChain's own `create_agent`, side by side.

The same program runs with deepagents' middleware and with deepagents_rs': a scripted parent
model calls `task`, scripted subagent models answer. The requests each model gets (messages,
system message, tools and their descriptions), the final state and the stream parts must be
the same, under invoke, ainvoke and stream, for raw, compiled and forked specs, and the errors
must be the same. deepagents_rs' raw specs run on its own loop (`create_sub_agent`).
"""

from __future__ import annotations

import asyncio
import importlib
import warnings
from typing import Any, NotRequired

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentState
from langchain.agents.structured_output import ToolStrategy
from langchain.tools import ToolRuntime
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import Command
from pydantic import BaseModel

from tests.fake_models import ScriptedChatModel, ai_tool_calls, normalize_messages

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = ("deepagents", "deepagents_rs")
MODES = ("invoke", "ainvoke", "stream", "astream", "subgraphs")


def _module(impl: str) -> Any:
    return importlib.import_module(f"{impl}.middleware.subagents")


def _backend(impl: str) -> Any:
    return importlib.import_module(f"{impl}.backends").StateBackend()


def _calls(model: ScriptedChatModel) -> list[Any]:
    return [
        (
            normalize_messages(c.messages, ids="stable"),
            [(t["function"]["name"], t["function"]["description"], t["function"]["parameters"]) for t in c.tools],
        )
        for c in model.calls
    ]


class ParentState(AgentState):
    notes: NotRequired[str]
    secret: NotRequired[str]


def _notes_graph() -> Any:
    """A compiled subagent writing a state key besides its answer."""

    class NotesState(MessagesState):
        notes: str
        secret: str

    def node(state: NotesState) -> dict:
        return {
            "messages": [AIMessage(content=f"saw {len(state['messages'])}: {state['messages'][-1].content[-20:]}")],
            "notes": "from child",
            "secret": "child secret",
        }

    builder = StateGraph(NotesState)
    builder.add_node("echo", node)
    builder.add_edge(START, "echo")
    return builder.compile()


def _specs(kind: str, sub_model: ScriptedChatModel) -> list[dict[str, Any]]:
    if kind == "raw":
        return [
            {"name": "worker", "description": "Does work.", "system_prompt": "Work.", "model": sub_model, "tools": []}
        ]
    if kind == "fork":
        return [
            {
                "name": "worker",
                "description": "Does work.",
                "system_prompt": "Fork work.",
                "model": sub_model,
                "tools": [],
                "mode": "fork",
            }
        ]
    if kind == "compiled":
        return [{"name": "worker", "description": "Does work.", "runnable": _notes_graph()}]
    return [{"name": "worker", "description": "Does work.", "runnable": _notes_graph(), "mode": "fork"}]


def _run(impl: str, kind: str, mode: str, parent_script: list[Any], sub_script: list[Any], **mw_kw: Any) -> dict:
    parent = ScriptedChatModel(parent_script)
    sub = ScriptedChatModel(sub_script)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mw = _module(impl).SubAgentMiddleware(backend=_backend(impl), subagents=_specs(kind, sub), **mw_kw)
    agent = create_agent(parent, system_prompt="Parent.", middleware=[mw], state_schema=ParentState)
    inputs = {"messages": [HumanMessage(content="go", id="h1")], "notes": "parent notes", "secret": "parent secret"}
    parts: list[Any] = []
    if mode == "invoke":
        result = agent.invoke(inputs)
    elif mode == "ainvoke":
        result = asyncio.run(agent.ainvoke(inputs))
    elif mode == "stream":
        parts = list(agent.stream(inputs, stream_mode=["updates", "values"]))
        result = parts[-1][1]
    elif mode == "astream":

        async def collect() -> list[Any]:
            return [p async for p in agent.astream(inputs, stream_mode=["updates", "values"])]

        parts = asyncio.run(collect())
        result = parts[-1][1]
    else:
        # The subagent's own parts stream under the `task` call's namespace.
        modes = ["updates", "values", "messages"]
        for ns, part_mode, payload in agent.stream(inputs, stream_mode=modes, subgraphs=True):
            parts.append(((tuple(n.split(":")[0] for n in ns), part_mode), payload))
        result = next(p for (ns, m), p in reversed(parts) if m == "values" and not ns)
    return {
        "messages": normalize_messages(result["messages"], ids="stable"),
        "notes": result.get("notes"),
        "secret": result.get("secret"),
        "parent_calls": _calls(parent),
        "sub_calls": _calls(sub),
        "parts": [(m, _part_view(p)) for m, p in parts],
        "tools": [convert_to_openai_tool(t) for t in mw.tools],
        "system_prompt": mw.system_prompt,
    }


def _namespace(ns: str) -> list[str]:
    return [n.split(":")[0] for n in ns.split("|")] if ns else []


def _part_view(payload: Any) -> Any:
    """A stream part with its messages normalized (ids are random on both sides); a
    `messages` part's metadata with its namespaces as node names."""
    if isinstance(payload, tuple) and len(payload) == 2 and isinstance(payload[1], dict):
        message, metadata = payload
        ns_keys = ("langgraph_checkpoint_ns", "checkpoint_ns")
        view = {k: v for k, v in metadata.items() if k not in ns_keys}
        view.update({k: _namespace(metadata.get(k, "")) for k in ns_keys})
        return normalize_messages([message], ids="drop"), view
    if isinstance(payload, dict):
        return {k: _part_view(v) for k, v in payload.items()}
    if isinstance(payload, list) and payload and all(hasattr(m, "type") for m in payload):
        return normalize_messages(payload, ids="drop")
    if hasattr(payload, "update"):  # a Command in an update
        return ("command", _part_view(payload.update))
    return payload


def _task_script(*, then: str = "all done") -> list[Any]:
    return [ai_tool_calls(("task", {"description": "Find the answer.", "subagent_type": "worker"}, "t1")), then]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["raw", "fork", "compiled", "compiled_fork"])
def test_task_runs_the_subagent(kind: str, mode: str) -> None:
    ref = _run("deepagents", kind, mode, _task_script(), ["the answer is 42"])
    ours = _run("deepagents_rs", kind, mode, _task_script(), ["the answer is 42"])
    assert ours == ref
    # The subagent's answer reached the parent as the task's result.
    assert ref["messages"][2]["type"] == "tool"
    if kind in ("raw", "fork"):
        assert ref["messages"][2]["content"] == "the answer is 42"
        assert len(ref["sub_calls"]) == 1
    else:
        assert ref["notes"] == "from child"


@pytest.mark.parametrize("kind", ["raw", "fork", "compiled"])
def test_system_prompt_and_private_keys(kind: str) -> None:
    kw = {"system_prompt": "Use subagents.", "private_state_keys": frozenset({"secret"})}
    ref = _run("deepagents", kind, "invoke", _task_script(), ["sub answer"], **kw)
    ours = _run("deepagents_rs", kind, "invoke", _task_script(), ["sub answer"], **kw)
    assert ours == ref
    assert ref["system_prompt"].startswith("Use subagents.\n\nAvailable subagent types:\n\n- worker: Does work.")
    if kind == "compiled":
        # The private key is neither handed back nor taken.
        assert ref["secret"] == "parent secret"


@pytest.mark.parametrize("description", ["Pick one of:\n{available_agents}", "Just delegate."])
def test_custom_task_description(description: str) -> None:
    ref = _run("deepagents", "raw", "invoke", _task_script(), ["x"], task_description=description)
    ours = _run("deepagents_rs", "raw", "invoke", _task_script(), ["x"], task_description=description)
    assert ours == ref


@pytest.mark.parametrize("mode", MODES)
def test_unknown_subagent_and_bad_arguments(mode: str) -> None:
    def script() -> list[Any]:
        # One call per step: parallel calls finish in any order (on deepagents too).
        return [
            ai_tool_calls(("task", {"description": "x", "subagent_type": "nobody"}, "t1")),
            ai_tool_calls(("task", {"description": "x", "subagent_type": "worker", "prompt": "real"}, "t2")),
            ai_tool_calls(("task", {"subagent_type": 3}, "t3")),
            "done",
        ]

    ref = _run("deepagents", "raw", mode, script(), [])
    ours = _run("deepagents_rs", "raw", mode, script(), [])
    assert ours == ref
    contents = [m["content"] for m in ref["messages"] if m["type"] == "tool"]
    assert "does not exist" in contents[0]
    assert "Unexpected argument 'prompt'" in contents[1]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_fork_refuses_to_delegate_again(mode: str) -> None:
    sub_script = [ai_tool_calls(("task", {"description": "deeper", "subagent_type": "worker"}, "s1")), "did it myself"]
    ref = _run("deepagents", "fork", mode, _task_script(), sub_script)
    ours = _run("deepagents_rs", "fork", mode, _task_script(), sub_script)
    assert ours == ref
    assert ref["messages"][2]["content"] == "did it myself"
    assert "cannot delegate" in ref["sub_calls"][1][0][-1]["content"]


class Person(BaseModel):
    name: str
    age: int


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_spec_response_format(mode: str) -> None:
    def sub_script() -> list[Any]:
        return [ai_tool_calls(("Person", {"name": "Maya", "age": 29}, "p1"))]

    def run(impl: str) -> dict:
        parent = ScriptedChatModel(_task_script())
        sub = ScriptedChatModel(sub_script())
        spec = {
            "name": "worker",
            "description": "Does work.",
            "model": sub,
            "tools": [],
            "response_format": ToolStrategy(Person),
        }
        mw = _module(impl).SubAgentMiddleware(backend=_backend(impl), subagents=[spec])
        agent = create_agent(parent, middleware=[mw])
        inputs = {"messages": [HumanMessage(content="go", id="h1")]}
        result = agent.invoke(inputs) if mode == "invoke" else asyncio.run(agent.ainvoke(inputs))
        return {"messages": normalize_messages(result["messages"], ids="stable"), "sub": _calls(sub)}

    ref, ours = run("deepagents"), run("deepagents_rs")
    assert ours == ref
    assert ref["messages"][2]["content"] == '{"name":"Maya","age":29}'


def _runtime(tool: Any, config: dict, state: dict | None = None, call_id: str = "call_1") -> ToolRuntime:
    return ToolRuntime(
        state=state or {},
        context={},
        config=config,
        stream_writer=lambda _chunk: None,
        tools=[tool],
        tool_call_id=call_id,
        store=None,
    )


@pytest.mark.parametrize("asynchronous", [False, True])
def test_response_format_from_the_config_key(asynchronous: bool) -> None:
    def run(impl: str) -> Any:
        module = _module(impl)
        sub = ScriptedChatModel([ai_tool_calls(("Person", {"name": "Ada", "age": 36}, "p1"))])
        mw = module.SubAgentMiddleware(
            backend=_backend(impl),
            subagents=[{"name": "worker", "description": "Does work.", "model": sub, "tools": []}],
        )
        tool = mw.tools[0]
        config = {"configurable": {module.SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY: ToolStrategy(Person)}}
        runtime = _runtime(tool, config, {"messages": [], "todos": [1], "extra": "kept"})
        kwargs = {"description": "Make a person.", "subagent_type": "worker", "runtime": runtime}
        result = asyncio.run(tool.coroutine(**kwargs)) if asynchronous else tool.func(**kwargs)
        return (
            {k: v for k, v in result.update.items() if k != "messages"},
            normalize_messages(result.update["messages"], ids="keep"),
            _calls(sub),
        )

    ref, ours = run("deepagents"), run("deepagents_rs")
    assert ours == ref
    assert ref[1][0]["content"] == '{"name":"Ada","age":36}'


def test_compiled_subagent_refuses_a_dynamic_response_format() -> None:
    errors = []
    for impl in IMPLS:
        module = _module(impl)
        mw = module.SubAgentMiddleware(
            backend=_backend(impl), subagents=[{"name": "worker", "description": "d", "runnable": _notes_graph()}]
        )
        tool = mw.tools[0]
        config = {"configurable": {module.SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY: ToolStrategy(Person)}}
        with pytest.raises(ValueError) as info:
            tool.func(description="x", subagent_type="worker", runtime=_runtime(tool, config))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_compiled_subagent_without_messages() -> None:
    errors = []
    for impl in IMPLS:
        module = _module(impl)

        class NoMessages:
            def with_config(self, _config: dict) -> NoMessages:
                return self

            def invoke(self, _state: dict, _config: Any = None) -> dict:
                return {"other": 1}

        mw = module.SubAgentMiddleware(
            backend=_backend(impl), subagents=[{"name": "worker", "description": "d", "runnable": NoMessages()}]
        )
        tool = mw.tools[0]
        with pytest.raises(ValueError) as info:
            tool.func(description="x", subagent_type="worker", runtime=_runtime(tool, {}))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize(
    "subagents",
    [
        [],
        [{"name": "a", "description": "d", "tools": []}],
        [{"name": "a", "description": "d", "model": "openai:gpt-5.4-mini"}],
        [
            {"name": "a", "description": "d", "runnable": MessagesState},
            {"name": "a", "description": "e", "runnable": 1},
        ],
        [{"name": "a", "description": "d", "model": "openai:gpt-5.4-mini", "tools": [], "mode": "other"}],
        [
            {
                "name": "a",
                "description": "d",
                "model": "openai:gpt-5.4-mini",
                "tools": [],
                "mode": "fork",
                "skills": ["/s/"],
            }
        ],
    ],
    ids=["none", "no-model", "no-tools", "duplicate", "bad-mode", "fork-skills"],
)
def test_construction_errors(subagents: list[dict], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    errors = []
    for impl in IMPLS:
        with pytest.raises(ValueError) as info:
            _module(impl).SubAgentMiddleware(backend=_backend(impl), subagents=subagents)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def _errors(error: Any) -> list[dict]:
    """pydantic's errors, their `ctx` exceptions by text (exceptions compare by identity)."""
    return [{**e, "ctx": {k: str(v) for k, v in e.get("ctx", {}).items()}} for e in error.errors(include_url=False)]


def test_task_schema_and_texts() -> None:
    ref, ours = _module("deepagents"), _module("deepagents_rs")
    assert ours.TaskToolSchema.model_json_schema() == ref.TaskToolSchema.model_json_schema()
    assert ours.TASK_TOOL_DESCRIPTION == ref.TASK_TOOL_DESCRIPTION
    for forked in (False, True):
        assert ours._describe_subagent_for_tool("n", "d", forked=forked) == ref._describe_subagent_for_tool(
            "n", "d", forked=forked
        )
    for bad in ({"description": "x", "subagent_type": "y", "prompt": "p", "zz": 1}, {"description": 1}):
        with pytest.raises(Exception) as r:
            ref.TaskToolSchema.model_validate(bad)
        with pytest.raises(Exception) as o:
            ours.TaskToolSchema.model_validate(bad)
        assert _errors(o.value) == _errors(r.value)
    specs = [{"name": "a"}, {"name": "a", "mode": "fork"}, {"name": "a", "runnable": 1, "mode": "fork"}]
    for check in ("_is_compiled_subagent", "_is_forked_subagent", "_is_forked_compiled_subagent"):
        assert [getattr(ours, check)(s) for s in specs] == [getattr(ref, check)(s) for s in specs]
    assert ours._validate_subagent_mode({"name": "a", "mode": None}) is None
    assert ref._validate_subagent_mode({"name": "a", "mode": None}) is None
    messages = [HumanMessage(content="q", id="a"), ai_tool_calls(("task", {}, "c1"))]
    assert normalize_messages(ours._fork_messages(messages, None, "do")) == normalize_messages(
        ref._fork_messages(messages, None, "do")
    )


def test_create_sub_agent_runs_on_our_loop() -> None:
    sub = ScriptedChatModel(["done"])
    runnable = _module("deepagents_rs").create_sub_agent(
        {"name": "worker", "description": "d", "model": sub, "tools": [], "interrupt_on": {"x": True}}
    )
    from deepagents_rs._deep_agent import DeepAgent

    assert isinstance(runnable, DeepAgent)
    assert "HumanInTheLoopMiddleware.after_model" in runnable.nodes
    result = runnable.invoke({"messages": [HumanMessage(content="go")]})
    assert result["messages"][-1].name == "worker"


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return f"sunny in {city}"


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_subagent_interrupt_reaches_the_caller_and_resumes(mode: str) -> None:
    """A raw spec's `interrupt_on` pauses the caller's checkpointed graph; resuming approves
    the subagent's call and the task finishes."""

    def run(impl: str) -> tuple:
        sub = ScriptedChatModel([ai_tool_calls(("get_weather", {"city": "Paris"}, "w1")), "it is sunny"])
        spec = {
            "name": "worker",
            "description": "d",
            "model": sub,
            "tools": [get_weather],
            "interrupt_on": {"get_weather": True},
        }
        mw = _module(impl).SubAgentMiddleware(backend=_backend(impl), subagents=[spec])
        agent = create_agent(ScriptedChatModel(_task_script()), middleware=[mw], checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "1"}}
        resume = Command(resume={"decisions": [{"type": "approve"}]})
        if mode == "invoke":
            paused = agent.invoke({"messages": [HumanMessage(content="go")]}, config)
            done = agent.invoke(resume, config)
        else:

            async def both() -> tuple:
                first = await agent.ainvoke({"messages": [HumanMessage(content="go")]}, config)
                return first, await agent.ainvoke(resume, config)

            paused, done = asyncio.run(both())
        return (
            [i.value for i in paused["__interrupt__"]],
            normalize_messages(done["messages"], ids="stable"),
            _calls(sub),
        )

    ref, ours = run("deepagents"), run("deepagents_rs")
    assert ours == ref
    assert ref[1][2]["content"] == "it is sunny"


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_in_create_deep_agent_replaces_the_own_task(mode: str) -> None:
    """A user's `SubAgentMiddleware` in `create_deep_agent(middleware=...)` takes the place of
    deepagents' own: its `task` tool and prompt are the ones the model sees."""

    def run(impl: str) -> tuple:
        sub = ScriptedChatModel(["sub says"])
        mw = _module(impl).SubAgentMiddleware(
            backend=_backend(impl),
            subagents=[{"name": "w", "description": "d", "model": sub, "tools": []}],
            system_prompt="Extra.",
        )
        model = ScriptedChatModel([ai_tool_calls(("task", {"description": "x", "subagent_type": "w"}, "t1")), "x"])
        agent = importlib.import_module(impl).create_deep_agent(model=model, middleware=[mw])
        inputs = {"messages": [HumanMessage(content="hi", id="h1")]}
        result = agent.invoke(inputs) if mode == "invoke" else asyncio.run(agent.ainvoke(inputs))
        return normalize_messages(result["messages"], ids="stable"), _calls(model), _calls(sub)

    ref, ours = run("deepagents"), run("deepagents_rs")
    assert ours == ref
    assert ref[0][2]["content"] == "sub says"


class _Recorder(BaseCallbackHandler):
    """The chat-model runs a run's callbacks see: their metadata, namespaces as node names."""

    def __init__(self) -> None:
        self.starts: list[dict] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        metadata = dict(kwargs.get("metadata") or {})
        for key in ("langgraph_checkpoint_ns", "checkpoint_ns"):
            metadata[key] = _namespace(metadata.get(key, ""))
        self.starts.append({"metadata": metadata, "tags": sorted(kwargs.get("tags") or [])})


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_parent_callbacks_see_the_subagent_model(mode: str) -> None:
    def run(impl: str) -> list[dict]:
        recorder = _Recorder()
        sub = ScriptedChatModel(["sub answer"])
        mw = _module(impl).SubAgentMiddleware(backend=_backend(impl), subagents=_specs("raw", sub))
        agent = create_agent(ScriptedChatModel(_task_script()), middleware=[mw])
        inputs = {"messages": [HumanMessage(content="go")]}
        config = {"callbacks": [recorder], "tags": ["outer"], "metadata": {"who": "caller"}}
        _ = agent.invoke(inputs, config) if mode == "invoke" else asyncio.run(agent.ainvoke(inputs, config))
        return recorder.starts

    ref, ours = run("deepagents"), run("deepagents_rs")
    assert ours == ref
    assert [s["metadata"].get("lc_agent_name") for s in ref] == [None, "worker", None]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_fork_task_tool_follows_its_file_tools(mode: str) -> None:
    """A fork's own `FilesystemMiddleware` tools come first, then its guarded `task`; the
    fork writes a file the caller's state gets back."""

    def run(impl: str) -> tuple:
        fs = importlib.import_module(f"{impl}.middleware.filesystem").FilesystemMiddleware(backend=_backend(impl))
        sub = ScriptedChatModel(
            [ai_tool_calls(("write_file", {"file_path": "/n.md", "content": "hi"}, "w1")), "wrote it"]
        )
        spec = {"name": "worker", "description": "d", "model": sub, "tools": [], "mode": "fork", "middleware": [fs]}
        mw = _module(impl).SubAgentMiddleware(backend=_backend(impl), subagents=[spec])
        parent_fs = importlib.import_module(f"{impl}.middleware.filesystem").FilesystemMiddleware(
            backend=_backend(impl)
        )
        agent = create_agent(ScriptedChatModel(_task_script()), middleware=[parent_fs, mw])
        inputs = {"messages": [HumanMessage(content="go", id="h1")]}
        result = agent.invoke(inputs) if mode == "invoke" else asyncio.run(agent.ainvoke(inputs))
        files = {k: v["content"] for k, v in (result.get("files") or {}).items()}
        return normalize_messages(result["messages"], ids="stable"), _calls(sub), files

    ref, ours = run("deepagents"), run("deepagents_rs")
    assert ours == ref
    assert [t[0] for t in ref[1][0][1]][-1] == "task"
    assert ref[2] == {"/n.md": "hi"}
    # Without a sandbox the fork's grep is offered without the execute fallback line.
    grep = next(t for t in ours[1][0][1] if t[0] == "grep")
    assert "execute tool" not in grep[1]
