"""The config a run takes from around it: inside a LangGraph task (a node, a tool of a
ToolNode, deepagents' `task` tool calling a ``CompiledSubAgent``) LangGraph's
``Pregel.invoke`` merges the task's config (LangChain's context variable) under the one it
is handed, key by key (``ensure_config``); so does the agent, so that its stream parts,
checkpoints and interrupts belong to that task. Outside a LangGraph task nothing changes."""

from __future__ import annotations

import functools
from typing import Any

from ._graph_face import IS_GRAPH
from ._threads import in_parent_graph


@functools.cache
def _child_config_var() -> Any:
    """LangChain's context variable holding the current task's config: imported at the first
    run (LangChain is not loaded at start-up) and kept, as every invoke asks."""
    from langchain_core.runnables.config import var_child_runnable_config

    return var_child_runnable_config


def with_ambient(config: Any, *own: dict) -> Any:
    """``config`` merged over the agent's ``own`` configs (its graph config, its
    ``with_config`` defaults), over the enclosing LangGraph task's config, in LangGraph's
    order (``Pregel.stream``: ``ensure_config(self.config, config)``), or ``config`` itself
    outside a task."""
    if not IS_GRAPH or not in_parent_graph(_child_config_var().get()):
        return config
    from deepagents_rs._langgraph_private import ensure_config

    merged = dict(ensure_config(*own, config))
    # A plain dict where LangGraph leaves a ChainMap, for the agent's own key-by-key merges.
    merged["metadata"] = dict(merged.get("metadata") or {})
    return merged
