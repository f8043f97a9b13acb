"""What "network on" needs from this machine, checked before a sandbox is opened
(docs/sandbox.md, "Network on: what the machine must allow").

A sandbox with the network on gets its own network namespace with slirp4netns attached
(netns.py). slirp4netns opens the TUN device `/dev/net/tun` to create the namespace's
interface, and a non-root harness does that inside a user namespace of its own. So network on
needs, besides the two programs:

  * `/dev/net/tun` openable read-write *by the harness's own host uid*. Inside the user
    namespace the harness is "root", but the kernel checks a device node's permission bits
    against the host uid it maps to: a node at mode 0600 owned by host root refuses every
    non-root harness (slirp4netns: `open("/dev/net/tun"): Permission denied`). Most
    distributions create it 0666; some machine images (and containers) ship it 0600 or not at
    all. A root harness opens it whatever its mode, unless a device cgroup refuses it.
  * (non-root only) user namespaces: `user.max_user_namespaces` above 0, and
    `kernel.unprivileged_userns_clone` not 0 where that switch exists.

The check opens the device the way slirp4netns will (read-write, as this process's uid) and
closes it at once; opening the TUN device creates nothing until an interface is asked for. A
problem is a *user* error (`SandboxConfigError`, exit 2) raised before any run starts: the
machine cannot do what was asked, so no agent is charged and no infrastructure fault is
recorded. There is no fallback: a run that asked for the network never runs without its
isolation. `automedbench doctor` reports the same facts before any run.
"""
from __future__ import annotations

import errno
import grp
import os
import pwd
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .base import SandboxConfigError

TUN_DEVICE = "/dev/net/tun"
USERNS_MAX = Path("/proc/sys/user/max_user_namespaces")
USERNS_CLONE = Path("/proc/sys/kernel/unprivileged_userns_clone")   # Debian's switch
FIX_MODE = "0666"   # what most distributions give /dev/net/tun
OFF_HINT = "or run with the network off (`--network off`, the default of most tasks)"


@dataclass(frozen=True)
class TunDevice:
    """What `ls -l /dev/net/tun` shows, and whether this process can open it read-write."""
    path: str
    exists: bool
    mode: str = ""            # "0600"
    listing: str = ""         # "crw------- root root"
    others_rw: bool = False   # an unprivileged uid that neither owns it nor is in its group can use it
    open_error: str = ""      # why this process could not open it ("" = it could)

    @property
    def usable(self) -> bool:
        return self.exists and not self.open_error


def _name(lookup: Any, ident: int) -> str:
    try:
        return str(lookup(ident)[0])
    except KeyError:
        return str(ident)


def tun_device(path: str = TUN_DEVICE) -> TunDevice:
    try:
        st = os.stat(path)
    except OSError:
        return TunDevice(path, exists=False, open_error="does not exist")
    perm = stat.S_IMODE(st.st_mode)
    listing = f"{stat.filemode(st.st_mode)} {_name(pwd.getpwuid, st.st_uid)} {_name(grp.getgrgid, st.st_gid)}"
    why = ""
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CLOEXEC))
    except OSError as exc:
        why = {errno.EACCES: "permission denied" + (" (for root: a nodev mount or a security module)"
                                                     if os.geteuid() == 0 else " (its mode)"),
               errno.EPERM: "operation not permitted (a device cgroup or security module refuses it)",
               errno.ENODEV: "no such device (the tun module is not loaded)",
               errno.ENXIO: "no such device (the tun module is not loaded)"}.get(exc.errno or 0, str(exc))
    return TunDevice(path, True, f"{perm:04o}", listing, others_rw=perm & 0o006 == 0o006, open_error=why)


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def userns_problems() -> list[str]:
    """Why a non-root harness cannot make a user namespace here ([] = nothing known against it)."""
    out = []
    if _read_int(USERNS_MAX) == 0:
        out.append(f"user namespaces are disabled ({USERNS_MAX} is 0; an administrator sets "
                   "`sysctl user.max_user_namespaces=15000`)")
    if _read_int(USERNS_CLONE) == 0:
        out.append(f"unprivileged user namespaces are disabled ({USERNS_CLONE} is 0; an administrator "
                   "sets `sysctl kernel.unprivileged_userns_clone=1`)")
    return out


@dataclass(frozen=True)
class NetworkSupport:
    """Whether this process can turn a sandbox's network on, and every reason it cannot."""
    rootless: bool
    uid: int
    tun: TunDevice
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def message(self) -> str:
        who = "a non-root harness" if self.rootless else "a root harness"
        return (f"the network cannot be turned on for {who} (uid {self.uid}) on this machine: "
                + "; ".join(self.problems) + f"; {OFF_HINT}")

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "rootless": self.rootless, "uid": self.uid, "problems": list(self.problems),
                "tun": {"path": self.tun.path, "exists": self.tun.exists, "mode": self.tun.mode,
                        "listing": self.tun.listing, "others_rw": self.tun.others_rw,
                        "usable_by_this_process": self.tun.usable, "open_error": self.tun.open_error}}


def tun_problem(tun: TunDevice, uid: int) -> str | None:
    """The user-facing reason the TUN device stops network on for `uid`, with the fix."""
    if tun.usable:
        return None
    if not tun.exists:
        return (f"{tun.path} does not exist (network on needs the TUN device: an administrator loads the "
                f"tun module, `modprobe tun`, or a container is started with `--device /dev/net/tun`)")
    fix = (f"the usual fix is the mode most distributions give it, set by an administrator: "
           f"`chmod {FIX_MODE} {tun.path}` (kept across reboots by a udev rule: "
           f"KERNEL==\"tun\", MODE=\"{FIX_MODE}\")") if uid != 0 else \
          "an administrator allows the device to this process (a container: `--device /dev/net/tun`)"
    return (f"{tun.path} must be readable and writable by uid {uid} (slirp4netns opens it to build the "
            f"sandbox's network), but it is {tun.listing} (mode {tun.mode}): {tun.open_error}; {fix}")


def network_support(tun_path: str = TUN_DEVICE) -> NetworkSupport:
    """This process's ability to give a sandbox the network (see the module doc). Cheap: a stat,
    one open of the device, two sysctl reads, two PATH look-ups."""
    uid = os.geteuid()
    rootless = uid != 0
    problems = []
    for prog, pkg in (("slirp4netns", "slirp4netns"), ("ip", "iproute2")):
        if shutil.which(prog) is None:
            problems.append(f"{prog} is not installed (`apt-get install {pkg}`)")
    tun = tun_device(tun_path)
    why = tun_problem(tun, uid)
    if why:
        problems.append(why)
    if rootless:
        problems += userns_problems()
    return NetworkSupport(rootless, uid, tun, problems)


def check_network_on(*, container: bool = False) -> None:
    """Raise SandboxConfigError (a user error, exit 2) when a sandbox's network cannot be turned
    on by this process; called before a run starts and again when a sandbox opens its network.
    `container`: the docker backend, whose network is attached to the container's namespace,
    which only a root harness may enter."""
    support = network_support()
    problems = list(support.problems)
    if container and support.rootless:
        problems.insert(0, "the docker backend attaches the network to the container's namespace, which "
                           "needs a root harness (run as root, or use the bwrap backend)")
    if problems:
        raise SandboxConfigError(NetworkSupport(support.rootless, support.uid, support.tun, problems).message())
