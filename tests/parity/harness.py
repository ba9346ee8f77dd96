"""Run one scenario through ``deepagents`` and ``deepagents_rs`` and compare the two runs.

Each implementation gets its own ``ScriptedChatModel`` with the same script, the same tools
and the same input; ``run_both`` returns both outcomes (result or exception) and both models'
recorded calls, and ``assert_parity`` compares them.

Known, legitimate differences, normalized here (and only here):

* File timestamps. ``created_at``/``modified_at`` in the ``files`` state (and in store items)
  are wall-clock times; ``norm_files`` replaces each ISO-8601 value with ``"<timestamp>"``
  (anything else is kept, so a malformed timestamp still fails the comparison).
* Message ids are random in both; ``normalize_messages(ids="stable")`` checks how ids pair up
  (tool call ids, message ids reused) and ``id_shapes`` checks their form (a uuid4 for human
  and tool messages, ``lc_run--<uuid>-<n>`` for model replies), not their values.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import re
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import deepagents
import deepagents_rs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fake_models import Call, ScriptedChatModel, ai_tool_calls, normalize_messages
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver

__all__ = [
    "FS_TOOLS",
    "MODES",
    "Both",
    "Outcome",
    "ScriptedChatModel",
    "ai_tool_calls",
    "assert_parity",
    "norm_files",
    "run_both",
    "run_both_on_a_saver_thread",
]

Mode = Literal["invoke", "ainvoke"]
MODES: tuple[Mode, ...] = ("invoke", "ainvoke")

#: deepagents' filesystem tools in the order the model is offered them, ahead of ``task`` and
#: the user's tools (``execute`` follows ``grep`` on backends that can execute).
FS_TOOLS = ("ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep")

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_LC_RUN = re.compile(rf"lc_run--{_UUID}(-\d+)?")


@dataclass
class Outcome:
    """One implementation's run: its result or the exception it raised, and its model's calls."""

    impl: str
    model: ScriptedChatModel
    result: dict[str, Any] | None = None
    error: BaseException | None = None
    #: The (copied) input this run was given, as the implementation left it.
    input: Any = None

    @property
    def calls(self) -> list[Call]:
        return self.model.calls

    def unwrap(self) -> dict[str, Any]:
        if self.error is not None:
            raise AssertionError(f"{self.impl} raised {self.error!r}") from self.error
        assert self.result is not None
        return self.result


@dataclass
class Both:
    ref: Outcome
    rs: Outcome
    extras: dict[str, Any] = field(default_factory=dict)


_TIMESTAMP_KEYS = ("created_at", "modified_at")


def _is_iso_timestamp(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def norm_files(files: Any) -> Any:
    """A ``files`` mapping with each ISO-8601 ``created_at``/``modified_at`` made ``"<timestamp>"``."""
    if not isinstance(files, dict):
        return files
    out: dict[Any, Any] = {}
    for path, data in files.items():
        if isinstance(data, dict):
            data = {k: "<timestamp>" if k in _TIMESTAMP_KEYS and _is_iso_timestamp(v) else v for k, v in data.items()}
        out[path] = data
    return out


def norm(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """``normalize_messages(ids="stable")`` plus each message's class."""
    out = normalize_messages(messages, ids="stable")
    for d, m in zip(out, messages, strict=True):
        d["class"] = type(m).__name__
    return out


def id_shape(raw: str | None) -> str:
    if raw is None:
        return "none"
    if _LC_RUN.fullmatch(raw):
        return "lc_run"
    try:
        return f"uuid{uuid.UUID(raw).version}"
    except ValueError:
        return f"other:{raw}"


def id_shapes(messages: Sequence[Any]) -> list[str]:
    return [id_shape(m.id) for m in messages]


def call_view(call: Call) -> dict[str, Any]:
    return {"messages": norm(call.messages), "tools": list(call.tools), "kwargs": dict(call.kwargs)}


def _run_one(
    impl: str, script: Sequence[Any], tools: Sequence[Any] | None, inp: Any, mode: Mode, config: Any, kwargs: dict
) -> Outcome:
    module = deepagents if impl == "deepagents" else deepagents_rs
    model = ScriptedChatModel(list(script))
    outcome = Outcome(impl=impl, model=model)
    agent = module.create_deep_agent(model=model, tools=list(tools) if tools is not None else None, **kwargs)
    # deepagents sets ids on the caller's message objects; give each run its own copy.
    inp = copy.deepcopy(inp)
    outcome.input = inp
    try:
        if mode == "invoke":
            outcome.result = agent.invoke(inp, config=config)
        else:
            outcome.result = asyncio.run(agent.ainvoke(inp, config=config))
    except Exception as exc:  # noqa: BLE001 - compared by assert_parity
        outcome.error = exc
    return outcome


def run_both(
    script: Sequence[Any],
    tools: Sequence[Any] | None,
    inp: Any,
    *,
    mode: Mode = "invoke",
    config: dict[str, Any] | None = None,
    **create_kwargs: Any,
) -> Both:
    """Run the scenario through ``deepagents`` then ``deepagents_rs``, each with a fresh
    ``ScriptedChatModel(script)``; exceptions from invoke are captured, not raised."""
    ref = _run_one("deepagents", script, tools, inp, mode, config, create_kwargs)
    rs = _run_one("deepagents_rs", script, tools, inp, mode, config, create_kwargs)
    return Both(ref=ref, rs=rs)


def assert_same_error(both: Both) -> BaseException:
    """Both raised; same exception class and message. Returns the reference exception."""
    ref, rs = both.ref.error, both.rs.error
    assert ref is not None, f"deepagents did not raise: {both.ref.result!r}"
    assert rs is not None, f"deepagents_rs did not raise: {both.rs.result!r}"
    assert type(rs) is type(ref), (type(ref), type(rs), ref, rs)
    assert str(rs) == str(ref)
    return ref


def assert_parity(both: Both) -> dict[str, Any]:
    """Compare what each model was sent and what each run returned (or raised).

    Returns the reference result (or ``{}`` if both raised) for scenario-specific checks.
    """
    ref_calls = [call_view(c) for c in both.ref.calls]
    rs_calls = [call_view(c) for c in both.rs.calls]
    assert len(rs_calls) == len(ref_calls), f"model calls: deepagents {len(ref_calls)}, deepagents_rs {len(rs_calls)}"
    for i, (a, b) in enumerate(zip(ref_calls, rs_calls, strict=True)):
        assert b["messages"] == a["messages"], f"call {i}: messages differ"
        assert b["tools"] == a["tools"], f"call {i}: tool schemas differ"
        assert b["kwargs"] == a["kwargs"], f"call {i}: call kwargs differ"
        assert id_shapes(both.rs.calls[i].messages) == id_shapes(both.ref.calls[i].messages), f"call {i}: id shapes"

    if both.ref.error is not None or both.rs.error is not None:
        assert_same_error(both)
        return {}

    ref, rs = both.ref.unwrap(), both.rs.unwrap()
    assert sorted(rs) == sorted(ref), "result keys differ"
    assert norm(rs["messages"]) == norm(ref["messages"])
    assert id_shapes(rs["messages"]) == id_shapes(ref["messages"])
    assert norm_files(rs.get("files")) == norm_files(ref.get("files"))
    return ref


# --------------------------------------------------------------------------------------------
# Scenario parts shared by the parity suites


def researcher_subagents(model: Any, tools: Sequence[Any] | None) -> list[dict[str, Any]]:
    """The one declarative ``researcher`` subagent the scenarios delegate to, on ``model``."""
    return [
        {
            "name": "researcher",
            "description": "Researches things.",
            "system_prompt": "You research.",
            "model": model,
            "tools": list(tools or []),
        }
    ]


def state_files(**texts: str) -> dict[str, Any]:
    """A ``files`` state of utf-8 text files, by path."""
    return {path: {"content": text, "encoding": "utf-8"} for path, text in texts.items()}


def hi_input(files: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A one-message ``hi`` input, with ``files`` and other state keys when given."""
    inp: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}], **extra}
    if files is not None:
        inp["files"] = files
    return inp


def system_text(message: Any) -> str:
    """A system message's text, its content blocks joined."""
    assert isinstance(message, SystemMessage)
    content = message.content
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


def run_both_on_a_saver_thread(
    tmp_path: Path,
    mode: Mode,
    turns: Sequence[dict[str, Any]],
    before_turn: Callable[[Path, int], None],
    **agent_kwargs: Any,
) -> tuple[tuple[ScriptedChatModel, dict, dict], tuple[ScriptedChatModel, dict, dict]]:
    """Both implementations run ``turns`` on one ``InMemorySaver`` thread each, over a
    ``FilesystemBackend`` of their own directory under ``tmp_path``; ``before_turn(root, i)``
    writes the files turn ``i`` should find. Each model answers every turn with ``turn <i>``.

    Returns deepagents' and ours: (the model, the last turn's output, the thread's state).
    """
    results = []
    for module in (deepagents, deepagents_rs):
        root = tmp_path / module.__name__
        root.mkdir()
        model = ScriptedChatModel([AIMessage(content=f"turn {i}") for i in range(len(turns))])
        backend = importlib.import_module(f"{module.__name__}.backends").FilesystemBackend(
            root_dir=str(root), virtual_mode=True
        )
        agent = module.create_deep_agent(model=model, backend=backend, checkpointer=InMemorySaver(), **agent_kwargs)
        config = {"configurable": {"thread_id": str(uuid.uuid4())}}

        async def arun(inp: dict, agent: Any = agent, config: dict = config) -> dict:
            return await agent.ainvoke(inp, config)

        out: dict = {}
        for i, inp in enumerate(turns):
            before_turn(root, i)
            out = asyncio.run(arun(inp)) if mode == "ainvoke" else agent.invoke(inp, config)
        results.append((model, out, agent.get_state(config).values))
    return results[0], results[1]
