"""Optional LangChain integration: used when installed, never required.

``lc_messages``, ``BaseTool``, ``lc_tool``, ``convert_to_openai_tool`` and ``HAS_LANGCHAIN``
are resolved when one is first read (PEP 562), so importing the package loads no LangChain
module: LangChain is imported when an agent is built or run, if at all.
"""

from __future__ import annotations

from typing import Any

_NAMES = ("lc_messages", "BaseTool", "lc_tool", "convert_to_openai_tool", "HAS_LANGCHAIN")
_found: dict[str, Any] | None = None


def _langchain() -> dict[str, Any]:
    """The names above, from langchain-core when it imports (``None``s without it); kept
    in the module's namespace after the first call."""
    global _found
    if _found is not None:
        return _found
    try:
        import langchain_core.messages as lc_messages
        from langchain_core.tools import BaseTool
        from langchain_core.tools import tool as lc_tool
        from langchain_core.utils.function_calling import convert_to_openai_tool

        found = {
            "lc_messages": lc_messages,
            "BaseTool": BaseTool,
            "lc_tool": lc_tool,
            "convert_to_openai_tool": convert_to_openai_tool,
            "HAS_LANGCHAIN": True,
        }
    except ImportError:
        found = {**dict.fromkeys(_NAMES), "HAS_LANGCHAIN": False}
    globals().update(found)
    _found = found
    return found


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return _langchain()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_lc_tool(obj: object) -> bool:
    base = _langchain()["BaseTool"]
    return base is not None and isinstance(obj, base)


def is_lc_message(obj: object) -> bool:
    messages = _langchain()["lc_messages"]
    return messages is not None and isinstance(obj, messages.BaseMessage)


def is_lc_chat_model(obj: object) -> bool:
    try:
        from langchain_core.language_models import BaseChatModel
    except ImportError:
        return False
    return isinstance(obj, BaseChatModel)
