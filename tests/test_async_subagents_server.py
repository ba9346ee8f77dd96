"""Async subagents on the parent's own deployment: specs without ``url``, reached over the
LangGraph SDK's in-process ASGI transport, inside one real ``langgraph dev`` server.

The server serves four graphs: a parent and a subagent built by deepagents (``parent_ref``,
``child_ref``) and the same two built by deepagents_rs (``parent_rs``, ``child_rs``). Each
parent launches two tasks and ends its run; the test then opens the tasks' gates one at a
time, and each subagent's end wakes its parent (deepagents' ``_ParentNotifierMiddleware``:
a notification run on the idle parent's thread), with a success and then a failure (a model
call that raises). Compared: the parent thread's messages and ``async_tasks`` after each
wake-up, and the subagent threads' metadata and the inputs and config of their runs, with
ids and timestamps normalised.
"""

from __future__ import annotations

import textwrap
import time
from typing import Any

import pytest

langgraph_sdk = pytest.importorskip("langgraph_sdk")

from langgraph_dev import serve
from parity.async_subagents_support import CHILD, Server, _Ids

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore:unclosed transport:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]

GRAPHS = '''
import asyncio, copy, os
import deepagents
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph_sdk import get_sync_client

SELF = get_sync_client(url=os.environ["ASYNC_SUBAGENT_SELF"])


class Director(BaseChatModel):
    """Replays its turns in order, across the runs of its graph."""

    turns: list = []

    @property
    def _llm_type(self) -> str:
        return "director"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        turn = self.turns.pop(0)
        reply = copy.deepcopy(turn) if isinstance(turn, AIMessage) else AIMessage(content=turn)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        return self._generate(messages)


def _settled(result):
    update = getattr(result, "update", None) or {}
    for task in (update.get("async_tasks") or {}).values():
        while SELF.runs.get(task["thread_id"], task["run_id"])["status"] == "pending":
            time.sleep(0.05)


class Settle(AgentMiddleware):
    """After a launch, waits until its run started (so the next check finds it running)."""

    async def awrap_tool_call(self, request, handler):
        result = await handler(request)
        if request.tool_call["name"] == "start_async_task":
            await asyncio.to_thread(_settled, result)
        return result


def _turns():
    start = lambda d, i: {"name": "start_async_task", "args": {"description": d, "subagent_type": "researcher"}, "id": i, "type": "tool_call"}
    return [
        AIMessage(content="", tool_calls=[start("wait:g1 first job", "start_a"), start("wait:g2 boom", "start_b")]),
        "Both are running.",
        "Got the first result.",
        "The second one failed.",
    ]


def parent(impl, child):
    spec = {"name": "researcher", "description": "Researches a topic in depth.", "graph_id": child}
    return impl.create_deep_agent(model=Director(turns=_turns()), subagents=[spec], middleware=[Settle()])


child_rs = child
child_ref = deepagents.create_deep_agent(model=GatedModel(), system_prompt="You are a researcher.")
parent_rs = parent(deepagents_rs, "child_rs")
parent_ref = parent(deepagents, "child_ref")
'''


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    app = tmp_path_factory.mktemp("async_subagent_deployment")
    gates = app / "gates"
    gates.mkdir()
    source = textwrap.dedent(CHILD) + "\nimport time\nfrom langchain_core.language_models import BaseChatModel\n"
    (app / "graphs.py").write_text(source + textwrap.dedent(GRAPHS))
    graphs = {g: f"./graphs.py:{g}" for g in ("child_rs", "child_ref", "parent_rs", "parent_ref")}

    def env(port: int) -> dict[str, str]:
        return {"ASYNC_SUBAGENT_GATES": str(gates), "ASYNC_SUBAGENT_SELF": f"http://127.0.0.1:{port}"}

    with serve(app, graphs, env, jobs=16) as url:
        yield Server(url, gates)


def _wait_runs(server: Server, thread_id: str, count: int) -> None:
    """The thread has ``count`` runs, all ended, and is idle."""
    deadline = time.monotonic() + 60
    while True:
        runs = server.client.runs.list(thread_id, limit=20)
        thread = server.client.threads.get(thread_id)
        ended = all(r["status"] not in ("pending", "running") for r in runs)
        if len(runs) >= count and ended and thread["status"] == "idle":
            assert len(runs) == count, [r["status"] for r in runs]
            return
        assert time.monotonic() < deadline, (len(runs), [r["status"] for r in runs], thread["status"])
        time.sleep(0.1)


def _message(m: dict, ids: _Ids) -> dict:
    out = {"type": m["type"], "content": ids.value(m["content"])}
    if m["type"] == "ai":
        out["tool_calls"] = [(c["name"], c["args"], c["id"]) for c in m.get("tool_calls") or []]
    if m["type"] == "tool":
        out.update(tool_call_id=m["tool_call_id"], status=m.get("status"), name=m.get("name"))
    if m.get("additional_kwargs"):
        out["additional_kwargs"] = ids.value(m["additional_kwargs"])
    return out


def _child_view(server: Server, task_id: str, ids: _Ids, graphs: dict[str, str]) -> dict:
    """A subagent's thread: its metadata, and each run's input, config and context."""
    thread = server.client.threads.get(task_id)
    runs = []
    for run in reversed(server.client.runs.list(task_id)):
        kwargs = run.get("kwargs") or {}
        configurable = (kwargs.get("config") or {}).get("configurable") or {}
        runs.append(
            {
                "status": run["status"],
                "input": ids.value(kwargs.get("input")),
                "parent": ids.value(configurable.get("deepagents_parent")),
                "context": ids.value(kwargs.get("context")),
            }
        )
    return {"metadata": ids.value(thread["metadata"]), "runs": runs}


def _scenario(server: Server, graph: str, child: str) -> list[dict]:
    """Run the parent, then wake it twice; its thread's view after each step."""
    server.shut_all()
    client = server.client
    assistants = {a["graph_id"]: a["assistant_id"] for a in client.assistants.search(limit=20)}
    # Each implementation's graph ids read as the other's.
    graphs = {graph: "parent", child: "child"}
    thread = client.threads.create()["thread_id"]
    ids = _Ids()
    ids.names.update({thread: "<parent thread>", assistants[graph]: "<parent>", assistants[child]: "<child>"})
    views = []

    def view() -> dict:
        values = client.threads.get_state(thread)["values"]
        tasks = values.get("async_tasks") or {}
        return {
            "messages": [_message(m, ids) for m in values["messages"]],
            "async_tasks": ids.value(tasks),
            "children": {ids.text(t): _child_view(server, t, ids, graphs) for t in tasks},
        }

    client.runs.wait(thread, graph, input={"messages": [{"role": "user", "content": "research, please"}]})
    _wait_runs(server, thread, 1)
    views.append(view())
    server.open("g1")
    _wait_runs(server, thread, 2)
    views.append(view())
    server.open("g2")
    _wait_runs(server, thread, 3)
    views.append(view())
    return [_with_names(v, graphs) for v in views]


def _with_names(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, dict):
        return {k: _with_names(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_names(v, names) for v in value]
    return value


def test_subagents_on_this_deployment_wake_their_parent(deployment):
    theirs = _scenario(deployment, "parent_ref", "child_ref")
    ours = _scenario(deployment, "parent_rs", "child_rs")
    for step, (a, b) in enumerate(zip(theirs, ours, strict=True)):
        assert b["messages"] == a["messages"], f"step {step}: messages"
        assert b["async_tasks"] == a["async_tasks"], f"step {step}: async_tasks"
        assert b["children"] == a["children"], f"step {step}: subagent threads"
    final = ours[-1]
    notes = [m for m in final["messages"] if "deepagents_notification" in (m.get("additional_kwargs") or {})]
    assert [n["additional_kwargs"]["deepagents_notification"]["status"] for n in notes] == ["success", "error"]
    assert sorted(t["status"] for t in final["async_tasks"].values()) == ["error", "success"]
    assert final["messages"][-1]["content"] == "The second one failed."
