"""Parity: ``ContextHubBackend`` with concurrent callers, both implementations alike.

Changes become visible at once and are committed by a worker in batches: a batch opens with
its first change and closes ``_BATCH_WINDOW_SECONDS`` later (made long here, and closed by
hand once the expected number of changes waits), one commit at a time. The scenarios hold
``push_agent`` or ``pull_agent`` on events to fix the interleaving, then compare results,
commits and pulls (``test_hosted_context_hub.hub_both``).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from unittest.mock import MagicMock, patch

from langsmith.utils import LangSmithAPIError, LangSmithConflictError

from .test_hosted_context_hub import HASH, NO_HASH_URL, URL, client, hub_both, tree

WAIT = 2.0


def close_batch_at(backend: Any, size: int) -> None:
    """Once ``size`` changes wait, end the batch window now."""
    queue = backend._mutations
    with queue.condition:
        assert queue.condition.wait_for(lambda: len(queue.pending) == size, timeout=WAIT)
        queue.deadline = time.monotonic()
        queue.condition.notify_all()


def waiting(backend: Any, size: int) -> None:
    queue = backend._mutations
    with queue.condition:
        assert queue.condition.wait_for(lambda: len(queue.pending) == size, timeout=WAIT)


def long_window(module: Any) -> Any:
    return patch.object(module, "_BATCH_WINDOW_SECONDS", 10.0)


def held(answers: list[Any]) -> tuple[MagicMock, threading.Event, threading.Event]:
    """A ``push_agent`` whose first call waits for ``release``; answers in turn (raised if
    exceptions). Returns the mock's side effect holder, ``entered`` and ``release``."""
    entered, release = threading.Event(), threading.Event()
    remaining = list(answers)

    def push(*_args: Any, **_kwargs: Any) -> str:
        if not entered.is_set():
            entered.set()
            assert release.wait(WAIT)
        answer = remaining.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return push, entered, release


def test_a_burst_of_writes_is_one_commit() -> None:
    def steps(backend: Any, module: Any) -> dict[str, Any]:
        gate = threading.Barrier(6)

        def write(i: int) -> Any:
            gate.wait(timeout=WAIT)
            return backend.write(f"/burst-{i}.md", f"body {i}")

        with long_window(module), ThreadPoolExecutor(max_workers=6) as pool:
            futures = [pool.submit(write, i) for i in range(6)]
            close_batch_at(backend, 6)
            results = [f.result(timeout=WAIT) for f in futures]
        return {
            "results": results,
            "reads": [backend.read(f"/burst-{i}.md") for i in range(6)],
            "worker": backend._worker,
        }

    ref = hub_both(client, steps)
    assert len(ref["commits"]) == 1 and ref["pulls"] == 1 and ref["result"]["worker"] is None
    assert ref["commits"][0][1]["files"] == {f"burst-{i}.md": ["file", f"body {i}"] for i in range(6)}
    assert [r["file_data"]["content"] for r in ref["result"]["reads"]] == [f"body {i}" for i in range(6)]


def test_every_kind_of_change_shares_a_batch() -> None:
    def steps(backend: Any, module: Any) -> dict[str, Any]:
        backend.read("/edit.md")
        gate = threading.Barrier(5)
        calls = [
            lambda: backend.write("/write.md", "written"),
            lambda: backend.edit("/edit.md", "before", "after"),
            lambda: backend.delete("/gone.md"),
            lambda: backend.upload_files([("/up-a.md", b"a"), ("/up-b.md", b"b")]),
            lambda: backend.write("/write.md", "written last"),
        ]

        def run(i: int) -> Any:
            gate.wait(timeout=WAIT)
            if i == 4:
                # The second write of one path queues after the first.
                waiting_for = backend._mutations
                with waiting_for.condition:
                    waiting_for.condition.wait_for(lambda: len(waiting_for.pending) == 4, timeout=WAIT)
            return calls[i]()

        with long_window(module), ThreadPoolExecutor(max_workers=5) as pool:
            futures = [pool.submit(run, i) for i in range(5)]
            close_batch_at(backend, 5)
            return {"results": [f.result(timeout=WAIT) for f in futures]}

    ref = hub_both(lambda: client(tree(**{"edit.md": "before", "gone.md": "remove"})), steps)
    assert len(ref["commits"]) == 1
    assert ref["commits"][0][1]["files"] == {
        "write.md": ["file", "written last"],
        "edit.md": ["file", "after"],
        "gone.md": None,
        "up-a.md": ["file", "a"],
        "up-b.md": ["file", "b"],
    }


def test_a_batch_window_opens_with_its_first_change() -> None:
    def steps(backend: Any, module: Any) -> dict[str, Any]:
        backend.read("/missing.md")
        queue = backend._mutations
        with long_window(module):
            with queue.condition:
                first = backend._queue_changes_locked({"first.md": "first"})
                opened = queue.deadline
                second = backend._queue_changes_locked({"second.md": "second"})
                same_window = queue.deadline == opened
                queue.deadline = time.monotonic()
                queue.condition.notify_all()
            backend._wait_for_mutation(first)
            backend._wait_for_mutation(second)
        return {"same window": same_window}

    ref = hub_both(client, steps)
    assert ref["result"]["same window"] is True and len(ref["commits"]) == 1


def test_changes_are_visible_while_they_wait() -> None:
    def make() -> MagicMock:
        push, entered, release = held([URL, URL])
        mock = client(tree(**{"doomed.md": "delete me"}), push=None)
        mock.push_agent.side_effect = push
        mock.entered, mock.release = entered, release
        return mock

    def steps(backend: Any, _module: Any) -> dict[str, Any]:
        mock = backend._client
        backend.read("/doomed.md")
        with ThreadPoolExecutor(max_workers=2) as pool:
            in_flight = pool.submit(backend.write, "/pending.md", "visible pending text")
            assert mock.entered.wait(WAIT)
            try:
                queued = pool.submit(backend.delete, "/doomed.md")
                waiting(backend, 1)
                seen = {
                    "read": backend.read("/pending.md"),
                    "read deleted": backend.read("/doomed.md"),
                    "ls": backend.ls("/"),
                    "grep": backend.grep("pending"),
                    "glob": backend.glob("*.md"),
                    "download": backend.download_files(["/pending.md"]),
                }
            finally:
                mock.release.set()
            seen["results"] = [in_flight.result(timeout=WAIT), queued.result(timeout=WAIT)]
        return seen

    ref = hub_both(make, steps)
    r = ref["result"]
    assert r["read"]["file_data"]["content"] == "visible pending text"
    assert r["read deleted"]["error"] == "File '/doomed.md' not found"
    assert [e["path"] for e in r["ls"]["entries"]] == ["/pending.md"]
    assert r["download"][0]["content"] == b"visible pending text" and len(ref["commits"]) == 2


def test_an_edit_builds_on_a_write_being_committed() -> None:
    def make() -> MagicMock:
        push, entered, release = held(["https://host/hub/-/my-agent:00000001", URL])
        mock = client(push=None)
        mock.push_agent.side_effect = push
        mock.entered, mock.release = entered, release
        return mock

    def steps(backend: Any, _module: Any) -> dict[str, Any]:
        mock = backend._client
        backend.read("/missing.md")
        with ThreadPoolExecutor(max_workers=2) as pool:
            first = pool.submit(backend.write, "/chain.md", "hello")
            assert mock.entered.wait(WAIT)
            try:
                second = pool.submit(backend.edit, "/chain.md", "hello", "goodbye")
                waiting(backend, 1)
                during = (backend.read("/chain.md"), mock.push_agent.call_count)
            finally:
                mock.release.set()
            return {"during": during, "write": first.result(timeout=WAIT), "edit": second.result(timeout=WAIT)}

    ref = hub_both(make, steps)
    assert ref["result"]["during"][1] == 1 and ref["result"]["edit"]["occurrences"] == 1
    assert [c[1]["parent_commit"] for c in ref["commits"]] == [HASH, "00000001"]
    assert ref["commits"][1][1]["files"] == {"chain.md": ["file", "goodbye"]}


def test_a_failed_commit_fails_the_queued_changes_too() -> None:
    def make() -> MagicMock:
        push, entered, release = held([LangSmithAPIError("503"), URL])
        mock = client(push=None)
        mock.push_agent.side_effect = push
        mock.entered, mock.release = entered, release
        return mock

    def steps(backend: Any, _module: Any) -> dict[str, Any]:
        mock = backend._client
        backend.read("/missing.md")
        with ThreadPoolExecutor(max_workers=2) as pool:
            first = pool.submit(backend.write, "/first.md", "first")
            assert mock.entered.wait(WAIT)
            try:
                second = pool.submit(backend.write, "/second.md", "second")
                waiting(backend, 1)
            finally:
                mock.release.set()
            out = {"first": first.result(timeout=WAIT), "second": second.result(timeout=WAIT)}
        out["worker"] = backend._worker
        out["second after"] = backend.read("/second.md")
        out["recovered"] = backend.write("/recovered.md", "recovered")
        out["recovered read"] = backend.read("/recovered.md")
        return out

    ref = hub_both(make, steps)
    r = ref["result"]
    assert "Hub unavailable" in r["first"]["error"] and "Hub unavailable" in r["second"]["error"]
    assert r["worker"] is None and r["second after"]["error"] == "File '/second.md' not found"
    assert r["recovered"]["error"] is None and len(ref["commits"]) == 2 and ref["pulls"] == 2


def _held_pull(first: Any, later: Any) -> tuple[Any, threading.Event, threading.Event]:
    """``pull_agent`` answering ``first``, then ``later`` once ``release`` is set."""
    entered, release = threading.Event(), threading.Event()
    calls = []

    def pull(_identifier: str) -> Any:
        calls.append(1)
        if len(calls) == 1:
            return first
        entered.set()
        assert release.wait(WAIT)
        return later

    return pull, entered, release


def test_a_conflict_replays_the_batch_on_the_new_tree() -> None:
    remote = "feedface" * 8
    before = tree(**{"base.md": "before\nkeep", "folder/old.md": "old", "pending.md": "edit me"})
    after = tree(
        remote,
        **{
            "base.md": "remote header\nbefore\nkeep",
            "folder/old.md": "old",
            "folder/remote.md": "remote",
            "pending.md": "changed remotely",
        },
    )

    def make() -> MagicMock:
        pull, entered, release = _held_pull(before, after)
        mock = client(pull=None, push=[LangSmithConflictError("409"), URL])
        mock.pull_agent.side_effect = pull
        mock.entered, mock.release = entered, release
        return mock

    def steps(backend: Any, module: Any) -> dict[str, Any]:
        mock = backend._client
        with long_window(module), ThreadPoolExecutor(max_workers=3) as pool:
            edit = pool.submit(backend.edit, "/base.md", "before", "after")
            delete = pool.submit(backend.delete, "/folder")
            close_batch_at(backend, 2)
            assert mock.entered.wait(WAIT)
            try:
                stale = pool.submit(backend.edit, "/pending.md", "edit me", "edited")
                waiting(backend, 1)
            finally:
                mock.release.set()
            out = {
                "edit": edit.result(timeout=WAIT),
                "delete": delete.result(timeout=WAIT),
                "stale": stale.result(timeout=WAIT),
            }
        out["pending"] = backend.read("/pending.md")
        return out

    ref = hub_both(make, steps)
    r, sent = ref["result"], ref["commits"]
    assert r["edit"]["occurrences"] == 1 and r["delete"]["error"] is None and "Hub unavailable" in r["stale"]["error"]
    assert [c[1]["parent_commit"] for c in sent] == [HASH, remote]
    assert sent[1][1]["files"] == {
        "base.md": ["file", "remote header\nafter\nkeep"],
        "folder/old.md": None,
        "folder/remote.md": None,
    }
    assert r["pending"]["file_data"]["content"] == "changed remotely"


def test_a_hashless_commit_url_reloads_the_tree() -> None:
    remote = "feedface" * 8
    before = tree(**{"shared.md": "first\nedit me\n"})
    reloaded = tree(remote, **{"batch-a.md": "durable", "shared.md": "first\nremote line\nedit me\n"})

    def make() -> MagicMock:
        pull, entered, release = _held_pull(before, reloaded)
        mock = client(pull=None, push=[NO_HASH_URL, URL])
        mock.pull_agent.side_effect = pull
        mock.entered, mock.release = entered, release
        return mock

    def steps(backend: Any, _module: Any) -> dict[str, Any]:
        mock = backend._client
        with ThreadPoolExecutor(max_workers=2) as pool:
            write = pool.submit(backend.write, "/batch-a.md", "durable")
            assert mock.entered.wait(WAIT)
            try:
                edit = pool.submit(backend.edit, "/shared.md", "edit me", "edited")
                waiting(backend, 1)
            finally:
                mock.release.set()
            out = {"write": write.result(timeout=WAIT), "edit": edit.result(timeout=WAIT)}
        out["shared"] = backend.read("/shared.md")
        return out

    ref = hub_both(make, steps)
    assert ref["result"]["edit"]["occurrences"] == 1 and ref["pulls"] == 2
    assert ref["commits"][1][1]["parent_commit"] == remote
    assert ref["commits"][1][1]["files"] == {"shared.md": ["file", "first\nremote line\nedited\n"]}
    assert ref["result"]["shared"]["file_data"]["content"] == "first\nremote line\nedited\n"


def test_a_hashless_reload_fails_an_edit_it_invalidates() -> None:
    remote = "feedface" * 8
    before = tree(**{"shared.md": "edit me"})
    reloaded = tree(remote, **{"batch-a.md": "durable", "shared.md": "changed remotely"})

    def make() -> MagicMock:
        pull, entered, release = _held_pull(before, reloaded)
        mock = client(pull=None, push=[NO_HASH_URL, URL])
        mock.pull_agent.side_effect = pull
        mock.entered, mock.release = entered, release
        return mock

    def steps(backend: Any, _module: Any) -> dict[str, Any]:
        mock = backend._client
        backend.read("/shared.md")
        with ThreadPoolExecutor(max_workers=2) as pool:
            write = pool.submit(backend.write, "/batch-a.md", "durable")
            assert mock.entered.wait(WAIT)
            try:
                edit = pool.submit(backend.edit, "/shared.md", "edit me", "edited")
                waiting(backend, 1)
                pending = backend._mutations.pending[0]
            finally:
                mock.release.set()
            out = {"write": write.result(timeout=WAIT), "edit": edit.result(timeout=WAIT)}
        out["why"] = type(pending.error).__name__
        out["shared"] = backend.read("/shared.md")
        out["next"] = backend.write("/next.md", "next")
        return out

    ref = hub_both(make, steps)
    r = ref["result"]
    assert "Hub unavailable" in r["edit"]["error"] and r["why"] == "LangSmithConflictError"
    assert r["shared"]["file_data"]["content"] == "changed remotely"
    assert [c[1]["parent_commit"] for c in ref["commits"]] == [HASH, remote]
