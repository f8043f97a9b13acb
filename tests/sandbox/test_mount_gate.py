"""The gate that holds a bwrap call's command until its workspace mount is marked
(sandbox/observe/mount_gate.py, docs/sandbox.md "Opens held until their folder is watched"), driven
with a real bwrap: it marks and lets the command run; a bwrap that fails in its setup, or a
mark that fails, never holds the call."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from automedbench.sandbox.observe.mount_gate import WAIT_S, MountGate

from .conftest import needs_bwrap

INSIDE = "/mnt/workspace"


def _run(gate: MountGate, binds: list[str], code: str) -> tuple[subprocess.CompletedProcess, float]:
    """bwrap with the gate's fds; returns the finished process and how long gate.open took."""
    argv = ["bwrap", *gate.args, "--ro-bind", "/", "/", "--tmpfs", "/mnt", *binds, "--proc", "/proc",
            "--dev", "/dev", "--unshare-pid", "--die-with-parent", "python3", "-c", code]
    proc = subprocess.Popen(argv, pass_fds=gate.pass_fds, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    t0 = time.monotonic()
    try:
        gate.open(proc.pid)
    finally:
        gate.close()
    took = time.monotonic() - t0
    out, err = proc.communicate(timeout=30)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err), took


@needs_bwrap
def test_the_mark_sees_the_childs_own_workspace_before_the_command_runs(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    seen: list[tuple[int, int]] = []

    def mark(child: int) -> bool:
        # what the gate hands over: a process whose root holds the workspace at its inside path,
        # and whose command has not run yet (the file it writes is not there)
        st = os.stat(f"/proc/{child}/root{INSIDE}")
        seen.append((st.st_dev, st.st_ino))
        assert not (ws / "ran.txt").exists()
        return True

    gate = MountGate(str(ws), INSIDE, mark)
    done, _ = _run(gate, ["--bind", str(ws), INSIDE], f"open('{INSIDE}/ran.txt', 'w').write('x'); print('ran')")
    if not seen:
        pytest.skip("this harness may not look into the child's root (/proc/<pid>/root: not root here)")
    assert done.returncode == 0 and done.stdout == "ran\n", done.stderr
    assert seen == [(ws.stat().st_dev, ws.stat().st_ino)] and gate.marked is True
    assert (ws / "ran.txt").read_text() == "x"


@needs_bwrap
def test_a_bwrap_that_fails_in_its_setup_is_let_go_at_once(tmp_path):
    """bwrap cannot bind a missing folder: its child dies before the block; the gate does not
    wait out WAIT_S for a workspace that will never appear."""
    calls: list[int] = []
    gate = MountGate(str(tmp_path), INSIDE, lambda child: calls.append(child) or True)
    done, took = _run(gate, ["--bind", str(tmp_path / "missing"), INSIDE], "print('never')")
    assert done.returncode != 0 and "never" not in done.stdout
    assert calls == [] and gate.marked is False
    assert took < WAIT_S / 2, f"the gate waited {took:.2f} s for a child that had died"


@needs_bwrap
def test_a_mark_that_fails_lets_the_call_run_unmarked(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()

    def mark(child: int) -> bool:
        raise RuntimeError("fanotify said no")

    gate = MountGate(str(ws), INSIDE, mark)
    done, took = _run(gate, ["--bind", str(ws), INSIDE], "print('ran anyway')")
    assert done.returncode == 0 and done.stdout == "ran anyway\n", done.stderr
    assert gate.marked is False and took < WAIT_S
