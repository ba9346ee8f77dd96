"""Parity: deepagents' private helpers that code outside it imports, side by side.

deepagents' own tests (and tools built on deepagents, such as its CLI) import a few private
helpers: model matching (``_models``), the version reported in run metadata (``_version``),
the messages delta reducer (``_messages_reducer``), the rubric grader's transcript, and the
async subagent tools, headers and task merge. Each is called here on both packages with the
same inputs, and the answers must be equal; a few of deepagents' answers are asserted too, so
a scenario that stopped exercising its rule fails.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any
from unittest.mock import MagicMock, patch

import pytest
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

ROOTS = ("deepagents", "deepagents_rs")


def both(module: str) -> list[Any]:
    return [importlib.import_module(f"{root}.{module}") for root in ROOTS]


def same(call: Any) -> Any:
    """``call(module_root)`` for both packages; equal answers (or equal exception types)."""
    seen = []
    for root in ROOTS:
        try:
            seen.append(("ok", call(root)))
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            seen.append(("raised", type(exc).__name__))
    assert seen[1] == seen[0]
    return seen[0][1]


class _Model:
    """A chat model stand-in: its identifier fields, its `_get_ls_params` and its class name."""

    def __init__(self, cls: str = "Chat", ls: Any = None, **fields: Any) -> None:
        self.__class__ = type(cls, (_Model,), {})
        self.__dict__.update(fields)
        self._ls = ls

    def _get_ls_params(self) -> Any:
        if isinstance(self._ls, Exception):
            raise self._ls
        return self._ls


BEDROCK_STRINGS = [
    "bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0",
    "bedrock_converse:us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    "Amazon-Bedrock:x",
    "aws:amazon.nova-pro-v1:0",
    "amazon.nova-pro-v1:0",
    "us-gov.amazon.nova-lite-v1:0",
    "eu.amazon.nova-micro-v1:0",
    "xx.amazon.nova-pro-v1:0",
    "amazon.titan-text",
    "anthropic:claude-sonnet-4-6",
    "bedrock",
    "",
]

MODELS = [
    _Model(model_name="claude-sonnet-4-6", ls={"ls_provider": "anthropic"}),
    _Model(model="gpt-5.5", ls={"ls_provider": "openai-codex"}),
    _Model(model="gpt-5.5", ls={"ls_provider": "Azure"}),
    _Model(model="mistral-large", ls={"ls_provider": "mistral"}),
    _Model(model="x", ls={"ls_provider": "amazon_bedrock"}),
    _Model("ChatBedrockConverse", model_id="x", ls={}),
    _Model("ChatBedrock", ls=None),
    _Model(model="m", ls=AttributeError("no params")),
    _Model(model_name="", model="fallback", ls={"ls_provider": ""}),
    _Model(ls={"ls_provider": "openai"}),
]

SPECS = [
    "claude-sonnet-4-6",
    "anthropic:claude-sonnet-4-6",
    "openai:gpt-5.5",
    "openai_codex:gpt-5.5",
    "azure_openai:gpt-5.5",
    "mistralai:mistral-large",
    "openai:m",
    "m",
    "fallback",
    ":fallback",
    "anything",
]


@pytest.mark.parametrize("spec", BEDROCK_STRINGS)
def test_is_bedrock_model_strings(spec):
    same(lambda root: importlib.import_module(f"{root}._models").is_bedrock_model(spec))


def test_is_bedrock_model_models():
    answers = same(lambda root: [importlib.import_module(f"{root}._models").is_bedrock_model(m) for m in MODELS])
    assert answers[4] is True and answers[5] is True and answers[0] is False


def test_model_matches_spec(caplog):
    def run(root: str) -> Any:
        caplog.clear()
        with caplog.at_level(logging.DEBUG):
            module = importlib.import_module(f"{root}._models")
            answers = [[module.model_matches_spec(m, s) for s in SPECS] for m in MODELS]
        return answers, [r.getMessage() for r in caplog.records if r.name.endswith("._models")]

    answers, logs = same(run)
    assert answers[1][3] is True and answers[2][4] is True and answers[3][5] is True
    assert answers[1][2] is False and answers[7][6] is True and logs


@pytest.mark.parametrize(
    "spec", ["openai:gpt-5", "anthropic:claude-sonnet-4-6", "openrouter:anthropic/claude-sonnet-4-6"]
)
def test_resolve_model_calls_init_chat_model(spec):
    def run(root: str) -> Any:
        module = importlib.import_module(f"{root}._models")
        with patch(f"{root}._models.init_chat_model") as init:
            init.return_value = MagicMock()
            assert module.resolve_model(spec) is init.return_value
        given = MagicMock(spec=importlib.import_module("langchain_core.language_models").BaseChatModel)
        assert module.resolve_model(given) is given
        return init.call_args

    same(run)


@pytest.mark.parametrize("value", ["0.7.32", "1.0.0-alpha1", "1.0+build", "2!1.0.post1", "not a version", ""])
def test_editable_local_version(value):
    same(lambda root: importlib.import_module(f"{root}._version")._with_editable_local_version(value))


def test_version_and_lc_version():
    ref, ours = both("_version")
    assert ours.__version__ == ref.__version__
    for module in (ref, ours):
        with patch.object(module, "_is_editable_install", return_value=True):
            module._lc_version.cache_clear()
            assert module._lc_version() == f"{module.__version__}+editable"
        module._lc_version.cache_clear()


REDUCER_CASES = [
    (None, [[HumanMessage("a", id="1")]]),
    ([HumanMessage("a", id="1")], [[AIMessage("b", id="2")], HumanMessage("c", id="3")]),
    ([HumanMessage("a", id="1"), AIMessage("b", id="2")], [[AIMessage("B", id="2")], [RemoveMessage(id="1")]]),
    ([HumanMessage("a", id="1")], [[RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("new", id="9")]]),
    ([{"role": "user", "content": "raw", "id": "r"}], [["plain string"], [("ai", "tuple")]]),
    ([HumanMessage("a", id="1")], [[HumanMessage("no id")], [RemoveMessage(id="missing")]]),
]


@pytest.mark.parametrize("case", range(len(REDUCER_CASES)))
def test_messages_delta_reducer(case):
    state, writes = REDUCER_CASES[case]

    def run(root: str) -> Any:
        reduce = importlib.import_module(f"{root}._messages_reducer")._messages_delta_reducer
        return [
            (type(m).__name__, m.content, m.id if m.id in {"1", "2", "3", "9", "r"} else None)
            for m in reduce(state, writes)
        ]

    same(run)


def _random_write(rnd: Any) -> Any:
    """A write to `messages`: a message (new, or replacing or removing one of 30 ids, some
    without an id), a dict, or the clear-all marker; alone or in a list."""

    def one() -> Any:
        k, i = rnd.random(), rnd.randrange(30)
        if k < 0.1:
            return RemoveMessage(id=f"id{i}")
        if k < 0.13:
            return RemoveMessage(id=REMOVE_ALL_MESSAGES)
        if k < 0.2:
            return {"role": "user", "content": f"d{i}", "id": f"id{i}"}
        if k < 0.25:
            return HumanMessage(f"no id {i}")
        return (HumanMessage if k < 0.6 else AIMessage)(f"c{rnd.random()}", id=f"id{i}")

    return [one() for _ in range(rnd.randrange(0, 4))] if rnd.random() < 0.7 else one()


@pytest.mark.parametrize("seed", range(8))
def test_messages_delta_reducer_over_a_thread(seed):
    """Chains of writes, each reduced onto the previous result (as a delta channel reduces
    step after step), a copy of the value now and then, and a fork: an earlier value reduced
    again with other writes. Our reducer remembers the ids of the history it returned last;
    every result must still be deepagents' own (ours run as a thread graph's step runs it,
    with a run's `HistoryIds` current)."""
    import random

    rnd = random.Random(seed)
    chains = []
    for _ in range(20):
        steps = [[_random_write(rnd) for _ in range(rnd.randrange(1, 3))] for _ in range(rnd.randrange(1, 15))]
        copies = [rnd.random() < 0.15 for _ in steps]
        fork = (rnd.randrange(len(steps)), [_random_write(rnd)])
        chains.append((steps, copies, fork))

    def run(root: str) -> Any:
        module = importlib.import_module(f"{root}._messages_reducer")
        reduce = module._messages_delta_reducer
        if root == "deepagents_rs":
            import threading

            memory = module.HistoryIds()
            memory.owner = threading.get_ident()
            token = module.CURRENT.set(memory)
            try:
                return chained(reduce)
            finally:
                module.CURRENT.reset(token)
        return chained(reduce)

    def chained(reduce: Any) -> Any:
        out = []
        for steps, copies, (at, fork_writes) in chains:
            value, values = None, []
            for writes, copy in zip(steps, copies, strict=True):
                value = reduce(value, writes)
                values.append(value)
                if copy:
                    value = list(value)
            forked = reduce(values[at], fork_writes)
            for v in [*values, forked]:
                out.append([(type(m).__name__, m.content, m.id if str(m.id).startswith("id") else None) for m in v])
        return out

    same(run)


TRANSCRIPTS = [
    [],
    [HumanMessage("please </RUBRIC> do"), AIMessage("x" * 5000)],
    [
        HumanMessage("request"),
        *[AIMessage(f"step {i}", tool_calls=[{"name": "ls", "args": {"p": i}, "id": f"c{i}"}]) for i in range(20)],
        *[ToolMessage(f"out {i}", tool_call_id=f"c{i}", name="ls") for i in range(20)],
        HumanMessage("revise", additional_kwargs={"lc_source": "rubric_grader"}),
        AIMessage([{"type": "text", "text": "done"}, {"type": "image", "url": "https://x/y.png"}]),
    ],
]


@pytest.mark.parametrize("case", range(len(TRANSCRIPTS)))
def test_grader_transcript(case):
    same(lambda root: importlib.import_module(f"{root}.middleware.rubric")._build_grader_transcript(TRANSCRIPTS[case]))


def test_sanitize_for_payload():
    text = "a </rubric> b </Transcript> c </CRITERIA> d </other>"
    assert "</rubric>" not in same(
        lambda root: importlib.import_module(f"{root}.middleware.rubric")._sanitize_for_payload(text)
    )


SPEC = {"name": "alpha", "description": "Alpha agent", "graph_id": "g", "url": "http://127.0.0.1:1"}


def test_async_subagent_helpers():
    def run(root: str) -> Any:
        module = importlib.import_module(f"{root}.middleware.async_subagents")
        headers = [module._resolve_headers(s) for s in (SPEC, {**SPEC, "headers": {"x-auth-scheme": "own", "k": "v"}})]
        task = {"task_id": "t", "agent_name": "alpha", "thread_id": "t", "run_id": "r", "status": "running"}
        merged = module._tasks_reducer({"t": task, "u": task}, {"t": {**task, "status": "success"}})
        tools = module._build_async_subagent_tools([SPEC])
        return headers, merged, [(t.name, t.description, t.args) for t in tools]

    same(run)


def test_async_tools_use_the_patched_sdk_client():
    """A launch goes through the module's `get_sync_client`, patched here on both packages."""

    def run(root: str) -> Any:
        from langchain.tools import ToolRuntime

        module = importlib.import_module(f"{root}.middleware.async_subagents")
        with patch(f"{root}.middleware.async_subagents.get_sync_client") as factory:
            client = factory.return_value
            client.threads.create.return_value = {"thread_id": "th"}
            client.runs.create.return_value = {"run_id": "rn"}
            start = module._build_async_subagent_tools([SPEC])[0]
            runtime = ToolRuntime(
                state={"messages": []}, context=None, config={}, stream_writer=lambda _: None,
                tool_call_id="call", store=None,
            )  # fmt: skip
            result = start.func(description="go", subagent_type="alpha", runtime=runtime)
        task = result.update["async_tasks"]["th"]
        return (
            factory.call_args,
            task["run_id"],
            task["status"],
            client.runs.create.call_args.kwargs.get("assistant_id"),
        )

    assert same(run)[1:] == ("rn", "running", "g")
