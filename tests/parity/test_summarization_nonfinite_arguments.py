"""Parity: server tool arguments written with ``NaN``, ``Infinity`` or ``-Infinity``.

LangChain reads a Groq executed tool's ``arguments``, an OpenAI ``mcp_call``'s
``arguments`` and an Anthropic server tool's ``partial_json`` with Python's ``json.loads``,
which takes these constants as floats. The core reads them the same way: the call is a
``server_tool_call`` with the floats as its arguments (not left out, not kept as extras),
and text that is not JSON for Python is still not read. (A reply without media is written
to the history as it is, so whole runs only show the same requests, files and state.)
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from deepagents_rs import _convert, _core
from langchain_core.messages import AIMessage

from .test_summarization import _STAMP
from .test_summarization_bytes_payloads import masked
from .test_summarization_provider_blocks import _history, _run

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def tagged(content: Any, provider: str, **kwargs: Any) -> AIMessage:
    return AIMessage(content=content, response_metadata={"model_provider": provider}, **kwargs)


def groq(arguments: str, tool_type: str = "search") -> AIMessage:
    tool = {"type": tool_type, "arguments": arguments, "output": "found"}
    return tagged("ran it", "groq", additional_kwargs={"executed_tools": [tool]})


def mcp(arguments: str) -> AIMessage:
    item = {"type": "mcp_call", "id": "mcp_1", "name": "probe", "server_label": "lab", "arguments": arguments}
    return tagged([item], "openai")


def anthropic(partial: str) -> AIMessage:
    block = {"type": "server_tool_use", "name": "web_search", "input": {}, "partial_json": partial, "id": "s1"}
    return tagged([block], "anthropic")


ARGUMENTS = {
    "nan": '{"q": NaN}',
    "infinities": '{"lo": -Infinity, "hi": [Infinity, 1, "NaN"]}',
    "spaced": '{ "x" :\n  NaN , "y": {"z": [ -Infinity ]}}',
    "nested strings": '{"s": "Infinity \\" NaN", "n": NaN}',
    "not json: a key": "{NaN: 1}",
    "not json: a word": '{"q": NaNo}',
    "not json: lower case": '{"q": nan}',
    "not json: trailing": '{"q": 1} NaN',
    "a bare constant": "Infinity",
    "a list": "[NaN, -Infinity]",
}
READERS = {"groq": groq, "groq python": lambda a: groq(a, "python"), "mcp": mcp, "anthropic": anthropic}


def _outcome(read: Any) -> Any:
    try:
        return "read", repr(masked(read()))  # repr: nan is not equal to itself
    except Exception as exc:  # noqa: BLE001 - compared
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("arguments", ARGUMENTS.values(), ids=ARGUMENTS.keys())
@pytest.mark.parametrize("reader", READERS)
def test_the_core_reads_constants_as_langchain(reader: str, arguments: str) -> None:
    message = READERS[reader](arguments)
    ours = _outcome(lambda: _core.content_blocks(_convert.to_core(message)))
    theirs = _outcome(lambda: message.content_blocks)
    assert ours == theirs


def _call(message: AIMessage) -> dict[str, Any]:
    blocks = _core.content_blocks(_convert.to_core(message))
    return next(b for b in blocks if b["type"] == "server_tool_call")


def test_the_floats_come_back_as_floats() -> None:
    args = _call(groq(ARGUMENTS["infinities"]))["args"]
    assert args["lo"] == float("-inf") and args["hi"] == [float("inf"), 1, "NaN"]
    call = _call(mcp(ARGUMENTS["nan"]))
    assert math.isnan(call["args"]["q"]) and "arguments" not in call.get("extras", {})


RUNS = {
    "groq": groq(ARGUMENTS["infinities"]),
    "groq python": groq('{"code": "print(1)", "limit": NaN}', "python"),
    "mcp": mcp(ARGUMENTS["spaced"]),
    "anthropic": anthropic(ARGUMENTS["nan"]),
}


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize("message", RUNS.values(), ids=RUNS.keys())
def test_the_history_shows_them_as_deepagents_does(message: Any, mode: str) -> None:
    ref, rs = _run([message], mode)  # compares the requests, summary prompts, files, state
    shown = [_STAMP.sub("Summarized at <time>", masked(_history(run))) for run in (ref, rs)]
    assert shown[1] == shown[0]
