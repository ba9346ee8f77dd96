"""`python -m deepagents_rs demo` runs offline against the built-in simulated provider."""

from __future__ import annotations

import os
import subprocess
import sys


def test_demo_runs_offline() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    out = subprocess.run(
        [sys.executable, "-m", "deepagents_rs", "demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Using the built-in simulated Anthropic API at http://127.0.0.1:")
    assert "[tool] It is sunny and 21 degrees C in Paris." in lines
    assert lines[-2] == "[ai] Here is the weather: It is sunny and 21 degrees C in Paris."
    assert lines[-1].startswith("model calls: 2,")


def test_cli_usage_error() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "deepagents_rs"], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 2
    assert "usage: python -m deepagents_rs demo" in out.stderr
