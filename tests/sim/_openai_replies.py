"""What the simulated OpenAI server answers besides a turn: the API's fixed texts, scripted
replies (``Reply``), stream faults, OpenAI's error bodies and ``SimError``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ._openai_turns import Turn

EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z; created / created_at = EPOCH + the virtual clock
TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
_TOOL_NAME_RE = re.compile(TOOL_NAME_PATTERN)
DEFAULT_CHAT_WINDOW = 128_000  # the window quoted in Chat's overflow message when context_window is None
OVERFLOW_RESPONSES = "Your input exceeds the context window of this model. Please adjust your input and try again."
_CHAT_OVERFLOW = (
    "This model's maximum context length is {window} tokens. However, your messages resulted in {tokens} tokens. "
    "Please reduce the length of the messages."
)
_BAD_JSON = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP "
    "library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
)
_NO_KEY = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer "
    "auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from "
    "https://platform.openai.com/account/api-keys."
)
_SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"
_ROUTES = {("POST", "/v1/responses"): "responses", ("POST", "/v1/chat/completions"): "chat"}

Api = Literal["responses", "chat"]


# --------------------------------------------------------------------------- data types


@dataclass
class Reply:
    """A scripted reply with full control over the HTTP answer.

    ``body`` is a ``Turn`` (rendered for the endpoint, streamed when asked), a
    dict/list (sent as JSON as is, never streamed), a str/bytes (sent raw, e.g. an
    HTML page), or None: for a status other than 200, OpenAI's error body for the
    status, with ``error`` fields (``type``, ``code``, ``message``, ``param``)
    overriding the defaults. ``delay`` is real seconds to wait before the headers.

    ``stream=False`` answers a streamed request with plain JSON anyway (a server
    that ignores ``stream``). ``stream_fault`` breaks the stream part-way (see
    ``StreamFault``); it needs a streamed request, and a plain one gets a loud 500.
    """

    status: int = 200
    body: Turn | dict[str, Any] | list[Any] | str | bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    stream: bool | None = None
    stream_fault: StreamFault | None = None
    error: dict[str, Any] | None = None


@dataclass
class StreamFault:
    """A streamed reply that breaks off part-way (the HTTP status was already 200).

    ``after_events`` counts the events sent before the fault (Responses:
    ``response.created`` is event 1; Chat: the role chunk is event 1); ``None``
    means right after the first delta, so the client has seen part of the reply.
    Kinds:

    * ``"error"``: an in-stream error, then the body ends cleanly. Responses:
      ``event: error`` with the SDK's ``ResponseErrorEvent`` shape ``{"type":
      "error", "code", "message", "param", "sequence_number"}`` (``shape="flat"``)
      or the nested ``{"type": "error", "sequence_number", "error": {"type",
      "code", "message", "param"}}`` (``shape="nested"``, which the openai SDK
      raises on by itself). Chat: ``data: {"error": {"message", "type", "param",
      "code"}}``.
    * ``"failed"`` (Responses only): ``response.failed`` with the response so far
      (status ``failed``, ``error: {code, message}``), then the body ends.
    * ``"truncate"``: the body ends cleanly with no terminal event (no
      ``response.completed``; Chat: no usage chunk and no ``[DONE]``).
    * ``"reset"``: the connection is reset (TCP RST) with no more events.
    * ``"malformed"``: the next event goes out with its ``data:`` cut in half (not
      JSON), then the body ends cleanly.

    Cache writes are committed anyway: they happen when the response starts.
    """

    after_events: int | None = None
    kind: Literal["error", "failed", "truncate", "reset", "malformed"] = "error"
    error_type: str = "server_error"
    code: str | None = "server_error"
    message: str = _SERVER_ERROR
    param: str | None = None
    shape: Literal["flat", "nested"] = "flat"


def error_reply(
    status: int,
    *,
    type: str | None = None,
    code: str | None = None,
    message: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
    delay: float = 0.0,
) -> Reply:
    """A reply with OpenAI's error body; fields left None take the status's defaults."""
    fields = {"type": type, "code": code, "message": message, "param": param}
    return Reply(
        status=status,
        headers=dict(headers or {}),
        delay=delay,
        error={k: v for k, v in fields.items() if v is not None},
    )


def rate_limited(*, retry_after: float | None = None, retry_after_ms: int | None = None) -> Reply:
    """429 ``rate_limit_exceeded`` (type ``requests``), with ``retry-after`` / ``retry-after-ms`` when given."""
    headers: dict[str, str] = {}
    if retry_after is not None:
        headers["retry-after"] = f"{retry_after:g}"
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    return error_reply(429, type="requests", code="rate_limit_exceeded", headers=headers)


def insufficient_quota() -> Reply:
    """429 ``insufficient_quota``: must not be retried (the openai SDK retries every 429 anyway)."""
    return error_reply(429, type="insufficient_quota", code="insufficient_quota")


def server_error(status: int = 500) -> Reply:
    """500 (or 503, 502...) ``server_error``."""
    return error_reply(status)


def auth_error() -> Reply:
    """401 ``invalid_api_key``."""
    return error_reply(401)


def context_overflow() -> Reply:
    """400 ``context_length_exceeded`` with the endpoint's message and ``param`` (``input`` / ``messages``)."""
    return error_reply(400, code="context_length_exceeded")


def _default_error(status: int, code: str | None) -> dict[str, Any]:
    """OpenAI's error fields for a status (and a code, for the 429s)."""
    if code == "insufficient_quota":
        message = (
            "You exceeded your current quota, please check your plan and billing details. For more information "
            "on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."
        )
        return {"type": "insufficient_quota", "code": "insufficient_quota", "message": message}
    if status == 429:
        message = (
            "Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s. "
            "Visit https://platform.openai.com/account/rate-limits to learn more."
        )
        return {"type": "requests", "code": "rate_limit_exceeded", "message": message}
    if status == 401:
        message = (
            "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."
        )
        return {"type": "invalid_request_error", "code": "invalid_api_key", "message": message}
    if status == 503:
        return {"type": "server_error", "code": None, "message": "The server is overloaded or not ready yet."}
    if status >= 500:
        return {"type": "server_error", "code": None, "message": _SERVER_ERROR}
    return {"type": "invalid_request_error", "code": None, "message": f"sim: scripted {status}"}


class SimError(Exception):
    """A request rejected the way the real API would reject it."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}
