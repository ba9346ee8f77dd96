"""The YAML boundary of skills: a ``SKILL.md``'s frontmatter read as deepagents reads it.

deepagents reads frontmatter with PyYAML's ``safe_load`` (YAML 1.1 scalars: ``yes`` is a
boolean, ``2024-01-01`` a date) and keeps each field as Python's ``str()`` of its value, so
``True``, ``None`` or ``1.0`` is what the model reads. Those two steps are Python's to
define, so they happen here; the Rust core (``src/middleware/skills/``) locates the
frontmatter, checks, strips, splits and cuts the fields, and builds ``SkillMetadata``.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger("deepagents_rs.middleware.skills")

#: The scalar fields deepagents reads with ``str(value)``.
_TEXT_FIELDS = ("name", "description", "license", "compatibility")


def _warn_of_include_tools(data: dict, path: str) -> None:
    """deepagents' warning for ``metadata.include_tools`` that is not a space-separated string
    (a YAML list reads as its ``str()``, whose names match no tool), for a skill that loads."""
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return
    if not (str(data.get("name", "")).strip() and str(data.get("description", "")).strip()):
        return
    include = metadata.get("include_tools")
    if isinstance(include, list) or (isinstance(include, str) and "," in include):
        logger.warning(
            "metadata.include_tools in %s should be a space-separated string of tool names; got %r", path, include
        )


def _view(path: str, text: str) -> dict[str, Any] | None:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        logger.warning("Invalid YAML in frontmatter: %s", e)
        return None
    if not isinstance(data, dict):
        return None
    _warn_of_include_tools(data, path)
    view: dict[str, Any] = {field: str(data[field]) for field in _TEXT_FIELDS if field in data}
    tools = data.get("allowed-tools")
    if isinstance(tools, str):
        view["allowed-tools"] = tools
    elif isinstance(tools, list):
        view["allowed-tools"] = [t for t in tools if isinstance(t, str)]
    metadata = data.get("metadata")
    view["metadata"] = {str(k): str(v) for k, v in metadata.items()} if isinstance(metadata, dict) else {}
    return view


def frontmatter_views(items: list[tuple[str, str]]) -> list[dict[str, Any] | None]:
    """Each ``(SKILL.md path, frontmatter)``'s fields (see the module doc), or ``None`` for
    text that is not YAML or not a mapping."""
    return [_view(path, text) for path, text in items]
