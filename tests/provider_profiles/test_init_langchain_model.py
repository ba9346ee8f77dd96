"""`init_langchain_model` makes deepagents' `init_chat_model` call, and without langchain raises an
`ImportError` naming the packages to install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from unittest.mock import MagicMock, patch

import deepagents._models as da_models
import pytest
from deepagents_rs._model_spec import init_langchain_model, resolve_model_spec
from langchain_core.language_models import BaseChatModel

from .support import ENV_VARS, _outcome

# --- init_langchain_model ----------------------------------------------------------------------------------------


def test_init_langchain_model_forwards_to_init_chat_model() -> None:
    with patch("langchain.chat_models.init_chat_model") as mock:
        mock.return_value = MagicMock(spec=BaseChatModel)
        assert init_langchain_model("openai:gpt-5", {"use_responses_api": True}) is mock.return_value
    mock.assert_called_once_with("openai:gpt-5", use_responses_api=True)


def test_init_langchain_model_builds_real_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    openai = init_langchain_model("openai:gpt-5", resolve_model_spec("openai:gpt-5")[2])
    assert type(openai).__name__ == "ChatOpenAI"
    assert openai.model_name == "gpt-5"
    assert openai.use_responses_api is True
    anthropic = init_langchain_model("claude-sonnet-4-6", {})
    assert type(anthropic).__name__ == "ChatAnthropic"
    assert anthropic.model == "claude-sonnet-4-6"


@pytest.mark.parametrize(
    "spec",
    ["google_vertexai:gemini-2.5-pro", "mistralai:mistral-large-latest", "openrouter:anthropic/claude-sonnet-4-6"],
)
def test_missing_integration_error_is_langchains(spec: str) -> None:
    reference = _outcome(lambda: da_models.resolve_model(spec))
    assert reference[0] == "ImportError"
    assert "Please install it with `pip install langchain-" in reference[1]
    assert _outcome(lambda: init_langchain_model(spec, resolve_model_spec(spec)[2])) == reference


@pytest.mark.parametrize(
    ("spec", "install"),
    [
        ("openai:gpt-5", "langchain"),  # langchain-openai is installed
        ("claude-sonnet-4-6", "langchain"),
        ("mistralai:mistral-large-latest", "langchain langchain-mistralai"),
        ("google_vertexai:gemini-2.5-pro", "langchain langchain-google-vertexai"),
        ("azure_ai:gpt-4o", "langchain langchain-azure-ai"),
        ("my_provider:m", "langchain"),
    ],
)
def test_init_langchain_model_without_langchain(spec: str, install: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain", None)
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)
    with pytest.raises(ImportError) as info:
        init_langchain_model(spec, {})
    assert str(info.value) == (
        f"Initializing a chat model from {spec!r} requires the langchain package. "
        f"Please install it with `pip install {install}`"
    )
    assert isinstance(info.value.__cause__, ImportError)


def test_resolves_without_langchain_or_packaging() -> None:
    """In a process that cannot import langchain*, langgraph* or packaging: specs resolve, profiles apply, and
    building the model raises the ImportError naming langchain."""
    script = textwrap.dedent(
        """
        import importlib.abc, json, sys

        class Refuse(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0].startswith(("langchain", "langgraph", "packaging")):
                    raise ImportError(f"blocked for this test: {name}")
                return None

        sys.meta_path.insert(0, Refuse())
        from deepagents_rs import ProviderProfile, register_provider_profile
        from deepagents_rs._model_spec import init_langchain_model, resolve_model_spec

        register_provider_profile("anthropic:claude-sonnet-4-6", ProviderProfile(init_kwargs={"max_tokens": 64}))
        out = {
            spec: resolve_model_spec(spec)
            for spec in ["openai:gpt-5", "anthropic:claude-sonnet-4-6", "openrouter:x/y", "nvidia:n/m", "gpt-4o"]
        }
        try:
            init_langchain_model("anthropic:claude-sonnet-4-6", {})
        except ImportError as e:
            out["error"] = str(e)
        out["loaded"] = sorted(m for m in sys.modules if m.startswith(("langchain", "langgraph", "packaging")))
        print(json.dumps(out))
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    result = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True, env=env)
    out = json.loads(result.stdout)
    assert out["openai:gpt-5"] == ["openai", "gpt-5", {"use_responses_api": True}]
    assert out["anthropic:claude-sonnet-4-6"] == ["anthropic", "claude-sonnet-4-6", {"max_tokens": 64}]
    assert out["openrouter:x/y"] == [
        "openrouter",
        "x/y",
        {
            "app_url": "https://github.com/langchain-ai/deepagents",
            "app_title": "Deep Agents",
            "openrouter_provider": {"ignore": ["azure"]},
        },
    ]
    assert out["nvidia:n/m"] == ["nvidia", "n/m", {"default_headers": {"X-BILLING-INVOKE-ORIGIN": "DeepAgents"}}]
    assert out["gpt-4o"] == ["openai", "gpt-4o", {}]
    assert out["error"].startswith(
        "Initializing a chat model from 'anthropic:claude-sonnet-4-6' requires the langchain"
    )
    assert out["loaded"] == []
