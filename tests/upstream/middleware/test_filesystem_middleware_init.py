# Vendored from langchain-ai/deepagents libs/deepagents/tests/unit_tests/middleware/test_filesystem_middleware_init.py @ 23b83ad50f63 (MIT);
# `deepagents.` imports/patch targets rewritten to `deepagents_rs.`. deepagents_rs' `FilesystemMiddleware` is a
# configuration holder (the Rust core provides the tools), so the tool-description override tests run a real
# agent and read the tools the model is offered instead of LangGraph graph internals (`agent.nodes[...]`).
"""Unit tests for FilesystemMiddleware initialization and configuration."""

from typing import Any

import pytest
from deepagents_rs.backends import CompositeBackend, StateBackend, StoreBackend
from deepagents_rs.graph import create_deep_agent
from deepagents_rs.middleware.filesystem import (
    GREP_TOOL_DESCRIPTION,
    READ_FILE_TOOL_DESCRIPTION,
    WRITE_FILE_TOOL_DESCRIPTION,
    FilesystemMiddleware,
)
from fake_models import ScriptedChatModel
from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentState
from langchain_anthropic import ChatAnthropic
from langgraph.store.memory import InMemoryStore

try:
    from deepagents_rs.middleware.filesystem import FilesystemState
except ImportError:  # deepagents_rs keeps no LangGraph state schema; only the drift-skipped tests use it.
    FilesystemState = None

_DRIFT_STATE_SCHEMA = pytest.mark.skip(
    reason="drift: fails against deepagents 0.7.32 too: its state_schema is _FilesystemBlobPayloadState / "
    "_BlobPayloadState, not FilesystemState / AgentState"
)


def _offered_tools(middleware: FilesystemMiddleware, **agent_kwargs: Any) -> dict[str, Any]:
    """The tools (OpenAI tool dicts, by name) a deep agent using `middleware` offers the model.

    deepagents_rs: stands in for `create_agent(..., middleware=[middleware]).nodes["tools"].bound._tools_by_name`;
    a user `FilesystemMiddleware` replaces the default one, as in deepagents.
    """
    model = ScriptedChatModel(["done"])
    agent = create_deep_agent(model=model, middleware=[middleware], **agent_kwargs)
    agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
    return {t["function"]["name"]: t["function"] for t in model.calls[0].tools}


def build_composite_state_backend(*, routes: dict[str, Any]) -> CompositeBackend:
    return CompositeBackend(default=StateBackend(), routes=routes)


class TestLargeToolResultGuidanceInToolDescriptions:
    """Large-tool-result offload guidance lives in the tool descriptions.

    It used to be in the (now-trimmed) filesystem system prompt, so it is
    migrated into the always-visible `read_file` / `grep` descriptions.
    """

    def test_read_file_describes_offloaded_results(self) -> None:
        # read_file points at the exact path from the tool message (no hardcoded
        # directory, which would be wrong for a non-root artifacts root).
        assert "offloaded" in READ_FILE_TOOL_DESCRIPTION.lower()

    def test_grep_describes_searching_offloaded_results(self) -> None:
        assert "large_tool_results/" in GREP_TOOL_DESCRIPTION
        # Must not imply the root-only path; it is under the artifacts root.
        assert "artifacts root" in GREP_TOOL_DESCRIPTION


class TestFilesystemMiddlewareInit:
    """Tests for FilesystemMiddleware initialization that don't require LLM invocation."""

    @_DRIFT_STATE_SCHEMA
    def test_state_backend_adds_files_state(self) -> None:
        middleware = FilesystemMiddleware(backend=StateBackend())
        agent = create_agent(model=ChatAnthropic(model="claude-sonnet-4-6"), middleware=[middleware])

        assert middleware.state_schema is FilesystemState
        assert "files" in agent.channels

    @_DRIFT_STATE_SCHEMA
    def test_default_backend_adds_files_state(self) -> None:
        middleware = FilesystemMiddleware()

        assert middleware.state_schema is FilesystemState

    @_DRIFT_STATE_SCHEMA
    def test_non_state_backend_uses_base_state(self) -> None:
        middleware = FilesystemMiddleware(backend=StoreBackend(namespace=lambda _rt: ("filesystem",)))
        agent = create_agent(model=ChatAnthropic(model="claude-sonnet-4-6"), middleware=[middleware])

        assert middleware.state_schema is AgentState
        assert "files" not in agent.channels

    @_DRIFT_STATE_SCHEMA
    def test_composite_state_backend_adds_files_state(self) -> None:
        store_backend = StoreBackend(namespace=lambda _rt: ("filesystem",))
        nested_backend = CompositeBackend(default=store_backend, routes={"/ephemeral/": StateBackend()})
        backend = CompositeBackend(default=store_backend, routes={"/nested/": nested_backend})
        middleware = FilesystemMiddleware(backend=backend)

        assert middleware.state_schema is FilesystemState

    @_DRIFT_STATE_SCHEMA
    def test_composite_without_state_backend_uses_base_state(self) -> None:
        store_backend = StoreBackend(namespace=lambda _rt: ("filesystem",))
        backend = CompositeBackend(default=store_backend, routes={"/persistent/": store_backend})
        middleware = FilesystemMiddleware(backend=backend)

        assert middleware.state_schema is AgentState

    def test_backend_class_is_rejected(self) -> None:
        """Backend factories were removed in 0.7; callers must pass instances."""
        with pytest.raises(TypeError, match=r"Backend factories were removed in deepagents 0\.7"):
            FilesystemMiddleware(backend=StateBackend)  # type: ignore[arg-type]

    def test_backend_factory_is_rejected(self) -> None:
        """Backend factories were removed in 0.7; callers must pass instances."""
        with pytest.raises(TypeError, match=r"Backend factories were removed in deepagents 0\.7"):
            FilesystemMiddleware(backend=lambda _rt: StateBackend())  # type: ignore[arg-type]

    def test_callable_backend_instance_is_accepted(self) -> None:
        """A callable initialized backend remains a backend instance."""

        class CallableStateBackend(StateBackend):
            def __call__(self) -> None:
                return None

        backend = CallableStateBackend()
        middleware = FilesystemMiddleware(backend=backend)

        assert middleware.backend is backend

    def test_filesystem_tool_prompt_override(self) -> None:
        """Test that custom tool descriptions can be set via FilesystemMiddleware."""
        # deepagents_rs: rewritten to read the tools offered to the model in a real run.
        tools = _offered_tools(
            FilesystemMiddleware(
                backend=StateBackend(),
                custom_tool_descriptions={
                    "ls": "Charmander",
                    "read_file": "Bulbasaur",
                    "edit_file": "Squirtle",
                },
            )
        )
        assert "ls" in tools
        assert tools["ls"]["description"] == "Charmander"
        assert "read_file" in tools
        assert tools["read_file"]["description"] == "Bulbasaur"
        assert "write_file" in tools
        assert tools["write_file"]["description"] == WRITE_FILE_TOOL_DESCRIPTION.rstrip()
        assert "edit_file" in tools
        assert tools["edit_file"]["description"] == "Squirtle"

    def test_filesystem_tool_prompt_override_with_longterm_memory(self) -> None:
        """Test that custom tool descriptions work with composite backends and longterm memory."""
        # deepagents_rs: rewritten to read the tools offered to the model in a real run.
        tools = _offered_tools(
            FilesystemMiddleware(
                backend=build_composite_state_backend(
                    routes={"/memories/": StoreBackend(namespace=lambda _rt: ("filesystem",))}
                ),
                custom_tool_descriptions={
                    "ls": "Charmander",
                    "read_file": "Bulbasaur",
                    "edit_file": "Squirtle",
                },
            ),
            store=InMemoryStore(),
        )
        assert "ls" in tools
        assert tools["ls"]["description"] == "Charmander"
        assert "read_file" in tools
        assert tools["read_file"]["description"] == "Bulbasaur"
        assert "write_file" in tools
        assert tools["write_file"]["description"] == WRITE_FILE_TOOL_DESCRIPTION.rstrip()
        assert "edit_file" in tools
        assert tools["edit_file"]["description"] == "Squirtle"
