"""What ``tests/test_langgraph_private.py`` and ``tests/test_langchain_private.py`` share: the
``ast`` reading of the package's private attribute uses, the ``langchain`` extra's
requirements, and the stand-in runs (a fresh interpreter with a stand-in library first on
``sys.path`` that imports deepagents_rs, then builds an agent and reports the errors)."""

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
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "deepagents_rs"


def is_private(module: str, name: str) -> bool:
    """Whether ``module.name`` is private: a name of a private module, or ``_``-prefixed."""
    return any(part.startswith("_") for part in module.split(".")) or name.startswith("_")


def _private(name: object) -> bool:
    return isinstance(name, str) and name.startswith("_") and not name.startswith("__")


def private_attributes_used(overriding: Iterable[str] = ()) -> set[str]:
    """The private attributes the package's sources read or set on objects other than their
    own (``self``, ``cls``, modules), by attribute or by name (``getattr`` and the like), and
    the private methods its subclasses of the classes named ``overriding`` override."""
    bases = set(overriding)
    used: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        modules = {"self", "cls"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                if not (isinstance(node.value, ast.Name) and node.value.id in modules):
                    used.add(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2:
                    name = node.args[1]
                    if isinstance(name, ast.Constant) and _private(name.value):
                        used.add(name.value)
            elif isinstance(node, ast.ClassDef) and any(
                isinstance(base, ast.Name) and base.id in bases for base in node.bases
            ):
                used.update(
                    item.name
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and _private(item.name)
                )
    return used


def declared(extra: str) -> list[Requirement]:
    """The requirements ``pyproject.toml``'s ``extra`` lists."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return [Requirement(line) for line in pyproject["project"]["optional-dependencies"][extra]]


def requirements(extra: str) -> dict[str, Requirement]:
    return {requirement.name: requirement for requirement in declared(extra)}


def probe(prefix: str) -> str:
    """The stand-in run's code: it imports deepagents_rs and its private-names module for the
    library ``prefix`` (the modules whose names start with ``prefix`` they loaded are
    reported: none may be), then builds an agent twice (the check's answer is kept: the same
    error the second time)."""
    return textwrap.dedent(
        f"""
        import json, os, sys
        os.environ["ANTHROPIC_API_KEY"] = "sk-test-not-a-real-key"
        import deepagents_rs
        from deepagents_rs import create_deep_agent
        import deepagents_rs._{prefix}_private
        out = {{"loaded": sorted(m for m in sys.modules if m.startswith({prefix!r}))}}
        errors = []
        for _ in range(2):
            try:
                create_deep_agent(model="anthropic:claude-sonnet-4-5")
            except Exception as exc:
                errors.append([type(exc).__name__, str(exc)])
        out["errors"] = errors
        print(json.dumps(out))
        """
    )


def run(code: str, stand_in: Path | None = None) -> object:
    """``code`` (dedented) in a fresh interpreter (``stand_in`` first on its path, then
    ``tests``): the JSON its last line prints."""
    path = [str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(stand_in), *path] if stand_in else path)}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=180, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def version_stand_in(root: Path, distribution: str, version: str) -> Path:
    """Metadata of ``distribution`` at ``version``, first on the path: the installed code
    then reports that version (``importlib.metadata`` takes the first one found)."""
    info = root / f"{distribution.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n")
    return root


#: The start of a run whose import system refuses the packages ``REFUSED`` (a tuple or a
#: string of name prefixes) with ``REFUSAL`` (an exception, made from ``name``).
REFUSE = textwrap.dedent(
    """
    import importlib.abc, json, sys

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0].startswith(REFUSED):
                raise REFUSAL
            return None

    sys.meta_path.insert(0, Refuse())
    """
)


def refusing(refused: str, refusal: str, code: str) -> str:
    return REFUSE.replace("REFUSED", refused).replace("REFUSAL", refusal) + textwrap.dedent(code)


def refusals(top: str) -> list[Any]:
    """The two ways a library is missing, as ``REFUSAL`` makes them, each with the cause the
    error then gives for its package ``top``: not installed (as the import system says it),
    and failing to import (tests/test_without_langchain.py refuses LangChain and LangGraph so)."""
    return [
        pytest.param(
            'ModuleNotFoundError(f"No module named {name!r}", name=name)', f"No module named {top!r}", id="absent"
        ),
        pytest.param('ImportError(f"blocked: {name}")', f"blocked: {top}", id="unimportable"),
    ]


def renamed_copy(root: Path, package: str, file: str, old: str, new: str) -> Path:
    """A copy of the installed ``package`` (a dotted name: its directory) under ``root``,
    with ``old`` renamed ``new`` in its ``file``: first on the path, it shadows the installed
    one, as a release that renamed a name would."""
    installed = Path(importlib.import_module(package).__path__[0])
    copy = root.joinpath(*package.split("."))
    shutil.copytree(installed, copy, ignore=shutil.ignore_patterns("__pycache__"))
    source = copy / file
    assert old in source.read_text()
    source.write_text(source.read_text().replace(old, new))
    return root


def asked_without(refusal: str, module: str, names: Iterable[str]) -> object:
    """Each of ``names`` asked of ``module`` twice (nothing is kept between the two) in a run
    refusing LangChain and LangGraph with ``refusal``: each error's type, ``name`` and text."""
    return run(
        refusing(
            '("langchain", "langgraph")',
            refusal,
            f"""
            out = []
            for _ in range(2):
                for name in {list(names)!r}:
                    try:
                        exec(f"from {module} import {{name}}")
                    except ImportError as exc:
                        out.append([type(exc).__name__, exc.name, str(exc)])
            print(json.dumps(out))
            """,
        )
    )


def check_names(private: ModuleType) -> None:
    """A private-names module (``_langgraph_private``, ``_langchain_private``): every name it
    lists resolves to the library's own object, once each, its ``dir()`` shows them, and a
    name it does not list is an ``AttributeError``."""
    listed = [name for names in private.PRIVATE_NAMES.values() for name in names]
    assert len(listed) == len(set(listed))
    for module_name, names in private.PRIVATE_NAMES.items():
        module = importlib.import_module(module_name)
        for name in names:
            assert getattr(private, name) is getattr(module, name), f"{module_name}.{name}"
    assert sorted(private.__dir__()) == sorted({*private.__dict__, *private._SOURCE})
    with pytest.raises(AttributeError, match="has no attribute 'NOT_A_LISTED_NAME'"):
        private.NOT_A_LISTED_NAME  # noqa: B018


def scan(tops: tuple[str, ...], private: str) -> tuple[dict[str, set[str]], set[str]]:
    """What the package's sources import of the libraries whose top-level packages are
    ``tops``: their private names imported directly (by file, as ``module.name``; a table of
    names by module imported with ``importlib``, as ``_direct_tools`` has one, counts), and
    the names imported from the module ``private`` (``_langgraph_private``...)."""

    def library(module: object) -> bool:
        return isinstance(module, str) and module.split(".")[0] in tops

    where: dict[str, set[str]] = {}
    through: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == f"{private}.py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            imported: list[tuple[str, str]] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and library(node.module):
                imported = [(node.module, alias.name) for alias in node.names]
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and library(key.value) and isinstance(value, ast.Tuple):
                        imported += [(key.value, elt.value) for elt in value.elts if isinstance(elt, ast.Constant)]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == private:
                through.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Import):
                # `import langgraph.pregel._algo as algo` would hide its names from this scan.
                for alias in node.names:
                    assert not (library(alias.name) and is_private(alias.name, "")), (path, alias.name)
                    assert not alias.name.endswith(private), (path, alias.name)
            if isinstance(node, ast.ImportFrom) and any(alias.name == private for alias in node.names):
                # Only `from deepagents_rs.<private> import NAME` is scanned; the module itself
                # handed around would hide which names are used.
                pytest.fail(f"{path}:{node.lineno}: use `from deepagents_rs.{private} import ...`")
            for module, name in imported:
                if is_private(module, name):
                    where.setdefault(str(path.relative_to(PACKAGE)), set()).add(f"{module}.{name}")
    return where, through


def check_attributes(attributes: dict[str, tuple[str, ...]], surfaces: Iterable[Any]) -> None:
    """Every private attribute listed (class path -> names) is its class's (a class attribute,
    or a name its code uses: an instance attribute is set there), as each surface finds."""
    from deepagents_rs._private_surface import code_names

    for surface in surfaces:
        assert surface.missing_attributes() == []
    for path, names in attributes.items():
        module_name, _, class_name = path.rpartition(".")
        cls = getattr(importlib.import_module(module_name), class_name)
        known = code_names(cls)
        assert all(hasattr(cls, name) or name in known for name in names), path
