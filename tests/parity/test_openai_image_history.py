"""An earlier reply's generated images (``image_generation_call`` blocks) in the next
Responses request, side by side with deepagents (``ChatOpenAI``): with server storage
(the default, or ``store=True``) each is referred to by its id; with ``store=False`` a whole
item is sent as it is (less its streaming ``index``) and a bare reference is dropped. The
simulated server records the request bytes of both."""

from __future__ import annotations

from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_openai import ChatOpenAI
from sim.openai import SimOpenAI
from sim.openai import text as openai_text

IMAGE = {
    "type": "image_generation_call",
    "id": "ig_1",
    "result": "aW1hZ2U=",
    "status": "completed",
    "output_format": "png",
    "index": 1,
}
REPLY = AIMessage(
    content=[
        {"type": "text", "text": "Here it is.", "annotations": [], "id": "msg_1", "index": 0},
        IMAGE,
        {"type": "image_generation_call", "id": "ig_2"},
    ],
    id="resp_1",
    response_metadata={"model_provider": "openai", "model_name": "gpt-5"},
)


def _sent(sim: SimOpenAI, module: Any, store: bool | None) -> bytes:
    sim.reset()
    sim.script(openai_text("ok"))
    extra = {} if store is None else {"store": store}
    model = ChatOpenAI(model="gpt-5", base_url=sim.base_url, api_key="sk-test", use_responses_api=True, **extra)
    agent = module.create_deep_agent(model=model, system_prompt="Be brief.")
    agent.invoke({"messages": [HumanMessage("draw a cat"), REPLY, HumanMessage("thanks")]})
    (request,) = [r for r in sim.requests if r.path.endswith("/responses")]
    return request.raw


@pytest.mark.parametrize("store", [None, True, False], ids=["default", "stored", "not-stored"])
def test_generated_images_are_sent_back_as_chatopenai_sends_them(openai_sim: SimOpenAI, store) -> None:
    theirs = _sent(openai_sim, deepagents, store)
    assert b"image_generation_call" in theirs
    assert _sent(openai_sim, deepagents_rs, store) == theirs
