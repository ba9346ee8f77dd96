"""Ctrl-C reaches the caller of a blocking ``invoke`` while Rust waits on a slow tool."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent(
    """
    import signal, sys, time
    # A child inherits an ignored SIGINT from a parent that ignores it (a CI runner, nohup),
    # and Python then installs no handler: install the default one whatever the parent did.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, {tests!r})
    from fake_models import ScriptedChatModel, ai_tool_calls
    from deepagents_rs import create_deep_agent

    def slow(x: int) -> str:
        \"\"\"Take a long time.\"\"\"
        print("tool started", flush=True)
        time.sleep(60)
        print("tool finished", flush=True)
        return "done"

    model = ScriptedChatModel([ai_tool_calls(("slow", {{"x": 1}}, "c1")), "ok"])
    {make}
    try:
        {call}
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    """
)

#: How the child makes its agent and calls it: a plain ``invoke`` (the run waited for as a
#: whole), and a checkpointed one (its thread graph reading the core's stream item by item).
CALLS = {
    "invoke": ("agent = create_deep_agent(model=model, tools=[slow])", 'agent.invoke({"messages": [("user", "go")]})'),
    "thread": (
        (
            "from langgraph.checkpoint.memory import InMemorySaver; "
            "agent = create_deep_agent(model=model, tools=[slow], checkpointer=InMemorySaver())"
        ),
        'agent.invoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "t"}})',
    ),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_ctrl_c_interrupts_invoke(call: str) -> None:
    make, invoke = CALLS[call]
    script = SCRIPT.format(tests=str(Path(__file__).parent), make=make, call=invoke)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "tool started"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert out.strip() == "interrupted", err
    assert proc.returncode == 0
