"""What the Python faces of the core's own middleware entries (memory, skills, the compact
tool) share: they hold a configuration, named as deepagents names the middleware, and
hand it to the core (`_core_config`, read by `deepagents_rs._middleware.core_entries`).

deepagents' classes are LangChain `AgentMiddleware`s, usable in LangChain's own
`create_agent` and callable directly. `import deepagents_rs` must load no LangChain, so
`CoreEntryFace` takes `AgentMiddleware` as a base only when the first face is made (and
LangChain is installed): from then on every face is one."""

from __future__ import annotations

from typing import Any


class _Root:
    """`CoreEntryFace`'s base until LangChain's `AgentMiddleware` joins it (a class of its own:
    Python only lets a class whose base is not `object` take a new base)."""


def _join_langchain() -> None:
    """`AgentMiddleware` as a base of every face, once (nothing without LangChain)."""
    if len(CoreEntryFace.__bases__) > 1:
        return
    try:
        from langchain.agents.middleware.types import AgentMiddleware
    except ImportError:  # without LangChain the faces only configure the core's entries
        return
    CoreEntryFace.__bases__ = (_Root, AgentMiddleware)


class TracePolicyOnFirstUse:
    """deepagents' `trace_policy` (hook inputs left out of traces), made on first use: it is
    LangChain's type."""

    def __get__(self, instance: object, owner: type) -> Any:
        from langchain.agents.middleware.types import TracePolicy, omit_payload

        policy = TracePolicy(process_inputs=omit_payload)
        owner.trace_policy = policy  # type: ignore[attr-defined]
        return policy


_SHAPES: dict[tuple[str, ...], Any] = {}


def _shape(order: tuple[str, ...]) -> Any:
    """A class generic in LangChain's type variables named by `order` (with their defaults),
    whose subscription checks and completes the type arguments a face is given."""
    if order not in _SHAPES:
        import types
        from typing import Generic

        from langchain.agents.middleware import types as middleware_types

        params = tuple(getattr(middleware_types, name) for name in order)
        _SHAPES[order] = types.new_class("_Shape", (Generic[params],))  # type: ignore[index]
    return _SHAPES[order]


class TakesContextAndResponseTypes:
    """A middleware deepagents makes generic in the run's context and response types:
    `MemoryMiddleware[Ctx, Resp]` is a typing alias, and calling it makes the middleware."""

    #: The type variables in deepagents' order for the class.
    _type_parameters: tuple[str, ...] = ("ContextT", "ResponseT")

    def __class_getitem__(cls, params: Any) -> Any:
        import typing

        shape = _shape(cls._type_parameters)
        try:
            args = shape[params].__args__
        except TypeError as e:
            raise TypeError(str(e).replace(str(shape), str(cls))) from None
        return typing._GenericAlias(cls, args)  # type: ignore[attr-defined]


class CoreEntryFace(_Root):
    """A middleware whose work the core does; the tools it offers are the core's too."""

    tools: list[Any]

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        _join_langchain()
        return super().__new__(cls)

    @property
    def name(self) -> str:
        """The middleware's name in the agent's stack."""
        return type(self).__name__

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        """The configuration the core builds the entry from (`{"kind": ..., ...}`)."""
        raise NotImplementedError  # pragma: no cover - every face defines it
