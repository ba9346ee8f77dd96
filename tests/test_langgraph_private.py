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

import importlib
from importlib import metadata
from pathlib import Path

import private_surface_checks as checks
import pytest
from deepagents_rs import _langgraph_private as private
from deepagents_rs._private_surface import INSTALL, code_names, release


def test_every_listed_name_resolves_to_langgraphs_object_once() -> None:
    checks.check_names(private)


def test_the_list_is_exactly_what_the_package_imports() -> None:
    where, through = checks.scan(("langgraph",), "_langgraph_private")
    # Outside the module, no file imports LangGraph's private names.
    assert where == {}
    # Every name taken from the module is listed, and every listed name is used somewhere.
    assert through == set(private._SOURCE)


def test_every_listed_attribute_is_langgraphs() -> None:
    checks.check_attributes(private.PRIVATE_ATTRIBUTES, [private._SURFACE])


def test_the_attributes_listed_are_exactly_those_the_package_uses() -> None:
    # A private attribute of ours that LangGraph's classes also know would show up here: the
    # scan cannot tell whose object it is read on. None does today.
    classes = []
    for path in private.PRIVATE_ATTRIBUTES:
        module_name, _, class_name = path.rpartition(".")
        cls = getattr(importlib.import_module(module_name), class_name)
        classes.append((cls, code_names(cls)))
    used = {
        name
        for name in checks.private_attributes_used(("SyncPregelLoop", "AsyncPregelLoop"))
        if any(hasattr(c, name) or name in k for c, k in classes)
    }
    assert used == {name for names in private.PRIVATE_ATTRIBUTES.values() for name in names}


def test_the_extra_declares_the_checked_ranges_and_holds_the_tested_versions() -> None:
    declared = checks.requirements("langchain")
    for distribution, (low, high) in private.SUPPORTED.items():
        assert str(declared[distribution].specifier) == f"<{high},>={low}"
    # Every LangGraph and LangChain distribution the package imports is declared ...
    assert {"langchain", "langchain-core", "langgraph", "langgraph-checkpoint", "langgraph-prebuilt"} <= set(declared)
    assert "langgraph-sdk" in declared  # async subagents' client
    # ... with a range holding the version this suite runs on.
    for name, requirement in declared.items():
        assert requirement.specifier.contains(metadata.version(name)), (name, metadata.version(name))
    # The test extra installs the same.
    assert any(r.name == "deepagents-rs" and r.extras == {"langchain"} for r in checks.declared("test"))


@pytest.mark.parametrize(
    ("version", "inside"),
    [("1.2.24", True), ("1.2.99.post1", True), ("1.3.0rc1", False), ("1.3.0", False), ("1.2.23", False)],
)
def test_versions_are_placed_by_their_release_numbers(version: str, inside: bool) -> None:
    low, high = private.SUPPORTED["langgraph"]
    assert (release(low) <= release(version) < release(high)) is inside


def test_an_out_of_range_langgraph_is_one_clear_import_error(tmp_path: Path) -> None:
    out = checks.run(checks.probe("langgraph"), checks.version_stand_in(tmp_path, "langgraph", "1.3.0"))
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
    out = checks.run(checks.probe("langgraph"), checks.renamed_copy(tmp_path, "langgraph.pregel", file, old, new))
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


@pytest.mark.parametrize(("refusal", "cause"), checks.refusals("langgraph"))
def test_without_langgraph_a_name_is_a_module_not_found_error(refusal: str, cause: str) -> None:
    # The callers that run without LangGraph catch this (an unsupported LangGraph is a plain
    # ImportError, which they do not); nothing is kept, so it is looked for again.
    out = checks.asked_without(refusal, "deepagents_rs._langgraph_private", ["CONF"])
    message = f"This part of deepagents_rs needs LangGraph, which cannot be imported ({cause}): {INSTALL}"
    assert out == [["ModuleNotFoundError", "langgraph", message]] * 2
