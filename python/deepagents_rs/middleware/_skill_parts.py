"""deepagents' private skills helpers, under their names and signatures in
`deepagents.middleware.skills` (`_parse_skill_metadata`, `_list_skills`, ...): deepagents'
own tests and code written against its module call them directly.

Each is a face of the core's piece of the same work (`_core.parse_skill_metadata`, ...,
and the skills entry's load for `_list_skills`): the YAML is read here as the entry reads
it (`_skills_frontmatter`), and the core's warnings go to this module's logger, as
deepagents logs them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .. import _core
from ._skills_frontmatter import frontmatter_views, validate_metadata

if TYPE_CHECKING:
    from ..backends.protocol import BackendProtocol, FileDownloadResponse

logger = logging.getLogger("deepagents_rs.middleware.skills")

_validate_metadata = validate_metadata


def warn(message: str) -> None:
    """The core's warning, logged as deepagents logs it."""
    logger.warning("%s", message)


def _validate_skill_name(name: str, directory_name: str) -> tuple[bool, str]:
    """`(is_valid, error_message)`: whether `name` follows the Agent Skills specification
    (1-64 lowercase alphanumeric characters and single hyphens, the directory's name)."""
    problem = _core.skill_name_problem(name, directory_name)
    return (True, "") if problem is None else (False, problem)


def _parse_skill_metadata(content: str, skill_path: str, directory_name: str) -> Any:
    """The `SkillMetadata` of a `SKILL.md`'s YAML frontmatter, or None (with a warning) when
    the file is too large, has no frontmatter, or lacks a name or description."""
    return _core.parse_skill_metadata(content, skill_path, directory_name, frontmatter_views, warn)


def _skill_metadata_from_response(response: FileDownloadResponse, skill_dir_path: str, skill_md_path: str) -> Any:
    """The `SkillMetadata` of a downloaded `SKILL.md`, or None (with a warning for anything
    but a missing file)."""
    return _core.skill_metadata_from_download(
        response.error, response.content, skill_md_path, skill_dir_path, frontmatter_views, warn
    )


def _format_skill_annotations(skill: Any) -> str:
    """`'License: MIT, Compatibility: ...'` for the fields a skill sets, or `''`."""
    return _core.skill_annotations(skill)


def _truncate_skill_load_warning(error: str) -> str:
    """A load warning capped as the prompt shows it."""
    return _core.truncate_skill_load_warning(error)


def _backend(backend: BackendProtocol) -> Any:
    from .._backend_adapter import backend_arg

    # deepagents only calls the methods it uses: any object answering them is taken.
    return backend_arg(backend, None, any_object=True)


def _list_skills_with_errors(backend: BackendProtocol, source_path: str) -> tuple[list[Any], str | None]:
    """The skills under `source_path` (each directory holding a `SKILL.md`) and the source's
    listing error, if any."""
    skills, error = _core.list_skills(_backend(backend), source_path, frontmatter_views, warn, False)
    return list(skills), error


async def _alist_skills_with_errors(backend: BackendProtocol, source_path: str) -> tuple[list[Any], str | None]:
    """`_list_skills_with_errors` through the backend's async methods."""
    skills, error = await _core.list_skills(_backend(backend), source_path, frontmatter_views, warn, True)
    return list(skills), error


def _list_skills(backend: BackendProtocol, source_path: str) -> list[Any]:
    """The skills under `source_path`."""
    return _list_skills_with_errors(backend, source_path)[0]


async def _alist_skills(backend: BackendProtocol, source_path: str) -> list[Any]:
    """The skills under `source_path`, through the backend's async methods."""
    return (await _alist_skills_with_errors(backend, source_path))[0]
