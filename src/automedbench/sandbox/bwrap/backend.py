"""`bwrap` backend (default): every execute() runs in a fresh bubblewrap namespace.

Inside, only this exists:
    /usr (ro), /bin /lib /lib64 /sbin -> usr/*     system runtime
    /etc                                           a minimal generated one (passwd, group,
                                                   nsswitch, ld.so.cache, alternatives,
                                                   localtime; + resolv.conf, hosts, ssl
                                                   certs only when the network is on)
    /opt/agent-python (ro)                         the agent runtime (see runtime.py)
    /data/public (ro)                              the task's public data
    /data/private (ro)                             a DECOY tree watched from outside (a
                                                   tmpfs only the sandbox's namespace reaches)
    /workspace (rw, cwd, HOME)                     the run's workspace
    /tmp (tmpfs), /proc (new pid ns), /dev (minimal; + /dev/nvidia* when present)
and the root itself is remounted read-only. Private references, the harness source and
venv, other runs, /root, caches and credentials are simply not in the namespace.

Modules: layout and /etc in bwrap/layout.py, privilege drop and namespaces (ctypes) in
privilege.py, the seccomp filter in seccomp.py, the decoy and its watcher in observe/decoy.py,
the inside paths / scrubbed env / GPU discovery shared with docker in inside.py.
"""
from __future__ import annotations

import logging
import os
import resource
import shutil
import subprocess
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Self

from .. import seccomp
from ..base import ExecResult, SandboxError, SandboxSpec, command_for, run_process
from ..inputs import InputView, private_inputs
from ..inside import (
    CA_BUNDLE_INSIDE,
    DATA_INSIDE,
    PRIVATE_INSIDE,
    SANDBOX_UID,
    WORKSPACE_INSIDE,
    agent_env,
    gpu_dev_nodes,
)
from ..isolated import effects_recorder, host_dirs, watched_call
from ..netns import SLIRP_DNS, SandboxNetwork, pip_index_env
from ..observe import mount_gate
from ..observe.decoy import UNATTRIBUTED_NOTE, DecoyWatcher, build_decoy
from ..observe.fanotify import CallProcess
from ..observe.mount_gate import MountGate
from ..privilege import HOST_UID, StagingHelper, UidLease, chown_tree, preexec_factory, probe_drop
from ..runtime import INSIDE_DIR as RUNTIME_INSIDE
from ..runtime import ensure_agent_runtime
from ..seccomp import seccomp_program
from ..stage import open_stage
from .layout import BwrapLayout, checked_extra_binds, gpu_bind_args, write_etc
from .warm import WarmPython

__all__ = ["BwrapSandbox", "find_bwrap", "gpu_bind_args", "gpu_dev_nodes", "seccomp_program", "HOST_UID",
           "SANDBOX_UID"]

NOFILE = 4096
log = logging.getLogger("automedbench.sandbox")
INSTALL_HINT = ("bubblewrap is not installed: `apt-get install bubblewrap` "
                "(or choose --backend docker / local)")


def find_bwrap() -> str:
    path = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None)
    if not path:
        raise SandboxError(INSTALL_HINT)
    return path


class BwrapSandbox:
    name = "bwrap"
    isolated = True
    data_dir = DATA_INSIDE
    workspace_dir = WORKSPACE_INSIDE

    def __init__(self, spec: SandboxSpec, *, private_dir: Path | None = None,
                 runtime_dir: Path | None = None, gpu_nodes: list[str] | None = None):
        self.bwrap = find_bwrap()
        self.spec = spec
        self.public, self.workspace = host_dirs(spec)
        checked_extra_binds(spec)  # fail before anything is created
        self.runtime = Path(runtime_dir) if runtime_dir else ensure_agent_runtime()
        self.notes: list[dict[str, Any]] = []
        self._closed = True   # until every step below has opened: close() then releases them
        self._lock = threading.Lock()
        self._helper: StagingHelper | None = None
        self.net: SandboxNetwork | None = None
        self.decoy_token = os.urandom(8).hex()
        self._private_dir = private_dir if private_dir is not None else self.public.parent / "private"
        # each step's release joins `opening` as it is acquired: a step that fails releases every
        # one before it, and close() releases them all, last first (docs/sandbox.md "Opening and closing")
        with ExitStack() as opening:
            # a dropped uid must traverse it; a non-root harness keeps other users out. Made first,
            # removed last: by then every descriptor of the opening is free again
            self._stage = open_stage(opening, "amb-sbx-", 0o755 if os.geteuid() == 0 else 0o700)
            self._take_uid(opening)
            (self._stage / "decoy").mkdir()   # a mount point (root harness) or the decoy itself
            # its own copy of the inputs, so its recorded reads are its own (inputs.py); a sandbox
            # that records nothing (the judge's replays) reads them where they are
            self.inputs = (private_inputs(self.public, self._stage) if spec.record_effects
                           else InputView(self.public, private=False))
            self.public = self.inputs.path
            self._open_network(opening, gpu_dev_nodes() if gpu_nodes is None else gpu_nodes)
            self._call = CallProcess()   # the running call's bwrap process (whose opens are the call's)
            # watches placed once here; a read counts when the opener descends from this call's bwrap
            self.effects = effects_recorder(spec, self.workspace, self.inputs, self.net, self._call.is_ours)
            if self.effects is not None:
                opening.callback(self.effects.close)
            self._lay_out()
            self._open_decoy(opening)
            self._resources = opening.pop_all()
        self._closed = False

    def _take_uid(self, opening: ExitStack) -> None:
        """The privilege mode: "user" (not root), "drop" (root -> a leased host uid, released
        after every process of this sandbox is gone) or "root" (the fallback, noted)."""
        if os.geteuid() != 0:
            self.mode, self.drop_to = "user", None
        elif probe_drop(self.bwrap):
            try:
                lease = UidLease()
            except OSError as exc:
                raise SandboxError(str(exc)) from None
            opening.callback(lease.release)
            self.mode, self.drop_to = "drop", lease.uid
        else:
            self.mode, self.drop_to = "root", None
            msg = ("bwrap runs as host root (could not drop privileges): RLIMIT_NPROC is not "
                   "enforced and sandbox files are owned by root")
            log.warning(msg)
            self.notes.append({"kind": "sandbox_degraded", "message": msg, "nproc_enforced": False})

    def _open_network(self, opening: ExitStack, gpu_nodes: list[str]) -> None:
        """The GPU binds, the network namespace when the network is on (internet egress,
        nothing of the host: netns.py), the generated /etc and the agent's environment."""
        spec = self.spec
        self.gpu_args, self.gpu_env = gpu_bind_args(gpu_nodes) if spec.gpu else ([], {})
        pip_env: dict[str, str] = {}
        if spec.network:
            self.net = SandboxNetwork(spec.network_allow)
            opening.callback(self._close_network)
            pip_env = pip_index_env()
        write_etc(self._stage / "etc", network=spec.network, gpu=bool(self.gpu_args),
                  resolv_conf=f"nameserver {SLIRP_DNS}\n" if self.net else None,
                  extra_hosts=self.net.hosts_entries() if self.net else "")
        # the host's CA bundle is bound at the same path when the network is on
        self._env = agent_env(spec, runtime_inside=RUNTIME_INSIDE, gpu_env=self.gpu_env,
                              ca_bundle=CA_BUNDLE_INSIDE if Path(CA_BUNDLE_INSIDE).exists() else None,
                              pip_env=pip_env)

    def _close_network(self) -> None:
        if self.net is not None:
            self.net.close()
            self.net = None

    def _lay_out(self) -> None:
        """The workspace handed to the sandbox's uid, the static bwrap arguments and binds, the
        seccomp program."""
        self.workspace_uid = self.drop_to  # host owner of what the agent writes (None: the harness user)
        if self.drop_to is not None:
            chown_tree(self.workspace, self.drop_to)
        layout = BwrapLayout(self.spec, public=self.public, workspace=self.workspace, runtime=self.runtime,
                             stage=self._stage, drop_to=self.drop_to, gpu_args=self.gpu_args)
        self._static_args, self._binds = layout.args, layout.binds
        self._seccomp = seccomp_program() if seccomp.enabled() else None

    def _open_decoy(self, opening: ExitStack) -> None:
        """The staging namespace (root harness: the decoy is a tmpfs in it, which no host process
        reaches, docs/sandbox.md "Whose decoy accesses"), the decoy and its watcher."""
        if os.geteuid() == 0:
            try:
                self._helper = StagingHelper(self._binds, tmpfs=(str(self._stage / "decoy"),))
            except Exception:  # fall back to building the namespace per call
                self._helper = None
            else:
                opening.callback(self._helper.close)
        self.watcher = self._place_decoy()
        opening.callback(self.watcher.close)
        if not self.watcher.attributed:
            self.notes.append(dict(UNATTRIBUTED_NOTE))

    def _place_decoy(self) -> DecoyWatcher:
        """Build the decoy where the sandbox binds it from and watch it: inside the staging
        namespace's tmpfs when there is one (attributed), else on the host path."""
        where = self._helper.inside(self._stage / "decoy") if self._helper is not None else self._stage / "decoy"
        build_decoy(where, self.public, self._private_dir, self.decoy_token)
        if self._helper is None:
            return DecoyWatcher(where, PRIVATE_INSIDE, attributed=False)
        return DecoyWatcher(where, PRIVATE_INSIDE, attributed=True,
                            is_ours=self._call.is_ours)

    def env(self) -> dict[str, str]:
        return dict(self._env)

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
        # the call's own workspace mount marked before its command runs (observe/mount_gate.py)
        gate = (MountGate(str(self.workspace), WORKSPACE_INSIDE, self.effects.hold_opens)
                if self.effects is not None and self.effects.openers is not None and mount_gate.enabled() else None)
        if gate is not None:
            argv[1:1] = gate.args
        try:
            with self._lock:
                result = watched_call(self.watcher, self.effects, language, code,
                                      lambda: self._run(argv, pass_fds + (gate.pass_fds if gate else ()),
                                                        timeout_s, gate))
        finally:
            for fd in pass_fds:
                os.close(fd)
            if gate is not None:
                gate.close()
        result.warnings.extend(self.notes)
        return result

    def warm_python(self, modules: list[str]) -> WarmPython:
        """A prewarmed interpreter in this sandbox for the judge's replays (warm.py): its server
        runs under the same namespaces, seccomp filter, limits and environment as any call."""
        def start(tail: list[str]) -> subprocess.Popen[bytes]:
            if self._closed:
                raise OSError("sandbox is closed")
            argv = [*self.argv("python", "")[:-2], *tail]   # the python argv without `-c code`
            pass_fds: tuple[int, ...] = ()
            if self._seccomp:
                rfd, wfd = os.pipe()
                os.write(wfd, self._seccomp)
                os.close(wfd)
                argv[1:1] = ["--seccomp", str(rfd)]
                pass_fds = (rfd,)
            try:
                return subprocess.Popen(
                    argv, env={"PATH": "/usr/bin:/bin"}, cwd="/", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL, start_new_session=True, pass_fds=pass_fds,
                    preexec_fn=preexec_factory(self._binds, self.rlimits(), self.drop_to,
                                               self._helper.fd if self._helper else None,
                                               self.net.fd if self.net else None,
                                               self.net.userns_fd if self.net else None))
            finally:
                for fd in pass_fds:
                    os.close(fd)
        return WarmPython(start, modules, self.spec.output_cap)

    def _run(self, argv: list[str], pass_fds: tuple[int, ...], timeout_s: float | None,
             gate: MountGate | None = None) -> ExecResult:
        def started(pid: int) -> None:
            self._call.started(pid)
            if gate is not None:
                gate.open(pid)   # returns once the command may run, marked or not

        self._call.begin()
        try:
            return run_process(argv, env={"PATH": "/usr/bin:/bin"}, cwd="/",
                               timeout_s=timeout_s or self.spec.timeout_s, cap=self.spec.output_cap,
                               preexec=preexec_factory(self._binds, self.rlimits(), self.drop_to,
                                                       self._helper.fd if self._helper else None,
                                                       self.net.fd if self.net else None,
                                                       self.net.userns_fd if self.net else None),
                               pass_fds=pass_fds, on_start=started,
                               on_output=self.effects.saw_output if self.effects is not None else None)
        finally:
            self._call.end()


    def close(self) -> None:
        """Release what opening acquired, last first: the decoy's watcher, the staging
        namespace, the effects recorder, the network, the uid lease, the staging folder."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        self._resources.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

