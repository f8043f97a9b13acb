"""The records one call's effects are built from (effects.py): what the call did to each path,
its events in order, the lists of the record, and the record's `order` (docs/sandbox.md
"Observed effects", "Order inside a call"); and the host-side file reads the recorder makes
(a written file's hash, a size, an lstat that may find nothing)."""
from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

RECORDER = "inotify"
MAX_ENTRIES = 2000           # each list of the record
HASH_BUDGET_BYTES = 1024 * 1024 * 1024   # bytes hashed per call
MAX_ORDER = 4000             # steps kept in `order`


@dataclass
class _PathState:
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
class _Call:
    paths: dict[str, _PathState] = field(default_factory=dict)   # insertion order = first seen
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


@dataclass
class _Effects:
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



def build_order(call: _Call, fx: _Effects, inside_of: Callable[[str], str | None],
                host_of: Callable[[str], str | None], found_size: dict[str, int | None]) -> list[dict[str, Any]] | None:
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


def _folders_made(call: _Call) -> dict[str, int]:
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


def netdev_counters(pid: int, iface: str) -> tuple[int, int] | None:
    """(rx bytes, tx bytes) of `iface` in the network namespace of `pid`, from
    /proc/<pid>/net/dev, or None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/net/dev") as fh:
            for line in fh:
                name, _, rest = line.partition(":")
                if name.strip() == iface:
                    cols = rest.split()
                    return int(cols[0]), int(cols[8])
    except (OSError, ValueError, IndexError):
        return None
    return None


def sha256_in(path: str, workspace: str) -> str | None:
    """Content hash of a written file, opened without following a symlink; a path whose
    directories lead outside the host `workspace` (a symlinked parent) is not hashed."""
    if not os.path.realpath(path).startswith(workspace + os.sep):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def size_or_none(folder: str | None, name: str) -> int | None:
    """The size of `name` in `folder` now, or None (no folder, or the file is gone)."""
    if folder is None:
        return None
    try:
        return os.stat(os.path.join(folder, name)).st_size
    except OSError:
        return None


def lstat_or_none(path: str) -> os.stat_result | None:
    """`os.lstat(path)`, or None where nothing is there (or it cannot be read)."""
    try:
        return os.lstat(path)
    except OSError:
        return None
