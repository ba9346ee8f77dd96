"""The hooks of `MemoryMiddleware` and `SkillsMiddleware` outside a deepagents_rs agent: the
core's entry (`_core.EntryCall`) loads through the backend and writes the system-prompt
section; this module only converts LangChain's state, `ModelRequest` and handler to what
the entry takes (as `_summarization_call` does for summarization)."""

from __future__ import annotations

from typing import Any

from .. import _convert
from ._summarization_call import _core_request, _Responder, _result, _runtime_config


def entry(face: Any, runtime: Any, variant: str = "", **overrides: Any) -> Any:
    """The core entry of `face` for the runtime's store (its configuration with `overrides`,
    kept under `variant`), made when first needed and kept on the face."""
    store = getattr(runtime, "store", None)
    made = face.__dict__.setdefault("_entry_calls", {})
    kept = made.get(variant)
    if kept is None or kept[0] is not store:
        from .._core import EntryCall

        kept = made[variant] = (store, EntryCall({**face._core_config(store), **overrides}))
    return kept[1]


def _hook_state(state: Any) -> dict[str, Any]:
    state = dict(state or {})
    if "messages" in state:
        state["messages"] = [_convert.to_core(m) for m in state["messages"]]
    return state


def _config(config: Any, runtime: Any) -> Any:
    if isinstance(config, dict) and config:
        return config
    return _runtime_config(runtime)


def before_agent(face: Any, state: Any, runtime: Any, config: Any) -> Any:
    """The entry's `before_agent`: the state keys it writes, or None."""
    return entry(face, runtime).hook("before_agent", _hook_state(state), False, _config(config, runtime))


async def abefore_agent(face: Any, state: Any, runtime: Any, config: Any) -> Any:
    """`before_agent` under `ainvoke`."""
    return await entry(face, runtime).hook("before_agent", _hook_state(state), True, _config(config, runtime))


def _pin_update(update: Any) -> Any:
    """The `before_model` writes as deepagents returns them: `pinned_skills` cleared with
    `Overwrite` (past its reducer), the pinned messages as LangChain messages without an id
    (the graph's reducer gives them one, as it gives deepagents')."""
    if update is None:
        return None
    from langgraph.types import Overwrite

    out: dict[str, Any] = {}
    for key, value in update.items():
        if key == "messages":
            messages = [_convert.from_core(m) for m in value]
            for m in messages:
                m.id = None
            out[key] = messages
        else:
            out[key] = Overwrite(value) if key == "pinned_skills" else value
    return out


def before_model(face: Any, state: Any, runtime: Any) -> Any:
    """The entry's `before_model` (skills' pinning): the state writes, or None."""
    return _pin_update(entry(face, runtime).hook("before_model", _hook_state(state), False, _runtime_config(runtime)))


async def abefore_model(face: Any, state: Any, runtime: Any) -> Any:
    """`before_model` under `ainvoke`."""
    update = await entry(face, runtime).hook("before_model", _hook_state(state), True, _runtime_config(runtime))
    return _pin_update(update)


def _request(request: Any, state_keys: tuple[str, ...]) -> tuple[dict, list[Any], Any]:
    """The request as the entry takes it, its messages, and its model as the core takes one."""
    from .._assembly import _core_model
    from .._models import ModelAdapter

    raw, messages = _core_request(request, state_keys)
    if request.model is None:
        # A request built by hand, without a model (deepagents' hooks never look at it):
        # the entry passes the request on to the handler, which gets it as it came.
        return raw, messages, ModelAdapter(None, {})
    return raw, messages, _core_model(request.model, [])


def wrap(face: Any, request: Any, handler: Any, state_keys: tuple[str, ...], call: Any = None) -> Any:
    """The entry (`call`, else the face's) around `handler`: the handler's response (with the
    entry's state writes)."""
    runtime = getattr(request, "runtime", None)
    raw, messages, model = _request(request, state_keys)
    call, tool_of = call or (entry(face, runtime), None)
    responder = _Responder(request, handler, messages, tool_of)
    outcome = call.run(raw, model, responder, False, _runtime_config(runtime))
    return _result(outcome, responder)


async def awrap(face: Any, request: Any, handler: Any, state_keys: tuple[str, ...], call: Any = None) -> Any:
    """`wrap` with an async `handler`."""
    runtime = getattr(request, "runtime", None)
    raw, messages, model = _request(request, state_keys)
    call, tool_of = call or (entry(face, runtime), None)
    responder = _Responder(request, handler, messages, tool_of)
    outcome = await call.run(raw, model, responder, True, _runtime_config(runtime))
    return _result(outcome, responder)


def modify_request(face: Any, request: Any, state_keys: tuple[str, ...], **overrides: Any) -> Any:
    """The request as the entry (configured with `overrides`) passes it on to the model, its
    system message and messages only (its state writes left out)."""
    runtime = getattr(request, "runtime", None)
    raw, messages, model = _request(request, state_keys)
    responder = _Responder(request, lambda modified: modified, messages)
    entry(face, runtime, "modify" if overrides else "", **overrides).run(
        raw, model, responder, False, _runtime_config(runtime)
    )
    return responder.response
