"""Bedrock's and Fireworks' prompt caching middleware load their packages only when used.

deepagents imports ``langchain_aws`` and ``langchain_fireworks`` (boto3, botocore, openai, the
Fireworks SDK) for every agent it makes, to append their caching middleware; deepagents_rs'
stacks hold stand-ins of the same names that import a package once a request to one of its
models arrives (a model of its classes can exist only once the package is loaded). Each case
runs in a fresh interpreter, so nothing an earlier test imported can hide an import. What
the middleware do for their own models is compared with deepagents in
``tests/parity/test_provider_prompt_caching.py`` and ``test_provider_caching_pass_through.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("langchain_aws", reason="langchain-aws (Bedrock prompt caching) is not installed")
pytest.importorskip("langchain_fireworks", reason="langchain-fireworks (Fireworks prompt caching) is not installed")

#: The packages the two middleware live in, and the SDKs those load.
PROVIDER_PACKAGES = ("langchain_aws", "langchain_fireworks", "boto3", "botocore", "openai", "fireworks")


def _fresh(code: str) -> dict:
    """``code`` in a fresh interpreter with an Anthropic key (so the model is the native
    client); it prints one JSON object as its last line."""
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-test"}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300, check=False, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_an_anthropic_agent_loads_neither_package() -> None:
    out = _fresh(
        f"""
        import json, sys
        from deepagents_rs import create_deep_agent

        def lookup(key: str) -> str:
            '''Look a key up.'''
            return key

        create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[lookup])
        print(json.dumps(sorted(p for p in {PROVIDER_PACKAGES!r} if p in sys.modules)))
        """
    )
    assert out == []


def test_the_stack_holds_both_by_name_in_deepagents_order() -> None:
    """The stack's caching entries are named and ordered as deepagents' (Anthropic's, then
    Bedrock's, then Fireworks'), and a profile excluding one by name matches it, all before
    either package is loaded; naming the class loads the package and then matches too."""
    out = _fresh(
        f"""
        import json, sys
        import deepagents_rs
        from deepagents_rs import _excluded_middleware

        slots = _excluded_middleware._caching_slots()
        names = [s.name for s in slots]
        deepagents_rs.register_harness_profile(
            "anthropic", deepagents_rs.HarnessProfile(excluded_middleware=frozenset({{"FireworksPromptCachingMiddleware"}}))
        )
        deepagents_rs.create_deep_agent(model="anthropic:claude-sonnet-4-5")
        loaded = sorted(p for p in {PROVIDER_PACKAGES!r} if p in sys.modules)
        from langchain_aws.middleware import BedrockPromptCachingMiddleware

        deepagents_rs.register_harness_profile(
            "anthropic", deepagents_rs.HarnessProfile(excluded_middleware=frozenset({{BedrockPromptCachingMiddleware}}))
        )
        deepagents_rs.create_deep_agent(model="anthropic:claude-sonnet-4-5")
        print(json.dumps({{"names": names, "loaded": loaded}}))
        """
    )
    assert out == {
        "names": [
            "AnthropicPromptCachingMiddleware",
            "BedrockPromptCachingMiddleware",
            "FireworksPromptCachingMiddleware",
        ],
        "loaded": [],
    }
