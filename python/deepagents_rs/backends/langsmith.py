"""`LangSmithSandbox`: a `BaseSandbox` running in a LangSmith sandbox.

Commands go through the SDK's `run`; file reads, writes and transfers use the
SDK's file calls directly, because pushing file bytes through a shell command
runs into argument-length and transport limits. `langsmith` is imported only
when a file call needs its exception types.
"""

from __future__ import annotations

import base64
import logging
from typing import TYPE_CHECKING

from deepagents_rs.backends.protocol import (
    ExecuteResponse,
    FileDownloadResponse,
    FileUploadResponse,
    ReadResult,
    WriteResult,
)
from deepagents_rs.backends.sandbox import MAX_BINARY_BYTES, MAX_OUTPUT_BYTES, TRUNCATION_MSG, BaseSandbox
from deepagents_rs.backends.utils import EMPTY_CONTENT_WARNING, _get_backend_read_file_type, normalize_read_bounds

if TYPE_CHECKING:
    from langsmith.sandbox import AsyncSandbox, AsyncSandboxClient, ExecutionResult, Sandbox

logger = logging.getLogger(__name__)

_DEFAULT_TIMEOUT_SECONDS = 30 * 60


def _execute_response(result: ExecutionResult) -> ExecuteResponse:
    """One output text from the SDK's separate streams: stdout, then stderr on its own line."""
    output = "\n".join(stream for stream in (result.stdout, result.stderr) if stream)
    return ExecuteResponse(output=output, exit_code=result.exit_code, truncated=False)


# --- reading: the same results `BaseSandbox.read` gets from its in-sandbox script ---------


def _as_base64(file_path: str, raw: bytes) -> ReadResult:
    if len(raw) > MAX_BINARY_BYTES:
        return ReadResult(
            error=f"File '{file_path}': Binary file exceeds maximum preview size of {MAX_BINARY_BYTES} bytes"
        )
    return ReadResult(file_data={"content": base64.b64encode(raw).decode("ascii"), "encoding": "base64"})


def _as_text(file_path: str, raw: bytes) -> str | None:
    """The file as text, or `None` when it goes back as base64 instead.

    The extension decides first, as the script does; a text-named file that is
    not UTF-8 is sent as base64 rather than decoded by guesswork.
    """
    if _get_backend_read_file_type(file_path) != "text":
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        # Logged so a corrupt file or a misleading extension can be traced.
        logger.info("Text-extension file %s contained invalid UTF-8; returning as base64", file_path)
        return None


def _split_lines(text: str) -> list[str]:
    """Lines as Python's universal-newline mode sees them.

    CRLF and lone CR both end a line; leaving `\\r` in the lines would make the
    text the model sees differ from what `edit` has to match.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _fit_in_output_cap(page: list[str]) -> tuple[str, int]:
    """The page joined into text no larger than `MAX_OUTPUT_BYTES`, and how many lines it shows whole.

    A line counts as shown only if its newline survived the cut, so reading on
    from the returned position repeats the cut line instead of skipping it; at
    least one line is counted so repeated reads always move forward.
    """
    text = "\n".join(page)
    room = MAX_OUTPUT_BYTES - len(TRUNCATION_MSG.encode("utf-8"))
    encoded = text.encode("utf-8")
    if len(encoded) <= room:
        return text, len(page)
    kept = encoded[:room].decode("utf-8", errors="ignore")
    return kept + TRUNCATION_MSG, kept.count("\n") or 1


def _read_page(file_path: str, lines: list[str], offset: int, limit: int) -> ReadResult:
    offset, limit = normalize_read_bounds(offset, limit)
    if limit <= 0:
        # Nothing asked for: flagged so middleware does not mistake it for an empty file.
        return ReadResult(file_data={"content": "", "encoding": "utf-8"}, no_lines_requested=True)
    total = len(lines)
    if offset >= total:
        return ReadResult(error=f"File '{file_path}': Line offset {offset} exceeds file length ({total} lines)")
    content, shown = _fit_in_output_cap(lines[offset : offset + limit])
    end = offset + shown
    return ReadResult(
        file_data={"content": content, "encoding": "utf-8"},
        total_lines=total,
        start_line=offset + 1,
        end_line=end,
        next_offset=end if end < total else None,
    )


class LangSmithSandbox(BaseSandbox):
    """[`SandboxBackendProtocol`][deepagents.backends.protocol.SandboxBackendProtocol] backed by a LangSmith sandbox."""

    # The sandbox images have a POSIX shell and coreutils, which capture-at-source offload needs.
    enable_capture_offload = True

    def __init__(self, sandbox: Sandbox) -> None:
        """Wrap an existing LangSmith `Sandbox`.

        Args:
            sandbox: The SDK sandbox that commands and file calls go to.
        """
        self._sandbox = sandbox
        self._default_timeout: int = _DEFAULT_TIMEOUT_SECONDS
        self._async_sandbox: AsyncSandbox | None = None
        self._async_client: AsyncSandboxClient | None = None

    @property
    def id(self) -> str:
        """The sandbox's name."""
        return self._sandbox.name

    def _timeout(self, requested: int | None) -> int:
        return self._default_timeout if requested is None else requested

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run `command` in the sandbox.

        Args:
            command: The shell command line.
            timeout: Seconds to allow; the backend default (30 minutes) when
                `None`. With the `langsmith[sandbox]` extra, `0` means no limit.
        """
        return _execute_response(self._sandbox.run(command, timeout=self._timeout(timeout)))

    def _async_handle(self) -> AsyncSandbox:
        """The async twin of the sandbox, built on first use and kept.

        Each `to_async()` opens a new client with its own connection pool, so
        building one per command would pay a TCP and TLS handshake every time.
        The client stays bound to the event loop it was made in.
        """
        if self._async_sandbox is None:
            # No public accessor exposes the sandbox's client; its async twin is kept for `aclose()`.
            self._async_client = self._sandbox._client.to_async()
            self._async_sandbox = self._sandbox.to_async(client=self._async_client)
        return self._async_sandbox

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run `command` through the SDK's async client.

        Every async file operation of `BaseSandbox` ends up here, so none of
        them occupies a worker thread on the sync transport.
        """
        sandbox = self._async_handle()
        return _execute_response(await sandbox.run(command, timeout=self._timeout(timeout)))

    async def aclose(self) -> None:
        """Close the async client's connection pool, if one was opened; a later call opens a new one."""
        client = self._async_client
        self._async_sandbox = self._async_client = None
        if client is not None:
            await client.aclose()

    def write(self, file_path: str, content: str) -> WriteResult:
        """Create `file_path`, sending the content in the request body rather than a command line.

        The existence check and parent-directory creation are `BaseSandbox`'s.
        """
        from langsmith.sandbox import SandboxClientError

        refusal = self._write_preflight(file_path)
        if refusal is not None:
            return refusal
        try:
            self._sandbox.write(file_path, content.encode("utf-8"))
        except SandboxClientError as e:
            return WriteResult(error=f"Failed to write file '{file_path}': {e}")
        return WriteResult(path=file_path)

    def _fetch_for_read(self, file_path: str) -> bytes | ReadResult:
        """The file's bytes, or the error result `read` answers with."""
        from langsmith.sandbox import ResourceNotFoundError, SandboxClientError

        try:
            return self._sandbox.read(file_path)
        except ResourceNotFoundError:
            return ReadResult(error=f"File '{file_path}': file_not_found")
        except SandboxClientError as e:
            logger.warning("LangSmith read failed for %s: %s", file_path, e)
            return ReadResult(error=f"File '{file_path}': {type(e).__name__}: {e}")

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read `file_path` through the SDK and page it here, as `BaseSandbox.read` would.

        Binary files come back base64-encoded; text is split into lines,
        `offset`/`limit` pick the page and the output cap applies as usual.
        """
        raw = self._fetch_for_read(file_path)
        if isinstance(raw, ReadResult):
            return raw
        if not raw:
            return ReadResult(file_data={"content": EMPTY_CONTENT_WARNING, "encoding": "utf-8"})
        text = _as_text(file_path, raw)
        if text is None:
            return _as_base64(file_path, raw)
        return _read_page(file_path, _split_lines(text), offset, limit)

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Fetch each file through the SDK; one failure does not stop the others."""
        from langsmith.sandbox import ResourceNotFoundError, SandboxClientError

        def fetch(path: str) -> FileDownloadResponse:
            if not path.startswith("/"):
                return FileDownloadResponse(path=path, error="invalid_path")
            try:
                return FileDownloadResponse(path=path, content=self._sandbox.read(path))
            except ResourceNotFoundError:
                return FileDownloadResponse(path=path, error="file_not_found")
            except SandboxClientError as e:
                reason = "is_directory" if "is a directory" in str(e).lower() else "file_not_found"
                return FileDownloadResponse(path=path, error=reason)

        return [fetch(path) for path in paths]

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Store each file through the SDK; one failure does not stop the others."""
        from langsmith.sandbox import SandboxClientError

        def store(path: str, content: bytes) -> FileUploadResponse:
            if not path.startswith("/"):
                return FileUploadResponse(path=path, error="invalid_path")
            try:
                self._sandbox.write(path, content)
            except SandboxClientError as e:
                logger.debug("Failed to upload %s: %s", path, e)
                return FileUploadResponse(path=path, error="permission_denied")
            return FileUploadResponse(path=path)

        return [store(path, content) for path, content in files]
