"""Which stream modes exist, and who makes each: the core, the LangGraph graph that follows it,
or this package from the core's events; and which modes a call asks to print."""

from __future__ import annotations

from typing import Any

#: LangGraph's stream modes that deepagents_rs produces: the core's, then those the LangGraph
#: graph that follows the core produces itself (`_threads`).
SUPPORTED_MODES = ("values", "updates", "messages", "custom", "checkpoints", "tasks", "debug", "tools")
GRAPH_MODES = ("checkpoints", "tasks", "debug")
#: Modes made here from the core's events (`_stream_protocol`), not by the core itself.
PROTOCOL_MODES = ("tools",)
#: The modes in which LangGraph's loop streams a task a tool pushes (`_pushed_parts`).
PUSHED_MODES = ("updates", "tasks", "debug")


def graph_modes(modes: list[str], protocol: bool) -> list[str]:
    """The modes only the LangGraph graph that follows the core makes. Under
    ``stream_events(version="v3")`` (``protocol``) the ``tasks`` it reads are made from the
    core's events instead (`_stream_protocol`)."""
    return [m for m in modes if m in GRAPH_MODES and not (protocol and m == "tasks")]


def asks_graph_modes(stream_mode: Any, protocol: bool = False) -> bool:
    """Whether a stream asks for a mode only the LangGraph graph that follows the core makes."""
    modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode or ())
    return bool(graph_modes(modes, protocol))


def core_modes(modes: list[str], printed: list[str], protocol: bool, subgraphs: bool = False) -> list[str]:
    """The core's modes for a stream of ``modes``: what it makes itself, what the ``tools``
    and v3 ``tasks`` parts are made from, and with ``subgraphs`` the parts compiled
    subagents stream of their own (``graph``, `_subagent_parts`)."""
    out = [m for m in [*modes, *printed] if m not in graph_modes(modes, protocol) and m not in PROTOCOL_MODES]
    if subgraphs or any(m in PUSHED_MODES for m in [*modes, *printed]):
        # Compiled subagents' own parts; the parts of tasks a tool pushes (`_pushed_parts`).
        out.append("graph")
    if "tools" in modes or (protocol and "tasks" in modes):
        out = [m for m in out if m != "tasks"] + ["updates", "values", "routes"]
    if "tools" in modes:
        # LangGraph's tool handler is a streaming one: LangChain streams the model's replies
        # whenever it listens (their chunks are shown only if `messages` is asked for).
        out.append("messages")
    return list(dict.fromkeys(out))


def normalize_modes(stream_mode: Any, default: str) -> tuple[list[str], bool]:
    """The modes asked for, and whether a single mode was given (chunks come bare)."""
    if stream_mode is None:
        return [default], True
    single = isinstance(stream_mode, str)
    modes = [stream_mode] if single else list(stream_mode)
    for mode in modes:
        if mode not in SUPPORTED_MODES:
            raise ValueError(f"Invalid stream mode {mode!r}; expected one of {SUPPORTED_MODES}")
    # LangGraph dedupes a repeated mode.
    return list(dict.fromkeys(modes)), single


def print_modes(kwargs: dict, debug: bool) -> list[str]:
    """LangGraph's ``print_mode`` from a call's ``kwargs`` (taken out of them): the modes whose
    chunks are printed; ``debug`` (the call's or the graph's) prints updates and values."""
    modes = kwargs.pop("print_mode", ())
    if kwargs.pop("debug", None) or debug:
        return ["updates", "values"]
    return [modes] if isinstance(modes, str) else list(modes or ())
