"""Parity: a user ``BaseSandbox`` subclass that runs commands locally with ``subprocess``, and
``ContextHubBackend`` over a mocked langsmith ``Client``, both driven through the agent's
filesystem tools.

Each implementation subclasses its own ``BaseSandbox`` (``<pkg>.backends.sandbox``) and builds
its own ``ContextHubBackend`` (``<pkg>.backends.context_hub``, ``Client`` patched the way the
deepagents' own Context Hub tests patch it). ``PARITY_REF_ONLY=1`` runs the
deepagents side alone.
"""

from __future__ import annotations

import importlib
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import MagicMock, patch

import pytest

from .fs_support import MODES, REF_ONLY, Tree, ai_tool_calls, check, run_fs, tool_msgs, tool_results

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

SEED = {
    "notes.txt": "alpha\nbeta\n",
    "src/app.py": "print('hello')\nx = 1\n",
    "src/util.py": "def f():\n    return 'hello'\n",
}


# --------------------------------------------------------------------------------------------
# A user sandbox: BaseSandbox with execute/upload/download done locally through subprocess.
# The model uses absolute host paths under ``root`` (the tree is rebuilt at the same path for
# each implementation, so they compare equal).
# --------------------------------------------------------------------------------------------


def make_local_sandbox(a: SimpleNamespace, root: Path, *, capture_offload: bool = False) -> Any:
    sandbox_mod = importlib.import_module(f"{a.impl}.backends.sandbox")
    P = a.protocol

    class LocalSandbox(sandbox_mod.BaseSandbox):
        enable_capture_offload = capture_offload

        def __init__(self) -> None:
            self.root = root
            self.commands: list[str] = []
            self.uploaded: list[str] = []

        @property
        def id(self) -> str:
            return "local-sandbox"

        def execute(self, command: str, timeout: int | None = None) -> Any:
            self.commands.append(command)
            proc = subprocess.run(
                ["bash", "-c", command],
                cwd=self.root,
                capture_output=True,
                text=True,
                timeout=timeout or 60,
                check=False,
            )
            output = proc.stdout
            if proc.stderr:
                output += proc.stderr
            return P.ExecuteResponse(output=output, exit_code=proc.returncode, truncated=False)

        def upload_files(self, files: list[tuple[str, bytes]]) -> list[Any]:
            out = []
            for path, data in files:
                self.uploaded.append(path)
                try:
                    p = Path(path)
                    p.parent.mkdir(parents=True, exist_ok=True)
                    p.write_bytes(data)
                    out.append(P.FileUploadResponse(path=path, error=None))
                except OSError:
                    out.append(P.FileUploadResponse(path=path, error="permission_denied"))
            return out

        def download_files(self, paths: list[str]) -> list[Any]:
            out = []
            for path in paths:
                p = Path(path)
                if not p.is_file():
                    out.append(P.FileDownloadResponse(path=path, content=None, error="file_not_found"))
                else:
                    out.append(P.FileDownloadResponse(path=path, content=p.read_bytes(), error=None))
            return out

    return LocalSandbox()


def sandbox_setup(root: Path, **kw: Any) -> Callable[[SimpleNamespace], dict[str, Any]]:
    return lambda a: {"backend": make_local_sandbox(a, root, **kw)}


def composite_sandbox_setup(root: Path, **kw: Any) -> Callable[[SimpleNamespace], dict[str, Any]]:
    """The sandbox as the default of a route-less ``CompositeBackend`` whose artifacts root is
    the sandbox root, so ``/large_tool_results`` lands inside ``root`` rather than at ``/``."""
    return lambda a: {
        "backend": a.CompositeBackend(default=make_local_sandbox(a, root, **kw), routes={}, artifacts_root=str(root))
    }


def _sandbox_commands(run: Any) -> dict[str, list[str]]:
    out = {}
    for impl, kwargs in run.kwargs.items():
        backend = kwargs["backend"]
        backend = getattr(backend, "default", backend)
        out[impl] = list(backend.commands)
    return out


@pytest.mark.parametrize("mode", MODES)
def test_sandbox_file_tools(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    r = str(root)
    script = [
        ai_tool_calls(
            ("ls", {"path": r}),
            ("ls", {"path": f"{r}/src"}),
            ("read_file", {"file_path": f"{r}/notes.txt"}),
            ("read_file", {"file_path": f"{r}/src/app.py", "offset": 1, "limit": 1}),
            ("read_file", {"file_path": f"{r}/missing.txt"}),
        ),
        ai_tool_calls(("write_file", {"file_path": f"{r}/new/out.txt", "content": "fresh\nhello\n"})),
        ai_tool_calls(("write_file", {"file_path": f"{r}/notes.txt", "content": "clobber\nbeta\n"})),
        ai_tool_calls(("edit_file", {"file_path": f"{r}/notes.txt", "old_string": "beta", "new_string": "BETA"})),
        ai_tool_calls(("edit_file", {"file_path": f"{r}/notes.txt", "old_string": "nope", "new_string": "x"})),
        ai_tool_calls(
            (
                "edit_file",
                {"file_path": f"{r}/src/util.py", "old_string": "hello", "new_string": "bye", "replace_all": True},
            )
        ),
        ai_tool_calls(
            ("glob", {"pattern": "**/*.py", "path": r}),
            ("glob", {"pattern": "*.txt", "path": r}),
            ("grep", {"pattern": "hello", "path": r}),
            ("grep", {"pattern": "hello", "path": r, "output_mode": "content"}),
            ("grep", {"pattern": "print", "path": r, "glob": "*.py", "output_mode": "count"}),
        ),
        ai_tool_calls(("read_file", {"file_path": f"{r}/new/out.txt"})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=sandbox_setup(root), tree=Tree(root, SEED))
    out = [c for _, c, _ in tool_results(check(run))]
    assert out[2] == "@@ lines 1-2 of 2 @@\nalpha\nbeta"
    assert run.disk["deepagents"]["new/out.txt"] == b"fresh\nhello\n"
    assert run.disk["deepagents"]["notes.txt"] == b"clobber\nBETA\n"
    assert run.disk["deepagents"]["src/util.py"] == b"def f():\n    return 'bye'\n"


@pytest.mark.parametrize("mode", MODES)
def test_sandbox_execute_success_and_failure(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    script = [
        ai_tool_calls(
            ("execute", {"command": "echo hello && cat notes.txt"}),
            ("execute", {"command": "echo out; echo err >&2; exit 3"}),
            ("execute", {"command": "true"}),
        ),
        ai_tool_calls(("execute", {"command": "printf 'made\\n' > made.txt && ls", "timeout": 30})),
        ai_tool_calls(("read_file", {"file_path": f"{root}/made.txt"})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=sandbox_setup(root), tree=Tree(root, SEED))
    msgs = tool_msgs(check(run))
    assert msgs[0].content == "hello\nalpha\nbeta\n\n[Command succeeded with exit code 0]"
    assert msgs[1].artifact == {"truncated": False, "exit_code": 3}
    assert run.disk["deepagents"]["made.txt"] == b"made\n"
    if not REF_ONLY:
        cmds = _sandbox_commands(run)
        # Calls of one AI message run concurrently in both, so only the set is fixed.
        assert sorted(cmds["deepagents_rs"]) == sorted(cmds["deepagents"])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "capture_offload",
    [
        pytest.param(False, id="evict"),
        pytest.param(True, id="capture"),
    ],
)
def test_sandbox_large_execute_output(mode: str, capture_offload: bool, tmp_path: Path) -> None:
    """> 80,000 chars: either generic eviction (``backend.write``) or, with
    ``enable_capture_offload``, capture at source via ``execute_with_offload``."""
    root = tmp_path / "root"
    script = [
        ai_tool_calls(("execute", {"command": "seq 100000 125000"}, "big_1")),
        ai_tool_calls(("read_file", {"file_path": f"{root}/large_tool_results/big_1", "offset": 0, "limit": 3})),
        "done",
    ]
    run = run_fs(
        script,
        mode=mode,
        setup=composite_sandbox_setup(root, capture_offload=capture_offload),
        tree=Tree(root, SEED),
    )
    msgs = tool_msgs(check(run))
    assert f"{root}/large_tool_results/big_1" in msgs[0].content and len(msgs[0].content) < 10_000
    assert run.disk["deepagents"]["large_tool_results/big_1"].startswith(b"100000\n100001\n")
    if not REF_ONLY:
        cmds = _sandbox_commands(run)
        assert len(cmds["deepagents_rs"]) == len(cmds["deepagents"])


# --------------------------------------------------------------------------------------------
# ContextHubBackend over a mocked langsmith Client
# --------------------------------------------------------------------------------------------

_COMMIT_HASH = "abcd1234" * 8
_COMMIT_URL = "https://host/context/test-agent/ef567890?organizationId=org-id"


def hub_setup(clients: dict[str, MagicMock]) -> Callable[[SimpleNamespace], dict[str, Any]]:
    from langsmith.schemas import FileEntry

    def setup(a: SimpleNamespace) -> dict[str, Any]:
        hub = importlib.import_module(f"{a.impl}.backends.context_hub")
        mock_client = MagicMock()
        mock_client.pull_agent.return_value = SimpleNamespace(
            commit_id="00000000-0000-0000-0000-000000000000",
            commit_hash=_COMMIT_HASH,
            files={
                "AGENTS.md": FileEntry(type="file", content="# agent\nhello world\n"),
                "skills/s/SKILL.md": FileEntry(type="file", content="---\nname: s\n---\nsay hello\n"),
                "notes.txt": FileEntry(type="file", content="alpha\nbeta\n"),
            },
        )
        mock_client.push_agent.return_value = _COMMIT_URL
        with patch(f"{a.impl}.backends.context_hub.Client") as client_cls:
            client_cls.return_value = mock_client
            backend = hub.ContextHubBackend("-/test-agent")
            client_cls.assert_called_once_with()
        clients[a.impl] = mock_client
        return {"backend": backend}

    return setup


def _push_view(client: MagicMock) -> list[Any]:
    out = []
    for call in client.push_agent.call_args_list:
        files = {
            k: (v.content if v is not None and hasattr(v, "content") else v) for k, v in call.kwargs["files"].items()
        }
        out.append((call.args, {**call.kwargs, "files": files}))
    return out


@pytest.mark.parametrize("mode", MODES)
def test_context_hub_file_tools(mode: str) -> None:
    clients: dict[str, MagicMock] = {}
    script = [
        ai_tool_calls(
            ("ls", {"path": "/"}),
            ("ls", {"path": "/skills"}),
            ("read_file", {"file_path": "/AGENTS.md"}),
            ("read_file", {"file_path": "/notes.txt", "offset": 1, "limit": 1}),
            ("read_file", {"file_path": "/missing.md"}),
        ),
        ai_tool_calls(("write_file", {"file_path": "/new/out.md", "content": "fresh\nhello\n"})),
        ai_tool_calls(("write_file", {"file_path": "/notes.txt", "content": "clobber\nbeta\n"})),
        ai_tool_calls(("edit_file", {"file_path": "/notes.txt", "old_string": "beta", "new_string": "BETA"})),
        ai_tool_calls(("edit_file", {"file_path": "/notes.txt", "old_string": "nope", "new_string": "x"})),
        ai_tool_calls(
            ("edit_file", {"file_path": "/AGENTS.md", "old_string": "hello", "new_string": "bye", "replace_all": True})
        ),
        ai_tool_calls(
            ("glob", {"pattern": "**/*.md"}),
            ("glob", {"pattern": "*.txt"}),
            ("grep", {"pattern": "hello"}),
            ("grep", {"pattern": "hello", "output_mode": "content"}),
            ("grep", {"pattern": "BETA", "glob": "*.txt", "output_mode": "count"}),
        ),
        ai_tool_calls(("read_file", {"file_path": "/new/out.md"}), ("ls", {"path": "/"})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=hub_setup(clients))
    out = [c for _, c, _ in tool_results(check(run))]
    assert "hello world" in out[2]
    assert clients["deepagents"].pull_agent.call_count >= 1
    if not REF_ONLY:
        ref, rs = clients["deepagents"], clients["deepagents_rs"]
        assert _push_view(rs) == _push_view(ref)
        assert rs.pull_agent.call_args_list == ref.pull_agent.call_args_list
