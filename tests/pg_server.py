"""A throwaway PostgreSQL server for the tests: the distribution's `postgresql` package
(Debian's, under /usr/lib/postgresql/<version>/bin), started on a free loopback port in a
temporary directory and stopped at the end. PostgreSQL refuses to run as root, so as root it
runs as the `postgres` user the package creates.

Without a server installed the tests that need one are skipped, except under CI (`CI` set),
where `.ci/run` installs the package and a missing server is a failure.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


def available() -> str | None:
    """Why no server can be started, or ``None``."""
    if _bin("initdb") is None or _bin("pg_ctl") is None:
        return "PostgreSQL's server is not installed (Debian: apt-get install postgresql)"
    return None


@contextmanager
def server() -> Iterator[str]:
    """A fresh server; yields its connection string."""
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    assert initdb and pg_ctl, available()
    root = tempfile.mkdtemp(prefix="deepagents-rs-pg-")
    data = os.path.join(root, "data")
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")

    def run(cmd: list[str]) -> None:
        subprocess.run(_as_server_user(cmd), check=True, capture_output=True, text=True)

    try:
        run([initdb, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"])
        # The port is free when probed, not when the server binds it: another process (the
        # other test worker, another suite on the machine) may take it meanwhile. Then the
        # start fails, and a new port is tried.
        for attempt in range(3):
            port = _free_port()
            options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
            try:
                run([pg_ctl, "-D", data, "-o", options, "-l", os.path.join(root, "log"), "-w", "start"])
                break
            except subprocess.CalledProcessError:
                if attempt == 2:
                    raise
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            stop = [pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"]
            subprocess.run(_as_server_user(stop), check=False, capture_output=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
