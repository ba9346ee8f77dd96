"""LangSmith tracing through both implementations: the same scenario must give a local LangSmith
endpoint the same run tree and requests; a compiled subagent's runs nest under the task run."""

from __future__ import annotations

import copy
import email.parser
import email.policy
import http.server
import json
import re
import threading
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls

from .callbacks_support import INPUT, SCENARIOS, Recorder, build, compact, execute, normalize, skeleton

# --------------------------------------------------------------------------------------------
# LangSmith

_WRAP_SPAN = re.compile(r"\.a?wrap_(model|tool)_call$")


TRACE_METADATA = ("ls_integration", "lc_agent_name", "ls_agent_type", "langgraph_node", "langgraph_step")


#: Bounds every wait on the client.
FLUSH_TIMEOUT = 10.0


class _LangSmithHandler(http.server.BaseHTTPRequestHandler):
    server: _LangSmithServer

    def _reply(self, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _record(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with self.server.lock:
            self.server.requests.append((self.command, self.path, dict(self.headers), body))

    def do_GET(self) -> None:
        self._record()
        self._reply({})  # /info: no batch config, so the client uses its defaults

    def do_POST(self) -> None:
        self._record()
        self._reply({})

    def do_PATCH(self) -> None:
        self._record()
        self._reply({})

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _LangSmithServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _LangSmithHandler)
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def take(self) -> list[tuple[str, str, dict[str, str], bytes]]:
        with self.lock:
            out, self.requests = self.requests, []
        return out


def _reset_langsmith() -> None:
    """Forget langsmith's cached env reads and its cached client (flushing it first)."""
    import langsmith.env
    import langsmith.run_trees
    import langsmith.utils

    client = langsmith.run_trees._CLIENT
    if client is not None:
        client.cleanup(timeout=FLUSH_TIMEOUT)
    langsmith.run_trees._CLIENT = None
    langsmith.utils.get_env_var.cache_clear()
    langsmith.utils.get_tracer_project.cache_clear()
    for fn in (langsmith.env.get_langchain_env_var_metadata, langsmith.env.get_runtime_environment):
        getattr(fn, "cache_clear", lambda: None)()


@pytest.fixture
def langsmith_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[_LangSmithServer]:
    server = _LangSmithServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    for var in ("LANGSMITH_RUNS_ENDPOINTS", "LANGCHAIN_RUNS_ENDPOINTS", "LANGSMITH_OTEL_ENABLED", "LANGSMITH_PROJECT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_ENDPOINT", server.url)
    monkeypatch.setenv("LANGSMITH_API_KEY", "fake")
    _reset_langsmith()
    try:
        yield server
    finally:
        _reset_langsmith()
        monkeypatch.undo()
        _reset_langsmith()
        server.shutdown()
        server.server_close()
        thread.join(timeout=FLUSH_TIMEOUT)


def _flush() -> None:
    import langsmith.run_trees

    client = langsmith.run_trees._CLIENT
    if client is not None:
        client.flush(timeout=FLUSH_TIMEOUT)


def _multipart_parts(headers: dict[str, str], body: bytes) -> list[tuple[str, Any]]:
    encoding = {k.lower(): v for k, v in headers.items()}.get("content-encoding", "")
    if "zstd" in encoding:
        import zstandard

        body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
    content_type = {k.lower(): v for k, v in headers.items()}["content-type"]
    message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
    )
    parts = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        parts.append((name, json.loads(payload) if part.get_content_type() == "application/json" else payload))
    return parts


def posted_runs(requests: Sequence[tuple[str, str, dict[str, str], bytes]]) -> dict[str, dict[str, Any]]:
    """Every run the client sent, by id, with its posts and patches merged in arrival order."""
    runs: dict[str, dict[str, Any]] = {}

    def merge(run_id: str, fields: dict[str, Any]) -> None:
        runs.setdefault(str(run_id), {}).update(fields)

    for method, path, headers, body in requests:
        path = path.split("?", 1)[0].rstrip("/")
        if method == "POST" and path.endswith("/runs/multipart"):
            for name, payload in _multipart_parts(headers, body):
                _, run_id, *rest = name.split(".")
                merge(run_id, {rest[0]: payload} if rest else payload)
        elif method == "POST" and path.endswith("/runs/batch"):
            data = json.loads(body)
            for op in ("post", "patch"):
                for r in data.get(op) or []:
                    merge(r["id"], r)
        elif method == "POST" and path.endswith("/runs"):
            r = json.loads(body)
            merge(r["id"], r)
        elif method == "PATCH" and "/runs/" in path:
            merge(path.rsplit("/", 1)[1], json.loads(body))
    return runs


def _check_well_formed(runs: dict[str, dict[str, Any]], impl: str) -> None:
    roots = [r for r in runs.values() if not r.get("parent_run_id")]
    assert len(roots) == 1, f"{impl}: {len(roots)} root runs: {[(r['run_type'], r['name']) for r in roots]}"
    trace_id = str(roots[0]["id"])
    for r in runs.values():
        assert str(r.get("trace_id")) == trace_id, f"{impl}: {r['name']} has another trace_id"
        parent = r.get("parent_run_id")
        if parent:
            assert str(parent) in runs, f"{impl}: {r['name']}'s parent was never sent"
            assert r["dotted_order"].startswith(runs[str(parent)]["dotted_order"] + "."), f"{impl}: {r['name']}"
        assert r.get("end_time"), f"{impl}: {r['name']} never ended"


def run_tree(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The comparable tree of the runs: middleware ``wrap_*`` spans collapsed, children in start
    (``dotted_order``) order."""
    children: dict[str | None, list[dict[str, Any]]] = {}
    for r in sorted(runs.values(), key=lambda r: r["dotted_order"]):
        parent = r.get("parent_run_id")
        children.setdefault(None if not parent else str(parent), []).append(r)

    def kids(run_id: str) -> list[dict[str, Any]]:
        out = []
        for c in children.get(run_id, []):
            if _WRAP_SPAN.search(c["name"]):
                out.extend(kids(str(c["id"])))
            else:
                out.append(node(c))
        return out

    def node(r: dict[str, Any]) -> dict[str, Any]:
        meta = (r.get("extra") or {}).get("metadata") or {}
        return {
            "run_type": r["run_type"],
            "name": r["name"],
            "tags": sorted(r.get("tags") or []),
            "metadata": {k: meta.get(k, "<absent>") for k in TRACE_METADATA},
            "children": kids(str(r["id"])),
        }

    (root,) = children[None]
    tree = node(root)
    tree["inputs"] = root.get("inputs")
    return tree


def traced(impl: ModuleType, server: _LangSmithServer, api: str) -> dict[str, dict[str, Any]]:
    agent, _, _ = build(impl, SCENARIOS["research"])
    execute(agent, copy.deepcopy(INPUT), {}, api)
    _flush()
    runs = posted_runs(server.take())
    assert runs, f"{impl.__name__}: nothing was sent to LangSmith"
    _check_well_formed(runs, impl.__name__)
    return runs


def _flatten(tree: dict[str, Any], depth: int = 0) -> list[tuple]:
    out = [
        (depth, tree["run_type"], tree["name"], tree["metadata"]["lc_agent_name"], tree["metadata"]["ls_agent_type"])
    ]
    for c in tree["children"]:
        out.extend(_flatten(c, depth + 1))
    return out


@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
def test_langsmith_run_tree(langsmith_server: _LangSmithServer, api: str) -> None:
    """With ``LANGSMITH_TRACING=true`` both send LangSmith the same run tree, the subagent's runs
    marked ``ls_agent_type="subagent"``."""
    ref = traced(deepagents, langsmith_server, api)
    rs = traced(deepagents_rs, langsmith_server, api)
    ref_tree, rs_tree = run_tree(ref), run_tree(rs)
    assert _flatten(rs_tree) == _flatten(ref_tree)
    assert rs_tree == ref_tree
    # The reference, spelled out: chain/llm/tool runs; ls_agent_type only on the subagent's.
    assert _flatten(ref_tree) == [
        (0, "chain", "LangGraph", None, "<absent>"),
        (1, "chain", "PatchToolCallsMiddleware.before_agent", None, "<absent>"),
        (1, "chain", "model", None, "<absent>"),
        (2, "llm", "ScriptedChatModel", None, "<absent>"),
        (1, "chain", "tools", None, "<absent>"),
        (2, "tool", "my_tool", None, "<absent>"),
        (1, "chain", "model", None, "<absent>"),
        (2, "llm", "ScriptedChatModel", None, "<absent>"),
        (1, "chain", "tools", None, "<absent>"),
        (2, "tool", "task", None, "<absent>"),
        (3, "chain", "researcher", "researcher", "subagent"),
        (4, "chain", "PatchToolCallsMiddleware.before_agent", "researcher", "subagent"),
        (4, "chain", "model", "researcher", "subagent"),
        (5, "llm", "ScriptedChatModel", "researcher", "subagent"),
        (4, "chain", "tools", "researcher", "subagent"),
        (5, "tool", "my_tool", "researcher", "subagent"),
        (4, "chain", "model", "researcher", "subagent"),
        (5, "llm", "ScriptedChatModel", "researcher", "subagent"),
        (1, "chain", "model", None, "<absent>"),
        (2, "llm", "ScriptedChatModel", None, "<absent>"),
        (1, "chain", "_ParentNotifierMiddleware.after_agent", None, "<absent>"),
    ]
    assert ref_tree["metadata"]["ls_integration"] == "deepagents"
    assert ref_tree["inputs"] == INPUT


def test_langsmith_requests(langsmith_server: _LangSmithServer) -> None:
    """What the reference's client sends: ``GET /info``, then runs to ``/runs/multipart`` (the
    default when ``/info`` names no batch config), authenticated with the API key."""
    agent, _, _ = build(deepagents, SCENARIOS["research"])
    agent.invoke(copy.deepcopy(INPUT))
    _flush()
    requests = langsmith_server.take()
    paths = [(m, p.split("?", 1)[0]) for m, p, _, _ in requests]
    assert ("GET", "/info") in paths
    assert {p for p in paths if p[0] != "GET"} == {("POST", "/runs/multipart")}
    assert all({k.lower(): v for k, v in h.items()}.get("x-api-key") == "fake" for _, _, h, _ in requests)
    runs = posted_runs(requests)
    # 21 chain/llm/tool runs plus the middleware wrap_* spans.
    wraps = [r for r in runs.values() if _WRAP_SPAN.search(r["name"])]
    assert len(runs) - len(wraps) == 21
    assert all(r["extra"]["metadata"].get("ls_method") == "traceable" for r in wraps)


@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
def test_compiled_subagent_runs_nest_under_the_task_run(api: str) -> None:
    """A ``CompiledSubAgent`` (a LangChain ``create_agent`` graph) traced from deepagents_rs
    nests its runs under the ``task`` tool run, as in deepagents."""
    from langchain.agents import create_agent

    events = {}
    for module in (deepagents, deepagents_rs):
        main = ScriptedChatModel(
            [
                ai_tool_calls(("task", {"description": "research x", "subagent_type": "compiled"}, "call_B")),
                "Final answer: done",
            ]
        )
        sub = ScriptedChatModel(["compiled answer"])
        runnable = create_agent(model=sub, tools=[], name="compiled")
        agent = module.create_deep_agent(
            model=main,
            subagents=[{"name": "compiled", "description": "A compiled agent.", "runnable": runnable}],
        )
        handler = Recorder()
        execute(agent, copy.deepcopy(INPUT), {"callbacks": [handler]}, api)
        events[module.__name__] = normalize(handler.events)
    assert compact(events["deepagents_rs"]) == compact(events["deepagents"])
    assert skeleton(events["deepagents_rs"]) == skeleton(events["deepagents"])
