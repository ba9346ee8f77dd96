"""Parity: deepagents' private skills helpers (`_parse_skill_metadata`, `_list_skills`,
`_format_skills_list`, ...), which its own tests and code written against its module call by
name: the same results and the same warnings logged, side by side with deepagents.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

IMPLS = ("deepagents", "deepagents_rs")


def _skills(impl: str) -> Any:
    return importlib.import_module(f"{impl}.middleware.skills")


def _both(caplog: pytest.LogCaptureFixture, use: Any) -> Any:
    """`use(module, impl)` for each implementation, with the warnings it logged: the same."""
    outs = []
    for impl in IMPLS:
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            out = use(_skills(impl), impl)
        outs.append((out, [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]))
    assert outs[0] == outs[1]
    return outs[0]


def _md(front: str, body: str = "\n# Body\n") -> str:
    return f"---\n{front}\n---\n{body}"


CONTENTS = {
    "minimal": _md("name: web\ndescription: Web research"),
    "full": _md(
        "name: web\ndescription: d\nlicense: MIT\ncompatibility: Python 3.11+\n"
        "allowed-tools: read_file, write_file  grep\nmetadata:\n  author: me\n  version: 1.0\n  include_tools: a b"
    ),
    "no frontmatter": "# Just text\n",
    "unclosed": "---\nname: web\ndescription: d\n",
    "invalid yaml": _md("name: web\ndescription: [unclosed"),
    "not a mapping": _md("- a\n- b"),
    "no description": _md("name: web"),
    "blank description": _md('name: web\ndescription: "   "'),
    "no name": _md("description: d"),
    "long description": _md("name: web\ndescription: " + "a" * 1100),
    "long compatibility": _md("name: web\ndescription: d\ncompatibility: " + "c" * 600),
    "blank optional fields": _md('name: web\ndescription: d\nlicense: ""\ncompatibility: "  "'),
    "bad name": _md("name: Web_Research\ndescription: d"),
    "other directory": _md("name: other\ndescription: d"),
    "yaml 1.1 scalars": _md("name: web\ndescription: yes\nlicense: 2024-01-01\ncompatibility: 1.0"),
    "allowed-tools list": _md("name: web\ndescription: d\nallowed-tools:\n  - a\n  - 3\n  - ' b '"),
    "allowed-tools number": _md("name: web\ndescription: d\nallowed-tools: 3"),
    "metadata not a mapping": _md("name: web\ndescription: d\nmetadata: [1, 2]"),
    "include_tools as a list": _md("name: web\ndescription: d\nmetadata:\n  include_tools: [a, b]"),
    "include_tools with commas": _md("name: web\ndescription: d\nmetadata:\n  include_tools: a,b"),
    "dashes with spaces": "---  \nname: web\ndescription: d\n---   \nbody",
    "unicode": _md("name: café\ndescription: Ünïcode ✓"),
}


@pytest.mark.parametrize("case", sorted(CONTENTS))
def test_parse_skill_metadata(caplog: pytest.LogCaptureFixture, case: str) -> None:
    directory = "café" if case == "unicode" else "web"
    _both(caplog, lambda m, _: m._parse_skill_metadata(CONTENTS[case], f"/skills/{directory}/SKILL.md", directory))


def test_parse_skill_metadata_of_a_file_over_the_size_limit(caplog: pytest.LogCaptureFixture) -> None:
    limit = _skills("deepagents").MAX_SKILL_FILE_SIZE
    content = _md("name: web\ndescription: d", "x" * limit)
    out, warnings = _both(caplog, lambda m, _: m._parse_skill_metadata(content, "/s/web/SKILL.md", "web"))
    assert out is None
    assert warnings


@pytest.mark.parametrize(
    ("name", "directory"),
    [("web", "web"), ("", "web"), ("a" * 65, "a" * 65), ("-a", "-a"), ("a--b", "a--b"), ("Web", "Web"),
     ("über-tool", "über-tool"), ("a_b", "a_b"), ("web", "other"), ("a1-2b", "a1-2b"), ("日本", "日本")],
)  # fmt: skip
def test_validate_skill_name(name: str, directory: str) -> None:
    outs = [_skills(impl)._validate_skill_name(name, directory) for impl in IMPLS]
    assert outs[0] == outs[1]


@pytest.mark.parametrize(
    "raw", [{}, {"a": 1, 2: None}, [1], "text", None, 0, {"include_tools": ["a"]}, {"include_tools": "a, b"}]
)
def test_validate_metadata(caplog: pytest.LogCaptureFixture, raw: Any) -> None:
    _both(caplog, lambda m, _: m._validate_metadata(raw, "/s/web/SKILL.md"))


@pytest.mark.parametrize(
    "skill",
    [{"license": "MIT", "compatibility": "x"}, {"license": None, "compatibility": "x"}, {"license": ""}, {}],
)
def test_format_skill_annotations(skill: dict) -> None:
    outs = [_skills(impl)._format_skill_annotations(skill) for impl in IMPLS]
    assert outs[0] == outs[1]


@pytest.mark.parametrize(
    ("error", "content"),
    [
        ("file_not_found", None),
        ("is_directory", None),
        ("permission_denied", None),
        (None, None),
        (None, _md("name: web\ndescription: d").encode()),
        (None, _md("name: Other\ndescription: d").encode()),
        (None, b"no frontmatter"),
        (None, b""),
    ],
)
@pytest.mark.parametrize("directory", ["/skills/web", "/skills/web/", "C:\\skills\\web"])
def test_skill_metadata_from_response(
    caplog: pytest.LogCaptureFixture, error: str | None, content: bytes | None, directory: str
) -> None:
    def use(m: Any, impl: str) -> Any:
        protocol = importlib.import_module(f"{impl}.backends.protocol")
        response = protocol.FileDownloadResponse(path="/skills/web/SKILL.md", content=content, error=error)
        return m._skill_metadata_from_response(response, directory, "/skills/web/SKILL.md")

    _both(caplog, use)


def test_skill_metadata_from_a_response_that_is_not_utf8() -> None:
    """deepagents logs Python's decoding error; the result (skipped) is the same."""
    for impl in IMPLS:
        protocol = importlib.import_module(f"{impl}.backends.protocol")
        response = protocol.FileDownloadResponse(path="/s/web/SKILL.md", content=b"---\xff\n", error=None)
        assert _skills(impl)._skill_metadata_from_response(response, "/s/web", "/s/web/SKILL.md") is None


def _tree(root: Path) -> None:
    for directory, text in {
        "skills/web": _md("name: web\ndescription: Web"),
        "skills/bad": "no frontmatter",
        "skills/other": _md("name: renamed\ndescription: Renamed"),
        "skills/empty": None,
    }.items():
        (root / directory).mkdir(parents=True)
        if text is not None:
            (root / directory / "SKILL.md").write_text(text)
    (root / "skills" / "loose.md").write_text("a file, not a skill")


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("source", ["/skills", "/skills/", "/missing", "/skills/loose.md"])
def test_list_skills_through_a_filesystem_backend(
    caplog: pytest.LogCaptureFixture, tmp_path: Path, mode: str, source: str
) -> None:
    _tree(tmp_path)

    def use(m: Any, impl: str) -> Any:
        backends = importlib.import_module(f"{impl}.backends")
        backend = backends.FilesystemBackend(root_dir=str(tmp_path), virtual_mode=True)
        if mode == "sync":
            return m._list_skills(backend, source), m._list_skills_with_errors(backend, source)
        return asyncio.run(m._alist_skills(backend, source)), asyncio.run(m._alist_skills_with_errors(backend, source))

    _both(caplog, use)


def test_list_skills_reports_a_listing_error_and_keeps_the_entries(caplog: pytest.LogCaptureFixture) -> None:
    def use(m: Any, impl: str) -> Any:
        protocol = importlib.import_module(f"{impl}.backends.protocol")
        asked: list[Any] = []

        def download_files(paths: list[str]) -> list[Any]:
            asked.append(paths)
            return [
                protocol.FileDownloadResponse(path=p, content=_md("name: web\ndescription: d").encode()) for p in paths
            ]

        backend = SimpleNamespace(
            ls=lambda path: protocol.LsResult(
                error="Cannot list: denied", entries=[protocol.FileInfo(path="/s/web", is_dir=True)]
            ),
            download_files=download_files,
        )
        return m._list_skills_with_errors(backend, "/s"), asked

    (_skills_found, error), asked = _both(caplog, use)[0]
    assert error == "Cannot load skills from '/s': Cannot list: denied"
    assert asked == [["/s/web/SKILL.md"]]


SKILL_LIST = [
    {"name": "a", "description": "A", "path": "/s/a/SKILL.md", "license": "MIT", "compatibility": None,
     "allowed_tools": ["x", "y"], "metadata": {}},
    {"name": "b", "description": "B", "path": "/s/b/SKILL.md", "license": None, "compatibility": "py",
     "allowed_tools": [], "metadata": {}},
]  # fmt: skip


@pytest.mark.parametrize(
    "sources",
    [["/skills/user/"], ["/a/built_in_skills", "~/.claude/skills", ("/x", "Team")], ["C:\\Users\\me\\skills\\"]],
)
def test_the_section_formatters(sources: list[Any]) -> None:
    errors = ["Cannot load skills from '/bad': <denied> \"x\" é", "y" * 1200, *[str(i) for i in range(21)]]
    outs = []
    for impl in IMPLS:
        backends = importlib.import_module(f"{impl}.backends")
        mw = _skills(impl).SkillsMiddleware(backend=backends.StateBackend(), sources=sources)
        outs.append(
            (
                mw._format_skills_locations(),
                mw._format_skills_list(SKILL_LIST),
                mw._format_skills_list([]),
                mw._format_skills_load_warnings(errors),
                mw._format_skills_load_warnings(errors[:1]),
                mw._format_skills_load_warnings([]),
            )
        )
    assert outs[0] == outs[1]


@pytest.mark.parametrize("source", ["/skills/user/", ("/p", "Label"), "~/.claude/skills", "/", ""])
def test_source_helpers(source: Any) -> None:
    outs = [(_skills(impl)._derive_source_label(source), _skills(impl)._source_path(source)) for impl in IMPLS]
    assert outs[0] == outs[1]


@pytest.mark.parametrize("error", ["short", "z" * 1000, "z" * 1001, "é" * 1500])
def test_truncate_skill_load_warning(error: str) -> None:
    outs = [_skills(impl)._truncate_skill_load_warning(error) for impl in IMPLS]
    assert outs[0] == outs[1]
