"""A private dependency surface: the names a library does not export that deepagents_rs
takes from it, checked once against the versions the project is tested on.

``_langgraph_private`` (LangGraph) and ``_langchain_private`` (LangChain) each declare their
surfaces: the distributions with the range each is tested on, the private names by module,
and the private attributes read on the library's classes. ``Surface.resolve`` imports them
and answers every name, or raises one ``ImportError`` naming the distribution, the version
found and the range supported (an unsupported release, or one lacking a name), or a
``ModuleNotFoundError`` when the library cannot be imported at all: the callers that run
without it catch that one only, so the two are never confused. Nothing here imports the
libraries before ``resolve`` is called.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any

INSTALL = "pip install 'deepagents-rs[langchain]'"


def release(version: str) -> tuple[int, ...]:
    """The release numbers of a version string (``1.3.0rc1`` -> ``(1, 3, 0)``): enough to
    place it in a range whose bounds are releases (a pre-release of the upper bound is out)."""
    match = re.match(r"\d+(?:\.\d+)*", version)
    return tuple(int(part) for part in match.group().split(".")) if match else ()


def code_names(cls: type) -> set[str]:
    """The attribute and global names the code of ``cls`` (its methods, properties and the
    functions nested in them, along its MRO) uses: an instance attribute is set there."""
    names: set[str] = set()
    codes = []
    for klass in cls.__mro__:
        for value in vars(klass).values():
            for function in (value, getattr(value, "__func__", None), getattr(value, "fget", None)):
                code = getattr(function, "__code__", None)
                if code is not None:
                    codes.append(code)
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(const for const in code.co_consts if hasattr(const, "co_names"))
    return names


def _installed(distribution: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@dataclass(eq=False)
class Surface:
    """One library's private names (``names``: module -> names), the private attributes
    read on its classes (``attributes``: class path -> names), and the distributions they
    come from with the range each is tested on (``supported``: name -> (lowest, next
    excluded)). ``requires``: surfaces resolved first (a library's names are checked with
    those of the library it is built on)."""

    label: str
    #: The module whose import tells whether the library is there at all.
    probe: str
    supported: dict[str, tuple[str, str]]
    names: dict[str, tuple[str, ...]]
    attributes: dict[str, tuple[str, ...]]
    requires: tuple[Surface, ...] = ()
    #: Why the installed library cannot be used, once found (it does not change in a process).
    unsupported: str | None = field(default=None, init=False)
    resolved: bool = field(default=False, init=False)

    def supported_range(self, distribution: str) -> str:
        low, high = self.supported[distribution]
        return f"{distribution}>={low},<{high}"

    def version_problem(self, distribution: str) -> str | None:
        """Why the installed ``distribution`` is outside its tested range, or ``None``. A copy
        without package metadata (a source checkout on ``sys.path``) has no version to judge:
        its names are still checked."""
        found = _installed(distribution)
        if found is None:
            return None
        low, high = self.supported[distribution]
        if release(low) <= release(found) < release(high):
            return None
        return (
            f"deepagents_rs supports {self.supported_range(distribution)} (the range it is tested on), "
            f"but {distribution} {found} is installed. Install a supported version: {INSTALL}"
        )

    def missing_problem(self, missing: list[str]) -> str:
        found = [f"{d} {_installed(d) or '(version unknown)'}" for d in self.supported]
        supported = ", ".join(self.supported_range(distribution) for distribution in self.supported)
        ranges = "ranges" if len(self.supported) > 1 else "range"
        return (
            f"deepagents_rs cannot use the installed {' with '.join(found)}, which has no "
            f"{', '.join(missing)}. deepagents_rs supports {supported} (the {ranges} it is tested on). "
            f"Install a supported version: {INSTALL}"
        )

    def missing_attributes(self) -> list[str]:
        missing = []
        for path, attributes in self.attributes.items():
            module_name, _, class_name = path.rpartition(".")
            cls = getattr(importlib.import_module(module_name), class_name, None)
            if cls is None:
                missing.append(path)
                continue
            known = code_names(cls)
            missing.extend(f"{path}.{name}" for name in attributes if not hasattr(cls, name) and name not in known)
        return missing

    def resolve(self) -> dict[str, Any]:
        """Every name of this surface (and of those it requires), after checking the
        installed library; else the ``ImportError`` that says why it cannot be used."""
        values: dict[str, Any] = {}
        for required in self.requires:
            values.update(required.resolve())
        if self.unsupported is not None:
            raise ImportError(self.unsupported, name=self.probe.split(".")[0])
        try:
            importlib.import_module(self.probe)
        except ImportError as exc:
            # The library absent, or failing to import: the callers take their path without
            # it. Not kept, so it is looked for again each time.
            raise ModuleNotFoundError(
                f"This part of deepagents_rs needs {self.label}, which cannot be imported ({exc}): {INSTALL}",
                name=exc.name or self.probe.split(".")[0],
            ) from exc
        for distribution in self.supported:
            problem = self.version_problem(distribution)
            if problem is not None:
                self.unsupported = problem
                raise ImportError(problem, name=self.probe.split(".")[0])
        missing = []
        for module_name, names in self.names.items():
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                missing.append(f"the module {module_name}")
                continue
            for name in names:
                if hasattr(module, name):
                    values[name] = getattr(module, name)
                else:
                    missing.append(f"{module_name}.{name}")
        if not missing:
            missing = self.missing_attributes()
        if missing:
            self.unsupported = self.missing_problem(missing)
            raise ImportError(self.unsupported, name=self.probe.split(".")[0])
        self.resolved = True
        return values
