"""The pure half of the effects recorder: from one call's events, in order, to its record
(docs/sandbox.md "Observed effects", "Order inside a call"). Nothing here reads the disk or
the kernel: the watcher (effects.py) reads inotify's queue, walks new folders, stats and hashes
files, and hands this module what it found as values. So every sequence of events a late
thread, a rename chain or a lost queue can leave is checked here from a list
(tests/sandbox/test_effects_accumulator.py), not only when the machine happens to produce it.

The steps: `Accumulator.add` folds each event into a `Call` (what the call did to each path,
its steps in order, the folders it made, moved and removed); `build_record` turns the `Call`
and an `After` (each path's stat once the call ended, the digests asked for, the files the
watcher knew before, the openers fanotify named) into the `Effects` lists and the changes to
the known files the watcher then applies.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from .inotify import (
    IN_CLOSE_NOWRITE,
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_DELETE,
    IN_MODIFY,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_OPEN,
)

RECORDER = "inotify"
MAX_ENTRIES = 2000           # each list of the record
HASH_BUDGET_BYTES = 1024 * 1024 * 1024   # bytes hashed per call
# A written file larger than this gets `sha256: null` (its size is still recorded); so does
# every file once a call's hashing has read HASH_BUDGET_BYTES
HASH_MAX_BYTES = 256 * 1024 * 1024
MAX_ORDER = 4000             # steps kept in `order`
MAX_TRANSIENT = 200          # files made and removed in one call that are listed (the rest: a build's)
# Files remembered as existing (to tell "modified" from "created" after a rename-over).
MAX_KNOWN = 200_000

WRITE = IN_CREATE | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE
GONE = IN_DELETE | IN_MOVED_FROM


# -- the events ---------------------------------------------------------------------------
# Host paths. `out` is the call's output read (stdout, stderr bytes) when the event was taken.

@dataclass(frozen=True)
class FileEvent:
    """An inotify event on a file: `mask` its IN_* bits; `size` the file's size when a write
    of it closed (IN_CLOSE_WRITE), where the watcher could read it."""

    path: str
    mask: int
    size: int | None = None
    out: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class DirMade:
    """A folder created in a watched folder."""

    path: str
    out: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class DirMoved:
    """A folder moved to `new` inside the roots; `old` its name before (None: it came from
    outside the roots)."""

    old: str | None
    new: str
    out: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class DirGone:
    """A folder removed, or moved out of the roots."""

    path: str


@dataclass(frozen=True)
class MovedUnseen:
    """A folder rename the watcher learnt from a watch (the same folder met under a new
    name), not from an event."""

    old: str
    new: str


@dataclass(frozen=True)
class Found:
    """A file found, once the call ended, in a folder the call made or moved in: its folder had
    no watch when it was made, so it may have no event of its own."""

    path: str


@dataclass(frozen=True)
class Changed:
    """Events were lost (the queue overflowed): a file the rescan found changed since the
    call began."""

    path: str


@dataclass(frozen=True)
class Missing:
    """Events were lost: a file known before the call that the rescan no longer finds."""

    path: str


@dataclass(frozen=True)
class Overflow:
    """Events were lost (the kernel's queue overflowed, or the watcher's thread failed)."""


Event = FileEvent | DirMade | DirMoved | DirGone | MovedUnseen | Found | Changed | Missing | Overflow


# -- what one call did --------------------------------------------------------------------

@dataclass
class PathState:
    """What one call did to one file (host path)."""

    existed_before: bool          # its first event was not a creation
    mask: int = 0                 # union of its events' masks
    # closed after a read-only open that came after a write: the call read back what it wrote
    # (the order inside one call; docs/sandbox.md "Observed effects")
    read_back: bool = False
    # no event of it was seen (made in a folder before the folder's watch): its read-back is
    # told by its access time after its modification time (relatime: the first read after a
    # write updates atime), docs/sandbox.md "Observed effects"
    unseen: bool = False
    last_op: str = ""             # the last step of `order` recorded for it (w, r or b)
    last_step: int = -1           # its position in `order`
    last_size: int | None = None  # its size when a write of it last closed


@dataclass
class Call:
    paths: dict[str, PathState] = field(default_factory=dict)   # insertion order = first seen
    # the call's file steps in the order they happened: ("w", path) a write, ("r", path) a read
    # (a read-only open closed), ("b", path) a read of a file the call had written (read back);
    # a path's step is listed again only when its kind changes; ("d", dir) a folder made or
    # moved in, kept only to place files made before its watch (docs/sandbox.md "Order")
    order: list[tuple[str, str]] = field(default_factory=list)
    sizes: dict[int, int] = field(default_factory=dict)   # a write step -> its size when it closed
    output_at: list[tuple[int, int]] = field(default_factory=list)   # each step: output bytes read by then
    new_dirs: list[str] = field(default_factory=list)
    gone_dirs: list[str] = field(default_factory=list)
    moved_dirs: list[tuple[str, str]] = field(default_factory=list)   # (old, new): renamed in the call
    overflow: bool = False


class Accumulator:
    """Folds one call's events, in order, into a `Call`. `known`: the files known to exist
    before the call (host paths; read, never changed here); `public_host`: the host folder of
    the public data, which is never written (an unknown file there is simply read)."""

    def __init__(self, known: AbstractSet[str], public_host: str):
        self.call = Call()
        self.known = known
        self._public = public_host.rstrip("/") + os.sep

    def add_all(self, events: Iterable[Event]) -> Accumulator:
        for ev in events:
            self.add(ev)
        return self

    def add(self, ev: Event) -> None:
        call = self.call
        match ev:
            case FileEvent():
                self._file_event(ev)
            case DirMade(path=path, out=out):
                self._step("d", path, out)   # where files made before its watch go
                call.new_dirs.append(path)
            case DirMoved(old=old, new=new, out=out):
                self._step("d", new, out)
                if old is not None:
                    call.gone_dirs.append(old)
                    call.moved_dirs.append((old, new))
                call.new_dirs.append(new)
            case DirGone(path=path):
                call.gone_dirs.append(path)
            case MovedUnseen(old=old, new=new):
                if (old, new) not in call.moved_dirs:
                    call.moved_dirs.append((old, new))
            case Found(path=path):
                self._found(path)
            case Changed(path=path):
                if path not in call.paths:
                    call.paths[path] = PathState(existed_before=path in self.known, mask=IN_MODIFY)
            case Missing(path=path):
                if path not in call.paths:
                    call.paths[path] = PathState(existed_before=True, mask=IN_DELETE)
            case Overflow():
                call.overflow = True

    def _found(self, path: str) -> None:
        """In a folder that had no watch yet: everything in it was put there by this call."""
        state = self.call.paths.get(path)
        if state is None:
            self.call.paths[path] = PathState(existed_before=path in self.known, mask=IN_CREATE, unseen=True)
        elif not state.mask & WRITE and (path not in self.known or state.mask & GONE):
            # made before its folder's watch, then read (its read was seen, its write not); or a
            # known file whose folder the call removed and made again: written again
            state.mask |= IN_CREATE
            state.unseen = True

    def _step(self, op: str, path: str, out: tuple[int, int]) -> None:
        self.call.order.append((op, path))
        self.call.output_at.append(out)

    def _file_event(self, ev: FileEvent) -> None:
        call, path, mask = self.call, ev.path, ev.mask
        state = call.paths.get(path)
        if state is None:
            # a file the watcher did not know existed was made by this call, even when its
            # creation came before its folder's watch (the watcher thread's race)
            state = call.paths[path] = PathState(existed_before=not mask & (IN_CREATE | IN_MOVED_TO)
                                                 and path in self.known)
        op = ""
        if mask & WRITE:
            op = "w"
        elif mask & IN_CLOSE_NOWRITE:
            # a public input is never written: an unknown one is simply read
            made_here = not state.existed_before and not path.startswith(self._public)
            op = "b" if state.mask & WRITE or made_here else "r"
            if state.mask & WRITE or not state.existed_before:
                state.read_back = True
        if op and op != state.last_op:
            state.last_op = op
            self._step(op, path, ev.out)
            state.last_step = len(call.order) - 1
        if ev.size is not None and op == "w":
            call.sizes[state.last_step] = ev.size      # the latest close of this write
            state.last_size = ev.size
        state.mask |= mask


def fold(events: Iterable[Event], known: AbstractSet[str], public_host: str) -> Call:
    """The `Call` a list of events makes."""
    return Accumulator(known, public_host).add_all(events).call


# -- from a call to its record ------------------------------------------------------------

@dataclass(frozen=True)
class Stat:
    """What the record needs of a path's lstat once the call ended."""

    dev: int
    ino: int
    size: int
    regular: bool = True
    atime_ns: int = 0
    mtime_ns: int = 0

    @classmethod
    def of(cls, st: os.stat_result) -> Stat:
        return cls(st.st_dev, st.st_ino, st.st_size, stat.S_ISREG(st.st_mode), st.st_atime_ns, st.st_mtime_ns)

    @property
    def ident(self) -> tuple[int, int]:
        return self.dev, self.ino


@dataclass(frozen=True)
class Roots:
    """The (host folder, inside path) pairs the record speaks of: the workspace, then the
    public data."""

    pairs: tuple[tuple[str, str], ...]

    def inside(self, host_path: str) -> str | None:
        for host, inside in self.pairs:
            if host_path == host:
                return inside
            if host_path.startswith(host + os.sep):
                rel = host_path[len(host) + 1:]
                return f"{inside}/{rel}" if inside != "/" else f"/{rel}"
        return None

    def host(self, inside: str) -> str | None:
        for host, root in self.pairs:
            if root == "/":
                return host + inside
            if inside == root or inside.startswith(root + "/"):
                return host + inside[len(root):]
        return None


@dataclass(frozen=True)
class After:
    """What the watcher found once the call ended, as values."""

    known: AbstractSet[str]                 # files known to exist before (gone folders' files forgotten)
    stats: Mapping[str, Stat | None]        # each path of the call and each found file: now (None: absent)
    digests: Mapping[str, str | None] = field(default_factory=dict)   # sha256 of files asked for
    found_size: Mapping[str, int | None] = field(default_factory=dict)   # file found in a new folder -> size then
    gone: Sequence[str] = ()                # known files under folders that went away
    identity: Mapping[str, tuple[int, int]] = field(default_factory=dict)   # known file -> (dev, ino)
    # (dev, ino) -> opens by the sandbox's processes (fanotify); None: reads are not attributed
    opened: Mapping[tuple[int, int], int] | None = None
    opens_held: bool = False                # every open of the call waited for the watcher
    incomplete: bool = False                # some folder had no watch: the record is truncated


@dataclass
class Effects:
    """The lists one call's effects are built into, and the hashing budget left to it."""

    written: list[dict[str, Any]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    read_back: list[str] = field(default_factory=list)
    order: list[dict[str, Any]] | None = None
    truncated: bool = False
    hash_budget: int = HASH_BUDGET_BYTES
    transient: int = 0            # files listed as made and removed by the call

    def as_dict(self, net: dict[str, int] | None, reads_shared: bool, attributed: bool,
                opens_held: bool = False) -> dict[str, Any]:
        """The record, each list cut at MAX_ENTRIES (and `truncated` set when one was)."""
        lists = (self.written, self.deleted, self.read, self.read_back)
        truncated = self.truncated or any(len(x) > MAX_ENTRIES for x in lists)
        return {"written": self.written[:MAX_ENTRIES], "deleted": self.deleted[:MAX_ENTRIES],
                "read": self.read[:MAX_ENTRIES], "read_back": self.read_back[:MAX_ENTRIES],
                "order": self.order, "net": net, "truncated": truncated, "reads_shared": reads_shared,
                "reads_attributed": attributed, "opens_held": opens_held, "recorder": RECORDER}


@dataclass
class Outcome:
    """The record's lists; the files within the hashing caps (`hash_wanted`) and where each
    is in `effects.written` (`hash_slots`): the watcher hashes them and puts each digest in its
    slot; and the known files' changes, in order: a Stat remembers, None forgets."""

    effects: Effects
    hash_wanted: list[str]
    known_changes: list[tuple[str, Stat | None]]
    hash_slots: list[int] = field(default_factory=list)


class _Known:
    """The known files as building the record changes them, over the watcher's set (unchanged)."""

    def __init__(self, before: AbstractSet[str]):
        self.before = before
        self.size = len(before)
        self.changes: dict[str, Stat | None] = {}

    def __contains__(self, path: str) -> bool:
        if path in self.changes:
            return self.changes[path] is not None
        return path in self.before

    def remember(self, path: str, st: Stat) -> None:
        if self.size >= MAX_KNOWN:
            return
        if path not in self:
            self.size += 1
        self.changes[path] = st

    def forget(self, path: str) -> None:
        if path in self:
            self.size -= 1
        self.changes[path] = None


class _Builder:
    def __init__(self, call: Call, after: After, roots: Roots):
        self.call, self.after, self.roots = call, after, roots
        self.known = _Known(after.known)
        self.fx = Effects(truncated=after.incomplete or call.overflow)
        self.hash_wanted: list[str] = []
        self.hash_slots: list[int] = []

    def reads_count(self, ident: tuple[int, int] | None, at_least: int = 1) -> bool:
        opened = self.after.opened
        return opened is None or (ident is not None and opened.get(ident, 0) >= at_least)

    def build(self) -> Outcome:
        call, after, fx = self.call, self.after, self.fx
        for path, state in call.paths.items():
            inside = self.roots.inside(path)
            if inside is not None:
                self.record(path, inside, state, after.stats.get(path))
        for path, size in after.found_size.items():
            # made before its new folder's watch (no event of its own), and gone by the end
            if path not in call.paths and path not in after.known and after.stats.get(path) is None:
                inside = self.roots.inside(path)
                if inside is not None:
                    self.transient(inside, size)
        self.gone_dirs(after.gone)
        fx.order = None if call.overflow or fx.truncated else build_order(call, fx, self.roots.inside,
                                                                           self.roots.host, after.found_size)
        return Outcome(fx, self.hash_wanted, list(self.known.changes.items()), self.hash_slots)

    def record(self, path: str, inside: str, state: PathState, st: Stat | None) -> None:
        """One path's events: a write is recorded by write() (and nothing else is); a path
        deleted or moved away and absent now is deleted; an opened one is read."""
        fx, known = self.fx, self.known
        if state.mask & WRITE:
            self.write(path, inside, state, st)
            return
        ident = st.ident if st is not None else self.after.identity.get(path)
        if state.mask & GONE and st is None:
            if (path not in known and known.size < MAX_KNOWN and not state.mask & IN_MOVED_FROM
                    and (path in self.after.found_size or not state.existed_before)):
                # not there when the call began (every file then is known, below the cap), gone
                # now: made (its creation unseen, before its folder's watch) and removed by the call
                self.transient(inside, self.after.found_size.get(path))
            else:
                fx.deleted.append(inside)
            known.forget(path)
        if state.mask & IN_OPEN and self.reads_count(ident):
            fx.read.append(inside)

    def write(self, path: str, inside: str, state: PathState, st: Stat | None) -> None:
        """A written path that is a regular file now is written — "modified" when it existed
        before the call, else "created" — with its size and, within the hashing caps, its
        sha256; beyond MAX_ENTRIES it is remembered, not listed. A written path that is gone
        now and existed before is deleted (a symlink or directory written is not listed)."""
        fx, known = self.fx, self.known
        if st is not None and st.regular:
            op = "modified" if state.existed_before or path in known else "created"
            if len(fx.written) >= MAX_ENTRIES:
                fx.truncated = True
            else:
                digest = None
                if st.size <= HASH_MAX_BYTES and st.size <= fx.hash_budget:
                    self.hash_wanted.append(path)
                    self.hash_slots.append(len(fx.written))
                    digest = self.after.digests.get(path)
                    fx.hash_budget -= st.size
                fx.written.append({"path": inside, "op": op, "size": st.size, "sha256": digest})
            # read back: a read-only open after the write, and (with attribution) the sandbox's
            # processes opened this file at least twice, the write's open and the read's (once
            # when its creation came before its folder was watched: that open was not seen)
            # (with the opens held every open of the call was counted, the write's too)
            opens = 2 if (((state.mask & IN_CREATE or self.after.opens_held) and not state.unseen)
                          or state.existed_before) else 1
            read_back = state.read_back
            if state.unseen and not state.existed_before and st.atime_ns > st.mtime_ns:
                read_back, opens = True, 0
            if read_back and self.reads_count(st.ident, opens):
                fx.read_back.append(inside)
            known.remember(path, st)
        elif st is None and (state.existed_before or path in known):
            fx.deleted.append(inside)
            known.forget(path)
        elif (st is None and (state.mask & (IN_CREATE | IN_MOVED_TO) or path in self.after.found_size)
              and not state.mask & IN_MOVED_FROM):
            # made by this call and removed before it ended (a pilot in a folder the script then
            # cleaned): it was written, though nothing of it is left to hash. Found by the walk
            # of a folder the call made (its creation came before the folder's watch) counts
            # as made: every file there was new
            self.transient(inside, state.last_size)

    def transient(self, inside: str, size: int | None) -> None:
        """A file the call made and removed: listed (op "transient"), unless it is a tool's
        (a dot-folder, __pycache__) or the call already listed MAX_TRANSIENT of them: an
        installer's or a build's temporary files are not the agent's work, and never crowd
        out its real writes (no truncation for them)."""
        fx = self.fx
        parts = inside.split("/")
        if any(part.startswith(".") or part == "__pycache__" for part in parts[:-1]):
            return
        if fx.transient < MAX_TRANSIENT and len(fx.written) < MAX_ENTRIES:
            fx.transient += 1
            fx.written.append({"path": inside, "op": "transient", "size": size or 0, "sha256": None})

    def gone_dirs(self, gone: Sequence[str]) -> None:
        """Known files under a directory that went away are deleted, each listed once."""
        listed = set(self.fx.deleted)
        for f in gone:
            inside = self.roots.inside(f)
            if inside is not None and inside not in listed:
                self.fx.deleted.append(inside)
                listed.add(inside)


def build_record(call: Call, after: After, roots: Roots) -> Outcome:
    """The record's lists for `call`, given what the watcher found once it ended. A written
    file's sha256 is `after.digests`'s (None where it has none): the outcome's `hash_wanted`
    names the files within the hashing caps and `hash_slots` their entries, for the watcher
    to hash and fill in."""
    return _Builder(call, after, roots).build()


def build_order(call: Call, fx: Effects, inside_of: Callable[[str], str | None],
                host_of: Callable[[str], str | None],
                found_size: Mapping[str, int | None]) -> list[dict[str, Any]] | None:
    """The call's steps as the record keeps them: inside paths, each step only for a file its
    list holds (a read only when `read` has it: attributed). A file written before its new
    folder was watched has no event: its write (and its read-back, told by its access time)
    is placed where the folder was made, the last moment it can have happened after
    (docs/sandbox.md "Order inside a call"). None when a written file cannot be placed so,
    or beyond MAX_ORDER steps."""
    listed = {"w": {w["path"] for w in fx.written}, "r": set(fx.read), "b": set(fx.read_back)}
    first_op: dict[str, str] = {}
    for op, path in call.order:
        if op != "d" and (inside := inside_of(path)) is not None:
            first_op.setdefault(inside, op)
    # written files whose write no event shows first (made before their folder's watch)
    unplaced = {inside: host for inside in listed["w"] if first_op.get(inside) != "w"
                and (host := host_of(inside)) is not None}
    # each goes to where the deepest folder made during the call that holds it was first made
    made = _folders_made(call)
    at: dict[int, list[str]] = {}
    for inside, host in unplaced.items():
        if (pos := _made_at(made, os.path.dirname(host))) is not None:
            at.setdefault(pos, []).append(inside)
    order: list[dict[str, Any]] = []
    for pos, (op, path) in enumerate(call.order):
        if op == "d":
            out, err = call.output_at[pos]
            for inside in sorted(at.pop(pos, [])):
                size = found_size.get(unplaced.pop(inside))
                order.append({"op": "w", "path": inside, "out": out, "err": err}
                             | ({} if size is None else {"size": size}))
                if inside in listed["b"] and inside not in first_op:   # its read-back, told by its atime
                    order.append({"op": "b", "path": inside, "out": out, "err": err})
            continue
        inside = inside_of(path)
        if inside is not None and inside in listed[op]:
            out, err = call.output_at[pos]
            step: dict[str, Any] = {"op": op, "path": inside, "out": out, "err": err}
            if pos in call.sizes:
                step["size"] = call.sizes[pos]
            order.append(step)
    return order if not unplaced and len(order) <= MAX_ORDER else None


def _folders_made(call: Call) -> dict[str, int]:
    """Each folder made (or moved in) during the call -> the first step where it was made. A
    folder made as staging/case_000 and then renamed outputs/case_000 was made when
    staging/case_000 was: its files were written there, before the rename."""
    made: dict[str, int] = {}
    for pos, (op, path) in enumerate(call.order):
        if op == "d":
            made.setdefault(path, pos)
    for old, new in call.moved_dirs:
        # the first name may have no step of its own: found by the walk of a parent folder made
        # before its watch (the recorder's thread was late), it was made after that parent
        first = _made_at(made, old)
        if first is not None:
            made[new] = min(made.get(new, first), first)
        for path, pos in list(made.items()):
            if path.startswith(old + os.sep):
                alias = new + path[len(old):]
                made[alias] = min(made.get(alias, pos), pos)
    return made


def _made_at(made: dict[str, int], folder: str) -> int | None:
    """The step of the deepest folder made during the call that holds (or is) `folder`."""
    while folder not in made and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return made.get(folder)
