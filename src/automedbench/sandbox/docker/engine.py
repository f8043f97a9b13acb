"""A Docker engine for tests and CI: use one that answers, else (as root) install Debian's
`docker.io` and start a private `dockerd`, and stop what we started.

The private engine has its own socket, data root and exec root (nothing of a system
engine is touched) and runs with `--bridge none --iptables=false --ip6tables=false`: agent
containers run with `--network none`, so the engine never needs to edit the host's
firewall or create a bridge on a machine it shares.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

PRIVATE_ROOT = Path(os.environ.get("AUTOMEDBENCH_DOCKERD_ROOT", "/var/lib/automedbench-docker"))
PRIVATE_SOCKET = "unix:///run/automedbench-docker.sock"
APT_INSTALL = ["apt-get", "-o", "DPkg::Lock::Timeout=120", "-q", "install", "-y", "docker.io"]


def docker_cli() -> str | None:
    return shutil.which("docker")


def engine_answers(host: str | None = None, timeout: float = 20) -> tuple[bool, str]:
    """Does a Docker engine answer `docker info` (at `host`, else DOCKER_HOST / the default)?"""
    exe = docker_cli()
    if not exe:
        return False, "docker CLI not installed"
    env = dict(os.environ)
    if host:
        env["DOCKER_HOST"] = host
    try:
        res = subprocess.run([exe, "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True,
                             timeout=timeout, env=env)
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"`docker info` failed: {exc}"
    if res.returncode != 0:
        return False, "no Docker engine answers (`docker info`): " + res.stderr.strip()[:200]
    return True, res.stdout.strip()


@dataclass
class Engine:
    host: str | None                 # DOCKER_HOST to use (None: the CLI's default)
    started: subprocess.Popen | None = None

    def stop(self) -> None:
        if self.started is not None and self.started.poll() is None:
            self.started.terminate()
            try:
                self.started.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.started.kill()
                self.started.wait()
        self.started = None


def ensure_engine(install: bool = True) -> tuple[Engine | None, str]:
    """(engine, how) when one answers or could be started; (None, exactly why not) otherwise."""
    ok, why = engine_answers()
    if ok:
        return Engine(os.environ.get("DOCKER_HOST")), f"engine {why} already running"
    ok, _ = engine_answers(PRIVATE_SOCKET)
    if ok:
        return Engine(PRIVATE_SOCKET), "private engine already running"
    if os.geteuid() != 0:
        return None, f"{why}; not root, so dockerd cannot be installed or started here"
    if not shutil.which("dockerd"):
        if not install or not shutil.which("apt-get"):
            return None, f"{why}; dockerd is not installed (apt-get install docker.io)"
        res = subprocess.run(APT_INSTALL, capture_output=True, text=True, timeout=900,
                             env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if res.returncode != 0 or not shutil.which("dockerd"):
            return None, "apt-get install docker.io failed: " + (res.stderr or res.stdout).strip()[-300:]
    if not docker_cli():
        return None, "dockerd is installed but the docker CLI is not"
    PRIVATE_ROOT.mkdir(parents=True, exist_ok=True)
    log = open(PRIVATE_ROOT / "dockerd.log", "ab")  # noqa: SIM115 -- the engine outlives this call
    proc = subprocess.Popen(
        ["dockerd", "--host", PRIVATE_SOCKET, "--data-root", str(PRIVATE_ROOT / "data"),
         "--exec-root", "/run/automedbench-docker", "--pidfile", "/run/automedbench-docker.pid",
         "--bridge", "none", "--iptables=false", "--ip6tables=false", "--storage-driver", "overlay2"],
        stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    log.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = (PRIVATE_ROOT / "dockerd.log").read_text(errors="replace")[-400:]
            return None, f"dockerd exited at start ({proc.returncode}): {tail.strip()}"
        ok, why = engine_answers(PRIVATE_SOCKET, timeout=5)
        if ok:
            return Engine(PRIVATE_SOCKET, started=proc), f"started a private dockerd {why}"
        time.sleep(0.5)
    proc.terminate()
    return None, "dockerd did not answer within 60 s"
