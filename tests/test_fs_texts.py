"""``src/middleware/filesystem/texts.rs`` holds deepagents 0.7.32's filesystem-tool texts verbatim.

Parses every ``pub const`` of the Rust file (raw strings, normal strings, string lists,
numbers) and checks each against the installed reference ``deepagents``: module constants
are compared directly; templates are filled and compared with what the deepagents function
or tool produces (or, for texts only reachable through I/O, with the f-string in its source);
the JSON parameter schemas are compared, key order included, with the captured fixture
``tests/fixtures/fs_tools_0.7.32.json`` and with ``convert_to_openai_tool`` run now.
The parsing is ``fs_texts_consts.py``, the checks ``fs_texts_checks.py`` (over ``fs_texts_fakes.py``).

Does not need the built ``deepagents_rs`` module.
"""

from __future__ import annotations

import importlib.util
import json
import re
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from deepagents.middleware import filesystem as fs
from fs_texts_checks import _COMBINED, _checks
from fs_texts_consts import CAPTURE, FIX, RS, RS_TEXT, TEXTS_RS, T, _parse, fill
from fs_texts_fakes import FakeSandbox
from langchain_core.utils.function_calling import convert_to_openai_tool


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Callable[[], tuple[Any, Any]]]:
    return _checks(tmp_path_factory.mktemp("fs_texts"))


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


def test_parser_saw_every_const():
    assert len(RS) == len(re.findall(r"^pub const ", RS_TEXT, flags=re.MULTILINE))
    assert len(RS) > 100


def test_every_const_names_its_deepagents_symbol():
    for name, const in RS.items():
        assert const["docs"], f"{name} has no doc comment"
        assert const["docs"][0].startswith("`deepagents."), f"{name}: first doc line must name the symbol"


def test_every_const_is_checked(checks):
    assert set(RS) == set(checks) - _COMBINED


@pytest.mark.parametrize("name", sorted(_parse(TEXTS_RS.read_text(encoding="utf-8"))) + sorted(_COMBINED))
def test_const_matches_deepagents(name, checks):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine, reference = checks[name]()
    assert mine == reference


def test_string_consts_are_str_typed():
    for name, const in RS.items():
        if isinstance(const["value"], str):
            assert const["ty"] == "&str", name
        elif isinstance(const["value"], list):
            assert const["ty"] == "&[&str]", name


# --- the captured fixture ------------------------------------------------------------------

_DESCRIPTIONS = {
    "ls": {"LS_DESCRIPTION"},
    "read_file": {"READ_FILE_DESCRIPTION", "READ_FILE_VIDEO_DESCRIPTION"},
    "write_file": {"WRITE_FILE_DESCRIPTION"},
    "edit_file": {"EDIT_FILE_DESCRIPTION"},
    "delete": {"DELETE_DESCRIPTION"},
    "glob": {"GLOB_DESCRIPTION"},
    "grep": {"GREP_DESCRIPTION", "GREP_DESCRIPTION_WITHOUT_EXECUTE"},
    "execute": {
        "EXECUTE_DESCRIPTION",
        "EXECUTE_DESCRIPTION_WITH_GREP_ONLY",
        "EXECUTE_DESCRIPTION_WITH_GLOB_ONLY",
        "EXECUTE_DESCRIPTION_WITHOUT_SEARCH",
    },
}
_PARAMETERS = {
    "ls": "LS_PARAMETERS",
    "read_file": "READ_FILE_PARAMETERS",
    "write_file": "WRITE_FILE_PARAMETERS",
    "edit_file": "EDIT_FILE_PARAMETERS",
    "delete": "DELETE_PARAMETERS",
    "glob": "GLOB_PARAMETERS",
    "grep": "GREP_PARAMETERS",
    "execute": "EXECUTE_PARAMETERS",
}
# Which variant each captured case was sent: case -> {tool: const}.
_EXPECTED_VARIANTS = {
    "state": {"grep": "GREP_DESCRIPTION_WITHOUT_EXECUTE"},
    "filesystem_virtual": {"grep": "GREP_DESCRIPTION_WITHOUT_EXECUTE"},
    "local_shell_virtual": {"grep": "GREP_DESCRIPTION", "execute": "EXECUTE_DESCRIPTION"},
    "composite_state_default_fs_route": {"grep": "GREP_DESCRIPTION_WITHOUT_EXECUTE"},
    "composite_local_shell_default_routes": {"grep": "GREP_DESCRIPTION", "execute": "EXECUTE_DESCRIPTION"},
    "python_backend_no_delete": {"grep": "GREP_DESCRIPTION_WITHOUT_EXECUTE"},
    "fs_only_local_shell_read_grep_execute": {
        "grep": "GREP_DESCRIPTION",
        "execute": "EXECUTE_DESCRIPTION_WITH_GREP_ONLY",
    },
    "fs_only_local_shell_read_glob_execute": {"execute": "EXECUTE_DESCRIPTION_WITH_GLOB_ONLY"},
    "fs_only_local_shell_read_execute": {"execute": "EXECUTE_DESCRIPTION_WITHOUT_SEARCH"},
}


def test_fixture_tools_match_consts():
    assert set(FIX["cases"]) == set(_EXPECTED_VARIANTS)
    video = FIX["video_dependencies_available"]
    for case_name, case in FIX["cases"].items():
        for tool in case["tools"]:
            fn = tool["function"]
            if fn["name"] not in _PARAMETERS:
                continue
            assert list(tool) == ["type", "function"] and list(fn) == ["name", "description", "parameters"]
            params = (
                T["READ_FILE_VIDEO_PARAMETERS"] if fn["name"] == "read_file" and video else T[_PARAMETERS[fn["name"]]]
            )
            assert json.dumps(fn["parameters"]) == json.dumps(json.loads(params)), (case_name, fn["name"])
            assert fn["description"] in {T[n] for n in _DESCRIPTIONS[fn["name"]]}, (case_name, fn["name"])
            expected = _EXPECTED_VARIANTS[case_name].get(fn["name"])
            if expected is not None:
                assert fn["description"] == T[expected], (case_name, fn["name"])
        if fn_names := [t["function"]["name"] for t in case["tools"]]:
            fs_names = [n for n in fn_names if n in _PARAMETERS]
            assert fs_names == [n for n in T["FS_TOOL_ORDER"] if n in fs_names], case_name


def test_fixture_route_prompt_matches_consts():
    text = FIX["cases"]["composite_local_shell_default_routes"]["system_message"]["text"]
    expected = "\n".join(
        [
            T["ROUTE_HOST_PATH_PROMPT_INTRO"],
            "",
            T["ROUTE_HOST_PATH_MAPPINGS_HEADING"],
            fill(T["ROUTE_HOST_PATH_MAPPING_LINE"], virtual="/legacy/", host="/"),
            fill(T["ROUTE_HOST_PATH_MAPPING_LINE"], virtual="/mem/", host="<ROOT>/mem/"),
            "",
            T["ROUTE_NO_HOST_MAPPING_HEADING"],
            fill(T["ROUTE_NO_HOST_MAPPING_LINE"], prefix="/state/"),
        ]
    )
    assert text == expected
    for name, case in FIX["cases"].items():
        if name != "composite_local_shell_default_routes" and case["system_message"] is not None:
            assert case["system_message"]["text"] == "", name


def test_tools_match_convert_to_openai_tool_now():
    video = fs.video_dependencies_available()
    descriptions = {
        "ls": "LS_DESCRIPTION",
        "read_file": "READ_FILE_VIDEO_DESCRIPTION" if video else "READ_FILE_DESCRIPTION",
        "write_file": "WRITE_FILE_DESCRIPTION",
        "edit_file": "EDIT_FILE_DESCRIPTION",
        "delete": "DELETE_DESCRIPTION",
        "glob": "GLOB_DESCRIPTION",
        "grep": "GREP_DESCRIPTION",  # the static placeholder; swapped per request
        "execute": "EXECUTE_DESCRIPTION",
    }
    mw = fs.FilesystemMiddleware(backend=FakeSandbox())
    for tool in mw.tools:
        fn = convert_to_openai_tool(tool)["function"]
        name = "READ_FILE_VIDEO_PARAMETERS" if tool.name == "read_file" and video else _PARAMETERS[tool.name]
        assert json.dumps(fn["parameters"]) == json.dumps(json.loads(T[name])), tool.name
        assert fn["description"] == T[descriptions[tool.name]], tool.name


def test_fixture_is_current():
    """Re-running the capture script gives the checked-in fixture."""
    spec = importlib.util.spec_from_file_location("capture_fs_tools", CAPTURE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.capture() == FIX
