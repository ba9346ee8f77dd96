"""deepagents-rs: a Rust-core, drop-in replacement for ``deepagents``.

from deepagents_rs import create_deep_agent

agent = create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[my_tool])
result = agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
"""

from __future__ import annotations

from ._core import __version__ as _core_version
from .errors import GraphRecursionError, ModelConnectionError, ModelProviderError
from .graph import DeepAgent, create_deep_agent
from .middleware.filesystem import FilesystemMiddleware, FilesystemPermission, FsToolName
from .middleware.memory import MemoryMiddleware
from .middleware.subagents import CompiledSubAgent, SubAgent
from .profiles import (
    GeneralPurposeSubagentProfile,
    HarnessProfile,
    HarnessProfileConfig,
    ProviderProfile,
    register_harness_profile,
    register_provider_profile,
)

__version__ = _core_version


def __getattr__(name: str) -> object:
    # `DeepAgentState` needs LangChain and LangGraph: imported when first asked for.
    if name == "DeepAgentState":
        from ._deep_state import DeepAgentState

        return DeepAgentState
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CompiledSubAgent",
    "DeepAgent",
    "DeepAgentState",
    "FilesystemMiddleware",
    "FilesystemPermission",
    "FsToolName",
    "GeneralPurposeSubagentProfile",
    "GraphRecursionError",
    "HarnessProfile",
    "HarnessProfileConfig",
    "MemoryMiddleware",
    "ModelConnectionError",
    "ModelProviderError",
    "ProviderProfile",
    "SubAgent",
    "__version__",
    "create_deep_agent",
    "register_harness_profile",
    "register_provider_profile",
]
