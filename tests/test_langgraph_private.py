"""LangGraph's private names, gathered in ``deepagents_rs._langgraph_private`` and checked there.

* every name listed resolves on the installed LangGraph, to LangGraph's own object;
* the list is exactly what the package's modules import (an ``ast`` scan of the sources):
  a private LangGraph import anywhere else, or a listed name nobody uses, fails;
* a stand-in LangGraph on ``sys.path`` (an out-of-range version; a release that renamed one
  name) gives ``create_deep_agent`` one ``ImportError`` naming the package, the version found
  and the range supported, while ``import deepagents_rs`` still loads no LangGraph module;
* ``pyproject.toml``'s ``langchain`` extra declares the ranges the module checks, and they
  hold the versions this suite runs on.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from deepagents_rs import _langgraph_private as private
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "deepagents_rs"


def _is_private(module: str, name: str) -> bool:
    return any(part.startswith("_") for part in module.split(".")) or name.startswith("_")


def _scan() -> tuple[dict[str, set[str]], dict[str, set[str]], set[str]]:
    """What the package's sources import: LangGraph's private names imported directly (module
    -> names, by file), and the names imported from ``_langgraph_private``."""
    direct: dict[str, set[str]] = {}
    where: dict[str, set[str]] = {}
    through: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_langgraph_private.py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("langgraph"):
                for alias in node.names:
                    if _is_private(node.module, alias.name):
                        direct.setdefault(node.module, set()).add(alias.name)
                        where.setdefault(str(path.relative_to(PACKAGE)), set()).add(f"{node.module}.{alias.name}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "_langgraph_private":
                through.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Import):
                # `import langgraph.pregel._algo as algo` would hide its names from this scan.
                for alias in node.names:
                    assert not (alias.name.startswith("langgraph") and _is_private(alias.name, "")), (path, alias.name)
                    assert not alias.name.endswith("_langgraph_private"), (path, alias.name)
            if isinstance(node, ast.ImportFrom) and any(alias.name == "_langgraph_private" for alias in node.names):
                # Only `from deepagents_rs._langgraph_private import NAME` is scanned; the module itself
                # handed around would hide which names are used.
                pytest.fail(f"{path}:{node.lineno}: use `from deepagents_rs._langgraph_private import ...`")
    return direct, where, through


def test_every_listed_name_resolves_to_langgraphs_object() -> None:
    for module_name, names in private.PRIVATE_NAMES.items():
        module = importlib.import_module(module_name)
        for name in names:
            assert getattr(private, name) is getattr(module, name), f"{module_name}.{name}"
    assert sorted(private.__dir__()) == sorted({*private.__dict__, *private._SOURCE})


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'NOT_A_LANGGRAPH_NAME'"):
        private.NOT_A_LANGGRAPH_NAME  # noqa: B018


def test_no_name_is_listed_twice() -> None:
    listed = [name for names in private.PRIVATE_NAMES.values() for name in names]
    assert len(listed) == len(set(listed))


def test_the_list_is_exactly_what_the_package_imports() -> None:
    direct, where, through = _scan()
    # Outside the module, no file imports LangGraph's private names.
    assert where == {} and direct == {}
    # Every name taken from the module is listed, and every listed name is used somewhere.
    used = through | {name for names in direct.values() for name in names}
    assert through <= set(private._SOURCE)
    assert used == set(private._SOURCE)


def _private_attributes_used() -> set[str]:
    """The private attributes the package's sources read or set on objects other than their
    own (``self``, ``cls``, modules), and the private methods its subclasses of LangGraph's
    loops override."""
    used: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        modules = {"self", "cls"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                if not (isinstance(node.value, ast.Name) and node.value.id in modules):
                    used.add(node.attr)
            elif isinstance(node, ast.ClassDef) and any(
                isinstance(base, ast.Name) and base.id in ("SyncPregelLoop", "AsyncPregelLoop") for base in node.bases
            ):
                used.update(
                    item.name
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                    and item.name.startswith("_")
                    and not item.name.startswith("__")
                )
    return used


def test_every_listed_attribute_is_langgraphs() -> None:
    assert private._missing_attributes() == []
    for path, attributes in private.PRIVATE_ATTRIBUTES.items():
        module_name, _, class_name = path.rpartition(".")
        cls = getattr(importlib.import_module(module_name), class_name)
        known = private._code_names(cls)
        assert all(hasattr(cls, name) or name in known for name in attributes), path


def test_the_attributes_listed_are_exactly_those_the_package_uses() -> None:
    # A private attribute of ours that LangGraph's classes also know would show up here: the
    # scan cannot tell whose object it is read on. None does today.
    classes = []
    for path in private.PRIVATE_ATTRIBUTES:
        module_name, _, class_name = path.rpartition(".")
        cls = getattr(importlib.import_module(module_name), class_name)
        classes.append((cls, private._code_names(cls)))
    used = {name for name in _private_attributes_used() if any(hasattr(c, name) or name in k for c, k in classes)}
    assert used == {name for names in private.PRIVATE_ATTRIBUTES.values() for name in names}


def _requirements(extra: str) -> dict[str, Requirement]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requirements = [Requirement(line) for line in pyproject["project"]["optional-dependencies"][extra]]
    return {requirement.name: requirement for requirement in requirements}


def test_the_extra_declares_the_checked_ranges_and_holds_the_tested_versions() -> None:
    declared = _requirements("langchain")
    for distribution, (low, high) in private.SUPPORTED.items():
        assert str(declared[distribution].specifier) == f"<{high},>={low}"
    # Every LangGraph and LangChain distribution the package imports is declared ...
    assert {"langchain", "langchain-core", "langgraph", "langgraph-checkpoint", "langgraph-prebuilt"} <= set(declared)
    assert "langgraph-sdk" in declared  # async subagents' client
    # ... with a range holding the version this suite runs on.
    for name, requirement in declared.items():
        assert requirement.specifier.contains(metadata.version(name)), (name, metadata.version(name))
    # The test extra installs the same.
    assert (
        "deepagents-rs[langchain]"
        in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    )


@pytest.mark.parametrize(
    ("version", "inside"),
    [("1.2.24", True), ("1.2.99.post1", True), ("1.3.0rc1", False), ("1.3.0", False), ("1.2.23", False)],
)
def test_versions_are_placed_by_their_release_numbers(version: str, inside: bool) -> None:
    low, high = private.SUPPORTED["langgraph"]
    assert (private._release(low) <= private._release(version) < private._release(high)) is inside


# The stand-in runs: a fresh interpreter with ``stand_in`` first on ``sys.path``; it imports
# deepagents_rs (no LangGraph module may load), then builds an agent, which reads the graph's
# channels through LangGraph's private names and so meets the check.
PROBE = textwrap.dedent(
    """
    import json, os, sys
    os.environ["ANTHROPIC_API_KEY"] = "sk-test-not-a-real-key"
    import deepagents_rs
    from deepagents_rs import create_deep_agent
    import deepagents_rs._langgraph_private
    out = {"loaded": sorted(m for m in sys.modules if m.startswith("langgraph"))}
    errors = []
    for _ in range(2):  # the check's answer is kept: the same error the second time
        try:
            create_deep_agent(model="anthropic:claude-sonnet-4-5")
        except Exception as exc:
            errors.append([type(exc).__name__, str(exc)])
    out["errors"] = errors
    print(json.dumps(out))
    """
)


def _probe(stand_in: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(stand_in), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_an_out_of_range_langgraph_is_one_clear_import_error(tmp_path: Path) -> None:
    # LangGraph is a namespace package: a directory holding only its metadata, first on the
    # path, makes the installed code report this version.
    info = tmp_path / "langgraph-1.3.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: langgraph\nVersion: 1.3.0\n")
    out = _probe(tmp_path)
    assert out["loaded"] == []
    expected = (
        "deepagents_rs supports langgraph>=1.2.24,<1.3 (the range it is tested on), but langgraph 1.3.0 "
        "is installed. Install a supported version: pip install 'deepagents-rs[langchain]'"
    )
    assert out["errors"] == [["ImportError", expected]] * 2


@pytest.mark.parametrize(
    ("file", "old", "new", "lacking"),
    [
        ("main.py", "_coerce_context(", "_coerce_context_renamed(", "langgraph.pregel.main._coerce_context"),
        (
            "_loop.py",
            "_delta_write_futs",
            "_delta_writes_pending",
            (
                "langgraph.pregel._loop.SyncPregelLoop._delta_write_futs, "
                "langgraph.pregel._loop.AsyncPregelLoop._delta_write_futs"
            ),
        ),
    ],
    ids=["function", "loop-field"],
)
def test_a_renamed_private_name_is_one_clear_import_error(
    tmp_path: Path, file: str, old: str, new: str, lacking: str
) -> None:
    # A LangGraph release that renamed a function or a field of its loop: its `pregel`
    # package, first on the path, shadows the installed one (the rest of LangGraph is the
    # installed code).
    installed = Path(importlib.import_module("langgraph.pregel.main").__file__).parent
    pregel = tmp_path / "langgraph" / "pregel"
    shutil.copytree(installed, pregel, ignore=shutil.ignore_patterns("__pycache__"))
    source = pregel / file
    assert old in source.read_text()
    source.write_text(source.read_text().replace(old, new))
    out = _probe(tmp_path)
    assert out["loaded"] == []
    found = (
        f"langgraph {metadata.version('langgraph')} with langgraph-prebuilt {metadata.version('langgraph-prebuilt')}"
    )
    expected = (
        f"deepagents_rs cannot use the installed {found}, which has no {lacking}. "
        "deepagents_rs supports langgraph>=1.2.24,<1.3, langgraph-prebuilt>=1.1.3,<1.2 (the ranges it is "
        "tested on). Install a supported version: pip install 'deepagents-rs[langchain]'"
    )
    assert out["errors"] == [["ImportError", expected]] * 2


@pytest.mark.parametrize(
    ("refusal", "cause"),
    [
        # Not installed, as the import system says it.
        ('ModuleNotFoundError(f"No module named {name!r}", name=name)', "No module named 'langgraph'"),
        # Failing to import (tests/test_without_langchain.py refuses LangGraph so).
        ('ImportError(f"blocked: {name}")', "blocked: langgraph"),
    ],
    ids=["absent", "unimportable"],
)
def test_without_langgraph_a_name_is_a_module_not_found_error(refusal: str, cause: str) -> None:
    # The callers that run without LangGraph catch this (an unsupported LangGraph is a plain
    # ImportError, which they do not); nothing is kept, so it is looked for again.
    code = textwrap.dedent(
        """
        import importlib.abc, json, sys

        class Refuse(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0].startswith(("langchain", "langgraph")):
                    raise REFUSAL
                return None

        sys.meta_path.insert(0, Refuse())
        out = []
        for _ in range(2):
            try:
                from deepagents_rs._langgraph_private import CONF
            except ImportError as exc:
                out.append([type(exc).__name__, exc.name, str(exc)])
        print(json.dumps(out))
        """
    ).replace("REFUSAL", refusal)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    message = f"This part of deepagents_rs needs LangGraph, which cannot be imported ({cause}): {private._INSTALL}"
    assert json.loads(proc.stdout) == [["ModuleNotFoundError", "langgraph", message]] * 2
