"""The contract with deepagents' public surface: every name deepagents 0.7.32 exports from
``deepagents``, ``deepagents.backends`` and ``deepagents.middleware`` exists here with the
same parameters (names, kinds, defaults), methods included, except what is listed below as
planned. A new difference fails here until it is fixed or listed with its reason."""

from __future__ import annotations

import importlib
import inspect

import pytest

MODULES = ("deepagents", "deepagents.backends", "deepagents.middleware")

#: Names deepagents exports that deepagents_rs does not have yet, and why.
PLANNED: dict[str, str] = {}


#: Differences kept on purpose, and why.
DELIBERATE_VALUES = {"__version__": "deepagents_rs' own version"}
DELIBERATE_METHODS = {
    # The core filters the requests; the Python face holds the entry's place.
    "UnsupportedContentMiddleware": {"wrap_model_call", "awrap_model_call"},
    # Summarization runs in the core's entry (its `wrap_model_call` too): no hook of its own.
    "SummarizationMiddleware": {"before_model", "abefore_model"},
}


def _exports(module):
    return list(getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]))


def _params(obj):
    """(name, kind, default) of each parameter; annotations aside (ours are strings)."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [(p.name, p.kind, repr(p.default)) for p in signature.parameters.values()]


def _methods(cls):
    """Public methods a class defines or inherits from a deepagents/deepagents_rs base."""
    out = {}
    for name, member in inspect.getmembers(cls):
        if name.startswith("_") and name != "__init__":
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or not owner.__module__.split(".")[0].startswith("deepagents"):
            continue
        if callable(member):
            out[name] = _params(member)
    return out


def _cases():
    for module_name in MODULES:
        for name in _exports(importlib.import_module(module_name)):
            yield pytest.param(module_name, name, id=f"{module_name}.{name}")


@pytest.mark.parametrize(("module_name", "name"), list(_cases()))
def test_same_public_surface(module_name, name):
    reference = getattr(importlib.import_module(module_name), name)
    ours_module = importlib.import_module(module_name.replace("deepagents", "deepagents_rs", 1))
    if name in PLANNED:
        assert not hasattr(ours_module, name), f"{name} exists now: take it off PLANNED"
        return
    assert hasattr(ours_module, name), f"{module_name}.{name} is missing"
    ours = getattr(ours_module, name)
    if inspect.isclass(reference):
        assert inspect.isclass(ours)
        skipped = DELIBERATE_METHODS.get(name, set())
        expected = {k: v for k, v in _methods(reference).items() if k not in skipped}
        got = _methods(ours)
        assert {k: v for k, v in got.items() if k in expected} == expected
        assert not skipped & set(got), f"{name} has {skipped & set(got)} now: take them off DELIBERATE_METHODS"
    elif callable(reference):
        assert _params(ours) == _params(reference)
    elif name not in DELIBERATE_VALUES:
        assert ours == reference


#: Private names of deepagents' modules that its own unit tests import, by module: each
#: exists here with the same parameters (a class: the same methods), a constant the same value.
PRIVATE = {
    "deepagents._tools": ["_tool_name", "_apply_tool_description_overrides"],
    "deepagents.middleware._fs_interrupt": ["_build_interrupt_on_from_permissions", "_make_fs_when_predicate"],
    "deepagents.middleware._message_eviction": [
        "ContentPreview",
        "PREVIEW_LINE_CHAR_LIMIT",
        "_build_evicted_content",
        "_create_content_preview",
        "_extract_text_from_message",
    ],
    "deepagents.middleware.filesystem": [
        "_all_paths_scoped_to_routes",
        "_apply_permissions_to_glob_results",
        "_check_fs_permission",
        "_filter_paths_by_permission",
        "_find_delete_deny_patterns",
        "supports_execution",
        "DEFAULT_READ_LIMIT",
        "DEFAULT_READ_OFFSET",
        "EMPTY_CONTENT_WARNING",
        "GLOB_TIMEOUT",
        "GLOB_TRUNCATION_NOTE",
        "GLOB_UNREADABLE_NOTE",
        "GREP_TRUNCATION_NOTE",
        "NO_LINES_REQUESTED_WARNING",
        "READ_FILE_TRUNCATION_MSG",
        "_EXECUTE_TOOL_DESCRIPTION_WITH_GLOB_ONLY",
        "_EXECUTE_TOOL_DESCRIPTION_WITH_GREP_ONLY",
        "_EXECUTE_TOOL_DESCRIPTION_WITHOUT_SEARCH",
        "_GREP_TOOL_DESCRIPTION_WITHOUT_EXECUTE",
        "FilesystemState",
        # The tools' input schema classes (`LsSchema`, `ReadFileSchema`, ...).
        *sorted(
            name
            for name in vars(importlib.import_module("deepagents.middleware.filesystem"))
            if name.endswith("Schema") and name[0].isupper()
        ),
    ],
    "deepagents.middleware.patch_tool_calls": ["PatchToolCallsMiddleware"],
    "deepagents.graph": ["_REQUIRED_MIDDLEWARE_CLASSES", "_REQUIRED_MIDDLEWARE_NAMES", "_apply_custom_middleware"],
    "deepagents.middleware._prompt_caching": [
        "_ANTHROPIC_PROMPT_CACHING_MODULE",
        "_LazyAnthropicPromptCachingMiddleware",
        "_create_bedrock_prompt_caching_middleware",
        "_create_fireworks_prompt_caching_middleware",
        "append_prompt_caching_middleware",
    ],
    "deepagents.middleware._tool_exclusion": ["_ToolExclusionMiddleware", "_tool_name"],
    "deepagents.middleware._utils": ["append_to_system_message", "is_anthropic_chat_model"],
    "deepagents.middleware.permissions": ["FilesystemPermission"],
    "deepagents.middleware.memory": ["logger"],
    "deepagents.middleware.skills": ["logger"],
    "deepagents.middleware.summarization": ["logger"],
}


@pytest.mark.parametrize(
    ("module_name", "name"),
    [pytest.param(m, n, id=f"{m}.{n}") for m, names in PRIVATE.items() for n in names],
)
def test_same_private_names(module_name, name):
    reference = getattr(importlib.import_module(module_name), name)
    ours = getattr(importlib.import_module(module_name.replace("deepagents", "deepagents_rs", 1)), name)
    if inspect.isclass(reference):
        assert inspect.isclass(ours)
        assert ours.__name__ == reference.__name__
        expected = _methods(reference)
        assert {k: v for k, v in _methods(ours).items() if k in expected} == expected
        assert _params(ours) == _params(reference)
    elif callable(reference):
        assert _params(ours) == _params(reference)
    elif isinstance(reference, (str, int, float)):
        assert type(ours) is type(reference)
        assert ours == reference
    else:
        assert type(ours) is type(reference)


#: Private methods of deepagents' classes that its own unit tests call, by class: each
#: exists here with the same parameters.
PRIVATE_METHODS = {
    ("deepagents.middleware.filesystem", "FilesystemMiddleware"): [
        "_execute_tool_description",
        "_filter_unsupported_tools_and_apply_prompt",
        "_grep_tool_description",
        "_tool_name",
        "_unsupported_tools_and_execution_state",
        "_with_filtered_execute_description",
        "_with_filtered_grep_description",
        "_with_permissions",
    ],
    ("deepagents.middleware._prompt_caching", "_LazyAnthropicPromptCachingMiddleware"): ["_resolve"],
    ("deepagents.middleware._tool_exclusion", "_ToolExclusionMiddleware"): ["_rejection"],
}


@pytest.mark.parametrize(
    ("module_name", "class_name", "method"),
    [pytest.param(m, c, n, id=f"{m}.{c}.{n}") for (m, c), names in PRIVATE_METHODS.items() for n in names],
)
def test_same_private_methods(module_name, class_name, method):
    reference = getattr(getattr(importlib.import_module(module_name), class_name), method)
    ours_module = importlib.import_module(module_name.replace("deepagents", "deepagents_rs", 1))
    ours = getattr(getattr(ours_module, class_name), method)
    assert _params(ours) == _params(reference)
