"""Parity: a user's subclass of ``CompositeBackend`` inside an agent.

A subclass that only brings its own constructor (or methods the file tools never call) is
routed in the core like the class itself; one that overrides a method the tools reach has
that override called, as in deepagents. Compared with deepagents running the same script.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from deepagents_rs._backend_adapter import BackendAdapter, backend_arg

from .fs_support import MODES, api, check, file_data, run_fs, tool_results
from .fs_support import ai_tool_calls as calls

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def workspace_class(a: SimpleNamespace) -> type:
    class Workspace(a.CompositeBackend):
        """Mounts its own routes; adds a helper the tools never call."""

        def __init__(self) -> None:
            super().__init__(default=a.StateBackend(), routes={"/mem/": a.StateBackend()})

        def describe(self) -> str:
            return f"{len(self.routes)} route(s)"

    return Workspace


def audited_class(a: SimpleNamespace) -> type:
    class Audited(workspace_class(a)):
        """Overrides `read`: every read is marked, so the override visibly runs."""

        def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> Any:
            result = super().read(file_path, offset, limit)
            if result.file_data is not None:
                result.file_data = {**result.file_data, "content": "audited: " + result.file_data["content"]}
            return result

        async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> Any:
            return self.read(file_path, offset, limit)

    return Audited


SCRIPT = [
    calls(("write_file", {"file_path": "/mem/m.txt", "content": "mem hello\n"})),
    calls(
        ("ls", {"path": "/"}),
        ("read_file", {"file_path": "/mem/m.txt"}),
        ("read_file", {"file_path": "/top.txt"}),
        ("glob", {"pattern": "**/*.txt"}),
        ("grep", {"pattern": "hello", "output_mode": "content"}),
    ),
    calls(("edit_file", {"file_path": "/mem/m.txt", "old_string": "mem", "new_string": "MEM"})),
    calls(("delete", {"file_path": "/mem/m.txt"})),
    calls(("ls", {"path": "/"}), ("read_file", {"file_path": "/mem/m.txt"})),
    "done",
]
INPUT = {"messages": [{"role": "user", "content": "go"}], "files": {"/top.txt": file_data("top hello\n")}}


def test_a_constructor_only_subclass_is_routed_in_the_core() -> None:
    workspace = workspace_class(api("deepagents_rs"))()
    arg = backend_arg(workspace)
    assert isinstance(arg, tuple) and arg[0] == "composite"
    assert [prefix for prefix, _ in arg[2]] == ["/mem/"]
    assert workspace.describe() == "1 route(s)"


def test_a_subclass_overriding_a_method_is_called_back() -> None:
    assert isinstance(backend_arg(audited_class(api("deepagents_rs"))()), BackendAdapter)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", [workspace_class, audited_class], ids=["constructor-only", "overrides-read"])
def test_subclass_in_an_agent(mode: str, make: Any) -> None:
    run = run_fs(SCRIPT, mode=mode, setup=lambda a: {"backend": make(a)()}, inp=INPUT)
    result = check(run)
    out = [content for _, content, _ in tool_results(result)]
    assert "/mem/" in out[1]
    assert ("audited: " in out[2]) is (make is audited_class)
    assert "deleted" in out[-3].lower() or "/mem/m.txt" in out[-3]
