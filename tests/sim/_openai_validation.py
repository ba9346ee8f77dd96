"""Request validation of the simulated OpenAI server: malformed requests fail the way the real API
fails them (status, message, param)."""

from __future__ import annotations

from typing import Any

from ._openai_replies import (
    _BAD_JSON,
    _TOOL_NAME_RE,
    SimError,
)

# --------------------------------------------------------------------------- validation


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _missing(param: str) -> SimError:
    return SimError(400, f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter")


def _wrong_type(param: str, expected: str, value: Any) -> SimError:
    return SimError(
        400,
        f"Invalid type for '{param}': expected {expected}, but got {_kind(value)} instead.",
        param=param,
        code="invalid_type",
    )


def _invalid_value(param: str, value: Any, supported: list[str]) -> SimError:
    listed = ", ".join(f"'{s}'" for s in supported[:-1]) + f", and '{supported[-1]}'"
    return SimError(
        400, f"Invalid value: '{value}'. Supported values are: {listed}.", param=param, code="invalid_value"
    )


def _require(obj: dict[str, Any], key: str, where: str) -> Any:
    if key not in obj or obj[key] is None:
        raise _missing(f"{where}.{key}" if where else key)
    return obj[key]


def _check_common(body: Any, main: str) -> None:
    if not isinstance(body, dict):
        raise SimError(400, _BAD_JSON)
    model = _require(body, "model", "")
    if not isinstance(model, str):
        raise _wrong_type("model", "a string", model)
    _require(body, main, "")
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise _wrong_type("stream", "a boolean", stream)


def _check_tool_name(name: Any, param: str) -> None:
    if not isinstance(name, str):
        raise _wrong_type(param, "a string", name)
    if not _TOOL_NAME_RE.match(name):
        raise SimError(
            400,
            f"Invalid '{param}': string does not match pattern. Expected a string that matches the pattern "
            f"'^[a-zA-Z0-9_-]+$'.",
            param=param,
            code="invalid_value",
        )


def _check_parameters(schema: Any, param: str) -> None:
    if schema is not None and not isinstance(schema, dict):
        raise _wrong_type(param, "an object", schema)


# Hosted tools' output items a request may replay (the sim never runs these tools).
_SERVER_TOOL_ITEMS = (
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
    # A generated image: a stored one is referred to by its id alone.
    "image_generation_call",
)


def _validate_responses(body: Any, strict: bool) -> None:
    """Reject what the Responses API rejects (the subset tests rely on)."""
    if isinstance(body, dict) and body.get("previous_response_id") is not None:
        # Stored responses are not simulated: every id is unknown.
        rid = body["previous_response_id"]
        raise SimError(
            400,
            f"Previous response with id '{rid}' not found.",
            param="previous_response_id",
            code="previous_response_not_found",
        )
    _check_common(body, "input")
    items = body["input"]
    if isinstance(items, str):
        items = []
    elif not isinstance(items, list):
        raise _wrong_type("input", "a string or an array", items)
    calls: dict[str, int] = {}
    answered: set[str] = set()
    for i, item in enumerate(items):
        where = f"input[{i}]"
        if not isinstance(item, dict):
            raise _wrong_type(where, "an object", item)
        kind = item.get("type", "message" if "role" in item else None)
        if kind is None:
            raise _missing(f"{where}.type")
        if kind == "message":
            role = _require(item, "role", where)
            roles = ["assistant", "system", "developer", "user"]
            if role not in roles:
                raise _invalid_value(f"{where}.role", role, roles)
            content = _require(item, "content", where)
            if not isinstance(content, (str, list)):
                raise _wrong_type(f"{where}.content", "a string or an array", content)
            for j, part in enumerate(content if isinstance(content, list) else []):
                if not isinstance(part, dict) or "type" not in part:
                    raise _missing(f"{where}.content[{j}].type")
        elif kind == "function_call":
            call_id = _require(item, "call_id", where)
            _require(item, "name", where)
            args = _require(item, "arguments", where)
            if not isinstance(args, str):
                raise _wrong_type(f"{where}.arguments", "a string", args)
            calls[call_id] = i
        elif kind == "function_call_output":
            call_id = _require(item, "call_id", where)
            output = _require(item, "output", where)
            if not isinstance(output, (str, list)):
                raise _wrong_type(f"{where}.output", "a string or an array", output)
            if strict and call_id not in calls:
                raise SimError(
                    400, f"No tool call found for function call output with call_id {call_id}.", param="input"
                )
            answered.add(call_id)
        elif kind in _SERVER_TOOL_ITEMS:
            # A hosted tool's call replayed from an earlier reply: only its id is checked.
            _require(item, "id", where)
        elif kind == "reasoning":
            summary = _require(item, "summary", where)
            if not isinstance(summary, list):
                raise _wrong_type(f"{where}.summary", "an array", summary)
        elif kind == "additional_tools":
            # Tools the model may call from this point of the conversation on.
            if item.get("role") != "developer":
                raise SimError(
                    400,
                    f"Invalid value: '{item.get('role')}'. Supported values are: 'developer'.",
                    param=f"{where}.role",
                )
            added = _require(item, "tools", where)
            if not isinstance(added, list):
                raise _wrong_type(f"{where}.tools", "an array", added)
            for j, tool in enumerate(added):
                if not isinstance(tool, dict) or _require(tool, "type", f"{where}.tools[{j}]") != "function":
                    raise SimError(400, "sim: only function tools are simulated", param=f"{where}.tools[{j}]")
                _check_tool_name(_require(tool, "name", f"{where}.tools[{j}]"), f"{where}.tools[{j}].name")
        elif kind == "item_reference":
            raise SimError(400, f"Item with id '{_require(item, 'id', where)}' not found.", param="input")
        else:
            raise SimError(400, f"sim: input item type '{kind}' is not simulated", param=f"{where}.type")
    if strict:
        for call_id in calls:
            if call_id not in answered:
                raise SimError(400, f"No tool output found for function call {call_id}.", param="input")
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise _wrong_type("tools", "an array", tools)
        for i, tool in enumerate(tools):
            where = f"tools[{i}]"
            if not isinstance(tool, dict):
                raise _wrong_type(where, "an object", tool)
            if _require(tool, "type", where) != "function" or not strict:
                continue
            _check_tool_name(_require(tool, "name", where), f"{where}.name")
            if "function" in tool:
                raise SimError(
                    400, f"Unknown parameter: '{where}.function'.", param=f"{where}.function", code="unknown_parameter"
                )
            _check_parameters(tool.get("parameters"), f"{where}.parameters")
            if tool.get("strict") is not None and not isinstance(tool["strict"], bool):
                raise _wrong_type(f"{where}.strict", "a boolean", tool["strict"])


def _validate_chat(body: Any, strict: bool) -> None:
    """Reject what Chat Completions rejects (the subset tests rely on)."""
    _check_common(body, "messages")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise _wrong_type("messages", "an array", messages)
    if not messages:
        raise SimError(
            400,
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            param="messages",
            code="empty_array",
        )
    if body.get("stream_options") is not None and not body.get("stream"):
        raise SimError(
            400,
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
            code="invalid_value",
        )
    roles = ["system", "assistant", "user", "function", "tool", "developer"]
    for i, msg in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(msg, dict):
            raise _wrong_type(where, "an object", msg)
        role = _require(msg, "role", where)
        if role not in roles:
            raise _invalid_value(f"{where}.role", role, roles)
        if role == "assistant" and msg.get("tool_calls"):
            for j, call in enumerate(msg["tool_calls"]):
                at = f"{where}.tool_calls[{j}]"
                _require(call, "id", at)
                fn = _require(call, "function", at)
                _require(fn, "name", f"{at}.function")
                args = _require(fn, "arguments", f"{at}.function")
                if not isinstance(args, str):
                    raise _wrong_type(f"{at}.function.arguments", "a string", args)
        elif role != "assistant" or not msg.get("function_call"):
            _require(msg, "content", where)
        if role == "tool":
            _require(msg, "tool_call_id", where)
    if strict:
        _check_chat_pairing(messages)
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise _wrong_type("tools", "an array", tools)
        for i, tool in enumerate(tools):
            where = f"tools[{i}]"
            if not isinstance(tool, dict):
                raise _wrong_type(where, "an object", tool)
            if _require(tool, "type", where) != "function" or not strict:
                continue
            fn = _require(tool, "function", where)
            if not isinstance(fn, dict):
                raise _wrong_type(f"{where}.function", "an object", fn)
            _check_tool_name(_require(fn, "name", f"{where}.function"), f"{where}.function.name")
            _check_parameters(fn.get("parameters"), f"{where}.function.parameters")


def _check_chat_pairing(messages: list[dict[str, Any]]) -> None:
    """Every assistant ``tool_calls`` id is answered by the ``tool`` messages right after it."""
    i = 0
    while i < len(messages):
        msg = messages[i]
        if msg["role"] == "tool":
            raise SimError(
                400,
                "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
                "'tool_calls'.",
                param=f"messages.[{i}].role",
            )
        ids = [c["id"] for c in msg.get("tool_calls") or []] if msg["role"] == "assistant" else []
        j = i + 1
        answered: set[str] = set()
        while ids and j < len(messages) and messages[j]["role"] == "tool":
            if messages[j]["tool_call_id"] not in ids:
                raise SimError(
                    400,
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
                    "'tool_calls'.",
                    param=f"messages.[{j}].role",
                )
            answered.add(messages[j]["tool_call_id"])
            j += 1
        missing = [x for x in ids if x not in answered]
        if missing:
            raise SimError(
                400,
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(missing)}",
                param=f"messages.[{i + 1}].role",
            )
        i = j if ids else i + 1
