"""``DeepAgent``: the agent ``create_deep_agent`` returns.

With LangGraph installed its class is a subclass of LangGraph's ``CompiledStateGraph``
(``_graph_face``), so this module loads LangGraph and LangChain: ``graph`` and the package
import it when the class is first needed (an agent is created, or ``DeepAgent`` is asked for).
"""

from __future__ import annotations

import contextvars
import copy
import functools
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any

from . import (
    _callbacks,
    _convert,
    _lockstep,
    _run_context,
    _runtime,
    _stream,
    _stream_modes,
    _stream_protocol,
    _task_channels,
)
from ._ambient_config import with_ambient
from ._assembly import StateKeys
from ._core import CoreAgent
from ._graph_face import IS_GRAPH, GraphBase, face_graph, split_copy_update, take_graph_attributes
from ._message_objects import MessageObjects
from ._output_keys import InvokeResult, OutputFilter, in_channel_order, output_keys_of
from ._run_options import _check_version, _graph_kwargs, _merge_configs, _versioned
from ._structured import make_response_format
from ._task_calls import CACHE_KEY, LOOP_KEY
from ._task_config import RunConfig
from ._thread_runs import ThreadRuns, _RootRun
from ._threads import StateSchemas
from ._tool_commands import STATE_KEYS_KEY, GraphKeys, last_value_keys
from ._version import __version__
from .graph import (
    _CONFIG_KEY_STORE,
    DEFAULT_RECURSION_LIMIT,
    SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY,
)

#: The keys of LangChain's ``RunnableConfig`` (``max_concurrency`` bounds a step's tool calls).
_CONFIG_KEYS = frozenset(
    {"tags", "metadata", "callbacks", "run_name", "max_concurrency", "recursion_limit", "configurable", "run_id"}
)


class DeepAgent(ThreadRuns, GraphBase):
    """A compiled deep agent. ``invoke``/``ainvoke`` take and return state dicts shaped like
    deepagents' (``{"messages": [...], "files": {...}}``). With LangGraph installed it is a
    ``CompiledStateGraph`` to the code around it (see ``_graph_face``), run by the core."""

    def __init__(
        self,
        core: CoreAgent,
        *,
        name: str | None,
        model: Any = None,
        defaults: dict | None = None,
        schema: StateKeys | None = None,
        store: Any = None,
        checkpointer: Any = None,
        state_schemas: Sequence[type] = (),
        subagent_schemas: dict[str, list[type]] | None = None,
        subagent_private: Iterable[str] = (),
        subagent_forks: Iterable[str] = (),
        thread: Any = None,
        interrupts: bool = False,
        graph_name: str | None = None,
        edges: list | None = None,
        face: Any = None,
        transformers: Sequence[Any] = (),
        context_schema: type | None = None,
        cache: Any = None,
        debug: bool = False,
    ) -> None:
        self._core = core
        self._agent_name = name
        self._store = store
        self.checkpointer = checkpointer
        self._state_schemas = state_schemas if isinstance(state_schemas, StateSchemas) else list(state_schemas)
        # The state schemas of the subagents the core runs, by name: their graphs' channels
        # when their runs are checkpointed as subgraphs of their tasks.
        self._subagent_schemas = dict(subagent_schemas or {})
        self._subagent_private = frozenset(subagent_private)
        self._subagent_forks = set(subagent_forks)
        self._interrupts = interrupts
        # The LangGraph graph that checkpoints runs (`_threads`), built on first use.
        self._thread_graph = thread
        self._model = model
        self._call_defaults = defaults or {}
        self._schema = schema or StateKeys()
        # LangGraph's name for an unnamed graph, as deepagents' graph has it.
        self.name = graph_name or name or ("LangGraph" if IS_GRAPH else None)
        self.config = {
            "recursion_limit": DEFAULT_RECURSION_LIMIT,
            "metadata": {
                "ls_integration": "deepagents",
                "lc_versions": {"deepagents": __version__},
                "lc_agent_name": name,
            },
            "configurable": {},
        }
        self._edges = edges or []
        self._context_schema = context_schema
        self._face = face
        # LangGraph's node cache, as deepagents compiles it in: only nodes with a cache policy
        # use it, and neither create_agent nor deepagents gives one, so no run reads it.
        self._cache = cache
        self._debug = bool(debug)
        self._state_key_sets: dict[tuple[Any, Any], frozenset[str]] | None = None
        if IS_GRAPH:
            self.store = store
            if self._face is None:
                self._face = face_graph(
                    core.node_names,
                    self._state_schemas,
                    self._edges,
                    core.tool_names,
                    self.name,
                    transformers,
                    context_schema,
                    core.registered_node_names,
                )
            take_graph_attributes(self, self._face)
            self.cache = cache
            self.debug = self._debug
        self._compile_with_saver()

    def _state_keys(self) -> dict[tuple[Any, Any], frozenset[str]]:
        """The state keys of deepagents' graphs (its schemas' fields, its graph's channels but
        LangGraph's own), the agent's and each subagent's the core runs, by the
        ``(ls_integration, lc_agent_name)`` their runs' metadata carry."""
        if self._state_key_sets is None:
            from typing import get_type_hints

            from ._reducers import reducers_of
            from ._stream import _SUBAGENT_INTEGRATION
            from ._threads import _state_schemas

            def keys(schemas: Any) -> GraphKeys:
                schema = _state_schemas(schemas)[0]
                return GraphKeys(get_type_hints(schema), last_value_keys(schema), reducers_of(schema))

            metadata = self.config["metadata"]
            sets = {(_SUBAGENT_INTEGRATION, name): keys(s) for name, s in self._subagent_schemas.items()}
            sets[(metadata["ls_integration"], metadata["lc_agent_name"])] = keys(self._state_schemas)
            self._state_key_sets = sets
        return self._state_key_sets

    def __repr__(self) -> str:
        return f"DeepAgent(name={self.name!r}, model={self._core.model_id!r}, tools={self._core.tool_names!r})"

    def _prepare(self, input: Any, config: dict | None, kwargs: dict) -> tuple[dict, int, dict, Any, Any]:
        """The core's arguments: state, recursion limit, the run config handed to tools and
        compiled subagents (as LangGraph hands it), a subagent response format, and the run's
        tracer (LangChain callbacks, LangSmith) when it is traced."""
        context = None
        if kwargs:
            # Without keywords (most runs) there is nothing to take out or check.
            context = kwargs.get("context")
            _graph_kwargs(kwargs)
        if not isinstance(input, dict):
            raise _convert.invalid_input(input)
        # LangChain keeps only the keys a RunnableConfig has (`ensure_config`).
        config = {k: v for k, v in _merge_configs(self._call_defaults, config or {}).items() if k in _CONFIG_KEYS}
        limit = config.get("recursion_limit", DEFAULT_RECURSION_LIMIT)
        # LangGraph's check, and its errors: a TypeError for what does not compare with an
        # int, this ValueError below 1. A float or a bool counts steps as LangGraph counts
        # them (step > limit).
        if limit < 1:
            raise ValueError("recursion_limit must be at least 1")
        limit = int(min(limit, 2**62))
        # Started inside one of our tasks (a compiled subagent's run): the run's carriers the
        # task kept out of its configurable come back.
        configurable = dict(_task_channels.with_own(config.get("configurable") or {}))
        # Without a checkpointer LangGraph ignores thread_id and checkpoint ids too; every
        # other key reaches tools (a `config: RunnableConfig` argument) and compiled subagents.
        # LangChain gives child runs neither the caller's run_id nor its run_name.
        # Callbacks reach tools and models through their node's run, as LangGraph hands them.
        # One object for the whole run: it carries the ids made for the run's tasks.
        run_config = RunConfig({k: v for k, v in config.items() if k not in ("run_id", "run_name", "callbacks")})
        if self._store is not None:
            # Carried to the tool runtime (`runtime.store`, `get_store()` in tools), where
            # LangGraph puts the graph's store; taken out of the config tools see.
            configurable[_CONFIG_KEY_STORE] = self._store
        if context is not None:
            # LangGraph's runtime, where tools, middleware and backends read `runtime.context`
            # (`get_runtime()` included); without a context the caller's (a parent graph's)
            # stays.
            configurable[_run_context.RUNTIME_KEY] = _run_context.runtime_with(
                configurable.get(_run_context.RUNTIME_KEY), self._context_schema, context
            )
        # LangGraph's graph cache, for the agent's functional-API task calls (`_task_calls`);
        # set even when None, so a compiled subagent does not use its caller's.
        configurable[CACHE_KEY] = self._cache
        # The loop an async run runs on, where a sync tool's thread runs an async task call.
        configurable[LOOP_KEY] = _runtime.running_loop()
        # The graph's own metadata, for the tasks' configs (not the caller's metadata: tools
        # and hooks of a subagent carry the subagent's).
        configurable[_stream.AGENT_METADATA_KEY] = self.config["metadata"]
        if self._face is not None:
            # What a tool's `Command` may write (`_tool_commands._declared_only`).
            configurable[STATE_KEYS_KEY] = self._state_keys()
        run_config.update(recursion_limit=limit, configurable=configurable)
        subagent_format = configurable.get(SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY)
        if subagent_format is not None:
            subagent_format = make_response_format(subagent_format, model=self._model, tools=[])
        state: dict[str, Any] = {"messages": _convert.input_messages(input.get("messages", []))}
        if input.get("files") is not None:
            state["files"] = input["files"]
        # Keys of the middleware's state schemas are input too, unless marked private or
        # omitted from input (LangGraph ignores them).
        for key in self._schema.input:
            if key in input:
                state[key] = input[key]
        reducers = getattr(self._schema, "reducers", None)
        if reducers is not None:
            # LangGraph writes the input through the channels: a key with a reducer starts at
            # its empty value, the input's value folded onto it.
            state.update(reducers.initial(state))
        tracer = None
        if _callbacks.tracing_enabled(config):
            tracer = _callbacks.RunTracer(
                config,
                metadata={**self.config["metadata"], **(config.get("metadata") or {})},
                root_input=input,
                result=self._result,
            )
            tracer.run = run_config
        return state, limit, run_config, subagent_format, tracer

    def _result(self, raw: dict, objects: MessageObjects | None = None) -> dict:
        """The result of a run whose state is ``raw`` (its messages made objects, or taken from
        the run's ``objects``)."""
        return self._output(raw, _objects_of(raw["messages"], objects))

    def _output(self, raw: dict, messages: list[Any]) -> dict:
        """The result of a run whose state is ``raw``, its messages as ``messages`` (objects)."""
        out = {"messages": messages}
        omit = self._schema.omit_output
        for key, value in raw.items():
            if key != "messages" and key not in omit:
                out[key] = value
        return in_channel_order(out, self._schema.order, self._schema.ordered)

    def _stream_values(self, raw: dict, objects: MessageObjects | None = None) -> dict:
        """The root's state as its ``values`` stream shows it: LangGraph streams every written
        channel there, the middleware's private keys (``hitl_edited_tool_calls``, ...)
        included."""
        hidden = self._schema.unstreamed
        out = {"messages": _objects_of(raw["messages"], objects)}
        for key, value in raw.items():
            if key != "messages" and key not in hidden:
                out[key] = value
        for key, empty in self._schema.stream_defaults.items():
            out.setdefault(key, copy.deepcopy(empty))
        return in_channel_order(out, self._schema.order, self._schema.ordered)

    def _fail(self, exc: BaseException) -> None:
        """An exception out of a run carries the state as it was when the run failed (every
        completed step) in ``exc.partial_state``, in the same shape as a result."""
        raw = getattr(exc, "partial_state", None)
        if isinstance(raw, dict) and "messages" in raw:
            exc.partial_state = self._result(raw)

    def invoke(self, input: dict, config: dict | None = None, *, version: str = "v1", **kwargs: Any) -> Any:
        """Run the agent to completion. The GIL is released while Rust works.

        A failing run raises what deepagents raises (a tool's own exception, for instance);
        the state up to the failure is on the exception's ``partial_state``. With
        ``version="v2"`` the result is LangGraph's ``GraphOutput(value, interrupts)``.
        """
        _check_version(version)
        config = with_ambient(config, self.config, self._call_defaults)
        collect = self._invoke_by_stream(kwargs, version)
        if collect is not None:
            for chunk in self.stream(input, config, stream_mode=collect.modes, version=version, **kwargs):
                collect.add(chunk)
            return collect.result()
        if self._debug or kwargs.get("debug") or kwargs.get("print_mode"):
            # What LangGraph prints comes from its stream: the run streams its values.
            values = [c for c in self.stream(input, config, stream_mode="values", **kwargs)]
            return _versioned(values[-1] if values else {}, version)
        if self._through_graph(None, kwargs, config):
            return self._thread_invoke(input, config, version, kwargs)
        state, limit, run_config, subagent_format, tracer = self._prepare(input, config, kwargs)
        token = _runtime.enter_blocking_invoke()
        try:
            raw = self._core.invoke(state, limit, run_config, subagent_format, tracer)
        except Exception as exc:
            self._fail(exc)
            raise
        finally:
            _runtime.exit_blocking_invoke(token)
        return _versioned(self._output(raw, raw["messages"]), version)

    async def ainvoke(self, input: dict, config: dict | None = None, *, version: str = "v1", **kwargs: Any) -> Any:
        """Run the agent to completion on the running event loop."""
        _check_version(version)
        config = with_ambient(config, self.config, self._call_defaults)
        collect = self._invoke_by_stream(kwargs, version)
        if collect is not None:
            async for chunk in self.astream(input, config, stream_mode=collect.modes, version=version, **kwargs):
                collect.add(chunk)
            return collect.result()
        if self._debug or kwargs.get("debug") or kwargs.get("print_mode"):
            values = [c async for c in self.astream(input, config, stream_mode="values", **kwargs)]
            return _versioned(values[-1] if values else {}, version)
        if self._through_graph(None, kwargs, config):
            return await self._thread_ainvoke(input, config, version, kwargs)
        state, limit, run_config, subagent_format, tracer = self._prepare(input, config, kwargs)
        try:
            raw = await self._core.ainvoke(state, limit, run_config, subagent_format, tracer)
        except Exception as exc:
            self._fail(exc)
            raise
        return _versioned(self._output(raw, raw["messages"]), version)

    def _invoke_by_stream(self, kwargs: dict, version: str) -> InvokeResult | None:
        """``invoke`` as LangGraph builds it on the stream (taking ``stream_mode`` out of
        ``kwargs``), for a stream mode other than values or output keys other than the
        graph's; ``None`` for the plain run."""
        if not kwargs:
            # Neither a stream mode nor output keys: the plain run, without a copy of nothing.
            return None
        stream_mode = kwargs.pop("stream_mode", "values")
        keys = output_keys_of(dict(kwargs), getattr(self, "channels", None), getattr(self, "output_channels", None))
        if stream_mode == "values" and keys is None:
            return None
        return InvokeResult(stream_mode, version)

    def batch(
        self,
        inputs: list[dict],
        config: dict | list[dict] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """``invoke`` on each input, concurrently (the GIL is released while each runs). With
        ``return_exceptions``, a failed input's exception takes its place in the list."""
        from concurrent.futures import ThreadPoolExecutor

        configs = config if isinstance(config, list) else [config] * len(inputs)
        if len(configs) != len(inputs):
            raise ValueError("batch: give one config, or one per input")
        with ThreadPoolExecutor(max_workers=max(1, min(len(inputs), 8))) as pool:
            # Each call in a copy of the caller's context, as LangChain's batch runs them.
            futures = [
                pool.submit(contextvars.copy_context().run, self.invoke, i, c, **kwargs)
                for i, c in zip(inputs, configs)
            ]
            if not return_exceptions:
                return [f.result() for f in futures]
            return [f.exception() or f.result() for f in futures]

    async def abatch(
        self,
        inputs: list[dict],
        config: dict | list[dict] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """``ainvoke`` on each input, concurrently."""
        import asyncio

        configs = config if isinstance(config, list) else [config] * len(inputs)
        if len(configs) != len(inputs):
            raise ValueError("abatch: give one config, or one per input")
        calls = (self.ainvoke(i, c, **kwargs) for i, c in zip(inputs, configs))
        return list(await asyncio.gather(*calls, return_exceptions=return_exceptions))

    #: deepagents' graph streams updates when no mode is given.
    stream_mode = "updates"

    def _stream_setup(
        self, input: Any, config: dict | None, stream_mode: Any, subgraphs: bool, version: str, kwargs: dict
    ) -> tuple[tuple, _stream.Shaper]:
        kwargs = dict(kwargs)
        context = kwargs.pop("context", None)
        printed = _stream_modes.print_modes(kwargs, self._debug)
        keys = output_keys_of(kwargs, getattr(self, "channels", None), getattr(self, "output_channels", None))
        _graph_kwargs(kwargs)
        modes, single = _stream_modes.normalize_modes(stream_mode, self.stream_mode)
        state, limit, run_config, subagent_format, tracer = self._prepare(input, config, {"context": context})
        merged = _merge_configs(self._call_defaults, config or {})
        shaper = self._shaper(modes, single, subgraphs, version, merged)
        shaper.print_modes = printed
        shaper.tracer = tracer
        protocol = _stream_protocol.wants_protocol_events(merged, version)
        shaper.follow_tools(protocol)
        if tracer is not None:
            tracer.open_root(self.name)
            if "updates" in modes and _lockstep.listens(merged.get("callbacks")):
                tracer.lockstep = _lockstep.Lockstep()
        core_modes = _stream_modes.core_modes(modes, printed, protocol, bool(subgraphs))
        if keys is not None:
            # The updates tell which channels each step wrote.
            shaper.output = OutputFilter(keys, input)
            core_modes = list(dict.fromkeys([*core_modes, "updates"]))
        return (state, limit, core_modes, bool(subgraphs), run_config, subagent_format, tracer), shaper

    def _shaper(self, modes: list[str], single: bool, subgraphs: bool, version: str, config: dict) -> _stream.Shaper:
        shaper = _stream.Shaper(
            modes,
            single,
            bool(subgraphs),
            version,
            metadata={**self.config["metadata"], **(config.get("metadata") or {})},
            tags=config.get("tags"),
            result=self._result,
        )
        shaper.subgraph_private = self._subagent_private
        # The root's state shown again and again (each `values` chunk, the result) reuses its
        # message objects, as LangGraph shows its channel's.
        objects = shaper.message_objects
        shaper.root_result = functools.partial(self._result, objects=objects)
        shaper.root_values = functools.partial(self._stream_values, objects=objects)
        return shaper

    def stream(
        self,
        input: Any,
        config: dict | None = None,
        *,
        stream_mode: Any = None,
        subgraphs: bool = False,
        version: str = "v1",
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Run the agent, yielding LangGraph's chunks for ``stream_mode`` (``"updates"`` by
        default; ``"values"``, ``"messages"``, ``"custom"`` or a list of them), with
        subagents' chunks under ``("tools:<id>",)`` when ``subgraphs=True`` and
        ``{"type", "ns", "data"}`` parts when ``version="v2"``. Model tokens are streamed from
        the provider only when ``"messages"`` is asked for."""
        config = with_ambient(config, self.config, self._call_defaults)
        protocol = _stream_protocol.wants_protocol_events(config, version)
        if self._through_graph(stream_mode, kwargs, config, protocol):
            yield from self._thread_stream(input, config, stream_mode, subgraphs, version, kwargs)
            return
        args, shaper = self._stream_setup(input, config, stream_mode, subgraphs, version, kwargs)
        token = _runtime.enter_blocking_invoke()
        try:
            events = _stream_protocol.start_run(shaper.protocol, self._core.stream, *args, streamed=shaper.streamed())
        finally:
            _runtime.exit_blocking_invoke(token)
        step = _StepTaken(shaper)
        try:
            with _RootRun(shaper, self._fail):
                try:
                    for item in events:
                        yield from shaper.chunks(item)
                        step.after(item)
                except Exception as exc:
                    yield from shaper.failed(exc)
                    raise
        finally:
            step.close()
            events.close()

    async def astream(
        self,
        input: Any,
        config: dict | None = None,
        *,
        stream_mode: Any = None,
        subgraphs: bool = False,
        version: str = "v1",
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """``stream`` on the running event loop."""
        config = with_ambient(config, self.config, self._call_defaults)
        protocol = _stream_protocol.wants_protocol_events(config, version)
        if self._through_graph(stream_mode, kwargs, config, protocol):
            async for chunk in self._thread_astream(input, config, stream_mode, subgraphs, version, kwargs):
                yield chunk
            return
        args, shaper = self._stream_setup(input, config, stream_mode, subgraphs, version, kwargs)
        events = _stream_protocol.start_run(shaper.protocol, self._core.astream, *args, streamed=shaper.streamed())
        step = _StepTaken(shaper)
        try:
            with _RootRun(shaper, self._fail):
                try:
                    async for item in events:
                        for chunk in shaper.chunks(item):
                            yield chunk
                        step.after(item)
                except Exception as exc:
                    for chunk in shaper.failed(exc):
                        yield chunk
                    raise
        finally:
            step.close()
            await events.aclose()

    def stream_events(self, input: Any, config: dict | None = None, *, version: str = "v2", **kwargs: Any) -> Any:
        """LangGraph's ``stream_events``: ``version="v2"`` is LangChain's event stream over
        the core's callbacks; ``version="v3"`` is LangGraph's run stream, its projections
        built by LangGraph's transformers from this agent's ``stream`` (`_stream_protocol`)."""
        return super().stream_events(input, config, version=version, **kwargs)

    def astream_events(self, input: Any, config: dict | None = None, *, version: str = "v2", **kwargs: Any) -> Any:
        """``stream_events`` on the running event loop."""
        return super().astream_events(input, config, version=version, **kwargs)

    def with_config(self, config: dict | None = None, **kwargs: Any) -> DeepAgent:
        """This agent with ``config`` merged under every call's own config, as LangChain's
        ``Runnable.with_config`` does (``configurable``, ``metadata`` merged; lists joined)."""
        return self._rebuilt(defaults=_merge_configs(self._call_defaults, {**(config or {}), **kwargs}))

    def copy(self, update: dict[str, Any] | None = None) -> DeepAgent:
        """LangGraph's ``Pregel.copy``: the same agent with ``update``'s attributes (LangGraph's
        server gives each run its saver and store this way)."""
        rebuild, rest = split_copy_update(update)
        agent = self._rebuilt(
            checkpointer=rebuild.get("checkpointer", self.checkpointer),
            store=rebuild.get("store", self._store),
            name=rebuild.get("name", self.name),
        )
        if "config" in rebuild:
            agent.config = rebuild["config"]
        if "cache" in rebuild:
            agent.cache = agent._cache = rebuild["cache"]
        for key, value in rest.items():
            setattr(agent, key, value)
        return agent

    def _rebuilt(self, **changes: Any) -> DeepAgent:
        """A new agent on the same core with ``changes`` (``defaults``, ``checkpointer``,
        ``store``, ``name``); the thread graph is shared while saver and name are."""
        checkpointer = changes.get("checkpointer", self.checkpointer)
        graph_name = changes.get("name", self.name)
        shared = checkpointer is self.checkpointer and graph_name == self.name
        agent = DeepAgent(
            self._core,
            name=self._agent_name,
            graph_name=graph_name,
            model=self._model,
            defaults=changes.get("defaults", self._call_defaults),
            schema=self._schema,
            store=changes.get("store", self._store),
            checkpointer=checkpointer,
            state_schemas=self._state_schemas,
            subagent_schemas=self._subagent_schemas,
            subagent_private=self._subagent_private,
            subagent_forks=self._subagent_forks,
            thread=self._thread_graph if shared else None,
            interrupts=self._interrupts,
            edges=self._edges,
            face=self._face,
            context_schema=self._context_schema,
            cache=self._cache,
            debug=self._debug,
        )
        agent.config = self.config
        return agent


def _objects_of(raw: list[dict], objects: MessageObjects | None) -> list[Any]:
    if objects is None:
        return [_convert.from_core(m) for m in raw]
    return objects.convert(raw)


class _StepTaken:
    """Tells the core's tracer when the caller has taken a node's update (``_lockstep``)."""

    def __init__(self, shaper: _stream.Shaper) -> None:
        tracer = getattr(shaper, "tracer", None)
        self.lockstep = getattr(tracer, "lockstep", None)

    def after(self, item: tuple) -> None:
        if self.lockstep is not None and item[0] == "updates" and not item[1]:
            self.lockstep.taken()

    def close(self) -> None:
        if self.lockstep is not None:
            self.lockstep.close()


__all__ = ["DeepAgent"]
