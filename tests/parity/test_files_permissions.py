"""Parity: ``permissions=[FilesystemPermission(...)]`` on ``create_deep_agent`` and on subagent
specs: denied calls, filtered ``ls``/``glob``/``grep`` results, ``delete``'s deny-rule listing,
symlinks resolved on ``FilesystemBackend``, inheritance by the general-purpose subagent,
replacement by a subagent's own rules, a forked subagent with the memorizer pattern, and the
rule validation errors.

Rules are built from each implementation's own ``FilesystemPermission``.
``PARITY_REF_ONLY=1`` runs the deepagents side alone.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .fs_support import FS_TOOLS, MODES, REF_ONLY, Tree, ai_tool_calls, api, check, file_data, run_fs, tool_results

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

FILES = {
    "/AGENTS.md": "# Agents\nremember: be brief\n",
    "/docs/guide.md": "# Guide\nhello docs\n",
    "/docs/api/ref.md": "hello api\n",
    "/secret/key.txt": "hello secret\n",
    "/secret/deep/more.txt": "more secret\n",
    "/notes.txt": "hello notes\n",
    "/app.lock": "locked\n",
    "/keep/a.txt": "keep me\n",
    "/src/main.py": "print('hello')\n",
}


def state_input(files: dict[str, str] = FILES, text: str = "go") -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}], "files": {p: file_data(c) for p, c in files.items()}}


def memorizer_rules(a: SimpleNamespace) -> list[Any]:
    """Write nothing; read only ``/AGENTS.md`` and ``/docs/**``."""
    FP = a.FilesystemPermission
    return [
        FP(operations=["write"], paths=["/**"], mode="deny"),
        FP(operations=["read"], paths=["/AGENTS.md", "/docs/**"]),
        FP(operations=["read"], paths=["/**"], mode="deny"),
    ]


def deny_secret(a: SimpleNamespace) -> list[Any]:
    return [a.FilesystemPermission(operations=["read", "write"], paths=["/secret/**"], mode="deny")]


def task(description: str, subagent_type: str, call_id: str = "t1") -> tuple:
    return ("task", {"description": description, "subagent_type": subagent_type}, call_id)


# --------------------------------------------------------------------------------------------
# Allow-list rules on the main agent
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_memorizer_rules_on_the_main_agent(mode: str) -> None:
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": "/AGENTS.md"}),
            ("read_file", {"file_path": "/docs/guide.md"}),
            ("read_file", {"file_path": "/notes.txt"}),
            ("read_file", {"file_path": "/secret/key.txt"}),
        ),
        ai_tool_calls(
            ("write_file", {"file_path": "/docs/new.md", "content": "x"}),
            ("edit_file", {"file_path": "/AGENTS.md", "old_string": "brief", "new_string": "long"}),
            ("delete", {"file_path": "/docs/guide.md"}),
            ("write_file", {"file_path": "/elsewhere.txt", "content": "x"}),
        ),
        ai_tool_calls(
            ("ls", {"path": "/"}),
            ("ls", {"path": "/docs"}),
            ("glob", {"pattern": "**/*.md"}),
            ("glob", {"pattern": "*.md", "path": "/docs"}),
            ("glob", {"pattern": "*.md", "path": "/docs/api"}),
        ),
        ai_tool_calls(
            ("grep", {"pattern": "hello"}),
            ("grep", {"pattern": "hello", "path": "/docs"}),
            ("grep", {"pattern": "hello", "path": "/docs/api"}),
            ("grep", {"pattern": "secret"}),
        ),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=lambda a: {"permissions": memorizer_rules(a)}, inp=state_input())
    result = check(run)
    out = tool_results(result)
    assert out[0][2] == out[1][2] == "success"
    assert out[2] == ("read_file", "Error: permission denied for read on /notes.txt", "error")
    assert out[4] == ("write_file", "Error: permission denied for write on /docs/new.md", "error")
    assert out[5] == ("edit_file", "Error: permission denied for write on /AGENTS.md", "error")
    assert out[6] == (
        "delete",
        "Error: permission denied for write on /docs/guide.md (matches deny rule(s): /**)",
        "error",
    )
    assert out[8] == ("ls", "Error: permission denied for read on /", "error")
    # ``/docs/**`` allows what is under /docs, not the directory itself.
    assert out[9] == ("ls", "Error: permission denied for read on /docs", "error")
    assert out[10][1].startswith("Error: permission denied for read on /. A glob without 'path' is authorized")
    assert out[11] == ("glob", "Error: permission denied for read on /docs", "error")
    assert out[12] == ("glob", "['/docs/api/ref.md']", "success")
    # A grep without a path is not checked against /: it searches everything, then drops the
    # denied matches.
    assert out[13] == ("grep", "/docs/api/ref.md\n/docs/guide.md", "success")
    assert out[14] == ("grep", "Error: permission denied for read on /docs", "error")
    assert out[15] == ("grep", "/docs/api/ref.md", "success")
    assert out[16] == ("grep", "No matches found", "success")
    assert result["files"].keys() == FILES.keys()


# --------------------------------------------------------------------------------------------
# Deny rules: results filtered, delete's rule listing
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_denied_entries_are_filtered_from_listings(mode: str) -> None:
    script = [
        ai_tool_calls(
            ("ls", {"path": "/"}),
            ("ls", {"path": "/secret"}),
            ("glob", {"pattern": "**/*.txt"}),
            ("grep", {"pattern": "hello", "output_mode": "content"}),
            ("grep", {"pattern": "secret|more"}),
            ("grep", {"pattern": "more secret"}),
        ),
        ai_tool_calls(
            ("write_file", {"file_path": "/secret/new.txt", "content": "x"}),
            ("write_file", {"file_path": "/public.txt", "content": "hello public\n"}),
            ("read_file", {"file_path": "/secret/../secret/key.txt"}),
        ),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=lambda a: {"permissions": deny_secret(a)}, inp=state_input())
    out = tool_results(check(run))
    # ``/secret/`` (the listing's directory entry) matches ``/secret/**``; ``/secret`` does not,
    # so listing it is allowed and shows nothing.
    assert out[0] == ("ls", "['/AGENTS.md', '/app.lock', '/docs/', '/keep/', '/notes.txt', '/src/']", "success")
    assert out[1] == ("ls", "No files found", "success")
    assert "secret" not in out[2][1] and "/notes.txt" in out[2][1]
    assert "secret" not in out[3][1] and "/notes.txt:\n  1: hello notes" in out[3][1]
    # Only a genuine no-match gets the regex hint, not one whose matches were all denied.
    assert out[4][1].startswith("No matches found\n\nNote: grep matches literal text")
    assert out[5] == ("grep", "No matches found", "success")
    assert out[6] == ("write_file", "Error: permission denied for write on /secret/new.txt", "error")
    assert out[8] == ("read_file", "Error: Path traversal not allowed: /secret/../secret/key.txt", "error")


@pytest.mark.parametrize("mode", MODES)
def test_delete_lists_the_deny_rules_it_hits(mode: str) -> None:
    def setup(a: SimpleNamespace) -> dict[str, Any]:
        FP = a.FilesystemPermission
        return {
            "permissions": [
                FP(operations=["write"], paths=["/keep/**", "/keep"], mode="deny"),
                FP(operations=["write"], paths=["/*.lock"], mode="deny"),
                FP(operations=["write"], paths=["/docs/api/**"], mode="deny"),
            ]
        }

    script = [
        ai_tool_calls(
            ("delete", {"file_path": "/keep/a.txt"}),
            ("delete", {"file_path": "/app.lock"}),
            ("delete", {"file_path": "/notes.txt"}),
            ("delete", {"file_path": "/src"}),
            ("delete", {"file_path": "/docs"}),
        ),
        ai_tool_calls(
            ("delete", {"file_path": "/"}),
            ("delete", {"file_path": "/docs/guide.md"}),
            ("delete", {"file_path": "/gone"}),
        ),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=setup, inp=state_input())
    result = check(run)
    out = tool_results(result)
    assert out[0] == (
        "delete",
        "Error: permission denied for write on /keep/a.txt (matches deny rule(s): /keep/**)",
        "error",
    )
    assert out[1] == (
        "delete",
        "Error: permission denied for write on /app.lock (matches deny rule(s): /*.lock)",
        "error",
    )
    assert out[2] == ("delete", "Deleted /notes.txt", "success")
    # ``/*.lock`` is anchored at /, so it could match inside any directory.
    assert out[3][1] == "Error: permission denied for write on /src (matches deny rule(s): /*.lock)"
    # A directory: every deny rule that could match something under it counts, in rule order.
    assert out[4][1] == "Error: permission denied for write on /docs (matches deny rule(s): /*.lock, /docs/api/**)"
    assert (
        out[5][1]
        == "Error: permission denied for write on / (matches deny rule(s): /keep/**, /keep, /*.lock, /docs/api/**)"
    )
    assert out[6] == ("delete", "Deleted /docs/guide.md", "success")
    # A missing path may be a directory: ``/*.lock`` (anchored at /) could match under it.
    assert out[7] == ("delete", "Error: permission denied for write on /gone (matches deny rule(s): /*.lock)", "error")
    assert "/notes.txt" not in result["files"] and "/docs/guide.md" not in result["files"]


# --------------------------------------------------------------------------------------------
# FilesystemBackend: rules apply to the symlink-resolved target too
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
@pytest.mark.parametrize("mode", MODES)
def test_symlinks_to_denied_paths(mode: str, virtual: bool, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(
        root,
        {"secret/key.txt": "hello secret\n", "pub/readme.md": "hello readme\n"},
        links={"pub/alias.txt": "../secret/key.txt", "pub/outside": str(tmp_path / "elsewhere")},
    )
    (tmp_path / "elsewhere").mkdir(exist_ok=True)
    p = (lambda v: v) if virtual else (lambda v: f"{root}{v}")

    def setup(a: SimpleNamespace) -> dict[str, Any]:
        rule = a.FilesystemPermission(operations=["read", "write"], paths=[p("/secret/**")], mode="deny")
        return {"backend": a.FilesystemBackend(root_dir=root, virtual_mode=virtual), "permissions": [rule]}

    script = [
        ai_tool_calls(
            ("read_file", {"file_path": p("/pub/alias.txt")}),
            ("read_file", {"file_path": p("/pub/readme.md")}),
            ("ls", {"path": p("/pub")}),
            ("grep", {"pattern": "hello", "path": p("/pub")}),
            ("read_file", {"file_path": p("/pub/outside/x.txt")}),
        ),
        ai_tool_calls(("write_file", {"file_path": p("/pub/alias.txt"), "content": "overwritten"})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=setup, tree=tree)
    out = tool_results(check(run))
    assert out[0] == (
        "read_file",
        f"Error: permission denied for read on {p('/pub/alias.txt')} (resolves to {p('/secret/key.txt')})",
        "error",
    )
    assert out[1][2] == "success"
    assert p("/pub/alias.txt") not in out[2][1] and p("/pub/readme.md") in out[2][1]
    assert out[5][2] == "error" and "(resolves to" in out[5][1]
    assert run.disk["deepagents"]["secret/key.txt"] == b"hello secret\n"


# --------------------------------------------------------------------------------------------
# Subagents
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_general_purpose_subagent_inherits_permissions(mode: str) -> None:
    script = [
        ai_tool_calls(task("read the key", "general-purpose")),
        ai_tool_calls(("read_file", {"file_path": "/secret/key.txt"}, "c1"), ("ls", {"path": "/"}, "c2")),
        "it is denied",
        "the subagent could not read it",
    ]
    run = run_fs(script, mode=mode, setup=lambda a: {"permissions": deny_secret(a)}, inp=state_input())
    check(run)
    child = run.ref.calls[2].messages
    assert (child[-2].content, child[-2].status) == ("Error: permission denied for read on /secret/key.txt", "error")
    assert run.ref.calls[1].tool_names == list(FS_TOOLS)


@pytest.mark.parametrize("mode", MODES)
def test_subagent_rules_replace_the_parents(mode: str) -> None:
    """``permissions=[]`` on a spec lifts the parent's rules; other rules replace them."""

    def setup(a: SimpleNamespace) -> dict[str, Any]:
        FP = a.FilesystemPermission
        return {
            "permissions": deny_secret(a),
            "subagents": [
                {"name": "auditor", "description": "Audits secrets.", "system_prompt": "Audit.", "permissions": []},
                {
                    "name": "reader",
                    "description": "Reads docs only.",
                    "system_prompt": "Read.",
                    "permissions": [FP(operations=["read"], paths=["/notes.txt"], mode="deny")],
                },
            ],
        }

    script = [
        ai_tool_calls(task("audit", "auditor", "t1")),
        ai_tool_calls(("read_file", {"file_path": "/secret/key.txt"}, "a1")),
        "audited",
        ai_tool_calls(task("read", "reader", "t2")),
        ai_tool_calls(
            ("read_file", {"file_path": "/secret/key.txt"}, "r1"), ("read_file", {"file_path": "/notes.txt"}, "r2")
        ),
        "read",
        "done",
    ]
    run = run_fs(script, mode=mode, setup=setup, inp=state_input())
    check(run)
    auditor_saw = run.ref.calls[2].messages[-1]
    assert auditor_saw.content == "@@ lines 1-1 of 1 @@\nhello secret"
    reader_saw = run.ref.calls[5].messages[-2:]
    assert [m.content for m in reader_saw] == [
        "@@ lines 1-1 of 1 @@\nhello secret",
        "Error: permission denied for read on /notes.txt",
    ]


@pytest.mark.parametrize("mode", MODES)
def test_fork_subagent_with_memorizer_rules(mode: str) -> None:
    """A fork continues the parent's conversation (and sees its files) under its own rules."""

    def setup(a: SimpleNamespace) -> dict[str, Any]:
        spec = {
            "name": "memorizer",
            "description": "Recalls what AGENTS.md and the docs say.",
            "mode": "fork",
            "permissions": memorizer_rules(a),
        }
        return {"subagents": [spec]}

    script = [
        ai_tool_calls(("write_file", {"file_path": "/scratch.md", "content": "parent wrote this\n"}, "p1")),
        ai_tool_calls(task("what do AGENTS.md and scratch say?", "memorizer")),
        ai_tool_calls(
            ("read_file", {"file_path": "/AGENTS.md"}, "m1"),
            ("read_file", {"file_path": "/scratch.md"}, "m2"),
            ("write_file", {"file_path": "/AGENTS.md", "content": "forgotten"}, "m3"),
            ("glob", {"pattern": "*.md", "path": "/docs/api"}, "m4"),
        ),
        "AGENTS.md says be brief; scratch is off limits",
        "done",
    ]
    run = run_fs(script, mode=mode, setup=setup, inp=state_input())
    result = check(run)
    fork_saw = run.ref.calls[3].messages[-4:]
    assert [(m.content, m.status) for m in fork_saw] == [
        ("@@ lines 1-2 of 2 @@\n# Agents\nremember: be brief", "success"),
        ("Error: permission denied for read on /scratch.md", "error"),
        ("Error: permission denied for write on /AGENTS.md", "error"),
        ("['/docs/api/ref.md']", "success"),
    ]
    # The fork's request starts with the parent's conversation; the parent's own writes stand.
    assert run.ref.calls[2].messages[1].content == "go"
    assert result["files"]["/scratch.md"]["content"] == "parent wrote this\n"
    assert result["files"]["/AGENTS.md"]["content"] == FILES["/AGENTS.md"]


# --------------------------------------------------------------------------------------------
# Rule validation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "paths,exc",
    [(["docs/**"], ValueError), (["/a/../b"], ValueError), (["/~/x"], NotImplementedError)],
    ids=["relative", "dotdot", "tilde"],
)
def test_invalid_rule_paths(paths: list[str], exc: type[Exception]) -> None:
    messages = []
    for impl in ("deepagents",) if REF_ONLY else ("deepagents", "deepagents_rs"):
        with pytest.raises(exc) as info:
            api(impl).FilesystemPermission(operations=["read"], paths=paths)
        messages.append(str(info.value))
    assert messages[0].startswith("Permission path must")
    assert len(set(messages)) == 1
