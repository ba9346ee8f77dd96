"""A real `langgraph dev` server for the tests that need one: started on a free port
with the graphs given, waited for until it answers, stopped at the end."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

#: Tries at a free port: the port is free when probed, not when the server binds it (the
#: other test worker, another suite on the machine may take it meanwhile).
ATTEMPTS = 3


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(
    app: Path,
    graphs: dict[str, str],
    env: dict[str, str] | Callable[[int], dict[str, str]],
    jobs: int | None = None,
) -> Iterator[str]:
    """A `langgraph dev` process serving ``graphs`` (graph id: ``module:attr`` in ``app``)
    until the block ends; yields its URL. ``env`` is the server's extra environment, or a
    function of its port making it (a server that calls itself). Webhooks may call loopback
    addresses. A port found taken at start-up is given up for a new one."""
    config = {"dependencies": ["."], "graphs": graphs, "webhooks": {"url": {"disable_loopback": False}}}
    (app / "langgraph.json").write_text(json.dumps(config))
    for _ in range(ATTEMPTS):
        port = free_port()
        extra = env(port) if callable(env) else env
        proc = _start(app, port, extra, jobs)
        try:
            url = _wait(proc, app / "server.log", port)
            if url is not None:
                yield url
                return
        finally:
            _stop(proc)
    raise RuntimeError(f"langgraph dev found its port taken {ATTEMPTS} times:\n" + _tail(app / "server.log"))


def _start(app: Path, port: int, env: dict[str, str], jobs: int | None) -> subprocess.Popen:
    env = dict(os.environ, LANGSMITH_TRACING="false", LANGCHAIN_TRACING_V2="false", **env)
    cli = Path(sys.executable).parent / "langgraph"
    with open(app / "server.log", "w") as log:
        return subprocess.Popen(
            [
                *(str(cli), "dev", "--no-browser", "--no-reload", "--port", str(port), "--config", "langgraph.json"),
                # Runs the server takes at once (the dev server's default is one).
                *(("--n-jobs-per-worker", str(jobs)) if jobs else ()),
            ],
            cwd=app,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def _wait(proc: subprocess.Popen, log: Path, port: int) -> str | None:
    """The server's URL once it answers there; `None` when its port was taken: `langgraph
    dev` then serves on another port of its choosing ("Port N is already in use, using port
    M instead"), or uvicorn fails to bind ("address already in use") and exits. Only an
    answer after the server's own start-up counts: one before could be another server's on
    the port."""
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        text = log.read_text(errors="replace")
        if "already in use" in text.lower():
            return None
        if proc.poll() is not None:
            raise RuntimeError("langgraph dev exited:\n" + _tail(log))
        try:
            if "Application started up" in text:
                urllib.request.urlopen(url + "/ok", timeout=2)
                return url
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"langgraph dev did not answer at {url}:\n" + _tail(log))
        time.sleep(0.3)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-4000:]
