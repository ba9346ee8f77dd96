"""What a Python chat model sees of the model node it runs in, side by side with deepagents:
``get_config()`` inside its ``_generate``/``_agenerate`` (LangChain's create_agent calls the
model with no config of its own, inside the ``model`` node's task, so the model takes the
task's config) and its ``run_manager.metadata`` (the node's metadata under its callbacks).

Under invoke and ainvoke, without a saver and with one, for the main agent and for the
general-purpose subagent, with a callback handler listening and without. Ids are compared by
shape: each uuid is numbered in order of first appearance, so the same id must appear in the
same places on both sides (not by uuid version: LangGraph's task ids are hashes). LangGraph's loop machinery in the
configurable (``__pregel_*`` but the task id and runtime) is compared as key names only.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from pydantic import Field

from .placeholders import Placeholders

#: LangGraph's private configurable keys compared by value (the runtime by its fields).
_SHOWN_PREGEL = ("__pregel_task_id",)
#: The loop's read, send, call and scratchpad machinery: not in ours' model config (a chat
#: model reading or writing the graph's channels is not supported).
_LOOP_KEYS = frozenset(
    {
        "__pregel_call",
        "__pregel_checkpointer",
        "__pregel_read",
        "__pregel_read_state",
        "__pregel_replay_state",
        "__pregel_scratchpad",
        "__pregel_send",
    }
)


_VERSIONED = re.compile(r"uuid[0-9x]+#")


def _numbered(obj: Any, ids: Placeholders) -> Any:
    """``obj`` with its uuids numbered in order of first appearance, version left out."""
    if isinstance(obj, str):
        return _VERSIONED.sub("id#", ids.string(obj))
    if isinstance(obj, dict):
        return {_numbered(k, ids): _numbered(v, ids) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_numbered(v, ids) for v in obj)
    return obj


class _SeeingModel(ScriptedChatModel):
    """Records, at each call, ``get_config()`` (or the error it raised) and the metadata of
    the call's run manager."""

    seen: list = Field(default_factory=list, exclude=True)

    def _see(self, run_manager: Any) -> None:
        try:
            config: Any = get_config()
        except RuntimeError as exc:
            config = exc
        self.seen.append((config, dict(run_manager.metadata) if run_manager is not None else None))

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self._see(run_manager)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        self._see(run_manager)
        return await super()._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs)


class _Listener(BaseCallbackHandler):
    """A handler, so the run is traced (its callbacks reach the model's run manager)."""


def _runtime_view(runtime: Any) -> dict:
    info = runtime.execution_info
    return {
        "context": runtime.context,
        "store": runtime.store,
        "execution_info": None
        if info is None
        else (info.checkpoint_id, info.checkpoint_ns, info.task_id, info.thread_id, info.run_id),
    }


def _configurable_view(configurable: dict) -> dict:
    view = {
        k: v if not k.startswith("__") or k in _SHOWN_PREGEL else "<obj>"
        for k, v in sorted(configurable.items())
        if k not in _LOOP_KEYS and k != "__pregel_runtime"
    }
    runtime = configurable.get("__pregel_runtime")
    view["__pregel_runtime"] = None if runtime is None else _runtime_view(runtime)
    return view


def _callbacks_view(callbacks: Any) -> tuple:
    return type(callbacks).__name__, str(getattr(callbacks, "parent_run_id", None)), list(callbacks.tags or ())


def _value_view(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, list, type(None))) else type(value).__name__


#: How each config key is shown (others by `_value_view`).
_VIEWS = {
    "configurable": _configurable_view,
    "callbacks": _callbacks_view,
    "metadata": lambda m: dict(sorted(m.items())),
}


def _config_view(config: Any) -> Any:
    """``get_config()`` as compared (the error it raised, outside any runnable context)."""
    if isinstance(config, Exception):
        return repr(config)
    return {key: _VIEWS.get(key, _value_view)(value) for key, value in sorted(config.items())}


def _run(module: Any, how: str, saver: bool, subagent: bool, traced: bool) -> list:
    if subagent:
        script = [
            ai_tool_calls(("task", {"description": "d", "subagent_type": "general-purpose"}, "t1")),
            AIMessage("sub done"),
            AIMessage("done"),
        ]
    else:
        script = [AIMessage("done")]
    model = _SeeingModel(responses=script)
    agent = module.create_deep_agent(model=model, checkpointer=InMemorySaver() if saver else None)
    config: dict[str, Any] = {"configurable": {"thread_id": "t"}}
    if traced:
        config["callbacks"] = [_Listener()]
    payload = {"messages": [("user", "go")]}
    if how == "ainvoke":
        asyncio.run(agent.ainvoke(payload, config))
    else:
        agent.invoke(payload, config)
    ids = Placeholders(namespaces=False)
    seen = [(_config_view(c), dict(sorted(m.items())) if m is not None else None) for c, m in model.seen]
    return _numbered(seen, ids)


@pytest.mark.parametrize("traced", [False, True], ids=["untraced", "traced"])
@pytest.mark.parametrize("subagent", [False, True], ids=["main", "subagent"])
@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_model_sees_its_node_config(how: str, saver: bool, subagent: bool, traced: bool) -> None:
    theirs = _run(deepagents, how, saver, subagent, traced)
    ours = _run(deepagents_rs, how, saver, subagent, traced)
    assert len(theirs) == (3 if subagent else 1)
    # The reference's model sees its node: get_config() works and names the model node.
    assert all(not isinstance(c, str) and c["metadata"]["langgraph_node"] == "model" for c, _ in theirs)
    assert ours == theirs
