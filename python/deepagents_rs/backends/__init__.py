"""The file backends the agent's file tools read and write through (deepagents' module)."""

from deepagents_rs.backends.composite import CompositeBackend
from deepagents_rs.backends.context_hub import ContextHubBackend
from deepagents_rs.backends.filesystem import FilesystemBackend
from deepagents_rs.backends.langsmith import LangSmithSandbox
from deepagents_rs.backends.local_shell import DEFAULT_EXECUTE_TIMEOUT, LocalShellBackend
from deepagents_rs.backends.protocol import BackendProtocol
from deepagents_rs.backends.state import StateBackend
from deepagents_rs.backends.store import NamespaceFactory, StoreBackend

# deepagents' public names, in its order (`from deepagents_rs.backends import *` gives the same).
# fmt: off
__all__ = [
    "DEFAULT_EXECUTE_TIMEOUT", "BackendProtocol", "CompositeBackend", "ContextHubBackend",
    "FilesystemBackend", "LangSmithSandbox", "LocalShellBackend", "NamespaceFactory",
    "StateBackend", "StoreBackend",
]
# fmt: on
