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

import os
import select
import stat
import threading
import time
from collections.abc import Callable
from typing import Any

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
from .base import SandboxError
from .effects_record import (MAX_ENTRIES, _Call, _Effects, lstat_or_none, _PathState, size_or_none,
                             build_order, sha256_in)
from .fanotify import OpenerLog

# Caps (docs/sandbox.md "Observed effects"): entries per list; beyond, `truncated` is set.
MAX_TRANSIENT = 200          # files made and removed in one call that are listed (the rest: a build's)
# A written file larger than this gets `sha256: null` (its size is still recorded) ...
HASH_MAX_BYTES = 256 * 1024 * 1024
# ... and so does every file once a call's hashing has read this many bytes.
# Directories watched per sandbox (each costs the kernel ~1 KiB); beyond, `truncated`.
MAX_WATCHES = 65536
# Lost events (queue overflow): files whose mtime is at most this much before the call
# began still count as written by it (docs/sandbox.md "Observed effects").
MTIME_MARGIN_NS = 20_000_000
# Files remembered as existing (to tell "modified" from "created" after a rename-over).
MAX_KNOWN = 200_000
# Events kept in memory during one call (the kernel's default queue, fs.inotify.max_queued_events):
# beyond, the call is treated like a queue overflow (rescanned, `truncated`), so an agent that
# makes millions of events costs the harness no memory
MAX_PUMPED_EVENTS = 16384
# Longest a held open waits for the recorder's lock before it is let go unwatched (the pump
# thread holds the lock only to read the queue and watch new folders)
HOLD_LOCK_S = 2.0
# Steps of a call's `order` kept; a call with more records no order (the judge then reads the
# call as one piece: docs/judge.md "Order inside a call")

_WATCH_MASK = (IN_OPEN | IN_MODIFY | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
               | IN_ONLYDIR | IN_DONT_FOLLOW)
_WRITE = IN_CREATE | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE
_GONE = IN_DELETE | IN_MOVED_FROM

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
        self.openers: OpenerLog | None = None
        self._opened: dict[tuple[int, int], int] = {}
        self.roots = [(os.path.realpath(h), inside.rstrip("/") or "/") for h, inside in (workspace, public)]
        self.net = net
        self.inotify = Inotify()
        # is_ours(pid): whether a process belongs to this sandbox (asked while it waits in open)
        self.openers = OpenerLog.start(is_ours, on_open=self._held_open) if is_ours is not None else None
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
        # write and a read-back of them: _PathState.read_back)
        self._pump: threading.Thread | None = None
        self._pump_lock = threading.Lock()     # the pump thread and saw_output take events in turn
        self._pumped: list[tuple[int, int, int, str]] = []
        self._closed_size: dict[int, int | None] = {}    # pumped event -> size at its close-write
        # the call's output read so far (stdout, stderr bytes; run_process tells), and where each
        # pumped event came in it: which printed lines came before which file step
        self._output_seen: tuple[int, int] = (0, 0)
        self._pumped_at: list[tuple[int, int]] = []
        self._found_size: dict[str, int | None] = {}     # file found in a new folder -> its size then
        self._missed_moves: list[tuple[str, str]] = []    # (old, new): renames told by a watch, not an event
        self._pump_error: BaseException | None = None
        self._stop_r, self._stop_w = os.pipe()
        try:
            self._remember(self._watch_tree(self.roots[0][0]))
            self._watch_tree(self.roots[1][0])
        except BaseException:
            self.close()
            raise

    def _remember(self, files: list[str], st: os.stat_result | None = None) -> None:
        room = MAX_KNOWN - len(self.known)
        if room > 0:
            self.known.update(files[:room])
            if self.openers is not None:
                # each known file's identity, so that a read of a file the call then deleted is
                # still matched against the openers fanotify named (there is nothing to stat then)
                for f in files[:room]:
                    s = st if st is not None else lstat_or_none(f)
                    if s is not None:
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
        self._pumped, self._pump_error, self._closed_size = [], None, {}
        self._output_seen, self._pumped_at = (0, 0), []
        self._found_size, self._missed_moves = {}, []
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

    def _consume(self) -> _Call:
        """Read the queue: directory changes update the watches; file events are grouped
        per path."""
        call = _Call()
        moved_from: dict[int, str] = {}
        late = list(self.inotify.read())
        events, self._pumped = self._pumped + late, []
        at = self._pumped_at + [self._output_seen] * len(late)
        sizes, self._closed_size, self._pumped_at = self._closed_size, {}, []
        if self._pump_error is not None:
            call.overflow, self._pump_error = True, None
        for i, (wd, mask, cookie, name) in enumerate(events):
            if mask & IN_Q_OVERFLOW:
                call.overflow = True
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
            if mask & IN_ISDIR:
                if mask & (IN_CREATE | IN_MOVED_TO):
                    call.order.append(("d", path))   # where files made before its watch go
                    call.output_at.append(at[i] if i < len(at) else self._output_seen)
                if mask & IN_CREATE:
                    call.new_dirs.append(path)
                elif mask & IN_MOVED_FROM:
                    moved_from[cookie] = path
                elif mask & IN_MOVED_TO:
                    old = moved_from.pop(cookie, None)
                    if old is not None:
                        self._moved_dir(old, path)
                        call.gone_dirs.append(old)
                        call.moved_dirs.append((old, path))
                    call.new_dirs.append(path)
                elif mask & IN_DELETE:
                    call.gone_dirs.append(path)
                continue
            self._file_event(call, path, mask, sizes.get(i), at[i] if i < len(at) else self._output_seen)
        self._take_missed_moves(call)
        # a directory moved away out of the roots: its paths are gone, its watches too
        for old in moved_from.values():
            call.gone_dirs.append(old)
            self._unwatch_under(old)
        return call

    def _take_missed_moves(self, call: _Call) -> None:
        """The renames the watches told (a MOVED_TO unseen, or read after the watch moved)."""
        for move in self._missed_moves:
            if move not in call.moved_dirs:
                call.moved_dirs.append(move)
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

    def _file_event(self, call: _Call, path: str, mask: int, size: int | None = None,
                    output: tuple[int, int] = (0, 0)) -> None:
        state = call.paths.get(path)
        if state is None:
            # a file the recorder did not know existed was made by this call, even when its
            # creation came before its folder's watch (the pump's race)
            state = call.paths[path] = _PathState(existed_before=not mask & (IN_CREATE | IN_MOVED_TO)
                                                  and path in self.known)
        op = ""
        if mask & _WRITE:
            op = "w"
        elif mask & IN_CLOSE_NOWRITE:
            # a public input is never written: an unknown one is simply read
            made_here = not state.existed_before and not path.startswith(self.roots[1][0] + os.sep)
            op = "b" if state.mask & _WRITE or made_here else "r"
            if state.mask & _WRITE or not state.existed_before:
                state.read_back = True
        if op and op != state.last_op:
            state.last_op = op
            call.order.append((op, path))
            call.output_at.append(output)
            state.last_step = len(call.order) - 1
        if size is not None and op == "w":
            call.sizes[state.last_step] = size      # the latest close of this write
            state.last_size = size
        state.mask |= mask

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
        call = self._consume()
        if call.overflow:
            # events were lost while idle: re-walk the workspace so that every directory
            # is watched and the known files are true again
            self.known.clear()
            self._remember(self._watch_tree(self.roots[0][0]))
        for d in call.new_dirs:
            self._remember(self._watch_tree(d))
        self._forget_gone(call.gone_dirs)
        for path, state in call.paths.items():
            if state.mask & (_WRITE | _GONE):
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
        """The call's effects (call after the sandboxed processes have exited)."""
        self._stop_pump()
        call = self._consume()
        # every open of the call has been answered (the opener waited for it), so this is whole
        self._opened = self.openers.take() if self.openers is not None else {}
        self._add_new_dir_files(call)
        self._take_missed_moves(call)   # the walk of a new folder may find one more
        if call.overflow:
            # events were lost: fall back to what the tree shows (written = changed since the
            # call began; deleted = known files that no longer exist); reads are unknown
            self._rescan(call)
        fx = _Effects(truncated=self.incomplete or call.overflow)
        gone = self._forget_gone(call.gone_dirs)
        for path, state in call.paths.items():
            inside = self._inside(path)
            if inside is not None:
                self._record(fx, path, inside, state)
        for path, size in self._found_size.items():
            # made before its new folder's watch (no event of its own), and gone by the end
            if path not in call.paths and path not in self.known and not os.path.lexists(path):
                inside = self._inside(path)
                if inside is not None:
                    self._record_transient(fx, inside, size)
        self._record_gone_dirs(fx, gone)
        fx.order = None if call.overflow or fx.truncated else build_order(call, fx, self._inside, self._host,
                                                                           self._found_size)
        # a listener that stopped (fanotify.py: its group closed, the waiting opens let through)
        # attributes nothing more: from then on the reads are any process's, and say so
        attributed = self.openers is not None and self.openers.failed is None
        # held only while the listener answered: one that stopped let the waiting opens through
        held = self.opens_held and attributed and not self._hold_missed
        return fx.as_dict(self._net_delta(), self.reads_shared, attributed, held)

    def _add_new_dir_files(self, call: _Call) -> None:
        """A directory created (or moved in) during the call had no watch yet: everything in
        it now was put there by this call."""
        for d in call.new_dirs:
            for f in self._watch_tree(d):
                state = call.paths.get(f)
                if state is None:
                    call.paths[f] = _PathState(existed_before=f in self.known, mask=IN_CREATE, unseen=True)
                elif not state.mask & _WRITE and f not in self.known:
                    # made before its folder's watch, then read (its read was seen, its write not)
                    state.mask |= IN_CREATE
                    state.unseen = True

    def _record(self, fx: _Effects, path: str, inside: str, state: _PathState) -> None:
        """One path's events: a write is recorded by _record_write (and nothing else is); a
        path deleted or moved away and absent now is deleted; an opened one is read."""
        st = lstat_or_none(path)
        if state.mask & _WRITE:
            self._record_write(fx, path, inside, state, st)
            return
        ident = (st.st_dev, st.st_ino) if st is not None else self.identity.get(path)
        if state.mask & _GONE and st is None:
            if (path not in self.known and len(self.known) < MAX_KNOWN and not state.mask & IN_MOVED_FROM
                    and (path in self._found_size or not state.existed_before)):
                # not there when the call began (every file then is known, below the cap), gone
                # now: made (its creation unseen, before its folder's watch) and removed by the call
                self._record_transient(fx, inside, self._found_size.get(path))
            else:
                fx.deleted.append(inside)
            self.known.discard(path)
            self.identity.pop(path, None)
        if state.mask & IN_OPEN and (self.openers is None or self.openers.failed is not None
                                     or (ident is not None and ident in self._opened)):
            fx.read.append(inside)

    def _record_write(self, fx: _Effects, path: str, inside: str, state: _PathState,
                      st: os.stat_result | None) -> None:
        """A written path that is a regular file now is written — "modified" when it existed
        before the call, else "created" — with its size and, within the hashing caps, its
        sha256; beyond MAX_ENTRIES it is remembered, not listed. A written path that is gone
        now and existed before is deleted (a symlink or directory written is not listed)."""
        if st is not None and stat.S_ISREG(st.st_mode):
            op = "modified" if state.existed_before or path in self.known else "created"
            if len(fx.written) >= MAX_ENTRIES:
                fx.truncated = True
            else:
                digest = None
                if st.st_size <= HASH_MAX_BYTES and st.st_size <= fx.hash_budget:
                    digest = sha256_in(path, self.roots[0][0])
                    fx.hash_budget -= st.st_size
                fx.written.append({"path": inside, "op": op, "size": st.st_size, "sha256": digest})
            # read back: a read-only open after the write, and (with attribution) the sandbox's
            # processes opened this file at least twice, the write's open and the read's (once
            # when its creation came before its folder was watched: that open was not seen)
            # (with the opens held every open of the call was counted, the write's too)
            opens = 2 if ((state.mask & IN_CREATE or self.opens_held) and not state.unseen) or state.existed_before else 1
            if state.unseen and not state.existed_before and st.st_atime_ns > st.st_mtime_ns:
                state.read_back, opens = True, 0
            if state.read_back and (self.openers is None or self.openers.failed is not None
                                    or self._opened.get((st.st_dev, st.st_ino), 0) >= opens):
                fx.read_back.append(inside)
            self._remember([path], st)
        elif st is None and (state.existed_before or path in self.known):
            fx.deleted.append(inside)
            self.known.discard(path)
        elif (st is None and (state.mask & (IN_CREATE | IN_MOVED_TO) or path in self._found_size)
              and not state.mask & IN_MOVED_FROM):
            # made by this call and removed before it ended (a pilot in a folder the script then
            # cleaned): it was written, though nothing of it is left to hash. Found by the walk
            # of a folder the call made (its creation came before the folder's watch) counts
            # as made: every file there was new
            self._record_transient(fx, inside, state.last_size)

    def _record_transient(self, fx: _Effects, inside: str, size: int | None) -> None:
        """A file the call made and removed: listed (op "transient"), unless it is a tool's
        (a dot-folder, __pycache__) or the call already listed MAX_TRANSIENT of them: an
        installer's or a build's temporary files are not the agent's work, and never crowd
        out its real writes (no truncation for them)."""
        parts = inside.split("/")
        if any(part.startswith(".") or part == "__pycache__" for part in parts[:-1]):
            return
        if fx.transient < MAX_TRANSIENT and len(fx.written) < MAX_ENTRIES:
            fx.transient += 1
            fx.written.append({"path": inside, "op": "transient", "size": size or 0, "sha256": None})

    def _record_gone_dirs(self, fx: _Effects, gone: list[str]) -> None:
        """Known files under a directory that went away are deleted, each listed once."""
        listed = set(fx.deleted)
        for f in gone:
            inside = self._inside(f)
            if inside is not None and inside not in listed:
                fx.deleted.append(inside)
                listed.add(inside)

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

    def _rescan(self, call: _Call) -> None:
        for host in (self.roots[0][0],):   # the public data is read-only
            for dirpath, dirnames, filenames in os.walk(host):
                for d in dirnames:
                    self._watch(os.path.join(dirpath, d))
                for f in filenames:
                    p = os.path.join(dirpath, f)
                    st = lstat_or_none(p)
                    if st is not None and st.st_mtime_ns >= self._started_ns and p not in call.paths:
                        call.paths[p] = _PathState(existed_before=p in self.known, mask=IN_MODIFY)
        for p in list(self.known):
            if p not in call.paths and not os.path.lexists(p):
                call.paths[p] = _PathState(existed_before=True, mask=IN_DELETE)

    def _host(self, inside: str) -> str | None:
        """The host path of an inside path of the roots."""
        for host, root in self.roots:
            if root == "/":
                return host + inside
            if inside == root or inside.startswith(root + "/"):
                return host + inside[len(root):]
        return None

    def _inside(self, host_path: str) -> str | None:
        for host, inside in self.roots:
            if host_path == host:
                return inside
            if host_path.startswith(host + os.sep):
                rel = host_path[len(host) + 1:]
                return f"{inside}/{rel}" if inside != "/" else f"/{rel}"
        return None

    def close(self) -> None:
        self._stop_pump()
        if self.openers is not None:
            self.openers.close()
        self.inotify.close()
        for fd in (self._stop_r, self._stop_w):
            if fd >= 0:
                os.close(fd)
        self._stop_r = self._stop_w = -1

