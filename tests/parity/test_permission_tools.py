"""Parity: permission rules applied by the file tools of a real agent (state and store
backends, ``invoke`` and ``ainvoke``): each tool's refusal, allowed calls passing through
untouched, listings filtered, first-match-wins, ``..`` refused before any rule is looked at,
backend errors and binary reads passed through under rules, the general-purpose subagent
given its own rules, and ``interrupt`` rules that pause a call rather than refuse it.

Rule validation and the matcher itself are in ``test_permission_rules.py``; ``delete``'s
subtree rules in ``test_permission_delete.py``.
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from .fs_support import MODES, ai_tool_calls, api, check, make_backend, run_fs, tool_results
from .harness import ScriptedChatModel, norm, norm_files

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

SEED = {
    "/vault/key.txt": "vault secret\n",
    "/vault/inner/deep.txt": "deep vault\n",
    "/work/a.txt": "work alpha\n",
    "/work/b.txt": "keyword beta\n",
    "/pub/readme.md": "keyword readme\n",
}


def rules_of(a: SimpleNamespace, specs: list[tuple]) -> list[Any]:
    return [a.FilesystemPermission(operations=list(o), paths=list(p), mode=m) for o, p, m in specs]


RULESETS: dict[str, list[tuple]] = {
    "no rules": [],
    "vault unreadable": [(["read"], ["/vault/**"], "deny")],
    "vault and its dir unreadable": [(["read"], ["/vault/**", "/vault"], "deny")],
    "work deny then allow": [(["read", "write"], ["/work/**"], "deny"), (["read", "write"], ["/work/**"], "allow")],
    "work allow then deny": [(["read", "write"], ["/work/**"], "allow"), (["read", "write"], ["/work/**"], "deny")],
    "nothing writable": [(["write"], ["/**"], "deny")],
}

#: Looks first, then changes (a store backend runs one message's calls concurrently).
LOOKS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"file_path": "/vault/key.txt"}),
    ("read_file", {"file_path": "/vault//key.txt"}),
    ("read_file", {"file_path": "/work/../vault/key.txt"}),
    ("read_file", {"file_path": "/work/a.txt"}),
    ("ls", {"path": "/"}),
    ("ls", {"path": "/vault"}),
    ("ls", {"path": "/work"}),
    ("glob", {"pattern": "**/*.txt", "path": "/"}),
    ("glob", {"pattern": "*.txt", "path": "/vault"}),
    ("glob", {"pattern": "*.txt", "path": "/work"}),
    ("grep", {"pattern": "keyword"}),
    ("grep", {"pattern": "vault", "path": None}),
    ("grep", {"pattern": "vault", "path": "/vault"}),
    ("grep", {"pattern": "vault", "path": "/work/../vault"}),
    ("grep", {"pattern": "keyword", "path": "/work"}),
]
CHANGES: list[tuple[str, dict[str, Any]]] = [
    ("write_file", {"file_path": "/vault/new.txt", "content": "n\n"}),
    ("write_file", {"file_path": "/work/new.txt", "content": "n\n"}),
    ("write_file", {"file_path": "/work/../vault/x.txt", "content": "n\n"}),
    ("edit_file", {"file_path": "/work/b.txt", "old_string": "beta", "new_string": "gamma"}),
]
CALLS = LOOKS + CHANGES


def denied(op: str, path: str) -> str:
    return f"Error: permission denied for {op} on {path}"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", ["state", "store"])
@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_each_tool_under_rules(ruleset: str, backend: str, mode: str, tmp_path: Path) -> None:
    be = make_backend(backend, tmp_path, SEED)
    script = [ai_tool_calls(*LOOKS), ai_tool_calls(*CHANGES), "done"]
    run = be.run(script, mode=mode, setup=lambda a: be.setup(a, permissions=rules_of(a, RULESETS[ruleset])))
    out = tool_results(check(run))
    assert [name for name, _, _ in out] == [name for name, _ in CALLS]

    def got(i: int) -> str:
        return out[i][1]

    # ``..`` is refused before any rule applies; ``//`` collapses and then meets the rules.
    assert got(2).startswith("Error: Path traversal not allowed") and got(17).startswith("Error: Path traversal")
    assert got(13).startswith("Error: Path traversal not allowed")
    if ruleset == "no rules":
        assert not any("permission denied" in content for _, content, _ in out)
    if ruleset.startswith("vault"):
        assert got(0) == got(1) == denied("read", "/vault/key.txt")
        assert got(15) == "Updated file /vault/new.txt"  # denying read leaves write alone
        assert "vault" not in got(4) and "vault" not in got(7) and "vault" not in got(11)
        assert "/work/b.txt" in got(10) and "/pub/readme.md" in got(10)
        assert (got(5) == denied("read", "/vault")) == (ruleset == "vault and its dir unreadable")
    if ruleset == "work deny then allow":
        assert got(3) == denied("read", "/work/a.txt") and got(16) == denied("write", "/work/new.txt")
        assert (
            got(18) == denied("write", "/work/b.txt") and got(14) == "No matches found"
        )  # ``/work/**`` is not ``/work``
    if ruleset == "work allow then deny":
        assert got(3).endswith("work alpha") and got(18).startswith("Successfully replaced")
    if ruleset == "nothing writable":
        assert got(15) == denied("write", "/vault/new.txt") and got(18) == denied("write", "/work/b.txt")
        assert got(0).endswith("vault secret") and "/pub/" in got(4)


# --------------------------------------------------------------------------------------------
# A backend's own errors and binary reads, under rules that allow the call
# --------------------------------------------------------------------------------------------


def odd_backend(a: SimpleNamespace) -> Any:
    P = a.protocol

    class Odd(a.StateBackend):
        def read(self, path: str, *, offset: int = 0, limit: int = 100) -> Any:
            if path.endswith(".png"):
                return P.ReadResult(file_data={"content": "iVBORw0K", "encoding": "base64"})
            return P.ReadResult(error="file_not_found")

        async def aread(self, path: str, *, offset: int = 0, limit: int = 100) -> Any:
            return self.read(path, offset=offset, limit=limit)

        def write(self, path: str, content: str) -> Any:
            return P.WriteResult(error="quota exceeded", path=path)

        async def awrite(self, path: str, content: str) -> Any:
            return self.write(path, content)

        def edit(self, path: str, old_string: str, new_string: str, *, replace_all: bool = False) -> Any:
            return P.EditResult(error="no single match", path=path, occurrences=0)

        async def aedit(self, path: str, old_string: str, new_string: str, *, replace_all: bool = False) -> Any:
            return self.edit(path, old_string, new_string, replace_all=replace_all)

    return Odd()


@pytest.mark.parametrize("mode", MODES)
def test_backend_answers_pass_through_allowing_rules(mode: str) -> None:
    calls = [
        ("read_file", {"file_path": "/img/shot.png"}),
        ("read_file", {"file_path": "/vault/shot.png"}),
        ("read_file", {"file_path": "/docs/gone.txt"}),
        ("write_file", {"file_path": "/docs/out.txt", "content": "x"}),
        ("edit_file", {"file_path": "/docs/other.txt", "old_string": "a", "new_string": "b"}),
    ]

    def setup(a: SimpleNamespace) -> dict[str, Any]:
        return {"backend": odd_backend(a), "permissions": rules_of(a, [(["read", "write"], ["/vault/**"], "deny")])}

    run = run_fs([ai_tool_calls(*calls), "done"], mode=mode, setup=setup)
    out = tool_results(check(run))
    image = out[0][1]
    assert isinstance(image, list) and image[0]["type"] == "image" and image[0]["base64"] == "iVBORw0K"
    assert [content for _, content, _ in out[1:]] == [
        denied("read", "/vault/shot.png"),
        "Error: file_not_found",
        "quota exceeded",
        "no single match",
    ]


# --------------------------------------------------------------------------------------------
# The general-purpose subagent
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("own_rules", [False, True], ids=["inherited", "own"])
def test_general_purpose_subagent_rules(own_rules: bool) -> None:
    both_ways = (
        ("write_file", {"file_path": "/vault/x.txt", "content": "x"}),
        ("read_file", {"file_path": "/work/a.txt"}),
    )

    def setup(a: SimpleNamespace) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"permissions": rules_of(a, [(["write"], ["/vault/**"], "deny")])}
        if own_rules:
            spec = importlib.import_module(f"{a.impl}.middleware.subagents").GENERAL_PURPOSE_SUBAGENT
            kwargs["subagents"] = [{**spec, "permissions": rules_of(a, [(["read"], ["/work/**"], "deny")])}]
        return kwargs

    script = [
        ai_tool_calls(*both_ways),
        ai_tool_calls(("task", {"description": "same again", "subagent_type": "general-purpose"})),
        ai_tool_calls(*both_ways),
        "sub done",
        "done",
    ]
    inp = {"messages": [{"role": "user", "content": "go"}], "files": make_backend("state", Path(), SEED).inp()["files"]}
    run = run_fs(script, mode="invoke", setup=setup, inp=inp)
    check(run)
    main_saw = [m.content for m in run.ref.calls[1].messages[-2:]]
    sub_saw = [m.content for m in run.ref.calls[3].messages[-2:]]
    assert main_saw[0] == denied("write", "/vault/x.txt") and "work alpha" in main_saw[1]
    if own_rules:
        assert sub_saw == ["Updated file /vault/x.txt", denied("read", "/work/a.txt")]
    else:
        assert sub_saw == main_saw


# --------------------------------------------------------------------------------------------
# interrupt rules pause; an approved call runs unfiltered
# --------------------------------------------------------------------------------------------

GATED = [(["read", "write"], ["/vault/**"], "interrupt")]


@pytest.mark.parametrize(
    "call",
    [
        ("delete", {"file_path": "/vault/key.txt"}),
        ("delete", {"file_path": "/vault"}),
        ("ls", {"path": "/vault"}),
        ("grep", {"pattern": "vault"}),
        ("glob", {"pattern": "**/*.txt"}),
        ("read_file", {"file_path": "/pub/readme.md"}),
    ],
    ids=str,
)
@pytest.mark.parametrize("mode", MODES)
def test_interrupt_rules_pause_then_run_unfiltered(mode: str, call: tuple[str, dict[str, Any]]) -> None:
    thread = {"configurable": {"thread_id": "gate"}}
    files = make_backend("state", Path(), SEED).inp()["files"]

    async def go(agent: Any, payload: Any) -> Any:
        return await agent.ainvoke(payload, thread) if mode == "ainvoke" else agent.invoke(payload, thread)

    rows = []
    for impl in ("deepagents", "deepagents_rs"):
        a = api(impl)
        agent = a.create_deep_agent(
            model=ScriptedChatModel([ai_tool_calls((*call, "c1")), "done"]),
            checkpointer=InMemorySaver(),
            permissions=rules_of(a, GATED),
        )
        first = asyncio.run(go(agent, {"messages": [{"role": "user", "content": "go"}], "files": files}))
        paused = [(i.value["action_requests"], i.value["review_configs"]) for i in first.get("__interrupt__", [])]
        row: dict[str, Any] = {"paused": paused}
        if paused:
            done = asyncio.run(go(agent, Command(resume={"decisions": [{"type": "approve"}]})))
            row["messages"] = norm(done["messages"])
            row["files"] = norm_files(done["files"])
        rows.append(row)
    assert rows[1] == rows[0]
    ref = rows[0]
    assert bool(ref["paused"]) == (call[0] != "read_file")
    if ref["paused"]:
        answer = ref["messages"][-2]["content"]
        assert "permission denied" not in answer and ("vault" in answer or answer.startswith("Deleted"))
