"""Parity: deepagents' eviction of very large human messages (``FilesystemMiddleware``'s
``human_message_token_limit_before_evict``, 50,000 tokens by default).

A last human message of more than four characters per token is written to
``/conversation_history/<uuid>.md``, tagged in the state (``lc_evicted_to``, content kept
whole) and shown to the model as a stub with a preview, on that call and every later one,
in later turns too. The uuid differs between runs; it is masked before comparing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from .fs_support import MODES, api, make_backend, run_fs, store_items
from .harness import ScriptedChatModel, call_view, norm, norm_files

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

_PATH = re.compile(r"conversation_history/[0-9a-f-]{36}\.md")


def masked(value: Any) -> Any:
    return json.loads(_PATH.sub("conversation_history/<uuid>.md", json.dumps(value, default=str)))


def big_text(lines: int, width: int = 60) -> str:
    return "".join(f"{i:05d} " + "x" * width + "\n" for i in range(lines))


def compare(run: Any) -> dict[str, Any]:
    ref, rs = run.ref.unwrap(), run.rs.unwrap()
    ref_calls = [call_view(c) for c in run.ref.calls]
    rs_calls = [call_view(c) for c in run.rs.calls]
    assert masked(rs_calls) == masked(ref_calls)
    assert masked(norm(rs["messages"])) == masked(norm(ref["messages"]))
    assert masked(norm_files(rs.get("files"))) == masked(norm_files(ref.get("files")))
    if run.disk:
        assert masked(run.disk["deepagents_rs"]) == masked(run.disk["deepagents"])
    ref_store, rs_store = (run.kwargs[i].get("store") for i in ("deepagents", "deepagents_rs"))
    if ref_store is not None:

        def items(store: Any) -> dict[str, Any]:
            return {repr(k): v for k, v in store_items(store).items()}

        assert masked(items(rs_store)) == masked(items(ref_store))
    return ref


@pytest.fixture(params=["state", "fs_virtual", "store"])
def backend(request: pytest.FixtureRequest, tmp_path: Path):
    return make_backend(request.param, tmp_path, {"/seed.txt": "seed\n"})


def _setup(backend, limit: int | None):
    def setup(a):
        kwargs = backend.setup(a)
        mw = a.FilesystemMiddleware(
            backend=kwargs.pop("backend", None) or a.StateBackend(),
            human_message_token_limit_before_evict=limit,
        )
        kwargs["middleware"] = [mw]
        return kwargs

    return setup


@pytest.mark.parametrize("mode", MODES)
def test_a_large_last_human_message_is_evicted(backend, mode: str) -> None:
    # Over 4 * 100 characters: evicted; the model sees the stub and a preview.
    text = big_text(40)
    run = run_fs(
        ["done"],
        mode=mode,
        setup=_setup(backend, 100),
        tree=backend.tree,
        inp=backend.inp({"messages": [{"role": "user", "content": text}]}),
    )
    ref = compare(run)
    human = ref["messages"][0]
    assert human.content == text  # the state keeps the whole message
    assert human.additional_kwargs["lc_evicted_to"].startswith("/conversation_history/")
    seen = run.ref.calls[0].messages[-1].content
    assert seen.startswith("Message content too large and was saved to the filesystem at: /conversation_history/")


def test_the_default_limit_evicts_past_200k_characters(backend) -> None:
    text = big_text(3_400)  # ~ 224k characters
    run = run_fs(
        ["done"],
        mode="invoke",
        setup=_setup(backend, 50_000),
        tree=backend.tree,
        inp=backend.inp({"messages": [{"role": "user", "content": text}]}),
    )
    ref = compare(run)
    assert "lc_evicted_to" in ref["messages"][0].additional_kwargs


def test_a_small_message_and_a_disabled_limit_change_nothing(backend) -> None:
    for limit, text in ((100, "short"), (None, big_text(40))):
        run = run_fs(
            ["done"],
            mode="invoke",
            setup=_setup(backend, limit),
            tree=backend.tree,
            inp=backend.inp({"messages": [{"role": "user", "content": text}]}),
        )
        ref = compare(run)
        assert "lc_evicted_to" not in ref["messages"][0].additional_kwargs
        assert run.ref.calls[0].messages[-1].content == text


def test_a_tagged_message_stays_a_stub_in_later_turns() -> None:
    # A second turn: the earlier, tagged message is shown as its stub again and is not
    # written twice; a new large message at the end is evicted too.
    first = big_text(40)
    second = big_text(50, width=30)
    results = {}
    for impl in ("deepagents", "deepagents_rs"):
        a = api(impl)
        model = ScriptedChatModel(["one", "two"])
        agent = a.create_deep_agent(
            model=model, middleware=[a.FilesystemMiddleware(human_message_token_limit_before_evict=100)]
        )
        r1 = agent.invoke({"messages": [HumanMessage(first)]})
        r2 = agent.invoke({"messages": [*r1["messages"], HumanMessage(second)], "files": r1["files"]})
        results[impl] = (r2, [call_view(c) for c in model.calls])
    (ref, ref_calls), (rs, rs_calls) = results["deepagents"], results["deepagents_rs"]
    assert masked(rs_calls) == masked(ref_calls)
    assert masked(norm(rs["messages"])) == masked(norm(ref["messages"]))
    assert masked(norm_files(rs["files"])) == masked(norm_files(ref["files"]))
    assert len(ref["files"]) == 2
    assert [type(m) for m in ref["messages"]] == [HumanMessage, AIMessage, HumanMessage, AIMessage]


def test_the_model_steps_update_streams_the_tagged_message() -> None:
    # LangGraph streams the model node's write: the reply, then the tagged message.
    text = big_text(40)
    updates = {}
    for impl in ("deepagents", "deepagents_rs"):
        a = api(impl)
        agent = a.create_deep_agent(
            model=ScriptedChatModel(["done"]),
            middleware=[a.FilesystemMiddleware(human_message_token_limit_before_evict=100)],
        )
        chunks = list(agent.stream({"messages": [HumanMessage(text, id="h1")]}, stream_mode="updates"))
        model = [c["model"] for c in chunks if "model" in c]
        updates[impl] = [
            [{k: (norm(v) if k == "messages" else norm_files(v)) for k, v in w.items()} for w in u] for u in model
        ]
    assert masked(updates["deepagents_rs"]) == masked(updates["deepagents"])
    # The backend's file write, the reply, then the tagged message.
    writes = updates["deepagents"][0]
    assert [sorted(w) for w in writes] == [["files"], ["messages"], ["messages"]]
    assert [w["messages"][0]["type"] for w in writes[1:]] == ["ai", "human"]


PNG_BLOCK = {
    "type": "image",
    "base64": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "mime_type": "image/png",
}


@pytest.mark.parametrize("shape", ["string-in-list", "blocks-with-image"])
def test_list_content_is_measured_and_stubbed_as_deepagents_does(shape: str) -> None:
    text = big_text(40)
    content = [text] if shape == "string-in-list" else [{"type": "text", "text": text}, PNG_BLOCK]
    seen = {}
    for impl in ("deepagents", "deepagents_rs"):
        a = api(impl)
        model = ScriptedChatModel(["done"])
        agent = a.create_deep_agent(
            model=model, middleware=[a.FilesystemMiddleware(human_message_token_limit_before_evict=100)]
        )
        result = agent.invoke({"messages": [HumanMessage(content)]})
        seen[impl] = (masked([call_view(c) for c in model.calls]), masked(norm(result["messages"])))
    assert seen["deepagents_rs"] == seen["deepagents"]
    assert "lc_evicted_to" in seen["deepagents"][1][0]["additional_kwargs"]
