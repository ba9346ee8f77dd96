"""A run's options and output shape: LangChain's config merge, LangGraph's output versions,
and the error for what is planned."""

from __future__ import annotations

from typing import Any


def _merge_configs(base: dict, override: dict) -> dict:
    """LangChain's config merge: ``configurable`` and ``metadata`` merge key by key, ``tags``
    join, anything else is replaced."""
    out = dict(base)
    for key, value in override.items():
        if key in ("configurable", "metadata") and isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = {**out[key], **value}
        elif key == "tags" and isinstance(out.get(key), list) and isinstance(value, list):
            out[key] = [*out[key], *(t for t in value if t not in out[key])]
        else:
            out[key] = value
    return out


def _planned(param: str, issue: str) -> NotImplementedError:
    return NotImplementedError(f"deepagents_rs: `{param}` is not supported yet; it is planned ({issue}).")


def _check_version(version: str) -> None:
    if version not in ("v1", "v2"):
        raise ValueError(f"Unknown version {version!r}; expected 'v1' or 'v2'")


def _versioned(result: dict, version: str) -> Any:
    if version == "v1":
        return result
    from langgraph.types import GraphOutput

    return GraphOutput(result, ())


def _graph_kwargs(kwargs: dict, output_channels: Any) -> dict:
    """``kwargs`` without LangGraph's run options that change nothing here, as LangGraph's
    server passes them on every run: no runtime ``context`` (a context schema is planned),
    ``output_keys`` naming the graph's own output channels."""
    rest = dict(kwargs)
    context = rest.pop("context", None)
    if context:
        raise _planned("context", "runtime context")
    # A run given a control goes through the thread graph, which takes it (`_thread_run`).
    rest.pop("control", None)
    output_keys = rest.pop("output_keys", None)
    if output_keys is not None and _channel_set(output_keys) != _channel_set(output_channels):
        raise _planned(f"output_keys={output_keys!r}", "output keys other than the graph's output channels")
    return rest


def _channel_set(channels: Any) -> frozenset:
    return frozenset([channels] if isinstance(channels, str) else channels or ())
