"""LangChain's private names, gathered in ``deepagents_rs._langchain_private`` and checked there.

* every name listed resolves on the installed LangChain, to LangChain's own object, and
  every private attribute listed is still its classes';
* the lists are exactly what the package uses (an ``ast`` scan of the sources): a private
  LangChain import anywhere else, a private attribute read on one of LangChain's classes
  and not listed, or a listed name nobody uses, fails;
* stand-ins on ``sys.path`` (an out-of-range version; a release that renamed a name or a
  method) give ``create_deep_agent`` one ``ImportError`` naming the distribution, the version
  found and the range supported, while ``import deepagents_rs`` still loads no LangChain;
* each distribution is checked on its own: without ``langchain_anthropic`` an agent on a
  LangChain model runs as before, and an out-of-range one fails only where it is used;
* ``pyproject.toml``'s ``langchain`` extra declares the ranges the module checks.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from importlib import metadata
from pathlib import Path

import private_surface_checks as checks
import pytest
from deepagents_rs import _langchain_private as private
from deepagents_rs._private_surface import INSTALL, code_names
from private_surface_checks import PACKAGE

TOPS = ("langchain", "langchain_core", "langchain_anthropic", "langchain_openai")

#: Private attributes the package reads on objects of its own whose names LangChain's
#: classes also have (the scan cannot tell whose object it reads them on).
OWN_ATTRIBUTES = {
    # The summarization middleware's own steps, named as LangChain's `SummarizationMiddleware`
    # names its (deepagents' callers override them by these names).
    "_acreate_summary",
    "_create_summary",
    "_determine_cutoff_index",
    "_partition_messages",
    # ... and its trigger, as LangChain's middleware keeps it (`middleware/summarization.py`).
    "_trigger_clauses",
    # `_direct_tools`' namespace of LangChain's names: the listed function
    # `langchain_core.tools.base._format_output`, not `ChatAnthropic`'s method.
    "_format_output",
    # The summarization face's kept core entry (`middleware/_summarization_call.py`).
    "_call",
    # A LangSmith sandbox's client (`backends/langsmith.py`): langsmith's, not LangChain's.
    "_client",
}


def _langchain_module(module: str | None) -> bool:
    return (module or "").split(".")[0] in TOPS


def test_every_listed_name_resolves_to_langchains_object_once() -> None:
    checks.check_names(private)
    assert all(surface.resolved for surface in private.SURFACES.values())


def test_each_surface_holds_its_distributions_names() -> None:
    # Every module and class belongs to the surface of its distribution.
    for distribution, surface in private.SURFACES.items():
        top = distribution.replace("-", "_")
        assert surface.supported == {distribution: private.SUPPORTED[distribution]}
        assert all(path.split(".")[0] == top for path in [*surface.names, *surface.attributes])
    assert sum(len(s.names) for s in private.SURFACES.values()) == len(private.PRIVATE_NAMES)
    assert sum(len(s.attributes) for s in private.SURFACES.values()) == len(private.PRIVATE_ATTRIBUTES)


def test_the_list_is_exactly_what_the_package_imports() -> None:
    where, through = checks.scan(TOPS, "_langchain_private")
    # Outside the module, no file imports LangChain's private names (`_direct_tools`' come
    # through its table of LangChain names by module, `_LANGCHAIN_NAMES`, which the scan
    # reads as imports).
    assert where == {}
    # Every name taken from the module is listed, and every listed name is used somewhere.
    assert through == set(private._SOURCE)


def test_every_listed_attribute_is_langchains() -> None:
    checks.check_attributes(private.PRIVATE_ATTRIBUTES, private.SURFACES.values())


def _classes_of_imported_modules() -> list[type]:
    """LangChain's classes the package can hold: those of (and exported by) every LangChain
    module its sources import from, with their LangChain bases."""
    modules = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and _langchain_module(node.module):
                modules.add(node.module)
    classes: set[type] = set()
    for module_name in modules | {path.rpartition(".")[0] for path in private.PRIVATE_ATTRIBUTES}:
        for value in vars(importlib.import_module(module_name)).values():
            if inspect.isclass(value) and _langchain_module(value.__module__):
                classes.update(c for c in value.__mro__ if _langchain_module(c.__module__))
    return sorted(classes, key=lambda c: f"{c.__module__}.{c.__qualname__}")


def test_the_attributes_listed_are_exactly_those_the_package_uses() -> None:
    listed = {name for names in private.PRIVATE_ATTRIBUTES.values() for name in names}
    used = checks.private_attributes_used()
    # A private name any of LangChain's classes the package handles knows, read by the
    # package, is listed (or one of our own objects' names, said so above).
    known = set()
    for cls in _classes_of_imported_modules():
        known |= {name for name in used if hasattr(cls, name) or name in code_names(cls)}
    assert known - OWN_ATTRIBUTES == listed
    # ... and every name said to be our own is still used (else it should go).
    assert used >= OWN_ATTRIBUTES


def test_the_extra_declares_the_checked_ranges_and_holds_the_tested_versions() -> None:
    declared = checks.requirements("langchain")
    for distribution, (low, high) in private.SUPPORTED.items():
        assert str(declared[distribution].specifier) == f"<{high},>={low}"
        assert declared[distribution].specifier.contains(metadata.version(distribution))


@pytest.mark.parametrize(
    ("distribution", "version", "supported"),
    [("langchain-core", "1.9.0", "langchain-core>=1.8.3,<1.9"), ("langchain", "1.4.9", "langchain>=1.5.2,<1.6")],
)
def test_an_out_of_range_langchain_is_one_clear_import_error(
    tmp_path: Path, distribution: str, version: str, supported: str
) -> None:
    out = checks.run(checks.probe("langchain"), checks.version_stand_in(tmp_path, distribution, version))
    assert out["loaded"] == []
    expected = (
        f"deepagents_rs supports {supported} (the range it is tested on), but {distribution} {version} "
        "is installed. Install a supported version: pip install 'deepagents-rs[langchain]'"
    )
    assert out["errors"] == [["ImportError", expected]] * 2


@pytest.mark.parametrize(
    ("package", "file", "old", "new", "lacking"),
    [
        (
            "langchain",
            "agents/factory.py",
            "_get_can_jump_to",
            "_can_jump_to",
            "langchain.agents.factory._get_can_jump_to",
        ),
        (
            "langchain_core",
            "tools/base.py",
            "_to_args_and_kwargs",
            "_args_and_kwargs",
            "langchain_core.tools.base.BaseTool._to_args_and_kwargs",
        ),
    ],
    ids=["function", "tool-method"],
)
def test_a_renamed_private_name_is_one_clear_import_error(
    tmp_path: Path, package: str, file: str, old: str, new: str, lacking: str
) -> None:
    # A release that renamed a function or a method: a copy of the installed package with the
    # name changed, first on the path (its metadata is still the installed version's).
    out = checks.run(checks.probe("langchain"), checks.renamed_copy(tmp_path, package, file, old, new))
    assert out["loaded"] == []
    distribution = package.replace("_", "-")
    expected = (
        f"deepagents_rs cannot use the installed {distribution} {metadata.version(distribution)}, which has no "
        f"{lacking}. deepagents_rs supports {private.SURFACES[distribution].supported_range(distribution)} (the "
        "range it is tested on). Install a supported version: pip install 'deepagents-rs[langchain]'"
    )
    assert out["errors"] == [["ImportError", expected]] * 2


@pytest.mark.parametrize(("refusal", "cause"), checks.refusals("langchain_core"))
def test_without_langchain_a_name_is_a_module_not_found_error(refusal: str, cause: str) -> None:
    # The callers that run without LangChain catch this (an unsupported LangChain is a plain
    # ImportError, which they do not); nothing is kept, so it is looked for again.
    out = checks.asked_without(refusal, "deepagents_rs._langchain_private", ["_configure_hooks", "_get_can_jump_to"])
    message = (
        f"This part of deepagents_rs needs LangChain (langchain-core), which cannot be imported ({cause}): {INSTALL}"
    )
    # `langchain`'s names check `langchain-core` first.
    assert out == [["ModuleNotFoundError", "langchain_core", message]] * 4


def test_without_langchain_anthropic_a_langchain_agent_runs_as_before() -> None:
    # The other surfaces resolve, and an agent on a LangChain model runs, with
    # `langchain_anthropic` absent; only its own name is missing.
    refusal = 'ModuleNotFoundError(f"No module named {name!r}", name=name)'
    code = checks.refusing(
        '"langchain_anthropic"',
        refusal,
        """
        from fake_models import ScriptedChatModel
        from deepagents_rs import create_deep_agent
        from deepagents_rs._langchain_private import _configure_hooks, _get_can_jump_to, SURFACES

        agent = create_deep_agent(model=ScriptedChatModel(["hello"]))
        result = agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
        out = {"final": result["messages"][-1].text, "resolved": sorted(d for d, s in SURFACES.items() if s.resolved)}
        try:
            from deepagents_rs._langchain_private import _tag_tools
        except ImportError as exc:
            out["tag_tools"] = [type(exc).__name__, exc.name]
        print(json.dumps(out))
        """,
    )
    assert checks.run(code) == {
        "final": "hello",
        "resolved": ["langchain", "langchain-core"],
        "tag_tools": ["ModuleNotFoundError", "langchain_anthropic"],
    }


def test_an_out_of_range_langchain_anthropic_fails_only_where_it_is_used(tmp_path: Path) -> None:
    # Its check is its own: an agent on another model is built, and the core names resolve,
    # without importing it; its name is the clear error.
    code = """
        import json, sys
        from fake_models import ScriptedChatModel
        from deepagents_rs import create_deep_agent
        from deepagents_rs._langchain_private import _configure_hooks, _get_can_jump_to

        create_deep_agent(model=ScriptedChatModel(["hello"]))
        out = {"anthropic_loaded": "langchain_anthropic.middleware.prompt_caching" in sys.modules}
        try:
            from deepagents_rs._langchain_private import _tag_tools
        except ImportError as exc:
            out["error"] = [type(exc).__name__, str(exc)]
        print(json.dumps(out))
        """
    out = checks.run(code, checks.version_stand_in(tmp_path, "langchain-anthropic", "1.8.0"))
    expected = (
        "deepagents_rs supports langchain-anthropic>=1.7.10,<1.8 (the range it is tested on), but "
        "langchain-anthropic 1.8.0 is installed. Install a supported version: pip install 'deepagents-rs[langchain]'"
    )
    assert out == {"anthropic_loaded": False, "error": ["ImportError", expected]}
