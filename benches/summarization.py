"""Summarization: one model step on a ~100,000-token conversation, without and with summarizing.

deepagents_rs vs deepagents 0.7.32, side by side in this process, both driven by the same
scripted LangChain chat model (``tests/fake_models.py``, no HTTP) that answers at once. The
input state already holds a coding session of about ``--tokens`` tokens (as LangChain's
``count_tokens_approximately`` counts them): a task, then assistant turns that each call one
tool (``read_file``, ``grep``, ``ls``, ``write_file``, ``edit_file`` or one of two user tools)
followed by its result, with a progress note and a user follow-up every ten calls. The last
message is a tool result, so the agent calls the model next, and the model answers ``"done"``.

* ``plain``: the model's profile says ``max_input_tokens = 2 * tokens`` (200,000), so the
  default trigger (85% of it, 170,000) is not reached: one model call on the whole history.
* ``summarize``: ``max_input_tokens = 1.1 * tokens`` (110,000), so the trigger (93,500) fires
  on this step: the old messages go to ``/conversation_history/<session>.md`` on the agent's
  backend, the model is asked for a summary (a lone user message holding the transcript),
  and then called on the summary plus the kept tail (10% of the window, 11,000 tokens).

Measured: the wall time of ``agent.invoke(...)`` minus the time spent inside the model's
``_generate`` (the harness time); not included: building the agent and the input messages,
and a ``gc.collect()`` before each timed run. Each (case, implementation) cell gets one
warm-up run, then ``--repeat`` rounds that run every cell once, in an order rotated from
round to round; the median is reported, with the ratio deepagents / deepagents_rs.

Every run is checked (the model calls, the history file, the messages out), and one extra
untimed run per cell on an ``InMemorySaver`` thread checks ``_summarization_event`` in the
saved state; the two implementations' model calls, history files and events must be the
same (session ids and timestamps masked).

Usage::

    python benches/summarization.py [--tokens 100000] [--repeat 50]

``deepagents_rs`` is imported from whatever environment runs the script (the repository's
``python/`` directory is *not* put on ``sys.path``). The build type of the loaded extension
module is printed with the results. This is a benchmark script, not a test; it never
touches the network.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The scripted model lives in tests/; only that directory is added.
sys.path.insert(0, str(REPO / "tests"))
# benches/ itself, for the helpers shared with tool_loop.py.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from provider_session import get_ticket, search_docs
from tool_loop import BenchError, build_info

IMPLS = ("deepagents", "deepagents_rs")
CASES = ("plain", "summarize")
THREAD = {"configurable": {"thread_id": "bench"}}
FINAL_TEXT = "done"
SUMMARY_TEXT = "SUMMARY: the serializer raises for negative totals; the fix is in serializer.py."
#: In the summary prompt LangChain's SummarizationMiddleware sends (a lone user message).
SUMMARY_PROMPT_MARK = "\nMessages to summarize:\n"
HISTORY_PREFIX = "/conversation_history/"
TRUNCATED = "...(argument truncated)"
SESSION = re.compile(r"session_[0-9a-f]{32}")
STAMP = re.compile(r"Summarized at \d{4}-\d\d-\d\dT[0-9:.]+\+00:00")
# The default trigger and keep of deepagents' summarization with a profile.
TRIGGER_FRACTION, KEEP_FRACTION = 0.85, 0.10

TASK = (
    "The nightly export job started failing after last week's refactor of the billing module. "
    "The traceback in ENG-4121 points at the invoice serializer, but the tests still pass locally. "
    "Find out what changed, check how the serializer is used by the export job and by the public "
    "API, and fix it without changing the public API's response format."
)
FOLLOW_UP = "Thanks. Also check whether the currency rounding in the same module has the same problem."


# --------------------------------------------------------------------------- user tools


# The same user tools as providers.py's realistic session.
USER_TOOLS = [search_docs, get_ticket]


# --------------------------------------------------------------------------- the conversation


def _code_lines(step: int, count: int, start: int = 1) -> list[str]:
    """``count`` lines of plausible Python, about 55 characters each."""
    lines = []
    for i in range(start, start + count):
        kind = i % 6
        if kind == 0:
            lines.append(f"def handle_{i:03d}(invoice, *, currency='EUR', strict=False):")
        elif kind == 1:
            lines.append(f"    total = sum(line.amount for line in invoice.lines_{step})")
        elif kind == 2:
            lines.append("    if total < 0:  # credit notes are exported separately")
        elif kind == 3:
            lines.append(f"        raise ExportError(f'negative total in {{invoice.id}}: {i}')")
        elif kind == 4:
            lines.append("    rounded = total.quantize(CENT, rounding=ROUND_HALF_EVEN)")
        else:
            lines.append("    return serialize(invoice, total=rounded, currency=currency)")
    return lines


def _read_result(step: int, lines: int, offset: int) -> str:
    """A read_file result: ``cat -n``-style numbered lines."""
    return "\n".join(f"{offset + i + 1:6d}\t{text}" for i, text in enumerate(_code_lines(step, lines, offset + 1)))


def _call(step: int) -> tuple[str, dict[str, Any], str]:
    """The step-th tool call of the session and its result: (name, args, result text).

    Ten calls per cycle: four reads (80-200 lines, 5-12 KB), a grep (about 2.5 KB), a search
    (about 1 KB), an ls, a ticket, an edit and a 3.5 KB write_file (old write_file and edit_file
    arguments over 2,000 characters are what summarization's argument truncation cuts)."""
    module = f"/src/billing/module_{step:03d}.py"
    kind = step % 10
    if kind in (0, 2, 4, 7):
        lines = 80 + (step * 37) % 121
        offset = 0 if kind == 0 else 100
        return "read_file", {"file_path": module, "offset": offset, "limit": lines}, _read_result(step, lines, offset)
    if kind == 1:
        hits = "\n".join(
            f"/src/billing/module_{j:03d}.py:{10 + j}:    total = sum(line.amount for line in invoice.lines_{j})"
            for j in range(24)
        )
        return "grep", {"pattern": "total = sum", "path": "/src/billing", "output_mode": "content"}, hits
    if kind == 3:
        passages = "\n\n".join(
            f"[{j}] Export pipeline, section {j}: the serializer is called once per invoice with the "
            f"account's currency; amounts are rounded half-even before they are summed (revision {step})."
            for j in range(1, 6)
        )
        return "search_docs", {"query": "invoice serializer rounding export", "limit": 5}, passages
    if kind == 5:
        old = "\n".join(_code_lines(step, 5, 1))
        new = old.replace("raise ExportError", "return export_credit_note")
        args = {"file_path": module, "old_string": old, "new_string": new}
        return "edit_file", args, f"Successfully replaced 1 instance(s) of the string in '{module}'"
    if kind == 6:
        listing = "\n".join(f"/src/billing/module_{j:03d}.py" for j in range(step - 6, step + 14))
        return "ls", {"path": "/src/billing"}, listing
    if kind == 8:
        ticket = (
            f"ENG-{4121 + step}: Nightly export fails with ExportError\nStatus: open\nAssignee: unassigned\n\n"
            "Since the billing refactor the export job stops at the first credit note. The serializer now "
            "raises for negative totals instead of exporting them with a negative sign."
        )
        return "get_ticket", {"ticket_id": f"ENG-{4121 + step}"}, ticket
    path = f"/src/billing/test_module_{step:03d}.py"
    content = "\n".join(_code_lines(step, 64, 1)) + "\n"
    return "write_file", {"file_path": path, "content": content}, f"Updated file {path}"


def conversation(tokens: int) -> list[Any]:
    """A session of at least ``tokens`` tokens (``count_tokens_approximately``), new message
    objects on every call; it ends with a tool result, so the model is called next."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.messages.utils import count_tokens_approximately

    msgs: list[Any] = [HumanMessage(TASK)]
    total = count_tokens_approximately(msgs)
    step = 0
    while total < tokens:
        added: list[Any] = []
        if step and step % 10 == 0:
            added.append(
                AIMessage(
                    f"Progress after {step} calls: the serializer raises for negative totals since the "
                    "refactor, and the export job does not catch it. The public API catches it and returns "
                    "422. Next I check where credit notes are created and whether tests cover them."
                )
            )
            added.append(HumanMessage(FOLLOW_UP))
        name, args, result = _call(step)
        call_id = f"call_{step:03d}"
        added.append(
            AIMessage(
                f"Step {step}: using {name} to see how the serializer is used here.",
                tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}],
            )
        )
        added.append(ToolMessage(result, tool_call_id=call_id, name=name))
        msgs.extend(added)
        total += count_tokens_approximately(added)
        step += 1
    return msgs


# --------------------------------------------------------------------------- the model


def model_class() -> type:
    from fake_models import Call, ScriptedChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from pydantic import Field

    class BenchModel(ScriptedChatModel):
        """``ScriptedChatModel`` that also answers summary prompts (a lone user message holding
        the transcript) with ``SUMMARY_TEXT``, records them apart from the agent's calls, and
        stamps (arrival, return) of every call so the model's own time can be subtracted."""

        kinds: list[str] = Field(default_factory=list, exclude=True)  # "summary" | "agent", in order
        summary_calls: list[Any] = Field(default_factory=list, exclude=True)
        stamps: list[tuple[float, float]] = Field(default_factory=list, exclude=True)

        def _answer(self, messages: Any, stop: Any, kwargs: dict[str, Any]) -> ChatResult:
            arrived = time.perf_counter()
            if len(messages) == 1 and SUMMARY_PROMPT_MARK in str(messages[0].content):
                self.kinds.append("summary")
                self.summary_calls.append(Call(messages=list(messages), kwargs={**kwargs, "stop": stop}))
                result = ChatResult(generations=[ChatGeneration(message=AIMessage(content=SUMMARY_TEXT))])
            else:
                self.kinds.append("agent")
                result = self._next(messages, stop, kwargs)
            self.stamps.append((arrived, time.perf_counter()))
            return result

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            return self._answer(messages, stop, kwargs)

        async def _agenerate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            return self._answer(messages, stop, kwargs)

    return BenchModel


# --------------------------------------------------------------------------- checks


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


def view(m: Any) -> dict[str, Any]:
    """What the model sees of a message (ids left out: they are random in both)."""
    return {
        "type": m.type,
        "content": m.content,
        "tool_calls": [{k: tc[k] for k in ("name", "args", "id")} for tc in getattr(m, "tool_calls", None) or []],
        "tool_call_id": getattr(m, "tool_call_id", None),
        "name": m.name,
        "additional_kwargs": m.additional_kwargs,
    }


def masked(value: Any) -> Any:
    """Session ids and the history file's timestamps are random; everything else must match."""
    text = json.dumps(value, default=str, sort_keys=True)
    return json.loads(STAMP.sub("Summarized at <time>", SESSION.sub("session_<id>", text)))


@dataclass
class Outcome:
    """What one run did, for the cross-implementation comparison."""

    kinds: list[str]
    agent_calls: list[Any]  # [{"messages": [...], "tools": [...], "kwargs": {...}}]
    summary_calls: list[Any]
    history_file: str | None
    event: Any = None


def check_run(label: str, case: str, model: Any, out: dict[str, Any], history: list[Any]) -> Outcome:
    """Fail loudly unless the run did exactly the step it is timed for."""
    n = len(history)
    if model.remaining:
        raise BenchError(f"{label}: {model.remaining} scripted responses left unused")
    msgs = out["messages"]
    # The state keeps the raw history in both cases (summaries are an event, not a rewrite).
    if len(msgs) != n + 1 or text_of(msgs[-1].content) != FINAL_TEXT:
        raise BenchError(f"{label}: {len(msgs)} messages out ending {msgs[-1].content!r}; expected {n + 1}, 'done'")
    files = out.get("files") or {}
    histories = [k for k in files if k.startswith(HISTORY_PREFIX)]
    if len(model.calls) != 1:
        raise BenchError(f"{label}: {len(model.calls)} agent model calls, expected 1")
    seen = model.calls[0].messages
    if seen[0].type != "system":
        raise BenchError(f"{label}: the agent call does not start with the system message")
    if case == "plain":
        if model.kinds != ["agent"] or model.summary_calls:
            raise BenchError(f"{label}: model calls {model.kinds}, expected one agent call and no summary")
        if histories:
            raise BenchError(f"{label}: a history file was written without summarizing: {histories}")
        if [view(m) for m in seen[1:]] != [view(m) for m in history]:
            raise BenchError(f"{label}: the model did not see the whole history ({len(seen) - 1} of {n} messages)")
        history_text = None
    else:
        if model.kinds != ["summary", "agent"]:
            raise BenchError(f"{label}: model calls {model.kinds}, expected a summary call, then the agent call")
        if len(histories) != 1:
            raise BenchError(f"{label}: history files {histories}, expected one")
        (path,) = histories
        history_text = text_of(files[path]["content"])
        if "## Summarized at " not in history_text or TASK not in history_text:
            raise BenchError(f"{label}: the history file does not hold the summarized messages")
        # Old write_file contents (3.5 KB) are cut before the messages are summarized and saved.
        if TRUNCATED not in history_text:
            raise BenchError(f"{label}: no old write_file argument was truncated")
        head = text_of(seen[1].content)
        if seen[1].type != "human" or f"<summary>\n{SUMMARY_TEXT}\n</summary>" not in head or path not in head:
            raise BenchError(f"{label}: the agent call's second message is not the summary: {head[:120]!r}")
        kept = seen[2:]
        if not 0 < len(kept) < n // 2 or [view(m) for m in kept] != [view(m) for m in history[n - len(kept) :]]:
            raise BenchError(f"{label}: the agent call does not end with a kept tail of the history ({len(kept)})")
    return Outcome(
        kinds=list(model.kinds),
        agent_calls=[
            {"messages": [view(m) for m in c.messages], "tools": c.tools, "kwargs": c.kwargs} for c in model.calls
        ],
        summary_calls=[{"messages": [view(m) for m in c.messages], "kwargs": c.kwargs} for c in model.summary_calls],
        history_file=history_text,
    )


def check_state(label: str, case: str, agent: Any, outcome: Outcome) -> None:
    """The saved thread: a summarization event after summarizing, none otherwise."""
    values = agent.get_state(THREAD).values
    event = values.get("_summarization_event")
    if case == "plain":
        if event is not None:
            raise BenchError(f"{label}: the thread holds a summarization event without summarizing")
        return
    if not event:
        raise BenchError(f"{label}: no _summarization_event in the saved thread")
    if not (event.get("file_path") or "").startswith(HISTORY_PREFIX) or SUMMARY_TEXT not in text_of(
        event["summary_message"].content
    ):
        raise BenchError(f"{label}: the saved event does not point at the history and summary: {event}")
    if not SESSION.fullmatch(values.get("_summarization_session_id") or ""):
        raise BenchError(f"{label}: no _summarization_session_id in the saved thread")
    outcome.event = {**event, "summary_message": view(event["summary_message"])}


def compare(case: str, ref: Outcome, rs: Outcome) -> None:
    """Both implementations must make the same model calls and write the same history."""
    if ref.kinds != rs.kinds:
        raise BenchError(f"{case}: model calls differ: deepagents {ref.kinds}, deepagents_rs {rs.kinds}")
    for what in ("summary_calls", "agent_calls", "history_file", "event"):
        a, b = masked(getattr(ref, what)), masked(getattr(rs, what))
        if a != b:
            raise BenchError(f"{case}: {what} differ between deepagents and deepagents_rs: {first_difference(a, b)}")


def first_difference(a: Any, b: Any, where: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                return first_difference(a.get(k), b.get(k), f"{where}.{k}")
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where or 'value'}: {len(a)} items (deepagents) vs {len(b)} (deepagents_rs)"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{where}[{i}]")
    return f"{where or 'value'}: deepagents {str(a)[:300]!r} vs deepagents_rs {str(b)[:300]!r}"


# --------------------------------------------------------------------------- runs


@dataclass
class Cell:
    impl: str
    case: str
    runs: list[Timing] = field(default_factory=list)
    error: str | None = None

    def median_ms(self, key: str = "harness_s") -> float:
        return statistics.median(getattr(t, key) for t in self.runs) * 1e3


@dataclass
class Timing:
    harness_s: float  # invoke() wall time minus the time inside the model's _generate
    model_s: float  # the time inside the model's _generate (summary call included)
    before_s: float  # invoke() start -> the agent's model call arrives, minus the summary call's time


def one_run(impl: str, case: str, module: Any, tokens: int, *, saver: bool = False) -> tuple[Timing, Outcome]:
    """Build a fresh agent and input (not timed), time one ``invoke`` and check it."""
    model = model_class()([FINAL_TEXT], profile={"max_input_tokens": max_input_tokens(case, tokens)})
    extra: dict[str, Any] = {}
    if saver:
        from langgraph.checkpoint.memory import InMemorySaver

        extra["checkpointer"] = InMemorySaver()
    agent = module.create_deep_agent(model=model, tools=USER_TOOLS, **extra)
    history = conversation(tokens)
    inp = {"messages": history}
    expected = [view(m) for m in history]
    # Collect the previous run's garbage now, so it is not collected (and timed) in this one.
    gc.collect()
    t0 = time.perf_counter()
    out = agent.invoke(inp, THREAD if saver else None)
    wall = time.perf_counter() - t0
    label = f"{impl}/{case}"
    if [view(m) for m in history] != expected:
        raise BenchError(f"{label}: the input messages were changed in place")
    outcome = check_run(label, case, model, out, history)
    if saver:
        check_state(label, case, agent, outcome)
    # kinds is ["agent"] or ["summary", "agent"] (checked above); stamps are in the same order.
    model_s = sum(b - a for a, b in model.stamps)
    summary_s = sum(b - a for a, b in model.stamps[:-1])
    before_s = model.stamps[-1][0] - t0 - summary_s
    return Timing(wall - model_s, model_s, before_s), outcome


def max_input_tokens(case: str, tokens: int) -> int:
    # plain: the trigger (85%) sits far above the conversation; summarize: below it.
    return 2 * tokens if case == "plain" else tokens * 11 // 10


def verify(tokens: int, modules: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """One untimed run per cell on an InMemorySaver thread, checked, and compared across the
    two implementations. Returns notes and the cells that failed (with their error)."""
    notes: list[str] = []
    failed: dict[str, str] = {}
    for case in CASES:
        outcomes: dict[str, Outcome] = {}
        for impl in IMPLS:
            try:
                outcomes[impl] = one_run(impl, case, modules[impl], tokens, saver=True)[1]
            except Exception as e:
                if impl == "deepagents":
                    raise
                failed[f"{impl}/{case}"] = f"{type(e).__name__}: {e}"
        if len(outcomes) == 2:
            try:
                compare(case, outcomes["deepagents"], outcomes["deepagents_rs"])
            except BenchError as e:
                failed[f"deepagents_rs/{case}"] = f"DIFFERENT FROM deepagents: {e}"
        ref = outcomes["deepagents"]
        call = ref.agent_calls[0]
        if case == "plain":
            notes.append(f"plain: 1 model call on system + {len(call['messages']) - 1} messages")
        else:
            notes.append(
                f"summarize: a summary call, then the agent call on system + summary + "
                f"{len(call['messages']) - 2} kept messages; event cutoff_index "
                f"{ref.event['cutoff_index']}; history file {len(ref.history_file or ''):,} characters"
            )
    return notes, failed


def request_tokens(tokens: int, module: Any) -> tuple[int, int, int]:
    """(messages, history tokens, request tokens) as deepagents' trigger counts them: system
    message, history and tool schemas, by ``count_tokens_approximately``."""
    from langchain_core.messages.utils import count_tokens_approximately

    model = model_class()([FINAL_TEXT], profile={"max_input_tokens": max_input_tokens("plain", tokens)})
    history = conversation(tokens)
    module.create_deep_agent(model=model, tools=USER_TOOLS).invoke({"messages": history})
    (call,) = model.calls
    return (
        len(history),
        count_tokens_approximately(history),
        count_tokens_approximately(call.messages, tools=call.tools),
    )


def run_all(tokens: int, repeat: int, modules: dict[str, Any], failed: dict[str, str]) -> dict[tuple[str, str], Cell]:
    """One warm-up per cell, then ``repeat`` rounds of every cell, the order rotated per round."""
    cells = {(impl, case): Cell(impl, case) for case in CASES for impl in IMPLS}
    for cell in cells.values():
        if f"{cell.impl}/{cell.case}" in failed:
            cell.error = failed[f"{cell.impl}/{cell.case}"]
    order = list(cells)
    for r in range(repeat + 1):  # round 0 is the warm-up
        for impl, case in order[r % len(order) :] + order[: r % len(order)]:
            cell = cells[(impl, case)]
            if cell.error is not None:
                continue
            try:
                timing, _ = one_run(impl, case, modules[impl], tokens)
            except Exception as e:
                if impl == "deepagents":
                    raise
                cell.error = f"{type(e).__name__}: {e}"
                continue
            if r:
                cell.runs.append(timing)
    return cells


# --------------------------------------------------------------------------- report


def report(cells: dict[tuple[str, str], Cell], notes: list[str], tokens: int) -> bool:
    labels = {
        "plain": f"1. no summary (max_input_tokens {max_input_tokens('plain', tokens):,})",
        "summarize": f"2. summarizing (max_input_tokens {max_input_tokens('summarize', tokens):,})",
    }
    head = f"{'step':<44} {'deepagents ms':>14} {'deepagents_rs ms':>17} {'ratio':>7}"
    print()
    print(head)
    print("-" * len(head))
    ok = True
    medians: dict[tuple[str, str], float] = {}
    for case in CASES:
        row = []
        for impl in IMPLS:
            cell = cells[(impl, case)]
            if cell.error is None and cell.runs:
                medians[(impl, case)] = cell.median_ms()
                row.append(f"{medians[(impl, case)]:.2f}")
            else:
                ok = False
                row.append("FAILED")
        ratio = "n/a"
        if (("deepagents", case) in medians) and (("deepagents_rs", case) in medians):
            ratio = f"{medians[('deepagents', case)] / medians[('deepagents_rs', case)]:.2f}"
        print(f"{labels[case]:<44} {row[0]:>14} {row[1]:>17} {ratio:>7}")
    if len(medians) == 4:
        added = {impl: medians[(impl, "summarize")] - medians[(impl, "plain")] for impl in IMPLS}
        # A difference of two medians: no ratio, it is within the noise when small.
        print(f"{'   difference (2 - 1)':<44} {added['deepagents']:>14.2f} {added['deepagents_rs']:>17.2f} {'':>7}")
    print()
    for (impl, case), cell in cells.items():
        if cell.runs:
            lo, hi = min(t.harness_s for t in cell.runs) * 1e3, max(t.harness_s for t in cell.runs) * 1e3
            before, model_ms = cell.median_ms("before_s"), cell.median_ms("model_s")
            notes.append(
                f"{impl}/{case}: harness min-max {lo:.2f}-{hi:.2f} ms; median {before:.2f} ms of it before the "
                f"agent's model call (summarizing included); {model_ms:.2f} ms inside the model, not counted"
            )
    notes.append("ratio = deepagents / deepagents_rs harness time per step (higher is better for deepagents_rs)")
    for (impl, case), cell in cells.items():
        if cell.error is not None:
            notes.append(f"{impl}/{case} FAILED: {cell.error}")
    for note in notes:
        print(f"  {note}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=100_000, help="conversation size (default 100000)")
    parser.add_argument("--repeat", type=int, default=50, help="timed rounds; the median is reported (default 50)")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.tokens < 20_000:
        parser.error("--repeat must be >= 1 and --tokens >= 20000")

    import deepagents
    import deepagents_rs

    modules = {"deepagents": deepagents, "deepagents_rs": deepagents_rs}
    print(f"python {sys.version.split()[0]}, deepagents {deepagents.__version__}")
    print(f"deepagents_rs core: {build_info()}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other work on the machine skews the numbers)")
    started = time.perf_counter()
    n, hist_tokens, req_tokens = request_tokens(args.tokens, deepagents)
    trigger_plain = int(max_input_tokens("plain", args.tokens) * TRIGGER_FRACTION)
    trigger_sum = int(max_input_tokens("summarize", args.tokens) * TRIGGER_FRACTION)
    print(
        f"conversation: {n} messages, {hist_tokens:,} tokens (count_tokens_approximately); the request with "
        f"system message and tool schemas: {req_tokens:,} tokens; triggers {trigger_plain:,} (1) and "
        f"{trigger_sum:,} (2), keep {int(max_input_tokens('summarize', args.tokens) * KEEP_FRACTION):,} (2)"
    )
    if not trigger_sum < hist_tokens <= req_tokens < trigger_plain:
        raise BenchError("the conversation does not sit between the two triggers; change --tokens")
    print(
        f"repeat={args.repeat} (median of the timed rounds after one warm-up per cell); "
        "harness ms = invoke wall time - time inside the model's _generate"
    )
    # Collect, then freeze what is alive (modules, both libraries): the collect before each run
    # then only looks at what earlier runs left behind.
    gc.collect()
    gc.freeze()
    notes, failed = verify(args.tokens, modules)
    notes.append(
        "every run checked: the model calls (plain: one, on the whole history; summarize: the summary "
        "prompt, then the summary + the kept tail), the history file, 'done' and the raw history out; "
        "one run per cell on an InMemorySaver thread: _summarization_event; both implementations: the same "
        "model calls, history file and event"
    )
    cells = run_all(args.tokens, args.repeat, modules, failed)
    ok = report(cells, notes, args.tokens)
    print(f"\ntotal bench time {time.perf_counter() - started:.1f} s")
    return 0 if ok and not failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
