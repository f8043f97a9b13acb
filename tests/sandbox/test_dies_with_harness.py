"""An execution dies with the harness that started it (sandbox/base.py `run_process`;
docs/sweeps.md "Crash safety"): a harness process opens a sandbox and runs a long command in
it, and is then killed with SIGKILL, so nothing of its own can end the command (an execution
runs in a session of its own). Within 5 s the command is gone: the kernel kills it
(PR_SET_PDEATHSIG; bwrap's --die-with-parent too). Before, a local execution lived on until
its own end (a sweep's leader killed with `kill -9` left it running in its cell's workspace)."""
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


@pytest.mark.parametrize("backend", ["local", pytest.param("bwrap", marks=needs_bwrap)])
def test_an_execution_dies_when_its_harness_is_killed(backend, tmp_path):
    seconds = f"{120 + os.getpid() % 1000}.{time.time_ns() % 10**6}"
    harness = subprocess.Popen([sys.executable, "-c", HARNESS, backend, str(tmp_path), seconds],
                               env={**os.environ, "PYTHONPATH": str(SRC)}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (sleeping := _sleeping(seconds)):
        assert harness.poll() is None, harness.stderr.read().decode() if harness.stderr else ""
        assert time.monotonic() < deadline, "the execution never started"
        time.sleep(0.05)
    os.kill(harness.pid, signal.SIGKILL)
    harness.wait(timeout=30)
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in sleeping) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in sleeping if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert left == [], "the execution outlived its harness"
