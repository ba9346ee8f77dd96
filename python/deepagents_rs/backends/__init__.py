"""The file backends the agent's file tools read and write through (deepagents' module).

Each name is resolved from its module when first asked for (PEP 562): a plain agent uses
the state backend only, and the others' modules load subprocess, shutil, pathlib and
urllib, which `import deepagents_rs` need not.
"""

from typing import TYPE_CHECKING

from deepagents_rs._lazy import lazy_names

if TYPE_CHECKING:
    from deepagents_rs.backends.composite import CompositeBackend
    from deepagents_rs.backends.context_hub import ContextHubBackend
    from deepagents_rs.backends.filesystem import FilesystemBackend
    from deepagents_rs.backends.langsmith import LangSmithSandbox
    from deepagents_rs.backends.local_shell import DEFAULT_EXECUTE_TIMEOUT, LocalShellBackend
    from deepagents_rs.backends.protocol import BackendProtocol
    from deepagents_rs.backends.state import StateBackend
    from deepagents_rs.backends.store import NamespaceFactory, StoreBackend

__getattr__, __dir__ = lazy_names(
    globals(),
    {
        "CompositeBackend": ".composite",
        "ContextHubBackend": ".context_hub",
        "FilesystemBackend": ".filesystem",
        "LangSmithSandbox": ".langsmith",
        "DEFAULT_EXECUTE_TIMEOUT": ".local_shell",
        "LocalShellBackend": ".local_shell",
        "BackendProtocol": ".protocol",
        "StateBackend": ".state",
        "NamespaceFactory": ".store",
        "StoreBackend": ".store",
    },
)

# deepagents' public names, in its order (`from deepagents_rs.backends import *` gives the same).
# fmt: off
__all__ = [
    "DEFAULT_EXECUTE_TIMEOUT", "BackendProtocol", "CompositeBackend", "ContextHubBackend",
    "FilesystemBackend", "LangSmithSandbox", "LocalShellBackend", "NamespaceFactory",
    "StateBackend", "StoreBackend",
]
# fmt: on
