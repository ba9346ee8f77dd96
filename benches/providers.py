"""Per model call, the client-side cost of the native provider clients: deepagents_rs vs deepagents 0.7.32.

One agent turn that is a single model call: the input is a conversation of ``--history``
messages (a user task, then assistant turns calling tools and their results, ending with a
tool result), and the server answers with a final text, so ``agent.invoke`` makes exactly one
model call and returns. Both implementations build their agent from the same model string,
with the same two user tools on top of deepagents' built-ins:

* ``anthropic``: ``"anthropic:claude-sonnet-4-6"`` (Messages API; deepagents_rs' Rust client,
  deepagents' langchain-anthropic ``ChatAnthropic``);
* ``responses``: ``"openai:gpt-5.4"`` (Responses API, the default of both; the Rust client,
  langchain-openai ``ChatOpenAI``);
* ``chat``: ``"openai:gpt-5.4"`` with a provider profile ``use_responses_api=False`` (Chat
  Completions), registered in both implementations.

each with ``agent.invoke(...)`` and with ``agent.stream(..., stream_mode="messages")`` (the
model's reply is then streamed from the server). A third column times the LangChain chat
model alone, called as deepagents' model node calls it (``bind_tools`` with the agent's
tools and settings, then ``invoke`` / ``stream`` on the agent's system message plus the
history), to show how much of deepagents' turn is the LangChain client.

The server is the same for all: a standard-library ``ThreadingHTTPServer`` on 127.0.0.1
(HTTP/1.1 keep-alive) that answers every POST with a pre-rendered answer (a JSON body, or a
whole SSE stream in one write) for its path and ``"stream"`` flag. The time it spends in its
handler (from having read the request to starting to write the answer) is subtracted. Each
timed call is checked: exactly one request, to the right endpoint, streamed or not as asked,
and the reply's whole text back. Cells run interleaved, one call each per round, in an order
rotated from round to round; mean and median per call are printed, with the ratio
deepagents / deepagents_rs.

Usage::

    python benches/providers.py [--history 41] [--repeat 50] [--warmup 3] [--apis anthropic,responses,chat]
                                [--modes invoke,stream] [--reply-chars 800] [--delta-chars 8] [--quick]

``deepagents_rs`` is imported from whatever environment runs the script (the repository's
``python/`` directory is *not* put on ``sys.path``). The build type of the loaded extension
module is printed with the results. It needs ``deepagents==0.7.32``, ``langchain-anthropic``
and ``langchain-openai``.

This is a benchmark script, not a test; it never touches the network.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import json
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The simulators' stream renderers live in tests/; only that directory is added.
sys.path.insert(0, str(REPO / "tests"))
# benches/ itself, for the helpers shared with tool_loop.py and the provider_* modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from provider_server import ANTHROPIC_MODEL, OPENAI_MODEL, Request, Server, render_answers
from provider_session import USER_TOOLS, conversation, reply_text
from tool_loop import BenchError, build_info

API_KEY = "sk-bench"
IMPLS = ("deepagents_rs", "deepagents", "langchain")  # the last: ChatAnthropic / ChatOpenAI alone
MODES = ("invoke", "stream")


@dataclass(frozen=True)
class Api:
    name: str
    model: str  # the model string both implementations get
    path: str  # the endpoint on the server
    provider: str  # "anthropic" | "openai"


APIS = {
    "anthropic": Api("anthropic", f"anthropic:{ANTHROPIC_MODEL}", "/v1/messages", "anthropic"),
    "responses": Api("responses", f"openai:{OPENAI_MODEL}", "/v1/responses", "openai"),
    "chat": Api("chat", f"openai:{OPENAI_MODEL}", "/v1/chat/completions", "openai"),
}


# --------------------------------------------------------------------------- cells


@dataclass
class Cell:
    """One (api, mode, implementation): per-call harness times (wall - server handler time)."""

    api: Api
    mode: str
    impl: str
    call: Callable[[Any], tuple[int, str]]  # one model call on prepare()'s value: (messages or chunks, text)
    prepare: Callable[[], Any] = lambda: None  # untimed: the input of one call
    times: list[float] = field(default_factory=list)
    handler: list[float] = field(default_factory=list)
    request: Request | None = None
    shape: set[int] = field(default_factory=set)
    error: str | None = None

    @property
    def label(self) -> str:
        return f"{self.api.name} {self.mode} {self.impl}"


def _text(msg: Any) -> str:
    text = getattr(msg, "text", "")
    # langchain-core 1.x: a str property (the old method call still works, with a warning)
    return str(text) if isinstance(text, str) or not callable(text) else text()


def fresh_input(history: int) -> dict[str, Any]:
    return {"messages": conversation(history)}


def agent_call(agent: Any, mode: str) -> Callable[[Any], tuple[int, str]]:
    """One agent turn on a fresh input (new message objects each call, built untimed)."""

    def invoke(payload: Any) -> tuple[int, str]:
        out = agent.invoke(payload)
        return len(out["messages"]), _text(out["messages"][-1])

    def stream(payload: Any) -> tuple[int, str]:
        chunks = list(agent.stream(payload, stream_mode="messages"))
        text = "".join(_text(m) for m, _ in chunks if getattr(m, "type", "") in ("AIMessageChunk", "ai"))
        return len(chunks), text

    return invoke if mode == "invoke" else stream


@dataclass
class Captured:
    model: Any
    tools: list[Any]
    kwargs: dict[str, Any]
    messages: list[Any]


def capture_model_call(api: Api, history: int) -> Captured:
    """What deepagents' model node hands its LangChain chat model: an agent built like the timed
    one runs once while ``bind_tools`` and ``invoke`` of the model class record their arguments."""
    import deepagents

    if api.provider == "anthropic":
        from langchain_anthropic import ChatAnthropic as cls
    else:
        from langchain_openai import ChatOpenAI as cls
    seen: dict[str, Any] = {}
    originals = {name: cls.__dict__.get(name) for name in ("bind_tools", "invoke")}
    bind_tools, invoke = cls.bind_tools, cls.invoke

    def recording_bind_tools(self: Any, tools: Any, **kwargs: Any) -> Any:
        seen.update(model=self, tools=list(tools), kwargs=dict(kwargs))
        return bind_tools(self, tools, **kwargs)

    def recording_invoke(self: Any, input: Any, config: Any = None, **kwargs: Any) -> Any:
        seen["messages"] = list(input)
        return invoke(self, input, config, **kwargs)

    agent = deepagents.create_deep_agent(model=api.model, tools=USER_TOOLS)
    cls.bind_tools, cls.invoke = recording_bind_tools, recording_invoke
    try:
        agent.invoke({"messages": conversation(history)})
    finally:
        for name, original in originals.items():
            if original is None:
                delattr(cls, name)
            else:
                setattr(cls, name, original)
    if set(seen) != {"model", "tools", "kwargs", "messages"}:
        raise BenchError(f"{api.name}: could not capture deepagents' model call (got {sorted(seen)})")
    return Captured(seen["model"], seen["tools"], seen["kwargs"], seen["messages"])


def model_call(c: Captured, mode: str) -> Callable[[Any], tuple[int, str]]:
    """The LangChain chat model alone, as deepagents' model node calls it: ``bind_tools`` with the
    agent's tools and settings (per call, as the node does), then the system message + history."""

    def invoke(_: Any) -> tuple[int, str]:
        out = c.model.bind_tools(c.tools, **c.kwargs).invoke(c.messages)
        return len(c.messages) + 1, _text(out)

    def stream(_: Any) -> tuple[int, str]:
        chunks = list(c.model.bind_tools(c.tools, **c.kwargs).stream(c.messages))
        return len(chunks), "".join(_text(m) for m in chunks)

    return invoke if mode == "invoke" else stream


def freeze_heap() -> None:
    """Collect, then move every object still alive into the permanent generation. With
    deepagents, LangChain and both agents loaded, a full ``gc.collect()`` takes a few hundred ms;
    after this, the one before each call only looks at what earlier calls left behind. The
    collector still runs as usual inside the calls, on the objects they create."""
    gc.collect()
    gc.freeze()


def run_once(server: Server, cell: Cell, expect_text: str) -> tuple[float, float]:
    """One timed model call of a cell, checked: exactly one request, to the right endpoint, in
    the right mode, and the reply's text came back whole."""
    arg = cell.prepare()
    gc.collect()
    count, handler = server.count, server.handler_s
    t0 = time.perf_counter()
    shape, text = cell.call(arg)
    wall = time.perf_counter() - t0
    requests, handler = server.count - count, server.handler_s - handler
    last = server.last
    if requests != 1 or last is None:
        raise BenchError(f"{cell.label}: {requests} requests to the server for one model call")
    if last.path.split("?", 1)[0] != cell.api.path or last.stream != (cell.mode == "stream"):
        raise BenchError(f"{cell.label}: the request went to {last.path} with stream={last.stream}")
    if text != expect_text:
        raise BenchError(f"{cell.label}: the reply's text came back as {text[:80]!r}... ({len(text)} chars)")
    cell.request = last
    cell.shape.add(shape)
    return wall, handler


def failure(server: Server, cell: Cell, count_before: int) -> str:
    """The exact error, with the request that led to it when the call made one."""
    out = traceback.format_exc().rstrip()
    if server.count > count_before and server.last is not None:
        last = server.last
        body = last.body.decode(errors="replace")
        shown = body if len(body) <= 4000 else body[:2000] + f" ...[{len(body) - 4000} chars]... " + body[-2000:]
        out += f"\n  last request: POST {last.path} stream={last.stream} ({len(last.body)} bytes): {shown}"
    return out


def transport_floor(server: Server, request: Request, n: int = 30) -> float:
    """Per request: a raw keep-alive ``http.client`` round trip of the same request body, minus
    the handler time (loopback, ``http.server``'s request parsing, reading the answer)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port)
    headers = {"content-type": "application/json", "x-api-key": API_KEY}
    samples = []
    for _ in range(3):
        count, handler = server.count, server.handler_s
        t0 = time.perf_counter()
        for _ in range(n):
            conn.request("POST", request.path, request.body, headers)
            resp = conn.getresponse()
            resp.read()
            if resp.status != 200:
                raise BenchError(f"raw round trip to {request.path}: status {resp.status}")
        wall = time.perf_counter() - t0
        if server.count - count != n:
            raise BenchError("raw round trip: request count mismatch")
        samples.append((wall - (server.handler_s - handler)) / n)
    conn.close()
    return statistics.median(samples)


# --------------------------------------------------------------------------- setup


def environment(server: Server) -> None:
    """Both implementations (and the LangChain clients) find the server through the environment."""
    base = f"http://127.0.0.1:{server.port}"
    os.environ["ANTHROPIC_BASE_URL"] = base
    os.environ["ANTHROPIC_API_KEY"] = API_KEY
    os.environ["OPENAI_BASE_URL"] = f"{base}/v1"
    os.environ["OPENAI_API_KEY"] = API_KEY
    for var in ("ANTHROPIC_AUTH_TOKEN", "OPENAI_ORG_ID", "OPENAI_ORGANIZATION", "OPENAI_PROJECT_ID"):
        os.environ.pop(var, None)
    for var in ("NO_PROXY", "no_proxy"):
        os.environ[var] = ",".join(filter(None, [os.environ.get(var), "127.0.0.1", "localhost"]))


def use_chat_completions(on: bool) -> None:
    """The provider profile that picks the OpenAI API, in both implementations (before an agent
    is built; re-registering merges, so ``use_responses_api=True`` restores the default)."""
    import deepagents
    import deepagents_rs

    for module in (deepagents, deepagents_rs):
        module.register_provider_profile("openai", module.ProviderProfile(init_kwargs={"use_responses_api": not on}))


def build_cells(
    server: Server, apis: list[Api], modes: list[str], history: int
) -> tuple[list[Cell], list[str], dict[str, Request]]:
    """The cells of every api and mode, and per api the request of the capture run."""
    import deepagents
    import deepagents_rs

    cells: list[Cell] = []
    errors: list[str] = []
    requests: dict[str, Request] = {}
    for api in apis:
        use_chat_completions(api.name == "chat")
        try:
            agents: dict[str, Any] = {}
            try:
                agents["deepagents_rs"] = deepagents_rs.create_deep_agent(model=api.model, tools=USER_TOOLS)
            except Exception:  # noqa: BLE001 - report the exact error, keep measuring the others
                errors.append(f"{api.name}: deepagents_rs.create_deep_agent failed:\n{traceback.format_exc()}")
            agents["deepagents"] = deepagents.create_deep_agent(model=api.model, tools=USER_TOOLS)
            captured = capture_model_call(api, history)
            if server.last is None or not server.last.path.startswith(api.path):
                raise BenchError(f"{api.name}: the capture run did not reach the server")
            requests[api.name] = server.last
        finally:
            use_chat_completions(False)
        for mode in modes:
            for impl, agent in agents.items():
                cells.append(Cell(api, mode, impl, agent_call(agent, mode), partial(fresh_input, history)))
            cells.append(Cell(api, mode, "langchain", model_call(captured, mode)))
    return cells, errors, requests


# --------------------------------------------------------------------------- report


def request_summary(request: Request | None) -> str:
    if request is None:
        return "n/a"
    body = json.loads(request.body)
    tools = body.get("tools") or []
    names = sorted(t.get("name") or (t.get("function") or {}).get("name") or "?" for t in tools)
    items = body.get("messages") if "messages" in body else body.get("input")
    system = body.get("system") or body.get("instructions") or ""
    system_chars = len(system if isinstance(system, str) else json.dumps(system))
    ua = request.user_agent or "none"
    return (
        f"{len(request.body):,} bytes, {len(items or [])} messages/items, {len(tools)} tools "
        f"[{', '.join(names)}], top-level system {system_chars:,} chars, user-agent {ua!r}"
    )


def report(cells: list[Cell], floors: dict[tuple[str, str], float], args: argparse.Namespace) -> bool:
    ok = True
    by = {(c.api.name, c.mode, c.impl): c for c in cells}

    def stats(c: Cell | None) -> tuple[float, float] | None:
        if c is None or not c.times:
            return None
        return statistics.median(c.times) * 1e3, statistics.fmean(c.times) * 1e3

    def fmt(x: float | None, spec: str = ".2f") -> str:
        return "n/a" if x is None else format(x, spec)

    print(f"\n== per model call, ms (harness = wall - server handler time); {args.repeat} calls per cell")
    head = (
        f"{'api':<10} {'mode':<7} {'rs med':>8} {'rs mean':>8} {'ref med':>8} {'ref mean':>9} {'ratio':>6}"
        f" {'(means)':>7} {'lc med':>7} {'lc mean':>8} {'lc/ref':>6} {'floor':>6} {'srv us':>7}"
    )
    print(head)
    print("-" * len(head))
    apis = list(dict.fromkeys(c.api.name for c in cells))
    modes = list(dict.fromkeys(c.mode for c in cells))
    for api in apis:
        for mode in modes:
            rs, ref, lc = (stats(by.get((api, mode, impl))) for impl in IMPLS)
            ratio = ref[0] / rs[0] if rs and ref else None
            ratio_mean = ref[1] / rs[1] if rs and ref else None
            share = lc[0] / ref[0] if lc and ref else None
            handler = [h for impl in IMPLS if (c := by.get((api, mode, impl))) for h in c.handler]
            srv = statistics.mean(handler) * 1e6 if handler else None
            floor = floors.get((api, mode))
            print(
                f"{api:<10} {mode:<7} {fmt(rs and rs[0]):>8} {fmt(rs and rs[1]):>8} {fmt(ref and ref[0]):>8}"
                f" {fmt(ref and ref[1]):>9} {fmt(ratio, '.1f'):>6} {fmt(ratio_mean, '.1f'):>7}"
                f" {fmt(lc and lc[0]):>7} {fmt(lc and lc[1]):>8} {fmt(share, '.2f'):>6}"
                f" {fmt(floor and floor * 1e3, '.2f'):>6} {fmt(srv, '.0f'):>7}"
            )
    print("  ratio = deepagents / deepagents_rs (medians; '(means)' the same of the means): higher is better for rs")
    print(
        "  lc = the LangChain chat model alone, as deepagents' model node calls it; lc/ref = its share of deepagents' turn"
    )
    print("  floor = raw http.client round trip of deepagents' request body, minus handler time (in every column)")
    print("  srv us = mean server handler time per request (subtracted)")
    print("\n  min..max ms per cell:")
    for c in cells:
        if c.times:
            print(f"    {c.label:<34} {min(c.times) * 1e3:8.2f} .. {max(c.times) * 1e3:8.2f}")
    print("\n  requests (the last one of each cell):")
    for c in cells:
        if c.impl != "langchain":
            out = "chunks" if c.mode == "stream" else "messages"
            print(f"    {c.label:<34} {request_summary(c.request)}; {out} out: {sorted(c.shape)}")
    for api in apis:
        for mode in modes:
            rs, ref = by.get((api, mode, "deepagents_rs")), by.get((api, mode, "deepagents"))
            if rs and ref and rs.request and ref.request and rs.request.user_agent == ref.request.user_agent:
                # The Python SDKs name themselves; the native client sends no user-agent.
                print(f"  {api} {mode}: deepagents_rs sent the same user-agent as deepagents: not its native client?")
                ok = False
    for c in cells:
        if len(c.shape) > 1:
            print(f"  {c.label}: the number of messages/chunks differs between calls: {sorted(c.shape)}")
            ok = False
    for api in apis:
        for mode in modes:
            shapes = {impl: c.shape for impl in ("deepagents_rs", "deepagents") if (c := by.get((api, mode, impl)))}
            if mode == "invoke" and len({frozenset(s) for s in shapes.values()}) > 1:
                print(f"  {api} {mode}: MESSAGE COUNTS DIFFER: {shapes}")
                ok = False
    for c in cells:
        if c.error:
            print(f"\n  {c.label} FAILED:\n{c.error}")
            ok = False
    return ok


# --------------------------------------------------------------------------- main


def rounds(cells: list[Cell], repeat: int) -> Iterator[tuple[int, list[Cell]]]:
    """Round r runs every cell once, the order rotated by r, so load changes hit all cells alike."""
    for r in range(repeat):
        k = r % len(cells)
        yield r, cells[k:] + cells[:k]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=int, default=41, help="input messages, rounded up to odd (default 41)")
    parser.add_argument("--repeat", type=int, default=50, help="timed calls per cell, one per round (default 50)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls per cell first (default 3)")
    parser.add_argument("--apis", default=",".join(APIS), help=f"comma-separated subset of {','.join(APIS)}")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of invoke,stream")
    parser.add_argument("--reply-chars", type=int, default=800, help="characters of the final text (default 800)")
    parser.add_argument("--delta-chars", type=int, default=8, help="text characters per stream delta (default 8)")
    parser.add_argument("--quick", action="store_true", help="a few seconds: --repeat 3 --warmup 1")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeat, args.warmup = 3, 1
    apis = [a for a in args.apis.split(",") if a]
    modes = [m for m in args.modes.split(",") if m]
    if unknown := (set(apis) - set(APIS)) | (set(modes) - set(MODES)):
        parser.error(f"unknown apis/modes {sorted(unknown)}")
    if args.history < 3 or args.repeat < 1 or args.warmup < 0 or args.reply_chars < 1 or args.delta_chars < 1:
        parser.error("--history >= 3, --repeat >= 1, --warmup >= 0, --reply-chars and --delta-chars >= 1")
    args.history |= 1  # the history ends with a tool result: it has an odd length

    sys.stdout.reconfigure(line_buffering=True)
    import anthropic
    import deepagents
    import langchain_anthropic
    import openai

    print(f"python {sys.version.split()[0]}, deepagents {deepagents.__version__}")
    print(
        f"langchain-anthropic {langchain_anthropic.__version__} (anthropic {anthropic.__version__}), "
        f"langchain-openai {_version('langchain-openai')} (openai {openai.__version__})"
    )
    print(f"deepagents_rs core: {build_info()}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other work on the machine skews the numbers)")
    print(
        f"history={args.history} messages, tools = deepagents' built-ins + {[t.__name__ for t in USER_TOOLS]}; "
        f"reply {args.reply_chars} chars, streamed {args.delta_chars} chars per delta; "
        f"repeat={args.repeat} warmup={args.warmup}"
    )
    print(
        "included for all: the client's request building and response parsing, HTTP over loopback; "
        "for rs/ref also the agent turn around the model call (input conversion, middleware, output); "
        "not included: building the agent, building the input messages, a gc.collect() before each call, "
        "the server's handler time"
    )

    started = time.perf_counter()
    text = reply_text(args.reply_chars)
    server = Server(render_answers(text, args.delta_chars, []))
    ok = True
    with server:
        environment(server)
        chosen = [APIS[a] for a in apis]
        cells, errors, captured = build_cells(server, chosen, modes, args.history)
        for e in errors:
            print(f"\n{e}")
            ok = False
        # The Responses answer echoes the tools of deepagents' own request, as the real API would.
        if "responses" in captured:
            tools = json.loads(captured["responses"].body).get("tools") or []
            server.answers = render_answers(text, args.delta_chars, tools)

        def attempt(cell: Cell, timed: bool) -> None:
            if cell.error:
                return
            count = server.count
            try:
                wall, handler = run_once(server, cell, text)
            except Exception:  # noqa: BLE001 - report the exact error, keep measuring the others
                cell.error = failure(server, cell, count)
                print(f"  {cell.label} FAILED (details at the end)", file=sys.stderr, flush=True)
                return
            if timed:
                cell.times.append(wall - handler)
                cell.handler.append(handler)

        print(f"  agents built, model calls captured: {time.perf_counter() - started:.1f} s", file=sys.stderr)
        freeze_heap()
        for cell in cells:
            for _ in range(args.warmup):
                attempt(cell, timed=False)
        freeze_heap()
        print(f"  warm-up done: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
        for r, order in rounds(cells, args.repeat):
            for cell in order:
                attempt(cell, timed=True)
            if (r + 1) % 10 == 0 or r + 1 == args.repeat:
                print(f"  round {r + 1}/{args.repeat} done", file=sys.stderr, flush=True)

        floors: dict[tuple[str, str], float] = {}
        for cell in cells:
            if cell.impl == "deepagents" and cell.request is not None:
                floors[(cell.api.name, cell.mode)] = transport_floor(server, cell.request)
    ok &= report(cells, floors, args)
    print(f"\ntotal bench time {time.perf_counter() - started:.1f} s")
    return 0 if ok else 1


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    raise SystemExit(main())
