"""The built-in NVIDIA Nemotron 3 Ultra harness profile, run on deepagents 0.7.32 and on
deepagents_rs with a scripted model that reports a Nemotron 3 Ultra spec.

Each scenario drives the profile's middleware through a whole agent run (`invoke` and
`ainvoke`): every model request is compared (messages with the profile's nudges, tool
schemas with its `read_file` description, the system prompt with its suffix), and so is the
final state. Each test also asserts what deepagents itself did, so a scenario cannot quietly
stop reaching the middleware it was written for.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from typing import Any

import deepagents
import deepagents_rs
import httpx
import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from .harness import MODES, Both, Outcome, ScriptedChatModel, ai_tool_calls, assert_parity, call_view

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = {"deepagents": deepagents, "deepagents_rs": deepagents_rs}


class NemotronModel(ScriptedChatModel):
    """A scripted model reporting itself as Nemotron 3 Ultra on NVIDIA's API
    (`nvidia:nvidia/nemotron-3-ultra-550b-a55b`), so the built-in profile applies to it."""

    model_name: str = "nvidia/nemotron-3-ultra-550b-a55b"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = "nvidia"
        return params


@tool
def get_order_status(order_id: int) -> str:
    """Look up an order's status."""
    return json.dumps({"order_id": order_id, "status": "late"})


@tool
def update_order(order_id: int, status: str, title: str = "") -> str:
    """Change an order's status."""
    return json.dumps({"order_id": order_id, "status": status, "title": title})


@tool
def get_current_user_id() -> str:
    """The signed-in user's ID."""
    return "1001"


@tool
def get_user_manager(user_id: int) -> str:
    """The ID of a user's manager."""
    return "2002" if user_id == 1001 else "0"


@tool
def get_manager_name(manager_id: int) -> str:
    """A manager's name."""
    return "Dana" if manager_id == 2002 else "unknown"


@tool
def send_email(to: str, subject: str) -> str:
    """Send an email."""
    return f"sent to {to}"


def user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def run(script: list[Any], inp: dict[str, Any], mode: str, **kwargs: Any) -> Both:
    """The scenario on both implementations, each with its own model and a copy of the input.
    Stream modes record each chunk's (node, keys) in `both.extras[impl]`."""
    outcomes, extras = {}, {}
    for impl, module in IMPLS.items():
        model = NemotronModel(copy.deepcopy(script))
        outcome = Outcome(impl=impl, model=model)
        agent = module.create_deep_agent(model=model, **kwargs)
        nodes: list[tuple[str, Any]] = []

        async def astream(agent: Any = agent, nodes: list[tuple[str, Any]] = nodes) -> None:
            async for chunk in agent.astream(copy.deepcopy(inp)):
                nodes.extend((node, sorted(update or {})) for node, update in chunk.items())

        try:
            if mode == "invoke":
                outcome.result = agent.invoke(copy.deepcopy(inp))
            elif mode == "ainvoke":
                outcome.result = asyncio.run(agent.ainvoke(copy.deepcopy(inp)))
            elif mode == "stream":
                for chunk in agent.stream(copy.deepcopy(inp)):
                    nodes.extend((node, sorted(update or {})) for node, update in chunk.items())
            else:
                asyncio.run(astream())
        except Exception as exc:  # noqa: BLE001 - compared by assert_parity
            outcome.error = exc
        outcomes[impl] = outcome
        extras[impl] = nodes
        mirrored_ids(model)
    return Both(ref=outcomes["deepagents"], rs=outcomes["deepagents_rs"], extras=extras)


def mirrored_ids(model: NemotronModel) -> None:
    """Check that each request's `additional_kwargs["tool_calls"]` (the ChatNVIDIA mirror)
    carries its message's tool call ids, then replace them by their position: ids parsed from
    text are random, and the comparison pairs the messages' own ids already."""
    for call in model.calls:
        for message in call.messages:
            mirrored = message.additional_kwargs.get("tool_calls") if isinstance(message, AIMessage) else None
            for k, entry in enumerate(mirrored or []):
                assert entry["id"] == message.tool_calls[k]["id"]
                entry["id"] = f"tool_calls[{k}]"


def named(messages: list[Any]) -> list[str]:
    """The `name`s of the user and model messages that have one (the profile's nudges and
    stand-in answers; tool results carry their tool's)."""
    return [m.name for m in messages if m.type in ("human", "ai") and m.name]


def system_text(both: Both) -> str:
    first = both.ref.calls[0].messages[0]
    return first.content if isinstance(first.content, str) else "".join(b["text"] for b in first.content)


@pytest.mark.parametrize("mode", MODES)
def test_file_repairs(mode: str) -> None:
    """Text-form calls parsed, `path` renamed, a default limit, the page notice, `<think>` removed."""
    script = [
        AIMessage(
            content="<function=write_file><parameter name=path>/notes.txt</parameter>"
            "<parameter name=content>alpha\nbeta\ngamma</parameter></function></tool_call>"
        ),
        ai_tool_calls(("read_file", {"path": "/notes.txt", "limit": 3})),
        ai_tool_calls(("read_file", {"file_path": "/notes.txt", "offset": 3})),
        "<think>Three lines, all read.</think>The file lists alpha, beta and gamma.",
    ]
    both = run(script, user("Please read the file /notes.txt and summarize it."), mode)
    result = assert_parity(both)
    calls = both.ref.calls
    assert "<state_changes>" in system_text(both)
    read_file = next(t for t in calls[0].tools if t["function"]["name"] == "read_file")
    assert "whole/full file" in read_file["function"]["description"]
    assert named(calls[0].messages) == ["nemotron_filesystem_request_nudge"]
    assert named(calls[1].messages) == []
    written = result["messages"][1].tool_calls[0]
    assert written["name"] == "write_file" and "file_path" not in written["args"]
    assert "call read_file again with offset=3" in result["messages"][4].content
    assert result["messages"][5].tool_calls[0]["args"] == {"file_path": "/notes.txt", "offset": 3}
    final = result["messages"][-1]
    assert final.content == "The file lists alpha, beta and gamma."
    assert final.additional_kwargs["reasoning_content"] == "Three lines, all read."


@pytest.mark.parametrize("mode", MODES)
def test_domain_tools_and_final_answer_guard(mode: str) -> None:
    """The domain-tool preference on the first call, and a "Done." sent back for its literal."""
    script = [
        ai_tool_calls(("update_order", {"order_id": 5, "status": "shipped", "title": "Spring Sale"})),
        "Done.",
        "Order 5 is now shipped (Spring Sale).",
    ]
    both = run(script, user("Please update order 5 to shipped."), mode, tools=[get_order_status, update_order])
    result = assert_parity(both)
    calls = both.ref.calls
    assert named(calls[0].messages) == ["nemotron_domain_tool_preference"]
    assert "Relevant task tools include: get_order_status, update_order." in calls[0].messages[-1].content
    assert named(result["messages"]) == ["nemotron_final_answer_guard"]
    assert "Spring Sale" in result["messages"][-2].content
    assert result["messages"][-1].content == "Order 5 is now shipped (Spring Sale)."


@pytest.mark.parametrize("mode", MODES)
def test_followup_guard(mode: str) -> None:
    """A follow-up re-asking the schedule the user gave is sent back once."""
    script = [
        "What time should I send it, and in which timezone?",
        "Which channel should I deliver it to: email or Slack?",
    ]
    both = run(script, user("Send me a weekly report every Monday."), mode)
    result = assert_parity(both)
    assert named(result["messages"]) == ["nemotron_followup_guard"]
    assert len(both.ref.calls) == 2


@pytest.mark.parametrize("mode", MODES)
def test_progress_budget(mode: str) -> None:
    """Three identical calls in a row: the turn ends with the results, without another call."""
    again = ("get_order_status", {"order_id": 7})
    script = [ai_tool_calls(again), ai_tool_calls(again), ai_tool_calls(again)]
    both = run(script, user("Look up the status of order 7."), mode, tools=[get_order_status])
    result = assert_parity(both)
    final = result["messages"][-1]
    assert len(both.ref.calls) == 3
    assert final.name == "nemotron_progress_budget"
    assert final.response_metadata["nemotron_progress_budget_reason"] == "3 repeated identical tool calls"
    assert final.content.startswith("Using the tool results gathered so far:\n- get_order_status: ")


@pytest.mark.parametrize("mode", MODES)
def test_entity_and_chain_nudges(mode: str) -> None:
    """A current-entity lookup bound to an unresolved ID, and a chained action after lookups:
    both nudges before the next call; then an emailed subject the answer must repeat."""
    script = [
        ai_tool_calls(("get_current_user_id", {})),
        ai_tool_calls(("get_user_manager", {"user_id": 1001})),
        ai_tool_calls(("get_manager_name", {"manager_id": 2002})),
        ai_tool_calls(("send_email", {"to": "Dana", "subject": "Quarterly plan"})),
        "Done.",
        "Emailed Dana about the Quarterly plan.",
    ]
    tools = [get_current_user_id, get_user_manager, get_manager_name, send_email]
    both = run(script, user("Find the current user's manager and then email them."), mode, tools=tools)
    result = assert_parity(both)
    nudges = [named(call.messages) for call in both.ref.calls]
    assert nudges[:3] == [
        ["nemotron_domain_tool_preference"],
        ["nemotron_tool_chain_nudge"],
        ["nemotron_tool_chain_nudge", "nemotron_entity_guard"],
    ]
    entity = next(m for m in result["messages"] if m.name == "nemotron_entity_guard")
    assert "manager_id 2002 from current user 1001" in entity.content
    assert named(result["messages"])[-1] == "nemotron_final_answer_guard"
    assert result["messages"][-1].content == "Emailed Dana about the Quarterly plan."


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_stream_nodes(mode: str) -> None:
    """The same nudges and jumps as the stream shows them: each node's update, in order."""
    script = [
        ai_tool_calls(("update_order", {"order_id": 5, "status": "shipped", "title": "Spring Sale"})),
        "Done.",
        "Order 5 is now shipped (Spring Sale).",
    ]
    both = run(script, user("Please update order 5 to shipped now."), mode, tools=[get_order_status, update_order])
    assert [call_view(c) for c in both.rs.calls] == [call_view(c) for c in both.ref.calls]
    assert both.ref.error is None and both.rs.error is None
    assert both.extras["deepagents_rs"] == both.extras["deepagents"]
    nodes = [node for node, _ in both.extras["deepagents"]]
    assert nodes.count("FinalAnswerGuardMiddleware.after_agent") == 2
    assert "NemotronPolicyNudgeMiddleware.before_model" in nodes


@pytest.mark.parametrize("mode", MODES)
def test_general_purpose_subagent(mode: str) -> None:
    """The general-purpose subagent runs the same model, so the same profile: its requests
    carry the suffix, the `read_file` description and the nudges too."""
    script = [
        ai_tool_calls(("task", {"description": "Which order is late?", "subagent_type": "general-purpose"})),
        ai_tool_calls(("get_order_status", {"order_id": 7})),
        "<think>Order 7.</think>Order 7 is late.",
        "Order 7 is the late one.",
    ]
    both = run(script, user("Find out which order is late."), mode, tools=[get_order_status])
    result = assert_parity(both)
    sub = both.ref.calls[1]
    assert "<state_changes>" in sub.messages[0].content
    assert named(sub.messages) == ["nemotron_domain_tool_preference"]
    assert result["messages"][2].content == "Order 7 is late."


# --------------------------------------------------------------------------------------------
# On the simulated OpenAI-compatible wire (NVIDIA's API is Chat Completions)
# --------------------------------------------------------------------------------------------

_PARSED_ID = re.compile(r"\b[0-9a-f]{32}\b")


def _stable_ids(body: str) -> str:
    """The body with the ids of calls parsed from text (random uuid4 hex) numbered in order."""
    seen: dict[str, str] = {}
    return _PARSED_ID.sub(lambda m: seen.setdefault(m.group(0), f"parsed-{len(seen)}"), body)


@pytest.mark.parametrize("mode", MODES)
def test_on_the_chat_completions_wire(mode: str) -> None:
    """A `ChatOpenAI` on the simulated API whose identifier names the Nemotron spec: every
    request body the same bytes (parsed call ids numbered), and the same final messages."""
    from langchain_openai import ChatOpenAI
    from sim.openai import SimOpenAI, text, tool_calls

    bodies, finals = {}, {}
    for impl, module in IMPLS.items():
        with SimOpenAI(min_cache_tokens=256) as server:
            server.script(
                text("<function=ls><parameter name=path>/</parameter></function>"),
                tool_calls(("read_file", {"path": "/missing.txt"})),
                text('{"tool": "ls", "args": {"path": "/"}}'),
                text("<think>Nothing there.</think>The folder is empty."),
            )
            # The async client is closed inside the run's own event loop (none is left open).
            http = httpx.AsyncClient()
            model = ChatOpenAI(
                model=f"nvidia:{NemotronModel.model_fields['model_name'].default}",
                base_url=server.base_url,
                api_key="sk-test",
                use_responses_api=False,
                http_async_client=http,
            )
            agent = module.create_deep_agent(model=model, system_prompt="Be brief.")
            inp = user("Open the file /missing.txt and tell me what it says.")

            async def ainvoke(agent: Any = agent, http: Any = http, inp: Any = inp) -> Any:
                try:
                    return await agent.ainvoke(inp)
                finally:
                    await http.aclose()

            result = agent.invoke(inp) if mode == "invoke" else asyncio.run(ainvoke())
            bodies[impl] = [_stable_ids(json.dumps(r.body, ensure_ascii=False)) for r in server.requests]
            finals[impl] = [(m.type, _stable_ids(m.text), getattr(m, "name", None)) for m in result["messages"]]
    assert len(bodies["deepagents"]) == 4
    for i, (theirs, ours) in enumerate(zip(bodies["deepagents"], bodies["deepagents_rs"], strict=True)):
        assert ours == theirs, f"request {i} differs"
    assert finals["deepagents_rs"] == finals["deepagents"]
    first = json.loads(bodies["deepagents"][0])
    assert "<state_changes>" in first["messages"][0]["content"]
    assert first["messages"][-1]["content"].startswith("The user is asking for file or path content")
    assert finals["deepagents"][-1] == ("ai", "The folder is empty.", None)


@pytest.mark.parametrize("mode", MODES)
def test_markers_across_turns(mode: str) -> None:
    """Two turns on one checkpointed thread: the guards' markers are private (absent from the
    output) but kept in the thread, so a guard that fired in the first turn stays quiet in the
    second; the action-commit nudge keys on the turn's position and text."""
    from langgraph.checkpoint.memory import InMemorySaver

    script = [
        ai_tool_calls(("update_order", {"order_id": 5, "status": "shipped", "title": "Spring Sale"})),
        "Done.",
        "Order 5 is shipped (Spring Sale).",
        ai_tool_calls(("update_order", {"order_id": 6, "status": "held", "title": "Winter Sale"})),
        "Done.",
    ]
    config = {"configurable": {"thread_id": "t1"}}
    outcomes, views = {}, {}
    for impl, module in IMPLS.items():
        model = NemotronModel(copy.deepcopy(script))
        agent = module.create_deep_agent(
            model=model, tools=[get_order_status, update_order], checkpointer=InMemorySaver()
        )
        turns = (user("Please update order 5 to shipped."), user("Now hold order 6, go ahead."))
        results = []
        for inp in turns:
            if mode == "invoke":
                results.append(agent.invoke(copy.deepcopy(inp), config=config))
            else:
                results.append(asyncio.run(agent.ainvoke(copy.deepcopy(inp), config=config)))
        mirrored_ids(model)
        outcomes[impl] = Outcome(impl=impl, model=model, result=results[-1])
        views[impl] = [sorted(r) for r in results]
    result = assert_parity(Both(ref=outcomes["deepagents"], rs=outcomes["deepagents_rs"]))
    assert views["deepagents_rs"] == views["deepagents"]
    assert "nemotron_final_guard_fired" not in views["deepagents"][0]
    # The second "Done." is let through: the final-answer guard fired in the first turn.
    assert result["messages"][-1].content == "Done."
    assert named(outcomes["deepagents"].calls[3].messages).count("nemotron_action_commit_nudge") == 1
