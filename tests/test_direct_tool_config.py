"""The config a direct tool call runs with (``_direct_tools._child_config``): the given
callbacks are read, not copied, and still win over a context's, as ``ensure_config`` has it."""

from __future__ import annotations

from typing import Any

import pytest
from deepagents_rs import _direct_tools
from deepagents_rs._tools import LangChainToolAdapter
from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager, CallbackManager
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tools import tool


@tool
def seen_config() -> str:
    """Say what the config holds."""
    config = var_child_runnable_config.get()
    assert config is not None
    return f"{type(config['callbacks']).__name__}:{sorted(config['metadata'].items())}"


class Listener(BaseCallbackHandler):
    pass


def _call(config: dict) -> Any:
    adapter = LangChainToolAdapter(seen_config)
    assert adapter._direct is not None
    return _direct_tools.call_direct(seen_config, adapter._direct, {}, "call_1", config)


def test_the_given_manager_is_not_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    copies: list[Any] = []
    real = BaseCallbackManager.copy
    monkeypatch.setattr(BaseCallbackManager, "copy", lambda self: copies.append(self) or real(self))
    manager = CallbackManager(handlers=[], inheritable_metadata={"who": "run"})
    config = {"callbacks": manager, "metadata": {"m": 1}, "configurable": {"thread_id": "t"}}
    assert _call(config) == "CallbackManager:[('m', 1)]"
    assert copies == []
    # The caller's config and manager are left as they were.
    assert config["callbacks"] is manager and manager.parent_run_id is None


def test_given_callbacks_win_over_the_contexts_and_the_contexts_count_without() -> None:
    heard = CallbackManager(handlers=[Listener()])
    token = var_child_runnable_config.set({"callbacks": heard})
    try:
        # The context's handler is heard when the call gives no callbacks: no direct call.
        assert _call({"configurable": {}}) is _direct_tools.FALLBACK
        # Given callbacks (no handler) replace the context's: the call is direct.
        assert _call({"callbacks": CallbackManager(handlers=[]), "configurable": {}}).startswith("CallbackManager")
    finally:
        var_child_runnable_config.reset(token)
