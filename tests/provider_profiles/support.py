"""What the provider-profile tests share: the OpenRouter environment variables they clear, and a
call's outcome (its result's repr, or its exception's type and text) to compare."""

from __future__ import annotations

from typing import Any

ENV_VARS = ("OPENROUTER_APP_URL", "OPENROUTER_APP_TITLE", "DEEPAGENTS_OPENROUTER_ALLOW_AZURE")


def _outcome(fn: Any, *args: Any) -> tuple[str, str]:
    try:
        return ("ok", repr(fn(*args)))
    except Exception as exc:  # noqa: BLE001 - the outcome is compared, whatever it is
        return (type(exc).__name__, str(exc))
