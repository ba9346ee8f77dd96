"""deepagents' `FilesystemState`, which needs LangChain and LangGraph: imported only when asked
for (``deepagents_rs.middleware.filesystem.FilesystemState``).

No `from __future__ import annotations` here: LangGraph reads the annotations at runtime.
"""

from typing import Annotated, NotRequired

from langchain.agents.middleware.types import AgentState
from langgraph.channels.delta import DeltaChannel

from .._threads import _SNAPSHOT_FREQUENCY, _files_reducer
from ..backends.protocol import FileData


class FilesystemState(AgentState):
    """State for the filesystem middleware."""

    files: Annotated[NotRequired[dict[str, FileData]], DeltaChannel(_files_reducer, snapshot_frequency=_SNAPSHOT_FREQUENCY)]  # fmt: skip
    """Files in the filesystem. Uses DeltaChannel with snapshots every ~50 pregel steps to bound read depth."""
