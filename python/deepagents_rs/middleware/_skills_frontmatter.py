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


def _view(text: str) -> dict[str, Any] | None:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        logger.warning("Invalid YAML in frontmatter: %s", e)
        return None
    if not isinstance(data, dict):
        return None
    view: dict[str, Any] = {field: str(data[field]) for field in _TEXT_FIELDS if field in data}
    tools = data.get("allowed-tools")
    if isinstance(tools, str):
        view["allowed-tools"] = tools
    elif isinstance(tools, list):
        view["allowed-tools"] = [t for t in tools if isinstance(t, str)]
    metadata = data.get("metadata")
    view["metadata"] = {str(k): str(v) for k, v in metadata.items()} if isinstance(metadata, dict) else {}
    return view


def frontmatter_views(texts: list[str]) -> list[dict[str, Any] | None]:
    """Each frontmatter's fields (see the module doc), or ``None`` for text that is not
    YAML or not a mapping."""
    return [_view(text) for text in texts]
