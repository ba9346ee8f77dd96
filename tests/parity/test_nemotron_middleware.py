"""The Nemotron 3 Ultra profile's middleware called directly, on deepagents 0.7.32 and on
deepagents_rs, over the same inputs: the heuristics decide on words and shapes, so each is run
over a table of cases and every answer (state update, repaired message, request passed on,
exception) must be the same. Each test also checks some of deepagents' answers, so that the
table keeps reaching the branch it was written for.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import typing
from types import SimpleNamespace
from typing import Any

import pytest
from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse, ToolCallRequest
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict
from langgraph.types import Command

IMPLS = ("deepagents", "deepagents_rs")


def nemotron(impl: str) -> Any:
    return importlib.import_module(f"{impl}.profiles.harness._nvidia_nemotron_3_ultra")


def both(fn: Any) -> dict[str, Any]:
    """`fn(module)` on each implementation, as comparable data; the two must be equal."""
    seen = {impl: view(fn(nemotron(impl))) for impl in IMPLS}
    assert seen["deepagents_rs"] == seen["deepagents"]
    return seen["deepagents"]


def view(value: Any) -> Any:
    """Messages as dicts with parsed call ids numbered (they are random), the rest as is."""
    if isinstance(value, (AIMessage, HumanMessage, ToolMessage)):
        data = messages_to_dict([value])[0]
        for k, call in enumerate(data["data"].get("tool_calls") or []):
            call["id"] = f"#{k}" if len(call["id"] or "") == 32 else call["id"]
        return data
    if isinstance(value, dict):
        return {k: view(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [view(v) for v in value]
    if isinstance(value, ModelResponse):
        return {"result": view(value.result), "structured": value.structured_response}
    if isinstance(value, ExtendedModelResponse):
        return {"response": view(value.model_response), "command": repr(value.command)}
    if isinstance(value, BaseException):
        return {"raised": type(value).__name__, "message": str(value)}
    return value


def calls(*specs: tuple[str, dict[str, Any], str]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in specs])


def tool_request(name: str, args: dict[str, Any]) -> ToolCallRequest:
    runtime = ToolRuntime(
        state={}, context=None, tool_call_id="c1", store=None, stream_writer=lambda _: None, config={}
    )
    return ToolCallRequest(runtime=runtime, tool_call={"id": "c1", "name": name, "args": args}, state={}, tool=None)


class FakeModelRequest(SimpleNamespace):
    """What the model-call middleware read of a request: state, messages, tools, `override`."""

    def override(self, **changes: Any) -> FakeModelRequest:
        return FakeModelRequest(**{**self.__dict__, **changes})


TOOL_NAMES = [
    "send_email",
    "sendEmail",
    "get_email",
    "list_invoices_to_send",
    "update_ticket",
    "HTTPPostMessage",
    "refund2Customer",
    "read_file",
    "task",
    "__internal_update",
    "lookup_then_cancel",
    "stripe_charge",
    "book",
    "",
    "calendar_view",
    "create",
    "searchAndDelete",
    "get_or_create_user",
    "fetchUpdateLog",
]


def test_tool_name_classes() -> None:
    seen = both(lambda m: [(m._tool_name_is_domain(n), m._tool_name_is_mutation(n)) for n in TOOL_NAMES])
    assert seen[0] == [True, True] and seen[2] == [True, False] and seen[8] == [False, False]


TEXT_REPLIES = [
    "<function=execute><parameter name=command>ls -la</parameter></function></tool_call> trailing",
    "<function='read_file'><parameter name='file_path'> /a.txt </parameter><parameter name=limit>5</parameter></function>",
    "<function>\n<name>get_service_name</name>\n<parameter>service_id: 8514</parameter></function></tool_call>",
    "<FUNCTION><name=get_service_name</name><parameter name=service_id>1</parameter></FUNCTION>",
    '{"tool": "bash", "cmd": "echo hi"}',
    'Sure: {"tool": "Shell", "command": "pwd"} done',
    '{"tool": "read_file", "args": {"file_path": "/x"}}',
    '{"tool": "  ", "args": {}}',
    '[{"tool": "execute"}]',
    "<think>plan it</think><function=execute><parameter name=command>make</parameter></function>",
    "<think>only thoughts</think>The answer.",
    "no tools here",
    [{"type": "text", "text": "<function=execute><parameter name=command>a</parameter></function>"}],
]
TOOL_SETS = [None, {"execute"}, {"get_service_name", "read_file"}, set()]


def test_text_tool_call_parser() -> None:
    def run(m: Any) -> Any:
        parser = m.NemotronTextToolCallParser
        out = [parser._repair_message(AIMessage(content=c), tools) for c in TEXT_REPLIES for tools in TOOL_SETS]
        kept = calls(("ls", {}, "k1"))
        out.append(parser._repair_message(AIMessage(content="<function=ls></function>", tool_calls=kept.tool_calls)))
        return out

    seen = both(run)
    assert seen[0]["data"]["tool_calls"][0]["args"] == {"command": "ls -la"}
    assert seen[0]["data"]["content"] == "trailing"


def test_model_call_repairs_on_every_result_shape() -> None:
    reply = AIMessage(content="<think>t</think><function=execute><parameter name=command>x</parameter></function>")
    results = [
        reply,
        ModelResponse(result=[reply, HumanMessage(content="h")], structured_response={"a": 1}),
        ExtendedModelResponse(model_response=ModelResponse(result=[reply]), command=Command(update={"k": 1})),
        "not a response",
    ]
    requests = [FakeModelRequest(tools=[{"name": "execute"}]), FakeModelRequest(tools=[{"function": {"name": "ls"}}])]

    def run(m: Any) -> Any:
        out = []
        for result in results:
            for request in requests:
                for mw in (m.NemotronTextToolCallParser(), m.NemotronReasoningTagCleanupMiddleware()):
                    out.append(mw.wrap_model_call(request, lambda _r, result=result: result))
                    out.append(asyncio.run(mw.awrap_model_call(request, lambda _r, result=result: _done(result))))
        return out

    seen = both(run)
    assert seen[0]["data"]["tool_calls"][0]["name"] == "execute"
    assert seen[1]["data"]["additional_kwargs"] == {"reasoning_content": "t"}


async def _done(value: Any) -> Any:
    return value


def test_chatnvidia_message_compatibility() -> None:
    messages = [
        HumanMessage(content="hi"),
        calls(("lookup", {"q": "x"}, "c1"), ("ls", {}, "c2")),
        ToolMessage(content="r", tool_call_id="c1", name="lookup"),
        ToolMessage(content="r", tool_call_id="c2"),
        AIMessage(content="", tool_calls=[{"name": "a", "args": {}, "id": "c3"}], additional_kwargs={"tool_calls": []}),
        ToolMessage(content="r", tool_call_id="c3", name="a", additional_kwargs={"name": "kept"}),
        AIMessage(content="plain", name="named"),
    ]

    def run(m: Any) -> Any:
        mw = m.ChatNVIDIAMessageCompatibilityMiddleware()
        passed: list[Any] = []
        untouched = FakeModelRequest(messages=[messages[0], messages[3]])
        mw.wrap_model_call(untouched, lambda r: passed.append(r is untouched))
        mw.wrap_model_call(FakeModelRequest(messages=messages), lambda r: passed.append(r.messages))
        return passed

    seen = both(run)
    assert seen[0] is True
    assert seen[1][1]["data"]["additional_kwargs"]["tool_calls"][1]["function"]["name"] == "ls"


class RateLimitError(Exception):
    pass


class Status(Exception):
    def __init__(self, status_code: int) -> None:
        super().__init__(f"status {status_code}")
        self.status_code = status_code


ERRORS = [RateLimitError("slow down"), Status(429), Status(500), ValueError("Rate-limit hit"), KeyError("x")]


@pytest.mark.parametrize("error", range(len(ERRORS)))
@pytest.mark.parametrize("failures", [1, 2, 3])
def test_rate_limit_retry(error: int, failures: int) -> None:
    def run(m: Any) -> Any:
        out = []
        for asynchronous in (False, True):
            attempts: list[int] = []

            def handler(_request: Any, attempts: list[int] = attempts) -> Any:
                attempts.append(1)
                if len(attempts) <= failures:
                    raise ERRORS[error]
                return "ok"

            mw = m.ModelRateLimitRetryMiddleware(retry_delays=(0.0, 0.0))
            try:
                if asynchronous:

                    async def ahandler(request: Any, handler: Any = handler) -> Any:
                        return handler(request)

                    out.append(asyncio.run(mw.awrap_model_call(object(), ahandler)))
                else:
                    out.append(mw.wrap_model_call(object(), handler))
            except Exception as exc:  # noqa: BLE001 - compared
                out.append(exc)
            out.append(len(attempts))
        return out

    both(run)


READ_RESULTS = [
    ("1  a\n2  b\n3  c", {"limit": 3}),
    ("1  a\n2  b\n3  c", {"limit": 4, "offset": 2}),
    ("1  a\n1.1  wrapped\n2  b", {"limit": 3}),
    ("@@ lines 10-12 of 40 @@\n10  a\n11  b\n12  c", {"limit": 3, "offset": "9"}),
    ("Truncated.\nOffset clamped.\n@@ lines 1-500 | note @@\nbody", {}),
    ("a\nb\nc\n@@ lines 1-3 @@", {"limit": 3}),
    ("Error: no such file", {"limit": 1}),
    ("", {"limit": 1}),
    ("1\tx", {"limit": "bad", "offset": None}),
    ("   7  x", {"limit": 0}),
]


def test_read_file_notice_and_shim() -> None:
    def run(m: Any) -> Any:
        notice, shim = m.ReadFileContinuationNoticeMiddleware(), m.NemotronToolCallShim()
        out = []
        for content, args in READ_RESULTS:
            for tool in ("read_file", "ls"):
                result = ToolMessage(content=content, tool_call_id="c1")
                out.append(notice.wrap_tool_call(tool_request(tool, args), lambda _r, result=result: result))
        seen: list[Any] = []

        def record(request: ToolCallRequest) -> Any:
            seen.append(request.tool_call["args"])
            return ToolMessage(content=[{"type": "text", "text": ""}], tool_call_id="c1")

        for tool in ("read_file", "write_file", "edit_file", "delete", "ls", "grep"):
            for args in ({"path": "/a"}, {"path": "/a", "file_path": "/b"}, {"file_path": "/a", "limit": None}, {}):
                out.append(shim.wrap_tool_call(tool_request(tool, args), record))
        out.append(shim.wrap_tool_call(tool_request("ls", {}), lambda _r: Command(update={"x": 1})).update)
        return [out, seen]

    seen = both(run)
    assert "offset=3" in seen[0][0]["data"]["content"]
    assert seen[1][0] == {"file_path": "/a", "limit": 500}


def _turn(*messages: Any) -> list[Any]:
    return [HumanMessage(content="earlier"), AIMessage(content="ok"), HumanMessage(content="do it"), *messages]


def _looping_reads(n: int, *, same: bool) -> list[Any]:
    out: list[Any] = []
    for i in range(n):
        args = {"file_path": "/a"} if same else {"file_path": f"/f{i}"}
        out += [
            calls(("read_file", args, f"r{i}")),
            ToolMessage(content="x" * 600 if i == 0 else "No files found", tool_call_id=f"r{i}"),
        ]
    return out


BUDGET_CASES = [
    (_turn(*_looping_reads(3, same=True)), {}),
    (_turn(*_looping_reads(3, same=False)), {}),
    (_turn(*_looping_reads(5, same=False)), {"max_tool_results": 5}),
    (_turn(*_looping_reads(4, same=False)), {"max_model_calls": 4}),
    (_turn(*[AIMessage(content=str(i)) for i in range(4)]), {"max_model_calls": 4}),
    (
        _turn(
            calls(("lookup", {"k": [1, {"b": 2, "a": 1}]}, "l1")),
            ToolMessage(content='{"z": 1, "a": [1, 2]}', tool_call_id="l1"),
        ),
        {"max_model_calls": 1},
    ),
    (_looping_reads(3, same=True), {}),
]


def test_progress_budget() -> None:
    def run(m: Any) -> Any:
        out = []
        for messages, limits in BUDGET_CASES:
            mw = m.NemotronProgressBudgetMiddleware(**limits)
            for request in (
                FakeModelRequest(state={"messages": messages}, messages=[]),
                FakeModelRequest(state=None, messages=messages),
            ):
                result = mw.wrap_model_call(request, lambda _r: "called")
                out.append(result)
                out.append(asyncio.run(mw.awrap_model_call(request, lambda _r: _done("called"))))
        return out

    seen = both(run)
    assert seen[0]["data"]["response_metadata"] == {
        "nemotron_progress_budget_reason": "3 repeated identical tool calls"
    }
    assert seen[4] == "called"


FOLLOWUPS = [
    ("Send me a daily digest of my inbox.", "What time each day, and which timezone?"),
    ("Send me a daily digest of my inbox.", "Where should I deliver it: email or Slack?"),
    ("Summarize my calendar every morning at 8am.", "Which calendar should I use?\nWhat format?\nHow long?"),
    ("Analyze our sales data.", "Which data source should I use?"),
    ("Analyze our sales data.", "What goal do you want to measure, and which source?"),
    ("Help me respond to customer tickets.", "Sure, send them over?"),
    ("Help me respond to customer tickets.", "What product do your customers use?"),
    ("Check the logs in /var/log for errors.", "Which folders should I search?"),
    ("Reply with exactly: ALL GOOD", "ALL GOOD."),
    ("Reply with the single word READY", "ready"),
    ("Answer with OK only", "OK"),
    ("Write a weekly report.", "Done."),
]


def test_followup_guard() -> None:
    def run(m: Any) -> Any:
        mw = m.FollowupDisciplineMiddleware()
        out = []
        for user, final in FOLLOWUPS:
            state = {"messages": [HumanMessage(content=user), AIMessage(content=final)]}
            out.append(mw.after_agent(state, None))
            out.append(asyncio.run(mw.aafter_agent({**state, "nemotron_followup_guard_fired": True}, None)))
        return out

    seen = both(run)
    assert seen[0]["jump_to"] == "model" and seen[1] is None


def _mutation_run(
    final: str,
    *,
    title: str = "Launch v2.3.1-beta",
    body: str = "see v1.0",
    result: str = '{"id": 7, "status": "sent"}',
) -> dict[str, Any]:
    return {
        "messages": [
            HumanMessage(content="Send the release note."),
            calls(("get_release", {}, "g"), ("send_note", {"title": title, "body": body}, "s")),
            ToolMessage(content='{"v": "v2.3.1-beta"}', tool_call_id="g"),
            ToolMessage(content=result, tool_call_id="s"),
            AIMessage(content=final),
        ]
    }


FINAL_STATES = [
    _mutation_run("Done."),
    _mutation_run("Sent Launch v2.3.1-beta (see v1.0)."),
    _mutation_run("Done!", title="ab", body="plain"),
    _mutation_run("all set", title="ab", body="plain", result=""),
    _mutation_run("Finished", title="ab", body="plain", result="Error: failed"),
    {**_mutation_run("Done."), "nemotron_final_guard_fired": True},
    {
        "messages": [
            HumanMessage(content="Reply with exactly: Done"),
            calls(("send_x", {"title": "Big"}, "s")),
            ToolMessage(content="ok", tool_call_id="s"),
            AIMessage(content="Done"),
        ]
    },
    {"messages": [HumanMessage(content="hi"), *[AIMessage(content="x") for _ in range(8)]]},
]


def test_final_answer_guard() -> None:
    def run(m: Any) -> Any:
        mw = m.FinalAnswerGuardMiddleware()
        return [mw.after_agent(state, None) for state in FINAL_STATES]

    seen = both(run)
    assert seen[0]["nemotron_final_guard_fired"] is True and seen[1] is None
    assert "Observed result" in seen[2]["messages"][0]["data"]["content"]


def _entity_state(user: str, final: str | None, *, display: bool = False) -> dict[str, Any]:
    messages: list[Any] = [
        HumanMessage(content=user),
        calls(("get_current_customer_id", {}, "a")),
        ToolMessage(content="4410", tool_call_id="a"),
        calls(
            ("get_customer_service", {"customer_id": 4410}, "b"), ("get_customer_plan", {"customer_id": "4411"}, "c")
        ),
        ToolMessage(content="8514", tool_call_id="b"),
        ToolMessage(content="99001", tool_call_id="c"),
    ]
    if display:
        messages += [
            calls(("get_service_name", {"service_id": 8514}, "d")),
            ToolMessage(content="Fiber", tool_call_id="d"),
        ]
    if final is not None:
        messages.append(AIMessage(content=final))
    return {"messages": messages}


ENTITY_STATES = [
    _entity_state("What service does the current customer have?", "Service 8514 is active."),
    _entity_state("What service does the current customer have?", "Fiber is active.", display=True),
    _entity_state("What service does the current customer have?", None),
    _entity_state("Which plan and service does the current customer have?", "Plan 99001."),
    _entity_state("Tell me about that service and the selected plan.", "It is fine."),
    _entity_state("hello", "Plan 99001 belongs to 4411."),
    {**_entity_state("What service does the current customer have?", None), "nemotron_entity_pre_nudged": True},
]


def test_entity_resolution_guard() -> None:
    def run(m: Any) -> Any:
        mw = m.EntityResolutionGuardMiddleware()
        return [(mw.before_model(state, None), mw.after_agent(state, None)) for state in ENTITY_STATES]

    seen = both(run)
    assert seen[0][1]["jump_to"] == "model" and seen[1][1] is None
    assert seen[2][0]["nemotron_entity_pre_nudged"] is True


def _history(*texts: str, tools: tuple[str, ...] = ("read_file",), last: Any = None) -> list[Any]:
    out: list[Any] = []
    for i, text in enumerate(texts[:-1]):
        out += [HumanMessage(content=text), calls(*((t, {"file_path": "/a"}, f"t{i}{t}") for t in tools))]
        out += [ToolMessage(content="ok", tool_call_id=f"t{i}{t}") for t in tools]
        out.append(AIMessage(content="answered"))
    out.append(HumanMessage(content=texts[-1]))
    return [*out, last] if last is not None else out


POLICY_STATES = [
    {"messages": _history("Read /a.txt", "Read /b.txt", "Now do the same for the next file c.txt")},
    {"messages": _history("Read /a.txt", "Read /b.txt", "Let's move on to a new task: plan a trip")},
    {"messages": _history("Read /a.txt", "Read /b.txt", "thanks")},
    {
        "messages": _history("Read /a.txt", "Read /b.txt", "Now do the same for c.txt"),
        "nemotron_transition_nudged": True,
    },
    {"messages": _history("Read /a.txt", "Read /b.txt", "Summarize notes.md", tools=("get_x",))},
    {"messages": _history("look up order 5", "Please cancel it now", tools=("get_order",))},
    {
        "messages": _history("look up order 5", "Please cancel it now", tools=("get_order",)),
        "nemotron_action_nudged": ["5:Please cancel it now"],
    },
    {
        "messages": _history("Find the invoice and then email it to Bo", tools=("get_invoice",), last=None)
        + [calls(("find_invoice", {}, "f")), ToolMessage(content="inv 7", tool_call_id="f")]
    },
    {
        "messages": [
            HumanMessage(content="Which repo has most stars and then post it"),
            calls(("list_repos", {}, "l")),
            ToolMessage(content="[1]", tool_call_id="l"),
            calls(("grep", {"pattern": "x"}, "g")),
            ToolMessage(content="No matches found", tool_call_id="g"),
        ]
    },
    {
        "messages": [
            HumanMessage(content="Which repo has most stars?"),
            calls(("grep", {"pattern": "x"}, "g")),
            ToolMessage(content="No matches found", tool_call_id="g"),
        ]
    },
    {"messages": []},
]

POLICY_REQUESTS = [
    ("Which customer has the most orders?", ["ls", "read_file", "get_orders", "list_customers"]),
    ("Which customer has the most orders?", ["get_orders"]),
    ("Summarize the file report.md please", ["ls", "read_file", "get_orders"]),
    ("Please open the repo and review it", ["ls", "glob"]),
    ("Read the transcript at /t/call.txt", [{"type": "function", "function": {"name": "read_file"}}, "bad"]),
]


def test_policy_nudges() -> None:
    def run(m: Any) -> Any:
        mw = m.NemotronPolicyNudgeMiddleware()
        out: list[Any] = [mw.before_model(state, None) for state in POLICY_STATES]
        for text, names in POLICY_REQUESTS:
            tools = [n if not isinstance(n, str) else {"name": n} for n in names]
            messages = [HumanMessage(content=text)]
            for state in ({"messages": messages}, {}):
                request = FakeModelRequest(state=state, messages=messages, tools=tools)
                out.append(mw.wrap_model_call(request, lambda r: r.messages))
        return out

    seen = both(run)
    assert seen[0]["nemotron_transition_nudged"] is True and seen[1]["nemotron_transition_nudged"] is True
    assert seen[2] is None and "nemotron_transition_nudged" not in seen[3]
    assert seen[5]["nemotron_action_nudged"] == ["5:Please cancel it now"] and seen[6] is None
    assert json.dumps(seen).count("nemotron_domain_tool_preference") >= 2


EXPORTED = [
    "ChatNVIDIAMessageCompatibilityMiddleware",
    "EntityResolutionGuardMiddleware",
    "FinalAnswerGuardMiddleware",
    "FollowupDisciplineMiddleware",
    "ModelRateLimitRetryMiddleware",
    "NemotronPolicyNudgeMiddleware",
    "NemotronProgressBudgetMiddleware",
    "NemotronReasoningTagCleanupMiddleware",
    "NemotronTextToolCallParser",
    "NemotronToolCallShim",
    "ReadFileContinuationNoticeMiddleware",
    "register",
    "_tool_name_is_domain",
    "_tool_name_is_mutation",
]
HOOKS = (
    "wrap_model_call",
    "awrap_model_call",
    "wrap_tool_call",
    "awrap_tool_call",
    "before_model",
    "abefore_model",
    "after_agent",
    "aafter_agent",
)


def test_interface() -> None:
    """What the module exports, as LangChain and callers see it: signatures, the hooks each
    middleware overrides (with their jump targets), names, state keys and constants."""
    from langchain.agents.middleware.types import AgentMiddleware

    def run(m: Any) -> Any:
        out: dict[str, Any] = {}
        for name in EXPORTED:
            obj = getattr(m, name)
            out[name] = {"signature": str(inspect.signature(obj))}
            if isinstance(obj, type):
                hooks = [h for h in HOOKS if getattr(obj, h) is not getattr(AgentMiddleware, h)]
                out[name]["hooks"] = {h: str(inspect.signature(getattr(obj, h))) for h in hooks}
                out[name]["jumps"] = {h: getattr(getattr(obj, h), "__can_jump_to__", None) for h in hooks}
                out[name]["name"] = obj().name if name != "ModelRateLimitRetryMiddleware" else obj.name
                schema = getattr(obj, "state_schema", None)
                out[name]["state"] = typing.get_type_hints(schema, include_extras=True) if schema else None
        constants = ("_DEFAULT_READ_LIMIT", "_EMPTY_TOOL_PLACEHOLDER", "_HARNESS_PROFILE_SUFFIX_MARKER")
        out["constants"] = [getattr(m, c) for c in (*constants, "_NEMOTRON_ULTRA_MODEL_SPECS")]
        out["stack"] = [type(mw).__name__ for mw in m._build_extra_middleware()]
        return {k: repr(v) for k, v in out.items()}

    seen = both(run)
    assert "after_agent" in seen["FinalAnswerGuardMiddleware"]
