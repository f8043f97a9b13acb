"""An execution dies with the harness that started it (sandbox/base.py `run_process`;
docs/sweeps.md "Crash safety"): a harness process opens a sandbox and runs a long command in
it, and is then killed with SIGKILL, so nothing of its own can end the command (an execution
runs in a session of its own). Within 5 s the command is gone: the kernel kills it
(PR_SET_PDEATHSIG; bwrap's --die-with-parent too), and a docker sandbox's container is removed
by its guard (docker/backend.py `container_guard`), which takes the command in it. Before, a
local execution lived on until its own end (a sweep's leader killed with `kill -9` left it
running in its cell's workspace), and a docker container with its command forever."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import needs_bwrap

SRC = Path(__file__).resolve().parents[2] / "src"

HARNESS = r'''
import sys
from pathlib import Path
from automedbench.sandbox import SandboxSpec, open_sandbox

backend, root, seconds = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
(root / "public").mkdir(parents=True, exist_ok=True)
box = open_sandbox(backend, SandboxSpec(public_dir=root / "public", workspace=root / "ws", network=False,
                                        gpu=False, timeout_s=300))
print(getattr(box, "container", ""), flush=True)
box.execute("bash", f"exec sleep {seconds}")
'''


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _sleeping(seconds: str) -> list[int]:
    """The processes running `sleep <seconds>` (a number only this test uses)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", seconds.encode()]:
                    found.append(int(d.name))
            except OSError:
                continue
    return found


def _containers(name: str) -> list[str]:
    res = subprocess.run(["docker", "ps", "-a", "--filter", f"name=^{name}$", "--format", "{{.Names}}"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout.split()


@pytest.mark.parametrize("backend", ["local", pytest.param("bwrap", marks=needs_bwrap), "docker"])
def test_an_execution_dies_when_its_harness_is_killed(backend, tmp_path, request):
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    if backend == "docker":
        env["AUTOMEDBENCH_DOCKER_IMAGE"] = request.getfixturevalue("docker_image")
    seconds = f"{120 + os.getpid() % 1000}.{time.time_ns() % 10**6}"
    harness = subprocess.Popen([sys.executable, "-c", HARNESS, backend, str(tmp_path), seconds],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (sleeping := _sleeping(seconds)):
        assert harness.poll() is None, harness.stderr.read().decode() if harness.stderr else ""
        assert time.monotonic() < deadline, "the execution never started"
        time.sleep(0.05)
    assert harness.stdout is not None
    container = harness.stdout.readline().decode().strip()
    os.kill(harness.pid, signal.SIGKILL)
    harness.wait(timeout=30)
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in sleeping) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in sleeping if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert left == [], "the execution outlived its harness"
    if backend == "docker":
        assert container.startswith("amb-")
        while _containers(container) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _containers(container) == [], "the sandbox's container outlived its harness"
