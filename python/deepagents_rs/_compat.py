"""Optional LangChain integration: used when installed, never required."""

from __future__ import annotations

try:  # pragma: no cover - exercised by whichever environment runs the tests
    import langchain_core.messages as lc_messages
    from langchain_core.tools import BaseTool
    from langchain_core.tools import tool as lc_tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    HAS_LANGCHAIN = True
except ImportError:  # pragma: no cover
    lc_messages = None
    BaseTool = None
    lc_tool = None
    convert_to_openai_tool = None
    HAS_LANGCHAIN = False


def is_lc_tool(obj: object) -> bool:
    return BaseTool is not None and isinstance(obj, BaseTool)


def is_lc_message(obj: object) -> bool:
    return lc_messages is not None and isinstance(obj, lc_messages.BaseMessage)


def is_lc_chat_model(obj: object) -> bool:
    try:
        from langchain_core.language_models import BaseChatModel
    except ImportError:
        return False
    return isinstance(obj, BaseChatModel)
