"""Runs on a thread in processes of their own: one killed inside a tool, the thread then
resumed in a fresh process (``test_threads``, ``test_subagent_resume``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

#: The killed workers' tool: logs each execution to `work`; blocks the first time it echoes
#: "step 2" (after a marker file), so the parent can kill the process inside it.
BLOCKING_ECHO = (
    textwrap.dedent(
        """
    def echo(text: str) -> str:
        '''Echo the text.'''
        with open(os.path.join(work, "log"), "a") as f:
            f.write(text + "\\n")
        marker = os.path.join(work, "inside")
        if text == "step 2" and not os.path.exists(marker):
            open(marker, "w").close()
            time.sleep(120)
        return text
    """
    ).strip()
    + "\n"
)

#: The killed workers' saver: `where` is `sqlite:<path>` or a PostgreSQL url.
SAVER_AT = (
    textwrap.dedent(
        """
    if where.startswith("sqlite:"):
        from langgraph.checkpoint.sqlite import SqliteSaver
        saver = SqliteSaver(sqlite3.connect(where[len("sqlite:"):], check_same_thread=False))
    else:
        import psycopg
        from psycopg.rows import dict_row
        from langgraph.checkpoint.postgres import PostgresSaver
        saver = PostgresSaver(psycopg.connect(where, autocommit=True, prepare_threshold=0, row_factory=dict_row))
        saver.setup()
    """
    ).strip()
    + "\n"
)

#: A run on a thread in a process of its own, killed or resumed: `argv` = implementation,
#: saver (`sqlite:<path>` or a PostgreSQL url), work directory, `start` or `resume`. The
#: `echo` tool logs each execution; the third blocks the first time (after a marker file),
#: so the parent can kill the process inside it.
KILLED_WORKER = textwrap.dedent(
    """
    import importlib, os, sqlite3, sys, time
    sys.path.insert(0, {tests!r})
    from fake_models import ScriptedChatModel, ai_tool_calls

    impl, where, work, mode = sys.argv[1:5]
    STEPS = 4

    {echo}
    {saver}
    script = [ai_tool_calls(("echo", {{"text": f"step {{i}}"}}, f"call_{{i}}")) for i in range(STEPS)] + ["done"]
    config = {{"configurable": {{"thread_id": "killed"}}}}
    module = importlib.import_module(impl)
    if mode == "start":
        agent = module.create_deep_agent(model=ScriptedChatModel(script), tools=[echo], checkpointer=saver)
        agent.invoke({{"messages": [("user", "go")]}}, config)
    else:
        probe = module.create_deep_agent(model=ScriptedChatModel([]), tools=[echo], checkpointer=saver)
        made = sum(m.type == "ai" for m in probe.get_state(config).values["messages"])
        agent = module.create_deep_agent(model=ScriptedChatModel(script[made:]), tools=[echo], checkpointer=saver)
        result = agent.invoke(None, config)
        print("RESULT", [(m.type, m.content) for m in result["messages"]])
    """
).format(tests=str(Path(__file__).resolve().parent), echo=BLOCKING_ECHO, saver=SAVER_AT)


def _killed_and_resumed(impl: str, where: str, work: Path, worker: str = KILLED_WORKER) -> tuple[list[str], str]:
    """Runs ``worker`` (as `KILLED_WORKER`), kills it inside its blocking tool, resumes the
    thread in a fresh process: the tool's log and the resumed run's `RESULT` line."""
    import signal
    import time

    child = subprocess.Popen([sys.executable, "-c", worker, impl, where, str(work), "start"])
    try:
        deadline = time.monotonic() + 60
        while not (work / "inside").exists():
            assert child.poll() is None, "the run ended before the kill"
            assert time.monotonic() < deadline, "the run never reached the blocking tool"
            time.sleep(0.05)
        time.sleep(0.3)  # as a kill would come: in the middle of the tool call
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    done = subprocess.run(
        [sys.executable, "-c", worker, impl, where, str(work), "resume"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = next(line for line in done.stdout.splitlines() if line.startswith("RESULT"))
    return (work / "log").read_text().splitlines(), result
