"""`deepagents.middleware.summarization`'s public face.

Summarization runs in the Rust core (`src/summarization/`). `SummarizationMiddleware` here
checks its arguments as deepagents (and LangChain under it) does and hands the core its
settings; `create_deep_agent` builds the default one itself, and a user's own, in
`middleware=[...]`, takes its place.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from functools import cache
from typing import Any, TypedDict

from pydantic import BaseModel

from .._core import SUMMARY_PROMPT_HEAD, SUMMARY_PROMPT_TAIL
from ._compact_flow import CompactSteps
from ._core_face import CoreEntryFace
from ._summarization_steps import (
    SummarizationSteps,
    logger,  # noqa: F401 - deepagents' module logger
)

try:
    from langchain_core.messages.utils import count_tokens_approximately
except ImportError:  # deepagents_rs runs without LangChain; the default counter is the core's
    count_tokens_approximately = None  # type: ignore[assignment]

try:
    # A LangChain `AgentMiddleware`, as deepagents' is: usable in LangChain's own
    # `create_agent` and callable directly. This module is only imported when its names
    # are first asked for, so `import deepagents_rs` still loads no LangChain.
    from langchain.agents.middleware.types import AgentMiddleware as _Base
    from langchain.agents.middleware.types import TracePolicy, omit_payload

    #: deepagents' trace policy for both middleware: hook inputs left out of traces.
    _TRACE_POLICY: Any = TracePolicy(process_inputs=omit_payload)
except ImportError:  # without LangChain the faces only configure the core's entries
    _Base = object  # type: ignore[assignment,misc]
    _TRACE_POLICY = None

__all__ = [
    "DEEPAGENTS_DEFAULT_SUMMARY_PROMPT",
    "SummarizationEvent",
    "SummarizationMiddleware",
    "SummarizationToolMiddleware",
    "TruncateArgsSettings",
    "compute_summarization_defaults",
    "create_summarization_middleware",
    "create_summarization_tool_middleware",
]


def _template(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


#: The summary prompt, a `str.format` template with a `{messages}` slot.
DEEPAGENTS_DEFAULT_SUMMARY_PROMPT = _template(SUMMARY_PROMPT_HEAD) + "{messages}" + _template(SUMMARY_PROMPT_TAIL)


class CompactConversationSchema(BaseModel):
    """The `compact_conversation` tool's arguments: none."""


class TriggerClause(TypedDict, total=False):
    """A trigger whose every threshold given must be reached: `tokens` and `messages` as
    counts, `fraction` of the model's context window."""

    tokens: int
    messages: int
    fraction: float


SUMMARIZATION_EVENT_KEY = "_summarization_event"
SUMMARIZATION_SESSION_ID_KEY = "_summarization_session_id"

_DEFAULT_KEEP = ("messages", 20)
_DEFAULT_TRIM = 4000
_METRICS = ("tokens", "messages", "fraction")


class SummarizationEvent(TypedDict, total=False):
    """Where the summarized part of the conversation ends, and its summary."""

    cutoff_index: int
    summary_message: Any
    file_path: str | None
    created_at_index: int


class TruncateArgsSettings(TypedDict, total=False):
    """When and how old `write_file`/`edit_file` arguments are cut in requests."""

    trigger: tuple[str, float] | None
    keep: tuple[str, float]
    max_length: int
    truncation_text: str


def _check_size(size: Any, parameter: str) -> tuple[str, float]:
    """LangChain's `_validate_context_size`."""
    kind, value = size
    if kind == "fraction":
        if not 0 < value <= 1:
            raise ValueError(f"Fractional {parameter} values must be between 0 and 1, got {value}.")
    elif kind in ("tokens", "messages"):
        if value <= 0:
            raise ValueError(f"{parameter} thresholds must be greater than 0, got {value}.")
    else:
        raise ValueError(f"Unsupported context size type {kind} for {parameter}.")
    return kind, value


def _clause(mapping: Mapping[str, Any]) -> list[tuple[str, float]]:
    """A dict trigger clause (all its thresholds must be met), checked as LangChain checks it."""
    if not mapping:
        raise ValueError("trigger clause must specify at least one of 'tokens', 'messages', 'fraction'")
    out = []
    for kind, value in mapping.items():
        if kind not in _METRICS:
            raise ValueError(f"Unsupported trigger metric: {kind!r}")
        if isinstance(value, bool):
            # LangChain keeps every trigger error a ValueError, this one too.
            raise ValueError(f"{kind} trigger value must be numeric, got {value!r}")  # noqa: TRY004
        if kind == "fraction":
            if not isinstance(value, (int, float)):
                raise ValueError(f"Fraction trigger values must be numeric, got {value!r}")
        elif not isinstance(value, int):
            raise ValueError(f"{kind} trigger values must be integers, got {value!r}")
        out.append(_check_size((kind, value), "trigger"))
    return out


def _clauses(trigger: Any) -> list[list[tuple[str, float]]]:
    """A trigger as clauses: any clause fires it (a list), all of a clause's thresholds
    must be met (a dict); a tuple is one threshold."""
    if trigger is None:
        return []
    if isinstance(trigger, Mapping):
        return [_clause(trigger)]
    if isinstance(trigger, tuple):
        return [[_check_size(trigger, "trigger")]]
    if isinstance(trigger, list):
        out = []
        for item in trigger:
            if isinstance(item, Mapping):
                out.append(_clause(item))
            elif isinstance(item, tuple):
                out.append([_check_size(item, "trigger")])
            else:
                raise TypeError(f"Unsupported trigger item type: {type(item)}")
        return out
    raise TypeError(f"Unsupported trigger type: {type(trigger)}")


@cache
def _summarization_state() -> type | None:
    """deepagents' `SummarizationState` (None without LangChain)."""
    try:
        from ._summarization_state import SummarizationState
    except ImportError:
        return None
    return SummarizationState


class _StateSchema:
    """A class attribute made when first read: deepagents' `SummarizationState` needs
    LangChain."""

    def __get__(self, obj: Any, owner: type) -> type | None:
        return _summarization_state()


def _token_counter_accepts_tools(counter: Any) -> bool | None:
    """Whether `counter` is handed the request's tools (`tools=`) when the whole request is
    counted: `None` when its signature cannot be read (the count then tries)."""
    from .._summarization import _takes_tools

    return _takes_tools(counter)


def _upload_response_error(responses: list[Any]) -> str | None:
    """The error of a one-file upload (`upload_files`' answers), as the core reads it when
    it offloads inline media."""
    from .._core import upload_response_error

    return upload_response_error([None if r.error is None else str(r.error) for r in responses])


def _resolve(model: Any) -> Any:
    """A model string as deepagents resolves it; a model object as it is."""
    if isinstance(model, str):
        from .._model_spec import init_langchain_model, resolve_model_spec

        _, _, kwargs = resolve_model_spec(model)
        return init_langchain_model(model, kwargs)
    return model


def _profile_limit(model: Any) -> int | None:
    profile = getattr(model, "profile", None)
    limit = profile.get("max_input_tokens") if isinstance(profile, Mapping) else None
    return limit if isinstance(limit, int) and not isinstance(limit, bool) else None


def compute_summarization_defaults(model: Any) -> dict[str, Any]:
    """Default trigger, keep and argument-truncation settings for `model`: fractions of its
    profile's `max_input_tokens` when it has one, fixed counts otherwise."""
    if _profile_limit(model) is not None:
        return {
            "trigger": ("fraction", 0.85),
            "keep": ("fraction", 0.10),
            "truncate_args_settings": {"trigger": ("fraction", 0.85), "keep": ("fraction", 0.10)},
        }
    return {
        "trigger": ("tokens", 170000),
        "keep": ("messages", 6),
        "truncate_args_settings": {"trigger": ("messages", 20), "keep": ("messages", 20)},
    }


class _DeepAgentsSummarizationMiddleware(SummarizationSteps, _Base):  # type: ignore[misc,valid-type]
    """Summarizes the older part of a long conversation and keeps it on the backend.

    When a trigger is met (or the provider says the prompt is too long), the messages
    before the kept part are appended to `/conversation_history/<session>.md` on `backend`,
    summarized by the model, and the model is called on the summary and the kept messages.
    The state keeps the raw history; the summary stands in for it on every later call.

    Args:
        model: The model whose context is managed (a model string or a chat model); it
            writes the summaries unless `summarizer` is given.
        backend: Where the summarized history is kept.
        trigger: When to summarize: a `(kind, value)` tuple (`"tokens"`, `"messages"` or
            `"fraction"` of the profile's `max_input_tokens`), a dict of thresholds that
            must all be met, or a list of either (any fires). `None` never summarizes on
            its own.
        keep: How much recent context to keep, as a `(kind, value)` tuple.
        token_counter: What measures the conversation in tokens: LangChain's
            `count_tokens_approximately` (the core's own, tuned to the model), or a function
            of a list of messages; one that takes `tools=` is also handed the request's
            tools when the whole request is counted.
        summary_prompt: The summary prompt, with a `{messages}` slot.
        trim_tokens_to_summarize: The token budget of the older history sent to be
            summarized (its newest part); `None` sends all of it.
        truncate_args_settings: When and how to cut long `write_file`/`edit_file`
            arguments of old messages in requests; `None` never.
        summarizer: A chat model (or model string) writing the summaries in place of
            `model`, or a function or runnable handed the messages to summarize that
            returns the summary text (`summary_prompt` is then not used).

    Raises:
        TypeError: For the removed `history_path_prefix` argument, an unknown argument, or
            a trigger of an unsupported type.
        ValueError: For an invalid trigger or keep, or a fraction without a model profile.
    """

    serialized_name = "SummarizationMiddleware"
    trace_policy = _TRACE_POLICY
    state_schema = _StateSchema()
    """deepagents' `SummarizationState` (the private event and session id keys)."""

    def __init__(
        self,
        model: Any,
        *,
        backend: Any,
        trigger: Any = None,
        keep: Any = _DEFAULT_KEEP,
        token_counter: Any = count_tokens_approximately,
        summary_prompt: str = DEEPAGENTS_DEFAULT_SUMMARY_PROMPT,
        trim_tokens_to_summarize: int | None = _DEFAULT_TRIM,
        truncate_args_settings: TruncateArgsSettings | None = None,
        summarizer: Any = None,
        **deprecated_kwargs: Any,
    ) -> None:
        """Check the settings as deepagents and LangChain check them, and keep them."""
        if "history_path_prefix" in deprecated_kwargs:
            raise TypeError(
                "`history_path_prefix` was removed in deepagents 0.7. Configure `CompositeBackend.artifacts_root` instead."
            )
        trigger, keep = self._deprecated(deprecated_kwargs, trigger, keep)
        # LangChain's own counter is the core's built-in one; any other is called back.
        self._own_counter = None if token_counter is count_tokens_approximately else token_counter
        self.model = _resolve(model)
        # A model string stays what the core runs natively, as the agent's own would.
        self._model_spec = model if isinstance(model, str) else self.model
        self.trigger = [dict(t) if isinstance(t, Mapping) else t for t in trigger] if isinstance(trigger, list) else (
            dict(trigger) if isinstance(trigger, Mapping) else trigger
        )  # fmt: skip
        self._clauses = _clauses(self.trigger)
        self.keep = _check_size(keep, "keep")
        needs_profile = any(kind == "fraction" for clause in self._clauses for kind, _ in clause)
        if (needs_profile or self.keep[0] == "fraction") and _profile_limit(self.model) is None:
            raise ValueError(
                "Model profile information is required to use fractional token limits, "
                "and is unavailable for the specified model. Please use absolute token "
                "counts instead, or pass "
                '`\n\nChatModel(..., profile={"max_input_tokens": ...})`.\n\n'
                "with a desired integer value of the model's maximum input tokens."
            )
        if "{messages}" not in summary_prompt:
            raise ValueError("summary_prompt must have a `{messages}` slot")
        self.summary_prompt = summary_prompt
        self.trim_tokens_to_summarize = trim_tokens_to_summarize
        self._truncate_args_settings = truncate_args_settings
        self._summarizer = self._summary_model(summarizer)
        self._backend = backend
        # Where the history, clipped tool results and offloaded media go (the backend's
        # artifacts root), and the argument-truncation settings, under deepagents' names.
        from ..backends.composite import CompositeBackend

        root = (backend.artifacts_root if isinstance(backend, CompositeBackend) else "/").rstrip("/")
        self._history_path_prefix = f"{root}/conversation_history"
        self._large_tool_results_prefix = f"{root}/large_tool_results"
        self._media_prefix = f"{self._history_path_prefix}/media"
        settings = truncate_args_settings or {}
        self._truncate_args_trigger = settings.get("trigger")
        self._truncate_args_keep = settings.get("keep", ("messages", 20))
        self._max_arg_length = settings.get("max_length", 2000)
        self._truncation_text = settings.get("truncation_text", "...(argument truncated)")
        self._counter_accepts_tools = _token_counter_accepts_tools(self.token_counter)
        self.tools: list[Any] = []
        # The core entry `wrap_model_call` runs, made when first needed (for one store).
        self._call: tuple[Any, bool, Any] | None = None

    @staticmethod
    def _deprecated(kwargs: dict[str, Any], trigger: Any, keep: Any) -> tuple[Any, Any]:
        """LangChain's two renamed arguments, with its warnings; any other is an error."""
        kwargs = dict(kwargs)
        if "max_tokens_before_summary" in kwargs:
            value = kwargs.pop("max_tokens_before_summary")
            warnings.warn(
                "max_tokens_before_summary is deprecated. Use trigger=('tokens', value) instead.",
                DeprecationWarning,
                stacklevel=3,
            )
            if trigger is None and value is not None:
                trigger = ("tokens", value)
        if "messages_to_keep" in kwargs:
            value = kwargs.pop("messages_to_keep")
            warnings.warn(
                "messages_to_keep is deprecated. Use keep=('messages', value) instead.",
                DeprecationWarning,
                stacklevel=3,
            )
            if keep == _DEFAULT_KEEP:
                keep = ("messages", value)
        if kwargs:
            raise TypeError(f"SummarizationMiddleware got unexpected keyword arguments: {sorted(kwargs)}")
        return trigger, keep

    @staticmethod
    def _summary_model(summarizer: Any) -> Any:
        if summarizer is None:
            return None
        from .. import _compat

        model = _resolve(summarizer)
        if _compat.is_lc_chat_model(model):
            return summarizer if isinstance(summarizer, str) else model
        from .._summarization import SummarizerAdapter

        # A function or runnable over the messages: no prompt, its text is the summary.
        return SummarizerAdapter(summarizer)

    @property
    def token_counter(self) -> Any:
        """The counter the conversation is measured with: the user's, or LangChain's
        approximate one as LangChain tunes it to the model."""
        if self._own_counter is not None or count_tokens_approximately is None:
            return self._own_counter
        from functools import partial

        llm_type = getattr(self.model, "_llm_type", "")
        tuned = {"chars_per_token": 3.3} if isinstance(llm_type, str) and llm_type.startswith("anthropic-chat") else {}
        return partial(count_tokens_approximately, use_usage_metadata_scaling=True, **tuned)

    @property
    def _lc_helper(self) -> Any:
        """Where deepagents keeps LangChain's settings (`trigger`, `keep`, `summary_prompt`,
        `trim_tokens_to_summarize`, `token_counter`): here, the middleware itself."""
        return self

    @property
    def _trigger_clauses(self) -> list[dict[str, float]]:
        """The trigger as LangChain reads it: clauses of thresholds that must all be met,
        any clause firing it."""
        return [dict(clause) for clause in self._clauses]

    @_trigger_clauses.setter
    def _trigger_clauses(self, clauses: list[Mapping[str, float]]) -> None:
        # Set as LangChain's attribute is set: the core's entry is made again from it.
        self._clauses = [_clause(clause) for clause in clauses]
        self._call = None

    @property
    def name(self) -> str:
        """`SummarizationMiddleware` for this class (it takes the default's place in the
        stack); a subclass's own name otherwise."""
        return "SummarizationMiddleware" if type(self) is SummarizationMiddleware else type(self).__name__

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        """Around one model call: the model sees the summarized conversation (with old
        file-writing arguments cut short); when a trigger fires, or the provider says the
        prompt is too long, the older messages go to the history file on the backend, the
        model summarizes them, and `handler` is called on `[summary, *kept]`. The response
        comes back as the handler gave it, in an `ExtendedModelResponse` whose `Command`
        writes the summarization event (and clipped tool results) when there are any."""
        from ._summarization_call import entry, wrap

        return wrap(entry(self, request), request, handler)

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        """`wrap_model_call` with an async `handler`."""
        from ._summarization_call import awrap, entry

        return await awrap(entry(self, request), request, handler)

    def _core_config(self, store: Any = None, backend: Any = None) -> dict[str, Any]:
        """The configuration the core builds its summarization entry from (over `backend`
        in place of the middleware's own, when given)."""
        from .. import _compat
        from .._assembly import _core_model
        from .._backend_adapter import backend_arg
        from .._summarization import model_facts

        if isinstance(self._model_spec, str) or _compat.is_lc_chat_model(self._model_spec):
            core_model = _core_model(self._model_spec, [])
        else:
            # Any object with `invoke` answering `.text` summarizes, as LangChain's own
            # summarization calls its model.
            from ._summarization_call import PromptedModel

            core_model = PromptedModel(self._model_spec)
        facts = model_facts(core_model)
        from ._summarization_steps import ReplacedSteps, replaced_steps

        replaced, steps = replaced_steps(self), ReplacedSteps(self)
        head, _, tail = self.summary_prompt.partition("{messages}")
        settings = self._truncate_args_settings
        from .._summarization import SummarizerAdapter, TokenCounterAdapter

        summary_model = None
        summarizer = self._summarizer if isinstance(self._summarizer, SummarizerAdapter) else None
        if self._summarizer is not None and summarizer is None:
            limit = _profile_limit(_resolve(self._summarizer))
            summary_model = (_core_model(self._summarizer, []), limit)
        return {
            "kind": "summarization",
            **facts,
            "trigger": self._clauses,
            "keep": self.keep,
            "truncate_args": None
            if settings is None or settings.get("trigger") is None
            else {
                "trigger": settings["trigger"],
                "keep": settings.get("keep", ("messages", 20)),
                "max_length": settings.get("max_length", 2000),
                "truncation_text": settings.get("truncation_text", "...(argument truncated)"),
            },
            # `str.format` of the two halves: the prompt as the model gets it.
            "prompt": (head.format(), tail.format()),
            "trim_tokens_to_summarize": self.trim_tokens_to_summarize,
            "summary_model": summary_model,
            "summarizer": summarizer,
            # Steps replaced on this middleware, which the entry calls in place of its own.
            "replaced_summary": steps if replaced[0] else None,
            "replaced_offload": steps if replaced[1] else None,
            "token_counter": None if self._own_counter is None else TokenCounterAdapter(self._own_counter),
            "model": core_model,
            "backend": backend_arg(self._backend if backend is None else backend, store, any_object=True),
            "history_prefix": self._history_path_prefix,
            "large_tool_results_prefix": self._large_tool_results_prefix,
        }


# deepagents' class keeps this name (its reprs and error messages show it); the public
# name is `SummarizationMiddleware`.
SummarizationMiddleware = _DeepAgentsSummarizationMiddleware


def create_summarization_middleware(
    model: Any,
    backend: Any,
    *,
    summary_prompt: str = DEEPAGENTS_DEFAULT_SUMMARY_PROMPT,
    trim_tokens_to_summarize: int | None = None,
    token_counter: Any = count_tokens_approximately,
    summarizer: Any = None,
) -> SummarizationMiddleware:
    """A `SummarizationMiddleware` with `compute_summarization_defaults(model)`, as
    `create_deep_agent` builds its own."""
    from .. import _compat

    if not _compat.is_lc_chat_model(model):
        raise TypeError("`create_summarization_middleware` expects `model` to be a `BaseChatModel` instance.")
    # The model-aware trigger, keep and argument-truncation settings, as `create_deep_agent`
    # gets them.
    settings = compute_summarization_defaults(model)
    return SummarizationMiddleware(
        model,
        backend=backend,
        summarizer=summarizer,
        summary_prompt=summary_prompt,
        token_counter=token_counter,
        trim_tokens_to_summarize=trim_tokens_to_summarize,
        **settings,
    )


class SummarizationToolMiddleware(CompactSteps, CoreEntryFace, _Base):  # type: ignore[misc,valid-type]
    """Offers the model the `compact_conversation` tool: it compacts the conversation itself,
    with `summarization`'s settings, once the conversation is at least half way to one of
    its triggers.

    Args:
        summarization: The `SummarizationMiddleware` whose settings, model and backend the
            tool uses.
        system_prompt: Text added to the system prompt; `None` adds none.

    Raises:
        TypeError: If `system_prompt` is neither `str` nor `None`.
    """

    trace_policy = _TRACE_POLICY
    state_schema = _StateSchema()
    """deepagents' `SummarizationState`."""

    def __init__(self, summarization: SummarizationMiddleware, *, system_prompt: str | None = None) -> None:
        """Check and keep the settings."""
        if system_prompt is not None and not isinstance(system_prompt, str):
            raise TypeError(f"system_prompt must be str or None, got {type(system_prompt).__name__}")
        if not isinstance(summarization, SummarizationMiddleware):
            raise TypeError(
                "deepagents_rs: SummarizationToolMiddleware takes deepagents_rs' SummarizationMiddleware, "
                f"got {type(summarization).__name__}"
            )
        self._summarization = summarization
        self.system_prompt = system_prompt
        self._call: tuple[Any, bool, Any] | None = None
        # The tool as a LangChain tool, for LangChain's own agents (a deepagents_rs agent
        # runs the core's); none without LangChain.
        if _Base is object:
            self.tools: list[Any] = []
        else:
            from ._summarization_call import compact_tool

            self.tools = [compact_tool(self)]

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        """The handler on the request with `system_prompt` added to its system message."""
        from ._summarization_call import entry, wrap

        return wrap(entry(self, request), request, handler)

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        """`wrap_model_call` with an async `handler`."""
        from ._summarization_call import awrap, entry

        return await awrap(entry(self, request), request, handler)

    def _core_config(self, store: Any = None, backend: Any = None) -> dict[str, Any]:
        """The configuration the core builds the tool's entry from."""
        return {
            "kind": "summarization_tool",
            "summarization": self._summarization._core_config(store, backend),
            "system_prompt": self.system_prompt,
        }


def create_summarization_tool_middleware(
    model: Any, backend: Any, *, system_prompt: str | None = None
) -> SummarizationToolMiddleware:
    """The `compact_conversation` tool over a summarization with
    `create_summarization_middleware`'s defaults for `model` (a chat model or model string)."""
    return SummarizationToolMiddleware(
        create_summarization_middleware(_resolve(model), backend), system_prompt=system_prompt
    )


def __getattr__(name: str) -> Any:
    # These need LangChain: made when first asked for.
    if name == "SummarizationState":
        state = _summarization_state()
        if state is not None:
            return state
    if name == "SummarizationDefaults":
        from ._summarization_state import SummarizationDefaults

        return SummarizationDefaults
    if name == "LCSummarizationMiddleware":
        # deepagents' name for LangChain's own class.
        from langchain.agents.middleware.summarization import SummarizationMiddleware as LCSummarizationMiddleware

        return LCSummarizationMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
