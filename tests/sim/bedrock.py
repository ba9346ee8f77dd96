"""A simulated Amazon Bedrock runtime serving the Converse API (``POST
/model/{modelId}/converse``), non-streaming, for ``ChatBedrockConverse`` pointed at it with
``endpoint_url``. It records every request (botocore signs them with whatever credentials
the test gives; nothing is checked) and answers from a FIFO of scripted replies: ``text``
or ``tool_use``. A request with no reply left gets a 500 so a test never hangs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from ._server import SimServer, _Handler

__all__ = ["Recorded", "SimBedrock", "text", "tool_use"]


def text(content: str) -> dict[str, Any]:
    """A reply with one text block."""
    return {"content": [{"text": content}], "stopReason": "end_turn"}


def tool_use(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    """A reply calling one tool."""
    return {
        "content": [{"toolUse": {"toolUseId": call_id, "name": name, "input": arguments}}],
        "stopReason": "tool_use",
    }


@dataclass
class Recorded:
    """One request: the model id from the path and the parsed JSON body."""

    seq: int
    model_id: str
    body: Any
    status: int = 0
    response: Any = None
    handler_seconds: float = 0.0


class SimBedrock(SimServer):
    """The Converse endpoint on 127.0.0.1; ``origin`` is what ``endpoint_url`` takes."""

    _thread_name = "sim-bedrock"

    def _check_reply(self, reply: Any) -> None:
        if not isinstance(reply, dict) or "content" not in reply:
            raise TypeError(f"a Bedrock reply is made by text() or tool_use(), got {reply!r}")

    def _handle(self, h: _Handler) -> None:
        _, _, body = self._read(h)
        started = time.perf_counter()
        path = h.path.split("?", 1)[0]
        parts = path.strip("/").split("/")
        model_id = unquote(parts[1]) if len(parts) == 3 and parts[0] == "model" else ""
        rec = self._log(lambda seq: Recorded(seq=seq, model_id=model_id, body=body))
        reply = self._pop_reply() if parts[-1:] == ["converse"] else None
        if reply is None:
            rec.status = 500
            message = "sim: no scripted reply" if model_id else f"sim: unknown route {path}"
            self._send_json(h, 500, {"message": message}, {}, rec, started)
            return
        rec.status = 200
        answer = {
            "output": {"message": {"role": "assistant", "content": reply["content"]}},
            "stopReason": reply["stopReason"],
            "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
            "metrics": {"latencyMs": 1},
        }
        self._send_json(h, 200, answer, {"x-amzn-requestid": f"req-{rec.seq}"}, rec, started)
