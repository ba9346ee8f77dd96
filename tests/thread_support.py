"""What the durable-thread tests share: the scripted agent and its tool, the savers' contents
without what is drawn at random, and the PostgreSQL server and savers as fixtures.

Used by ``test_threads`` and the thread tests beside it (HITL, subagents, user savers).
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from typing import Any

import deepagents
import deepagents_rs
import pg_server
import psycopg
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import BaseMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Interrupt
from psycopg.rows import dict_row

IMPLS = (deepagents, deepagents_rs)
THREAD = {"configurable": {"thread_id": "T1"}}


@tool
def my_tool(x: int) -> str:
    """Double x."""
    return f"result={2 * x}"


def script() -> list[Any]:
    """Turn one: a tool call, two calls in parallel, then an answer; then one answer a turn."""
    return [
        ai_tool_calls(("my_tool", {"x": 1}, "call_A")),
        ai_tool_calls(
            ("my_tool", {"x": 2}, "call_B"), ("write_file", {"file_path": "/n.txt", "content": "hi"}, "call_C")
        ),
        "done",
        "second turn",
        "third turn",
    ]


def make(impl: Any, saver: Any, model: ScriptedChatModel | None = None) -> Any:
    return impl.create_deep_agent(model=model or ScriptedChatModel(script()), tools=[my_tool], checkpointer=saver)


def _value(v: Any) -> Any:
    if isinstance(v, Interrupt):
        # Its id comes from the thread's own task ids, drawn at random.
        return ("Interrupt", _value(v.value), v.response_schema)
    if isinstance(v, BaseMessage):
        calls = [(c["name"], c["args"], c["id"]) for c in getattr(v, "tool_calls", [])]
        return (v.type, v.content, calls, getattr(v, "tool_call_id", None), v.id is not None)
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    if isinstance(v, dict):
        return {k: _value(x) for k, x in v.items() if k not in ("created_at", "modified_at")}
    return repr(v) if not isinstance(v, (str, int, float, bool, type(None))) else v


def dump(saver: Any, thread: dict = THREAD) -> list[Any]:
    """The thread's checkpoints, oldest first, without what is drawn at random."""
    out = []
    for t in reversed(list(saver.list(thread))):
        c = t.checkpoint
        meta = dict(t.metadata)
        out.append(
            {
                "metadata": meta,
                "values": _value(c["channel_values"]),
                "channels": sorted(c["channel_versions"]),
                "seen": {k: sorted(v) for k, v in c["versions_seen"].items()},
                "updated": c.get("updated_channels"),
                "parent": t.parent_config is not None,
                "writes": [(w[1], _value(w[2])) for w in t.pending_writes],
            }
        )
    return out


def snapshot(agent: Any, config: dict = THREAD) -> dict:
    s = agent.get_state(config)
    return {
        "values": _value(s.values),
        "next": s.next,
        "step": s.metadata["step"],
        "source": s.metadata["source"],
        "tasks": [(t.name, t.path[0]) for t in s.tasks],
        "interrupts": s.interrupts,
    }


def history(agent: Any, **kw: Any) -> list[Any]:
    return [(h.metadata["step"], h.metadata["source"], h.next) for h in agent.get_state_history(THREAD, **kw)]


def first_difference(a: list[Any], b: list[Any]) -> str | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"checkpoint {i}:\n deepagents    {x}\n deepagents_rs {y}"
    if len(a) != len(b):
        return f"{len(a)} checkpoints vs {len(b)}"
    return None


@pytest.fixture(scope="session")
def pg_dsn() -> Any:
    """A PostgreSQL server for the whole session."""
    reason = pg_server.available()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    with pg_server.server() as dsn:
        yield dsn


def fresh_database(dsn: str) -> str:
    """A new, empty database on the server: its connection string."""
    name = f"t_{uuid.uuid4().hex}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return dsn.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def new_saver(request: Any) -> Any:
    """Makes savers of one kind, each on storage of its own."""
    conns: list[Any] = []

    def make() -> Any:
        if request.param == "memory":
            return InMemorySaver()
        if request.param == "sqlite":
            return SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
        url = fresh_database(request.getfixturevalue("pg_dsn"))
        conn = psycopg.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row)
        conns.append(conn)
        saver = PostgresSaver(conn)
        saver.setup()
        return saver

    yield make
    for conn in conns:
        conn.close()
