"""``response_format``, as LangChain's ``create_agent`` runs it: through tools
(``ToolStrategy``: the core offers each schema of it, one or a union's, as one more tool,
makes the model call a tool, and hands a call to a schema tool here to be parsed with its
schema) or natively (``ProviderStrategy``: the core sends the provider the JSON schema and
hands a reply's text here); a bare schema (``AutoStrategy``) goes natively where LangChain
would. Schemas are pydantic models, dataclasses, TypedDicts or JSON-schema dicts.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
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


def _validation_error(tool_name: str, source: Exception, reply: dict) -> Exception:
    """LangChain's error for a response that does not parse, carrying the model's reply."""
    try:
        from langchain.agents.structured_output import StructuredOutputValidationError
    except ImportError:
        return ValueError(f"Failed to parse structured output for tool '{tool_name}': {source}.")
    from ._convert import from_core

    return StructuredOutputValidationError(tool_name, source, from_core(reply))


class _SchemaTool:
    """One schema as a tool the model calls to answer (``name``: the one LangChain's spec of it
    gave it, when there is one; a JSON schema without a title gets a random one)."""

    is_schema_tool = True

    def __init__(self, schema: Any, name: str | None = None) -> None:
        self.schema = schema
        self.is_json_schema = isinstance(schema, dict)
        # pydantic is imported for a response format only (not at the package's import).
        from pydantic import TypeAdapter

        self._adapter = None if self.is_json_schema else TypeAdapter(schema)
        try:
            from deepagents_rs._langchain_private import _SchemaSpec
        except ModuleNotFoundError:
            self._init_without_langchain(schema, name)
        else:
            from langchain.agents.structured_output import OutputToolBinding

            # LangChain's own binding: byte-identical name, description and schema.
            spec = _SchemaSpec(schema, name=name)
            self.bindable = OutputToolBinding.from_schema_spec(spec).tool
            function = _compat.convert_to_openai_tool(self.bindable)["function"]
            self.name = function["name"]
            self.description = function.get("description", "")
            self.parameters = function["parameters"]

    def _init_without_langchain(self, schema: Any, name: str | None) -> None:
        from ._schema import _inline_refs, _rm_titles

        if self.is_json_schema:
            self.name = name or str(schema.get("title", "response_format"))
            self.description = schema.get("description", "")
            self.parameters = schema
        else:
            self.name = name or schema.__name__
            self.description = schema.__doc__ or ""
            self.parameters = _rm_titles(_inline_refs(self._adapter.json_schema()))
            self.parameters.pop("description", None)
        self.bindable = {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


class ResponseFormatAdapter:
    """A ``ToolStrategy``: its schemas (one, or a union's) as the tools the model calls to
    answer; ``parse`` is called by the core."""

    def __init__(
        self,
        schemas: list[tuple[Any, str | None]],
        *,
        tool_message_content: str | None = None,
        handle_errors: Any = True,
    ) -> None:
        self._by_name: dict[str, _SchemaTool] = {}
        for schema, name in schemas:
            tool = _SchemaTool(schema, name)
            # LangChain keys its output tools by name: a later schema of the same name takes
            # the earlier one's place.
            self._by_name[tool.name] = tool
        self.tools = list(self._by_name.values())
        self.schema_tools_set_up = True
        self.tool_message_content = tool_message_content
        self.handle_errors = handle_errors

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

    def parse(self, name: str, args: dict, reply: dict) -> tuple:
        """``("ok", json_value, rendered, tool_message, object)`` or ``("retry", tool_message)``."""
        tool = self._by_name[name]
        if tool.is_json_schema:
            # LangChain returns a JSON-schema response unvalidated.
            obj: Any = args
        else:
            try:
                obj = tool._adapter.validate_python(args)
            except Exception as exc:
                schema_name = getattr(tool.schema, "__name__", str(tool.schema))
                error = _validation_error(name, ValueError(f"Failed to parse data to {schema_name}: {exc}"), reply)
                text = self._retry_text(error)
                if text is None:
                    raise error from exc
                return ("retry", text)
        value = obj if tool.is_json_schema else tool._adapter.dump_python(obj, mode="json")
        message = self.tool_message_content or f"Returning structured response: {obj}"
        # The object itself goes back to the user as the result's structured_response.
        return ("ok", value, render_structured(obj), message, obj)

    def multiple(self, names: list[str], reply: dict) -> str:
        """The tool message for several schema calls in one reply (LangChain's rule)."""
        message = (
            f"Model incorrectly returned multiple structured responses ({', '.join(names)}) when only one is expected."
        )
        try:
            from langchain.agents.structured_output import MultipleStructuredOutputsError
        except ImportError:
            error: Exception = ValueError(message)
        else:
            from ._convert import from_core

            error = MultipleStructuredOutputsError(names, from_core(reply))
        text = self._retry_text(error)
        if text is None:
            raise error
        return text


class ProviderFormatAdapter:
    """One schema as the provider's native response format (LangChain's ``ProviderStrategy``);
    the core sends ``response_format`` with the request and calls ``parse_text`` on a reply
    without tool calls."""

    def __init__(self, schema: Any, *, strict: bool | None = None, auto: bool = False) -> None:
        from pydantic import TypeAdapter

        self.schema = schema
        #: create_agent sets a bare schema's tools up (as a ToolStrategy) even where it sends
        #: the schema natively: its tools step may then end the run.
        self.schema_tools_set_up = auto
        self.is_json_schema = isinstance(schema, dict)
        self._adapter = None if self.is_json_schema else TypeAdapter(schema)
        #: The name LangChain's errors carry.
        self.name = getattr(schema, "__name__", "response_format")
        #: LangChain's error for a schema it cannot send (a union): raised when the model is
        #: called, as create_agent decides on native output only then.
        self.refusal: Exception | None = None
        self.response_format: dict | None = None
        try:
            from langchain.agents.structured_output import ProviderStrategy
        except ImportError:
            ProviderStrategy = None  # type: ignore[assignment,misc]
        try:
            if ProviderStrategy is None:
                self.response_format = self._format_without_langchain(schema, strict)
            else:
                # LangChain's own kwargs: byte-identical name, schema and strictness.
                self.response_format = ProviderStrategy(schema, strict=strict).to_model_kwargs()["response_format"]
        except ValueError as exc:
            self.refusal = exc

    def _format_without_langchain(self, schema: Any, strict: bool | None) -> dict:
        # A union is one schema to LangChain's tools only.
        if len(_union_members(schema)) > 1 and not self.is_json_schema:
            raise ValueError(_unsupported_message(schema))
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
            raise _validation_error(self.name, exc, reply) from exc
        return (self._adapter.dump_python(obj, mode="json"), render_structured(obj), obj)


def with_schema_tool(tools: list, structured: Any) -> list:
    """The tools a model binds: the agent's, and the schema tools when output goes through them."""
    return [*tools, *structured.tools] if isinstance(structured, ResponseFormatAdapter) else tools


def tools_may_end(structured: Any, tools: list) -> bool:
    """Whether a tools step can end the run, as LangChain's graph draws it: a
    ``return_direct`` tool, or schema tools set up for the format."""
    return any(t.return_direct for t in tools) or getattr(structured, "schema_tools_set_up", False)


def make_response_format(
    response_format: Any, *, model: Any, tools: list, all_tools: bool = False
) -> ResponseFormatAdapter | ProviderFormatAdapter | None:
    """The adapter for a ``response_format`` argument: LangChain's strategy for it, with
    ``AutoStrategy`` (a bare schema) decided as LangChain decides it for ``model``.
    ``all_tools``: ``tools`` are every tool the model is offered (a plain agent's); else
    the agent has tools besides (deepagents' own)."""
    if response_format is None:
        return None
    try:
        from langchain.agents.structured_output import AutoStrategy, ProviderStrategy, ToolStrategy
    except ImportError:
        AutoStrategy = ProviderStrategy = ToolStrategy = ()  # type: ignore[assignment,misc]
    if ToolStrategy and isinstance(response_format, ToolStrategy):
        return ResponseFormatAdapter(
            [(spec.schema, spec.name) for spec in response_format.schema_specs],
            tool_message_content=response_format.tool_message_content,
            handle_errors=response_format.handle_errors,
        )
    if ProviderStrategy and isinstance(response_format, ProviderStrategy):
        return ProviderFormatAdapter(response_format.schema, strict=response_format.schema_spec.strict)
    schema = response_format.schema if AutoStrategy and isinstance(response_format, AutoStrategy) else response_format
    # create_agent sets the schema up as a ToolStrategy first, which refuses what it cannot use.
    variants = _tool_variants(schema, ToolStrategy)
    if _provider_strategy_expected(model, tools, all_tools=all_tools):
        return ProviderFormatAdapter(schema, auto=True)
    return ResponseFormatAdapter(variants)


def _tool_variants(schema: Any, tool_strategy: Any) -> list[tuple[Any, str | None]]:
    """The schemas a ToolStrategy over ``schema`` offers as tools (a union's members, a JSON
    schema's ``oneOf`` entries), with their names; LangChain's error for one it cannot use."""
    if tool_strategy:
        return [(spec.schema, spec.name) for spec in tool_strategy(schema).schema_specs]
    variants = []
    for variant in _union_members(schema):
        if not (isinstance(variant, (dict, type)) or dataclasses.is_dataclass(variant)):
            raise ValueError(_unsupported_message(variant))
        variants.append((variant, None))
    return variants


def _unsupported_message(schema: Any) -> str:
    """LangChain's words for a schema it cannot use."""
    return (
        f"Unsupported schema type: {type(schema)}. "
        "Supported types: Pydantic models, dataclasses, TypedDicts, and JSON schema dicts."
    )


def _union_members(schema: Any) -> list[Any]:
    """A union's members, or a JSON schema's ``oneOf`` entries, flattened; else the schema."""
    if typing.get_origin(schema) in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(schema) for m in _union_members(arg)]
    if isinstance(schema, dict) and "oneOf" in schema:
        return [m for sub in schema["oneOf"] for m in _union_members(sub)]
    return [schema]


def _provider_strategy_expected(model: Any, tools: list, *, all_tools: bool = False) -> bool:
    """Whether LangChain's AutoStrategy would pick provider-native output for this model.

    LangChain's check asks whether the model is offered tools (Gemini before 3 cannot use
    both): deepagents' agents always are (its middleware's, at least); a plain agent
    (``all_tools``) only when ``tools`` holds some."""
    offered = list(tools) if all_tools else [True]
    try:
        from deepagents_rs._langchain_private import _supports_provider_strategy
    except ModuleNotFoundError:
        _supports_provider_strategy = None
    if isinstance(model, str):
        from ._model_spec import parse_model_spec
        from ._structured_models import STRUCTURED_OUTPUT_MODELS

        # Parsed only: a provider profile's hooks run once, when the model is made (and
        # a string naming no provider is refused there).
        try:
            provider, name = parse_model_spec(model)
        except ValueError:
            return False
        # As for the ChatOpenAI/ChatAnthropic deepagents makes of the string: its profile,
        # then LangChain's list of model names known to support it.
        if name in STRUCTURED_OUTPUT_MODELS.get(provider, ()):
            return True
        return bool(_supports_provider_strategy and _supports_provider_strategy(name))
    if _supports_provider_strategy is None:
        return False
    return bool(_supports_provider_strategy(model, tools=offered))
