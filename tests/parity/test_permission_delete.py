"""Parity: which ``deny`` write rules refuse a ``delete``, through a real agent.

Deleting a directory is all or nothing: any deny rule whose pattern could match the target
or anything under it, or any path above it, refuses the whole delete, and the refusal lists
every such pattern (in rule order, once each). A plain file is checked like ``write_file``:
the first matching rule wins. Rows run on the state backend (a directory is a path with
files under it), on a store (flat keys: a file may also have files under it) and on disk,
where the tree left behind is compared too.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .fs_support import MODES, Tree, ai_tool_calls, check, make_backend, run_fs, tool_results

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

REFUSED = re.compile(r"Error: permission denied for write on \S+ \(matches deny rule\(s\): (.+)\)")


def deny_write(*paths: str) -> tuple:
    return (["write"], list(paths), "deny")


def rules_of(a: SimpleNamespace, specs: list[tuple]) -> list[Any]:
    return [a.FilesystemPermission(operations=list(o), paths=list(p), mode=m) for o, p, m in specs]


def outcome(content: str) -> list[str] | None:
    """The deny patterns a refusal lists, or ``None`` when the delete went through."""
    if found := REFUSED.fullmatch(content):
        return found.group(1).split(", ")
    assert content.startswith("Deleted "), content
    return None


def delete_once(backend: Any, specs: list[tuple], target: str, mode: str) -> str:
    run = backend.run(
        [ai_tool_calls(("delete", {"file_path": target})), "done"],
        mode=mode,
        setup=lambda a: backend.setup(a, permissions=rules_of(a, specs)),
    )
    [(_, content, _)] = tool_results(check(run))
    return content


# (rules, target, expected patterns or None): the target is a directory holding one file.
SUBTREE = [
    ([deny_write("/other/**")], "/proj", None),
    ([deny_write("/project/**")], "/proj", None),
    ([deny_write("/proj2")], "/proj", None),
    ([deny_write("/proj/keys")], "/proj/logs", None),
    ([deny_write("/proj/*.tmp")], "/proj/readme.md", None),
    ([deny_write("/proj/d?c.md")], "/proj/other.md", None),
    ([deny_write("/proj/*")], "/proj/app/inner", ["/proj/*"]),
    ([deny_write("/proj/*")], "/proj/app/x/y", ["/proj/*"]),
    ([deny_write("/proj/*.tmp")], "/proj/cache.tmp/inner", ["/proj/*.tmp"]),
    ([deny_write("/proj/*/keys")], "/proj/app", ["/proj/*/keys"]),
    ([deny_write("/proj/**/keys")], "/proj/app", ["/proj/**/keys"]),
    ([deny_write("/proj/**/*.tmp")], "/proj/sub", ["/proj/**/*.tmp"]),
    ([deny_write("/proj/*.tmp")], "/proj/cache.tmp", ["/proj/*.tmp"]),
    ([deny_write("/proj/*")], "/proj/app", ["/proj/*"]),
    ([deny_write("/proj/{keys,certs}")], "/proj/certs", ["/proj/{keys,certs}"]),
    ([deny_write("/proj/[xy].md")], "/proj/y.md", ["/proj/[xy].md"]),
    ([deny_write("/proj/f.md")], "/proj/f.md", ["/proj/f.md"]),
    ([deny_write("/proj")], "/proj", ["/proj"]),
    ([deny_write("/proj/keys/**")], "/proj", ["/proj/keys/**"]),
    ([deny_write("/proj/**")], "/proj/logs", ["/proj/**"]),
    ([deny_write("/proj")], "/proj/a/b", ["/proj"]),
    ([deny_write("/proj/keys")], "/proj", ["/proj/keys"]),
    ([deny_write("/z/**")], "/", ["/z/**"]),
    ([deny_write("/**/keys")], "/proj", ["/**/keys"]),
    ([deny_write("/proj/**")], "/proj/", ["/proj/**"]),
    ([deny_write("/proj/")], "/proj/sub", ["/proj/"]),
    ([deny_write("/proj/")], "/proj/", ["/proj/"]),
    # Only deny rules about writing count.
    ([(["read", "write"], ["/proj/**"], "deny")], "/proj", ["/proj/**"]),
    ([(["write"], ["/proj/**"], "allow")], "/proj", None),
    ([(["read"], ["/proj/**"], "deny")], "/proj", None),
    # Several rules: every overlapping pattern, first-seen order, no duplicates, no cap.
    ([], "/proj", None),
    ([deny_write("/proj/a/**"), deny_write("/proj/b/**")], "/proj", ["/proj/a/**", "/proj/b/**"]),
    ([deny_write("/proj/a/**", "/proj/b/**", "/else/**")], "/proj", ["/proj/a/**", "/proj/b/**"]),
    ([deny_write(f"/proj/n{i}/**") for i in range(9)], "/proj", [f"/proj/n{i}/**" for i in range(9)]),
    ([deny_write("/proj/q/**"), deny_write("/proj/q/**", "/proj/r/**")], "/proj", ["/proj/q/**", "/proj/r/**"]),
    ([deny_write("/else/**"), deny_write("/proj/q/**"), deny_write("/more/**")], "/proj", ["/proj/q/**"]),
    # An allow rule listed first does not lift the subtree check.
    ([(["write"], ["/proj/**"], "allow"), deny_write("/**")], "/proj/sub", ["/**"]),
]


@pytest.mark.parametrize(("specs", "target", "expected"), SUBTREE, ids=[f"{r[1]}-{i}" for i, r in enumerate(SUBTREE)])
def test_directory_delete(specs: list[tuple], target: str, expected: list[str] | None, tmp_path: Path) -> None:
    files = {f"{target.rstrip('/')}/held.txt": "h\n", "/bystander.txt": "b\n"}
    content = delete_once(make_backend("state", tmp_path, files), specs, target, "invoke")
    assert outcome(content) == expected


ALLOW_WORK_THEN_DENY = [(["read", "write"], ["/proj/**"], "allow"), (["read", "write"], ["/**"], "deny")]

# A plain file: the first matching rule decides.
LEAF = [
    (ALLOW_WORK_THEN_DENY, None),
    ([deny_write("/**"), (["write"], ["/proj/**"], "allow")], ["/**"]),
    ([deny_write("/elsewhere/**")], None),
    ([deny_write("/proj/f.md")], ["/proj/f.md"]),
]


@pytest.mark.parametrize("backend", ["state", "store"])
@pytest.mark.parametrize(("specs", "expected"), LEAF)
def test_file_delete(specs: list[tuple], expected: list[str] | None, backend: str, tmp_path: Path) -> None:
    files = {"/proj/f.md": "f\n", "/bystander.txt": "b\n"}
    assert outcome(delete_once(make_backend(backend, tmp_path, files), specs, "/proj/f.md", "invoke")) == expected


@pytest.mark.parametrize("mode", MODES)
def test_store_key_with_keys_under_it_is_a_directory(mode: str, tmp_path: Path) -> None:
    files = {"/proj/item": "item\n", "/proj/item/keys/k": "secret\n"}
    specs = [(["read", "write"], ["/proj/item"], "allow"), (["read", "write"], ["/proj/item/keys/**"], "deny")]
    content = delete_once(make_backend("store", tmp_path, files), specs, "/proj/item", mode)
    assert outcome(content) == ["/proj/item/keys/**"]


# --------------------------------------------------------------------------------------------
# On disk: nothing is removed unless the whole subtree may go
# --------------------------------------------------------------------------------------------

DISK = {"proj/a.txt": "a", "proj/logs/run.log": "log", "proj/keys/k1.txt": "1", "proj/keys/k2.txt": "2"}

ON_DISK = [
    ([deny_write("/proj/keys/**")], "/proj", ["/proj/keys/**"]),
    ([deny_write("/elsewhere/**")], "/proj", None),
    ([deny_write("/proj/keys")], "/proj", ["/proj/keys"]),
    ([deny_write("/proj/**")], "/proj/logs", ["/proj/**"]),
    ([deny_write("/proj/keys", "/proj/keys/**")], "/proj/logs", None),
    ([deny_write("/proj/keys/**"), deny_write("/proj/logs/**")], "/proj", ["/proj/keys/**", "/proj/logs/**"]),
    ([], "/proj/a.txt", None),
    (ALLOW_WORK_THEN_DENY, "/proj/a.txt", None),
    ([(["read", "write"], ["/proj/logs/**"], "allow"), (["read", "write"], ["/**"], "deny")], "/proj", ["/**"]),
    (ALLOW_WORK_THEN_DENY, "/proj/hollow", ["/**"]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("specs", "target", "expected"), ON_DISK, ids=[f"{r[1]}-{i}" for i, r in enumerate(ON_DISK)])
def test_delete_on_disk(specs: list[tuple], target: str, expected: list[str] | None, mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, DISK, dirs=["proj/hollow"])

    def setup(a: SimpleNamespace) -> dict[str, Any]:
        return {"backend": a.FilesystemBackend(root_dir=root, virtual_mode=True), "permissions": rules_of(a, specs)}

    run = run_fs([ai_tool_calls(("delete", {"file_path": target})), "done"], mode=mode, setup=setup, tree=tree)
    [(_, content, _)] = tool_results(check(run))
    assert outcome(content) == expected
    left = run.disk["deepagents"]
    gone = target.lstrip("/")
    if expected is None:
        assert gone not in left and not any(p.startswith(gone + "/") for p in left)
    else:
        tree.reset()
        assert left == tree.snapshot()
