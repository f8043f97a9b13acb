"""What one execution did to the files the agent can see, observed from the host.

An `EffectsRecorder` watches (inotify, inotify.py) every directory of the host directories
behind the sandbox's workspace and public-data mounts. The watches are placed once, when
the sandbox opens; directories that appear later get theirs as the recorder meets them.
Around each call the backend calls `begin()` (what happened before belongs to nobody: the
harness's own reads, a previous call's stragglers) and `end()`, which turns the call's
events into the record documented in docs/sandbox.md ("Observed effects"):

    {"written": [{"path", "op": created|modified|transient, "size", "sha256"}], "deleted": [...],
     "read": [...], "read_back": [...], "net": {"bytes_in", "bytes_out"} | None, "truncated": bool,
     "reads_attributed": bool, "opens_held": bool, "recorder": "inotify"}

`read` holds only files a process of the sandbox opened: with `is_ours` (a root harness)
every watched directory is also marked for fanotify open-permission events (fanotify.py),
which name the opener while it waits, and a read inotify saw counts only if a sandbox process
opened that file during the call. Without fanotify the reads are every opener's and the
record says `reads_attributed: false` (docs/sandbox.md "Whose reads").

Paths are inside paths (what the agent sees). Nothing here reads anything the sandboxed
code produced except the written files' bytes, which are hashed on the host after the
call has ended, so the record cannot be forged from inside.
"""
from __future__ import annotations

import hashlib
import os
import select
import stat
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack, closing
from typing import Any

from ..base import SandboxError
from .fanotify import OpenerLog
from .inotify import (
    IN_CLOSE_NOWRITE,
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_DELETE,
    IN_DONT_FOLLOW,
    IN_IGNORED,
    IN_ISDIR,
    IN_MODIFY,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_ONLYDIR,
    IN_OPEN,
    IN_Q_OVERFLOW,
    Inotify,
    WatchLimit,
)
from .record import (
    GONE,
    MAX_KNOWN,
    WRITE,
    Accumulator,
    After,
    Changed,
    DirGone,
    DirMade,
    DirMoved,
    FileEvent,
    Found,
    Missing,
    MovedUnseen,
    Overflow,
    Roots,
    Stat,
    build_record,
)

# Caps (docs/sandbox.md "Observed effects"; the record's own caps are record.py's).
# Directories watched per sandbox (each costs the kernel ~1 KiB); beyond, `truncated`.
MAX_WATCHES = 65536
# Lost events (queue overflow): files whose mtime is at most this much before the call
# began still count as written by it (docs/sandbox.md "Observed effects").
MTIME_MARGIN_NS = 20_000_000
# Files remembered as existing (to tell "modified" from "created" after a rename-over).
# Events kept in memory during one call (the kernel's default queue, fs.inotify.max_queued_events):
# beyond, the call is treated like a queue overflow (rescanned, `truncated`), so an agent that
# makes millions of events costs the harness no memory
MAX_PUMPED_EVENTS = 16384
# Longest a held open waits for the recorder's lock before it is let go unwatched (the pump
# thread holds the lock only to read the queue and watch new folders)
HOLD_LOCK_S = 2.0

_WATCH_MASK = (IN_OPEN | IN_MODIFY | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
               | IN_ONLYDIR | IN_DONT_FOLLOW)

NetCounter = Callable[[], "tuple[int, int] | None"]


def observe(recorder: EffectsRecorder | None, result: Any) -> None:
    """Put the call's effects on `result` (an ExecResult); a recorder that fails leaves
    `effects` None with a warning saying why, never a failed call."""
    if recorder is None:
        return
    try:
        result.effects = recorder.end()
    except (OSError, SandboxError) as exc:
        result.effects = None
        result.warnings.append({"kind": "effects_unavailable", "message": f"effects not recorded: {exc}"})


class EffectsRecorder:
    """Host-side observer of one sandbox's file effects. `workspace` and `public` are
    (host dir, inside path) pairs; `net` returns the sandbox interface's (rx, tx) byte
    counters, or is None when the network is off."""

    def __init__(self, workspace: tuple[str, str], public: tuple[str, str], net: NetCounter | None = None,
                 *, reads_shared: bool = False, is_ours: Callable[[int], bool] | None = None):
        # reads_shared: the public directory is not this sandbox's own copy (inputs.py)
        self.reads_shared = reads_shared
        self.roots = [(os.path.realpath(h), inside.rstrip("/") or "/") for h, inside in (workspace, public)]
        self._roots = Roots(tuple(self.roots))
        self.net = net
        self._opened: dict[tuple[int, int], int] = {}
        # the backend had the sandbox's workspace mount marked for this call (hold_opens): every
        # open there waited for the listener, which watched the opened file's folder first
        self.opens_held = False
        self._hold_lasts = False    # the mark outlives one call (docker: one mount per container)
        self._calling = False       # between _start_pump and _stop_pump (the held opens' hook acts)
        self._hold_missed = False   # a held open of this call went on before its folder was watched
        self.wds: dict[int, str] = {}
        self.watched: dict[str, int] = {}
        self.incomplete = False   # some directory could not be watched: every record says truncated
        # files of the workspace known to exist (to tell "modified" from "created")
        self.known: set[str] = set()
        self.identity: dict[str, tuple[int, int]] = {}   # known file -> (st_dev, st_ino), with attribution
        self._net_start: tuple[int, int] | None = None
        self._started_ns = 0
        # during a call a thread watches each new directory as soon as it appears, so that the
        # files a call writes into a folder it just made have their events too (the order of a
        # write and a read-back of them: PathState.read_back)
        self._pump: threading.Thread | None = None
        self._pump_lock = threading.Lock()     # the pump thread and saw_output take events in turn
        self._clear_call()
        self._resources: ExitStack | None = None
        with ExitStack() as opening:   # a step that fails releases the ones before it
            self.inotify = opening.enter_context(closing(Inotify()))
            # is_ours(pid): whether a process belongs to this sandbox (asked while it waits in open)
            self.openers = OpenerLog.start(is_ours, on_open=self._held_open) if is_ours is not None else None
            if self.openers is not None:
                opening.callback(self.openers.close)
            self._stop_r, self._stop_w = os.pipe()
            opening.callback(self._close_pipe)
            self._remember(self._watch_tree(self.roots[0][0]))
            self._watch_tree(self.roots[1][0])
            self._resources = opening.pop_all()

    def _clear_call(self) -> None:
        """What the pump thread gathers during one call, emptied before the next."""
        self._pumped: list[tuple[int, int, int, str]] = []
        self._closed_size: dict[int, int | None] = {}    # pumped event -> size at its close-write
        # the call's output read so far (stdout, stderr bytes; run_process tells), and where each
        # pumped event came in it: which printed lines came before which file step
        self._output_seen: tuple[int, int] = (0, 0)
        self._pumped_at: list[tuple[int, int]] = []
        self._found_size: dict[str, int | None] = {}     # file found in a new folder -> its size then
        self._missed_moves: list[tuple[str, str]] = []    # (old, new): renames told by a watch, not an event
        self._pump_error: BaseException | None = None

    def _close_pipe(self) -> None:
        for fd in (self._stop_r, self._stop_w):
            if fd >= 0:
                os.close(fd)
        self._stop_r = self._stop_w = -1

    def _remember(self, files: list[str], st: Stat | None = None) -> None:
        room = MAX_KNOWN - len(self.known)
        if room > 0:
            self.known.update(files[:room])
            if self.openers is not None:
                # each known file's identity, so that a read of a file the call then deleted is
                # still matched against the openers fanotify named (there is nothing to stat then)
                for f in files[:room]:
                    if st is not None:
                        self.identity[f] = st.ident
                    elif (s := lstat_or_none(f)) is not None:
                        self.identity[f] = (s.st_dev, s.st_ino)

    # -- watches -----------------------------------------------------------------------
    def _watch(self, path: str) -> bool:
        if path in self.watched:
            return True
        if len(self.wds) >= MAX_WATCHES:
            self.incomplete = True
            return False
        # the opener mark first: a folder renamed between the two calls then misses its first
        # inotify events (what a folder made before its watch misses: its files are found by
        # the walk) rather than its opens, which no walk can find again
        if self.openers is not None and not self.openers.mark(path):
            st = lstat_or_none(path)
            if st is not None and stat.S_ISDIR(st.st_mode):
                self.incomplete = True   # there, yet unmarked: reads in it would go unrecorded
            return False                 # gone (renamed or removed): watched under its new name
        try:
            wd = self.inotify.add_watch(path, _WATCH_MASK)
        except WatchLimit:
            self.incomplete = True
            return False
        if wd is None:
            return False
        old = self.wds.get(wd)
        if old is not None and old != path:
            # the same directory under a new name: a rename whose MOVED_TO came before the new
            # parent's watch (the thread was late), or not yet read. The call moved it
            self._moved_dir(old, path)
            self._missed_moves.append((old, path))
        self.wds[wd] = path
        self.watched[path] = wd
        return True

    def _watch_tree(self, top: str) -> list[str]:
        """Watch `top` and every directory below it; returns the regular files found."""
        files: list[str] = []
        if not self._watch(top):
            return files
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()   # a stable, readable order for what the walk reports
            for d in dirnames:
                self._watch(os.path.join(dirpath, d))
            for f in sorted(filenames):
                files.append(os.path.join(dirpath, f))
        return files

    def _moved_dir(self, old: str, new: str) -> None:
        """Keep the watch paths right after a directory was renamed inside the roots, and the
        files found in it when it was first watched under their new paths."""
        prefix = old + os.sep
        for wd, path in list(self.wds.items()):
            if path == old or path.startswith(prefix):
                moved = new + path[len(old):]
                self.wds[wd] = moved
                self.watched.pop(path, None)
                self.watched[moved] = wd
        for found in [f for f in self._found_size if f.startswith(prefix)]:
            self._found_size[new + found[len(old):]] = self._found_size.pop(found)

    def hold_opens(self, pid: int, *, lasting: bool = False) -> bool:
        """Mark the workspace mount as process `pid` (inside the sandbox) sees it: from now on
        each open there by the sandbox waits until the recorder watches the file's folder
        (docs/sandbox.md "Opens held until their folder is watched"). False where it cannot be
        (no fanotify: a non-root harness), and the call is recorded as before."""
        held = self.openers is not None and self.openers.mark_mount(f"/proc/{pid}/root{self.roots[0][1]}")
        self.opens_held, self._hold_lasts = held, held and lasting
        return held

    def _held_open(self, inside: str) -> None:
        """An open of ours, held by fanotify until this returns: a folder not yet watched (made
        by the call, the pump thread behind) is watched now, before the opener goes on, so what
        the call then does in it has its events. The pump's own watch of it later changes nothing."""
        folder = self._host(inside)
        workspace = self.roots[0][0]
        if folder is None or not folder.startswith(workspace + os.sep):
            return
        folder = os.path.dirname(folder)
        if folder in self.watched:
            return   # the usual case, without taking the lock
        if not self._pump_lock.acquire(timeout=HOLD_LOCK_S):
            self._hold_missed = True   # the pump held it that long: this open went on unwatched
            return
        try:
            if not self._calling:
                return
            top = folder   # the outermost folder not watched yet: its parent's watch saw it made
            while os.path.dirname(top) not in self.watched and top != workspace:
                top = os.path.dirname(top)
            if top == workspace:
                self._hold_missed = True   # the workspace lost its own watch
                return
            for f in self._watch_tree(top):
                self._found_size[f] = size_or_none(os.path.dirname(f), os.path.basename(f))
        except Exception:   # noqa: BLE001 -- the open is answered all the same; the record says so
            self._hold_missed = True
        finally:
            self._pump_lock.release()

    # -- one call ----------------------------------------------------------------------
    def _start_pump(self) -> None:
        self._stop_pump()
        self._clear_call()
        self._pump = threading.Thread(target=self._run_pump, name="amb-effects", daemon=True)
        self._pump.start()
        self._calling = True

    def _stop_pump(self) -> None:
        with self._pump_lock:
            self._calling = False   # after this no held open touches the watches
        if self._pump is None or self._stop_w < 0:
            return
        os.write(self._stop_w, b"x")
        self._pump.join(timeout=10)
        os.read(self._stop_r, 4096)
        self._pump = None

    def _run_pump(self) -> None:
        """Keep the call's events (in order) and watch each directory created or moved in as
        soon as its event arrives, with the directories below it (made before the watch)."""
        try:
            # ahead of the sandboxed code in the CPU queue where allowed (root): every moment
            # between a folder's creation and its watch is a write that has no event of its own
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), -5)
        except (OSError, AttributeError):
            pass   # not permitted (a non-root harness): the thread keeps the process's priority
        try:
            while True:
                ready, _, _ = select.select([self.inotify.fd, self._stop_r], [], [])
                with self._pump_lock:
                    self._take_events()
                if self._stop_r in ready:
                    return
        except BaseException as exc:   # noqa: BLE001 -- end() reads what is left and says truncated
            self._pump_error = exc

    def _take_events(self) -> None:
        """Read every queued event (holding _pump_lock), each tagged with the output read so far."""
        for ev in self.inotify.read():
            if len(self._pumped) >= MAX_PUMPED_EVENTS:
                self._pumped[-1] = (-1, IN_Q_OVERFLOW, 0, "")   # lost: rescan at the end
                continue
            self._pumped.append(ev)
            self._pumped_at.append(self._output_seen)
            wd, mask, _cookie, name = ev
            if mask & IN_CLOSE_WRITE and not mask & IN_ISDIR:
                # the size a file had when this write closed (the order's cohort rows)
                self._closed_size[len(self._pumped) - 1] = size_or_none(self.wds.get(wd), name)
            if mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO) and not mask & IN_Q_OVERFLOW:
                base = self.wds.get(wd)
                if base is not None:
                    # files already in it were made before its watch: their size now is the
                    # size of that unseen write (the order's cohort rows)
                    for f in self._watch_tree(os.path.join(base, name)):
                        self._found_size[f] = size_or_none(os.path.dirname(f), os.path.basename(f))

    def _consume(self) -> Accumulator:
        """Read the queue: directory changes update the watches; every event, resolved to its
        path, is folded into the call (record.py)."""
        acc = Accumulator(self.known, self.roots[1][0])
        moved_from: dict[int, str] = {}
        late = list(self.inotify.read())
        events, self._pumped = self._pumped + late, []
        at = self._pumped_at + [self._output_seen] * len(late)
        sizes, self._closed_size, self._pumped_at = self._closed_size, {}, []
        if self._pump_error is not None:
            acc.add(Overflow())
            self._pump_error = None
        for i, (wd, mask, cookie, name) in enumerate(events):
            if mask & IN_Q_OVERFLOW:
                acc.add(Overflow())
                continue
            base = self.wds.get(wd)
            if base is None:
                continue
            if mask & IN_IGNORED:           # the directory is gone
                self.wds.pop(wd, None)
                if self.watched.get(base) == wd:
                    self.watched.pop(base, None)
                continue
            path = os.path.join(base, name) if name else base
            if not mask & IN_ISDIR:
                acc.add(FileEvent(path, mask, sizes.get(i), at[i]))
            elif mask & IN_CREATE:
                acc.add(DirMade(path, at[i]))
            elif mask & IN_MOVED_FROM:
                moved_from[cookie] = path
            elif mask & IN_MOVED_TO:
                old = moved_from.pop(cookie, None)
                if old is not None:
                    self._moved_dir(old, path)
                acc.add(DirMoved(old, path, at[i]))
            elif mask & IN_DELETE:
                acc.add(DirGone(path))
        self._take_missed_moves(acc)
        # a directory moved away out of the roots: its paths are gone, its watches too
        for old in moved_from.values():
            acc.add(DirGone(old))
            self._unwatch_under(old)
        return acc

    def _take_missed_moves(self, acc: Accumulator) -> None:
        """The renames the watches told (a MOVED_TO unseen, or read after the watch moved)."""
        for old, new in self._missed_moves:
            acc.add(MovedUnseen(old, new))
        self._missed_moves = []

    def saw_output(self, stdout_bytes: int, stderr_bytes: int) -> None:
        """The call's output read so far (called by run_process as each chunk arrives). The file
        events already queued happened before the process wrote this chunk (a syscall queues its
        event before it returns), so they are taken first, with the count before it: the pump
        thread may wake later than this one (docs/sandbox.md "Order inside a call")."""
        if self._pump is not None:
            with self._pump_lock:
                try:
                    self._take_events()
                except Exception as exc:   # noqa: BLE001 -- as in the pump: end() says truncated
                    self._pump_error = exc
                self._output_seen = (stdout_bytes, stderr_bytes)
        else:
            self._output_seen = (stdout_bytes, stderr_bytes)

    def _unwatch_under(self, top: str) -> None:
        prefix = top + os.sep
        for wd, path in list(self.wds.items()):
            if path == top or path.startswith(prefix):
                self.inotify.rm_watch(wd)
                self.wds.pop(wd, None)
                self.watched.pop(path, None)

    def begin(self) -> None:
        """Start of a call: forget every event so far (the harness's own reads, writes
        between calls) but keep the watches in step with the directories."""
        self._stop_pump()
        call = self._consume().call
        if call.overflow:
            # events were lost while idle: re-walk the workspace so that every directory
            # is watched and the known files are true again
            self.known.clear()
            self._remember(self._watch_tree(self.roots[0][0]))
        for d in call.new_dirs:
            self._remember(self._watch_tree(d))
        self._forget_gone(call.gone_dirs)
        for path, state in call.paths.items():
            if state.mask & (WRITE | GONE):
                if os.path.lexists(path):
                    self._remember([path])
                else:
                    self.known.discard(path)
        # file times come from the kernel's coarse clock (up to a tick behind): the margin
        # keeps a file written at the very start of the call "since the call began"
        self._started_ns = time.time_ns() - MTIME_MARGIN_NS
        self._net_start = self.net() if self.net else None
        if self.openers is not None:
            self.openers.take()   # opens before the call are nobody's
        if not self._hold_lasts:
            self.opens_held = False   # a bwrap call's mount is its own: hold_opens marks it anew
        self._hold_missed = False
        self._start_pump()

    def _forget_gone(self, dirs: list[str]) -> list[str]:
        """Known files under directories that went away; forgotten, and returned."""
        if not dirs or not self.known:
            return []
        prefixes = tuple(d + os.sep for d in dirs)
        gone = [k for k in self.known if k.startswith(prefixes) and not os.path.lexists(k)]
        self.known.difference_update(gone)
        return gone

    def end(self) -> dict[str, Any]:
        """The call's effects (call after the sandboxed processes have exited): the events
        folded into the call, what the disk shows now read as values, the record built from
        both (record.build_record)."""
        self._stop_pump()
        acc = self._consume()
        # every open of the call has been answered (the opener waited for it), so this is whole
        self._opened = self.openers.take() if self.openers is not None else {}
        for d in acc.call.new_dirs:
            # made (or moved in) during the call with no watch yet: what is in it now is the call's
            for f in self._watch_tree(d):
                acc.add(Found(f))
        self._take_missed_moves(acc)   # the walk of a new folder may find one more
        call = acc.call
        if call.overflow:
            # events were lost: fall back to what the tree shows (written = changed since the
            # call began; deleted = known files that no longer exist); reads are unknown
            self._rescan(acc)
        gone = self._forget_gone(call.gone_dirs)
        paths = [*call.paths, *(p for p in self._found_size if p not in call.paths)]
        stats = {p: Stat.of(s) if (s := lstat_or_none(p)) is not None else None for p in paths}
        # a listener that stopped (fanotify.py: its group closed, the waiting opens let through)
        # attributes nothing more: from then on the reads are any process's, and say so
        attributed = self.openers is not None and self.openers.failed is None
        after = After(known=self.known, stats=stats, found_size=self._found_size, gone=gone,
                      identity=self.identity, opened=self._opened if attributed else None,
                      opens_held=self.opens_held, incomplete=self.incomplete)
        out = build_record(call, after, self._roots)
        for slot, path in zip(out.hash_slots, out.hash_wanted, strict=True):
            # hashed on the host, after the call: the record cannot be forged inside
            out.effects.written[slot]["sha256"] = sha256_in(path, self.roots[0][0])
        for path, change in out.known_changes:
            if change is None:
                self.known.discard(path)
                self.identity.pop(path, None)
            else:
                self._remember([path], change)
        # held only while the listener answered: one that stopped let the waiting opens through
        held = self.opens_held and attributed and not self._hold_missed
        return out.effects.as_dict(self._net_delta(), self.reads_shared, attributed, held)

    def _net_delta(self) -> dict[str, int] | None:
        """Bytes in and out of the sandbox's network namespace during the call (never
        negative); None without a counter or when a reading failed."""
        if self.net is None:
            return None
        after = self.net()
        if after is None or self._net_start is None:
            return None
        return {"bytes_in": max(0, after[0] - self._net_start[0]),
                "bytes_out": max(0, after[1] - self._net_start[1])}

    def _rescan(self, acc: Accumulator) -> None:
        """Events were lost: every folder of the workspace watched again, and the files changed
        since the call began and the known files gone told to the accumulator."""
        for dirpath, dirnames, filenames in os.walk(self.roots[0][0]):   # the public data is read-only
            for d in dirnames:
                self._watch(os.path.join(dirpath, d))
            for f in filenames:
                p = os.path.join(dirpath, f)
                st = lstat_or_none(p)
                if st is not None and st.st_mtime_ns >= self._started_ns:
                    acc.add(Changed(p))
        for p in list(self.known):
            if not os.path.lexists(p):
                acc.add(Missing(p))

    def _host(self, inside: str) -> str | None:
        """The host path of an inside path of the roots."""
        return self._roots.host(inside)

    def _inside(self, host_path: str) -> str | None:
        return self._roots.inside(host_path)

    def close(self) -> None:
        self._stop_pump()
        resources, self._resources = self._resources, None
        if resources is not None:
            resources.close()   # the pipe, the opener listener, the inotify instance


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
