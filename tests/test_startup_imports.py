"""Start-up: importing deepagents_rs loads no LangChain, LangGraph or LangSmith module.

The names whose classes are LangChain's or LangGraph's, or subclass them (the error
classes, ``DeepAgent``, ``DeepAgentState``, summarization's face, LangGraph's store classes)
are resolved when first asked for. Each import below runs in a fresh interpreter, and the
lazily resolved names are checked there too, from nothing imported, so that the order in
which they resolve cannot hide a circular import. How long the imports take is measured by
``benches/startup.py``, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

LANGCHAIN_PREFIXES = ("langchain", "langgraph", "langsmith")

#: What users write first; none of it may load a LangChain module. (``from deepagents_rs
#: import *`` does: it takes every name in ``__all__``, ``DeepAgent`` included.)
CHEAP_IMPORTS = [
    "import deepagents_rs",
    "from deepagents_rs import create_deep_agent",
    (
        "from deepagents_rs import CompiledSubAgent, FilesystemMiddleware, FilesystemPermission, FsToolName, "
        "MemoryMiddleware, ModelProviderError, ProviderProfile, SubAgent, register_provider_profile"
    ),
    "import deepagents_rs.graph",
    "import deepagents_rs.errors",
    "from deepagents_rs.errors import ModelProviderError",
    "import deepagents_rs.backends",
    (
        "from deepagents_rs.backends import CompositeBackend, FilesystemBackend, LocalShellBackend, "
        "StateBackend, StoreBackend"
    ),
    "from deepagents_rs.backends.context_hub import ContextHubBackend",
    "from deepagents_rs.backends.langsmith import LangSmithSandbox",
    "from deepagents_rs.backends.store import StoreBackend",
    "import deepagents_rs.middleware",
    "from deepagents_rs.middleware import FilesystemMiddleware, MemoryMiddleware, SkillsMiddleware",
    "import deepagents_rs.messages",
    "import deepagents_rs.profiles",
    "import deepagents_rs.usage",
]


def run_fresh(code: str) -> dict:
    """``code`` in a fresh interpreter; it prints one JSON object as its last line."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("statement", CHEAP_IMPORTS)
def test_import_loads_no_langchain(statement: str) -> None:
    out = run_fresh(
        f"""
        import json, sys
        {statement}
        print(json.dumps(sorted(m for m in sys.modules if m.startswith({LANGCHAIN_PREFIXES!r}))))
        """
    )
    assert out == [], f"{statement!r} loaded {out[:10]}"


#: Standard-library modules a plain import need not load: asyncio (with ssl and socket) is
#: loaded by the first run, subprocess, shutil and pathlib by the disk and shell backends.
DEFERRED_STDLIB = ("asyncio", "ssl", "subprocess", "shutil", "pathlib")


@pytest.mark.parametrize("statement", ["import deepagents_rs", "from deepagents_rs.backends import StateBackend"])
def test_import_defers_the_standard_librarys_heavy_modules(statement: str) -> None:
    out = run_fresh(
        f"""
        import json, sys
        {statement}
        print(json.dumps(sorted(m for m in {DEFERRED_STDLIB!r} if m in sys.modules)))
        """
    )
    assert out == [], f"{statement!r} loaded {out}"


def test_backends_names_resolve_to_their_modules_objects() -> None:
    """Each of the backends package's names, resolved on first use, is its module's object,
    under ``from ... import *`` too, and ``dir()`` lists them before they are resolved."""
    out = run_fresh(
        """
        import importlib, json
        from deepagents_rs import backends

        listed = set(backends.__all__) <= set(dir(backends))
        star = {}
        exec("from deepagents_rs.backends import *", star)
        homes = {
            "CompositeBackend": "composite", "ContextHubBackend": "context_hub", "FilesystemBackend": "filesystem",
            "LangSmithSandbox": "langsmith", "DEFAULT_EXECUTE_TIMEOUT": "local_shell",
            "LocalShellBackend": "local_shell", "BackendProtocol": "protocol", "StateBackend": "state",
            "NamespaceFactory": "store", "StoreBackend": "store",
        }
        same = {
            name: star[name] is getattr(backends, name)
            is getattr(importlib.import_module(f"deepagents_rs.backends.{home}"), name)
            for name, home in homes.items()
        }
        print(json.dumps({"listed": listed, "homes": sorted(homes) == sorted(backends.__all__), "same": same}))
        """
    )
    assert out["listed"] and out["homes"]
    assert {k: v for k, v in out["same"].items() if v is not True} == {}


def test_lazy_names_resolve_to_langchain_classes_and_subclasses() -> None:
    """From a fresh interpreter, every lazily resolved name is the object it was when it
    was imported eagerly: LangGraph's own class, or a subclass of LangChain's."""
    out = run_fresh(
        """
        import json, pickle, sys
        import deepagents_rs
        from deepagents_rs import errors
        lazy_only = sorted(m for m in sys.modules if m.startswith(("langchain", "langgraph")))

        import langchain_core.exceptions as lc
        import langgraph.errors
        from langgraph.graph.state import CompiledStateGraph
        from langgraph.store.base import BaseStore, Item, PutOp

        checks = {}
        # GraphRecursionError is LangGraph's own class, under every path.
        checks["recursion"] = (
            deepagents_rs.GraphRecursionError is langgraph.errors.GraphRecursionError
            and errors.GraphRecursionError is langgraph.errors.GraphRecursionError
        )
        try:
            raise deepagents_rs.GraphRecursionError("Recursion limit of 2 reached")
        except langgraph.errors.GraphRecursionError:
            checks["caught_by_langgraph"] = True
        # Each error class subclasses LangChain's class for its kind, and ours.
        bases = {
            "ModelConnectionError": (RuntimeError, lc.ModelConnectionError),
            "ModelTimeoutError": (RuntimeError, lc.ModelTimeoutError),
            "RateLimitError": (errors.ModelProviderError, lc.ModelRateLimitError),
            "QuotaExceededError": (errors.ModelProviderError, lc.ModelRateLimitError),
            "OverloadedError": (errors.ModelProviderError, lc.ModelAPIError),
            "ServerError": (errors.ModelProviderError, lc.ModelAPIError),
            "AuthenticationError": (errors.ModelProviderError, lc.ModelAuthenticationError),
            "PermissionDeniedError": (errors.ModelProviderError, lc.ModelPermissionDeniedError),
            "NotFoundError": (errors.ModelProviderError, lc.ModelNotFoundError),
            "BadRequestError": (errors.ModelProviderError, lc.ModelInvalidRequestError),
            "ContextOverflowError": (errors.ModelProviderError, lc.ContextOverflowError),
        }
        for name, expected in bases.items():
            cls = getattr(errors, name)
            checks[name] = all(issubclass(cls, base) for base in expected) and cls.__module__ == "deepagents_rs.errors"
        checks["package_error_is_errors"] = deepagents_rs.ModelConnectionError is errors.ModelConnectionError
        exc = errors._provider_error("rate_limited", "slow down", "anthropic", 429, "rate_limit_error", None, "m", "r1")
        checks["provider_error_kind"] = type(exc) is errors.RateLimitError and isinstance(exc, lc.ModelRateLimitError)
        again = pickle.loads(pickle.dumps(exc))
        checks["pickled"] = type(again) is errors.RateLimitError and again.request_id == "r1"
        # The agent class is a LangGraph graph, the same class under every path.
        from deepagents_rs import graph
        checks["agent"] = deepagents_rs.DeepAgent is graph.DeepAgent and issubclass(graph.DeepAgent, CompiledStateGraph)
        from deepagents_rs._deep_state import DeepAgentState
        checks["state"] = deepagents_rs.DeepAgentState is DeepAgentState is graph.DeepAgentState
        # Summarization's face and the skills types, from the middleware package.
        from deepagents_rs import middleware
        from deepagents_rs.middleware import skills, summarization
        checks["middleware"] = all(
            getattr(middleware, name) is getattr(summarization, name)
            for name in (
                "DEEPAGENTS_DEFAULT_SUMMARY_PROMPT",
                "SummarizationMiddleware",
                "SummarizationToolMiddleware",
                "create_summarization_tool_middleware",
            )
        ) and all(getattr(middleware, n) is getattr(skills, n) for n in ("SkillMetadata", "SkillsState", "SkillToolResolver"))
        # LangGraph's store classes, where deepagents' store module has them.
        from deepagents_rs.backends import store
        checks["store"] = (store.BaseStore, store.Item, store.PutOp) == (BaseStore, Item, PutOp)
        # Every exported name resolves, and `dir()` lists the lazy ones.
        checks["all"] = all(hasattr(deepagents_rs, n) for n in deepagents_rs.__all__) and all(
            hasattr(errors, n) for n in errors.__all__
        ) and all(hasattr(middleware, n) for n in middleware.__all__)
        checks["dir"] = {"DeepAgent", "GraphRecursionError"} <= set(dir(deepagents_rs))
        print(json.dumps({"lazy_only": lazy_only, "checks": checks}))
        """
    )
    assert out["lazy_only"] == []
    assert {k: v for k, v in out["checks"].items() if v is not True} == {}


def test_agent_is_a_deep_agent_once_created() -> None:
    """``create_deep_agent`` loads the agent's class when it makes the first agent."""
    out = run_fresh(
        """
        import json, os
        from deepagents_rs import create_deep_agent
        os.environ["ANTHROPIC_API_KEY"] = "sk-test"  # read when the agent is made; never sent
        agent = create_deep_agent(model="anthropic:claude-sonnet-4-5")
        import deepagents_rs
        from langgraph.graph.state import CompiledStateGraph
        print(json.dumps([type(agent) is deepagents_rs.DeepAgent, isinstance(agent, CompiledStateGraph)]))
        """
    )
    assert out == [True, True]


def test_lazy_names_without_langchain() -> None:
    """Without LangChain and LangGraph the same names resolve to the package's fallbacks."""
    out = run_fresh(
        """
        import json, pkgutil, sys

        # Every LangChain and LangGraph package made unimportable (`None` in sys.modules).
        for found in pkgutil.iter_modules():
            if found.name.startswith(("langchain", "langgraph")):
                sys.modules[found.name] = None
        import deepagents_rs
        from deepagents_rs import errors
        from deepagents_rs.backends import store

        print(json.dumps({
            "recursion": issubclass(deepagents_rs.GraphRecursionError, RecursionError),
            "recursion_module": deepagents_rs.GraphRecursionError.__module__,
            "connection": issubclass(errors.ModelConnectionError, RuntimeError),
            "rate": errors.RateLimitError.__mro__[1] is errors.ModelProviderError,
            "agent_bases": [c.__name__ for c in deepagents_rs.DeepAgent.__mro__[1:]],
            "store": [store.BaseStore, store.Item, store.PutOp],
        }))
        """
    )
    assert out["recursion"] is True
    assert out["recursion_module"] == "deepagents_rs.errors"
    assert out["connection"] is True
    assert out["rate"] is True
    assert out["agent_bases"] == ["ThreadRuns", "object"]
    assert out["store"] == [None, None, None]
