"""A ``StateBackend`` used by the user's middleware inside the agent's run (a model call's
wrapper, a node hook), side by side with deepagents: what it writes lands in ``files`` as
the node's write, and what it reads is the node's input files with its own writes."""

from __future__ import annotations

from typing import Any

import deepagents
import deepagents_rs
import pytest
from deepagents.backends import StateBackend as RefStateBackend
from deepagents_rs.backends import StateBackend
from langchain.agents.middleware import AgentMiddleware
from langgraph.checkpoint.memory import InMemorySaver

from .harness import MODES, ScriptedChatModel, ai_tool_calls, norm_files

USER = {"messages": [{"role": "user", "content": "go"}], "files": {}}


def _backend(module: Any) -> Any:
    return (RefStateBackend if module is deepagents else StateBackend)()


class Uploads(AgentMiddleware):
    """Uploads a file after each model call, from ``wrap_model_call``."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        response = handler(request)
        self.backend.upload_files([("/injected.txt", b"from middleware")])
        return response

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        response = await handler(request)
        self.backend.upload_files([("/injected.txt", b"from middleware")])
        return response


class Notes(AgentMiddleware):
    """``before_model`` writes a note (reading what is there first, then its own write);
    ``after_model`` returns its own ``files`` besides the backend's write."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.seen: list[str] = []

    def before_model(self, state: Any, runtime: Any) -> Any:
        before = self.backend.read("/note.txt")
        self.seen.append(before.error or before.file_data["content"])
        self.backend.write(f"/note{len(self.seen)}.txt", "note")
        after = self.backend.read(f"/note{len(self.seen)}.txt")
        self.seen.append(after.error or after.file_data["content"])
        return None

    def after_model(self, state: Any, runtime: Any) -> Any:
        self.backend.edit("/note1.txt", "note", "edited")
        return {"files": {"/own.txt": {"content": "own", "encoding": "utf-8"}}}


def _agent_run(module: Any, middleware: Any, mode: str, saver: bool) -> tuple[dict, list, Any]:
    import asyncio

    backend = _backend(module)
    mw = middleware(backend)
    script = [ai_tool_calls(("read_file", {"file_path": "/injected.txt"}, "c1")), "done"]
    if middleware is Notes:
        script = [ai_tool_calls(("read_file", {"file_path": "/note1.txt"}, "c1")), "done"]
    model = ScriptedChatModel(script)
    agent = module.create_deep_agent(
        model=model, backend=backend, middleware=[mw], checkpointer=InMemorySaver() if saver else None
    )
    config = {"configurable": {"thread_id": "t"}}
    if mode == "invoke":
        result = agent.invoke(dict(USER), config)
    else:
        result = asyncio.run(agent.ainvoke(dict(USER), config))
    return result, [[m.content for m in c.messages] for c in model.calls], getattr(mw, "seen", None)


@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("middleware", [Uploads, Notes])
def test_state_backend_in_middleware(middleware: type, mode: str, saver: bool) -> None:
    ref = _agent_run(deepagents, middleware, mode, saver)
    rs = _agent_run(deepagents_rs, middleware, mode, saver)
    assert norm_files(rs[0]["files"]) == norm_files(ref[0]["files"])
    assert rs[1] == ref[1]
    assert rs[2] == ref[2]
    # The file written by the middleware was there for the model's read.
    assert "Error" not in str(ref[1][1][-1])


def test_wrapper_upload_streams_in_the_model_update() -> None:
    """The upload is part of the model node's write, as deepagents streams it."""

    def updates(module: Any) -> list:
        backend = _backend(module)
        agent = module.create_deep_agent(
            model=ScriptedChatModel(["done"]), backend=backend, middleware=[Uploads(backend)]
        )
        out = []
        for chunk in agent.stream(dict(USER), stream_mode="updates"):
            for node, update in chunk.items():
                out.append((node, sorted(update) if isinstance(update, dict) else update))
        return out

    assert updates(deepagents_rs) == updates(deepagents)
