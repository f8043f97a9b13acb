"""bwrap holds a call's command until the harness has marked the call's workspace mount for
fanotify (docs/sandbox.md "Opens held until their folder is watched").

Each bwrap call builds a new mount namespace, so its `/workspace` is a new mount that no mark
placed earlier covers. bwrap writes the pid of its sandboxed child to `--info-fd` right after
cloning it, and the child, once its root is pivoted and its privileges dropped, waits on
`--block-fd` before it runs the command. The gate reads the pid, waits until the child's setup
is done (it waits on the block fd) with the workspace in its root, has `mark(pid)` place the mark through
`/proc/<pid>/root`, and only then lets the child go on. Whatever fails, the child is let go
(never held past `WAIT_S`) and the call runs as before, without the mark.
"""
from __future__ import annotations

import json
import os
import platform
import select
import time
from collections.abc import Callable

WAIT_S = 5.0          # longest a call waits for its sandbox to be set up and marked
POLL_S = 0.0002       # between two looks at the child's root while bwrap sets it up


def enabled() -> bool:
    """`AUTOMEDBENCH_HOLD_OPENS=0` runs calls without the gate (the recorder's thread may then
    be behind a folder the call makes: docs/sandbox.md "A thread behind")."""
    return os.environ.get("AUTOMEDBENCH_HOLD_OPENS", "1") != "0"


# the read(2) syscall's number, for /proc/<pid>/syscall (other machines: the root check alone)
_READ_NR = {"x86_64": 0, "aarch64": 63}.get(platform.machine())


def _waits_on(pid: int, fd: int) -> bool:
    """Whether `pid` is blocked in read(fd): bwrap's child waiting on its block fd, its setup
    done. False where /proc/<pid>/syscall cannot tell (not readable here, unknown machine)."""
    if _READ_NR is None:
        return False
    try:
        with open(f"/proc/{pid}/syscall", "rb") as fh:
            fields = fh.read(64).split()
    except OSError:
        return False
    return len(fields) > 1 and fields[0] == str(_READ_NR).encode() and fields[1] == f"0x{fd:x}".encode()


def _alive(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie (whose /proc root can no longer be read)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


class MountGate:
    """One call's gate: `args` go on bwrap's command line, `pass_fds` to its Popen, and
    `open(bwrap_pid)` runs as soon as bwrap started (run_process's `on_start`)."""

    def __init__(self, workspace_host: str, workspace_inside: str, mark: Callable[[int], bool]):
        self._workspace = os.stat(workspace_host)
        self._inside, self._mark = workspace_inside, mark
        self._info_r, self._info_w = os.pipe()
        self._block_r, self._block_w = os.pipe()
        self._block_fd_in_child = self._block_r   # pass_fds keeps the number
        self.marked = False

    @property
    def args(self) -> list[str]:
        return ["--info-fd", str(self._info_w), "--block-fd", str(self._block_r)]

    @property
    def pass_fds(self) -> tuple[int, int]:
        return self._info_w, self._block_r

    def open(self, bwrap_pid: int) -> None:
        """Mark the call's workspace mount, then let the call run (in every case)."""
        deadline = time.monotonic() + WAIT_S
        try:
            self._close("_info_w", "_block_r")   # the child's copies are bwrap's now
            child = self._child_pid(deadline)
            if child is not None and self._set_up(child, deadline):
                self.marked = self._mark(child)
        except Exception:   # noqa: BLE001 -- the call must run whatever the gate met: unmarked then
            self.marked = False
        finally:
            try:
                os.write(self._block_w, b"x")
            except OSError:
                pass   # bwrap is gone already: nothing waits
            self._close("_block_w", "_info_r")

    def _child_pid(self, deadline: float) -> int | None:
        """The pid bwrap reports on its info fd (a JSON object), or None when it reports none."""
        data = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self._info_r], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return None
            chunk = os.read(self._info_r, 4096)
            if not chunk:
                break
            data += chunk
            if b"}" in data:
                break
        try:
            pid = json.loads(data.decode()).get("child-pid")
        except (ValueError, UnicodeDecodeError, AttributeError):
            return None
        return pid if isinstance(pid, int) and pid > 0 else None

    def _set_up(self, child: int, deadline: float) -> bool:
        """Whether the child finished its setup with the workspace at its inside path. Done
        means waiting on the block fd (its /proc syscall line, where this harness may read it),
        else pivoted into a root other than ours; either way the workspace must be there, the
        same folder as on the host, before anything is marked."""
        ours = os.stat("/")
        root, where = f"/proc/{child}/root", f"/proc/{child}/root{self._inside}"
        while time.monotonic() < deadline:
            blocked = _waits_on(child, self._block_fd_in_child)
            try:
                top, st = os.stat(root), os.stat(where)
                if ((blocked or (top.st_dev, top.st_ino) != (ours.st_dev, ours.st_ino))
                        and (st.st_dev, st.st_ino) == (self._workspace.st_dev, self._workspace.st_ino)):
                    return True
            except FileNotFoundError:
                if not _alive(child):
                    return False   # bwrap failed before its command: nothing to mark
            except OSError:
                return False   # its root cannot be looked at
            if blocked:
                return False   # set up, and the workspace is not at its inside path: nothing to mark
            time.sleep(POLL_S)
        return False

    def _close(self, *names: str) -> None:
        for name in names:
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)

    def close(self) -> None:
        """Every fd still open (a call that never started)."""
        self._close("_info_r", "_info_w", "_block_r", "_block_w")
