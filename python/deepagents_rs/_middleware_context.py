"""Where a middleware call runs: the node's config as LangGraph leaves it, and the task's files and
channels a ``StateBackend`` and ``__pregel_send`` write to."""

from __future__ import annotations

import collections.abc
import contextlib
from typing import Any

from ._files_context import FilesContext, node_files, use_files
from ._task_channels import task_writes


@contextlib.contextmanager
def _node_config(config: Any) -> Any:
    """The model node's config where LangGraph leaves it for the middleware it runs
    (``langgraph.config.get_config()``); the model call itself sets its own."""
    if config is None:
        yield
        return
    from langchain_core.runnables.config import var_child_runnable_config

    token = var_child_runnable_config.set(dict(config))
    try:
        yield
    finally:
        var_child_runnable_config.reset(token)


@contextlib.contextmanager
def _wrapper_task(run: Any, task_config: dict, state: dict) -> collections.abc.Iterator[Any]:
    """Where a tool call's wrapper runs: its task's config and files, its channels sharing
    the task's writes with the tool and the other wrappers (`_task_channels.task_writes`)."""
    with task_writes(run, task_config), _node_config(task_config), _task_files(task_config, state) as (_, channels):
        yield channels


@contextlib.contextmanager
def _task_files(config: Any, state: dict) -> collections.abc.Iterator[tuple[FilesContext, Any]]:
    """The files a node's ``StateBackend`` reads and writes, and the node's task channels:
    its config's (`_task_channels`), so that a write through ``__pregel_send`` and one through
    the backend land in the same place; the node's input files where it has none."""
    from . import _task_channels

    channels = _task_channels.of((config or {}).get("configurable") or {})
    if channels is None:
        with node_files(state) as files:
            yield files, None
        return
    with use_files(channels.files):
        yield channels.files, channels
