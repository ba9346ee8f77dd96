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
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(
    app: Path, graphs: dict[str, str], env: dict[str, str], port: int | None = None, jobs: int | None = None
) -> Iterator[str]:
    """A `langgraph dev` process serving ``graphs`` (graph id: ``module:attr`` in ``app``)
    until the block ends; yields its URL. Webhooks may call loopback addresses."""
    port = port or free_port()
    config = {"dependencies": ["."], "graphs": graphs, "webhooks": {"url": {"disable_loopback": False}}}
    (app / "langgraph.json").write_text(json.dumps(config))
    env = dict(os.environ, LANGSMITH_TRACING="false", LANGCHAIN_TRACING_V2="false", **env)
    cli = Path(sys.executable).parent / "langgraph"
    log = open(app / "server.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
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
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError("langgraph dev exited:\n" + (app / "server.log").read_text()[-4000:])
            try:
                urllib.request.urlopen(url + "/ok", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
