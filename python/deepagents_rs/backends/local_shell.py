"""`LocalShellBackend`: a `FilesystemBackend` that also runs shell commands on this machine.

Nothing is sandboxed: commands run as the current user, wherever they like.
"""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING

from deepagents_rs import _core
from deepagents_rs.backends.filesystem import FilesystemBackend
from deepagents_rs.backends.protocol import ExecuteResponse, SandboxBackendProtocol

if TYPE_CHECKING:
    from pathlib import Path


DEFAULT_EXECUTE_TIMEOUT = 120
"""Seconds a shell command may run before it is stopped, unless told otherwise."""


def _require_positive_timeout(seconds: int) -> None:
    if seconds <= 0:
        msg = f"timeout must be positive, got {seconds}"
        raise ValueError(msg)


def _command_env(env: dict[str, str] | None, *, inherit_env: bool) -> dict[str, str]:
    """The environment commands run with: `env` alone, or layered over this process's own."""
    if not inherit_env:
        return {} if env is None else env
    merged = os.environ.copy()
    merged.update(env or {})
    return merged


class LocalShellBackend(FilesystemBackend, SandboxBackendProtocol):
    """Local files plus unrestricted shell commands on the host.

    Example:
        ```python
        backend = LocalShellBackend(root_dir="/path/to/project", env={"PATH": "/usr/bin:/bin"})
        backend.execute("pytest -q").output
        backend.read("/README.md")
        ```

    !!! warning
        The agent gets your user's full power over this machine: it can read
        any secret, change or delete any file, install software and reach the
        network. `virtual_mode` confines the file tools only; a shell command
        can go anywhere. Use it for local development tools you trust, behind
        human-in-the-loop approval of every command, never in a server or with
        untrusted input. For isolation build on `BaseSandbox` instead.
    """

    def __init__(
        self,
        root_dir: str | Path | None = None,
        *,
        virtual_mode: bool = True,  # confines the file tools, never the shell
        timeout: int = DEFAULT_EXECUTE_TIMEOUT,
        max_output_bytes: int = 100_000,
        env: dict[str, str] | None = None,
        inherit_env: bool = False,
    ) -> None:
        """Set up file access under `root_dir` and the way commands are run.

        Args:
            root_dir: Directory for the file tools and the working directory of
                every command; the current directory when omitted.
            virtual_mode: Treat `root_dir` as `/` for the file tools and refuse
                paths leaving it (what `CompositeBackend` routes expect). Has no
                effect on shell commands.
            timeout: Default seconds before a command is stopped; `execute` can
                override it per call.
            max_output_bytes: Output beyond this many bytes is cut off.
            env: Environment variables for commands.
            inherit_env: Start from this process's environment, with `env`
                applied on top, instead of from `env` alone.

        Raises:
            ValueError: If `timeout` is not positive.
        """
        _require_positive_timeout(timeout)
        super().__init__(root_dir=root_dir, virtual_mode=virtual_mode, max_file_size_mb=10)
        self._default_timeout = timeout
        self._max_output_bytes = max_output_bytes
        self._env = _command_env(env, inherit_env=inherit_env)
        self._sandbox_id = f"local-{uuid.uuid4().hex[:8]}"

    @property
    def id(self) -> str:
        """`local-` followed by eight random hex digits, fixed for this instance."""
        return self._sandbox_id

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run `command` through the system shell in `root_dir`, with no restriction at all.

        Stdin is closed, so commands waiting for input end at once. Stdout and
        `[stderr]`-tagged stderr come back as one text; a non-zero exit code is
        appended to it. Failures to run come back as a response, not an exception.

        Args:
            command: The shell command line.
            timeout: Seconds allowed for this command; the backend default when `None`.

        Raises:
            ValueError: If the timeout in effect is not positive.
        """
        if not command or not isinstance(command, str):
            return ExecuteResponse(output="Error: Command must be a non-empty string.", exit_code=1, truncated=False)
        seconds = self._default_timeout if timeout is None else timeout
        _require_positive_timeout(seconds)
        try:
            # The core runs it without the GIL: deepagents' shell, output and timeout rules.
            output, exit_code, truncated = _core.shell_execute(
                command, str(self.cwd), list(self._env.items()), seconds, timeout is not None, self._max_output_bytes
            )
        except Exception as e:  # noqa: BLE001 - every failure to run is reported to the model, not raised
            return ExecuteResponse(
                output=f"Error executing command ({type(e).__name__}): {e}", exit_code=1, truncated=False
            )
        return ExecuteResponse(output=output, exit_code=exit_code, truncated=truncated)


__all__ = ["DEFAULT_EXECUTE_TIMEOUT", "LocalShellBackend"]
