"""A fork's first request is served from the parent's prompt cache, in full.

Measured on the simulated Messages API, which caches prefixes the way Anthropic does (tools
-> system -> messages, breakpoints, 20-block lookback). deepagents runs the same scenarios
for contrast: where it changes the fork's system prompt or tool list, its cache misses.
"""

from __future__ import annotations

import pytest
from deepagents_rs import create_deep_agent
from sim.anthropic import SimAnthropic, text, tool_use

# Both implementations announce forks as a beta feature, as deepagents does.
pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

MODEL = "anthropic:claude-sonnet-4-5"
SYSTEM = "You are the main agent. Investigate before answering. " * 30


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key} " * 20


def other(key: str) -> str:
    """Another tool the fork does not need."""
    return key


VARIANTS = {
    "plain": {},
    "own-system-prompt": {"system_prompt": "You only fix bugs."},
    "narrower-tools": {"tools": [lookup]},
    "both": {"system_prompt": "You only fix bugs.", "tools": [lookup]},
}


def _run(create, sim: SimAnthropic, variant: dict) -> tuple[dict, dict, dict]:
    """Parent: one lookup round, then a task call to the fork; the fork answers; the parent
    answers. Returns the parent's last request before the fork, the fork's first request,
    and the fork's first response usage."""
    start = len(sim.requests)
    sim.script(
        tool_use(("lookup", {"key": "bug"}, "toolu_1")),
        tool_use(("task", {"description": "fix the bug", "subagent_type": "fixer"}, "toolu_2"), text="Delegating."),
        text("fixed"),
        text("done"),
    )
    fork = {"name": "fixer", "description": "Fixes what was diagnosed.", "mode": "fork", **variant}
    agent = create(model=MODEL, tools=[lookup, other], system_prompt=SYSTEM, subagents=[fork])
    agent.invoke({"messages": [{"role": "user", "content": "Find the bug and fix it."}]})
    parent, fork_req = sim.requests[start + 1], sim.requests[start + 2]
    assert "[The messages above are a prior conversation" in str(fork_req.body["messages"][-1])
    return parent.body, fork_req.body, fork_req.response["usage"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_fork_reads_the_whole_parent_prefix(sim: SimAnthropic, variant: str) -> None:
    parent, fork, usage = _run(create_deep_agent, sim, VARIANTS[variant])
    # Byte-identical prefix: same tools, same system blocks, same messages up to the end of
    # the parent's history; the fork only adds its task text in the last user turn.
    assert fork["tools"] == parent["tools"]
    assert fork["system"] == parent["system"]
    assert fork["messages"][:-1] == parent["messages"][:-1]
    last_parent, last_fork = parent["messages"][-1], fork["messages"][-1]
    assert last_fork["content"][: len(last_parent["content"])] == last_parent["content"]
    # Everything the parent's last request held is read from cache.
    assert usage["cache_read_input_tokens"] == sim.tokens(parent)
    assert usage["cache_read_input_tokens"] > 0


def test_fork_instructions_and_tool_limits_reach_the_fork(sim: SimAnthropic) -> None:
    _, fork, _ = _run(create_deep_agent, sim, VARIANTS["both"])
    task_text = fork["messages"][-1]["content"][-1]["text"]
    assert "You only fix bugs." in task_text
    assert task_text.endswith("fix the bug")


def test_fork_is_refused_tools_outside_its_list(sim: SimAnthropic) -> None:
    sim.script(
        tool_use(("task", {"description": "fix", "subagent_type": "fixer"}, "toolu_1")),
        tool_use(("other", {"key": "x"}, "toolu_2")),
        text("fixed without it"),
        text("done"),
    )
    fork = {"name": "fixer", "description": "Fixes.", "mode": "fork", "tools": [lookup]}
    agent = create_deep_agent(model=MODEL, tools=[lookup, other], subagents=[fork])
    agent.invoke({"messages": [("user", "go")]})
    refused = sim.requests[2].body["messages"][-1]["content"][0]
    assert refused["type"] == "tool_result" and refused["is_error"] is True
    assert "other is not available to this subagent" in refused["content"]


@pytest.mark.parametrize("variant", ["own-system-prompt", "narrower-tools"])
def test_reference_misses_where_ours_hits(sim: SimAnthropic, variant: str) -> None:
    deepagents = pytest.importorskip("deepagents")
    ref_parent, _, ref_usage = _run(deepagents.create_deep_agent, sim, VARIANTS[variant])
    ref_shared = sim.tokens(ref_parent)
    sim.reset()
    our_parent, _, our_usage = _run(create_deep_agent, sim, VARIANTS[variant])
    # Ours reads all of the parent's last request; the reference only part of its own.
    assert our_usage["cache_read_input_tokens"] == sim.tokens(our_parent)
    assert ref_usage["cache_read_input_tokens"] < ref_shared


def test_subagent_usage_is_recorded_and_added_to_the_run(sim: SimAnthropic) -> None:
    from deepagents_rs.usage import run_usage

    start = len(sim.requests)
    sim.script(
        tool_use(("task", {"description": "fix it", "subagent_type": "fixer"}, "toolu_1")),
        text("fixed"),
        text("done"),
    )
    fork = {"name": "fixer", "description": "Fixes.", "mode": "fork"}
    result = create_deep_agent(model=MODEL, system_prompt=SYSTEM, subagents=[fork]).invoke(
        {"messages": [("user", "go")]}
    )
    reported = [r.response["usage"] for r in sim.requests[start:]]
    task_result = result["messages"][2]
    fork_usage = task_result.response_metadata["usage_metadata"]
    assert task_result.response_metadata["subagent"] == "fixer"
    assert fork_usage["input_token_details"]["cache_read"] == reported[1]["cache_read_input_tokens"] > 0
    totals = run_usage(result)
    assert totals["output_tokens"] == sum(u["output_tokens"] for u in reported)
    assert totals["input_tokens"] == sum(
        u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] for u in reported
    )
    assert totals["input_token_details"]["cache_read"] == sum(u["cache_read_input_tokens"] for u in reported)


def test_a_fork_right_after_a_summary_reads_the_compacted_prefix(sim: SimAnthropic) -> None:
    # The parent summarizes on its fifth call (nine messages, trigger 8, keep 2) and delegates
    # on that call's reply; the fork's first request is the parent's compacted request plus
    # the task, so all of the parent's request is read from cache.
    from deepagents_rs.backends import StateBackend
    from deepagents_rs.middleware import SummarizationMiddleware

    start = len(sim.requests)
    sim.script(
        *(tool_use(("lookup", {"key": f"k{i}"}, f"toolu_{i}")) for i in range(4)),
        text("SUMMARY OF THE LOOKUPS"),
        tool_use(("task", {"description": "fix the bug", "subagent_type": "fixer"}, "toolu_t"), text="Delegating."),
        text("fixed"),
        text("done"),
    )
    summarization = SummarizationMiddleware(
        model=MODEL, backend=StateBackend(), trigger=("messages", 8), keep=("messages", 2)
    )
    fork = {"name": "fixer", "description": "Fixes what was diagnosed.", "mode": "fork"}
    agent = create_deep_agent(
        model=MODEL, tools=[lookup], system_prompt=SYSTEM, subagents=[fork], middleware=[summarization]
    )
    agent.invoke({"messages": [{"role": "user", "content": "Find the bug and fix it."}]})
    summary_req, parent, fork_req = (sim.requests[start + i].body for i in (4, 5, 6))
    assert "Messages to summarize:" in str(summary_req["messages"][0])
    assert "SUMMARY OF THE LOOKUPS" in str(parent["messages"][0])
    assert len(parent["messages"]) == 3  # summary, the kept call and its result
    assert fork_req["tools"] == parent["tools"] and fork_req["system"] == parent["system"]
    assert fork_req["messages"][:-1] == parent["messages"][:-1]
    last_parent, last_fork = parent["messages"][-1], fork_req["messages"][-1]
    assert last_fork["content"][: len(last_parent["content"])] == last_parent["content"]
    usage = sim.requests[start + 6].response["usage"]
    assert usage["cache_read_input_tokens"] == sim.tokens(parent)
