"""deepagents' `FilesystemState`, which needs LangChain and LangGraph: imported only when asked
for (``deepagents_rs.middleware.filesystem.FilesystemState``).

No `from __future__ import annotations` here: LangGraph reads the annotations at runtime.
"""

from typing import Annotated, NotRequired

from langchain.agents.middleware.types import AgentState, PrivateStateAttr
from langgraph.channels.delta import DeltaChannel
from langgraph.channels.untracked_value import UntrackedValue

from .._threads import _SNAPSHOT_FREQUENCY, _files_reducer
from ..backends.protocol import FileData


class FilesystemState(AgentState):
    """State for the filesystem middleware."""

    files: Annotated[NotRequired[dict[str, FileData]], DeltaChannel(_files_reducer, snapshot_frequency=_SNAPSHOT_FREQUENCY)]  # fmt: skip
    """Files in the filesystem. Uses DeltaChannel with snapshots every ~50 pregel steps to bound read depth."""


class _BlobPayloadState(AgentState):
    """The state key of `offload_binary_content`."""

    _blob_payloads: NotRequired[Annotated[dict[str, str], UntrackedValue(dict, guard=False), PrivateStateAttr]]
    """The payloads of the blobs offloaded and loaded back in this run; never checkpointed."""


class _FilesystemBlobPayloadState(FilesystemState, _BlobPayloadState):
    """`FilesystemState` with `_BlobPayloadState`'s key: a backend keeping files in the state."""
