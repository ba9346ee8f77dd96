"""The `langgraph dev` helper (`langgraph_dev.serve`) serves on a port of its own: when the
port it picked is taken by the time the server starts (another test worker's server), it
starts again on a new one instead of handing back the other server's URL."""

from __future__ import annotations

import http.server
import json
import textwrap
import threading
import urllib.request
from pathlib import Path

import langgraph_dev
import pytest

pytestmark = pytest.mark.timeout(300)

GRAPH = """
from typing import TypedDict
from langgraph.graph import StateGraph

class State(TypedDict):
    x: int

builder = StateGraph(State)
builder.add_node("step", lambda s: {"x": s["x"] + 1})
builder.set_entry_point("step")
graph = builder.compile()
"""


class _Other(http.server.BaseHTTPRequestHandler):
    """Another server on the port: it answers every request."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"not langgraph")

    def log_message(self, *_: object) -> None:
        pass


def test_a_taken_port_is_given_up_for_a_new_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "graphs.py").write_text(textwrap.dedent(GRAPH))
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Other)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    taken = other.server_address[1]
    offered = iter([taken])
    real = langgraph_dev.free_port
    monkeypatch.setattr(langgraph_dev, "free_port", lambda: next(offered, None) or real())
    seen: list[int] = []
    try:
        with langgraph_dev.serve(tmp_path, {"g": "./graphs.py:graph"}, lambda port: seen.append(port) or {}) as url:
            assert not url.endswith(f":{taken}")
            # The server answering is langgraph's, serving the graph given.
            request = urllib.request.Request(
                url + "/assistants/search", data=b"{}", headers={"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(request, timeout=10) as reply:
                assert [a["graph_id"] for a in json.load(reply)] == ["g"]
    finally:
        other.shutdown()
        other.server_close()
    # The environment was made again for the new port.
    assert seen[0] == taken and len(seen) == 2 and url.endswith(f":{seen[1]}")
