"""`docker` backend: the bwrap layout, in a container.

    agent container   : one per sandbox, started at open and removed at close; read-only
                        rootfs, /data/public (ro), /workspace (rw), the DECOY at
                        /data/private (a tmpfs of the container, watched from
                        outside through /proc/<pid>/root), tmpfs /tmp,
                        --cap-drop ALL, no-new-privileges, our seccomp profile
                        (seccomp.docker_profile: bwrap's denied set + namespaces/mount), --pids-limit, --memory, --cpus, ulimits, --network none
                        (network on: the container's namespace gets slirp4netns and the
                        same routes as bwrap, netns.py), --gpus all with an NVIDIA GPU.
                        Each execute() is a `docker exec` as uid 1000 whose leftover
                        processes are killed when it ends.
    scoring container : one per scoring of a docker run (`score_in_container`):
                        --network none, read-only root, the run read-only, the ONLY
                        place the private references are ever mounted; writes
                        detail_report.json (+ judge.json) to its one writable mount.

Images are pinned by content: an image id `sha256:<64 hex>` (what `automedbench sandbox
build-image` records, docker/image.py) or `name@sha256:<64 hex>`; a bare tag can change
under the benchmark, so it is rejected. The image comes from the argument, else
`AUTOMEDBENCH_DOCKER_IMAGE`, else the last image built on this machine.
"""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import uuid
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Self

import automedbench

from ...errors import ScoringContainerUnavailable
from ...run_files import RunFiles
from .. import seccomp
from ..base import ExecResult, SandboxError, SandboxSpec, command_for, run_process
from ..inputs import InputView, private_inputs
from ..inside import (
    CA_BUNDLE_INSIDE,
    DATA_INSIDE,
    PRIVATE_INSIDE,
    SANDBOX_UID,
    WORKSPACE_INSIDE,
    has_nvidia_gpu,
)
from ..inside import agent_env as shared_agent_env
from ..isolated import effects_recorder, host_dirs, watched_call
from ..netns import SLIRP_DNS, SandboxNetwork, pip_index_env
from ..observe import mount_gate
from ..observe.decoy import UNATTRIBUTED_NOTE, DecoyWatcher, build_decoy
from ..observe.effects import EffectsRecorder
from ..observe.fanotify import pid_ns
from ..privilege import chown_tree
from ..runtime import INSIDE_DIR as RUNTIME_INSIDE
from ..stage import open_stage
from .engine import PRIVATE_SOCKET, engine_answers
from .image import recorded_image

log = logging.getLogger(__name__)

DIGEST_RE = re.compile(r"^([\w./:-]+@)?sha256:[0-9a-f]{64}$")


def check_image(image: str) -> str:
    if not image or not DIGEST_RE.match(image):
        raise SandboxError(f"docker image {image!r} is not pinned by digest: use sha256:<64 hex> (an image id, "
                           "as `automedbench sandbox build-image` records) or name@sha256:<64 hex>")
    return image


def find_engine(docker: str = "docker") -> tuple[str | None, str]:
    """(DOCKER_HOST to use, or None for the CLI's default; why not, when no engine answers):
    the configured engine, else the private one the tests start (docker/engine.py)."""
    if not shutil.which(docker):
        return None, "docker CLI not installed"
    ok, why = engine_answers(os.environ.get("DOCKER_HOST"))
    if ok:
        return os.environ.get("DOCKER_HOST"), ""
    if not os.environ.get("DOCKER_HOST") and engine_answers(PRIVATE_SOCKET, timeout=5)[0]:
        return PRIVATE_SOCKET, ""
    return None, why


def _env_args(env: dict[str, str]) -> list[str]:
    out: list[str] = []
    for k, v in env.items():
        out += ["--env", f"{k}={v}"]
    return out


SCORES_INSIDE = "/scores"
SCORING_OUTPUTS = (RunFiles.REPORT, RunFiles.JUDGE)
SCORING_PICTURES = RunFiles.PICTURES   # the one folder the scoring container may write (docs/site.md)
SCORING_TIMEOUT_S = 3600


def scoring_argv(image: str, name: str, ro_paths: list[Path], out_dir: Path, command: list[str], *,
                 docker: str = "docker", user: str | None = None, read_any_file: bool = False) -> list[str]:
    """`docker run` argv of a scoring container: no network, a read-only root, each of
    `ro_paths` bound read-only at its own path (the run, the private references, the harness
    code and its python), and `out_dir` -- the only writable mount -- at /scores. It is the
    only container that ever sees the references; the agent's container never does.
    `read_any_file` (a root harness): CAP_DAC_READ_SEARCH alone, so files the agent left
    unreadable are read as the in-process scorer reads them; still nothing writable."""
    check_image(image)
    a = [docker, "run", "--rm", "--name", name, "--hostname", name, "--read-only", "--network", "none",
         "--cap-drop", "ALL", *(["--cap-add", "DAC_READ_SEARCH"] if read_any_file else []),
         "--security-opt", "no-new-privileges", "--pids-limit", "256",
         "--tmpfs", "/tmp:rw,nosuid,nodev,size=1g,mode=1777", "--workdir", "/tmp",
         "--env", "HOME=/tmp", "--env", "PYTHONDONTWRITEBYTECODE=1", "--env", "AUTOMEDBENCH_HOME=/tmp/automedbench"]
    if user:
        a += ["--user", user]
    for path in dict.fromkeys(Path(p).resolve() for p in ro_paths):
        a += ["--mount", f"type=bind,source={path},target={path},readonly"]
    a += ["--mount", f"type=bind,source={Path(out_dir).resolve()},target={SCORES_INSIDE}"]
    return a + [image, *command]


def command_never_started(returncode: int, last_line: str) -> bool:
    """A container whose command could not be exec'd at all (docker: 126/127, or the runtime's
    `exec ...: no such file or directory`), as opposed to a command that ran and failed."""
    said = last_line.lower()
    return returncode in (126, 127) or ("exec " in said and "no such file or directory" in said)


def harness_paths() -> list[Path]:
    """What the scoring container needs of the harness, read-only at the same paths: the
    python environment (sys.prefix, its base interpreter) and the package's source tree."""

    package_root = Path(automedbench.__file__).resolve().parent.parent
    paths = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
    if Path("/") in paths:
        raise ScoringContainerUnavailable(f"the harness's python lives at / ({sys.prefix}); the scoring "
                                          "container needs it in a prefix it can bind")
    if not any(package_root.is_relative_to(p) for p in paths):
        paths.append(package_root)
    return paths


def image_of_run(sandbox: str) -> str | None:
    """The image a run's record names (`docker@sha256:...` / `docker name@sha256:...`), else
    the one configured now (a run whose sandbox never started names none)."""
    for prefix in ("docker@", "docker "):
        if sandbox.startswith(prefix) and DIGEST_RE.match(sandbox[len(prefix):]):
            return sandbox[len(prefix):]
    return os.environ.get("AUTOMEDBENCH_DOCKER_IMAGE") or recorded_image()


def score_in_container(run_dir: Path, *, sandbox: str, dataset_root: Path, tasks_dirs: list[Path],
                       docker: str = "docker", timeout_s: float = SCORING_TIMEOUT_S) -> tuple[dict[str, str], str]:
    """Score a run in its own container (`scoring.container_entry`) and return what it wrote
    ({file name: text}: detail_report.json, and judge.json if it had to judge) and the
    container's name, which the report's `versions` must name (score_run reads the report,
    docs/run_record.md "Reading a run folder"; docs/sandbox.md "Scoring in a container of its
    own"). Mounted read-only: the run directory, the dataset's private references, manifest and
    bands, the run's extra task dirs, the harness. Raises ScoringContainerUnavailable saying
    why not."""

    image = image_of_run(sandbox)
    if not image:
        raise ScoringContainerUnavailable("no docker image is recorded for the run or configured")
    check_image(image)
    host, why = find_engine(docker)
    if why:
        raise ScoringContainerUnavailable(f"no Docker engine: {why}")
    exe = shutil.which(docker) or docker
    env = {**os.environ, **({"DOCKER_HOST": host} if host else {})}
    if subprocess.run([exe, "image", "inspect", image], capture_output=True, timeout=60, env=env).returncode != 0:
        raise ScoringContainerUnavailable(f"the run's image {image} is not in the Docker engine")
    run_dir, dataset_root = Path(run_dir).resolve(), Path(dataset_root).resolve()
    # public: the per-case pictures draw the input beside the prediction (docs/site.md)
    data = [dataset_root / "private", dataset_root / "public", dataset_root / "manifest.json",
            dataset_root / "bands.json"]
    ro = [run_dir, *[p for p in data if p.exists()], *[Path(t) for t in tasks_dirs if Path(t).exists()],
          *harness_paths()]
    out = Path(tempfile.mkdtemp(prefix="amb-score-"))
    try:
        for attempt in (1, 2):
            name = f"amb-score-{uuid.uuid4().hex[:12]}"
            argv = scoring_argv(image, name, ro, out,
                                [sys.executable, "-m", "automedbench.scoring.container_entry", str(run_dir),
                                 SCORES_INSIDE],
                                docker=exe, user=f"{os.geteuid()}:{os.getegid()}", read_any_file=os.geteuid() == 0)
            try:
                res = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, env=env)
            except subprocess.TimeoutExpired:
                subprocess.run([exe, "rm", "-f", name], capture_output=True, timeout=60, env=env)
                raise ScoringContainerUnavailable(f"the scoring container ran past {timeout_s:.0f} s") from None
            said = [line for line in (res.stderr or res.stdout).strip().splitlines()
                    if line and not line.startswith("Run 'docker")]   # the CLI's usage hint says nothing
            tail = (said[-1:] or [""])[0][-300:]
            if res.returncode == 0 or not command_never_started(res.returncode, tail):
                break
            if attempt == 1:   # the engine's start-up race (ensure_running); nothing was scored yet
                log.warning("scoring container %s could not start its command (%s); trying a new one", name, tail)
        if res.returncode != 0:
            again = " (a second container too)" if command_never_started(res.returncode, tail) else ""
            raise ScoringContainerUnavailable(f"the scoring container exited {res.returncode}{again}: {tail}")
        written = {p.name: p.read_text() for p in out.iterdir() if p.is_file()}
        folders = sorted(p.name for p in out.iterdir() if not p.is_file())
        unexpected = sorted(set(written) - set(SCORING_OUTPUTS)) + [f for f in folders if f != SCORING_PICTURES]
        if unexpected or SCORING_OUTPUTS[0] not in written:
            raise ScoringContainerUnavailable(f"the scoring container wrote {sorted(written)}, expected "
                                              f"{SCORING_OUTPUTS[0]} (+ {SCORING_OUTPUTS[1]}) only")
        if (out / SCORING_PICTURES).is_dir():
            # the thumbnails scoring drew (PNG files + index.json), placed beside the report
            target = run_dir / SCORING_PICTURES
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(out / SCORING_PICTURES, target, symlinks=False)
        return written, name
    finally:
        shutil.rmtree(out, ignore_errors=True)


class DockerSandbox:
    name = "docker"
    isolated = True
    data_dir = DATA_INSIDE
    workspace_dir = WORKSPACE_INSIDE

    def __init__(self, spec: SandboxSpec, image: str | None = None, docker: str = "docker", *,
                 private_dir: Path | None = None):
        self.spec = spec
        self._choose_engine(image, docker)   # refused before anything is created
        self.gpu = spec.gpu and has_nvidia_gpu()
        self.public, self.workspace = host_dirs(spec)
        self._closed = True   # until every step below has opened: close() then releases them
        self._lock = threading.Lock()
        self.net: SandboxNetwork | None = None
        self.effects: EffectsRecorder | None = None
        self.watcher: DecoyWatcher | None = None
        self._env = shared_agent_env(spec, runtime_inside=RUNTIME_INSIDE, ca_bundle=CA_BUNDLE_INSIDE)
        self.container = f"amb-{uuid.uuid4().hex[:12]}"
        self.decoy_token = os.urandom(8).hex()
        self._private_dir = private_dir if private_dir is not None else self.public.parent / "private"
        # a root harness puts the decoy on a tmpfs of the container, reached through
        # /proc/<pid>/root: no host path leads to it (docs/sandbox.md "Whose decoy accesses")
        self._decoy_in_container = os.geteuid() == 0
        self._pid_ns = "unknown"
        # each step's release joins `opening` as it is acquired: a step that fails releases every
        # one before it, and close() releases them all, last first (docs/sandbox.md "Opening and closing")
        with ExitStack() as opening:
            self._stage = open_stage(opening, "amb-dkr-", 0o755)   # sweeps what killed harnesses left
            opening.callback(self._close_watcher)   # the host decoy's (a non-root harness), made next
            self._start_container(opening, self._stage_files())
            if self.watcher is None:
                self._place_decoy()
            opening.callback(self._close_watcher)   # the container's decoy's: closed before it is removed
            if spec.network:
                self.net = SandboxNetwork(spec.network_allow, target_pid=self._container_pid())
                opening.callback(self._close_network)
                self._env = shared_agent_env(spec, runtime_inside=RUNTIME_INSIDE, ca_bundle=CA_BUNDLE_INSIDE,
                                             pip_env=pip_index_env())
            self._open_recorder(opening)
            self._resources = opening.pop_all()
        self._closed = False

    def _choose_engine(self, image: str | None, docker: str) -> None:
        """The pinned agent image and the engine every docker CLI call of this sandbox talks to."""
        chosen = image or os.environ.get("AUTOMEDBENCH_DOCKER_IMAGE") or recorded_image()
        if not chosen:
            raise SandboxError("docker backend: no agent image; build one with `automedbench sandbox "
                               "build-image` or set AUTOMEDBENCH_DOCKER_IMAGE=sha256:<64 hex>")
        self.image = check_image(chosen)
        # the run record's `sandbox` field names the pinned image
        self.name = f"docker@{self.image}" if self.image.startswith("sha256:") else f"docker {self.image}"
        host, why = find_engine(docker)
        if why:
            raise SandboxError(f"docker backend unavailable: {why}")
        self._cli_env = {**os.environ, **({"DOCKER_HOST": host} if host else {})}
        self.docker = shutil.which(docker) or docker

    def _stage_files(self) -> list[str]:
        """What the container is made from, in the staging folder: the host decoy (a non-root
        harness), the inputs' own copy, resolv.conf, the seccomp profile; returns its `docker run`."""
        spec, stage = self.spec, self._stage
        if not self._decoy_in_container:
            build_decoy(stage / "decoy", self.public, self._private_dir, self.decoy_token)
            self.watcher = DecoyWatcher(stage / "decoy", PRIVATE_INSIDE, attributed=False)
        # its own copy of the inputs, so its recorded reads are its own (inputs.py); a sandbox
        # that records nothing (the judge's replays) reads them where they are
        self.inputs = (private_inputs(self.public, stage) if spec.record_effects
                       else InputView(self.public, private=False))
        self.public = self.inputs.path
        # uid 1000 in the container is uid 1000 on the host (no user-namespace remapping)
        self.workspace_uid = SANDBOX_UID if os.geteuid() == 0 else None
        if self.workspace_uid is not None:
            chown_tree(self.workspace, self.workspace_uid)
        extra_mounts = [] if self._decoy_in_container else [("decoy", str(stage / "decoy"), PRIVATE_INSIDE)]
        if spec.network:
            (stage / "resolv.conf").write_text(f"nameserver {SLIRP_DNS}\n")
            os.chmod(stage / "resolv.conf", 0o644)
            extra_mounts.append(("resolv", str(stage / "resolv.conf"), "/etc/resolv.conf"))
            if os.path.isdir("/etc/ssl/certs"):
                # the host's trust store, as bwrap binds it (site CAs such as a
                # TLS-inspecting egress proxy's are in it, not in the image's)
                extra_mounts.append(("certs", "/etc/ssl/certs", "/etc/ssl/certs"))
        profile = stage / "seccomp.json"
        profile.write_text(json.dumps(seccomp.docker_profile()))
        return container_argv(replace(spec, public_dir=self.public), self.image, self.container, extra_mounts,
                              gpu=self.gpu, docker=self.docker,
                              seccomp_profile=profile if seccomp.enabled() else None,
                              decoy_tmpfs=self._decoy_in_container)

    def _start_container(self, opening: ExitStack, argv: list[str]) -> None:
        """`docker run` the sandbox's container (removed when `opening` unwinds, or by its guard
        when the harness dies first) and see it up."""
        guard = container_guard(self.docker, self.container, self._cli_env)
        opening.callback(release_guard, guard)   # after the removal below: release runs last first
        opening.callback(self._remove_container)
        res = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=self._cli_env)
        if res.returncode != 0:
            raise SandboxError(f"docker run failed: {res.stderr.strip()[-300:]}")
        self.ensure_running()

    def _open_recorder(self, opening: ExitStack) -> None:
        """The effects recorder. The same host directories are bind-mounted into the container,
        so the host's inotify sees what the container does to them; a read counts when the
        opener is in the container's pid namespace (docs/sandbox.md "Whose reads")."""
        self.effects = effects_recorder(
            self.spec, self.workspace, self.inputs, self.net,
            (lambda pid: pid_ns(pid) == self._pid_ns) if self._decoy_in_container else None)
        if self.effects is not None:
            opening.callback(self.effects.close)
        self._hold_opens(self._container_pid())

    def _remove_container(self) -> None:
        """`docker rm -f` the sandbox's container; a removal that fails is logged, never raised
        over the error that made an opening give up."""
        try:
            subprocess.run([self.docker, "rm", "-f", self.container], capture_output=True, timeout=60,
                           env=self._cli_env)
        except (OSError, subprocess.SubprocessError) as exc:
            log.warning("docker sandbox %s: its container could not be removed: %s", self.container, exc)

    def _close_watcher(self) -> None:
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            watcher.close()

    def _close_network(self) -> None:
        if self.net is not None:
            self.net.close()
            self.net = None

    def _container_pid(self) -> int:
        pid = subprocess.run([self.docker, "inspect", "--format", "{{.State.Pid}}", self.container],
                             capture_output=True, text=True, timeout=30, env=self._cli_env).stdout.strip()
        if not pid.isdigit() or pid == "0":
            raise SandboxError(f"the sandbox's container has no process: {self._container_state()}")
        return int(pid)

    def _place_decoy(self) -> None:
        """Fill the container's decoy tmpfs (empty after every start) through its process's
        root and watch it there: only processes in the container's mount namespace reach it."""
        pid = self._container_pid()
        self._pid_ns = pid_ns(pid) or "unknown"   # whose reads are the container's (effects)
        where = Path(f"/proc/{pid}/root{PRIVATE_INSIDE}")
        build_decoy(where, self.public, self._private_dir, self.decoy_token)
        old, self.watcher = self.watcher, DecoyWatcher(where, PRIVATE_INSIDE, attributed=True,
                                                       is_ours=lambda p: pid_ns(p) == self._pid_ns)
        if old is not None:
            old.close()
        self._hold_opens(pid)   # a restarted container's workspace is a new mount

    def _hold_opens(self, pid: int) -> None:
        """Mark the container's workspace mount (one for the container's life): each open there
        waits until the recorder watches its folder (docs/sandbox.md "Opens held until their
        folder is watched")."""
        if self.effects is not None and mount_gate.enabled():
            self.effects.hold_opens(pid, lasting=True)

    def env(self) -> dict[str, str]:
        return dict(self._env)

    def exec_argv(self, language: str, code: str) -> list[str]:
        # `kill -9 -1` as uid 1000 after the command: every process the call left behind
        # (daemons, background jobs) dies with it, as bwrap's pid namespace does
        wrapped = ["/bin/sh", "-c", '"$@"; rc=$?; kill -9 -1 2>/dev/null; exit $rc', "sh",
                   *command_for(language, code, f"{RUNTIME_INSIDE}/bin/python")]
        return [self.docker, "exec", "--user", f"{SANDBOX_UID}:{SANDBOX_UID}", "--workdir", WORKSPACE_INSIDE,
                *_env_args(self.env()), self.container, *wrapped]

    def execute(self, language: str, code: str, timeout_s: float | None = None) -> ExecResult:
        if self._closed:
            raise SandboxError("sandbox is closed")
        argv = self.exec_argv(language, code)  # raises ValueError for a bad language
        watcher = self.watcher
        if watcher is None:
            raise SandboxError("the sandbox's decoy was never placed", detail="sandbox_died")
        with self._lock:
            result = watched_call(watcher, self.effects, language, code, lambda: self._run(argv, timeout_s))
        if not watcher.attributed:
            result.warnings.append(dict(UNATTRIBUTED_NOTE))
        return result

    def _run(self, argv: list[str], timeout_s: float | None) -> ExecResult:
        result = run_process(argv, env=self._cli_env,
                             cwd=None, timeout_s=timeout_s or self.spec.timeout_s, cap=self.spec.output_cap,
                             on_output=self.effects.saw_output if self.effects is not None else None)
        if result.timed_out:  # killing the CLI does not stop what it started inside
            subprocess.run([self.docker, "exec", "--user", f"{SANDBOX_UID}:{SANDBOX_UID}", self.container,
                            "kill", "-9", "-1"], capture_output=True, timeout=30, env=self._cli_env)
        if result.exit_code != 0 and "is not running" in result.stderr and not self.running():
            # the engine lost the container under the agent: ours to answer for, not the agent's
            # (docs/faults.md); the run ends as infra_error with the container's own account
            raise SandboxError(f"the sandbox's container stopped under the agent: {self._container_state()}")
        return result

    def running(self) -> bool:
        """Whether the sandbox's container is up (docker exec needs it)."""
        res = subprocess.run([self.docker, "inspect", "--format", "{{.State.Running}}", self.container],
                             capture_output=True, text=True, timeout=30, env=self._cli_env)
        return res.stdout.strip() == "true"

    def ensure_running(self) -> None:
        """Before any agent call: start the container again, once, if the engine lost it as it
        started. Seen under load: docker's init exiting 127 (it could not exec `sleep`) before
        the engine had recorded the start. Nothing ran in it yet, so a restart loses nothing;
        a container lost later, under the agent, is an infrastructure fault instead
        (`execute`, docs/faults.md). Raises SandboxError when the restart does not hold."""
        if self.running():
            return
        first = self._container_state()
        subprocess.run([self.docker, "start", self.container], capture_output=True, timeout=120,
                       env=self._cli_env)
        if not self.running():
            raise SandboxError(f"the sandbox's container stopped as it started, and again when "
                               f"restarted: {first}; then {self._container_state()}")
        log.warning("docker sandbox %s: its container stopped as it started (%s); started it again",
                    self.container, first)
        if self._decoy_in_container and self.watcher is not None:
            self._place_decoy()   # a restart gives the container a new, empty tmpfs

    def _container_state(self) -> str:
        """Why the sandbox's container stopped, as the engine tells it (an infrastructure fault)."""
        res = subprocess.run([self.docker, "inspect", "--format",
                              "container exited {{.State.ExitCode}} at {{.State.FinishedAt}} (started "
                              "{{.State.StartedAt}}, OOM-killed {{.State.OOMKilled}}, error {{.State.Error}})",
                              self.container], capture_output=True, text=True, timeout=30, env=self._cli_env)
        state = (res.stdout or res.stderr).strip()[:400]
        # the container's own last words (docker's init says why it could not start `sleep`)
        logs = subprocess.run([self.docker, "logs", "--tail", "3", self.container], capture_output=True,
                              text=True, timeout=30, env=self._cli_env)
        said = " | ".join(line for line in (logs.stdout + logs.stderr).strip().splitlines() if line)
        return f"{state}; its output: {said[:300]}" if logs.returncode == 0 and said else state

    def close(self) -> None:
        """Release what opening acquired, last first: the effects recorder, the network, the
        container, the decoy's watcher, the staging folder."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        self._resources.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# the guard's script: a line from the harness (it removed the container) ends it; the end of the
# pipe without one (the harness died) removes the container
_GUARD_SCRIPT = 'read -r _ || exec "$0" rm -f "$1" >/dev/null 2>&1'


def container_guard(docker: str, name: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A watcher that removes container `name` when the harness dies without removing it
    (`kill -9`; docs/sandbox.md "Opening and closing"). The container is the engine's, not a
    child of the harness, so nothing else ends it or the executions in it. The watcher runs in
    a session of its own (no group kill of the harness reaches it) and waits on a pipe whose
    write end only the harness holds (close-on-exec)."""
    return subprocess.Popen(["/bin/sh", "-c", _GUARD_SCRIPT, docker, name], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)


def release_guard(guard: subprocess.Popen[bytes]) -> None:
    """The harness removed the container (or never made it): its guard is told so and ends."""
    try:
        if guard.stdin is not None:
            guard.stdin.write(b"removed\n")
            guard.stdin.close()
    except OSError:   # it is gone already
        pass
    try:
        guard.wait(timeout=10)
    except subprocess.TimeoutExpired:
        guard.kill()
        guard.wait()


def container_argv(spec: SandboxSpec, image: str, name: str, extra_mounts: list[tuple[str, str, str]], *,
                   gpu: bool = False, docker: str = "docker", seccomp_profile: Path | None = None,
                   decoy_tmpfs: bool = False) -> list[str]:
    """`docker run -d` argv of the sandbox's long-lived container. Its main process is a
    capability-less `sleep` under docker's init; agent code arrives by `docker exec`."""
    check_image(image)
    a = [docker, "run", "-d", "--init", "--name", name, "--hostname", "sandbox", "--read-only",
         "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
         "--tmpfs", "/tmp:rw,nosuid,nodev,size=4g,mode=1777",
         "--mount", f"type=bind,source={Path(spec.public_dir).resolve()},target={DATA_INSIDE},readonly",
         "--mount", f"type=bind,source={Path(spec.workspace).resolve()},target={WORKSPACE_INSIDE}",
         "--workdir", WORKSPACE_INSIDE, "--network", "none"]
    if seccomp_profile is not None:
        a += ["--security-opt", f"seccomp={seccomp_profile}"]
    if decoy_tmpfs:   # filled by the harness through /proc/<pid>/root, root-owned: read-only to uid 1000
        a += ["--mount", f"type=tmpfs,destination={PRIVATE_INSIDE},tmpfs-mode=0755,tmpfs-size=16m"]
    for _label, src, dst in extra_mounts:
        a += ["--mount", f"type=bind,source={src},target={dst},readonly"]
    a += _limit_args(spec, gpu)
    if gpu:
        a += ["--gpus", "all"]
    for src, dst in spec.extra_ro_binds:
        a += ["--mount", f"type=bind,source={src},target={dst},readonly"]
    # the main process runs as a capability-less root so that uid 1000 cannot kill it
    return a + ["--user", "0:0", image, "sleep", "infinity"]


def _limit_args(spec: SandboxSpec, gpu: bool = False) -> list[str]:
    a: list[str] = []
    if spec.max_procs:
        a += ["--pids-limit", str(spec.max_procs)]
    if spec.memory_mb:
        a += ["--memory", f"{spec.memory_mb}m", "--memory-swap", f"{spec.memory_mb}m"]
    if spec.cpus:
        a += ["--cpus", f"{spec.cpus:g}"]
    if spec.max_file_mb:
        a += ["--ulimit", f"fsize={spec.max_file_mb * 1024 * 1024}"]
    if spec.memory_mb and not gpu:
        # as bwrap's RLIMIT_AS: an oversized allocation fails with MemoryError instead of
        # being OOM-killed later (RLIMIT_DATA counts anonymous mappings since Linux 4.7)
        a += ["--ulimit", f"data={spec.memory_mb * 1024 * 1024}"]
    return a + ["--ulimit", "nofile=4096:4096"]
