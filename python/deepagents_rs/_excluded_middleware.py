"""A harness profile's `excluded_middleware`, applied to the stacks the profile shapes.

deepagents filters a stack twice: its own entries (the built-in slots, the profile's
middleware), then again once the caller's middleware is merged in by name, so an excluded
entry goes whichever layer added it. Every exclusion must match in some stack: the main agent
and the general-purpose subagent share one check, each declarative subagent has its own.

Most entries of a stack live in the core; here they are `Slot`s, named as the core names
them and carrying the class an exclusion by class must name to drop them (deepagents_rs'
class of that name once its module is loaded; a private stand-in before, when no caller can
have named it).
"""

from __future__ import annotations

import logging
import sys
import weakref
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


_LAZY_CACHING = _private("_LazyAnthropicPromptCachingMiddleware")

# The classes of the core's own entries that deepagents_rs has as LangChain middleware, by
# the module holding each; a stand-in until that module is loaded (a caller naming the class
# has loaded it, and a stack needs no LangChain before).
_LOADED_KINDS = {
    "_ParentNotifierMiddleware": "deepagents_rs.middleware._async_parent_notifier",
    "PatchToolCallsMiddleware": "deepagents_rs.middleware.patch_tool_calls",
    "SubAgentMiddleware": "deepagents_rs.middleware._subagent_middleware",
}
_STAND_INS = {name: _private(name) for name in _LOADED_KINDS}


def _loaded_kind(name: str) -> type:
    """The class named `name` when its module is loaded, else its private stand-in."""
    kind = getattr(sys.modules.get(_LOADED_KINDS[name]), name, None)
    return kind if isinstance(kind, type) else _STAND_INS[name]


def _loaded_slot(name: str) -> Slot:
    return Slot(name, _loaded_kind(name))


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


# The other providers' caching middleware made for a stack (stand-ins for LangChain's, run by
# the core as Python entries): `plan` hands them back apart, for their place after Anthropic's.
_PROVIDER_CACHING: weakref.WeakSet[Any] = weakref.WeakSet()


def _caching_slots() -> list[Any]:
    """deepagents' `append_prompt_caching_middleware`: Anthropic's slot, then Bedrock's and
    Fireworks' middleware where `langchain-aws` / `langchain-fireworks` are installed."""
    try:
        from .middleware._prompt_caching import provider_caching_middleware
    except ImportError:
        # Without LangChain (deepagents_rs runs without it) neither middleware can exist.
        return [_caching()]
    made = provider_caching_middleware()
    _PROVIDER_CACHING.update(made)
    return [_caching(), *made]


#: Methods whose override on an instance would make it do more than the class does.
_CACHING_METHODS = frozenset({"wrap_model_call", "awrap_model_call", "_should_apply_caching"})


def class_name(cls: type) -> str:
    """A class's qualified name, as `ModelAdapter.model_classes` lists a model's classes."""
    return f"{cls.__module__}.{cls.__qualname__}"


def _own_methods(kind: type, methods: Iterable[str]) -> bool:
    """Whether `kind`'s `methods` are its own, not replaced since it was defined."""
    for method in methods:
        fn = getattr(kind, method, None)
        if getattr(fn, "__qualname__", None) != f"{kind.__qualname__}.{method}" or fn.__module__ != kind.__module__:
            return False
    return True


def acts_only_on(middleware: Any) -> list[str] | None:
    """The model classes a stack's own provider caching middleware acts on, by name: with
    ``unsupported_model_behavior="ignore"`` (what the stack makes) their ``wrap_model_call``
    and ``awrap_model_call`` only call the handler for any other model, so the core calls
    the model without handing it the request. ``None`` for every other middleware (a
    caller's own, an instance with its own methods, a stand-in whose real class had its
    methods replaced)."""
    if middleware not in _PROVIDER_CACHING:
        return None
    kind = type(middleware)
    if _CACHING_METHODS & vars(middleware).keys() or not _own_methods(kind, ("wrap_model_call", "awrap_model_call")):
        return None
    real = middleware.real_class()
    if real is not None and not _own_methods(real, _CACHING_METHODS):
        return None
    return list(middleware.targets)


def main_slots(
    *, subagents: bool, extra: list[Any], skills: bool, memory: bool, interrupts: Any, async_subagents: Any = None
) -> list[Any]:
    """The main stack's entries, before the caller's middleware is merged in
    (``async_subagents``: the ``AsyncSubAgentMiddleware``, when there are async subagents)."""
    out: list[Any] = [_slot("FilesystemMiddleware")]
    if subagents:
        out.append(_loaded_slot("SubAgentMiddleware"))
    out += [
        _loaded_slot("_ParentNotifierMiddleware"),
        _slot("SummarizationMiddleware"),
        _loaded_slot("PatchToolCallsMiddleware"),
    ]
    if async_subagents is not None:
        out.append(async_subagents)
    out += extra
    if skills:
        out.append(_slot("SkillsMiddleware"))
    out += _caching_slots()
    if memory:
        out.append(_slot("MemoryMiddleware"))
    if interrupts is not None:
        out.append(interrupts)
    return [*out, _slot("UnsupportedContentMiddleware")]


def subagent_slots(*, extra: list[Any], skills: bool, memory: bool = False) -> list[Any]:
    """A declarative subagent's entries (the general-purpose one's too), before its middleware
    is merged in; its human-in-the-loop and content filter come after the exclusions."""
    out: list[Any] = [
        _slot("FilesystemMiddleware"),
        _slot("SummarizationMiddleware"),
        _loaded_slot("PatchToolCallsMiddleware"),
        *extra,
    ]
    if skills:
        out.append(_slot("SkillsMiddleware"))
    out += _caching_slots()
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
    """A stack after the exclusions: the built-in slots to leave out (by name), the
    middleware objects (the profile's, the caller's) kept, and the provider caching
    middleware kept (placed after Anthropic's slot)."""

    excluded: list[str]
    kept: list[Any]
    user: list[Any]
    caching: list[Any]


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

        # deepagents' scaffolding classes: the file tools' and the `task` tool's.
        required = {FilesystemMiddleware, _loaded_kind("SubAgentMiddleware")}
        labels = [c.__name__ for c in self.classes if c in required]
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
        kept = [e for e in base if not isinstance(e, Slot) and e.name not in gone]
        return Planned(
            excluded=[e.name for e in [*dropped, *base] if isinstance(e, Slot) and e.name in gone],
            kept=[e for e in kept if e not in _PROVIDER_CACHING],
            user=user_kept,
            caching=[e for e in kept if e in _PROVIDER_CACHING],
        )

    def verify(self) -> None:
        """Every exclusion matched in some stack (required ones were refused already)."""
        from .middleware import FilesystemMiddleware

        classes = self.classes - self.matched_classes - {FilesystemMiddleware, _loaded_kind("SubAgentMiddleware")}
        names = {n for n in self.names - self.matched_names - REQUIRED_MIDDLEWARE_NAMES if not n.startswith("_")}
        if classes or names:
            labels = sorted({c.__name__ for c in classes} | {f"{n!r} (string)" for n in names})
            raise ValueError(_UNMATCHED.format(labels=", ".join(labels)))
