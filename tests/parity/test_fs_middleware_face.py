"""Parity: ``FilesystemMiddleware``'s face, from its constructor to the tools the model sees.

* The tool schemas a deep agent offers the model (``assert_parity`` compares them whole), under
  ``invoke`` and ``ainvoke`` alike, with ``execute`` on a shell backend; and what every schema
  must carry regardless: a type and a description for each argument, and a nullable ``path``
  defaulting to the backend root for ``glob`` and ``grep``.
* ``custom_tool_descriptions`` replace exactly the named descriptions, with a composite backend
  too; the rest keep the module's constants.
* Backend factories (a class, a lambda) are refused with deepagents' ``TypeError``; a backend
  instance that happens to be callable is kept as given.
* Which backends give the graph a ``files`` state key: any ``StateBackend`` reachable through
  the (possibly nested) routes of a ``CompositeBackend`` does.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from .fs_support import FS_TOOLS, MODES, api, check, run_fs

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = ("deepagents", "deepagents_rs")


def _namespace(_runtime: Any) -> tuple[str, ...]:
    return ("fs",)


def _fs_module(impl: str) -> Any:
    return importlib.import_module(f"{impl}.middleware.filesystem")


def _offered(run: Any, impl: str) -> dict[str, dict[str, Any]]:
    outcome = run.ref if impl == "deepagents" else run.rs
    return {t["function"]["name"]: t["function"] for t in outcome.calls[0].tools}


def _backend(a: SimpleNamespace, kind: str, root: Path) -> Any:
    if kind == "state":
        return a.StateBackend()
    return a.LocalShellBackend(root_dir=root, virtual_mode=True)


# --------------------------------------------------------------------------------------------
# Tool schemas
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def offered(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    """The offered tools of one-turn runs, by ``(backend kind, mode)``: each run already checked."""
    root = tmp_path_factory.mktemp("shell")
    out = {}
    for kind in ("state", "shell"):
        for mode in MODES:
            run = run_fs(["done"], mode=mode, setup=lambda a, kind=kind: {"backend": _backend(a, kind, root)})
            check(run)
            out[kind, mode] = run
    return out


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("kind", ["state", "shell"])
def test_every_argument_has_a_type_and_a_description(offered, kind: str, impl: str) -> None:
    tools = _offered(offered[kind, "invoke"], impl)
    expected = FS_TOOLS + (("execute",) if kind == "shell" else ())
    assert set(expected) <= set(tools)
    for name in expected:
        params = tools[name]["parameters"]
        assert params["properties"], name
        assert set(params.get("required", [])) <= set(params["properties"])
        for arg, schema in params["properties"].items():
            assert {"type", "anyOf", "$ref"} & set(schema), (name, arg)
            assert schema.get("description"), (name, arg)


@pytest.mark.parametrize("kind", ["state", "shell"])
def test_schemas_do_not_depend_on_sync_or_async(offered, kind: str) -> None:
    """``check`` compared the implementations per mode; here each against its other mode."""
    for impl in IMPLS:
        assert _offered(offered[kind, "invoke"], impl) == _offered(offered[kind, "ainvoke"], impl)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize(("tool", "wording"), [("glob", "backend's default root"), ("grep", "Directory to search")])
def test_search_path_is_optional_and_nullable(offered, tool: str, wording: str, impl: str) -> None:
    path = _offered(offered["state", "invoke"], impl)[tool]["parameters"]["properties"]["path"]
    assert path["default"] is None
    assert {"type": "null"} in path["anyOf"]
    assert wording in path["description"]


@pytest.mark.parametrize("impl", IMPLS)
def test_descriptions_tell_where_large_results_go(impl: str) -> None:
    fs = _fs_module(impl)
    assert "offloaded" in fs.READ_FILE_TOOL_DESCRIPTION.lower()
    assert "large_tool_results/" in fs.GREP_TOOL_DESCRIPTION
    assert "artifacts root" in fs.GREP_TOOL_DESCRIPTION


# --------------------------------------------------------------------------------------------
# custom_tool_descriptions
# --------------------------------------------------------------------------------------------

CUSTOM = {"ls": "List it, please.", "read_file": "Open and show.", "grep": "Hunt for text."}


def _state(a: SimpleNamespace) -> Any:
    return a.StateBackend()


def _state_with_store_route(a: SimpleNamespace) -> Any:
    return a.CompositeBackend(default=a.StateBackend(), routes={"/memories/": a.StoreBackend(namespace=_namespace)})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", [_state, _state_with_store_route], ids=["state", "composite"])
def test_custom_tool_descriptions(make: Any, mode: str) -> None:
    def setup(a: SimpleNamespace) -> dict[str, Any]:
        middleware = a.FilesystemMiddleware(backend=make(a), custom_tool_descriptions=dict(CUSTOM))
        return {"middleware": [middleware], "store": InMemoryStore()}

    run = run_fs(["done"], mode=mode, setup=setup)
    check(run)
    tools = _offered(run, "deepagents")
    fs = _fs_module("deepagents")
    assert set(FS_TOOLS) <= set(tools)
    for name, text in CUSTOM.items():
        assert tools[name]["description"] == text
    kept = {"write_file": fs.WRITE_FILE_TOOL_DESCRIPTION, "edit_file": fs.EDIT_FILE_TOOL_DESCRIPTION}
    for name, text in kept.items():
        assert tools[name]["description"] == text.strip()


# --------------------------------------------------------------------------------------------
# Constructor
# --------------------------------------------------------------------------------------------


def _construct(impl: str, make: Any) -> tuple[str, str]:
    a = api(impl)
    try:
        middleware = a.FilesystemMiddleware(backend=make(a))
    except Exception as exc:  # noqa: BLE001 - compared across implementations
        return (type(exc).__name__, str(exc))
    return ("ok", type(middleware.backend).__name__)


FACTORIES = {
    "class": lambda a: a.StateBackend,
    "lambda": lambda a: lambda _runtime: a.StateBackend(),
    "store-class": lambda a: a.StoreBackend,
}


@pytest.mark.parametrize("make", FACTORIES.values(), ids=FACTORIES.keys())
def test_backend_factories_are_refused(make: Any) -> None:
    outcomes = [_construct(impl, make) for impl in IMPLS]
    assert outcomes[1] == outcomes[0]
    kind, message = outcomes[0]
    assert kind == "TypeError" and "Backend factories were removed in deepagents 0.7" in message


@pytest.mark.parametrize("impl", IMPLS)
def test_backends_kept_as_given(impl: str) -> None:
    a = api(impl)

    class Invocable(a.StateBackend):
        def __call__(self) -> None:
            return None

    instance = Invocable()
    assert a.FilesystemMiddleware(backend=instance).backend is instance
    assert type(a.FilesystemMiddleware().backend) is a.StateBackend


# --------------------------------------------------------------------------------------------
# The files state key
# --------------------------------------------------------------------------------------------


def _store(a: SimpleNamespace) -> Any:
    return a.StoreBackend(namespace=_namespace)


LAYOUTS = {
    "none": (None, True),
    "state": (_state, True),
    "store": (_store, False),
    "store-routes-only": (lambda a: a.CompositeBackend(default=_store(a), routes={"/keep/": _store(a)}), False),
    "state-route": (lambda a: a.CompositeBackend(default=_store(a), routes={"/tmp/": a.StateBackend()}), True),
    "nested-state-route": (
        lambda a: a.CompositeBackend(
            default=_store(a),
            routes={"/deep/": a.CompositeBackend(default=_store(a), routes={"/scratch/": a.StateBackend()})},
        ),
        True,
    ),
    "state-default": (_state_with_store_route, True),
}


@pytest.mark.parametrize(("make", "has_files"), LAYOUTS.values(), ids=LAYOUTS.keys())
def test_files_key_follows_state_backends(make: Any, has_files: bool) -> None:
    def setup(a: SimpleNamespace) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"store": InMemoryStore()}
        if make is not None:
            kwargs["backend"] = make(a)
        return kwargs

    ref = check(run_fs(["done"], mode="invoke", setup=setup))  # compares the result keys too
    assert ("files" in ref) is has_files
