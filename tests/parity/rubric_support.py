"""Shared scripts and runners of the RubricMiddleware parity tests: the verdicts, the run of one
implementation (its agent and grader calls recorded) and both side by side."""

from __future__ import annotations

import asyncio
import copy
import re
from typing import Any, NotRequired

import deepagents
import deepagents.middleware
import deepagents_rs
import deepagents_rs.middleware
from fake_models import ScriptedChatModel
from langchain.agents.middleware.types import AgentState
from langchain_core.messages import AIMessage

from .harness import ai_tool_calls, call_view, id_shapes, norm

IMPLS = {"deepagents": deepagents, "deepagents_rs": deepagents_rs}


RUBRIC = "Mention cats. Be polite."


USER = {"messages": [("user", "say hi")], "rubric": RUBRIC}


_NONCE = re.compile(r"-[0-9a-f]{16}(?=[>`])")


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def verdict(result: str, explanation: str, *criteria: tuple, call_id: str = "g") -> AIMessage:
    """The grader's answer: a ``GraderResponse`` call; each criterion is ``(name, passed)`` or
    ``(name, False, gap)``."""
    entries = [{"name": c[0], "passed": c[1], **({"gap": c[2]} if len(c) > 2 else {})} for c in criteria]
    return ai_tool_calls(
        ("GraderResponse", {"result": result, "explanation": explanation, "criteria": entries}, call_id)
    )


CATS_FAIL = verdict("needs_revision", "Too short.", ("Mentions cats", False, "No cats."), ("Polite", True))


CATS_PASS = verdict("satisfied", "Good.", ("Mentions cats", True), ("Polite", True))


def _stable(value: Any, ids: dict[str, str] | None = None) -> Any:
    """``value`` with nonces and uuids replaced by placeholders (uuids by order of appearance)."""
    ids = {} if ids is None else ids
    if isinstance(value, str):
        value = _NONCE.sub("-NONCE", value)
        return _UUID.sub(lambda m: ids.setdefault(m.group(0), f"uuid-{len(ids)}"), value)
    if isinstance(value, dict):
        return {k: _stable(v, ids) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_stable(v, ids) for v in value)
    return value


class Run:
    """One implementation's run: result or error, both models' calls, what was reported."""

    def __init__(self, impl: str) -> None:
        self.impl = impl
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.evaluations: list[dict] = []
        self.chunks: list[Any] = []
        self.agent: Any = None
        self.model: ScriptedChatModel | None = None
        self.grader: ScriptedChatModel | None = None

    def grader_calls(self) -> list[dict]:
        return [_stable(call_view(c)) for c in self.grader.calls]

    def model_calls(self) -> list[dict]:
        return [call_view(c) for c in self.model.calls]


def run(impl: str, script: list, grader_script: list, *, mode: str = "invoke", inp: Any = USER, **mw: Any) -> Run:
    module = IMPLS[impl]
    out = Run(impl)
    out.model, out.grader = ScriptedChatModel(list(script)), ScriptedChatModel(list(grader_script))
    middleware = module.middleware.RubricMiddleware(model=out.grader, on_evaluation=out.evaluations.append, **mw)
    out.agent = module.create_deep_agent(model=out.model, middleware=[middleware])
    inp = copy.deepcopy(inp)
    try:
        if mode == "invoke":
            out.result = out.agent.invoke(inp)
        elif mode == "ainvoke":
            out.result = asyncio.run(out.agent.ainvoke(inp))
        elif mode == "stream":
            out.chunks = list(out.agent.stream(inp, stream_mode=["updates", "custom"]))
        else:

            async def collect() -> list:
                return [c async for c in out.agent.astream(inp, stream_mode=["updates", "custom"])]

            out.chunks = asyncio.run(collect())
    except Exception as exc:  # noqa: BLE001 - compared below
        out.error = exc
    return out


def run_both(script: list, grader_script: list, **kwargs: Any) -> tuple[Run, Run]:
    ref, rs = (run(impl, script, grader_script, **kwargs) for impl in IMPLS)
    assert rs.model_calls() == ref.model_calls(), "the agent's model calls differ"
    assert rs.grader_calls() == ref.grader_calls(), "the grader's model calls differ"
    assert _stable(rs.evaluations) == _stable(ref.evaluations), "the evaluations differ"
    if ref.error is not None or rs.error is not None:
        assert type(rs.error) is type(ref.error) and str(rs.error) == str(ref.error), (ref.error, rs.error)
        return ref, rs
    if ref.result is not None:
        assert sorted(rs.result) == sorted(ref.result), "result keys differ"
        assert norm(rs.result["messages"]) == norm(ref.result["messages"])
        assert id_shapes(rs.result["messages"]) == id_shapes(ref.result["messages"])
        assert rs.result.get("rubric") == ref.result.get("rubric")
    return ref, rs


class GraderInput(AgentState):
    focus: NotRequired[str]
