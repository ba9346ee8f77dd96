"""Parity: deepagents' private permission helpers that its own tests import, called side by
side on the same inputs: the per-call ``when`` predicate behind a generated interrupt entry
(``_fs_interrupt._make_fs_when_predicate``, for any operation, path argument and scope), the
filters of listed paths and glob matches (``_filter_paths_by_permission``,
``_apply_permissions_to_glob_results``, with and without a backend whose symlinks lead
elsewhere), and the deny patterns a delete runs into (``_find_delete_deny_patterns``).

Each input is evaluated by both packages and the answers must be equal; some rows also state
the expected answer, so a table that stopped exercising its rule fails.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .test_permission_rules import both, mod, rules_of

RULE_SETS = {
    "read-gate": [(["read"], ["/vault/**"], "interrupt")],
    "write-gate": [(["write"], ["/vault/**"], "interrupt")],
    "deny-first": [(["read", "write"], ["/vault/open/**"], "deny"), (["read", "write"], ["/vault/**"], "interrupt")],
    "wild-root": [(["read"], ["/**/secret*"], "interrupt")],
    "braces": [(["read", "write"], ["/{a,b}/*.key"], "interrupt"), (["write"], ["/b/**"], "deny")],
    "no-interrupt": [(["read", "write"], ["/vault/**"], "deny")],
    "none": [],
}

ARGS = [
    {},
    {"path": None},
    {"path": "/"},
    {"path": "."},
    {"path": ""},
    {"path": "./"},
    {"path": "/vault"},
    {"path": "/vault/open/x"},
    {"path": "/vaul"},
    {"path": "/a"},
    {"path": "/b/k.key"},
    {"path": "/x/secret.txt"},
    {"path": "/vault/../etc"},
    {"path": "relative/dir"},
    {"path": 3},
    {"path": ["/vault"]},
    {"file_path": "/vault/a"},
    {"file_path": "/vault/open/a"},
    {"file_path": "/a/one.key"},
    {"file_path": "/b/one.key"},
    {"file_path": None},
    {"pattern": "/vault/**", "path": "/open"},
    {"pattern": "../vault/*", "path": "/open"},
    {"pattern": "*.key", "path": "/a"},
    {"pattern": "/open/**", "path": "/open"},
    {"pattern": "**/secret*"},
    {"pattern": 7, "path": "/open"},
]

SHAPES = [
    ("read", "path", "bulk", None),
    ("read", "path", "bulk", "pattern"),
    ("read", "file_path", "exact", None),
    ("write", "file_path", "exact", None),
    ("write", "file_path", "bulk", None),
    ("read", "path", "exact", "pattern"),
    ("write", "path", "subtree", None),
]


@pytest.mark.parametrize("rule_set", list(RULE_SETS))
@pytest.mark.parametrize("shape", SHAPES, ids=["-".join(str(p) for p in s) for s in SHAPES])
def test_when_predicate(rule_set: str, shape: tuple) -> None:
    """Every argument set against one predicate shape: the same firing decisions."""

    def decisions(impl: str) -> list[bool]:
        make = mod(impl, "middleware._fs_interrupt")._make_fs_when_predicate
        when = make(rules_of(impl, RULE_SETS[rule_set]), *shape)
        return [when(SimpleNamespace(tool_call={"name": "t", "args": args, "id": "c"})) for args in ARGS]

    got = both(decisions)
    if rule_set == "none" or rule_set == "no-interrupt":
        assert not any(got)


class _Mapping:
    """Arguments that are no dict but answer `.get` (deepagents reads them with `.get`)."""

    def __init__(self, data: dict) -> None:
        self.data = data

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


NOT_DICTS = {
    "none": lambda: None,
    "list": lambda: ["/vault/a"],
    "str": lambda: "/vault/a",
    "int": lambda: 3,
    "mapping-gated": lambda: _Mapping({"path": "/vault", "file_path": "/vault/a", "pattern": "/vault/**"}),
    "mapping-open": lambda: _Mapping({"path": "/open", "file_path": "/open/a"}),
    "mapping-empty": lambda: _Mapping({}),
}


@pytest.mark.parametrize("rule_set", ["read-gate", "write-gate", "no-interrupt", "none"])
@pytest.mark.parametrize("shape", SHAPES, ids=["-".join(str(p) for p in s) for s in SHAPES])
def test_when_predicate_with_arguments_that_are_no_dict(rule_set: str, shape: tuple) -> None:
    """Arguments that are not a dict: read with `.get` where deepagents reads them (raising
    where they have none), not read where deepagents decides without them."""

    def decisions(impl: str) -> list[Any]:
        when = mod(impl, "middleware._fs_interrupt")._make_fs_when_predicate(
            rules_of(impl, RULE_SETS[rule_set]), *shape
        )
        out = []
        for make in NOT_DICTS.values():
            request = SimpleNamespace(tool_call={"name": "t", "args": make(), "id": "c"})
            try:
                out.append(when(request))
            except AttributeError as e:
                out.append(("AttributeError", str(e)))
        return out

    got = both(decisions)
    if shape[2] == "exact":
        assert got[0] == ["AttributeError", "'NoneType' object has no attribute 'get'"]


def test_when_predicate_fires_where_stated() -> None:
    """A few decisions spelled out: an exact read of a gated file, a pathless bulk call, a
    deny rule before the interrupt rule, and glob's pattern moving the search root."""
    gate = RULE_SETS["deny-first"]
    rows = [
        (("read", "file_path", "exact", None), {"file_path": "/vault/a"}, True),
        (("read", "file_path", "exact", None), {"file_path": "/vault/open/a"}, False),
        (("read", "path", "bulk", None), {}, True),
        (("read", "path", "bulk", None), {"path": "/elsewhere"}, False),
        (("read", "path", "bulk", "pattern"), {"pattern": "/vault/**", "path": "/elsewhere"}, True),
        (("read", "path", "bulk", None), {"pattern": "/vault/**", "path": "/elsewhere"}, False),
    ]
    for shape, args, fires in rows:

        def decide(impl: str, shape: tuple = shape, args: dict = args) -> bool:
            when = mod(impl, "middleware._fs_interrupt")._make_fs_when_predicate(rules_of(impl, gate), *shape)
            return when(SimpleNamespace(tool_call={"name": "t", "args": args, "id": "c"}))

        assert both(decide) is fires


@pytest.fixture
def linked_root(tmp_path: Path) -> Path:
    """A directory with `/vault/k.pem`, `/open/note.txt`, `/open/link` leading into
    `/vault`, and `/open/loop` a symlink to itself."""
    (tmp_path / "vault").mkdir()
    (tmp_path / "vault" / "k.pem").write_text("key")
    (tmp_path / "open").mkdir()
    (tmp_path / "open" / "note.txt").write_text("hi")
    os.symlink(tmp_path / "vault", tmp_path / "open" / "link")
    os.symlink(tmp_path / "open" / "loop", tmp_path / "open" / "loop")
    return tmp_path


def _backend(impl: str, kind: str, root: Path) -> Any:
    backends = mod(impl, "backends")
    if kind == "none":
        return None
    if kind == "state":
        return backends.StateBackend()
    disk = backends.FilesystemBackend(root_dir=str(root), virtual_mode=True)
    if kind == "disk":
        return disk
    return backends.CompositeBackend(default=backends.StateBackend(), routes={"/disk/": disk})


PATHS = [
    "/vault/k.pem",
    "/vault",
    "/open/note.txt",
    "/open/link",
    "/open/link/k.pem",
    "/open/loop",
    "/open/missing",
    "/disk/open/link/k.pem",
    "/disk/open/note.txt",
    "/disk/vault/k.pem",
    "/elsewhere/a.txt",
    "/../escape",
    "",
]

FILTER_RULES = {
    "deny-vault-read": [(["read"], ["/vault/**"], "deny")],
    "deny-vault-write": [(["write"], ["/vault/**", "/disk/vault/**"], "deny")],
    "interrupt-only": [(["read"], ["/vault/**"], "interrupt")],
    "allow-then-deny": [(["read"], ["/open/**"], "allow"), (["read"], ["/**"], "deny")],
    "none": [],
}


@pytest.mark.parametrize("kind", ["none", "state", "disk", "composite"])
@pytest.mark.parametrize("rule_set", list(FILTER_RULES))
@pytest.mark.parametrize("operation", ["read", "write"])
def test_filter_paths(linked_root: Path, kind: str, rule_set: str, operation: str) -> None:
    def kept(impl: str) -> list[str]:
        fs = mod(impl, "middleware.filesystem")
        rules = rules_of(impl, FILTER_RULES[rule_set])
        return fs._filter_paths_by_permission(rules, operation, list(PATHS), backend=_backend(impl, kind, linked_root))

    got = both(kept)
    if rule_set == "none":
        assert got == PATHS
    if (kind, rule_set, operation) == ("disk", "deny-vault-read", "read"):
        # Through the link a file of the vault is reached, so it is denied too.
        assert "/open/link/k.pem" not in got
        assert "/open/note.txt" in got


@pytest.mark.parametrize("kind", ["none", "disk", "composite"])
@pytest.mark.parametrize("rule_set", list(FILTER_RULES))
def test_glob_results(linked_root: Path, kind: str, rule_set: str) -> None:
    matches = [{"path": p, "is_dir": False} for p in PATHS] + [{"is_dir": True}, {"path": "/vault/x", "size": 3}]

    def kept(impl: str) -> list[str]:
        fs = mod(impl, "middleware.filesystem")
        rules = rules_of(impl, FILTER_RULES[rule_set])
        return fs._apply_permissions_to_glob_results(rules, matches, backend=_backend(impl, kind, linked_root))

    got = both(kept)
    if rule_set == "none":
        assert got == [*PATHS, "", "/vault/x"]


DELETE_RULES = {
    "literal-dir": [(["write"], ["/work"], "deny")],
    "sibling-glob": [(["write"], ["/work/*.log"], "deny")],
    "star-dir": [(["write"], ["/work/*"], "deny")],
    "globstar": [(["write"], ["/work/**/keep"], "deny")],
    "allow-first": [(["write"], ["/work/**"], "allow"), (["write"], ["/work/app/secret"], "deny")],
    "root-wild": [(["write"], ["/**/*.pem"], "deny")],
    "braces": [(["write"], ["/work/{a,b}/x"], "deny"), (["write"], ["/work/{a,b}/x"], "deny")],
    "read-only-deny": [(["read"], ["/work/**"], "deny")],
    "interrupt": [(["write"], ["/work/**"], "interrupt")],
    "question": [(["write"], ["/work/?.txt", "/work/[ab]/q"], "deny")],
}

TARGETS = [
    "/",
    "/work",
    "/work/notes.txt",
    "/work/a.log",
    "/work/app",
    "/work/app/child",
    "/work/app/secret",
    "/work/app/keep",
    "/work/deep/er/keep",
    "/work/a",
    "/work/a/x",
    "/work/b/q",
    "/work/z.txt",
    "/other",
    "/other/k.pem",
]


@pytest.mark.parametrize("rule_set", list(DELETE_RULES))
def test_delete_deny_patterns(rule_set: str) -> None:
    def denying(impl: str) -> list[Any]:
        fs = mod(impl, "middleware.filesystem")
        rules = rules_of(impl, DELETE_RULES[rule_set])
        return [
            fs._find_delete_deny_patterns(rules, target, has_descendants=descendants)
            for target, descendants in itertools.product(TARGETS, (True, False))
        ]

    got = both(denying)
    if rule_set in ("read-only-deny", "interrupt"):
        assert not any(got)


def test_delete_deny_patterns_stated() -> None:
    """A deny on a directory blocks deleting what holds it, a sibling glob does not, and a
    plain file follows first-match-wins."""

    def answers(impl: str) -> list[list[str]]:
        fs = mod(impl, "middleware.filesystem")
        return [
            fs._find_delete_deny_patterns(rules_of(impl, DELETE_RULES["literal-dir"]), "/"),
            fs._find_delete_deny_patterns(rules_of(impl, DELETE_RULES["sibling-glob"]), "/work/notes.txt"),
            fs._find_delete_deny_patterns(rules_of(impl, DELETE_RULES["allow-first"]), "/work/app"),
            fs._find_delete_deny_patterns(
                rules_of(impl, DELETE_RULES["allow-first"]), "/work/app/secret", has_descendants=False
            ),
        ]

    assert both(answers) == [["/work"], [], ["/work/app/secret"], []]


@pytest.mark.parametrize("kind", ["none", "state", "disk", "composite"])
def test_when_predicate_through_links(linked_root: Path, kind: str) -> None:
    """With a backend, a path leading through a symlink into a gated tree is gated, and one
    that cannot be resolved (a loop) is not checked."""
    rules = [(["read", "write"], ["/vault/**", "/disk/vault/**"], "interrupt")]
    calls = [
        {"file_path": "/open/link/k.pem"},
        {"file_path": "/disk/open/link/k.pem"},
        {"file_path": "/open/loop"},
        {"file_path": "/open/note.txt"},
        {"path": "/open/link"},
        {"path": "/disk/open"},
        {"path": "/open/loop"},
    ]

    def decisions(impl: str) -> list[bool]:
        make = mod(impl, "middleware._fs_interrupt")._make_fs_when_predicate
        backend = _backend(impl, kind, linked_root)
        out = []
        for shape in (("read", "file_path", "exact", None), ("read", "path", "bulk", None)):
            when = make(rules_of(impl, rules), *shape, backend=backend)
            out += [when(SimpleNamespace(tool_call={"name": "t", "args": a, "id": "c"})) for a in calls]
        return out

    got = both(decisions)
    if kind == "disk":
        assert got[0] is True
