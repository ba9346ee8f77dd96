"""A thread graph's plain superstep committed without LangGraph's general bookkeeping.

After a step's tasks have run, LangGraph's ``SyncPregelLoop.after_tick`` applies their writes
(``apply_writes``: tasks sorted by path, writes grouped, every channel told of the new step),
then ``_put_checkpoint`` makes the step's checkpoint and hands it to the saver; a finished
task's writes go to the saver through ``put_writes``. Each of those serves every graph: a
resume's loaded writes, ``durability="exit"``'s accumulated delta writes, ``values`` output,
breakpoints, the special channels (interrupts, errors, resumes), ``Overwrite``s of a delta
channel, untracked values in a ``Send``.

The thread graph's steps are nearly all plain: one task, writing only state channels and its
edge's. Here such a step is committed in a few lines: the same channel calls in the same
order, the same versions (from the saver's ``get_next_version``), ``versions_seen``, delta
counters and metadata (``source``, ``step``, ``parents``), the checkpoint made by LangGraph's
``create_checkpoint`` and saved by the loop's own ``_checkpointer_put_after_previous``, so
the saver gets the same calls with the same rows (``tests/test_direct_writer.py`` compares
them with LangGraph's runner's). Anything else (`plain_step` says what) is left to LangGraph.
"""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import repeat
from operator import methodcaller
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.channels.base import BaseChannel
from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.channels.delta import DeltaChannel
from langgraph.channels.ephemeral_value import EphemeralValue
from langgraph.channels.last_value import LastValue, LastValueAfterFinish
from langgraph.channels.topic import Topic
from langgraph.channels.untracked_value import UntrackedValue
from langgraph.types import Send

from deepagents_rs._langgraph_private import (
    CONF,
    CONFIG_KEY_CHECKPOINT_ID,
    CONFIG_KEY_CHECKPOINT_MAP,
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_RESUMING,
    DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT,
    LATEST_VERSION,
    MISSING,
    NO_WRITES,
    NULL_TASK_ID,
    RESERVED,
    TASKS,
    _get_overwrite,
    copy_checkpoint,
    create_checkpoint,
    ensure_message_ids,
    get_new_channel_versions,
    sanitize_untracked_values_in_send,
    task_path_str,
)

from ._checkpoint_ids import checkpoint_id

#: What LangGraph hands a channel that no task wrote this step.
_NOTHING: tuple = ()


def plain_step(loop: Any, lists: ChannelLists) -> Any:
    """The step's one task when ``loop``'s step can be committed here, else ``None``: one
    task that ran on its own triggers and wrote only the graph's channels (no special
    channel: an interrupt, an error, a resume, a ``Send`` to no node...), no ``Overwrite``
    of a delta channel; a loop saving each step (not ``durability="exit"``), with no
    loaded writes of a resume to account for, no ``interrupt_after`` and no ``values``
    stream. ``lists``: the loop's `ChannelLists`, read for its channels (`ChannelLists.of`)."""
    tasks = loop.tasks
    if (
        len(tasks) != 1
        or loop._resume_loaded_writes
        or loop._exit_delta_writes is not None
        or loop.interrupt_after
        or loop.durability == "exit"
        or loop._checkpointer_put_after_previous is None
        or loop.checkpointer_get_next_version is None
        or (loop.stream is not None and "values" in loop.stream.modes)
    ):
        return None
    (task,) = tasks.values()
    if not task.triggers:
        return None
    channels = loop.channels
    delta = lists.delta
    for chan, value in task.writes:
        if chan not in channels:
            if chan == NO_WRITES:
                continue
            return None
        # (A list, what a delta channel is written, is never an ``Overwrite``.)
        if chan in delta and type(value) is not list and _get_overwrite(value)[0]:
            return None
    return task


def commit(loop: Any, task: Any, lists: ChannelLists) -> None:
    """``loop.after_tick()`` for a step `plain_step` accepted; ``lists``: the loop's
    `ChannelLists`, read for its channels."""
    loop.updated_channels = _apply(loop, task, lists)
    loop.checkpoint_pending_writes.clear()
    loop.is_replaying = False
    _put_checkpoint(loop, lists)
    loop.config[CONF].pop(CONFIG_KEY_RESUMING, None)


def _apply(loop: Any, task: Any, lists: ChannelLists) -> set[str]:
    """The task's writes applied to the channels, the versions bumped where a channel
    changed; the channels updated (what the next step's tasks are triggered by)."""
    checkpoint = loop.checkpoint
    channels = loop.channels
    versions = checkpoint["channel_versions"]
    seen = checkpoint["versions_seen"].setdefault(task.name, {})
    for chan in task.triggers:
        if chan in versions:
            seen[chan] = versions[chan]
    version = loop.checkpointer_get_next_version(max(versions.values()) if versions else None, None)
    bumped = lists.bumped
    bumped.clear()
    for chan in set(task.triggers):
        if chan not in RESERVED and chan in channels and channels[chan].consume():
            versions[chan] = version
            bumped.add(chan)
    written: dict[str, list] = {}
    for chan, value in task.writes:
        if chan != NO_WRITES:
            written.setdefault(chan, []).append(value)
    updated: set[str] = set()
    # The channels of `ChannelLists.ticked` holding a value once this step is applied.
    live: list[str] = []
    ticked = lists.ticked_set
    for chan, values in written.items():
        channel = channels[chan]
        if channel.update(values):
            versions[chan] = version
            bumped.add(chan)
            if channel.is_available():
                updated.add(chan)
                if chan in ticked:
                    live.append(chan)
    # Every other channel is told a step passed (an ephemeral value is cleared); those whose
    # ``update(())`` does nothing are not asked (`ChannelLists.ticked`), nor those that hold
    # no value (it does nothing to them either), which after a plain commit are all but
    # those it left holding one (`ChannelLists.ticking`).
    for chan in lists.ticking(loop):
        channel = channels[chan]
        if chan not in updated and channel.is_available() and channel.update(_NOTHING):
            versions[chan] = version
            bumped.add(chan)
            if channel.is_available():
                updated.add(chan)
                live.append(chan)
    lists.live = live
    if updated.isdisjoint(loop.trigger_to_nodes):
        # Nothing triggers a node: perhaps the last step, which channels are told of (those
        # whose class has a ``finish`` of its own: `BaseChannel`'s does nothing).
        for chan in lists.finishing:
            channel = channels[chan]
            if channel.finish():
                versions[chan] = version
                bumped.add(chan)
                if channel.is_available():
                    updated.add(chan)
    lists.version = version
    return updated


#: Channel classes whose ``update`` of no values returns ``False`` and changes nothing:
#: LangGraph's own, exactly (a subclass may tick).
_STILL_WHEN_UNWRITTEN = (LastValue, LastValueAfterFinish, DeltaChannel, UntrackedValue, BinaryOperatorAggregate)


class ChannelLists:
    """One loop's channels the plain commit asks, in order, each list worked out once for
    the loop's channels (a loop given new channels is read again): kept by the loop
    (`_writer_loop`), which makes its channels once per run."""

    def __init__(self) -> None:
        self._channels: Any = None
        #: Channels a step nobody wrote them in may change (an ``EphemeralValue`` cleared, a
        #: ``Topic`` emptied...).
        self.ticked: tuple[str, ...] = ()
        self.ticked_set: frozenset[str] = frozenset()
        #: Whether every one of `ticked` is LangGraph's ``EphemeralValue`` or a
        #: non-accumulating ``Topic``: a channel that holds a value only from a write of
        #: its step (an empty update clears it), so that only those the last step wrote can
        #: hold one (`live`).
        self.ticked_cleared = False
        #: The channels of `ticked` that held a value after the last plain commit.
        self.live: list[str] = []
        #: The delta channels (the loop's ``_delta_channel_names``) and the untracked ones.
        self.delta: frozenset[str] = frozenset()
        self.untracked: frozenset[str] = frozenset()
        #: Channels whose ``finish`` is not `BaseChannel`'s no-op.
        self.finishing: tuple[str, ...] = ()
        #: Channels whose class may hold a saved value (`_NEVER_SAVED`).
        self.saved: tuple[str, ...] = ()
        #: The channels of `saved` that are LangGraph's ``EphemeralValue`` exactly: once
        #: `_apply` has run, one holds a value only if the step updated it (it is cleared
        #: otherwise), so `_checkpoint` asks no other.
        self.ephemeral: frozenset[str] = frozenset()
        #: The channels the step being committed gave a new version, and that version.
        self.bumped: set[str] = set()
        self.version: Any = None
        #: The versions the last plain commit saved, as it handed them to the loop (its
        #: ``checkpoint_previous_versions``, while no other save replaced them), and each
        #: channel's place among them.
        self.saved_versions: dict | None = None
        self._places: dict[str, int] = {}

    def new_versions(self, previous: dict, versions: dict) -> dict:
        """``get_new_channel_versions(previous, versions)`` for a step committed by `_apply`
        with no snapshot. When ``previous`` is what the last plain commit saved, nothing
        changed the versions since but this step's `_apply`, so they are the channels it
        bumped, at its version, in ``versions``' order; else LangGraph's comparison."""
        if previous is not self.saved_versions or not previous:
            return get_new_channel_versions(previous, versions)
        places = self._places
        if len(places) != len(versions):
            places = self._places = {k: i for i, k in enumerate(versions)}
        return dict.fromkeys(sorted(self.bumped, key=places.__getitem__), self.version)

    def ticking(self, loop: Any) -> tuple[str, ...] | list[str]:
        """The channels of `ticked` that may hold a value at this step's start: those the
        last commit left holding one when it was a plain commit (nothing else changed the
        channels since: the loop's versions are still those it saved) and every one of
        `ticked` clears on an empty update; else all of `ticked`."""
        if (
            self.ticked_cleared
            and self.saved_versions is not None
            and loop.checkpoint_previous_versions is self.saved_versions
        ):
            return self.live
        return self.ticked

    def of(self, loop: Any) -> ChannelLists:
        channels = loop.channels
        if self._channels is not channels:
            self._channels = channels
            kinds = [(c, type(channels[c])) for c in channels]
            self.ticked = tuple(c for c, cls in kinds if cls not in _STILL_WHEN_UNWRITTEN)
            self.ticked_set = frozenset(self.ticked)
            self.ticked_cleared = all(
                type(channels[c]) is EphemeralValue or (type(channels[c]) is Topic and not channels[c].accumulate)
                for c in self.ticked
            )
            self.live = []
            self.saved_versions = None
            self.finishing = tuple(c for c, cls in kinds if cls.finish is not BaseChannel.finish)
            self.saved = tuple(c for c, cls in kinds if cls not in _NEVER_SAVED)
            self.ephemeral = frozenset(c for c, cls in kinds if cls is EphemeralValue)
            specs = loop.specs
            self.delta = frozenset(c for c, spec in specs.items() if isinstance(spec, DeltaChannel))
            self.untracked = frozenset(c for c, spec in specs.items() if isinstance(spec, UntrackedValue))
        return self


#: Channel classes whose ``checkpoint()`` is always ``MISSING`` (LangGraph's own, exactly): a
#: delta channel's value is its writes (or a snapshot, which `create_checkpoint` makes), an
#: untracked value is never saved.
_NEVER_SAVED = (DeltaChannel, UntrackedValue)


def _checkpoint(loop: Any, previous: dict, updated: set[str], lists: ChannelLists) -> dict:
    """``create_checkpoint(previous, loop.channels, loop.step, updated_channels=updated)`` for
    a step snapshotting no delta channel (then no version is bumped and ``versions_seen`` is
    kept): each written channel's saved value, in the channels' order, asking only those whose
    class may hold one (and of the ephemeral ones, those the step updated: `ChannelLists.
    ephemeral`); a new uuid6 id for the step and the time."""
    channels = loop.channels
    versions = previous["channel_versions"]
    ephemeral = lists.ephemeral
    values = {}
    for k in lists.saved:
        if k in versions and (k in updated or k not in ephemeral) and (v := channels[k].checkpoint()) is not MISSING:
            values[k] = v
    return {
        "v": LATEST_VERSION,
        "ts": datetime.now(UTC).isoformat(),
        "id": checkpoint_id(loop.step),
        "channel_values": values,
        "channel_versions": dict(versions),
        "versions_seen": previous["versions_seen"],
        "updated_channels": sorted(updated),
    }


def _copied(checkpoint: dict) -> dict:
    """``copy_checkpoint(checkpoint)`` (the loop's, ``langgraph.pregel._checkpoint``'s) of a
    checkpoint `_checkpoint` made: the same dict, its keys in the same order, each inner
    dict copied in C."""
    seen = checkpoint["versions_seen"]
    return {
        "v": checkpoint["v"],
        "ts": checkpoint["ts"],
        "id": checkpoint["id"],
        "channel_values": checkpoint["channel_values"].copy(),
        "channel_versions": checkpoint["channel_versions"].copy(),
        "versions_seen": dict(zip(seen, map(_COPY, seen.values()), strict=True)),
        "updated_channels": checkpoint["updated_channels"],
    }


_COPY = methodcaller("copy")


def _put_checkpoint(loop: Any, lists: ChannelLists) -> None:
    """The step's checkpoint made and handed to the saver, after the previous one."""
    updated = loop.updated_channels
    channels = loop.channels
    checkpoint = loop.checkpoint
    before = loop.checkpoint_metadata.get("counters_since_delta_snapshot") or {}
    # Each delta channel's (updates, supersteps) since its last snapshot.
    counters: dict[str, tuple[int, int]] = {}
    snapshot = set(loop._delta_channels_forced_snapshot)
    for name in loop._delta_channel_names:
        u, s = before.get(name, (0, 0))
        u, s = u + (name in updated), s + 1
        counters[name] = (u, s)
        channel = channels[name]
        # (The counters first: they rarely call for a snapshot, and ask the channel nothing.)
        if (
            (u >= channel.snapshot_frequency or s >= DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT)
            and name in checkpoint["channel_versions"]
            and channel.is_available()
        ):
            snapshot.add(name)
    metadata: dict[str, Any] = {
        "source": "loop",
        "step": loop.step,
        "parents": loop.config[CONF].get(CONFIG_KEY_CHECKPOINT_MAP, {}),
    }
    loop.checkpoint_metadata = metadata
    if snapshot:
        new = create_checkpoint(
            checkpoint,
            channels,
            loop.step,
            updated_channels=updated,
            get_next_version=loop.checkpointer_get_next_version,
            channels_to_snapshot=snapshot,
            stored_versions=loop.checkpoint_previous_versions,
            trigger_to_nodes=loop.trigger_to_nodes,
        )
    else:
        new = _checkpoint(loop, checkpoint, updated, lists)
    loop.checkpoint = new
    # A snapshotted channel's counters start again at (0, 0), which the metadata leaves out
    # (as every other pair has a superstep, none is (0, 0)).
    for name in snapshot:
        counters.pop(name, None)
    loop._delta_channels_forced_snapshot.difference_update(snapshot)
    if counters:
        metadata["counters_since_delta_snapshot"] = counters
    values = new["channel_values"]
    # (An empty list of `Send`s has nothing to sanitize.)
    if TASKS in values and loop._has_untracked_channels and values[TASKS]:
        # Untracked values a `Send` carries are not saved.
        values[TASKS] = [
            sanitize_untracked_values_in_send(v, loop.channels) if isinstance(v, Send) else v for v in values[TASKS]
        ]
    config = loop.checkpoint_config
    loop.prev_checkpoint_config = config if config[CONF].get(CONFIG_KEY_CHECKPOINT_ID) else None
    config = {
        **config,
        CONF: {**config[CONF], CONFIG_KEY_CHECKPOINT_NS: loop.config[CONF].get(CONFIG_KEY_CHECKPOINT_NS, "")},
    }
    versions = new["channel_versions"].copy()
    previous = loop.checkpoint_previous_versions
    if snapshot:
        new_versions = get_new_channel_versions(previous, versions)
    else:
        new_versions = lists.new_versions(previous, versions)
    loop.checkpoint_previous_versions = lists.saved_versions = versions
    # The delta writes this checkpoint's save waits for, taken now (saves run behind).
    waits, loop._delta_write_futs = loop._delta_write_futs, []
    loop._put_checkpoint_fut = loop.plain_submit(
        loop._checkpointer_put_after_previous,
        getattr(loop, "_put_checkpoint_fut", None),
        waits,
        config,
        copy_checkpoint(new) if snapshot else _copied(new),
        metadata,
        new_versions,
    )
    loop.checkpoint_config = {**config, CONF: {**config[CONF], CONFIG_KEY_CHECKPOINT_ID: new["id"]}}
    loop.step += 1


def put_writes(loop: Any, task_id: str, writes: Any, lists: ChannelLists) -> bool:
    """``loop.put_writes(task_id, writes)`` for a task of a plain step: its writes (the
    task's own deque, where message ids are given in place, as the step then applies them)
    kept as the step's pending writes and handed to the saver (with the task's path if its
    ``put_writes`` takes one), against the step's checkpoint. ``False`` when LangGraph's
    ``put_writes`` must take them: a special channel's writes (an interrupt, an error...),
    the null task's, ``durability="exit"``. ``lists``: the loop's `ChannelLists`, read for
    its channels."""
    channels = loop.channels
    if task_id == NULL_TASK_ID or loop.durability == "exit" or loop.checkpointer_put_writes is None:
        return False
    untracked = lists.untracked
    # Whether a write reaches the saver other than as it is (an untracked channel's is
    # left out, a `Send`'s untracked values too).
    filtered = False
    for chan, _ in writes:
        if chan not in channels:
            if chan != NO_WRITES:
                return False
        elif chan in untracked or chan == TASKS:
            filtered = True
    if not writes:
        return True
    loop._written_task_ids.add(task_id)
    specs = loop.specs
    # Every message written to a delta channel has its id before it is saved or applied.
    _ensure_message_ids(specs, writes, lists.delta)
    pending = loop.checkpoint_pending_writes
    if pending:
        loop.checkpoint_pending_writes = pending = [w for w in pending if w[0] != task_id]
    saved = writes
    if loop._has_untracked_channels:
        saved = (
            [
                (chan, sanitize_untracked_values_in_send(v, channels) if chan == TASKS and isinstance(v, Send) else v)
                for chan, v in writes
                if not isinstance(specs.get(chan), UntrackedValue)
            ]
            if filtered
            else list(writes)
        )
    # ``(task_id, chan, value)`` for each write, made in C (``writes`` holds pairs).
    pending.extend(zip(repeat(task_id), *zip(*writes, strict=True), strict=False))
    task = getattr(loop, "tasks", {}).get(task_id)
    config = loop.checkpoint_config
    config = {
        **config,
        CONF: {
            **config[CONF],
            CONFIG_KEY_CHECKPOINT_NS: loop.config[CONF].get(CONFIG_KEY_CHECKPOINT_NS, ""),
            CONFIG_KEY_CHECKPOINT_ID: loop.checkpoint["id"],
        },
    }
    if loop.checkpointer_put_writes_accepts_task_path:
        fut = loop.plain_submit(
            loop.checkpointer_put_writes, config, saved, task_id, _path_str(task.path) if task else ""
        )
    else:
        fut = loop.plain_submit(loop.checkpointer_put_writes, config, saved, task_id)
    if loop._delta_write_futs is not None:
        delta = loop._delta_channel_names
        for chan, _ in saved:
            if chan in delta:
                loop._delta_write_futs.append(fut)
                break
    return True


def _ensure_message_ids(specs: Any, writes: Any, delta: frozenset[str]) -> None:
    """LangGraph's ``ensure_message_ids(specs, writes)``, which changes nothing when each
    write to a delta channel is a list of message objects that all have an id (it would
    only give an id to one whose id is ``None``): those writes are not walked again there."""
    for chan, value in writes:
        if chan in delta:
            if type(value) is not list:
                break
            for message in value:
                cls = message.__class__
                if cls not in _MESSAGE_CLASSES:
                    if not isinstance(message, BaseMessage):
                        break
                    _MESSAGE_CLASSES.add(cls)
                if message.id is None:
                    break
            else:
                continue
            break
    else:
        return
    ensure_message_ids(specs, writes)


#: The classes `_ensure_message_ids` found are message classes: pydantic's models' metaclass
#: is an ``ABCMeta``, whose ``isinstance`` is a Python call each time.
_MESSAGE_CLASSES: set[type] = set()


#: Task paths' strings (`task_path_str`), by path: a thread's tasks have a few paths.
_PATH_STRS: dict[Any, str] = {}


def _path_str(path: Any) -> str:
    try:
        return _PATH_STRS[path]
    except KeyError:
        if len(_PATH_STRS) >= 1024:
            _PATH_STRS.clear()
        out = _PATH_STRS[path] = task_path_str(path)
        return out
    except TypeError:
        # A path holding something unhashable (a functional API call's).
        return task_path_str(path)
