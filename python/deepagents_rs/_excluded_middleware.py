"""A harness profile's `excluded_middleware`, applied to the stacks the profile shapes.

deepagents filters a stack twice: its own entries (the built-in slots, the profile's
middleware), then again once the caller's middleware is merged in by name, so an excluded
entry goes whichever layer added it. Every exclusion must match in some stack: the main agent
and the general-purpose subagent share one check, each declarative subagent has its own.

Most entries of a stack live in the core; here they are `Slot`s, named as the core names
them and carrying the class an exclusion by class must name to drop them (a private stand-in
where deepagents' class is private, so no class can).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .profiles.harness.harness_profiles import REQUIRED_MIDDLEWARE_NAMES, HarnessProfile, scaffolding_rejection

logger = logging.getLogger(__name__)

_DROPPED = (
    "Dropped %d middleware instance(s) from stack per profile.excluded_middleware=%r (matched classes=%s, names=%s)"
)
_COLLISION = (
    "HarnessProfile.excluded_middleware name entry matched multiple distinct middleware classes within a single "
    "stack: {labels}. Use a class-form exclusion via the runtime `HarnessProfile` to disambiguate."
)
_UNMATCHED = (
    "HarnessProfile.excluded_middleware entries matched no middleware across any assembled stack: {labels}. "
    "Typo or stale profile — every exclusion must correspond to a middleware actually present at runtime. "
    "(Tip: use class-form exclusion when the class is available to catch typos at import time.)"
)


@dataclass(frozen=True)
class Slot:
    """A built-in entry of a core stack."""

    name: str
    kind: type


def _private(name: str) -> type:
    return type(name, (), {})


_PARENT_NOTIFIER = Slot("_ParentNotifierMiddleware", _private("_ParentNotifierMiddleware"))
_PATCH_TOOL_CALLS = Slot("PatchToolCallsMiddleware", _private("PatchToolCallsMiddleware"))
_SUBAGENTS = Slot("SubAgentMiddleware", _private("SubAgentMiddleware"))
_LAZY_CACHING = _private("_LazyAnthropicPromptCachingMiddleware")


def _slot(name: str) -> Slot:
    """The slot of one of deepagents_rs' middleware faces (the class users exclude it by)."""
    from . import middleware

    kind = getattr(middleware, name, None)
    return Slot(name, kind if isinstance(kind, type) else _private(name))


def _caching() -> Slot:
    # deepagents' stand-in answers to LangChain's class once that has been imported (a caller
    # naming it has imported it), else to its own private class: ours, when a caller has
    # imported it to name it.
    module = sys.modules.get("langchain_anthropic.middleware.prompt_caching")
    kind = getattr(module, "AnthropicPromptCachingMiddleware", None) if module is not None else None
    lazy = sys.modules.get("deepagents_rs.middleware._prompt_caching")
    fallback = lazy._LazyAnthropicPromptCachingMiddleware if lazy is not None else _LAZY_CACHING
    return Slot("AnthropicPromptCachingMiddleware", kind or fallback)


def main_slots(
    *, subagents: bool, extra: list[Any], skills: bool, memory: bool, interrupts: Any, async_subagents: Any = None
) -> list[Any]:
    """The main stack's entries, before the caller's middleware is merged in
    (``async_subagents``: the ``AsyncSubAgentMiddleware``, when there are async subagents)."""
    out: list[Any] = [_slot("FilesystemMiddleware")]
    if subagents:
        out.append(_SUBAGENTS)
    out += [_PARENT_NOTIFIER, _slot("SummarizationMiddleware"), _PATCH_TOOL_CALLS]
    if async_subagents is not None:
        out.append(async_subagents)
    out += extra
    if skills:
        out.append(_slot("SkillsMiddleware"))
    out.append(_caching())
    if memory:
        out.append(_slot("MemoryMiddleware"))
    if interrupts is not None:
        out.append(interrupts)
    return [*out, _slot("UnsupportedContentMiddleware")]


def subagent_slots(*, extra: list[Any], skills: bool, memory: bool = False) -> list[Any]:
    """A declarative subagent's entries (the general-purpose one's too), before its middleware
    is merged in; its human-in-the-loop and content filter come after the exclusions."""
    out: list[Any] = [_slot("FilesystemMiddleware"), _slot("SummarizationMiddleware"), _PATCH_TOOL_CALLS, *extra]
    if skills:
        out.append(_slot("SkillsMiddleware"))
    out.append(_caching())
    if memory:
        out.append(_slot("MemoryMiddleware"))
    return out


def _kind(entry: Any) -> type:
    """The class an exclusion by class must name to drop `entry`."""
    if isinstance(entry, Slot):
        return entry.kind
    stand_in = getattr(entry, "excluded_as", None)
    return stand_in if isinstance(stand_in, type) else type(entry)


@dataclass
class Planned:
    """A stack after the exclusions: the built-in slots to leave out (by name), and the
    middleware objects (the profile's, the caller's) kept."""

    excluded: list[str]
    kept: list[Any]
    user: list[Any]


class Exclusions:
    """One profile's `excluded_middleware`, and what it matched in the stacks it shaped."""

    def __init__(self, profile: HarnessProfile) -> None:
        self.profile = profile
        entries = profile.excluded_middleware
        self.classes = {e for e in entries if isinstance(e, type)}
        self.names = {e for e in entries if not isinstance(e, type)}
        self.matched_classes: set[type] = set()
        self.matched_names: set[str] = set()

    def check_required(self) -> None:
        """No required middleware (the file tools', the `task` tool's) is excluded."""
        from .middleware import FilesystemMiddleware

        labels = [c.__name__ for c in self.classes if c is FilesystemMiddleware]
        labels += [f"{n!r} (string)" for n in self.names & REQUIRED_MIDDLEWARE_NAMES]
        if labels:
            raise ValueError(scaffolding_rejection(labels))

    def _drop(self, entries: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """`(kept, dropped)`: one filtering pass over a stack."""
        if not self.profile.excluded_middleware:
            return list(entries), []
        kept, dropped = [], []
        by_name: dict[str, set[type]] = {}
        for entry in entries:
            kind = _kind(entry)
            if kind in self.classes:
                self.matched_classes.add(kind)
            elif entry.name in self.names:
                by_name.setdefault(entry.name, set()).add(kind)
                self.matched_names.add(entry.name)
            else:
                kept.append(entry)
                continue
            dropped.append(entry)
        clashes = sorted(
            f"{n!r} matched {sorted(k.__name__ for k in kinds)}" for n, kinds in by_name.items() if len(kinds) > 1
        )
        if clashes:
            raise ValueError(_COLLISION.format(labels="; ".join(clashes)))
        if dropped:
            logger.debug(
                _DROPPED,
                len(dropped),
                sorted(repr(e) for e in self.profile.excluded_middleware),
                sorted(c.__name__ for c in self.classes),
                sorted(self.names),
            )
        return kept, dropped

    def plan(self, base: Sequence[Any], user: Iterable[Any]) -> Planned:
        """deepagents' filter, merge and filter again over a stack: `base` its own entries
        (slots and middleware), `user` the middleware merged in by name."""
        base, dropped = self._drop(base)
        present = {e.name for e in base}
        user = list(user)
        user_kept, user_dropped = self._drop(user)
        # An excluded user entry that had taken a slot's place takes the slot with it.
        gone = {e.name for e in dropped} | {e.name for e in user_dropped if e.name in present}
        return Planned(
            excluded=[e.name for e in [*dropped, *base] if isinstance(e, Slot) and e.name in gone],
            kept=[e for e in base if not isinstance(e, Slot) and e.name not in gone],
            user=user_kept,
        )

    def verify(self) -> None:
        """Every exclusion matched in some stack (required ones were refused already)."""
        from .middleware import FilesystemMiddleware

        classes = self.classes - self.matched_classes - {FilesystemMiddleware}
        names = {n for n in self.names - self.matched_names - REQUIRED_MIDDLEWARE_NAMES if not n.startswith("_")}
        if classes or names:
            labels = sorted({c.__name__ for c in classes} | {f"{n!r} (string)" for n in names})
            raise ValueError(_UNMATCHED.format(labels=", ".join(labels)))
