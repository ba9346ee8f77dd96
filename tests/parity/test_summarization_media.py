"""Parity: inline media in the summarized part of a conversation.

Before the older messages are saved and summarized, deepagents uploads each inline media
block of them (a ``data:`` URL, or a block with ``base64``) to
``{artifacts_root}/conversation_history/media/{sha256[:16]}.{ext}`` once per content, and the
history file and the summary prompt show it by that path (a failed upload, or a payload that
does not decode, as ``<image error="failed_to_offload" />``). The state keeps the raw
messages. Each scenario runs deepagents and deepagents_rs on the same scripted model and
compares every request the model got (the summary prompt included), the result (messages
and state files), the state on the thread, and what the backend holds (disk or store).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import importlib
import warnings
from pathlib import Path
from typing import Any

import deepagents
import deepagents.middleware.summarization
import deepagents_rs
import deepagents_rs.middleware.summarization
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from .test_summarization import _IMPLS, _STAMP, Run, SummarizingModel, calls_then, compact_call, compare, lookup, masked

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00;"
JPG = b"\xff\xd8\xff\xe0 not really a jpeg \xff\xd9"
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\xbb"
PDF = b"%PDF-1.4 plain ascii, so a state backend keeps it as text"
MP4 = b"\x00\x00\x00\x18ftypmp42 video bytes \xfe"
SVG = "data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%2F%3E"
SVG_RAW = b'<svg xmlns="http://www.w3.org/2000/svg"/>'
PREFIX = "/conversation_history/media/"


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def key(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:16]


def media_message(extra: list[Any] | None = None) -> HumanMessage:
    """A user message with media in every form LangChain reads as inline data, and some it
    does not (a message object: from a dict, LangChain would give the audio block a random
    id)."""
    return HumanMessage(
        content=[
            {"type": "text", "text": "look at these <please>"},
            {"type": "image", "base64": b64(PNG), "mime_type": "image/png"},
            # The same picture again, as a Chat Completions data URL: one file.
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(PNG)}},
            # (Chat Completions' `input_audio` would do, but LangChain gives it a random id.)
            {"type": "audio", "base64": b64(WAV), "mime_type": "audio/wav"},
            {"type": "file", "base64": b64(PDF), "mime_type": "application/pdf"},
            {"type": "video", "base64": b64(MP4), "mime_type": "video/mp4"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": b64(JPG)}},
            {"type": "image", "url": SVG},
            # Not inline: kept as they are.
            {"type": "image", "url": "https://example.com/cat.png"},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/dog.png"}},
            *(extra or []),
        ],
    )


def snapshot(name: str) -> list[dict[str, Any]]:
    """Take a snapshot of the named screen."""
    raw = PNG if name == "home" else GIF
    mime = "image/png" if name == "home" else "image/gif"
    return [{"type": "text", "text": f"screen {name}"}, {"type": "image", "base64": b64(raw), "mime_type": mime}]


def snapshots_then(*tail: Any) -> list[Any]:
    shots = [
        AIMessage(content="", tool_calls=[{"name": "snapshot", "args": {"name": n}, "id": f"s{i}"}])
        for i, n in enumerate(("home", "settings"))
    ]
    return [*shots, *calls_then(4, *tail)]


def own(backend: Any, **settings: Any) -> Any:
    """Each implementation's ``SummarizationMiddleware`` on ``backend(impl)``."""

    def make(impl: Any, model: Any) -> Any:
        cls = impl.middleware.summarization.SummarizationMiddleware
        return cls(model=model, backend=backend(impl), **settings)

    return make


def run_media(
    script: list[Any],
    inputs: list[Any],
    *,
    mode: str = "invoke",
    middleware: Any = None,
    backend: Any = None,
    store: bool = False,
    checkpointer: bool = False,
    profile: dict | None = None,
    warning_filter: str = "ignore",
) -> list[Run]:
    """Runs ``script`` through both implementations, one turn per input (a message, or a
    list of them); each run's ``UserWarning`` texts are kept in ``run.warnings``
    (``warning_filter`` ``"error"`` raises them instead)."""
    runs = []
    for impl in _IMPLS:
        model = SummarizingModel(list(script), **({"profile": profile} if profile else {}))
        kwargs: dict[str, Any] = {"tools": [lookup, snapshot]}
        if middleware is not None:
            kwargs["middleware"] = [middleware(impl, model)]
        if backend is not None:
            kwargs["backend"] = backend(impl)
        if store:
            kwargs["store"] = InMemoryStore()
        if checkpointer:
            kwargs["checkpointer"] = InMemorySaver()
        agent = impl.create_deep_agent(model=model, **kwargs)
        run = Run(impl, model, agent)
        run.store = kwargs.get("store")
        config = {"configurable": {"thread_id": "t"}} if checkpointer else None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always" if warning_filter == "ignore" else warning_filter, UserWarning)
            for message in inputs:
                inp = {"messages": message if isinstance(message, list) else [message]}
                try:
                    if mode == "invoke":
                        run.results.append(agent.invoke(inp, config=config))
                    else:
                        run.results.append(asyncio.run(agent.ainvoke(inp, config=config)))
                except Exception as exc:  # noqa: BLE001 - compared below
                    run.results.append(exc)
        run.warnings = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        runs.append(run)
    return runs


def summary_prompts(run: Run) -> list[str]:
    return run.model.summaries


def disk_tree(root: Path) -> dict[str, Any]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            rel = str(p.relative_to(root))
            out[rel] = _STAMP.sub("<time>", data.decode()) if rel.endswith(".md") else data
    return masked({k: v if isinstance(v, str) else b64(v) for k, v in out.items()})


def store_items(store: Any) -> dict[str, Any]:
    items = {}
    for item in store.search((), limit=1000):
        value = {k: v for k, v in item.value.items() if k not in ("created_at", "modified_at")}
        items["/".join(item.namespace) + ":" + item.key] = value
    return masked(items)


def expected_media(prefix: str = PREFIX) -> dict[str, str]:
    """What each inline payload of ``media_message`` and the snapshots is kept as."""
    return {
        "png": f"{prefix}{key(PNG)}.png",
        "gif": f"{prefix}{key(GIF)}.gif",
        "jpg": f"{prefix}{key(JPG)}.jpg",
        "wav": f"{prefix}{key(WAV)}.bin",
        "pdf": f"{prefix}{key(PDF)}.pdf",
        "mp4": f"{prefix}{key(MP4)}.mp4",
        "svg": f"{prefix}{key(SVG_RAW)}.svg",
    }


# --------------------------------------------------------------------------- state backend


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_media_go_to_the_state_and_the_summary_sees_their_paths(mode: str) -> None:
    script = snapshots_then("done")
    runs = run_media(
        script,
        [media_message()],
        mode=mode,
        middleware=own(lambda a: a.backends.StateBackend(), trigger=("messages", 6), keep=("messages", 2)),
    )
    compare(runs)
    _ref, rs = runs
    prompt = summary_prompts(rs)[0]
    paths = expected_media()
    # Each payload once, by its hash; the duplicate PNG (human and tool result) is one file.
    files = rs.results[0]["files"]
    assert {k for k in files if k.startswith(PREFIX)} == set(paths.values())
    assert files[paths["png"]]["encoding"] == "base64" and files[paths["png"]]["content"] == b64(PNG)
    assert files[paths["pdf"]] | {"created_at": None, "modified_at": None} == {
        "content": PDF.decode(),
        "encoding": "utf-8",
        "created_at": None,
        "modified_at": None,
    }
    # Typed references for images, audio and video; a text tag (escaped) for the PDF.
    assert f'<image url="{paths["png"]}" /> <image url="{paths["png"]}" />' in prompt
    assert f'<audio url="{paths["wav"]}" />' in prompt and f'<video url="{paths["mp4"]}" />' in prompt
    assert f'&lt;file url="{paths["pdf"]}" /&gt;' in prompt
    assert '<image url="https://example.com/dog.png" />' in prompt
    assert "base64" not in prompt
    # The history file holds the same transcript.
    (history,) = [k for k in files if k.startswith("/conversation_history/session_")]
    assert f'<image url="{paths["gif"]}" />' in files[history]["content"]
    # The state keeps the raw messages.
    human = rs.results[0]["messages"][0]
    assert human.content[1]["base64"] == b64(PNG)


def test_the_default_stack_offloads_media_on_a_checkpointed_thread() -> None:
    big = {"type": "text", "text": "context " * 2000}
    script = [*snapshots_then("first done"), *calls_then(6, "second done", ids="d")]
    runs = run_media(
        script,
        [media_message([big]), {"role": "user", "content": "again"}],
        checkpointer=True,
        profile={"max_input_tokens": 9000},
    )
    compare(runs, state=True)
    rs = runs[1]
    assert summary_prompts(rs)
    files = rs.results[-1]["files"]
    assert {k for k in files if k.startswith(PREFIX)} == set(expected_media().values())


# --------------------------------------------------------------------------- disk and store


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_media_go_to_a_filesystem_backend(tmp_path: Path, mode: str) -> None:
    def backend(impl: Any) -> Any:
        root = tmp_path / impl.__name__
        root.mkdir(exist_ok=True)
        return impl.backends.FilesystemBackend(root_dir=str(root), virtual_mode=True)

    runs = run_media(
        snapshots_then("done"), [media_message()], mode=mode, backend=backend, profile={"max_input_tokens": 4000}
    )
    compare(runs)
    trees = [disk_tree(tmp_path / impl.__name__) for impl in _IMPLS]
    assert trees[1] == trees[0]
    media = {k for k in trees[1] if k.startswith("conversation_history/media/")}
    assert media == {p.lstrip("/") for p in expected_media().values()}
    assert (tmp_path / "deepagents_rs" / expected_media()["png"].lstrip("/")).read_bytes() == PNG


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_composite_with_an_artifacts_root_sends_media_to_its_route(tmp_path: Path, mode: str) -> None:
    def backend(impl: Any) -> Any:
        b = impl.backends
        return b.CompositeBackend(
            default=b.StateBackend(),
            routes={"/mem/": b.StoreBackend(namespace=lambda _rt: ("media-test",))},
            artifacts_root="/mem",
        )

    runs = run_media(
        snapshots_then("done"),
        [media_message()],
        mode=mode,
        middleware=own(backend, trigger=("messages", 6), keep=("messages", 2)),
        store=True,
    )
    compare(runs)
    stores = [store_items(run.store) for run in runs]
    assert stores[1] == stores[0]
    expected = {"media-test:" + p for p in expected_media().values()}
    assert {k for k in stores[1] if "/media/" in k} == expected
    prompt = summary_prompts(runs[1])[0]
    assert f'<image url="/mem/conversation_history/media/{key(PNG)}.png" />' in prompt
    # Nothing of it in the state's files.
    assert not any("conversation_history" in k for k in runs[1].results[0].get("files", {}))


# --------------------------------------------------------------------------- failures


def failing_backend(tmp_path: Path) -> Any:
    """A disk backend refusing ``.bin`` uploads and raising on ``.pdf`` ones."""

    def make(impl: Any) -> Any:
        class Refusing(impl.backends.FilesystemBackend):
            def upload_files(self, files: list[tuple[str, bytes]]) -> list[Any]:
                return [self._one(p, c) for p, c in files]

            async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[Any]:
                return self.upload_files(files)

            def _one(self, path: str, content: bytes) -> Any:
                FileUploadResponse = importlib.import_module(impl.__name__ + ".backends.protocol").FileUploadResponse

                if path.endswith(".pdf"):
                    raise OSError("disk full")
                if path.endswith(".bin"):
                    return FileUploadResponse(path=path, error="permission_denied")
                return super().upload_files([(path, content)])[0]

        root = tmp_path / impl.__name__
        root.mkdir(exist_ok=True)
        return Refusing(root_dir=str(root), virtual_mode=True)

    return make


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_failed_uploads_and_undecodable_payloads_become_placeholders(tmp_path: Path, mode: str) -> None:
    broken = {"type": "image", "base64": "aGk", "mime_type": "image/png"}  # bad padding
    runs = run_media(
        snapshots_then("done"),
        [media_message([broken])],
        mode=mode,
        middleware=own(failing_backend(tmp_path), trigger=("messages", 6), keep=("messages", 2)),
    )
    compare(runs)
    trees = [disk_tree(tmp_path / impl.__name__) for impl in _IMPLS]
    assert trees[1] == trees[0]
    prompt = summary_prompts(runs[1])[0]
    assert prompt.count('&lt;image error="failed_to_offload" /&gt;') == 3
    assert f"conversation_history/media/{key(PDF)}.pdf" not in trees[1]
    assert f"conversation_history/media/{key(PNG)}.png" in trees[1]
    # The user is warned that some media are lost, naming the history file.
    ref, rs = runs
    assert masked(rs.warnings) == masked(ref.warnings)
    assert any("3 media block(s) could not be offloaded" in w for w in rs.warnings)


def history_refusing_backend(impl: Any) -> Any:
    """A state backend whose history file cannot be written (media uploads succeed)."""

    class NoHistory(impl.backends.StateBackend):
        def write(self, file_path: str, content: str) -> Any:
            raise OSError("read-only history")

        async def awrite(self, file_path: str, content: str) -> Any:
            raise OSError("read-only history")

    return NoHistory()


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_history_that_cannot_be_saved_warns_and_the_summary_goes_on(mode: str) -> None:
    runs = run_media(
        snapshots_then("done"),
        [media_message()],
        mode=mode,
        middleware=own(history_refusing_backend, trigger=("messages", 6), keep=("messages", 2)),
    )
    compare(runs)
    ref, rs = runs
    assert rs.warnings == ref.warnings
    assert rs.warnings[0].startswith("Offloading conversation history to backend failed during summarization.")
    # The summary message says no file was saved; the media were kept all the same.
    assert "Here is a summary of the conversation to date" in str(rs.model.calls[-1].messages[1].content)
    assert {k for k in rs.results[0]["files"] if k.startswith(PREFIX)} == set(expected_media().values())


def test_a_warning_made_an_error_fails_the_run_as_in_deepagents(tmp_path: Path) -> None:
    runs = run_media(
        snapshots_then("done"),
        [media_message()],
        middleware=own(failing_backend(tmp_path), trigger=("messages", 6), keep=("messages", 2)),
        warning_filter="error",
    )
    ref, rs = runs
    (a,), (b,) = ref.results, rs.results
    assert isinstance(a, UserWarning) and type(b) is type(a)
    assert masked(str(b)) == masked(str(a))
    # Raised before the summary was asked for (the sync path).
    assert masked(summary_prompts(rs)) == masked(summary_prompts(ref)) == []


# --------------------------------------------------------------------------- the compact tool


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_the_compact_tool_does_not_offload_media(mode: str) -> None:
    def make(impl: Any, model: Any) -> Any:
        mod = impl.middleware.summarization
        summarization = mod.SummarizationMiddleware(
            model=model, backend=impl.backends.StateBackend(), trigger=("messages", 8), keep=("messages", 2)
        )
        return mod.SummarizationToolMiddleware(summarization)

    script = snapshots_then(compact_call(1), "compacted")
    runs = run_media(script, [media_message()], mode=mode, middleware=make, checkpointer=True)
    compare(runs, state=True)
    rs = runs[1]
    (prompt,) = summary_prompts(rs)
    transcript = prompt.partition("Messages to summarize:")[2]
    # The transcript leaves inline media out; nothing is uploaded.
    assert "/media/" not in transcript and '<image url="https://example.com/cat.png" />' in transcript
    assert not any(k.startswith(PREFIX) for k in rs.results[0].get("files", {}))


def keeping_summarizer(seen: dict[str, list[Any]], **settings: Any) -> Any:
    """Each implementation's ``SummarizationMiddleware`` on a state backend (after six
    messages, keeping two) with a user's summarizer that keeps the contents it is handed in
    ``seen``, by implementation."""

    def make(impl: Any, model: Any) -> Any:
        def summarizer(messages: list[Any]) -> str:
            seen.setdefault(impl.__name__, []).append([m.content for m in messages])
            return "summed"

        cls = impl.middleware.summarization.SummarizationMiddleware
        return cls(
            model=model,
            backend=impl.backends.StateBackend(),
            trigger=("messages", 6),
            keep=("messages", 2),
            summarizer=summarizer,
            **settings,
        )

    return make


def test_a_summarizer_function_is_handed_the_offloaded_messages() -> None:
    seen: dict[str, Any] = {}
    runs = run_media(snapshots_then("done"), [media_message()], middleware=keeping_summarizer(seen))
    compare(runs)

    def without_ids(content: Any) -> Any:
        if isinstance(content, list):
            return [{k: v for k, v in b.items() if k != "id"} if isinstance(b, dict) else b for b in content]
        return content

    ref, rs = ([[without_ids(c) for c in call] for call in seen[name]] for name in ("deepagents", "deepagents_rs"))
    assert masked(rs) == masked(ref)
    assert {"type": "image", "url": expected_media()["png"]} in rs[0][0]


# Both implementations are imported for `_IMPLS`; keep the linters quiet about the names.
assert deepagents and deepagents_rs


# --------------------------------------------------------------------------- block forms


def exotic_blocks() -> list[Any]:
    """Blocks in the provider and legacy forms LangChain's ``content_blocks`` converts (a
    user's message keeps them as they are; a tool's result would be serialized)."""
    return [
        "a plain string block",
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": b64(PDF)}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "inline notes"}},
        {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
        {"type": "input_audio", "input_audio": {"data": b64(WAV + b"2"), "format": "mp3"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64," + b64(PDF + b"2"), "filename": "b.pdf"}},
        {"type": "image", "source_type": "base64", "data": b64(GIF + b"2"), "mime_type": "image/gif"},
        {"type": "image", "source_type": "url", "url": "https://example.com/v0.png"},
        {"type": "image_url", "image_url": {"url": "data:image/webp;base64," + b64(JPG + b"2"), "detail": "low"}},
        {"type": "text-plain", "base64": b64(b"plain text file"), "mime_type": "text/plain"},
        {"type": "image", "url": "data:text/plain,hello%20world%zz"},
        {"type": "image", "url": "data:,no%20type"},
        {"type": "image", "url": "data:image/png;base64"},  # no payload separator: does not decode
        {"type": "image", "base64": "", "mime_type": "image/png"},  # empty: not inline media
        {"type": "thinking", "thinking": "hidden", "signature": "s"},
        {"type": "reasoning", "reasoning": "shown"},
    ]


def test_every_block_form_langchain_reads_is_offloaded_as_deepagents_does(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    from . import test_summarization as base

    # LangChain gives converted Chat Completions blocks random ids in the model's requests.
    monkeypatch.setattr(base, "_SESSION", re.compile(r"session_[0-9a-f]{32}|lc_[0-9a-f-]{36}"))
    script = snapshots_then("done")

    def make(impl: Any, model: Any) -> Any:
        cls = impl.middleware.summarization.SummarizationMiddleware
        return cls(model=model, backend=impl.backends.StateBackend(), trigger=("messages", 6), keep=("messages", 2))

    runs = []
    for impl in _IMPLS:
        model = SummarizingModel(list(script))
        agent = impl.create_deep_agent(model=model, tools=[lookup, snapshot], middleware=[make(impl, model)])
        run = Run(impl, model, agent)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            run.results.append(agent.invoke({"messages": [media_message(exotic_blocks())]}))
        run.warnings = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        runs.append(run)
    compare(runs)
    ref, rs = runs
    assert masked(rs.warnings) == masked(ref.warnings)
    prompt = summary_prompts(rs)[0]
    assert "inline notes" in prompt and "hello world" not in prompt
    assert f"{PREFIX}{key(b'hello world%zz')}.txt" in prompt
    assert f"{PREFIX}{key(b'no type')}.bin" in prompt
    files = rs.results[0]["files"]
    assert files[f"{PREFIX}{key(b'plain text file')}.txt"]["content"] == "plain text file"


def test_an_ai_message_with_media_is_read_with_its_tool_calls_and_reasoning() -> None:
    drawn = AIMessage(
        content=[
            {"type": "text", "text": "I drew this"},
            {"type": "image", "base64": b64(GIF), "mime_type": "image/gif"},
        ],
        tool_calls=[{"name": "lookup", "args": {"q": "drawing"}, "id": "d0"}],
        additional_kwargs={"reasoning_content": "thinking about the drawing"},
    )
    runs = run_media(
        [drawn, *snapshots_then("done")],
        [{"role": "user", "content": "draw"}],
        middleware=own(lambda a: a.backends.StateBackend(), trigger=("messages", 6), keep=("messages", 2)),
    )
    compare(runs)
    prompt = summary_prompts(runs[1])[0]
    assert "<reasoning>thinking about the drawing</reasoning> I drew this" in prompt
    assert f'<image url="{expected_media()["gif"]}" />' in prompt
