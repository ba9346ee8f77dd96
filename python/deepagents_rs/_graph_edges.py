"""The edges of deepagents' graph, as LangChain's ``create_agent`` lays them out, for the
agent's face (``get_graph`` draws them; nothing runs on them: the core routes a run).

Each edge is ``(source, destinations, conditional)``: a plain edge has one destination, a
conditional one lists every node it may go to.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

START, END = "__start__", "__end__"
HOOKS = ("before_agent", "before_model", "after_model", "after_agent")

Edge = tuple[str, tuple[str, ...], bool]


def hook_of(node: str) -> str | None:
    """The middleware hook a node runs (``"X.before_model"``), or None for model and tools."""
    for hook in HOOKS:
        if node.endswith("." + hook):
            return hook
    return None


def agent_edges(node_names: Sequence[str], can_jump: Mapping[str, Sequence[str]], tools_may_end: bool) -> list[Edge]:
    """The edges between ``node_names`` (the core's nodes, each hook's in running order).

    ``can_jump`` holds a hook node's declared jumps (``"model"``, ``"tools"``, ``"end"``);
    ``tools_may_end`` is whether a tools step can end the run (a ``return_direct`` tool or a
    structured response)."""
    running = {hook: [n for n in node_names if hook_of(n) == hook] for hook in HOOKS}
    before_agent, before_model = running["before_agent"], running["before_model"]
    after_model, after_agent = running["after_model"], running["after_agent"]
    # After-hooks run in reverse order of the middleware list: the first to run is the last
    # middleware's, and the chain's exit is the first middleware's.
    loop_entry = before_model[0] if before_model else "model"
    loop_exit = after_model[-1] if after_model else "model"
    exit_node = after_agent[0] if after_agent else END
    entry = (before_agent or before_model or ["model"])[0]

    def hook_edge(node: str, default: str) -> Edge:
        jumps = can_jump.get(node) or ()
        if not jumps:
            return (node, (default,), False)
        targets = [default]
        if "end" in jumps:
            targets.append(exit_node)
        if "tools" in jumps:
            targets.append("tools")
        if "model" in jumps and node != loop_entry:
            targets.append(loop_entry)
        return (node, tuple(targets), True)

    edges: list[Edge] = [(START, (entry,), False)]
    if "tools" in node_names:
        edges.append(("tools", (loop_entry, exit_node) if tools_may_end else (loop_entry,), True))
        # deepagents' own middleware always wraps the model call, so the model's edge may loop
        # back to the loop's entry too.
        edges.append((loop_exit, ("tools", exit_node, loop_entry), True))
    elif tools_may_end:
        # No tools node but a structured response: the model may be asked again.
        edges.append((loop_exit, (loop_entry, exit_node), True))
    elif loop_exit == "model":
        edges.append(("model", (exit_node,), False))
    else:
        edges.append(hook_edge(loop_exit, exit_node))
    for chain, last in ((before_agent, loop_entry), (before_model, "model")):
        for node, nxt in zip(chain, [*chain[1:], last]):
            edges.append(hook_edge(node, nxt))
    if after_model:
        edges.append(("model", (after_model[0],), False))
        for node, nxt in itertools.pairwise(after_model):
            edges.append(hook_edge(node, nxt))
    for node, nxt in zip(after_agent, [*after_agent[1:], END]):
        edges.append(hook_edge(node, nxt))
    return edges
