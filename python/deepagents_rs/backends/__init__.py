# Ported from deepagents 0.7.32 (MIT), deepagents/backends/__init__.py: public backend exports.
"""Memory backends for pluggable file storage."""

from deepagents_rs.backends.composite import CompositeBackend
from deepagents_rs.backends.context_hub import ContextHubBackend
from deepagents_rs.backends.filesystem import FilesystemBackend
from deepagents_rs.backends.langsmith import LangSmithSandbox
from deepagents_rs.backends.local_shell import DEFAULT_EXECUTE_TIMEOUT, LocalShellBackend
from deepagents_rs.backends.protocol import BackendProtocol
from deepagents_rs.backends.state import StateBackend
from deepagents_rs.backends.store import NamespaceFactory, StoreBackend

__all__ = [
    "DEFAULT_EXECUTE_TIMEOUT",
    "BackendProtocol",
    "CompositeBackend",
    "ContextHubBackend",
    "FilesystemBackend",
    "LangSmithSandbox",
    "LocalShellBackend",
    "NamespaceFactory",
    "StateBackend",
    "StoreBackend",
]
