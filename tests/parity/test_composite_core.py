"""Parity: a ``CompositeBackend`` inside an agent, now routed and merged by the core.

Routes of every kind side by side: the native state backend as the default and again as a
route (a route's backend sees paths without the prefix, so both keep their files in the same
state), one backend object serving two routes, a composite nested in a route, a disk route,
and an older backend whose ``ls`` returns a bare list. Root listings, globs
and greps merge them in deepagents' order with deepagents' prefixes; writes, edits and
deletes report the caller's paths. Compared with deepagents running the same script.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .fs_support import MODES, Tree, ai_tool_calls, check, file_data, run_fs, tool_results

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

SEED = {"a.txt": "alpha hello\n", "sub/b.md": "beta hello\n"}


def legacy_backend(a: SimpleNamespace) -> Any:
    P = a.protocol

    class Legacy(P.BackendProtocol):
        """A backend from before the result classes: a bare list from `ls` (deepagents' async
        tools read `.matches` off every `glob`/`grep` reply)."""

        def ls(self, path: str) -> Any:
            return [{"path": "/old.txt", "is_dir": False}]

        def glob(self, pattern: str, path: str | None = None) -> Any:
            return P.GlobResult(matches=[{"path": "/old.txt"}])

        def grep(self, pattern: str, path: str | None = None, glob: str | None = None) -> Any:
            return P.GrepResult(matches=[{"path": "/old.txt", "line": 1, "text": f"old {pattern}"}])

        def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> Any:
            return P.ReadResult(error=f"File '{file_path}' not found")

    return Legacy()


def setup(root: Path):
    def build(a: SimpleNamespace) -> dict[str, Any]:
        shared = a.StateBackend()
        disk = a.FilesystemBackend(root_dir=root, virtual_mode=True)
        nested = a.CompositeBackend(default=a.StateBackend(), routes={"/disk/": disk})
        return {
            "backend": a.CompositeBackend(
                default=a.StateBackend(),
                routes={
                    "/mem/": shared,
                    "/zz/": nested,
                    "/also/": shared,
                    "/legacy/": legacy_backend(a),
                },
            )
        }

    return build


@pytest.mark.parametrize("mode", MODES)
def test_composite_routes_in_the_core(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    inp = {"messages": [{"role": "user", "content": "go"}], "files": {"/top.txt": file_data("top hello\n")}}
    script = [
        ai_tool_calls(("write_file", {"file_path": "/mem/m.txt", "content": "mem hello\n"})),
        ai_tool_calls(("write_file", {"file_path": "/zz/disk/new.txt", "content": "deep hello\n"})),
        ai_tool_calls(("edit_file", {"file_path": "/also/m.txt", "old_string": "mem", "new_string": "MEM"})),
        ai_tool_calls(
            ("ls", {"path": "/"}),
            ("ls", {"path": "/zz"}),
            ("ls", {"path": "/zz/disk/"}),
            ("ls", {"path": "/legacy"}),
            ("read_file", {"file_path": "/mem/m.txt"}),
            ("read_file", {"file_path": "/m.txt"}),
            ("read_file", {"file_path": "/legacy/x.txt"}),
        ),
        ai_tool_calls(
            ("glob", {"pattern": "**/*.txt"}),
            ("glob", {"pattern": "/zz/**/*.txt"}),
            ("glob", {"pattern": "*.md", "path": "/zz/disk"}),
            ("grep", {"pattern": "hello", "output_mode": "content"}),
            ("grep", {"pattern": "hello", "path": "/zz"}),
            ("grep", {"pattern": "hello", "path": "/legacy"}),
        ),
        ai_tool_calls(("delete", {"file_path": "/zz/disk/sub"})),
        ai_tool_calls(("delete", {"file_path": "/legacy/old.txt"})),
        ai_tool_calls(("ls", {"path": "/"}), ("glob", {"pattern": "**/*.md"})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=setup(root), tree=Tree(root, SEED), inp=inp)
    result = check(run)
    out = [c for _, c, _ in tool_results(result)]
    assert out[3] == "['/also/', '/legacy/', '/m.txt', '/mem/', '/top.txt', '/zz/']"
    assert "/zz/disk/a.txt" in out[10] and "/legacy/old.txt" in out[10]
    assert out[-3] == "Error: deletion is not supported for '/legacy/old.txt'."
    assert run.disk["deepagents"] == run.disk["deepagents_rs"]
