"""Parity: ``FilesystemMiddleware(offload_binary_content=True)``.

The base64 payloads of human messages and ``read_file`` results go to the backend under
``/blobs/<sha256>``; the state keeps a ``deepagents_blob`` reference block instead, and every
model request gets the payload back (from the run's cache, else from the backend, checked
against its digest). Each scenario runs through deepagents and deepagents_rs and compares the
model's requests, the result, the disk tree or store, and, on a thread, the checkpoints.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import hashlib
import logging
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from .fs_support import MODES, api, check, make_backend
from .harness import ScriptedChatModel, ai_tool_calls, call_view, norm

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
PDF = b"%PDF-1.4 not really a pdf"
INLINE = b"pixels the user pasted"


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def user_with_image(raw: bytes = INLINE, text: str = "look") -> dict[str, Any]:
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": text},
            {"type": "image", "base64": b64(raw), "mime_type": "image/png"},
            # Not a `base64` block: left as it is.
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(raw)}},
        ],
    }


def offload_setup(backend, **fs_kwargs: Any):
    def setup(a):
        kwargs = backend.setup(a)
        be = kwargs.pop("backend", None) or a.StateBackend()
        kwargs["middleware"] = [a.FilesystemMiddleware(backend=be, offload_binary_content=True, **fs_kwargs)]
        return kwargs

    return setup


def blocks_of(result: dict[str, Any]) -> list[list[Any]]:
    return [m.content for m in result["messages"] if isinstance(m.content, list)]


@pytest.fixture(params=["fs_virtual", "store"])
def backend(request: pytest.FixtureRequest, tmp_path: Path):
    return make_backend(request.param, tmp_path, {"/img/dot.png": PNG, "/doc.pdf": PDF})


@pytest.mark.parametrize("mode", MODES)
def test_human_media_and_read_file_results_are_offloaded_and_hydrated(backend, mode: str) -> None:
    script = [
        ai_tool_calls(("read_file", {"file_path": "/img/dot.png"}), ("read_file", {"file_path": "/doc.pdf"})),
        ai_tool_calls(("ls", {"path": "/"})),
        "done",
    ]
    run = backend.run(script, mode=mode, inp={"messages": [user_with_image()]}, setup=offload_setup(backend))
    ref = check(run)
    rs = run.rs.unwrap()
    # The private cache is in neither output.
    assert set(rs) == set(ref) and "_blob_payloads" not in ref
    # The state holds references, not payloads.
    human, image, pdf = blocks_of(ref)
    assert human[1] == {"type": "image", "mime_type": "image/png", "deepagents_blob": digest(INLINE)}
    assert human[2]["type"] == "image_url"
    assert image[0]["deepagents_blob"] == digest(PNG) and "base64" not in image[0]
    assert pdf[0]["deepagents_blob"] == digest(PDF)
    # Every request after the reads carries the payloads again.
    for call in run.ref.calls[1:]:
        sent = [b for m in call.messages if isinstance(m.content, list) for b in m.content]
        assert {b.get("base64") for b in sent if b.get("type") in ("image", "file")} == {
            b64(INLINE),
            b64(PNG),
            b64(PDF),
        }
    if run.disk:
        disk = run.disk["deepagents"]
        assert {p for p in disk if p.startswith("blobs/")} == {f"blobs/{digest(r)}" for r in (INLINE, PNG, PDF)}
        assert disk[f"blobs/{digest(PNG)}"] == PNG


@pytest.mark.parametrize("mode", MODES)
def test_a_composite_routing_blobs_off_the_state_offloads(tmp_path: Path, mode: str) -> None:
    # The files stay in the state; the blobs go to disk.
    backend = make_backend("fs_virtual", tmp_path, {})

    def setup(a):
        composite = a.CompositeBackend(
            default=a.StateBackend(), routes={"/blobs/": a.FilesystemBackend(root_dir=backend.root, virtual_mode=True)}
        )
        return {"middleware": [a.FilesystemMiddleware(backend=composite, offload_binary_content=True)]}

    inp = {
        "messages": [{"role": "user", "content": "go"}],
        "files": {"/img/dot.png": {"content": b64(PNG), "encoding": "base64"}},
    }
    run = backend.run(
        [ai_tool_calls(("read_file", {"file_path": "/img/dot.png"})), "done"], mode=mode, inp=inp, setup=setup
    )
    ref = check(run)
    assert blocks_of(ref)[0][0]["deepagents_blob"] == digest(PNG)
    assert run.disk["deepagents"] == {digest(PNG): PNG}


def test_blobs_routed_to_the_state_turn_offloading_off() -> None:
    for impl in ("deepagents", "deepagents_rs"):
        a = api(impl)
        with pytest.warns(UserWarning, match="offload_binary_content. has no effect") as caught:
            mw = a.FilesystemMiddleware(backend=a.StateBackend(), offload_binary_content=True)
        assert "/blobs/` routes to a `StateBackend`" in str(caught[0].message)
        model = ScriptedChatModel([ai_tool_calls(("read_file", {"file_path": "/dot.png"})), "done"])
        agent = a.create_deep_agent(model=model, middleware=[mw])
        out = agent.invoke(
            {"messages": [user_with_image()], "files": {"/dot.png": {"content": b64(PNG), "encoding": "base64"}}}
        )
        # Nothing offloaded: the payloads stay in the state.
        assert blocks_of(out)[0][1]["base64"] == b64(INLINE)
        assert blocks_of(out)[1][0]["base64"] == b64(PNG)


def _thread_turns(impl: str, root: Path, mode: str, between: Any = None) -> dict[str, Any]:
    """Two turns on one checkpointed thread: the first reads the image, the second (after
    ``between(root)``) only answers. Returns the requests, the final state and checkpoint."""
    a = api(impl)
    if root.exists():
        for p in sorted(root.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
    (root / "img").mkdir(parents=True, exist_ok=True)
    (root / "img" / "dot.png").write_bytes(PNG)
    model = ScriptedChatModel([ai_tool_calls(("read_file", {"file_path": "/img/dot.png"})), "seen", "again"])
    fs = a.FilesystemMiddleware(
        backend=a.FilesystemBackend(root_dir=root, virtual_mode=True), offload_binary_content=True
    )
    saver = InMemorySaver()
    agent = a.create_deep_agent(model=model, middleware=[fs], checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}

    async def turns() -> Any:
        first = copy.deepcopy({"messages": [user_with_image()]})
        await agent.ainvoke(first, config)
        if between is not None:
            between(root)
        return await agent.ainvoke({"messages": [{"role": "user", "content": "and now?"}]}, config)

    if mode == "ainvoke":
        out = asyncio.run(turns())
    else:
        agent.invoke(copy.deepcopy({"messages": [user_with_image()]}), config)
        if between is not None:
            between(root)
        out = agent.invoke({"messages": [{"role": "user", "content": "and now?"}]}, config)
    state = agent.get_state(config)
    return {
        "calls": [call_view(c) for c in model.calls],
        "messages": norm(out["messages"]),
        "keys": sorted(out),
        "checkpoint": sorted(state.values),
        "checkpoint_messages": norm(state.values["messages"]),
    }


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("change", ["none", "deleted", "tampered"])
def test_a_later_turn_loads_payloads_back_or_says_they_are_gone(tmp_path: Path, mode: str, change: str) -> None:
    # The cache is not checkpointed: the second turn loads the payloads from the backend.
    # A blob deleted, or changed so it no longer matches its digest, becomes a text notice.
    def between(root: Path) -> None:
        for blob in (root / "blobs").iterdir():
            if change == "deleted":
                blob.unlink()
            elif change == "tampered":
                blob.write_bytes(b"not what it was")

    ref = _thread_turns("deepagents", tmp_path / "root", mode, between)
    rs = _thread_turns("deepagents_rs", tmp_path / "root", mode, between)
    assert rs == ref
    assert "_blob_payloads" not in ref["checkpoint"]
    last = ref["calls"][-1]["messages"]
    sent = [b for m in last if isinstance(m["content"], list) for b in m["content"]]
    notices = [b for b in sent if b.get("type") == "text" and "no longer available" in b.get("text", "")]
    assert len(notices) == (0 if change == "none" else 2)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("failure", ["raises", "refuses"])
def test_a_backend_that_does_not_take_the_blob_leaves_it_inline(
    tmp_path: Path, mode: str, failure: str, caplog: pytest.LogCaptureFixture
) -> None:
    backend = make_backend("fs_virtual", tmp_path, {"/img/dot.png": PNG})

    def setup(a):
        class NoBlobs(a.FilesystemBackend):
            def upload_files(self, files):
                if failure == "raises":
                    raise OSError("disk full")
                return [a.protocol.FileUploadResponse(path=p, error="permission_denied") for p, _ in files]

            async def aupload_files(self, files):
                return self.upload_files(files)

        be = NoBlobs(root_dir=backend.root, virtual_mode=True)
        return {"middleware": [a.FilesystemMiddleware(backend=be, offload_binary_content=True)]}

    caplog.set_level(logging.WARNING)
    run = backend.run(
        [ai_tool_calls(("read_file", {"file_path": "/img/dot.png"})), "done"],
        mode=mode,
        inp={"messages": [user_with_image()]},
        setup=setup,
    )
    ref = check(run)
    assert blocks_of(ref)[0][1]["base64"] == b64(INLINE)
    assert blocks_of(ref)[1][0]["base64"] == b64(PNG)
    logged = [
        r for r in caplog.records if r.getMessage() == "Failed to offload binary read_file content; keeping it inline"
    ]
    # Each implementation logs each failed upload (the human message's, the read's, and the
    # human message's again on the second call).
    expected = 3 if failure == "raises" else 0
    assert len([r for r in logged if r.name.startswith("deepagents.")]) == expected
    assert len([r for r in logged if r.name.startswith("deepagents_rs.")]) == expected


def _streamed(impl: str, root: Path) -> list[Any]:
    a = api(impl)
    model = ScriptedChatModel([ai_tool_calls(("read_file", {"file_path": "/img/dot.png"})), "done"])
    fs = a.FilesystemMiddleware(
        backend=a.FilesystemBackend(root_dir=root, virtual_mode=True), offload_binary_content=True
    )
    agent = a.create_deep_agent(model=model, middleware=[fs], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    out = []
    for chunk in agent.stream(copy.deepcopy({"messages": [user_with_image()]}), config, stream_mode="updates"):
        for node, update in chunk.items():
            if isinstance(update, dict):
                out.append((node, {k: norm(v) if k == "messages" else v for k, v in update.items()}))
            else:
                out.append((node, type(update).__name__))
    out.append([sorted(s.values) for s in agent.get_state_history(config)])
    return out


def test_the_model_step_streams_the_references_and_the_cache(tmp_path: Path) -> None:
    # The model step's update carries the rewritten human message and the run's cache; no
    # checkpoint holds the cache.
    roots = {impl: tmp_path / impl for impl in ("deepagents", "deepagents_rs")}
    for root in roots.values():
        (root / "img").mkdir(parents=True)
        (root / "img" / "dot.png").write_bytes(PNG)
    ref, rs = (_streamed(impl, root) for impl, root in roots.items())
    assert rs == ref
    model_updates = [u for n, u in ref[:-1] if n == "model" and isinstance(u, dict)]
    assert model_updates[-1]["_blob_payloads"] == {digest(INLINE): b64(INLINE), digest(PNG): b64(PNG)}
    assert all("_blob_payloads" not in keys for keys in ref[-1])
