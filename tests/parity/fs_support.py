"""Shared builders for the filesystem-tool parity tests (``test_files_*.py``).

Each implementation builds its own backend objects (``deepagents.backends.X`` for the
reference, ``deepagents_rs.backends.X`` for ours) through a ``setup(api)`` callable, so a
scenario is written once. Disk trees are rebuilt at the *same* path before each
implementation's run, so absolute paths in tool messages (``virtual_mode=False``) compare
equal, and the tree each run leaves behind is compared too.

``PARITY_REF_ONLY=1`` runs only the deepagents side (and its scenario-specific asserts): a
way to check the scenarios themselves while deepagents_rs lacks the tools.
``PARITY_DUMP=1`` prints each reference tool message, for writing new assertions.
"""

from __future__ import annotations

import base64
import importlib
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from langchain_core.messages import ToolMessage

from .harness import FS_TOOLS, MODES, Both, Mode, _run_one, ai_tool_calls, assert_parity, norm_files

__all__ = [
    "BACKENDS",
    "FS_TOOLS",
    "MODES",
    "REF_ONLY",
    "Backend",
    "FsRun",
    "Tree",
    "ai_tool_calls",
    "api",
    "check",
    "check_error",
    "file_data",
    "make_backend",
    "run_fs",
    "store_items",
    "tool_msgs",
    "tool_results",
]

REF_ONLY = os.environ.get("PARITY_REF_ONLY", "") not in ("", "0")
DUMP = os.environ.get("PARITY_DUMP", "") not in ("", "0")

USER = {"messages": [{"role": "user", "content": "go"}]}


def api(impl: str) -> SimpleNamespace:
    """The public names a scenario needs, from ``deepagents`` or ``deepagents_rs``."""
    backends = importlib.import_module(f"{impl}.backends")
    protocol = importlib.import_module(f"{impl}.backends.protocol")
    filesystem = importlib.import_module(f"{impl}.middleware.filesystem")
    return SimpleNamespace(
        impl=impl,
        StateBackend=backends.StateBackend,
        FilesystemBackend=backends.FilesystemBackend,
        LocalShellBackend=backends.LocalShellBackend,
        CompositeBackend=backends.CompositeBackend,
        StoreBackend=backends.StoreBackend,
        BackendProtocol=backends.BackendProtocol,
        protocol=protocol,
        FilesystemPermission=filesystem.FilesystemPermission,
        FilesystemMiddleware=filesystem.FilesystemMiddleware,
        create_deep_agent=importlib.import_module(impl).create_deep_agent,
    )


@dataclass
class Tree:
    """A directory tree written afresh (at the same path) before each implementation's run.

    ``files`` maps root-relative paths to text or bytes; ``dirs`` adds empty directories;
    ``links`` maps root-relative link paths to their (absolute or relative) targets.
    """

    root: Path
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    dirs: Sequence[str] = ()
    links: Mapping[str, str] = field(default_factory=dict)

    def reset(self) -> None:
        if self.root.exists():
            shutil.rmtree(self.root)
        self.root.mkdir(parents=True)
        for rel in self.dirs:
            (self.root / rel).mkdir(parents=True, exist_ok=True)
        for rel, data in self.files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, bytes):
                path.write_bytes(data)
            else:
                path.write_text(data)
        for rel, target in self.links.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(target)

    def snapshot(self) -> dict[str, Any]:
        """Root-relative path -> bytes, ``"<dir>"`` or ``("<link>", target)``."""
        out: dict[str, Any] = {}
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root).as_posix()
            if path.is_symlink():
                out[rel] = ("<link>", os.readlink(path))
            elif path.is_dir():
                out[rel] = "<dir>"
            else:
                out[rel] = path.read_bytes()
        return out


@dataclass
class FsRun:
    """Both runs plus what each left behind: the create kwargs it used and its disk tree."""

    both: Both
    kwargs: dict[str, dict[str, Any]] = field(default_factory=dict)
    disk: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ref(self):
        return self.both.ref

    @property
    def rs(self):
        return self.both.rs


Setup = Callable[[SimpleNamespace], dict[str, Any]]


def run_fs(
    script: Sequence[Any],
    *,
    mode: Mode,
    setup: Setup | None = None,
    tree: Tree | None = None,
    inp: Any = None,
    tools: Sequence[Any] | None = None,
    config: dict[str, Any] | None = None,
) -> FsRun:
    """Run the scenario through deepagents, then deepagents_rs (unless ``REF_ONLY``).

    ``setup(api(impl))`` returns the ``create_deep_agent`` keyword arguments (backend,
    permissions, store, subagents...) built from that implementation's own classes.
    """
    inp = USER if inp is None else inp
    run = FsRun(both=Both(ref=None, rs=None))  # type: ignore[arg-type]
    for impl in ("deepagents",) if REF_ONLY else ("deepagents", "deepagents_rs"):
        if tree is not None:
            tree.reset()
        kwargs = setup(api(impl)) if setup is not None else {}
        outcome = _run_one(impl, script, tools, inp, mode, config, kwargs)
        run.kwargs[impl] = kwargs
        if tree is not None:
            run.disk[impl] = tree.snapshot()
        if impl == "deepagents":
            run.both.ref = outcome
        else:
            run.both.rs = outcome
    if DUMP:
        _dump(run)
    return run


def _dump(run: FsRun) -> None:
    ref = run.ref
    print(f"\n--- deepagents ({'error ' + repr(ref.error) if ref.error else 'ok'})")
    if ref.result is not None:
        for m in tool_msgs(ref.result):
            print(f"[{m.name} {m.status}] {repr(m.content)[:400]}")
        if "files" in ref.result:
            print("files:", _short(norm_files(ref.result["files"])))
    if run.disk.get("deepagents") is not None:
        print("disk:", _short(run.disk["deepagents"]))


def _short(mapping: Mapping[str, Any]) -> dict[str, str]:
    return {k: repr(v)[:70] for k, v in mapping.items()}


def tool_msgs(result: Mapping[str, Any]) -> list[ToolMessage]:
    return [m for m in result["messages"] if isinstance(m, ToolMessage)]


def tool_results(result: Mapping[str, Any]) -> list[tuple[str | None, Any, str]]:
    """``(name, content, status)`` of every tool message, in order."""
    return [(m.name, m.content, m.status) for m in tool_msgs(result)]


def store_items(store: Any) -> dict[tuple[tuple[str, ...], str], Any]:
    """Every item of a langgraph ``BaseStore``, timestamps in the values normalized."""
    out: dict[tuple[tuple[str, ...], str], Any] = {}
    for namespace in store.list_namespaces():
        for item in store.search(namespace, limit=10_000):
            out[(tuple(item.namespace), item.key)] = norm_files({"v": item.value})["v"]
    return out


# --------------------------------------------------------------------------------------------
# Backend configurations shared by the per-tool scenarios
# --------------------------------------------------------------------------------------------

#: Fixed timestamps for pre-populated state/store files (kept as given unless rewritten).
T0 = "2024-01-02T03:04:05+00:00"

STORE_NAMESPACE = ("filesystem",)


def _store_namespace(_runtime: Any) -> tuple[str, ...]:
    return STORE_NAMESPACE


@dataclass
class Backend:
    """One backend configuration for a scenario written against virtual paths (``/a/b.txt``).

    ``path(p)`` is the path the model uses for ``p``: the same, or the absolute host path under
    ``root`` for ``FilesystemBackend(virtual_mode=False)``. ``inp(...)`` adds the pre-populated
    ``files`` for ``StateBackend``; the other configurations seed their disk tree or store.
    """

    name: str
    files: Mapping[str, str | bytes]
    root: Path | None = None
    tree: Tree | None = None

    def path(self, p: str) -> str:
        if self.name == "fs_real":
            assert self.root is not None
            return f"{self.root}{p}" if p != "/" else str(self.root)
        return p

    def inp(self, base: Any = None) -> Any:
        inp = dict(USER if base is None else base)
        if self.name == "state":
            inp["files"] = {p: file_data(c) for p, c in self.files.items()}
        return inp

    def setup(self, a: SimpleNamespace, **extra: Any) -> dict[str, Any]:
        kwargs: dict[str, Any] = dict(extra)
        if self.name == "state":
            return kwargs
        if self.name in ("fs_virtual", "fs_real"):
            kwargs["backend"] = a.FilesystemBackend(root_dir=self.root, virtual_mode=self.name == "fs_virtual")
            return kwargs
        if self.name == "store":
            from langgraph.store.memory import InMemoryStore

            store = InMemoryStore()
            for p, c in self.files.items():
                store.put(STORE_NAMESPACE, p, file_data(c))
            kwargs["backend"] = a.StoreBackend(namespace=_store_namespace)
            kwargs["store"] = store
            return kwargs
        raise AssertionError(self.name)

    def run(
        self, script: Sequence[Any], *, mode: Mode, inp: Any = None, setup: Setup | None = None, **kw: Any
    ) -> FsRun:
        return run_fs(script, mode=mode, setup=setup or self.setup, tree=self.tree, inp=self.inp(inp), **kw)


def file_data(content: str | bytes) -> dict[str, Any]:
    """``FileData`` for state/store seeding; bytes become base64."""
    if isinstance(content, bytes):
        return {
            "content": base64.b64encode(content).decode(),
            "encoding": "base64",
            "created_at": T0,
            "modified_at": T0,
        }
    return {"content": content, "encoding": "utf-8", "created_at": T0, "modified_at": T0}


#: Names of the configurations every per-tool scenario runs on.
BACKENDS = ("state", "fs_virtual", "fs_real", "store")


def make_backend(name: str, tmp_path: Path, files: Mapping[str, str | bytes], dirs: Sequence[str] = ()) -> Backend:
    """``dirs`` (virtual paths) are empty directories, on disk only: state and store have none."""
    if name in ("fs_virtual", "fs_real"):
        root = tmp_path / "root"
        tree = Tree(root, {p.lstrip("/"): c for p, c in files.items()}, dirs=[d.lstrip("/") for d in dirs])
        return Backend(name, files, root=root, tree=tree)
    return Backend(name, files)


def check(run: FsRun) -> dict[str, Any]:
    """``assert_parity`` plus disk trees, stores and tool-message artifacts.

    Returns the reference result for scenario-specific asserts (with ``REF_ONLY``, only
    the reference ran and only those asserts apply).
    """
    ref = run.ref.unwrap()
    if REF_ONLY:
        return ref
    assert_parity(run.both)
    rs = run.rs.unwrap()
    assert [m.artifact for m in tool_msgs(rs)] == [m.artifact for m in tool_msgs(ref)], "tool artifacts differ"
    if run.disk:
        assert run.disk["deepagents_rs"] == run.disk["deepagents"], "disk trees differ"
    ref_store, rs_store = (run.kwargs[i].get("store") for i in ("deepagents", "deepagents_rs"))
    if ref_store is not None:
        assert store_items(rs_store) == store_items(ref_store), "store contents differ"
    return ref


def check_error(run: FsRun) -> BaseException:
    """For scenarios whose run raises: the same model calls, then the same exception (and the
    same disk tree). Returns the reference exception."""
    assert run.ref.error is not None, f"deepagents did not raise: {run.ref.result!r}"
    if not REF_ONLY:
        assert assert_parity(run.both) == {}
        if run.disk:
            assert run.disk["deepagents_rs"] == run.disk["deepagents"], "disk trees differ"
    return run.ref.error
