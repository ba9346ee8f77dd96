"""Async subagents (``AsyncSubAgent`` specs, ``AsyncSubAgentMiddleware``) against a real
Agent Protocol server, deepagents and deepagents_rs side by side.

One ``langgraph dev`` process serves the subagent: a deepagents_rs agent whose model answers
``done: <task>`` once the task's gate is open (``wait:<gate>`` in the task; a file the test
creates) and fails on ``boom``. The parent (each implementation with the same directed model,
whose turns read the task ids the tools returned) starts tasks, lists, checks, updates and
cancels them; on the async path the middleware's hooks poll the tasks and add notifications.
Runs are waited for by polling the server, as deepagents' own checks do, so each check sees a
settled run: the parent's ``_Settle`` middleware waits for each launched run to start, and the
model's turns open gates and wait for the runs to end.

Compared: what the model was offered and sent (tool schemas and descriptions, every message,
notifications included), the tool messages, the ``async_tasks`` state and the subagents'
threads on the server (metadata, input), with task ids, run ids and timestamps normalised.
"""

from __future__ import annotations

import asyncio
import gc
import json
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

langgraph_sdk = pytest.importorskip("langgraph_sdk")

import deepagents
import deepagents_rs
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph_dev import serve

from .async_subagents_support import CHILD, Director, Server, _call, _calls, _Ids, _message

pytestmark = [
    pytest.mark.timeout(300),
    # Both implementations keep their SDK clients for the agent's life, as deepagents does;
    # an async client's connections outlive the event loop of `asyncio.run`, and are closed by
    # the garbage collector (collected at the end of each run, under this filter).
    pytest.mark.filterwarnings("ignore:unclosed transport:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A `langgraph dev` process serving the subagent graphs (`child`, and `asker`, which
    waits for its user's approval), and its gate folder."""
    app = tmp_path_factory.mktemp("async_subagent_app")
    gates = app / "gates"
    gates.mkdir()
    (app / "graphs.py").write_text(textwrap.dedent(CHILD))
    graphs = {"child": "./graphs.py:child", "asker": "./graphs.py:asker"}
    # Several subagent runs wait on their gates at once.
    with serve(app, graphs, {"ASYNC_SUBAGENT_GATES": str(gates)}, jobs=16) as url:
        yield Server(url, gates)


# -- the parent's model and its settling middleware -------------------------------------------


Turn = Callable[[list[BaseMessage]], AIMessage]


def _settle(server: Server) -> AgentMiddleware:
    """Waits, after each launch or follow-up, until the server started its run, so a check
    that follows finds it running (as a model's next turn would, later)."""

    def settle(result: Any) -> None:
        update = getattr(result, "update", None) or {}
        for task in (update.get("async_tasks") or {}).values():
            if task["status"] == "pending":
                continue  # a follow-up queued behind a run: it waits for that run
            server.wait_run(task["thread_id"], task["run_id"], {"running", "success", "error"})

    class Settle(AgentMiddleware):
        def wrap_tool_call(self, request, handler):
            result = handler(request)
            if request.tool_call["name"] in ("start_async_task", "update_async_task"):
                settle(result)
            return result

        async def awrap_tool_call(self, request, handler):
            result = await handler(request)
            if request.tool_call["name"] in ("start_async_task", "update_async_task"):
                await asyncio.to_thread(settle, result)
            return result

    return Settle()


def _task_id(messages: list[BaseMessage], call_id: str) -> str:
    """The task id ``start_async_task`` answered the call with."""
    answer = next(m for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id)
    return answer.content.rsplit("task_id: ", 1)[1]


def _view(result: dict, model: Director, server: Server) -> dict:
    """One run as the comparison reads it."""
    ids = _Ids()
    messages = [_message(m, ids) for m in result["messages"]]
    tasks = result.get("async_tasks") or {}
    threads = {}
    for task_id in tasks:
        server.wait_settled(task_id)
        thread = server.client.threads.get(task_id)
        runs = []
        for run in reversed(server.client.runs.list(task_id)):
            kwargs = run.get("kwargs") or {}
            configurable = (kwargs.get("config") or {}).get("configurable") or {}
            runs.append(
                {
                    "status": run["status"],
                    "multitask_strategy": run["multitask_strategy"],
                    "input": kwargs.get("input"),
                    "parent": configurable.get("deepagents_parent"),
                    "context": kwargs.get("context"),
                    "webhook": kwargs.get("webhook"),
                }
            )
        threads[task_id] = {"metadata": thread["metadata"], "runs": runs}
    calls = [{"messages": [_message(m, ids) for m in c["messages"]], "tools": c["tools"]} for c in model.calls]
    return {
        "messages": messages,
        "async_tasks": ids.value(tasks),
        "threads": ids.value(threads),
        "calls": calls,
        "keys": sorted(result),
    }


def _run(
    impl: Any, turns: list[Any], server: Server, specs: list[dict], mode: str, config: dict, extra: Callable | None
) -> dict:
    model = Director(turns=turns)
    middleware = [*(extra(impl) if extra else ()), _settle(server)]
    agent = impl.create_deep_agent(model=model, subagents=specs, middleware=middleware)
    inp = {"messages": [{"role": "user", "content": "research, please"}]}
    if extra is not None and getattr(extra, "input", None):
        inp = {"messages": [extra.input]}
    if mode == "invoke":
        result = agent.invoke(inp, config=config)
    else:
        result = asyncio.run(agent.ainvoke(inp, config=config))
    del agent
    gc.collect()
    return _view(result, model, server)


def _both(
    make_turns: Callable[[str], list[Any]], server: Server, specs: list[dict], mode: str, extra: Callable | None = None
) -> tuple[dict, dict]:
    """Each implementation's run, one after the other, each starting with every gate shut
    (the first run's tasks have all ended by then). ``extra(impl)``: more middleware (its
    ``input`` attribute, if any: the user's message)."""
    config = {"configurable": {"thread_id": "parent-thread"}}
    runs = []
    for impl in (deepagents, deepagents_rs):
        server.shut_all()
        runs.append(_run(impl, make_turns(""), server, specs, mode, config, extra))
    return runs[0], runs[1]


def _specs(server: Server) -> list[dict]:
    return [
        {"name": "researcher", "description": "Researches a topic in depth.", "graph_id": "child", "url": server.url},
        {
            "name": "queued",
            "description": "Takes follow-ups in turn.",
            "graph_id": "child",
            "url": server.url,
            "update_strategy": "enqueue",
            # Called by the server when a run ends (nothing listens: the server logs it).
            # Called by the server when a run ends (nothing listens there: it logs that).
            "webhook": "https://127.0.0.1:9/hook",
            "headers": {"x-team": "research"},
        },
    ]


def _assert_same(theirs: dict, ours: dict) -> None:
    assert ours["keys"] == theirs["keys"]
    assert len(ours["calls"]) == len(theirs["calls"])
    for i, (a, b) in enumerate(zip(theirs["calls"], ours["calls"], strict=True)):
        assert b["tools"] == a["tools"], f"call {i}: tools"
        assert b["messages"] == a["messages"], f"call {i}: messages"
    assert ours["messages"] == theirs["messages"]
    assert ours["async_tasks"] == theirs["async_tasks"]
    assert ours["threads"] == theirs["threads"]


# -- the scenarios ----------------------------------------------------------------------------


def _tool_turns(server: Server) -> Callable[[str], list[Any]]:
    """Start two tasks at once, list them, check one that finished, update the other (each
    strategy), cancel it, list by status."""

    def make(p: str) -> list[Any]:
        def finished_then_list(messages):
            quick = _task_id(messages, "start_quick")
            server.open(p + "q1")
            server.wait_ended(quick, "success")
            return _calls(_call("list_async_tasks", {}, "list_all"))

        def check(messages):
            return _calls(_call("check_async_task", {"task_id": _task_id(messages, "start_quick")}, "check_quick"))

        def update(messages):
            slow = _task_id(messages, "start_slow")
            queued = _task_id(messages, "start_queued")
            return _calls(
                _call("update_async_task", {"task_id": slow, "message": f"wait:{p}s2 add more detail"}, "upd_slow"),
                _call("update_async_task", {"task_id": queued, "message": f"wait:{p}k2 and then"}, "upd_q1"),
                _call("update_async_task", {"task_id": queued, "message": "and again"}, "upd_q2"),
            )

        def cancel(messages):
            return _calls(
                _call("cancel_async_task", {"task_id": _task_id(messages, "start_slow")}, "cancel_slow"),
                _call("cancel_async_task", {"task_id": _task_id(messages, "start_queued")}, "cancel_queued"),
                _call("check_async_task", {"task_id": "not-a-task"}, "check_unknown"),
            )

        def listed(messages):
            # Cancelling does not wait for the run to stop: wait for it here.
            server.wait_ended(_task_id(messages, "start_slow"), "interrupted")
            return _calls(
                _call("list_async_tasks", {"status_filter": "cancelled"}, "list_cancelled"),
                _call("check_async_task", {"task_id": _task_id(messages, "start_slow")}, "check_cancelled"),
            )

        return [
            _calls(
                _call(
                    "start_async_task",
                    {"description": f"wait:{p}q1 summarize", "subagent_type": "researcher"},
                    "start_quick",
                ),
                _call(
                    "start_async_task",
                    {"description": f"wait:{p}s1 long job", "subagent_type": "researcher"},
                    "start_slow",
                ),
                _call(
                    "start_async_task",
                    {"description": f"wait:{p}k1 queued job", "subagent_type": "queued"},
                    "start_queued",
                ),
                _call("start_async_task", {"description": "x", "subagent_type": "nobody"}, "start_unknown"),
            ),
            finished_then_list,
            check,
            update,
            cancel,
            listed,
            "All set.",
        ]

    return make


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_tools_against_a_server(server, mode):
    theirs, ours = _both(_tool_turns(server), server, _specs(server), mode)
    _assert_same(theirs, ours)
    tools = [t["function"]["name"] for t in ours["calls"][0]["tools"]]
    assert tools[-5:] == [
        "start_async_task",
        "check_async_task",
        "update_async_task",
        "cancel_async_task",
        "list_async_tasks",
    ]
    statuses = {t["agent_name"] + ":" + t["run_id"]: t["status"] for t in ours["async_tasks"].values()}
    assert sorted(statuses.values()) == ["cancelled", "cancelled", "success"]
    checked = next(m for m in ours["messages"] if m.get("tool_call_id") == "check_quick")
    assert json.loads(checked["content"])["result"].startswith("done: wait:q1 summarize")


def _notify_turns(server: Server) -> Callable[[str], list[Any]]:
    """On the async path: outcomes found before a model call (a success and a failure) and
    after a final answer (which gives the model another turn)."""

    def make(p: str) -> list[Any]:
        def release(messages):
            server.open(p + "a")
            server.open(p + "b")
            server.wait_ended(_task_id(messages, "start_a"), "success")
            server.wait_ended(_task_id(messages, "start_b"), "error")
            return _calls(_call("list_async_tasks", {"status_filter": "success"}, "list_success"))

        def start_last(messages):
            return _calls(
                _call(
                    "start_async_task", {"description": f"wait:{p}c last one", "subagent_type": "researcher"}, "start_c"
                )
            )

        def answer_then_wait(messages):
            server.open(p + "c")
            server.wait_ended(_task_id(messages, "start_c"), "success")
            return "I'll wait for the last one."

        return [
            _calls(
                _call(
                    "start_async_task", {"description": f"wait:{p}a first", "subagent_type": "researcher"}, "start_a"
                ),
                _call("start_async_task", {"description": f"wait:{p}b boom", "subagent_type": "researcher"}, "start_b"),
            ),
            release,
            start_last,
            answer_then_wait,
            "All three are in.",
        ]

    return make


def test_notifications_on_the_async_path(server):
    theirs, ours = _both(_notify_turns(server), server, _specs(server), "ainvoke")
    _assert_same(theirs, ours)
    notes = [m for m in ours["messages"] if "deepagents_notification" in (m.get("additional_kwargs") or {})]
    assert [n["additional_kwargs"]["deepagents_notification"]["status"] for n in notes] == [
        "success",
        "error",
        "success",
    ]
    # The last one came after the final answer, and the model had another turn.
    assert ours["messages"][-2] == notes[-1]
    assert ours["messages"][-1]["content"] == "All three are in."


def test_the_sync_path_does_not_poll(server):
    """With `invoke` the hooks leave the tasks alone: the same turns get no notifications."""
    theirs, ours = _both(_sync_notify_turns(server), server, _specs(server), "invoke")
    _assert_same(theirs, ours)
    assert not any("additional_kwargs" in m for m in ours["messages"])


def _sync_notify_turns(server: Server) -> Callable[[str], list[Any]]:
    make = _notify_turns(server)

    def without_extra_turn(p: str) -> list[Any]:
        return make(p)[:-1]

    return without_extra_turn


def test_fork_mode_sends_the_conversation(server):
    """A `mode="fork"` subagent gets the conversation so far (without the launching turn),
    then the task after deepagents' preamble; the launch tool says it inherits."""
    specs = [{**_specs(server)[0], "name": "forked", "mode": "fork"}]

    def make(p: str) -> list[Any]:
        def launch(messages):
            return _calls(
                _call("start_async_task", {"description": "wait:f1 dig deeper", "subagent_type": "forked"}, "f")
            )

        def check(messages):
            task = _task_id(messages, "f")
            server.open("f1")
            server.wait_ended(task, "success")
            return _calls(_call("check_async_task", {"task_id": task}, "check_f"))

        return [_calls(_call("ls", {"path": "/"}, "look")), launch, check, "Done."]

    with pytest.warns(Warning, match="forked subagents"):
        theirs, ours = _both(make, server, specs, "invoke")
    _assert_same(theirs, ours)
    (thread,) = ours["threads"].values()
    sent = thread["runs"][0]["input"]["messages"]
    assert [m["type"] for m in sent] == ["human", "ai", "tool", "human"]
    assert sent[-1]["content"].startswith("[The messages above are prior conversation inherited from the parent agent.")
    start = next(t for t in ours["calls"][0]["tools"] if t["function"]["name"] == "start_async_task")
    assert (
        "- forked: Researches a topic in depth. (inherits your conversation at launch;"
        in start["function"]["description"]
    )


def _waiting_turns(server: Server) -> Callable[[str], list[Any]]:
    """Subagents that stop for their user's approval: the `waiting` notification and check,
    a follow-up that drops the request, cancelling a waiting task, checking it after."""

    def make(p: str) -> list[Any]:
        def paused(messages):
            server.open("w1")
            for call in ("ask_1", "ask_2"):
                server.wait_ended(_task_id(messages, call), "success")
            return _calls(_call("list_async_tasks", {"status_filter": "success"}, "list_none"))

        def check(messages):
            # The list records the other task's pause too (the sync path has no hooks to).
            return _calls(
                _call("check_async_task", {"task_id": _task_id(messages, "ask_1")}, "check_waiting"),
                _call("list_async_tasks", {}, "list_all"),
            )

        def follow_up(messages):
            message = {"task_id": _task_id(messages, "ask_1"), "message": "never mind, wait:w2 just summarize"}
            return _calls(_call("update_async_task", message, "update_waiting"))

        def cancel(messages):
            return _calls(
                _call("cancel_async_task", {"task_id": _task_id(messages, "ask_1")}, "cancel_running"),
                _call("cancel_async_task", {"task_id": _task_id(messages, "ask_2")}, "cancel_waiting"),
            )

        def after(messages):
            server.wait_settled(_task_id(messages, "ask_1"))
            return _calls(_call("check_async_task", {"task_id": _task_id(messages, "ask_2")}, "check_cancelled"))

        ask = {"subagent_type": "asker"}
        return [
            _calls(
                _call("start_async_task", {**ask, "description": "wait:w1 ask to write the plan"}, "ask_1"),
                _call("start_async_task", {**ask, "description": "wait:w1 ask again"}, "ask_2"),
            ),
            paused,
            check,
            follow_up,
            cancel,
            after,
            "Stopped them.",
        ]

    return make


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_subagents_waiting_for_their_user(server, mode):
    specs = [{"name": "asker", "description": "Asks before it writes.", "graph_id": "asker", "url": server.url}]
    theirs, ours = _both(_waiting_turns(server), server, specs, mode)
    _assert_same(theirs, ours)
    by_call = {m.get("tool_call_id"): m for m in ours["messages"]}
    checked = json.loads(by_call["check_waiting"]["content"])
    assert checked["status"] == "waiting"
    assert checked["interrupts"][0]["value"]["action_requests"][0]["name"] == "write_file"
    assert by_call["update_waiting"]["content"].endswith("It was waiting for a human; that request was dropped.")
    assert by_call["list_all"]["content"].count("status: waiting") == 2
    # A paused task is cancelled without a server call, and stays cancelled.
    assert by_call["cancel_waiting"]["content"].startswith("Cancelled async subagent task: ")
    assert json.loads(by_call["check_cancelled"]["content"])["status"] == "cancelled"
    notes = [m for m in ours["messages"] if "deepagents_notification" in (m.get("additional_kwargs") or {})]
    expected = ["waiting", "waiting"] if mode == "ainvoke" else []
    assert [n["additional_kwargs"]["deepagents_notification"]["status"] for n in notes] == expected


#: A 1x1 PNG.
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_fork_mode_restores_offloaded_media(server, mode, tmp_path):
    """The file tools keep a user's image on the backend (`offload_binary_content`), the
    state a reference to it: a fork's snapshot carries the image itself."""
    specs = [{**_specs(server)[0], "name": "forked", "mode": "fork"}]

    def offloading(impl: Any) -> list[Any]:
        root = tmp_path / impl.__name__
        root.mkdir()
        backend = impl.backends.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        return [impl.FilesystemMiddleware(backend=backend, offload_binary_content=True)]

    offloading.input = {
        "role": "user",
        "content": [
            {"type": "text", "text": "what is in this picture?"},
            {"type": "image", "base64": PNG_B64, "mime_type": "image/png"},
        ],
    }

    def make(p: str) -> list[Any]:
        def check(messages):
            task = _task_id(messages, "f")
            server.open("f2")
            server.wait_ended(task, "success")
            return _calls(_call("check_async_task", {"task_id": task}, "check_f"))

        launch = {"description": "wait:f2 look closer", "subagent_type": "forked"}
        return [_calls(_call("start_async_task", launch, "f")), check, "Done."]

    with pytest.warns(Warning, match="forked subagents"):
        theirs, ours = _both(make, server, specs, mode, extra=offloading)
    _assert_same(theirs, ours)
    (thread,) = ours["threads"].values()
    first = thread["runs"][0]["input"]["messages"][0]
    assert first["content"][1] == {"type": "image", "base64": PNG_B64, "mime_type": "image/png"}
