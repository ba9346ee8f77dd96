"""Structured output through a tool (LangChain's ``ToolStrategy``), for ``response_format``.

The core offers the schema as one more tool, makes the model call a tool, and hands a call to
the schema tool here to be parsed with the user's schema (a pydantic model, dataclass,
TypedDict or JSON-schema dict), as LangChain's ``create_agent`` parses it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pydantic import TypeAdapter

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


class ProviderFormatAdapter:
    """One schema as the provider's native response format (LangChain's ``ProviderStrategy``);
    the core sends ``response_format`` with the request and calls ``parse_text`` on a reply
    without tool calls."""

    def __init__(self, schema: Any, *, strict: bool | None = None) -> None:
        self.schema = schema
        self.is_json_schema = isinstance(schema, dict)
        self._adapter = None if self.is_json_schema else TypeAdapter(schema)
        #: The name LangChain's errors carry.
        self.name = getattr(schema, "__name__", "response_format")
        try:
            from langchain.agents.structured_output import ProviderStrategy
        except ImportError:
            self.response_format = self._format_without_langchain(schema, strict)
        else:
            # LangChain's own kwargs: byte-identical name, schema and strictness.
            self.response_format = ProviderStrategy(schema, strict=strict).to_model_kwargs()["response_format"]

    def _format_without_langchain(self, schema: Any, strict: bool | None) -> dict:
        if self.is_json_schema:
            json_schema: dict[str, Any] = {"name": str(schema.get("title", "response_format")), "schema": schema}
        else:
            json_schema = {"name": schema.__name__, "schema": self._adapter.json_schema()}
        if strict:
            json_schema["strict"] = True
        return {"type": "json_schema", "json_schema": json_schema}

    def parse_text(self, text: str, reply: dict) -> tuple:
        """``(json_value, rendered, object)``, or LangChain's error ending the run."""
        try:
            try:
                data = json.loads(text)
            except Exception as exc:
                raise ValueError(
                    f"Native structured output expected valid JSON for {self.name}, but parsing failed: {exc}."
                ) from exc
            if self.is_json_schema:
                # LangChain returns a JSON-schema response unvalidated.
                return (data, render_structured(data), data)
            try:
                obj = self._adapter.validate_python(data)
            except Exception as exc:
                name = getattr(self.schema, "__name__", str(self.schema))
                raise ValueError(f"Failed to parse data to {name}: {exc}") from exc
        except ValueError as exc:
            raise _native_error(self.name, exc, reply) from exc
        return (self._adapter.dump_python(obj, mode="json"), render_structured(obj), obj)


def _native_error(name: str, source: Exception, reply: dict) -> Exception:
    try:
        from langchain.agents.structured_output import StructuredOutputValidationError
    except ImportError:
        return ValueError(f"Failed to parse structured output for tool '{name}': {source}.")
    from ._convert import from_core

    return StructuredOutputValidationError(name, source, from_core(reply))


def with_schema_tool(tools: list, structured: Any) -> list:
    """The tools a model binds: the agent's, and the schema tool when output goes through one."""
    return [*tools, structured] if isinstance(structured, ResponseFormatAdapter) else tools


def make_response_format(
    response_format: Any, *, model: Any, tools: list
) -> ResponseFormatAdapter | ProviderFormatAdapter | None:
    """The adapter for a ``response_format`` argument: LangChain's strategy for it, with
    ``AutoStrategy`` (a bare schema) decided as LangChain decides it for ``model``."""
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
        return ProviderFormatAdapter(response_format.schema, strict=response_format.schema_spec.strict)
    schema = response_format.schema if AutoStrategy and isinstance(response_format, AutoStrategy) else response_format
    if not (isinstance(schema, (dict, type)) or dataclasses.is_dataclass(schema)):
        # LangChain's words for a schema it cannot use.
        raise ValueError(
            f"Unsupported schema type: {type(schema)}. "
            "Supported types: Pydantic models, dataclasses, TypedDicts, and JSON schema dicts."
        )
    if _provider_strategy_expected(model, tools):
        return ProviderFormatAdapter(schema)
    return ResponseFormatAdapter(schema)


def _provider_strategy_expected(model: Any, tools: list) -> bool:
    """Whether LangChain's AutoStrategy would pick provider-native output for this model.

    deepagents' agents always have tools (its middleware's, at least), which is what
    LangChain's check asks about (Gemini before 3 cannot use both)."""
    del tools
    try:
        from langchain.agents.factory import _supports_provider_strategy
    except ImportError:
        _supports_provider_strategy = None
    if isinstance(model, str):
        from ._model_spec import resolve_model_spec
        from ._structured_models import STRUCTURED_OUTPUT_MODELS

        provider, name, _ = resolve_model_spec(model)
        # As for the ChatOpenAI/ChatAnthropic deepagents makes of the string: its profile,
        # then LangChain's list of model names known to support it.
        if name in STRUCTURED_OUTPUT_MODELS.get(provider, ()):
            return True
        return bool(_supports_provider_strategy and _supports_provider_strategy(name))
    if _supports_provider_strategy is None:
        return False
    return bool(_supports_provider_strategy(model, tools=[True]))
