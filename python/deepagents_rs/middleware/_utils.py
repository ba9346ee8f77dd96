"""`deepagents.middleware._utils`: the system-message and model checks deepagents'
middleware share."""

from __future__ import annotations

import sys
from typing import Any

from langchain_core.messages import SystemMessage


def append_to_system_message(system_message: SystemMessage | None, text: str) -> SystemMessage:
    """A new system message: `system_message`'s content blocks (none for `None`) followed by
    a text block of `text`, set apart by a blank line when something comes before it."""
    blocks: list[Any] = [*system_message.content_blocks] if system_message is not None else []
    blocks.append({"type": "text", "text": f"\n\n{text}" if blocks else text})
    return SystemMessage(content_blocks=blocks)


def is_anthropic_chat_model(model: object) -> bool:
    """Whether `model` is a `langchain_anthropic` `ChatAnthropic` (looked up in `sys.modules`:
    such a model means the module is loaded, and any other must not load the Anthropic SDK)."""
    chat_models = sys.modules.get("langchain_anthropic.chat_models")
    return chat_models is not None and isinstance(model, chat_models.ChatAnthropic)
