"""Parity: ``FilesystemPermission`` rules on their own, no agent: how a rule is checked against
a path (first match wins, ``?``/braces/globstar, the raw matcher's blind spots), rule anchors
and overlap, the rules' validation, which backends may carry rules, the sandbox glob output
the rules are applied to, and which file-tool calls an ``interrupt`` rule sends to a human.

Each table row is evaluated by deepagents' and deepagents_rs' own functions and classes; most
rows also state the expected answer. The rules applied by real tool calls are in
``test_permission_tools.py`` and ``test_permission_delete.py``.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import IMPLS, attempt, view
from .fs_support import api


def mod(impl: str, name: str) -> Any:
    return importlib.import_module(f"{impl}.{name}")


def rules_of(impl: str, specs: list[tuple]) -> list[Any]:
    """``(operations, paths, mode)`` triples as ``FilesystemPermission`` objects of ``impl``."""
    FP = api(impl).FilesystemPermission
    return [FP(operations=list(ops), paths=list(paths), mode=mode) for ops, paths, mode in specs]


def both(fn: Any) -> Any:
    """``fn(impl)`` for each implementation; asserts they agree and returns deepagents' answer."""
    out = {impl: view(attempt(lambda impl=impl: fn(impl))) for impl in IMPLS}
    assert out["deepagents_rs"] == out["deepagents"]
    return out["deepagents"]


# --------------------------------------------------------------------------------------------
# Checking one path
# --------------------------------------------------------------------------------------------

VAULT_DENY = (["read"], ["/vault/**"], "deny")

CHECKS = [
    ([], "read", "/any/where.txt", "allow"),
    ([], "write", "/any/where.txt", "allow"),
    ([(["read"], ["/box/?"], "deny")], "read", "/box/q", "deny"),
    ([(["read"], ["/box/?"], "deny")], "read", "/box/qq", "allow"),
    ([(["read"], ["/box/{x,y}.cfg"], "deny")], "read", "/box/y.cfg", "deny"),
    ([(["read"], ["/box/{x,y}.cfg"], "deny")], "read", "/box/z.cfg", "allow"),
    ([(["read"], ["/box/[mn].cfg"], "deny")], "read", "/box/n.cfg", "deny"),
    ([(["read"], ["/vault/**", "/keys/**"], "deny")], "read", "/keys/id.pem", "deny"),
    ([(["read"], ["/vault/**", "/keys/**"], "deny")], "read", "/open/id.pem", "allow"),
    ([(["write"], ["/**"], "deny")], "read", "/vault/a.txt", "allow"),
    ([VAULT_DENY, (["read"], ["/vault/**"], "allow")], "read", "/vault/a.txt", "deny"),
    ([(["read"], ["/vault/**"], "allow"), VAULT_DENY], "read", "/vault/a.txt", "allow"),
    ([VAULT_DENY], "read", "/vault/x/y/z/w.txt", "deny"),
    ([VAULT_DENY], "read", "/vault", "allow"),
    # The matcher takes paths as given: callers canonicalize first.
    ([VAULT_DENY], "read", "/vault/./a.txt", "allow"),
    ([VAULT_DENY], "read", "vault/a.txt", "allow"),
    ([(["write"], ["/vault/**"], "interrupt")], "write", "/vault/a.txt", "interrupt"),
    ([(["write"], ["/vault/**"], "interrupt")], "write", "/elsewhere.txt", "allow"),
    ([(["write"], ["/vault/**"], "deny"), (["write"], ["/vault/**"], "interrupt")], "write", "/vault/a", "deny"),
]


@pytest.mark.parametrize(
    ("specs", "op", "path", "expected"), CHECKS, ids=[f"{c[1]}:{c[2]}:{i}" for i, c in enumerate(CHECKS)]
)
def test_check_one_path(specs: list[tuple], op: str, path: str, expected: str) -> None:
    def check(impl: str) -> str:
        return mod(impl, "middleware.filesystem")._check_fs_permission(rules_of(impl, specs), op, path)

    assert both(check) == expected


@pytest.mark.parametrize(
    ("pattern", "anchor"),
    [
        ("/vault/**", "/vault"),
        ("/a/b/*.txt", "/a/b"),
        ("/a/*/c", "/a"),
        ("/f.txt", "/f.txt"),
        ("/*/x", "/"),
        ("/**/k", "/"),
        ("/{p,q}/r", "/"),
    ],
)
def test_glob_anchor(pattern: str, anchor: str) -> None:
    assert both(lambda impl: mod(impl, "backends.utils")._glob_anchor(pattern)) == anchor


@pytest.mark.parametrize(
    ("one", "other", "overlap"),
    [
        ("/p/q", "/p/q", True),
        ("/p/q/r", "/p/q", True),
        ("/p", "/p/q", True),
        ("/", "/p", True),
        ("/p", "/", True),
        ("/key", "/keys", False),
        ("/keys", "/key", False),
        ("/p", "/q", False),
    ],
)
def test_paths_overlap(one: str, other: str, overlap: bool) -> None:
    assert both(lambda impl: mod(impl, "backends.utils")._paths_overlap(one, other)) is overlap


# --------------------------------------------------------------------------------------------
# Building rules
# --------------------------------------------------------------------------------------------

BUILDS = [
    ({"operations": ["read"], "paths": ["/data/**"]}, None),
    ({"operations": ["read", "write"], "paths": ["/data/**"], "mode": "deny"}, None),
    ({"operations": ["write"], "paths": ["/data/**"], "mode": "interrupt"}, None),
    ({"operations": ["read"], "paths": ["/data\\sub\\**"]}, None),
    ({"operations": ["read"], "paths": ["/ok/**", "rel/**"]}, "ValueError"),
    ({"operations": ["read"], "paths": ["/data\\..\\keys\\**"]}, "ValueError"),
    ({"operations": ["read"], "paths": ["/data/..\\keys/**"]}, "ValueError"),
    ({"operations": ["read"], "paths": ["/data/~/x"]}, "NotImplementedError"),
]


@pytest.mark.parametrize(("kwargs", "error"), BUILDS, ids=[str(b[0]["paths"]) + str(b[0].get("mode")) for b in BUILDS])
def test_rule_construction(kwargs: dict[str, Any], error: str | None) -> None:
    def build(impl: str) -> Any:
        rule = api(impl).FilesystemPermission(**kwargs)
        return {"operations": list(rule.operations), "paths": list(rule.paths), "mode": rule.mode}

    got = both(build)
    if error is None:
        assert got == {"mode": "allow", **kwargs}  # kept as given, default mode "allow"
    else:
        assert got[:2] == ("raised", error)
        assert "Permission path must" in got[2]


# --------------------------------------------------------------------------------------------
# Which backends may carry rules
# --------------------------------------------------------------------------------------------


def sandbox_class(a: SimpleNamespace) -> type:
    """A store-backed backend that can also execute commands."""
    P = a.protocol

    class Runner(P.SandboxBackendProtocol, a.StoreBackend):
        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            return P.ExecuteResponse(output="", exit_code=0, truncated=False)

        async def aexecute(self, command: str, *, timeout: int | None = None) -> Any:
            return self.execute(command)

        @property
        def id(self) -> str:
            return "runner"

    return Runner


def in_memory(a: SimpleNamespace, cls: type | None = None) -> Any:
    from langgraph.store.memory import InMemoryStore

    return (cls or a.StoreBackend)(store=InMemoryStore(), namespace=lambda _rt: ("fs",))


LAYOUTS = {
    "sandbox": lambda a: in_memory(a, sandbox_class(a)),
    "composite, sandbox default": lambda a: a.CompositeBackend(default=in_memory(a, sandbox_class(a)), routes={}),
    "composite, plain default": lambda a: a.CompositeBackend(default=in_memory(a), routes={}),
    "composite, sandbox route": lambda a: a.CompositeBackend(
        default=in_memory(a), routes={"/run/": in_memory(a, sandbox_class(a))}
    ),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_rules_need_a_backend_without_execute(layout: str) -> None:
    def build(impl: str) -> Any:
        a = api(impl)
        rules = rules_of(impl, [(["write"], ["/**"], "deny")])
        mw = a.FilesystemMiddleware(backend=LAYOUTS[layout](a), permissions=rules)
        return [(list(r.operations), list(r.paths), r.mode) for r in mw._permissions]

    got = both(build)
    if "sandbox default" in layout or layout == "sandbox":
        assert got[:2] == ("raised", "NotImplementedError") and "execute" in got[2]
    else:
        assert got == [[["write"], ["/**"], "deny"]]


@pytest.mark.parametrize(
    ("paths", "scoped"),
    [(["/notes/**"], True), (["/notes/**", "/top.txt"], False), (["/**"], False), (["/notes"], False)],
)
def test_rules_scoped_to_routes(paths: list[str], scoped: bool) -> None:
    def check(impl: str) -> bool:
        a = api(impl)
        comp = a.CompositeBackend(default=in_memory(a), routes={"/notes/": in_memory(a)})
        rules = rules_of(impl, [(["read"], paths, "deny")])
        return mod(impl, "middleware.filesystem")._all_paths_scoped_to_routes(rules, comp)

    assert both(check) is scoped


# --------------------------------------------------------------------------------------------
# Sandbox glob output: relative matches come back absolute, so rules can apply to them
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("base", ["/proj", "/proj/", "/"])
def test_sandbox_glob_output_is_made_absolute(base: str) -> None:
    lines = ['{"path": "keys/k.pem", "is_dir": false}', '{"path": "main.py", "is_dir": false}', ""]

    def parse(impl: str) -> Any:
        P = api(impl).protocol
        response = P.ExecuteResponse(output="\n".join(lines), exit_code=0)
        return mod(impl, "backends.sandbox")._parse_glob_output(response, base)

    got = both(parse)
    listed = [m["path"] for m in got["matches"]]
    assert listed == [f"{base.rstrip('/')}/keys/k.pem", f"{base.rstrip('/')}/main.py"]

    def filtered(impl: str) -> str:
        rules = rules_of(impl, [(["read"], [f"{base.rstrip('/')}/keys/**"], "deny")])
        check = mod(impl, "middleware.filesystem")._check_fs_permission
        return [p for p in listed if check(rules, "read", p) == "allow"]

    assert both(filtered) == listed[1:]


# --------------------------------------------------------------------------------------------
# interrupt rules: which calls go to a human
# --------------------------------------------------------------------------------------------


def interrupt_on(impl: str, specs: list[tuple]) -> dict[str, Any]:
    return mod(impl, "middleware._fs_interrupt")._build_interrupt_on_from_permissions(rules_of(impl, specs))


@pytest.mark.parametrize(
    ("specs", "tools"),
    [
        ([], []),
        ([(["write"], ["/vault/**"], "deny")], []),
        ([(["write"], ["/vault/**"], "interrupt")], ["delete", "edit_file", "write_file"]),
        ([(["read"], ["/vault/**"], "interrupt")], ["glob", "grep", "ls", "read_file"]),
    ],
)
def test_interrupt_rules_gate_tools(specs: list[tuple], tools: list[str]) -> None:
    def gated(impl: str) -> Any:
        return sorted((name, list(cfg["allowed_decisions"])) for name, cfg in interrupt_on(impl, specs).items())

    got = both(gated)
    assert [name for name, _ in got] == tools


READ_GATE = [(["read"], ["/vault/**"], "interrupt")]
WRITE_GATE = [(["write"], ["/vault/**"], "interrupt")]

WHEN = [
    (WRITE_GATE, "write_file", {"file_path": "/vault/k.pem", "content": ""}, True),
    (WRITE_GATE, "write_file", {"file_path": "/open/k.pem", "content": ""}, False),
    (WRITE_GATE, "edit_file", {"file_path": "/vault", "old_string": "", "new_string": ""}, False),
    (WRITE_GATE, "delete", {"file_path": "/"}, True),
    (WRITE_GATE, "delete", {"file_path": "/vault"}, True),
    (WRITE_GATE, "delete", {"file_path": "/open"}, False),
    (READ_GATE, "read_file", {"file_path": "/vault/a"}, True),
    (READ_GATE, "ls", {}, True),
    (READ_GATE, "ls", {"path": None}, True),
    (READ_GATE, "ls", {"path": "/"}, True),
    (READ_GATE, "ls", {"path": "/."}, True),
    (READ_GATE, "grep", {"pattern": "x", "path": "."}, True),
    (READ_GATE, "grep", {"pattern": "x", "path": ""}, True),
    (READ_GATE, "grep", {"pattern": "x", "path": "./"}, True),
    (READ_GATE, "ls", {"path": "/vault"}, True),
    (READ_GATE, "ls", {"path": "/vault/in"}, True),
    (READ_GATE, "ls", {"path": "/open"}, False),
    (READ_GATE, "ls", {"path": "/vaul"}, False),
    (READ_GATE, "ls", {"path": "/vault/../etc"}, False),
    (READ_GATE, "glob", {"pattern": "/vault/**", "path": "/open"}, True),
    (READ_GATE, "glob", {"pattern": "/vault/in/*.pem", "path": "/open"}, True),
    (READ_GATE, "glob", {"pattern": "/**/k.pem", "path": "/open"}, True),
    (READ_GATE, "glob", {"pattern": "/open/**", "path": "/open"}, False),
    (READ_GATE, "glob", {"pattern": "../vault/*", "path": "/open"}, True),
    (READ_GATE, "glob", {"pattern": "../../x/*", "path": "/open/in"}, True),
    (READ_GATE, "glob", {"pattern": "*.pem", "path": "/open"}, False),
    (READ_GATE, "glob", {"pattern": "*.pem", "path": "/vault"}, True),
]


@pytest.mark.parametrize(("specs", "tool", "args", "fires"), WHEN, ids=[f"{w[1]}{w[2]}" for w in WHEN])
def test_interrupt_when(specs: list[tuple], tool: str, args: dict[str, Any], fires: bool) -> None:
    request = SimpleNamespace(tool_call={"name": tool, "args": args, "id": "c1"})
    assert both(lambda impl: interrupt_on(impl, specs)[tool]["when"](request)) is fires
