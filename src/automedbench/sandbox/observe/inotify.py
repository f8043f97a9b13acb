"""inotify through libc (ctypes, no extra dependency): the one mechanism behind the decoy
watcher (decoy.py) and the effects recorder (effects.py).

The kernel queues an event synchronously with the syscall that caused it, so once a
sandboxed process has exited, every event it caused is already readable: reading the
queue after a call attributes events to that call exactly (docs/sandbox.md).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct
from collections.abc import Iterator

from ..base import SandboxError

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)

IN_ACCESS = 0x1
IN_MODIFY = 0x2
IN_CLOSE_WRITE = 0x8
IN_CLOSE_NOWRITE = 0x10
IN_OPEN = 0x20
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
_EVENT = struct.Struct("iIII")


class WatchLimit(SandboxError):
    """inotify_add_watch refused for lack of watches (fs.inotify.max_user_watches)."""


class Inotify:
    """One non-blocking inotify instance."""

    def __init__(self) -> None:
        self.fd = _libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self.fd < 0:
            err = ctypes.get_errno()
            hint = (" (each sandbox uses two inotify instances; raise fs.inotify.max_user_instances "
                    "to open more sandboxes at once)") if err == errno.EMFILE else ""
            raise SandboxError(f"inotify_init1 failed: {os.strerror(err)}{hint}")

    def add_watch(self, path: str, mask: int) -> int | None:
        """The watch descriptor, or None when the path vanished or is not a directory
        (with IN_ONLYDIR) -- both ordinary races with the sandboxed code."""
        wd = _libc.inotify_add_watch(self.fd, os.fsencode(path), mask)
        if wd >= 0:
            return int(wd)
        err = ctypes.get_errno()
        if err in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EACCES):
            return None
        if err == errno.ENOSPC:
            raise WatchLimit(f"inotify watch limit reached at {path}")
        raise SandboxError(f"inotify_add_watch({path}) failed: {os.strerror(err)}")

    def rm_watch(self, wd: int) -> None:
        _libc.inotify_rm_watch(self.fd, wd)

    def read(self) -> Iterator[tuple[int, int, int, str]]:
        """(wd, mask, cookie, name) of every queued event, in order, until the queue is empty."""
        while True:
            try:
                buf = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno == errno.EAGAIN:
                    return
                raise
            if not buf:
                return
            pos = 0
            while pos < len(buf):
                wd, mask, cookie, length = _EVENT.unpack_from(buf, pos)
                name = os.fsdecode(buf[pos + _EVENT.size: pos + _EVENT.size + length].rstrip(b"\0"))
                pos += _EVENT.size + length
                yield wd, mask, cookie, name

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
