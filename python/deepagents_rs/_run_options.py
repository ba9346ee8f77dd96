"""A run's options and output shape: LangChain's config merge, LangGraph's output versions,
and the error for what is planned."""

from __future__ import annotations

from typing import Any

from ._runtime import running_loop


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


def _check_version(version: str) -> None:
    if version not in ("v1", "v2"):
        raise ValueError(f"Unknown version {version!r}; expected 'v1' or 'v2'")


def _versioned(result: dict, version: str) -> Any:
    if version == "v1":
        return result
    from langgraph.types import GraphOutput

    return GraphOutput(result, ())


def _graph_kwargs(kwargs: dict) -> None:
    """Checks LangGraph's run options that change nothing in a run without a checkpointer:
    a ``durability`` (LangGraph warns, and fails on ``"sync"``). Any other keyword LangGraph's
    ``stream`` takes and ignores, and so is it here."""
    rest = dict(kwargs)
    # The runtime context is taken by `_prepare`.
    rest.pop("context", None)
    # A run given a control goes through the thread graph, which takes it (`_thread_run`).
    rest.pop("control", None)
    durability = durability_of(rest)
    if durability is not None:
        import warnings

        warnings.warn("`durability` has no effect when no checkpointer is present.", stacklevel=4)
        if durability == "sync":
            # What LangGraph's loop then raises, having nowhere to put the checkpoint (its
            # async loop, under ainvoke/astream, which run on the caller's event loop).
            loop = "AsyncPregelLoop" if running_loop() is not None else "SyncPregelLoop"
            raise AttributeError(f"'{loop}' object has no attribute '_put_checkpoint_fut'")


def durability_of(kwargs: dict) -> str | None:
    """The run's ``durability`` (taken out of ``kwargs``), with LangGraph's reading of the
    deprecated ``checkpoint_during``."""
    durability = kwargs.pop("durability", None)
    checkpoint_during = kwargs.pop("checkpoint_during", None)
    if checkpoint_during is None:
        return durability
    import warnings

    from langgraph.warnings import LangGraphDeprecatedSinceV10

    warnings.warn(
        "`checkpoint_during` is deprecated and will be removed. Please use `durability` instead.",
        category=LangGraphDeprecatedSinceV10,
        stacklevel=4,
    )
    if durability is not None:
        raise ValueError(
            "Cannot use both `checkpoint_during` and `durability` parameters. Please use `durability` instead."
        )
    return "async" if checkpoint_during else "exit"
