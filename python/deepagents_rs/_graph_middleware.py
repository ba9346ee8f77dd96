"""deepagents' graph-module helpers for middleware stacks of LangChain middleware objects:
the scaffolding no harness profile may exclude, and the caller's middleware merged into a
stack by name (`_apply_custom_middleware`).

A deepagents_rs agent's own stacks are merged the same way in the core
(`src/middleware/chain.rs`, `with_custom`), over its entries; these work on the objects
deepagents' callers hold. Made on first use from `deepagents_rs.graph`: they need LangChain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._assembly import PERMISSIONS_CONFLICT
from .middleware._subagent_middleware import SubAgentMiddleware
from .middleware.filesystem import FilesystemMiddleware
from .profiles.harness.harness_profiles import REQUIRED_MIDDLEWARE_NAMES

#: The middleware classes core features stand on (the file tools with their permission
#: rules, the `task` tool): `HarnessProfile.excluded_middleware` may not drop them.
_REQUIRED_MIDDLEWARE_CLASSES: frozenset[type] = frozenset({FilesystemMiddleware, SubAgentMiddleware})

#: The `.name`s of the same, which an exclusion by name may not give either.
_REQUIRED_MIDDLEWARE_NAMES: frozenset[str] = REQUIRED_MIDDLEWARE_NAMES


def _replacing(current: Any, replacement: Any) -> Any:
    """`replacement` in `current`'s place: a `FilesystemMiddleware` taking the place of one
    with rules enforces those rules (its own, when it has any, must be the same)."""
    if not (
        isinstance(current, FilesystemMiddleware)
        and current._permissions
        and isinstance(replacement, FilesystemMiddleware)
    ):
        return replacement
    if replacement._permissions and replacement._permissions != current._permissions:
        raise ValueError(PERMISSIONS_CONFLICT)
    return replacement._with_permissions(current._permissions)


def _apply_custom_middleware(
    base: list[Any],
    custom: Sequence[Any],
    *,
    core_names: set[str] | None = None,
) -> list[Any]:
    """`base` with `custom` merged in by `.name`, as a new list.

    An entry named like one in `base` takes its place there (the last of several such wins);
    the others are inserted together, in their order, after the last entry of `base` named in
    `core_names` (so ahead of the tail deepagents puts after its core entries), or at the end
    without `core_names`.
    """
    merged = list(base)
    if not custom:
        return merged
    present = {m.name for m in base}
    by_name = {m.name: m for m in custom if m.name in present}
    added = [m for m in custom if m.name not in present]
    merged = [_replacing(m, by_name[m.name]) if m.name in by_name else m for m in merged]
    if added and core_names is not None:
        core_at = [i for i, m in enumerate(merged) if m.name in core_names]
        at = core_at[-1] + 1 if core_at else len(merged)
        merged[at:at] = added
    else:
        merged.extend(added)
    return merged
