"""fanotify permission events through libc (ctypes): who opened a file, asked while the
opener still waits for the answer (docs/sandbox.md "Whose reads").

inotify says that a file was opened, not by whom: a host process reading a sandbox's
workspace was recorded as the agent's read. A FAN_OPEN_PERM event holds the opening process
inside open() until the listener answers, so the process is alive and /proc/<pid> can be
asked which sandbox it belongs to. `OpenerLog` answers every event at once (always allow: it
observes, it never refuses) and keeps the (st_dev, st_ino) of each file a process of *its*
sandbox opened. It needs CAP_SYS_ADMIN (a root harness); `OpenerLog.start` returns None where
the kernel refuses, and reads are then recorded as unattributed.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import struct
import threading
from collections.abc import Callable

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p]

FAN_CLOEXEC, FAN_NONBLOCK, FAN_CLASS_CONTENT, FAN_UNLIMITED_MARKS = 0x1, 0x2, 0x4, 0x20
FAN_MARK_ADD = 0x1
FAN_MARK_DONT_FOLLOW = 0x4
FAN_MARK_MOUNT = 0x10
FAN_MARK_ONLYDIR = 0x8
FAN_OPEN_PERM, FAN_EVENT_ON_CHILD, FAN_ONDIR = 0x10000, 0x08000000, 0x40000000
MAX_OPENERS = 8   # processes kept per call for a violation's proof
FAN_ALLOW = 0x1
AT_FDCWD = -100
_META = struct.Struct("IBBHQii")   # event_len, vers, reserved, metadata_len, mask, fd, pid
_RESPONSE = struct.Struct("iI")    # fd, response


def pid_ns(pid: int | str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def descends_from(pid: int, ancestor: int | None, max_hops: int = 256) -> bool:
    """Whether `pid` is `ancestor` or one of its descendants (walking parent pids in /proc).
    The processes of a bwrap call all descend from the bwrap process the harness started:
    its pid namespace's init adopts what is orphaned inside."""
    if ancestor is None:
        return False
    for _ in range(max_hops):
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                pid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


class CallProcess:
    """The running call's process, for `is_ours(pid)`: does `pid` descend from it? The pid is
    known only once the call's process was started (run_process's `on_start`, right after
    Popen returns); an open made before that, as the call begins (an `ls` of the decoy, a quick
    `cat` of an input), waits here for it, at most START_WAIT_S. The opener is held in open()
    meanwhile, so it can do nothing else. Without this wait, such an early open was judged not
    the call's on a loaded machine: a decoy listing became a warning instead of a violation."""

    START_WAIT_S = 5.0

    def __init__(self) -> None:
        self.pid: int | None = None
        self._known = threading.Event()
        self._running = False

    def begin(self) -> None:
        self.pid = None
        self._known.clear()
        self._running = True

    def started(self, pid: int) -> None:
        self.pid = pid
        self._known.set()

    def end(self) -> None:
        self._running = False
        self.pid = None
        self._known.set()

    def is_ours(self, pid: int) -> bool:
        if self._running and self.pid is None:
            self._known.wait(self.START_WAIT_S)
        return descends_from(pid, self.pid)


def opener(pid: int, ours: bool) -> dict[str, object]:
    """Who opened: host pid, the pid as the sandbox sees it (innermost NSpid), its command line
    (read while it waits in open, so it is the real one), and whether it is the call's."""
    inside, cmdline = None, ""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("NSpid:"):
                    inside = int(line.split()[-1])
        with open(f"/proc/{pid}/cmdline", "rb") as fb:
            cmdline = fb.read(4096).replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except (OSError, ValueError, IndexError):
        pass
    return {"pid": pid, "pid_in_sandbox": inside, "cmdline": cmdline, "of_call": ours}


class OpenerLog:
    """Every file opened under the marked directories by a process `is_ours(pid)` accepts,
    as (st_dev, st_ino) -> how many times it was opened, collected since the last `take()`
    (a file the call wrote and opened again shows 2: effects.py "read back"); with
    `keep_openers`, also who opened (`opener()`, every process, the call's or not, at most
    MAX_OPENERS)."""

    def __init__(self, fd: int, is_ours: Callable[[int], bool], keep_openers: bool = False,
                 on_open: Callable[[str], None] | None = None):
        self.fd, self.is_ours, self.keep_openers = fd, is_ours, keep_openers
        # told the path (as the opener sees it) of each open of ours, before the opener goes on
        self.on_open = on_open
        self._opened: dict[tuple[int, int], int] = {}
        self._openers: dict[int, dict[str, object]] = {}
        self._lock = threading.Lock()
        self._closed = False
        self.failed: str | None = None       # why the listener stopped (its group is closed then)
        self.errors = 0                      # events answered without attribution (a /proc look-up failed)
        self.last_error = ""
        self._stop_r, self._stop_w = os.pipe()
        self._thread = threading.Thread(target=self._serve, name="amb-fanotify", daemon=True)
        try:
            self._thread.start()
        except BaseException:
            os.close(self._stop_r)
            os.close(self._stop_w)
            raise

    @classmethod
    def start(cls, is_ours: Callable[[int], bool], keep_openers: bool = False,
              on_open: Callable[[str], None] | None = None) -> OpenerLog | None:
        """A listener, or None where fanotify is refused (no CAP_SYS_ADMIN, no kernel support)."""
        # unlimited marks: one per watched directory, as many as the recorder watches (MAX_WATCHES)
        fd = _libc.fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_MARKS,
                                 os.O_RDONLY | os.O_CLOEXEC)
        if fd < 0:
            return None
        try:
            return cls(fd, is_ours, keep_openers, on_open)
        except BaseException:
            os.close(fd)   # a listener that could not start leaves no group behind
            raise

    def mark(self, directory: str, *, itself: bool = False) -> bool:
        """Opens of files directly in `directory` (and, with `itself`, of the directory: a
        listing) wait for this listener's answer."""
        mask = FAN_OPEN_PERM | FAN_EVENT_ON_CHILD | (FAN_ONDIR if itself else 0)
        # a symlink is not followed, a non-directory is refused: the inotify watch's own rules
        flags = FAN_MARK_ADD | FAN_MARK_DONT_FOLLOW | FAN_MARK_ONLYDIR
        return _libc.fanotify_mark(self.fd, flags, mask, AT_FDCWD, os.fsencode(directory)) == 0

    def mark_mount(self, path: str) -> bool:
        """Every open of a file on the mount `path` is on (a sandbox's own workspace mount,
        reached through /proc/<pid>/root) waits for this listener's answer, in folders not
        marked yet too: docs/sandbox.md "Opens held until their folder is watched"."""
        return _libc.fanotify_mark(self.fd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM, AT_FDCWD,
                                   os.fsencode(path)) == 0

    def take(self) -> dict[tuple[int, int], int]:
        with self._lock:
            out, self._opened = self._opened, {}
        return out

    def take_openers(self) -> list[dict[str, object]]:
        with self._lock:
            out, self._openers = list(self._openers.values()), {}
        return out

    def _serve(self) -> None:
        """Answer every event, whatever happens while looking at it: an opener waits in open()
        until it is answered, so a listener that stopped answering would hang every process
        opening a watched file, the agent's and the harness's alike. A failure that stops the
        listener closes the group first (the kernel then lets every waiting open through) and
        is kept in `failed`: the records say their reads are not attributed from then on."""
        try:
            while True:
                ready, _, _ = select.select([self.fd, self._stop_r], [], [])
                if self._stop_r in ready:
                    return
                try:
                    buf = os.read(self.fd, 4096 * _META.size)
                except (BlockingIOError, InterruptedError):
                    continue
                pos = 0
                while pos + _META.size <= len(buf):
                    length, _v, _r, _m, _mask, fd, pid = _META.unpack_from(buf, pos)
                    pos += length or _META.size
                    if fd >= 0:
                        self._answer(fd, pid)
        except BaseException as exc:   # noqa: BLE001 -- any failure must release the waiting openers
            self.failed = f"{type(exc).__name__}: {exc}" or type(exc).__name__
            with self._lock:
                fd, self.fd = self.fd, -1
            if fd >= 0:
                os.close(fd)

    def _answer(self, fd: int, pid: int) -> None:
        try:
            ours = self.is_ours(pid)
            if ours:
                st = os.fstat(fd)
                with self._lock:
                    ident = (st.st_dev, st.st_ino)
                    self._opened[ident] = self._opened.get(ident, 0) + 1
                if self.on_open is not None:
                    # the path as the opener sees it (its mount namespace's root is not ours)
                    self.on_open(os.readlink(f"/proc/self/fd/{fd}"))
            if self.keep_openers and pid not in self._openers and len(self._openers) < MAX_OPENERS:
                who = opener(pid, ours)
                with self._lock:
                    self._openers[pid] = who
        except Exception as exc:   # noqa: BLE001 -- this open is not attributed; the next ones still are
            self.errors += 1
            self.last_error = f"{type(exc).__name__}: {exc}"
        finally:
            try:
                os.write(self.fd, _RESPONSE.pack(fd, FAN_ALLOW))   # never refuse: observe only
            finally:
                os.close(fd)

    def close(self) -> None:
        """Stop answering; closing the fd lets the kernel allow whatever still waits."""
        if self._closed:
            return
        self._closed = True
        os.write(self._stop_w, b"x")
        self._thread.join(timeout=10)
        with self._lock:
            fd, self.fd = self.fd, -1
        for f in (self._stop_r, self._stop_w, fd):
            if f >= 0:
                os.close(f)
