"""What exists inside a bwrap sandbox: the generated /etc, the bind mounts and the bwrap
arguments that build the namespace (see bwrap/backend.py for the picture).

Pure construction: nothing here runs a process. In drop mode (root harness dropping to an
unprivileged uid, privilege.py) each source is first bound onto a staging mount point in
a private mount namespace, and bwrap binds from there.
"""
from __future__ import annotations

import glob
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import automedbench

from ..base import SandboxError, SandboxSpec
from ..inside import (
    DATA_INSIDE,
    ETC_GPU,
    PRIVATE_INSIDE,
    SANDBOX_UID,
    WORKSPACE_INSIDE,
    gpu_driver_paths,
    gpu_env,
    gpu_nodes_only,
)
from ..runtime import INSIDE_DIR as RUNTIME_INSIDE
from ..runtime import make_world_readable

# Host /etc entries the sandbox may see. Everything else in /etc stays out.
ETC_ALWAYS = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime",
              "mime.types", "protocols", "services", "hosts")
# Debian's alternatives (~400 symlinks into /usr) are bound read-only, not copied: copying
# them was ~100 ms of every sandbox open
ETC_ALWAYS_BIND = ("alternatives",)
ETC_NETWORK = ("resolv.conf", "ca-certificates.conf", "gai.conf")
# Certificate directories (hundreds of files) are bound read-only over an empty mount point
# in the generated /etc instead of copied: copying them cost ~0.3 s per sandbox open.
ETC_NETWORK_BIND = ("ssl/certs", "ca-certificates", "pki")


def gpu_bind_args(dev_nodes: list[str], host_env: dict[str, str] | None = None,
                  exists: Callable[[str], bool] = os.path.exists,
                  globber: Callable[[str], list[str]] = glob.glob) -> tuple[list[str], dict[str, str]]:
    """bwrap arguments and env for GPU pass-through, given the host's device nodes.

    Pure function of its inputs so that it can be tested with a fake /dev listing."""
    nodes = gpu_nodes_only(dev_nodes)
    if not nodes:
        return [], {}
    args: list[str] = []
    for node in nodes:
        args += ["--dev-bind", node, node]
    drivers = gpu_driver_paths(exists, globber)
    for path in drivers:
        if not path.startswith("/usr/"):  # /usr is bound recursively already
            args += ["--ro-bind", path, path]
    return args, gpu_env(drivers, host_env)


def etc_binds(network: bool) -> list[str]:
    """The host /etc directories bound read-only over the generated /etc (those that exist)."""
    names = ETC_ALWAYS_BIND + (ETC_NETWORK_BIND if network else ())
    return [name for name in names if os.path.isdir(Path("/etc") / name)]


def write_etc(etc: Path, *, network: bool, gpu: bool, resolv_conf: str | None = None,
              extra_hosts: str = "") -> None:
    """A minimal generated /etc: our passwd/group, and copies (symlinks kept as symlinks)
    of the few host entries programs need. `resolv_conf` replaces the host's resolver list
    (the sandbox's own network namespace has its own DNS address)."""
    etc.mkdir()
    (etc / "passwd").write_text("root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
                                f"agent:x:{SANDBOX_UID}:{SANDBOX_UID}:agent:{WORKSPACE_INSIDE}:/bin/bash\n"
                                "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
    (etc / "group").write_text(f"root:x:0:\nagent:x:{SANDBOX_UID}:\nnogroup:x:65534:\n")
    (etc / "nsswitch.conf").write_text("passwd: files\ngroup: files\nhosts: files dns\n")
    (etc / "hostname").write_text("sandbox\n")
    for name in ETC_ALWAYS + (ETC_NETWORK if network else ()) + (ETC_GPU if gpu else ()):
        src, dst = Path("/etc") / name, etc / name
        if not os.path.lexists(src) or (name == "resolv.conf" and resolv_conf is not None):
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            if src.is_symlink():
                dst.symlink_to(os.readlink(src))
            elif src.is_dir():
                shutil.copytree(src, dst, symlinks=True)
            else:
                shutil.copy2(src, dst)
        except OSError:
            continue
    for name in etc_binds(network):       # their mount points
        (etc / name).mkdir(parents=True, exist_ok=True)
    if network and resolv_conf is not None:
        (etc / "resolv.conf").write_text(resolv_conf)
    if extra_hosts:
        hosts = etc / "hosts"
        base = hosts.read_text() if hosts.is_file() and not hosts.is_symlink() else "127.0.0.1 localhost\n"
        hosts.unlink(missing_ok=True)
        hosts.write_text(base + extra_hosts)
    make_world_readable(etc)


def checked_extra_binds(spec: SandboxSpec) -> list[tuple[str, str]]:
    """spec.extra_ro_binds, refusing targets that would cover a path the sandbox owns."""
    reserved = ("/", "/usr", "/etc", "/proc", "/dev", "/tmp", "/data", DATA_INSIDE, PRIVATE_INSIDE,
                "/opt", RUNTIME_INSIDE, WORKSPACE_INSIDE)
    owned = (DATA_INSIDE, PRIVATE_INSIDE, RUNTIME_INSIDE, WORKSPACE_INSIDE)
    out = []
    for src, dst in getattr(spec, "extra_ro_binds", []) or []:
        dst = os.path.normpath(dst)
        if (not dst.startswith("/") or dst in reserved
                or any(r.startswith(dst.rstrip("/") + "/") or dst.startswith(r + "/") for r in owned)):
            raise SandboxError(f"extra bind target {dst!r} would cover a sandbox path "
                               f"({', '.join(reserved[1:])}); bind e.g. /opt/torch instead of /opt")
        if not Path(src).exists():
            raise SandboxError(f"extra bind source {src} does not exist")
        out.append((str(src), dst))
    return out


def harness_paths() -> list[str]:
    paths = [str(Path(automedbench.__file__).resolve().parent)]
    if sys.prefix != sys.base_prefix:
        paths.append(str(Path(sys.prefix).resolve()))
    return paths


class BwrapLayout:
    """The static bwrap arguments of one sandbox and, in drop mode, the (host source,
    staging point) binds the child must make before exec'ing bwrap."""

    def __init__(self, spec: SandboxSpec, *, public: Path, workspace: Path, runtime: Path, stage: Path,
                 drop_to: int | None, gpu_args: list[str]):
        self.spec, self.stage, self.drop_to = spec, stage, drop_to
        self.binds: list[tuple[str, str]] = []
        self.args = self._build(public, workspace, runtime, gpu_args)

    def _source(self, host: Path, label: str) -> str:
        """Path bwrap should bind from. In drop mode the source is bind-mounted (as root, in
        the child's private mount ns) onto a staging mount point first."""
        if self.drop_to is None:
            return str(host)
        point = self.stage / "mnt" / label
        point.parent.mkdir(exist_ok=True)
        os.chmod(point.parent, 0o755)
        if host.is_dir():
            point.mkdir(exist_ok=True)
        else:
            point.touch(exist_ok=True)
        self.binds.append((str(host), str(point)))
        return str(point)

    def _build(self, public: Path, workspace: Path, runtime: Path, gpu_args: list[str]) -> list[str]:
        a = ["--unshare-all", "--unshare-user"]
        if self.spec.network:
            # the caller's network namespace: the sandbox's own one (netns.py), which the
            # child joined before exec -- never the host's
            a.append("--share-net")
        # --disable-userns: no nested user namespaces (less kernel attack surface)
        a += ["--disable-userns", "--die-with-parent", "--new-session", "--uid", str(SANDBOX_UID),
              "--gid", str(SANDBOX_UID), "--cap-drop", "ALL", "--hostname", "sandbox"]
        a += ["--ro-bind", "/usr", "/usr"]
        for name in ("bin", "lib", "lib64", "sbin", "lib32", "libx32"):
            target = os.readlink(f"/{name}") if os.path.islink(f"/{name}") else None
            if target:
                a += ["--symlink", target, f"/{name}"]
            elif os.path.isdir(f"/{name}") and name in ("bin", "lib", "lib64", "sbin"):
                a += ["--ro-bind", f"/{name}", f"/{name}"]
        # mask the harness itself if it happens to live under /usr (system-wide install)
        for mask in harness_paths():
            if mask.startswith("/usr/"):
                a += ["--tmpfs", mask]
        a += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/var/tmp",
              "--dir", "/run"]
        a += ["--ro-bind", str(self.stage / "etc"), "/etc"]
        for name in etc_binds(self.spec.network):
            a += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
        a += ["--tmpfs", "/data",
              "--ro-bind", self._source(public, "public"), DATA_INSIDE,
              "--ro-bind", str(self.stage / "decoy"), PRIVATE_INSIDE,
              "--dir", "/opt",
              "--ro-bind", self._source(runtime, "runtime"), RUNTIME_INSIDE,
              "--bind", self._source(workspace, "workspace"), WORKSPACE_INSIDE]
        for i, (src, dst) in enumerate(checked_extra_binds(self.spec)):
            a += ["--ro-bind", self._source(Path(src), f"extra{i}"), dst]
        a += gpu_args
        a += ["--remount-ro", "/", "--chdir", WORKSPACE_INSIDE]
        return a
