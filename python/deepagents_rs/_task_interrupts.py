"""The run's interrupts as the thread graph's tasks raise them (see ``_thread_feed``)."""

from __future__ import annotations

#: Marks an interrupt raised by a subgraph that already ran in its own task (a compiled
#: subagent's): its ids are LangGraph's own and stay.
PLACED = "_deepagents_rs_placed"


def in_task(error: BaseException, config: dict) -> BaseException:
    """The run's failure as the thread graph's task raises it. An ``interrupt()`` the core's
    host code called (a human-in-the-loop hook, a tool) is LangGraph's ``GraphInterrupt``,
    whose ids LangGraph derives from the interrupting task's namespace: the core called it
    ahead of this task, so the ids are derived again from this task's."""
    from langgraph.errors import GraphInterrupt

    if not isinstance(error, GraphInterrupt) or not error.args or getattr(error, PLACED, False):
        return error
    from langgraph.types import Interrupt

    from deepagents_rs._langgraph_private import CONFIG_KEY_CHECKPOINT_NS, _interrupt_id

    ns = (config.get("configurable") or {}).get(CONFIG_KEY_CHECKPOINT_NS)
    if not ns:
        return error
    interrupts = tuple(
        Interrupt(value=i.value, id=_interrupt_id(ns, n), response_schema=getattr(i, "response_schema", None))
        for n, i in enumerate(error.args[0])
    )
    return GraphInterrupt(interrupts)
