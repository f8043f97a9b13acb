"""`bwrap` backend (default): every execute() runs in a fresh bubblewrap namespace.

Inside, only this exists:
    /usr (ro), /bin /lib /lib64 /sbin -> usr/*     system runtime
    /etc                                           a minimal generated one (passwd, group,
                                                   nsswitch, ld.so.cache, alternatives,
                                                   localtime; + resolv.conf, hosts, ssl
                                                   certs only when the network is on)
    /opt/agent-python (ro)                         the agent runtime (see runtime.py)
    /data/public (ro)                              the task's public data
    /data/private (ro)                             a DECOY tree watched from outside
    /workspace (rw, cwd, HOME)                     the run's workspace
    /tmp (tmpfs), /proc (new pid ns), /dev (minimal; + /dev/nvidia* when present)
and the root itself is remounted read-only. Private references, the harness source and
venv, other runs, /root, caches and credentials are simply not in the namespace.

Privileges. bwrap maps the sandbox uid 1000 onto whoever runs bwrap. If that is host root,
the kernel exempts the sandbox from RLIMIT_NPROC (fork bombs go unchecked) and every file it
writes is root's. So when the harness runs as root we drop to an unprivileged host uid
(`AUTOMEDBENCH_SANDBOX_UID`, default 64000) before exec'ing bwrap. That uid cannot traverse
e.g. /root/.cache, so the child first enters a private mount namespace and bind-mounts the
sources (public data, workspace, runtime, extra binds) onto a world-traversable staging
directory; bwrap then binds from there. The workspace is chown'ed to that uid at open.
If the host refuses (no CAP_SYS_ADMIN), we fall back to running bwrap as root and say so in a
warning on every result (`nproc_enforced: false`).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import glob
import os
import resource
import shutil
import struct
import sys
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any

from . import advisory
from .base import ExecResult, SandboxError, SandboxSpec, base_env, command_for, run_process
from .runtime import INSIDE_DIR as RUNTIME_INSIDE
from .runtime import ensure_agent_runtime, make_world_readable

SANDBOX_UID = 1000
HOST_UID = int(os.environ.get("AUTOMEDBENCH_SANDBOX_UID", "64000"))
DATA_INSIDE = "/data/public"
DECOY_INSIDE = "/data/private"
WORKSPACE_INSIDE = "/workspace"
MAX_DECOY_CASES = 64
NOFILE = 4096

INSTALL_HINT = ("bubblewrap is not installed: `apt-get install bubblewrap` "
                "(or choose --backend docker / local)")

# Host /etc entries the sandbox may see. Everything else in /etc stays out.
ETC_ALWAYS = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime",
              "mime.types", "protocols", "services", "hosts")
ETC_NETWORK = ("resolv.conf", "ssl/certs", "ca-certificates", "ca-certificates.conf",
               "pki", "gai.conf")
# Driver paths for GPU pass-through. Those under /usr are already visible through the
# recursive /usr bind and are NOT bound again: binding onto a path that is a symlink inside
# the new root fails (seen on the lent GPU machine: /usr/local/cuda -> cuda-13.0).
GPU_LIB_GLOBS = ("/usr/local/nvidia", "/usr/local/cuda", "/usr/lib/x86_64-linux-gnu/libcuda*",
                 "/usr/lib/x86_64-linux-gnu/libnvidia*", "/usr/lib64/libcuda*",
                 "/usr/lib64/libnvidia*", "/run/nvidia-persistenced", "/usr/share/nvidia")
# GPU config under /etc is copied into the sandbox's generated /etc (a read-only bind, so
# nothing can be mounted into it later): ICD files for OpenCL/Vulkan.
ETC_GPU = ("OpenCL", "vulkan", "nvidia")

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18


def find_bwrap() -> str:
    path = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None)
    if not path:
        raise SandboxError(INSTALL_HINT)
    return path


# ---------------------------------------------------------------------------- GPU
def gpu_dev_nodes() -> list[str]:
    return sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/dri/renderD*"))


def gpu_bind_args(dev_nodes: list[str], host_env: dict[str, str] | None = None,
                  exists=os.path.exists, globber=glob.glob) -> tuple[list[str], dict[str, str]]:
    """bwrap arguments and env for GPU pass-through, given the host's device nodes.

    Pure function of its inputs so that it can be tested with a fake /dev listing."""
    host_env = os.environ if host_env is None else host_env
    nodes = [n for n in dev_nodes if n.startswith(("/dev/nvidia", "/dev/dri/"))]
    if not nodes:
        return [], {}
    args: list[str] = []
    for node in nodes:
        args += ["--dev-bind", node, node]
    seen: set[str] = set()
    for pattern in GPU_LIB_GLOBS:
        for path in sorted(globber(pattern)):
            if path not in seen and exists(path):
                seen.add(path)
                if not path.startswith("/usr/"):
                    args += ["--ro-bind", path, path]
    env: dict[str, str] = {}
    for var in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES"):
        if host_env.get(var):
            env[var] = host_env[var]
    env.setdefault("NVIDIA_VISIBLE_DEVICES", "all")
    libdirs = [d for d in ("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/local/cuda/lib64")
               if d in seen or any(d.startswith(s + "/") for s in seen)]
    if libdirs:
        env["LD_LIBRARY_PATH"] = ":".join(libdirs)
    if any(s == "/usr/local/nvidia" for s in seen):
        env["AMB_EXTRA_PATH"] = "/usr/local/nvidia/bin"
    return args, env


# ---------------------------------------------------------------------------- seccomp
# A small classic-BPF filter handed to bwrap (--seccomp FD). It refuses, with EPERM, the
# syscalls that let a process inspect or steer another one or reach kernel state shared
# with the host: ptrace (attaching to the sandbox's own pid 1 would freeze the call),
# process_vm_readv/writev, the keyring calls, perf_event_open, bpf, userfaultfd,
# kexec, open_by_handle_at. Other architectures' ABIs (x32, i386 on x86_64) get EPERM for
# everything. bwrap already sets no_new_privs.
_SECCOMP_ARCH = {
    # machine: (AUDIT_ARCH, {name: nr})
    "x86_64": (0xC000003E, {"ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
                            "add_key": 248, "request_key": 249, "keyctl": 250, "perf_event_open": 298,
                            "bpf": 321, "userfaultfd": 323, "kexec_load": 246, "kexec_file_load": 320,
                            "open_by_handle_at": 304}),
    "aarch64": (0xC00000B7, {"ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
                             "add_key": 217, "request_key": 218, "keyctl": 219, "perf_event_open": 241,
                             "bpf": 280, "userfaultfd": 282, "kexec_load": 104, "kexec_file_load": 294,
                             "open_by_handle_at": 265}),
}
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
_BPF = struct.Struct("=HBBI")


def seccomp_program(machine: str | None = None) -> bytes | None:
    """The filter as bytes for `bwrap --seccomp`, or None on an unknown architecture."""
    import platform
    arch = _SECCOMP_ARCH.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, numbers = arch
    deny = SECCOMP_RET_ERRNO | errno.EPERM
    LD_W_ABS, JEQ_K, JGE_K, RET_K = 0x20, 0x15, 0x35, 0x06
    nrs = sorted(set(numbers.values()))
    prog = [(LD_W_ABS, 0, 0, 4),                      # A = arch
            (JEQ_K, 1, 0, audit_arch),                # native arch? skip the deny
            (RET_K, 0, 0, deny),
            (LD_W_ABS, 0, 0, 0)]                      # A = syscall nr
    if arch[0] == 0xC000003E:
        prog.append((JGE_K, len(nrs) + 1, 0, 0x40000000))  # x32 ABI -> deny
    for i, nr in enumerate(nrs):
        # jump to the deny at the end on a match
        prog.append((JEQ_K, len(nrs) - i, 0, nr))
    prog += [(RET_K, 0, 0, SECCOMP_RET_ALLOW), (RET_K, 0, 0, deny)]
    return b"".join(_BPF.pack(*ins) for ins in prog)


# ---------------------------------------------------------------------------- decoy + watcher
DECOY_BANNER = ("AUTOMEDBENCH DECOY. This is not reference data. Reading this file was recorded "
                "as a sandbox violation. canary={token}\n")


def build_decoy(dest: Path, public_dir: Path, private_dir: Path | None, token: str) -> None:
    """A plausible private tree: the public case ids, the real reference *file names*
    (names only, never content) and canary content."""
    dest.mkdir(parents=True, exist_ok=True)
    cases = sorted(p.name for p in public_dir.iterdir() if p.is_dir())[:MAX_DECOY_CASES] \
        if public_dir.is_dir() else []
    cases = cases or ["case_00000", "case_00001", "case_00002"]
    names: list[str] = []
    if private_dir is not None and private_dir.is_dir():
        try:
            first = next((p for p in sorted(private_dir.iterdir()) if p.is_dir()), None)
            if first is not None:
                names = sorted(f.name for f in first.iterdir() if f.is_file())[:8]
        except OSError:
            names = []
    names = names or ["segmentation.nii.gz", "reference.json"]
    for case in cases:
        (dest / case).mkdir(exist_ok=True)
        for name in names:
            (dest / case / name).write_text(DECOY_BANNER.format(token=token))
    (dest / "manifest.json").write_text('{"decoy": true, "canary": "%s"}\n' % token)
    for dirpath, _dirs, files in os.walk(dest):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o644)


IN_ACCESS, IN_OPEN, IN_ISDIR = 0x1, 0x20, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
_EVENT = struct.Struct("iIII")


class DecoyWatcher:
    """inotify (via libc, no extra dependency) on every directory of a decoy tree. The
    kernel queues events synchronously with the syscall that caused them, so once the
    sandboxed process has exited every event it caused is already readable: `drain()`
    after each call attributes events to that call exactly."""

    def __init__(self, host_root: Path, inside_root: str):
        self.host_root, self.inside_root = str(host_root), inside_root
        self.fd = _libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self.fd < 0:
            raise SandboxError(f"inotify_init1 failed: {os.strerror(ctypes.get_errno())}")
        self.wds: dict[int, str] = {}
        for dirpath, _dirs, _files in os.walk(self.host_root):
            wd = _libc.inotify_add_watch(self.fd, dirpath.encode(), IN_OPEN | IN_ACCESS)
            if wd < 0:
                raise SandboxError(f"inotify_add_watch({dirpath}) failed: {os.strerror(ctypes.get_errno())}")
            self.wds[wd] = dirpath

    def _inside(self, host_path: str) -> str:
        rel = os.path.relpath(host_path, self.host_root)
        return self.inside_root if rel == "." else f"{self.inside_root}/{rel}"

    def drain(self) -> list[tuple[str, str]]:
        """(event, inside path) for every event since the last drain, deduplicated, in order."""
        out: list[tuple[str, str]] = []
        while True:
            try:
                buf = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EAGAIN:
                    break
                raise
            if not buf:
                break
            pos = 0
            while pos < len(buf):
                wd, mask, _cookie, length = _EVENT.unpack_from(buf, pos)
                name = buf[pos + _EVENT.size: pos + _EVENT.size + length].rstrip(b"\0").decode(errors="replace")
                pos += _EVENT.size + length
                base = self.wds.get(wd)
                if base is None:
                    continue
                path = self._inside(os.path.join(base, name) if name else base)
                kind = "OPEN" if mask & IN_OPEN else "ACCESS" if mask & IN_ACCESS else hex(mask)
                if mask & IN_ISDIR:
                    kind += ",ISDIR"
                if (kind, path) not in out:
                    out.append((kind, path))
        return out

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


# ---------------------------------------------------------------------------- privilege mode
_PROBE_LOCK = threading.Lock()
_DROP_OK: bool | None = None



def _private_mount_ns_with(binds: list[tuple[bytes, bytes]]) -> None:
    """In a forked child: enter a new, private mount namespace and bind-mount `binds` there
    (never in the host's namespace)."""
    if _libc.unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    if _libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    for src, dst in binds:
        if _libc.mount(src, dst, None, MS_BIND | MS_REC, None) != 0:
            raise OSError(ctypes.get_errno(), f"bind {src!r} -> {dst!r}")


def _preexec_factory(binds: list[tuple[str, str]], rlimits: dict[int, int], drop_to: int | None,
                     mntns_fd: int | None = None):
    """The child-side setup, run between fork and exec of bwrap: enter (or build) the
    private mount namespace holding the staging binds, set rlimits, drop privileges."""
    enc = [(s.encode(), d.encode()) for s, d in binds]

    def preexec() -> None:
        if mntns_fd is not None:
            if _libc.setns(mntns_fd, CLONE_NEWNS) != 0:
                raise OSError(ctypes.get_errno(), "setns(mount namespace of the staging helper)")
        elif drop_to is not None or enc:
            _private_mount_ns_with(enc)
        for res, value in rlimits.items():
            resource.setrlimit(res, (value, value))
        if drop_to is not None:
            os.setgroups([])
            os.setgid(drop_to)
            os.setuid(drop_to)
    return preexec


class _StagingHelper:
    """A private mount namespace in which the staging binds exist, built once by a
    short-lived root child and then pinned by an open nsfs fd (the child is reaped at once:
    the fd alone keeps the namespace and its mounts). Each call's child joins it with
    setns() instead of building a namespace and re-mounting. Nothing is ever mounted in
    the host's namespace; closing the fd frees everything."""

    def __init__(self, binds: list[tuple[str, str]]):
        import signal
        import subprocess
        enc = [(s.encode(), d.encode()) for s, d in binds]

        def setup() -> None:
            _private_mount_ns_with(enc)
            _libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

        self.proc = subprocess.Popen(["sleep", "infinity"], preexec_fn=setup, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True, env={"PATH": "/usr/bin:/bin"})
        try:
            self.fd = os.open(f"/proc/{self.proc.pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
        finally:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        if getattr(self, "fd", -1) >= 0:
            os.close(self.fd)
            self.fd = -1


def _probe_drop(bwrap: str) -> bool:
    """Can this root process enter a private mount ns, drop to HOST_UID and still run bwrap?"""
    global _DROP_OK
    with _PROBE_LOCK:
        if _DROP_OK is None:
            import subprocess
            try:
                res = subprocess.run([bwrap, "--unshare-all", "--ro-bind", "/usr", "/usr",
                                      "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                                      "--symlink", "usr/bin", "/bin", "--uid", str(SANDBOX_UID),
                                      "--gid", str(SANDBOX_UID), "/bin/true"],
                                     preexec_fn=_preexec_factory([], {}, HOST_UID),
                                     capture_output=True, timeout=30)
                _DROP_OK = res.returncode == 0
            except (OSError, subprocess.SubprocessError):
                _DROP_OK = False
        return _DROP_OK


# ---------------------------------------------------------------------------- the backend
class BwrapSandbox:
    name = "bwrap"
    isolated = True
    data_dir = DATA_INSIDE
    workspace_dir = WORKSPACE_INSIDE

    def __init__(self, spec: SandboxSpec, *, private_dir: Path | None = None,
                 runtime_dir: Path | None = None, gpu_nodes: list[str] | None = None):
        self.bwrap = find_bwrap()
        self.spec = spec
        spec.workspace.mkdir(parents=True, exist_ok=True)
        self.public = Path(spec.public_dir).resolve()
        self.workspace = Path(spec.workspace).resolve()
        if not self.public.is_dir():
            raise SandboxError(f"public data directory {self.public} does not exist")
        _checked_extra_binds(spec)  # fail before anything is created
        self.runtime = Path(runtime_dir) if runtime_dir else ensure_agent_runtime()
        self.notes: list[dict[str, Any]] = []
        # privilege mode: "user" (not root), "drop" (root -> HOST_UID), "root" (fallback)
        if os.geteuid() != 0:
            self.mode, self.drop_to = "user", None
        elif _probe_drop(self.bwrap):
            self.mode, self.drop_to = "drop", HOST_UID
        else:
            self.mode, self.drop_to = "root", None
            msg = ("bwrap runs as host root (could not drop privileges): RLIMIT_NPROC is not "
                   "enforced and sandbox files are owned by root")
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
            self.notes.append({"kind": "sandbox_degraded", "message": msg, "nproc_enforced": False})
        self._stage = Path(tempfile.mkdtemp(prefix="amb-sbx-"))
        os.chmod(self._stage, 0o755)
        token = os.urandom(8).hex()
        self.decoy_token = token
        priv = private_dir if private_dir is not None else self.public.parent / "private"
        build_decoy(self._stage / "decoy", self.public, priv, token)
        nodes = gpu_dev_nodes() if gpu_nodes is None else gpu_nodes
        self.gpu_args, self.gpu_env = gpu_bind_args(nodes) if spec.gpu else ([], {})
        self._write_etc(self._stage / "etc")  # needs gpu_args (GPU config files)
        self.watcher = DecoyWatcher(self._stage / "decoy", DECOY_INSIDE)
        if self.drop_to is not None:
            _chown_tree(self.workspace, self.drop_to)
        self._closed = False
        self._lock = threading.Lock()
        self._static_args, self._binds = self._build_static()
        self._seccomp = seccomp_program() if os.environ.get("AUTOMEDBENCH_SECCOMP", "1") != "0" else None
        self._helper: _StagingHelper | None = None
        if self.drop_to is not None and self._binds:
            try:
                self._helper = _StagingHelper(self._binds)
            except (OSError, Exception):  # fall back to building the namespace per call
                self._helper = None

    # -- construction ----------------------------------------------------------------
    def _write_etc(self, etc: Path) -> None:
        etc.mkdir()
        (etc / "passwd").write_text("root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
                                    f"agent:x:{SANDBOX_UID}:{SANDBOX_UID}:agent:{WORKSPACE_INSIDE}:/bin/bash\n"
                                    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
        (etc / "group").write_text(f"root:x:0:\nagent:x:{SANDBOX_UID}:\nnogroup:x:65534:\n")
        (etc / "nsswitch.conf").write_text("passwd: files\ngroup: files\nhosts: files dns\n")
        (etc / "hostname").write_text("sandbox\n")
        # copies (symlinks kept as symlinks) of the few host entries programs need
        for name in (ETC_ALWAYS + (ETC_NETWORK if self.spec.network else ())
                     + (ETC_GPU if self.gpu_args else ())):
            src, dst = Path("/etc") / name, etc / name
            if not os.path.lexists(src):
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
        make_world_readable(etc)

    def _source(self, host: Path, label: str, binds: list[tuple[str, str]]) -> str:
        """Path bwrap should bind from. In drop mode the source is bind-mounted (as root, in
        the child's private mount ns) onto a staging mount point first."""
        if self.drop_to is None:
            return str(host)
        point = self._stage / "mnt" / label
        point.parent.mkdir(exist_ok=True)
        os.chmod(point.parent, 0o755)
        if host.is_dir():
            point.mkdir(exist_ok=True)
        else:
            point.touch(exist_ok=True)
        binds.append((str(host), str(point)))
        return str(point)

    def _build_static(self) -> tuple[list[str], list[tuple[str, str]]]:
        binds: list[tuple[str, str]] = []
        a = ["--unshare-all", "--unshare-user"]
        if self.spec.network:
            a.append("--share-net")
        # --disable-userns: no nested user namespaces (less kernel attack surface)
        a += ["--disable-userns", "--die-with-parent", "--new-session", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
              "--cap-drop", "ALL", "--hostname", "sandbox"]
        a += ["--ro-bind", "/usr", "/usr"]
        for name in ("bin", "lib", "lib64", "sbin", "lib32", "libx32"):
            target = os.readlink(f"/{name}") if os.path.islink(f"/{name}") else None
            if target:
                a += ["--symlink", target, f"/{name}"]
            elif os.path.isdir(f"/{name}") and name in ("bin", "lib", "lib64", "sbin"):
                a += ["--ro-bind", f"/{name}", f"/{name}"]
        # mask the harness itself if it happens to live under /usr (system-wide install)
        for mask in _harness_paths():
            if mask.startswith("/usr/"):
                a += ["--tmpfs", mask]
        a += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/var/tmp",
              "--dir", "/run"]
        a += ["--ro-bind", str(self._stage / "etc"), "/etc"]
        a += ["--tmpfs", "/data",
              "--ro-bind", self._source(self.public, "public", binds), DATA_INSIDE,
              "--ro-bind", str(self._stage / "decoy"), DECOY_INSIDE,
              "--dir", "/opt",
              "--ro-bind", self._source(self.runtime, "runtime", binds), RUNTIME_INSIDE,
              "--bind", self._source(self.workspace, "workspace", binds), WORKSPACE_INSIDE]
        for i, (src, dst) in enumerate(_checked_extra_binds(self.spec)):
            a += ["--ro-bind", self._source(Path(src), f"extra{i}", binds), dst]
        a += self.gpu_args
        a += ["--remount-ro", "/", "--chdir", WORKSPACE_INSIDE]
        return a, binds

    def env(self) -> dict[str, str]:
        env = base_env(self.spec, home=WORKSPACE_INSIDE, tmp="/tmp")
        env.setdefault("LANG", "C.UTF-8")
        extra_path = self.gpu_env.get("AMB_EXTRA_PATH")
        env["PATH"] = f"{RUNTIME_INSIDE}/bin:" + env["PATH"] + (f":{extra_path}" if extra_path else "")
        env.update({k: v for k, v in self.gpu_env.items() if k != "AMB_EXTRA_PATH"})
        env.update({"PYTHONPATH": f"{RUNTIME_INSIDE}/boot", "PIP_BREAK_SYSTEM_PACKAGES": "1",
                    "PIP_DISABLE_PIP_VERSION_CHECK": "1", "USER": "agent", "LOGNAME": "agent",
                    "SHELL": "/bin/bash"})
        bundle = self._stage / "etc" / "ssl" / "certs" / "ca-certificates.crt"
        if self.spec.network and bundle.exists():
            # the system trust store (pip/requests otherwise use their own bundles, which
            # miss site CAs such as a TLS-inspecting egress proxy's)
            for var in ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "CURL_CA_BUNDLE"):
                env[var] = "/etc/ssl/certs/ca-certificates.crt"
        env.update(self.spec.extra_env)
        return env

    def argv(self, language: str, code: str) -> list[str]:
        env = self.env()
        a = [self.bwrap, *self._static_args, "--clearenv"]
        for k, v in env.items():
            a += ["--setenv", k, v]
        return a + ["--", *command_for(language, code, f"{RUNTIME_INSIDE}/bin/python")]

    def rlimits(self) -> dict[int, int]:
        lim: dict[int, int] = {resource.RLIMIT_NOFILE: NOFILE}
        if self.spec.max_procs:
            lim[resource.RLIMIT_NPROC] = self.spec.max_procs
        if self.spec.max_file_mb:
            lim[resource.RLIMIT_FSIZE] = self.spec.max_file_mb * 1024 * 1024
        if self.spec.memory_mb and not self.gpu_args:
            # CUDA reserves huge virtual ranges; with a GPU bound RLIMIT_AS would break it.
            lim[resource.RLIMIT_AS] = self.spec.memory_mb * 1024 * 1024
        return lim

    # -- the protocol ----------------------------------------------------------------
    def execute(self, language: str, code: str, timeout_s: float | None = None) -> ExecResult:
        if self._closed:
            raise SandboxError("sandbox is closed", detail="sandbox_died")
        # The host side of the sandbox (staging: /etc, decoy; the public data) must still be
        # there, else bwrap fails before the agent's code runs and its "exit 1" would read as
        # the agent's error. Checked here, on the host: agent code cannot fake it.
        gone = [str(p) for p in (self._stage / "etc", self.public, self.workspace) if not p.is_dir()]
        if gone:
            raise SandboxError(f"the sandbox died: {', '.join(gone)} no longer exist(s)", detail="sandbox_died")
        argv = self.argv(language, code)  # raises ValueError for a bad language
        pass_fds: tuple[int, ...] = ()
        if self._seccomp:
            rfd, wfd = os.pipe()
            os.write(wfd, self._seccomp)
            os.close(wfd)
            argv[1:1] = ["--seccomp", str(rfd)]
            pass_fds = (rfd,)
        try:
            with self._lock:
                self.watcher.drain()  # nothing that happened before this call is attributed to it
                result = run_process(argv, env={"PATH": "/usr/bin:/bin"}, cwd="/",
                                     timeout_s=timeout_s or self.spec.timeout_s, cap=self.spec.output_cap,
                                     preexec=_preexec_factory(self._binds, self.rlimits(), self.drop_to,
                                                              self._helper.fd if self._helper else None),
                                     pass_fds=pass_fds)
                events = self.watcher.drain()
        finally:
            for fd in pass_fds:
                os.close(fd)
        if events:
            result.violations.append({
                "kind": "private_access", "path": events[0][1],
                "paths": sorted({p for _, p in events}),
                "evidence": "; ".join(f"{e} {p}" for e, p in events[:20])
                            + (f"; ... {len(events) - 20} more" if len(events) > 20 else ""),
            })
            result.blocked = True
        result.warnings.extend(advisory.scan(language, code))
        result.warnings.extend(self.notes)
        return result

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if getattr(self, "_helper", None) is not None:
            self._helper.close()
        self.watcher.close()
        shutil.rmtree(self._stage, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _checked_extra_binds(spec: SandboxSpec) -> list[tuple[str, str]]:
    """spec.extra_ro_binds, refusing targets that would cover a path the sandbox owns."""
    reserved = ("/", "/usr", "/etc", "/proc", "/dev", "/tmp", "/data", DATA_INSIDE, DECOY_INSIDE,
                "/opt", RUNTIME_INSIDE, WORKSPACE_INSIDE)
    owned = (DATA_INSIDE, DECOY_INSIDE, RUNTIME_INSIDE, WORKSPACE_INSIDE)
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


def _harness_paths() -> list[str]:
    import automedbench
    paths = [str(Path(automedbench.__file__).resolve().parent)]
    if sys.prefix != sys.base_prefix:
        paths.append(str(Path(sys.prefix).resolve()))
    return paths


def _chown_tree(top: Path, uid: int) -> None:
    os.chown(top, uid, uid)
    for dirpath, dirnames, filenames in os.walk(top):
        for n in dirnames + filenames:
            try:
                os.chown(os.path.join(dirpath, n), uid, uid, follow_symlinks=False)
            except OSError:
                pass
