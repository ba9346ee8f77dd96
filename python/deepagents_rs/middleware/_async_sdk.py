"""The LangGraph SDK calls of the async subagent tools, made by one of two drivers (sync, async)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Mapping
from typing import Any

from . import _async_subagent_texts as texts
from ._async_tasks import AsyncSubAgent, AsyncTask

# -- the SDK calls, made by one of two drivers ------------------------------------------------


@dataclasses.dataclass
class _Call:
    """One SDK call for the named subagent's client: ``client.<group>.<method>(**kwargs)``."""

    agent: str
    group: str
    method: str
    kwargs: dict[str, Any]


_Op = Generator[_Call, Any, Any]


def _run_sync(clients: _Clients, op: _Op) -> Any:
    """Runs ``op``'s calls on the sync clients; a failed call is raised in ``op``."""
    send: Any = None
    error: BaseException | None = None
    while True:
        try:
            call = op.throw(error) if error is not None else op.send(send)
        except StopIteration as done:
            return done.value
        error = None
        try:
            client = clients.sync(call.agent)
            send = getattr(getattr(client, call.group), call.method)(**call.kwargs)
        except Exception as exc:  # noqa: BLE001 - handed to the operation
            error = exc


async def _run_async(clients: _Clients, op: _Op) -> Any:
    """Runs ``op``'s calls on the async clients."""
    send: Any = None
    error: BaseException | None = None
    while True:
        try:
            call = op.throw(error) if error is not None else op.send(send)
        except StopIteration as done:
            return done.value
        error = None
        try:
            client = clients.async_(call.agent)
            send = await getattr(getattr(client, call.group), call.method)(**call.kwargs)
        except Exception as exc:  # noqa: BLE001 - handed to the operation
            error = exc


def _headers(spec: AsyncSubAgent) -> dict[str, str]:
    headers = dict(spec.get("headers") or {})
    headers.setdefault("x-auth-scheme", "langsmith")
    return headers


class _Clients:
    """The SDK clients, one per (url, headers), made when first needed."""

    def __init__(self, specs: Mapping[str, AsyncSubAgent], factories: Callable[[str], Any]) -> None:
        self.specs = specs
        # `factories("get_sync_client")`: the SDK's client factory of that name, as the
        # middleware's module resolves it (where code patching deepagents' module finds it).
        self._factory = factories
        self._sync: dict[Any, Any] = {}
        self._async: dict[Any, Any] = {}

    def _key(self, spec: AsyncSubAgent) -> Any:
        return spec.get("url"), frozenset(_headers(spec).items())

    def sync(self, name: str) -> Any:
        spec = self.specs[name]
        if spec.get("url") is None:
            raise ValueError(texts.NO_URL_SYNC.format(name=name))
        key = self._key(spec)
        if key not in self._sync:
            self._sync[key] = self._factory("get_sync_client")(url=spec.get("url"), headers=_headers(spec))
        return self._sync[key]

    def async_(self, name: str) -> Any:
        spec = self.specs[name]
        key = self._key(spec)
        if key not in self._async:
            self._async[key] = self._factory("get_client")(url=spec.get("url"), headers=_headers(spec))
        return self._async[key]


def _observe(task: AsyncTask) -> _Op:
    """``(run, thread)``: the task's newest run and, once that run finished, its thread.

    A tracked run another client's run interrupted hands over to the thread's newest run
    (unless the parent cancelled the task); so does a finished run whose thread is busy or
    failed since.
    """
    where = {"thread_id": task["thread_id"]}
    agent = task["agent_name"]
    run = yield _Call(agent, "runs", "get", {**where, "run_id": task["run_id"]})
    if run["status"] == "interrupted" and task["status"] != "cancelled":
        run = next(iter((yield _Call(agent, "runs", "list", {**where, "limit": 1}))), run)
    if run["status"] != "success":
        return run, None
    thread = yield _Call(agent, "threads", "get", where)
    if thread is not None and thread.get("status") in ("busy", "error"):
        run = next(iter((yield _Call(agent, "runs", "list", {**where, "limit": 1}))), run)
    return run, thread
