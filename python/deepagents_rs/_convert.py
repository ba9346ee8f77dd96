"""Messages across the boundary: user inputs to the core's dicts, and back to objects."""

from __future__ import annotations

import uuid
from typing import Any

from . import _ai_fields, _compat, _core
from . import messages as light

_ROLE_TO_TYPE = {
    "user": "human",
    "human": "human",
    "assistant": "ai",
    "ai": "ai",
    "system": "system",
    "developer": "system",
    "tool": "tool",
}

_COMMON = ("content", "id", "name", "additional_kwargs", "response_metadata")
_BY_TYPE = {
    "human": _COMMON,
    "system": _COMMON,
    "ai": (*_COMMON, "tool_calls", "invalid_tool_calls", "usage_metadata"),
    "tool": (*_COMMON, "tool_call_id", "status", "artifact"),
}


def _object_to_dict(msg: Any) -> dict:
    mtype = msg.type
    if mtype in ("AIMessageChunk",):
        mtype = "ai"
    if mtype not in _BY_TYPE:
        raise ValueError(f"Unsupported message type {mtype!r}: {msg!r}")
    out = {"type": mtype}
    for field in _BY_TYPE[mtype]:
        value = getattr(msg, field, None)
        if field == "tool_calls" and value:
            value = [{"name": c["name"], "args": c["args"], "id": c.get("id"), "type": "tool_call"} for c in value]
        out[field] = value
    return out


def _dict_to_dict(d: dict) -> dict:
    kind = d.get("type") or d.get("role")
    mtype = _ROLE_TO_TYPE.get(kind) if isinstance(kind, str) else None
    if mtype is None:
        raise ValueError(f"Message dict needs a 'role' or 'type' (user, assistant, system, tool): {d!r}")
    if "content" not in d:
        raise ValueError(f"Message dict needs a 'content': {d!r}")
    out = {k: v for k, v in d.items() if k in _BY_TYPE[mtype]}
    out["type"] = mtype
    if mtype == "tool" and not out.get("tool_call_id"):
        raise ValueError(f"A tool message needs a 'tool_call_id': {d!r}")
    if mtype == "tool":
        out.setdefault("status", "success")
    return out


# What LangChain's coercion makes of a plain `{"role": ..., "content": "<str>"}` dict, built
# directly: the common input form, and a LangChain message object per input message is the
# main cost of a long history.
_PLAIN_ROLES = {"user": "human", "human": "human", "assistant": "ai", "ai": "ai", "system": "system"}
_PLAIN_EXTRA = {
    "human": {},
    "system": {},
    "ai": {"tool_calls": [], "invalid_tool_calls": [], "usage_metadata": None},
}


def _plain_type(msg: dict) -> str | None:
    """The core type of a plain ``{"role": ..., "content": "<str>"}`` dict, else None; the
    core's input reading applies the same rule."""
    role = msg.get("role")
    if len(msg) != 2 or not isinstance(msg.get("content"), str) or not isinstance(role, str):
        # A role that is not a string (unhashable, maybe) is LangChain's to refuse.
        return None
    return _PLAIN_ROLES.get(role)


def _plain_dict(msg: dict) -> dict | None:
    mtype = _plain_type(msg)
    if mtype is None:
        return None
    extra = _PLAIN_EXTRA[mtype]
    return {
        "type": mtype,
        "content": msg["content"],
        "id": None,
        "name": None,
        "additional_kwargs": {},
        "response_metadata": {},
        **{k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v) for k, v in extra.items()},
    }


def to_core(msg: Any) -> dict:
    """One input message (object, dict, ``(role, content)`` tuple or string) as a core dict."""
    if type(msg) is dict:
        plain = _plain_dict(msg)
        if plain is not None:
            return plain
    if isinstance(msg, light.BaseMessage) or _compat.is_lc_message(msg):
        return _object_to_dict(msg)
    if _compat.HAS_LANGCHAIN:
        # LangGraph coerces inputs with this very function; reuse it for identical results
        # (and its NotImplementedError for what is not a message).
        (converted,) = _compat.lc_messages.convert_to_messages([msg])
        return _object_to_dict(converted)
    if isinstance(msg, dict):
        return _dict_to_dict(msg)
    if isinstance(msg, str):
        return {"type": "human", "content": msg}
    if isinstance(msg, (tuple, list)) and len(msg) == 2:
        role, content = msg
        return _dict_to_dict({"role": role, "content": content})
    raise NotImplementedError(f"Unsupported message type: {type(msg)}")


def _ensure_object_id(msg: Any) -> None:
    """LangGraph's ``ensure_message_ids``: input message *objects* get a uuid4 id in place."""
    if _is_message_object(msg) and not msg.id:
        msg.id = str(uuid.uuid4())


def input_messages(value: Any) -> list[Any]:
    """An input's messages as the core reads them: core dicts, and plain dicts and message
    objects as given (the core keeps each object it reads: a message the run leaves as it was
    comes back as the caller's object, as LangGraph's channel holds it)."""
    # LangGraph's add_messages: anything but a list is one message (so `None` or a tuple is
    # coerced, or refused with LangChain's NotImplementedError, as one).
    if not isinstance(value, list):
        value = [value]
    if _core.all_plain_messages(value):
        # The common long history: one pass in the core instead of two calls per message (a
        # plain dict is no removal and is passed as it is below).
        return list(value)
    out = _read_input(value)
    # A removal or a repeated id: the input reduced first, which leaves neither.
    return out if out is not None else _read_input(_reduced_input(value)) or []


def _read_input(value: list) -> list[Any] | None:
    """The messages as the core reads them (see `input_messages`), or ``None`` when one is a
    removal or two name the same id (the reducer keeps the later one, in the earlier one's
    place): then the input is reduced first (`_reduced_input`). An id given to an object
    here is the one the reduction would give it."""
    ids = set()
    out = []
    for raw in value:
        if type(raw) is dict:
            if _plain_type(raw) is not None:
                # The core reads the common form itself and gives it its id
                # (`src/python/input_messages.rs`).
                out.append(raw)
                continue
            msg_id = raw.get("id")
        elif _is_message_object(raw):
            msg_id = raw.id
        else:
            msg_id = None
        if _is_removal(raw) or (isinstance(msg_id, str) and (msg_id in ids or ids.add(msg_id))):
            return None
        _ensure_object_id(raw)
        if _is_message_object(raw):
            # Read by the core (its fields, `src/python/input_objects.rs`), and kept.
            out.append(raw)
            continue
        msg = to_core(raw)
        # Dicts get an id too; tuples and strings do not (LangGraph's coercion, kept by
        # deepagents' reducer).
        if isinstance(raw, dict) and msg.get("id") is None:
            msg["id"] = str(uuid.uuid4())
        out.append(msg)
    return out


def _is_message_object(msg: Any) -> bool:
    return isinstance(msg, light.BaseMessage) or _compat.is_lc_message(msg)


def _is_removal(raw: Any) -> bool:
    """A ``RemoveMessage`` (object or ``{"type": "remove"}`` dict) in an input's messages."""
    if isinstance(raw, dict):
        return _compat.HAS_LANGCHAIN and raw.get("type") == "remove"
    return getattr(raw, "type", None) == "remove" and _compat.is_lc_message(raw)


def _reduced_input(value: list) -> list:
    """An input's messages as deepagents' messages reducer leaves them over an empty state:
    removals applied (an id the input does not hold is ignored), the rest in order. The run
    starts from these; a checkpointed thread reduces its input into its history itself."""
    from ._messages_reducer import merge

    for raw in value:
        _ensure_object_id(raw)
    converted = _compat.lc_messages.convert_to_messages(value)
    for raw, msg in zip(value, converted, strict=True):
        # Dicts get an id as they would outside a removal (see `input_messages`).
        if isinstance(raw, dict) and msg.id is None:
            msg.id = str(uuid.uuid4())
    return merge([], [converted])


_CLASSES: dict[str, type] = {}


def _classes() -> dict[str, type]:
    """The message classes by core type (LangChain's when installed), looked up once."""
    if not _CLASSES:
        _CLASSES.update(_find_classes())
    return _CLASSES


def _find_classes() -> dict[str, type]:
    if _compat.HAS_LANGCHAIN:
        m = _compat.lc_messages
        return {"human": m.HumanMessage, "system": m.SystemMessage, "ai": m.AIMessage, "tool": m.ToolMessage}
    return {
        "human": light.HumanMessage,
        "system": light.SystemMessage,
        "ai": light.AIMessage,
        "tool": light.ToolMessage,
    }


def from_core(d: dict) -> Any:
    """A core dict as a message object (LangChain's when installed)."""
    d = dict(d)
    cls = _classes()[d.pop("type")]
    if d.get("usage_metadata") is None:
        d.pop("usage_metadata", None)
    if d.get("name") is None:
        d.pop("name", None)
    made = _validated_as_given(cls, d)
    return made if made is not None else cls(**d)


#: Each plain message class's fields (in the order its validated ``__dict__`` holds them),
#: its ``type``, and whether it is ``AIMessage`` (the core reads this triple:
#: `src/python/result_objects.rs`).
_PLAIN_CLASSES: dict[type, tuple[tuple[str, ...], str, bool]] = {}


def _plain_class(cls: type) -> tuple[tuple[str, ...], str, bool] | None:
    """LangChain's own human, system, AI or tool message class (not a subclass), described."""
    known = _PLAIN_CLASSES.get(cls)
    if known is None:
        m = _compat.lc_messages
        if m is None or cls not in (m.HumanMessage, m.SystemMessage, m.AIMessage, m.ToolMessage):
            return None
        fields = cls.model_fields
        known = _PLAIN_CLASSES[cls] = (tuple(fields), fields["type"].default, cls is m.AIMessage)
    return known


def _validated_as_given(cls: type, d: dict) -> Any:
    """The message ``cls(**d)`` makes, without running its validation, when that validation
    would keep every value as given (or, for an AI message's tool calls, usage and block
    content, remake them as ``_ai_fields`` does): the message of a long history is made once
    per run, and validating its fields is most of that. ``None`` for anything validation
    could change or reject otherwise (a list content outside an AI or tool message, invalid
    tool calls, a tool call id or status validation would coerce, a value of another type, an
    unknown key)."""
    known = _plain_class(cls)
    if known is None or not d.keys() <= _KEYS[known[1]]:
        return None
    fields, kind, is_ai = known
    get = d.get
    extra = get("additional_kwargs", _NO_DICT)
    content = get("content")
    if type(content) is not str:
        if kind not in ("ai", "tool"):
            return None
        # ToolMessage's `coerce_args` copies a list, then validation its dicts, as for AI.
        content = _ai_fields.content(content)
    if content is None or type(extra) is not dict or type(get("response_metadata", _NO_DICT)) is not dict:
        return None
    if type(get("id")) not in _STR_OR_NONE or type(get("name")) not in _STR_OR_NONE:
        return None
    values = {"name": None, "id": None, **d, "content": content}
    if is_ai:
        # AIMessage's validator parses tool calls in additional_kwargs; invalid ones are
        # remade with their error texts: both left to its constructor.
        if get("invalid_tool_calls", []) != [] or "tool_calls" in extra:
            return None
        calls = get("tool_calls")
        if calls != []:
            calls = _ai_fields.tool_calls(calls)
            if calls is None:
                return None
            values["tool_calls"] = calls
        usage = get("usage_metadata")
        if usage is not None:
            usage = _ai_fields.usage(usage)
            if usage is None:
                return None
            values["usage_metadata"] = usage
    elif kind == "tool":
        # `coerce_args` turns a UUID or number id into a str, anything else fails validation:
        # both left to the constructor. The artifact (`Any`) is kept as given.
        status = get("status", "success")
        if type(get("tool_call_id")) is not str or type(status) is not str or status not in _STATUSES:
            return None
        values.setdefault("artifact", None)
        values.setdefault("status", "success")
    # Validation copies a dict field (not its values).
    values["additional_kwargs"] = dict(extra)
    values["response_metadata"] = dict(get("response_metadata", _NO_DICT))
    if is_ai:
        values.setdefault("tool_calls", [])
        values.setdefault("invalid_tool_calls", [])
        values.setdefault("usage_metadata", None)
    values["type"] = kind
    obj = cls.__new__(cls)
    # What pydantic's validation leaves: the fields in their order, the keys given as set.
    object.__setattr__(obj, "__dict__", {f: values[f] for f in fields})
    object.__setattr__(obj, "__pydantic_fields_set__", set(d))
    object.__setattr__(obj, "__pydantic_extra__", {})
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


_NO_DICT: dict = {}
_STR_OR_NONE = (str, type(None))
_AI_KEYS = frozenset({"tool_calls", "invalid_tool_calls", "usage_metadata"})
_TOOL_KEYS = frozenset({"tool_call_id", "status", "artifact"})
_PLAIN_KEYS = frozenset({"content", "id", "name", "additional_kwargs", "response_metadata"})
_STATUSES = ("success", "error")
#: The keys each kind of message may be given.
_KEYS = {
    "human": _PLAIN_KEYS,
    "system": _PLAIN_KEYS,
    "ai": _PLAIN_KEYS | _AI_KEYS,
    "tool": _PLAIN_KEYS | _TOOL_KEYS,
}


def system_to_core(system_prompt: Any) -> dict:
    """deepagents' rule: no prompt still sends an empty system message."""
    if system_prompt is None:
        return {"type": "system", "content": ""}
    if isinstance(system_prompt, str):
        return {"type": "system", "content": system_prompt}
    if getattr(system_prompt, "type", None) == "system":
        return _object_to_dict(system_prompt)
    raise TypeError(f"system_prompt must be a str or a SystemMessage, got {type(system_prompt).__name__}")


def invalid_input(input: Any) -> Exception:
    """What deepagents raises for a non-dict input: LangGraph's ``EmptyInputError`` for
    ``None``, else its ``InvalidUpdateError`` with the troubleshooting link (ValueError
    without LangGraph)."""
    try:
        from langgraph.errors import EmptyInputError, ErrorCode, InvalidUpdateError, create_error_message
    except ImportError:
        return ValueError(f"Expected dict, got {input}")
    if input is None:
        return EmptyInputError("Received no input for __start__")
    return InvalidUpdateError(
        create_error_message(
            message=f"Expected dict, got {input}", error_code=ErrorCode.INVALID_GRAPH_NODE_RETURN_VALUE
        )
    )


def is_ai_message(message: Any) -> bool:
    """An AI message object (LangChain's or ours), not a dict or tuple."""
    if isinstance(message, light.AIMessage):
        return True
    return _compat.lc_messages is not None and isinstance(message, _compat.lc_messages.AIMessage)
