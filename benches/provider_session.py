"""providers.py's session: the two user tools on top of deepagents' built-ins, the
conversation of ``--history`` messages the agent is given, and the reply text the server answers.

Also the user tools of summarization.py's coding session."""

from __future__ import annotations

from typing import Any

# --------------------------------------------------------------------------- user tools


def search_docs(query: str, limit: int = 5) -> str:
    """Search the internal documentation and return the best matching passages.

    Args:
        query: What to look for, in plain words.
        limit: How many passages to return at most.
    """
    return "no results"


def get_ticket(ticket_id: str) -> str:
    """Fetch an issue-tracker ticket: title, status, assignee and description.

    Args:
        ticket_id: The ticket key, e.g. ENG-1234.
    """
    return "no such ticket"


USER_TOOLS = [search_docs, get_ticket]


# --------------------------------------------------------------------------- the conversation

TASK = (
    "The nightly export job started failing after last week's refactor of the billing module. "
    "The traceback in ENG-4121 points at the invoice serializer, but the tests still pass locally. "
    "Please find out what changed, check how the serializer is used by the export job and by the "
    "public API, and propose a minimal fix. Do not change the public API's response format; the "
    "mobile clients depend on it. Write the fix into the repository and summarize what you changed, "
    "with the file names and the reason for each change."
)
FOLLOW_UP = (
    "Thanks. Before you change anything else, also check whether the currency rounding in the same "
    "module has the same problem, and look at the related ticket if there is one."
)


def _code(path: str, lines: int) -> str:
    """A read_file result: numbered lines of plausible Python (about 50 characters each)."""
    body = []
    for i in range(1, lines + 1):
        kind = i % 5
        if kind == 0:
            text = f"def handle_{i:03d}(invoice, *, currency='EUR'):"
        elif kind == 1:
            text = f"    total = sum(line.amount for line in invoice.lines_{i})"
        elif kind == 2:
            text = "    if total < 0:  # credit notes are exported separately"
        elif kind == 3:
            text = f"        raise ExportError(f'negative total in {{invoice.id}}: {i}')"
        else:
            text = "    return serialize(invoice, rounding=ROUND_HALF_EVEN)"
        body.append(f"{i:6d}\t{text}")
    return f"{path}\n" + "\n".join(body)


def _calls(step: int) -> tuple[str, dict[str, Any], str]:
    """The step-th tool call of the history and its result: (name, args, result text)."""
    kind = step % 5
    if kind == 0:
        path = f"/src/billing/module_{step:02d}.py"
        return "read_file", {"file_path": path, "offset": 0, "limit": 40}, _code(path, 40)
    if kind == 1:
        hits = "\n".join(f"/src/billing/module_{j:02d}.py" for j in range(18))
        return "grep", {"pattern": "def handle_", "path": "/src/billing"}, hits
    if kind == 2:
        passages = "\n\n".join(
            f"[{j}] Export pipeline, section {j}: the serializer is called once per invoice with the "
            f"account's currency; amounts are rounded half-even before they are summed (revision {step})."
            for j in range(1, 6)
        )
        return "search_docs", {"query": "invoice serializer rounding export", "limit": 5}, passages
    if kind == 3:
        listing = "\n".join(f"/src/billing/{name}" for name in ("__init__.py", "export.py", "serializer.py", "tax/"))
        return "ls", {"path": "/src/billing"}, listing
    ticket = (
        f"ENG-{4121 + step}: Nightly export fails with ExportError\nStatus: open\nAssignee: unassigned\n\n"
        "Since the billing refactor the export job stops at the first credit note. The serializer now "
        "raises for negative totals instead of exporting them with a negative sign."
    )
    return "get_ticket", {"ticket_id": f"ENG-{4121 + step}"}, ticket


def conversation(n: int) -> list[Any]:
    """``n`` messages (``n`` odd): the task, then tool-calling assistant turns and their results,
    with an assistant summary and a user follow-up after every six calls; the last message is a
    tool result, so the model is called next."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    msgs: list[Any] = [HumanMessage(TASK)]
    step = 0
    while len(msgs) < n:
        if step and step % 6 == 0 and len(msgs) + 4 <= n:
            msgs.append(
                AIMessage(
                    f"So far: the serializer raises for negative totals since revision {step}, and the export "
                    "job does not catch it. The public API catches it and returns 422. Next I will check "
                    "where credit notes are created and whether the tests cover negative totals."
                )
            )
            msgs.append(HumanMessage(FOLLOW_UP))
        name, args, result = _calls(step)
        call_id = f"call_{step:03d}"
        msgs.append(
            AIMessage(
                f"Step {step}: let me look at this with {name} to see how the serializer is used here.",
                tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}],
            )
        )
        msgs.append(ToolMessage(result, tool_call_id=call_id, name=name))
        step += 1
    return msgs


def reply_text(chars: int) -> str:
    sentence = (
        "The serializer now raises for negative totals, so the export job stops at the first credit note; "
        "I restored the signed export in serializer.py and added a test for credit notes. "
    )
    return (sentence * (chars // len(sentence) + 1))[:chars]
