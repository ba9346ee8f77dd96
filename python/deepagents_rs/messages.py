"""Light message classes, used when ``langchain-core`` is not installed.

They carry the attribute names of LangChain's messages (``type``, ``content``, ``tool_calls``,
``tool_call_id``, ``id``, ``name``, ``usage_metadata``, ``response_metadata``), so code that
reads results works with either. With ``langchain-core`` installed, results are LangChain's
own message objects instead.
"""

from __future__ import annotations

from typing import Any, ClassVar


class BaseMessage:
    """A conversation message."""

    type: ClassVar[str] = ""
    _fields: ClassVar[tuple[str, ...]] = ("content", "id", "name", "additional_kwargs", "response_metadata")

    def __init__(self, content: Any = "", **kwargs: Any) -> None:
        self.content = content
        self.id: str | None = kwargs.pop("id", None)
        self.name: str | None = kwargs.pop("name", None)
        self.additional_kwargs: dict = kwargs.pop("additional_kwargs", None) or {}
        self.response_metadata: dict = kwargs.pop("response_metadata", None) or {}
        for key, default in self._defaults().items():
            value = kwargs.pop(key, None)
            setattr(self, key, default() if value is None else value)
        if kwargs:
            raise TypeError(f"{type(self).__name__} got unexpected fields: {sorted(kwargs)}")

    @classmethod
    def _defaults(cls) -> dict[str, Any]:
        return {}

    @property
    def text(self) -> str:
        """The text of the content, joining text blocks."""
        if isinstance(self.content, str):
            return self.content
        parts = []
        for block in self.content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(block.get("text", ""))
        return "".join(parts)

    def _all_fields(self) -> dict[str, Any]:
        names = list(self._fields) + list(self._defaults())
        return {n: getattr(self, n) for n in names}

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._all_fields() == other._all_fields()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._all_fields().items() if v not in (None, {}, []))
        return f"{type(self).__name__}({shown})"


class HumanMessage(BaseMessage):
    type = "human"


class SystemMessage(BaseMessage):
    type = "system"


class AIMessage(BaseMessage):
    type = "ai"
    tool_calls: list[dict]
    invalid_tool_calls: list[dict]
    usage_metadata: dict | None

    @classmethod
    def _defaults(cls) -> dict[str, Any]:
        return {"tool_calls": list, "invalid_tool_calls": list, "usage_metadata": lambda: None}


class ToolMessage(BaseMessage):
    type = "tool"
    tool_call_id: str
    status: str
    artifact: Any

    def __init__(self, content: Any = "", **kwargs: Any) -> None:
        if "tool_call_id" not in kwargs:
            raise TypeError("ToolMessage needs a tool_call_id")
        super().__init__(content, **kwargs)

    @classmethod
    def _defaults(cls) -> dict[str, Any]:
        return {"tool_call_id": str, "status": lambda: "success", "artifact": lambda: None}


__all__ = ["AIMessage", "BaseMessage", "HumanMessage", "SystemMessage", "ToolMessage"]
