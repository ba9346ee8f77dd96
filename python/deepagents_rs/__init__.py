"""deepagents-rs: a Rust-core, drop-in replacement for ``deepagents``.

from deepagents_rs import create_deep_agent

agent = create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[my_tool])
result = agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._core import __version__ as _core_version
from ._lazy import lazy_names
from .errors import ModelProviderError
from .graph import create_deep_agent
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

if TYPE_CHECKING:
    from ._deep_agent import DeepAgent
    from ._deep_state import DeepAgentState
    from .errors import GraphRecursionError, ModelConnectionError
    from .middleware._subagent_middleware import SubAgentMiddleware
    from .middleware.async_subagents import AsyncSubAgent, AsyncSubAgentMiddleware
    from .middleware.rubric import RubricMiddleware

__version__ = _core_version

# Names whose classes are LangGraph's or LangChain's, or subclass them: resolved when first
# asked for, so that importing the package loads neither.
__getattr__, __dir__ = lazy_names(
    globals(),
    {
        "DeepAgent": "._deep_agent",
        "DeepAgentState": "._deep_state",
        "GraphRecursionError": ".errors",
        "ModelConnectionError": ".errors",
        "RubricMiddleware": ".middleware.rubric",
        "AsyncSubAgent": ".middleware.async_subagents",
        "AsyncSubAgentMiddleware": ".middleware.async_subagents",
        "SubAgentMiddleware": ".middleware._subagent_middleware",
    },
)


__all__ = [
    "AsyncSubAgent",
    "AsyncSubAgentMiddleware",
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
    "RubricMiddleware",
    "SubAgent",
    "__version__",
    "create_deep_agent",
    "register_harness_profile",
    "register_provider_profile",
]
# deepagents' middleware for LangChain's own agents, made when first asked for.
__all__ += ["SubAgentMiddleware"]
