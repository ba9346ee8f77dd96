"""LangGraph's own server serves the agent unchanged: one real ``langgraph dev`` process
serves the example app's agent built by deepagents_rs (``agent``) and the same agent built by
deepagents (``reference``), and the same ``langgraph-sdk`` calls get the same answers from
both: assistants and their graphs, ``runs.wait``, ``runs.stream`` in each stream mode,
interrupts resumed with ``Command``, thread state and history.

Both talk to the simulated Anthropic API on loopback (deepagents through ChatAnthropic,
deepagents_rs through its native client), scripted the same way before each run.
"""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest
from sim.anthropic import SimAnthropic, text, tool_use

langgraph_sdk = pytest.importorskip("langgraph_sdk")

from langgraph_dev import serve

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "langgraph_server"
GRAPHS = ("agent", "reference")

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A `langgraph dev` process serving both graphs, and the simulated provider."""
    app = tmp_path_factory.mktemp("langgraph_app")
    (app / "graphs.py").write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(EXAMPLE)!r})
            import deepagents
            import deepagents_rs
            from agent import build
            agent = build(deepagents_rs.create_deep_agent)
            reference = build(deepagents.create_deep_agent)
            """
        )
    )
    graphs = {"agent": "./graphs.py:agent", "reference": "./graphs.py:reference"}
    with SimAnthropic(min_cache_tokens=64) as sim:
        env = {"ANTHROPIC_BASE_URL": sim.base_url, "ANTHROPIC_API_KEY": "sk-sim"}
        with serve(app, graphs, env) as url:
            yield sim, url


def _with_client(url: str, body: Any) -> Any:
    """``body(client)`` with a langgraph-sdk client of its own, closed after."""

    async def go():
        async with langgraph_sdk.get_client(url=url) as client:
            return await body(client)

    return asyncio.run(go())


def _message(m: dict) -> dict:
    """What both implementations must agree on in a message (not provider metadata or ids)."""
    out = {"type": m["type"], "content": m["content"], "name": m.get("name")}
    if m["type"] == "ai":
        out["tool_calls"] = [(c["name"], c["args"]) for c in m.get("tool_calls") or []]
    if m["type"] == "tool":
        out.update(status=m.get("status"), tool_call_id=m["tool_call_id"].split("_")[0])
    if isinstance(out["content"], list):
        out["content"] = [
            {k: v for k, v in b.items() if k not in ("id", "toolset_name")} if isinstance(b, dict) else b
            for b in out["content"]
        ]
    return out


def _values(values: dict) -> dict:
    files = {p: f["content"] for p, f in (values.get("files") or {}).items()}
    return {"messages": [_message(m) for m in values.get("messages") or []], "files": files}


def _script_note(sim: SimAnthropic) -> None:
    sim.script(tool_use(("write_file", {"file_path": "/notes.md", "content": "hello there"})), text("noted"))


NOTE = {"messages": [{"role": "user", "content": "note hello there"}]}


def test_assistants_and_graphs(server):
    _sim, url = server

    async def go(client):
        found = {a["graph_id"]: a for a in await client.assistants.search()}
        assert set(GRAPHS) <= set(found)
        drawn = {g: await client.assistants.get_graph(found[g]["assistant_id"]) for g in GRAPHS}
        schemas = {g: await client.assistants.get_schemas(found[g]["assistant_id"]) for g in GRAPHS}
        return drawn, schemas

    drawn, schemas = _with_client(url, go)

    def shape(graph):
        return (
            sorted(n["id"] for n in graph["nodes"]),
            sorted((e["source"], e["target"], e.get("conditional", False)) for e in graph["edges"]),
        )

    assert shape(drawn["agent"]) == shape(drawn["reference"])
    for key in ("input_schema", "output_schema", "state_schema", "context_schema"):
        ours, theirs = ({**(schemas[g][key] or {}), "title": None} for g in GRAPHS)
        assert ours == theirs, key
    # The state schema is titled after the graph id the server gives each graph.
    assert schemas["agent"]["state_schema"]["title"] == "agent_state"


def test_wait_and_thread_state(server):
    sim, url = server

    async def go(client, graph):
        _script_note(sim)
        thread = await client.threads.create()
        result = await client.runs.wait(thread["thread_id"], graph, input=NOTE)
        state = await client.threads.get_state(thread["thread_id"])
        history = await client.threads.get_history(thread["thread_id"])
        return result, state, history

    got = {g: _with_client(url, lambda c, g=g: go(c, g)) for g in GRAPHS}
    (ours, our_state, our_history), (theirs, their_state, their_history) = got["agent"], got["reference"]
    assert _values(ours) == _values(theirs)
    assert _values(ours)["files"] == {"/notes.md": "hello there"}
    assert _values(our_state["values"]) == _values(their_state["values"])
    assert our_state["next"] == their_state["next"] == []
    assert [h["metadata"]["step"] for h in our_history] == [h["metadata"]["step"] for h in their_history]
    assert [h["next"] for h in our_history] == [h["next"] for h in their_history]
    assert [_values(h["values"]) for h in our_history] == [_values(h["values"]) for h in their_history]


def _parts(sim: SimAnthropic, url: str, graph: str, mode: str) -> list[Any]:
    async def go(client):
        _script_note(sim)
        thread = await client.threads.create()
        return [
            (part.event, part.data)
            async for part in client.runs.stream(thread["thread_id"], graph, input=NOTE, stream_mode=mode)
        ]

    return _with_client(url, go)


def _shape(mode: str, event: str, data: Any) -> Any:
    """A stream part as both implementations must agree on it."""
    if event == "metadata":
        return event
    if event == "values":
        return event, _values(data)
    if event == "updates":
        return event, {
            node: _values(update) if isinstance(update, dict) else update for node, update in (data or {}).items()
        }
    if event == "debug":
        return (
            event,
            data["type"],
            data["step"],
            (data["payload"].get("name") if data["type"] != "checkpoint" else None),
        )
    if event == "messages":
        message, meta = data
        return event, message["type"], meta.get("langgraph_node")
    return event, data


@pytest.mark.parametrize("mode", ["values", "updates", "debug", "custom"])
def test_stream_modes(server, mode):
    sim, url = server
    ours, theirs = (_parts(sim, url, g, mode) for g in GRAPHS)
    assert [_shape(mode, *p) for p in ours] == [_shape(mode, *p) for p in theirs]
    assert any(event == mode for event, _ in ours) or mode == "custom"


def test_stream_messages_tuple(server):
    """Token streaming: the same messages, pieced together, from the same nodes."""
    sim, url = server

    def joined(parts):
        by_id: dict = {}
        for event, data in parts:
            if event != "messages":
                continue
            message, meta = data
            entry = by_id.setdefault(message["id"], [message["type"], meta["langgraph_node"], ""])
            content = message["content"]
            blocks = [content] if isinstance(content, str) else content
            entry[2] += "".join(b if isinstance(b, str) else b.get("text", "") for b in blocks)
        return sorted(tuple(v) for v in by_id.values())

    ours, theirs = (_parts(sim, url, g, "messages-tuple") for g in GRAPHS)
    assert joined(ours) == joined(theirs)
    assert ("AIMessageChunk", "model", "noted") in joined(ours)


def test_stream_events(server):
    """`events` mode runs the agent under `astream_events`: the runs of the graph, its nodes,
    the model and the tools start and end as for deepagents' graph."""
    sim, url = server

    def runs(parts):
        return sorted(
            (data["event"], data["name"])
            for event, data in parts
            if event == "events" and data["event"].endswith(("_start", "_end"))
        )

    ours, theirs = (_parts(sim, url, g, "events") for g in GRAPHS)
    # The graph's own run is named after the graph id the server gives it.
    assert [r for r in runs(ours) if r[1] != "agent"] == [r for r in runs(theirs) if r[1] != "reference"]
    assert ("on_chain_start", "agent") in runs(ours)
    assert ("on_tool_end", "write_file") in runs(ours)


def test_interrupt_and_resume(server):
    sim, url = server

    async def go(client, graph):
        sim.script(
            tool_use(("write_file", {"file_path": "/a.md", "content": "draft one"})),
            tool_use(("edit_file", {"file_path": "/a.md", "old_string": "draft", "new_string": "final"})),
            text("edited"),
        )
        thread = await client.threads.create()
        first = await client.runs.wait(
            thread["thread_id"], graph, input={"messages": [{"role": "user", "content": "go"}]}
        )
        paused = await client.threads.get_state(thread["thread_id"])
        resumed = await client.runs.wait(
            thread["thread_id"], graph, command={"resume": {"decisions": [{"type": "approve"}]}}
        )
        done = await client.threads.get_state(thread["thread_id"])
        history = await client.threads.get_history(thread["thread_id"], limit=50)
        return first, paused, resumed, done, history

    got = {g: _with_client(url, lambda c, g=g: go(c, g)) for g in GRAPHS}
    ours, theirs = got["agent"], got["reference"]
    (first, paused, resumed, done, history) = ours
    assert paused["next"] == theirs[1]["next"] == ["HumanInTheLoopMiddleware.after_model"]
    interrupts = [[i["value"] for i in t["interrupts"]] for t in paused["tasks"]]
    assert interrupts == [[i["value"] for i in t["interrupts"]] for t in theirs[1]["tasks"]]
    assert first["__interrupt__"][0]["value"] == theirs[0]["__interrupt__"][0]["value"]
    assert _values(resumed) == _values(theirs[2])
    assert _values(done["values"])["files"] == {"/a.md": "final one"}
    assert _values(done["values"]) == _values(theirs[3]["values"])
    assert [h["metadata"]["step"] for h in history] == [h["metadata"]["step"] for h in theirs[4]]
