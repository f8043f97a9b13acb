"""The privileged, ctypes-level part of the bwrap backend -- the riskiest code, kept apart
so it can be reviewed on its own.

bwrap maps the sandbox uid 1000 onto whoever runs bwrap. If that is host root, the kernel
exempts the sandbox from RLIMIT_NPROC (fork bombs go unchecked) and every file it writes
is root's. So when the harness runs as root we drop to an unprivileged host uid
(`AUTOMEDBENCH_SANDBOX_UID`, default 64000) before exec'ing bwrap. That uid cannot
traverse e.g. /root/.cache, so the child first enters a private mount namespace in which
the sources (public data, workspace, runtime, extra binds) are bind-mounted onto a
world-traversable staging directory; bwrap then binds from there. Nothing is ever mounted
in the host's namespace.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import os
import resource
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from .inside import SANDBOX_UID

HOST_UID = int(os.environ.get("AUTOMEDBENCH_SANDBOX_UID", "64000"))
# Each sandbox runs as a host uid of its own, leased from HOST_UID .. HOST_UID + UID_SLOTS - 1:
# RLIMIT_NPROC counts every process of a uid machine-wide, so sandboxes sharing one uid shared
# one fork budget, and one agent's fork bomb made every other sandbox on the machine (other
# runs of a sweep) fail to start (`bwrap: Creating new namespace failed: Resource temporarily
# unavailable`). docs/sandbox.md, "Privileges and the workspace owner".
UID_SLOTS = int(os.environ.get("AUTOMEDBENCH_SANDBOX_UID_SLOTS", "512"))
UID_LEASES = Path(os.environ.get("AUTOMEDBENCH_SANDBOX_UID_LEASES", "/run/automedbench-sandbox-uids"))

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWUSER = 0x00020000, 0x40000000, 0x10000000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
PR_SET_PDEATHSIG = 1

_PROBE_LOCK = threading.Lock()
_DROP_OK: bool | None = None


def unshare(flags: int, what: str) -> None:
    if _libc.unshare(flags) != 0:
        raise OSError(ctypes.get_errno(), f"unshare({what})")


def setns(fd: int, nstype: int, what: str) -> None:
    if _libc.setns(fd, nstype) != 0:
        raise OSError(ctypes.get_errno(), f"setns({what})")


def own_userns_and_netns(uid: int, gid: int) -> None:
    """In a forked child of a NON-root harness: a new user namespace in which the harness
    user is root (uid/gid map of one id), owning a new network namespace."""
    unshare(CLONE_NEWUSER | CLONE_NEWNET, "CLONE_NEWUSER|CLONE_NEWNET")
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def die_with_parent() -> None:
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def private_mount_ns_with(binds: list[tuple[bytes, bytes]], tmpfs: tuple[bytes, ...] = ()) -> None:
    """In a forked child: enter a new, private mount namespace and bind-mount `binds` there
    (never in the host's namespace); mount an empty tmpfs on each of `tmpfs` (a folder only
    this namespace can reach: the decoy's, docs/sandbox.md "Whose decoy accesses")."""
    unshare(CLONE_NEWNS, "CLONE_NEWNS")
    if _libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    for src, dst in binds:
        if _libc.mount(src, dst, None, MS_BIND | MS_REC, None) != 0:
            raise OSError(ctypes.get_errno(), f"bind {src!r} -> {dst!r}")
    for dst in tmpfs:
        if _libc.mount(b"tmpfs", dst, b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, b"mode=0755,size=16m") != 0:
            raise OSError(ctypes.get_errno(), f"tmpfs on {dst!r}")


def preexec_factory(binds: list[tuple[str, str]], rlimits: dict[int, int], drop_to: int | None,
                    mntns_fd: int | None = None, netns_fd: int | None = None,
                    userns_fd: int | None = None) -> Callable[[], None]:
    """The child-side setup, run between fork and exec of bwrap: join the sandbox's network
    namespace (when it has one), enter (or build) the private mount namespace holding the
    staging binds, set rlimits, drop privileges."""
    enc = [(s.encode(), d.encode()) for s, d in binds]

    def preexec() -> None:
        if userns_fd is not None:  # non-root harness: the user ns that owns the network ns
            setns(userns_fd, CLONE_NEWUSER, "user namespace of the sandbox network")
        if netns_fd is not None:
            setns(netns_fd, CLONE_NEWNET, "network namespace of the sandbox")
        if mntns_fd is not None:
            setns(mntns_fd, CLONE_NEWNS, "mount namespace of the staging helper")
        elif drop_to is not None or enc:
            private_mount_ns_with(enc)
        for res, value in rlimits.items():
            resource.setrlimit(res, (value, value))
        if drop_to is not None:
            os.setgroups([])
            os.setgid(drop_to)
            os.setuid(drop_to)
    return preexec


class NamespaceHolder:
    """A namespace built once by a short-lived root child and then pinned by an open nsfs
    fd (the child is reaped at once: the fd alone keeps the namespace alive). Each call's
    child joins it with setns(). Closing the fd frees it."""

    def __init__(self, setup: Callable[[], None], nstype: str, *, keep_child: bool = False):
        def child() -> None:
            setup()
            die_with_parent()

        self.proc = subprocess.Popen(["sleep", "infinity"], preexec_fn=child, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True, env={"PATH": "/usr/bin:/bin"})
        try:
            self.fd = os.open(f"/proc/{self.proc.pid}/ns/{nstype}", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._reap()
            raise
        if not keep_child:
            self._reap()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _reap(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        if getattr(self, "fd", -1) >= 0:
            os.close(self.fd)
            self.fd = -1
        if getattr(self, "proc", None) is not None:
            self._reap()


class StagingHelper(NamespaceHolder):
    """The private mount namespace in which the staging binds exist, and a tmpfs on each of
    `tmpfs`. With tmpfs folders its process is kept: the harness reaches them through
    /proc/<pid>/root (`inside()`), which no host path leads to."""

    def __init__(self, binds: list[tuple[str, str]], tmpfs: tuple[str, ...] = ()):
        enc = [(s.encode(), d.encode()) for s, d in binds]
        mounts = tuple(t.encode() for t in tmpfs)
        super().__init__(lambda: private_mount_ns_with(enc, mounts), "mnt", keep_child=bool(tmpfs))

    def inside(self, path: str | Path) -> Path:
        """`path` as this namespace sees it, reachable from the harness (its process's root)."""
        return Path(f"/proc/{self.pid}/root{os.path.abspath(path)}")


def probe_drop(bwrap: str) -> bool:
    """Can this root process enter a private mount ns, drop to HOST_UID and still run bwrap?"""
    global _DROP_OK
    with _PROBE_LOCK:
        if _DROP_OK is None:
            try:
                res = subprocess.run([bwrap, "--unshare-all", "--ro-bind", "/usr", "/usr",
                                      "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                                      "--symlink", "usr/bin", "/bin", "--uid", str(SANDBOX_UID),
                                      "--gid", str(SANDBOX_UID), "/bin/true"],
                                     preexec_fn=preexec_factory([], {}, HOST_UID),
                                     capture_output=True, timeout=30)
                _DROP_OK = res.returncode == 0
            except (OSError, subprocess.SubprocessError):
                _DROP_OK = False
        return _DROP_OK


def chown_tree(top: Path, uid: int) -> None:
    os.chown(top, uid, uid)
    for dirpath, dirnames, filenames in os.walk(top):
        for n in dirnames + filenames:
            try:
                os.chown(os.path.join(dirpath, n), uid, uid, follow_symlinks=False)
            except OSError:
                pass


class UidLease:
    """A host uid no other live sandbox on this machine holds: an exclusive flock on one file
    per uid under UID_LEASES, held until `release()` or until the holding process dies. Any
    process (sweep workers, two sweeps) takes part. Without a lease folder (no /run access),
    every sandbox shares HOST_UID, as before."""

    def __init__(self) -> None:
        self._fh = None
        try:
            UID_LEASES.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            self.uid = HOST_UID
            return
        for uid in range(HOST_UID, HOST_UID + UID_SLOTS):
            fh = open(UID_LEASES / f"{uid}.lock", "a")  # noqa: SIM115 -- held for the sandbox's life
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.close()
                continue
            self.uid, self._fh = uid, fh
            return
        raise OSError(f"all {UID_SLOTS} sandbox uids from {HOST_UID} are leased by live sandboxes "
                      "(AUTOMEDBENCH_SANDBOX_UID_SLOTS raises the number)")

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None
