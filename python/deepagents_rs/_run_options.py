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
