"""Fixtures for the sandbox tests: a dataset with a real private tree holding canaries,
a fake harness dir, a sibling run workspace, a canary in the harness environment."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from automedbench.sandbox import SandboxSpec

HAVE_BWRAP = shutil.which("bwrap") is not None
needs_bwrap = pytest.mark.skipif(not HAVE_BWRAP, reason="bubblewrap not installed (apt-get install bubblewrap)")


class World:
    """Host-side paths and secrets the red team tries to reach."""

    def __init__(self, root: Path):
        token = os.urandom(6).hex()
        self.canary_private = f"CANARY-PRIVATE-{token}"
        self.canary_env = f"CANARY-ENV-{token}"
        self.canary_harness = f"CANARY-HARNESS-{token}"
        self.canary_other = f"CANARY-OTHERRUN-{token}"
        self.canary_home = f"CANARY-HOME-{token}"
        self.canary_net = f"CANARY-NET-{token}"
        self.dataset = root / "data" / "demo_ds"
        self.public = self.dataset / "public"
        self.private = self.dataset / "private"
        self.runs = root / "runs"
        self.workspace = self.runs / "run-A" / "workspace"
        self.other = self.runs / "run-B" / "workspace"
        self.harness = root / "harness" / "src" / "automedbench"
        self.src_dir = Path(__file__).resolve().parents[2] / "src"
        self.home_file = Path.home() / f".amb-canary-{token}"
        for case in ("case_00000", "case_00001"):
            (self.public / case).mkdir(parents=True)
            (self.public / case / "imaging.txt").write_text(f"public input of {case}\n")
            (self.private / case).mkdir(parents=True)
            (self.private / case / "ref.txt").write_text(self.canary_private + "\n")
        # a real NIfTI input (test_legit.py); written now because each sandbox binds its own
        # copy of the inputs, taken when it opens (docs/sandbox.md "Whose reads")
        import nibabel as nib
        import numpy as np
        self.nifti_volume = np.arange(4 * 5 * 6, dtype=np.int16).reshape(4, 5, 6)
        nib.save(nib.Nifti1Image(self.nifti_volume, np.eye(4)), str(self.public / "case_00000" / "imaging.nii.gz"))
        self.private_file = self.private / "case_00000" / "ref.txt"
        self.workspace.mkdir(parents=True)
        self.other.mkdir(parents=True)
        (self.other / "outputs.txt").write_text(self.canary_other + "\n")
        self.other_file = self.other / "outputs.txt"
        self.harness.mkdir(parents=True)
        (self.harness / "config.yaml").write_text(f"api_key: {self.canary_harness}\n")
        self.harness_file = self.harness / "config.yaml"
        self.home_file.write_text(self.canary_home + "\n")
        os.environ["AMB_CANARY_KEY"] = self.canary_env
        # a loopback server in the host network namespace that hands out a canary
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("0.0.0.0", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.abstract_name = f"amb-canary-{token}"
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen(4)
        for srv in (self.server, self.abstract):
            threading.Thread(target=self._serve, args=(srv,), daemon=True).start()
        self.host_ip = _host_ip()

    def _serve(self, srv: socket.socket) -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            try:
                conn.sendall((self.canary_net + "\n").encode())
            finally:
                conn.close()

    @property
    def canaries(self) -> list[str]:
        return [self.canary_private, self.canary_env, self.canary_harness, self.canary_other,
                self.canary_home, self.canary_net, "Sandbox backends behind one protocol"]

    def subst(self, code: str) -> str:
        rep = {"@PRIV@": str(self.private_file), "@PRIVDIR@": str(self.private), "@DS@": str(self.dataset),
               "@PUB@": str(self.public), "@OTHER@": str(self.other_file), "@OTHERDIR@": str(self.other),
               "@HARNESS@": str(self.harness_file), "@SRC@": str(self.src_dir), "@HOME@": str(self.home_file),
               "@PORT@": str(self.port), "@HOSTIP@": self.host_ip, "@ABSTRACT@": self.abstract_name,
               "@WS@": str(self.workspace), "@RUNS@": str(self.runs)}
        for k, v in rep.items():
            code = code.replace(k, v)
        return code

    def leaked_in_workspace(self) -> list[str]:
        """Canaries found in regular files of the workspace (symlinks are NOT followed)."""
        found = []
        for dirpath, _dirnames, filenames in os.walk(self.workspace):
            for n in filenames:
                p = os.path.join(dirpath, n)
                if os.path.islink(p) or not os.path.isfile(p) or os.path.getsize(p) > 50_000_000:
                    continue
                data = open(p, "rb").read()
                found += [f"{c} in {p}" for c in self.canaries if c.encode() in data]
        return found

    def clear_workspace(self) -> None:
        for p in self.workspace.iterdir():
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink()

    def close(self) -> None:
        self.server.close()
        self.abstract.close()
        self.home_file.unlink(missing_ok=True)
        os.environ.pop("AMB_CANARY_KEY", None)


def pip_index_problem(tmp: Path) -> str | None:
    """None when the host's pip downloads a small package from its configured http(s)
    index (read from pip's own configuration, as the sandbox gets it), else why not. No
    registry host is named here: pip decides where to go."""
    import subprocess
    import sys

    from automedbench.sandbox.netns import pip_index_env
    # --isolated: no host find-links or file:// index may answer in the network's place;
    # the http(s) index settings the sandbox gets are passed explicitly
    index_args: list[str] = []
    for var, opt in (("PIP_INDEX_URL", "--index-url"), ("PIP_EXTRA_INDEX_URL", "--extra-index-url"),
                     ("PIP_TRUSTED_HOST", "--trusted-host")):
        for value in pip_index_env().get(var, "").split():
            index_args += [opt, value]
    try:
        res = subprocess.run([sys.executable, "-m", "pip", "download", "--isolated", *index_args, "--no-deps",
                              "-q", "-d", str(tmp / "host-dl"), "tomli-w"], capture_output=True,
                             text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "the configured package index did not answer this host within 120 s"
    if res.returncode != 0:
        return "the configured package index is not reachable from this host: " + res.stderr.strip()[-200:]
    return None


def _host_ip() -> str:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


@pytest.fixture(scope="session")
def world(tmp_path_factory):
    w = World(tmp_path_factory.mktemp("sbx"))
    yield w
    w.close()


@pytest.fixture(scope="session")
def bwrap_box(world):
    """One bwrap sandbox for the whole session (every execute is a fresh namespace)."""
    if not HAVE_BWRAP:
        pytest.skip("bubblewrap not installed (apt-get install bubblewrap)")
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
    spec = SandboxSpec(public_dir=world.public, workspace=world.workspace, network=False,
                       timeout_s=30, max_procs=128, memory_mb=4096, max_file_mb=256, output_cap=64 * 1024)
    box = BwrapSandbox(spec)
    yield box
    box.close()


@contextlib.contextmanager
def _machine_lock(path: Path):
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def docker_engine(tmp_path_factory):
    """A Docker engine for the session: one that answers, else (as root) docker.io installed
    and a private dockerd started -- and stopped at the end. Skips saying exactly why not.

    Under pytest-xdist several workers may need it at once, and the private dockerd has one
    fixed socket: its start and its users are counted under a lock in the run's shared temp
    folder, and the last worker to leave stops the engine the tests started."""
    from automedbench.sandbox.docker.engine import ensure_engine
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent                      # the folder every worker of this run shares
    lock, state = shared / "docker-engine.lock", shared / "docker-engine.json"
    with _machine_lock(lock):
        engine, how = ensure_engine()
        users = json.loads(state.read_text()) if state.exists() else {"users": 0, "started_pid": None}
        if engine is not None:
            users["users"] += 1
            if engine.started is not None:          # this worker started it: whoever leaves last stops it
                users["started_pid"] = engine.started.pid
                engine.started = None
            state.write_text(json.dumps(users))
    if engine is None:
        pytest.skip(f"no Docker engine: {how}")
    old = os.environ.get("DOCKER_HOST")
    if engine.host:
        os.environ["DOCKER_HOST"] = engine.host
    yield engine
    if old is None:
        os.environ.pop("DOCKER_HOST", None)
    else:
        os.environ["DOCKER_HOST"] = old
    with _machine_lock(lock):
        users = json.loads(state.read_text())
        users["users"] -= 1
        if users["users"] == 0 and users["started_pid"]:
            _stop_pid(users["started_pid"])
            users["started_pid"] = None
        state.write_text(json.dumps(users))


def _stop_pid(pid: int, timeout_s: float = 30) -> None:
    """SIGTERM the dockerd the tests started (maybe from another worker) and wait until it is gone."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:   # this worker's own child: reaped
                return
        except ChildProcessError:
            pass                                        # another worker's child: watch /proc
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state == "Z":                                # exited; its parent (a worker) reaps it
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def docker_image(docker_engine):
    """The agent image (built offline once per recipe, then cached)."""
    from automedbench.sandbox import SandboxError
    from automedbench.sandbox.docker.image import build_image
    try:
        return build_image(log=lambda _msg: None).image_id
    except SandboxError as exc:
        pytest.skip(f"the docker agent image could not be built: {exc}")


@pytest.fixture(scope="session")
def docker_box(world, docker_image):
    """One docker sandbox (one container) for the session, same limits as bwrap_box."""
    from automedbench.sandbox.docker.backend import DockerSandbox
    spec = SandboxSpec(public_dir=world.public, workspace=world.workspace, network=False,
                       timeout_s=30, max_procs=128, memory_mb=4096, max_file_mb=256, output_cap=64 * 1024)
    box = DockerSandbox(spec, image=docker_image)
    yield box
    box.close()


@pytest.fixture(params=["bwrap", "docker"])
def box(request, world):
    """Each red-team, legit and detection test runs against bwrap and against docker."""
    sandbox = request.getfixturevalue(f"{request.param}_box")
    if request.param == "docker":
        # the session's container outlives many tests; the sandbox's own start-up check starts
        # it again (with a warning) if the engine lost it (DockerSandbox.ensure_running)
        sandbox.ensure_running()
    world.clear_workspace()
    # both session sandboxes share world.workspace; each writes as its own host uid
    # (bwrap: its leased uid from 64000 in drop mode, docker: 1000), which a real run never mixes
    uid = getattr(sandbox, "workspace_uid", None)
    if uid is not None:
        os.chown(world.workspace, uid, uid)
    yield sandbox
    world.clear_workspace()


@pytest.fixture(scope="session")
def bwrap_net_box(world):
    """A bwrap sandbox with the network ON (its own namespace + slirp4netns)."""
    if not HAVE_BWRAP:
        pytest.skip("bubblewrap not installed (apt-get install bubblewrap)")
    if shutil.which("slirp4netns") is None:
        pytest.skip("slirp4netns not installed (apt-get install slirp4netns)")
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
    spec = SandboxSpec(public_dir=world.public, workspace=world.workspace, network=True,
                       timeout_s=30, max_procs=128, memory_mb=4096, max_file_mb=256, output_cap=64 * 1024)
    box = BwrapSandbox(spec)
    yield box
    box.close()


@pytest.fixture(scope="session")
def docker_net_box(world, docker_image):
    """A docker sandbox with the network ON (slirp4netns attached to the container's netns)."""
    if os.geteuid() != 0 or shutil.which("slirp4netns") is None:
        pytest.skip("docker with the network on needs a root harness and slirp4netns")
    from automedbench.sandbox.docker.backend import DockerSandbox
    spec = SandboxSpec(public_dir=world.public, workspace=world.workspace, network=True,
                       timeout_s=30, max_procs=128, memory_mb=4096, max_file_mb=256, output_cap=64 * 1024)
    box = DockerSandbox(spec, image=docker_image)
    yield box
    box.close()


@pytest.fixture(params=["bwrap", "docker"])
def net_box(request, world):
    sandbox = request.getfixturevalue(f"{request.param}_net_box")
    world.clear_workspace()
    uid = getattr(sandbox, "workspace_uid", None)
    if uid is not None:
        os.chown(world.workspace, uid, uid)
    yield sandbox
    world.clear_workspace()
