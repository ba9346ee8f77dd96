"""Structured output through a tool (LangChain's ``ToolStrategy``), for ``response_format``.

The core offers the schema as one more tool, makes the model call a tool, and hands a call to
the schema tool here to be parsed with the user's schema (a pydantic model, dataclass,
TypedDict or JSON-schema dict), as LangChain's ``create_agent`` parses it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from . import _compat

# LangChain's wording, which the model reads when it must try again.
STRUCTURED_OUTPUT_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."


def render_structured(structured: Any) -> str:
    """deepagents' rendering of a subagent's structured response as the task result."""
    if hasattr(structured, "model_dump_json"):
        return structured.model_dump_json()
    if dataclasses.is_dataclass(structured) and not isinstance(structured, type):
        return json.dumps(dataclasses.asdict(structured))
    return json.dumps(structured)


def _validation_error(tool_name: str, source: Exception) -> Exception:
    try:
        from langchain.agents.structured_output import StructuredOutputValidationError
    except ImportError:
        return ValueError(f"Failed to parse structured output for tool '{tool_name}': {source}.")
    return StructuredOutputValidationError(tool_name, source, None)  # type: ignore[arg-type]


class ResponseFormatAdapter:
    """One schema as the tool the model calls to answer; ``parse`` is called by the core."""

    def __init__(self, schema: Any, *, tool_message_content: str | None = None, handle_errors: Any = True) -> None:
        self.schema = schema
        self.tool_message_content = tool_message_content
        self.handle_errors = handle_errors
        self.is_json_schema = isinstance(schema, dict)
        # pydantic is imported for a response format only (not at the package's import).
        from pydantic import TypeAdapter

        self._adapter = None if self.is_json_schema else TypeAdapter(schema)
        try:
            from langchain.agents.structured_output import OutputToolBinding, _SchemaSpec
        except ImportError:
            self._init_without_langchain(schema)
        else:
            # LangChain's own binding: byte-identical name, description and schema.
            spec = _SchemaSpec(schema)
            self.bindable = OutputToolBinding.from_schema_spec(spec).tool
            function = _compat.convert_to_openai_tool(self.bindable)["function"]
            self.name = function["name"]
            self.description = function.get("description", "")
            self.parameters = function["parameters"]

    def _init_without_langchain(self, schema: Any) -> None:
        from ._schema import _inline_refs, _rm_titles

        if self.is_json_schema:
            self.name = str(schema.get("title", "response_format"))
            self.description = schema.get("description", "")
            self.parameters = schema
        else:
            self.name = schema.__name__
            self.description = schema.__doc__ or ""
            self.parameters = _rm_titles(_inline_refs(self._adapter.json_schema()))
            self.parameters.pop("description", None)
        self.bindable = {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def _retry_text(self, exc: Exception) -> str | None:
        """LangChain's ``handle_errors``: the retry message, or None to raise."""
        handle = self.handle_errors
        if handle is False:
            return None
        if handle is True:
            return STRUCTURED_OUTPUT_ERROR_TEMPLATE.format(error=str(exc))
        if isinstance(handle, str):
            return handle
        if isinstance(handle, (type, tuple)):
            if isinstance(exc, handle):
                return STRUCTURED_OUTPUT_ERROR_TEMPLATE.format(error=str(exc))
            return None
        return handle(exc)

    def parse(self, args: dict) -> tuple:
        """``("ok", json_value, rendered, tool_message)`` or ``("retry", tool_message)``."""
        if self.is_json_schema:
            # LangChain returns a JSON-schema response unvalidated.
            obj: Any = args
        else:
            try:
                obj = self._adapter.validate_python(args)
            except Exception as exc:
                name = getattr(self.schema, "__name__", str(self.schema))
                error = _validation_error(self.name, ValueError(f"Failed to parse data to {name}: {exc}"))
                text = self._retry_text(error)
                if text is None:
                    raise error from exc
                return ("retry", text)
        value = obj if self.is_json_schema else self._adapter.dump_python(obj, mode="json")
        message = self.tool_message_content or f"Returning structured response: {obj}"
        # The object itself goes back to the user as the result's structured_response.
        return ("ok", value, render_structured(obj), message, obj)

    def multiple(self, names: list[str]) -> str:
        """The tool message for several schema calls in one reply (LangChain's rule)."""
        message = (
            f"Model incorrectly returned multiple structured responses ({', '.join(names)}) when only one is expected."
        )
        try:
            from langchain.agents.structured_output import MultipleStructuredOutputsError
        except ImportError:
            error: Exception = ValueError(message)
        else:
            error = MultipleStructuredOutputsError(names, None)  # type: ignore[arg-type]
        text = self._retry_text(error)
        if text is None:
            raise error
        return text


def make_response_format(response_format: Any, *, model: Any, tools: list) -> ResponseFormatAdapter | None:
    """The adapter for a ``response_format`` argument, or a clear error where LangChain would
    use a strategy deepagents_rs does not have yet."""
    if response_format is None:
        return None
    try:
        from langchain.agents.structured_output import AutoStrategy, ProviderStrategy, ToolStrategy
    except ImportError:
        AutoStrategy = ProviderStrategy = ToolStrategy = ()  # type: ignore[assignment,misc]
    if ToolStrategy and isinstance(response_format, ToolStrategy):
        if len(response_format.schema_specs) != 1:
            raise NotImplementedError("deepagents_rs: a ToolStrategy over a union of schemas is planned.")
        return ResponseFormatAdapter(
            response_format.schema,
            tool_message_content=response_format.tool_message_content,
            handle_errors=response_format.handle_errors,
        )
    if ProviderStrategy and isinstance(response_format, ProviderStrategy):
        raise NotImplementedError(
            "deepagents_rs: response_format=ProviderStrategy(...) (provider-native structured output) is planned; "
            "ToolStrategy(schema) works."
        )
    schema = response_format.schema if AutoStrategy and isinstance(response_format, AutoStrategy) else response_format
    if not (isinstance(schema, (dict, type)) or dataclasses.is_dataclass(schema)):
        # LangChain's words for a schema it cannot use.
        raise ValueError(
            f"Unsupported schema type: {type(schema)}. "
            "Supported types: Pydantic models, dataclasses, TypedDicts, and JSON schema dicts."
        )
    if _provider_strategy_expected(model, tools):
        raise NotImplementedError(
            "deepagents_rs: for this model LangChain would use provider-native structured output, which is "
            "planned; pass ToolStrategy(schema) to get tool-based structured output now."
        )
    return ResponseFormatAdapter(schema)


def _provider_strategy_expected(model: Any, tools: list) -> bool:
    """Whether LangChain's AutoStrategy would pick provider-native output for this model."""
    if isinstance(model, str):
        # The native clients' models all support native structured output.
        return True
    try:
        from langchain.agents.factory import _supports_provider_strategy
    except ImportError:
        return False
    return bool(_supports_provider_strategy(model, tools))
