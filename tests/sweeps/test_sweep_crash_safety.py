"""`kill -9` of a running sweep (workers too), then a restart: nothing finished is lost or
run twice, nothing half-written survives, every cell ends with exactly one complete report."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

from .conftest import end_reason, reports_under

CLI = [sys.executable, "-m", "automedbench.cli"]


def _sweep_file(tmp: Path, cfg: Path, repeats: int = 2) -> Path:
    f = tmp / "sweep.yaml"
    f.write_text(f"""
agents: [slow, quick]
tasks: [tiny-seg]
tiers: [lite, pro]
repeats: {repeats}
exclude:
  - {{agent: quick, tier: pro}}
options:
  sandbox: local
  network: false
  agent_configs: [{cfg}]
""")
    return f


def _pids_in_group(pgid: int) -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                pids.append(int(d.name))
    return pids


@pytest.mark.slow
def test_sigkill_mid_sweep_then_restart_loses_and_duplicates_nothing(sweep_env):
    env, tmp, cfg = sweep_env
    sweep = _sweep_file(tmp, cfg)
    root = tmp / "root"
    cells = [root / "tiny-seg" / tier / agent / f"rep{r}"
             for tier, agents in (("lite", ("slow", "quick")), ("pro", ("slow",))) for agent in agents for r in range(2)]
    args = [*CLI, "sweep", str(sweep), "--out", str(root), "--workers", "2"]
    # the sweep's own temp folder, where its sandboxes stage their inputs: short, so that the
    # fork server's socket path fits (test_a_long_temp_folder_spawns_the_workers covers a long one)
    systmp = Path(tempfile.mkdtemp(prefix="amb-t-"))
    env = {**env, "TMPDIR": str(systmp)}
    proc = subprocess.Popen(args, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    # wait until some cells are finished AND some are mid-run (a cell dir without a report) with
    # a sandbox open (its staging folder there: a cell's dir is made before its sandbox opens
    # and it is scored after the sandbox closed, and a kill then would leave no folder to sweep)
    deadline = time.monotonic() + 300   # a loaded 2-core machine starts the workers slowly
    while time.monotonic() < deadline:
        done = reports_under(root)
        started = [c for c in cells if c.is_dir()]
        if len(done) >= 2 and len(started) > len(done) and any(systmp.glob("amb-local-*")):
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    else:
        raise AssertionError("sweep never reached a mid-run state")
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep, its workers and their sandboxes
    proc.communicate(timeout=30)
    for _ in range(100):
        if not _pids_in_group(proc.pid):
            break
        time.sleep(0.1)
    assert not _pids_in_group(proc.pid), "worker processes survived the kill"

    # the runs in flight never closed their sandboxes: their staging folders (a copy of the
    # inputs each) are left, and the restart's first sandboxes sweep them (sandbox/stage.py)
    orphans = list(systmp.glob("amb-local-*"))
    assert orphans, "the kill must leave the in-flight runs' staging folders"
    finished_before = {p.parent: json.loads(p.read_text())["run"]["run_id"] for p in reports_under(root)}
    partial = [c for c in cells if c.is_dir() and c not in finished_before]
    assert finished_before and partial, "the kill must land with finished and half-done cells"
    stamps = {d: (d / "detail_report.json").stat().st_mtime_ns for d in finished_before}
    (partial[0] / "workspace" / "leftover.txt").write_text("from the killed attempt")

    rerun = subprocess.run(args, env={**os.environ, **env}, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr

    reports = reports_under(root)
    assert sorted(p.parent for p in reports) == sorted(cells)       # exactly one report per cell
    for d, run_id in finished_before.items():                       # finished runs kept as they were
        assert json.loads((d / "detail_report.json").read_text())["run"]["run_id"] == run_id
        assert (d / "detail_report.json").stat().st_mtime_ns == stamps[d]
    run_ids = [json.loads(p.read_text())["run"]["run_id"] for p in reports]
    assert len(set(run_ids)) == len(cells)
    assert all(end_reason(c) == "submitted" for c in cells)
    assert not (partial[0] / "workspace" / "leftover.txt").exists()  # the half-done cell was cleaned
    # the partial cell's new run is one run: its trace has one run_start
    trace = (partial[0] / "trace.jsonl").read_text().splitlines()
    assert sum(json.loads(line)["type"] == "run_start" for line in trace) == 1
    lock = json.loads((root / "sweep.lock.json").read_text())
    assert len(lock["config"]["cells"]) == len(cells)
    assert "Leaderboard:" in rerun.stdout
    assert not [d for d in orphans if d.exists()], "a killed run's staging folder survived the restart"
    shutil.rmtree(systmp, ignore_errors=True)


def _working_in(folder: Path) -> list[int]:
    """Processes whose working folder is under `folder`: a run's sandbox executions (a local
    execution runs in a session of its own, in its run's workspace, so no process group shows it)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cwd = Path(os.readlink(d / "cwd"))
                state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if cwd.is_relative_to(folder) and state != "Z":
                pids.append(int(d.name))
    return pids


@pytest.mark.slow
def test_a_long_temp_folder_spawns_the_workers(sweep_env):
    """Under a $TMPDIR too long for the fork server's socket (AF_UNIX: 107 bytes), local
    workers are spawned and the sweep runs (runs/executors.py `_start_method`)."""
    env, tmp, cfg = sweep_env
    long_tmp = tmp / ("t" * 60) / ("u" * 60)
    long_tmp.mkdir(parents=True)
    assert len(str(long_tmp)) >= 120
    sweep = tmp / "short.yaml"
    sweep.write_text(f"""
agents: [quick]
tasks: [tiny-seg]
tiers: [lite]
repeats: 2
options:
  sandbox: local
  network: false
  agent_configs: [{cfg}]
""")
    root = tmp / "root"
    done = subprocess.run([*CLI, "sweep", str(sweep), "--out", str(root), "--workers", "2"],
                          env={**os.environ, **env, "TMPDIR": str(long_tmp)}, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(reports_under(root)) == 2 and "AF_UNIX" not in done.stderr


@pytest.mark.slow
def test_sigkill_of_the_leader_alone_leaves_no_process_of_the_sweep(sweep_env):
    """`kill -9` of the sweep's leader only (not its process group): its fork server, resource
    tracker and workers die with it (runs/forkserver_guard.py, PR_SET_PDEATHSIG) instead of
    living on under init, and so do the sandbox executions the workers were waiting on (each in
    a session of its own); 5 s later no process of the sweep is left."""
    env, tmp, cfg = sweep_env
    # `slow` sleeps 30 s here: the kill lands while both workers are inside a run
    cfg.write_text(cfg.read_text().replace("model: sleep-2\n", "model: sleep-30\n"))
    sweep = _sweep_file(tmp, cfg, repeats=3)
    root = tmp / "root"
    systmp = Path(tempfile.mkdtemp(prefix="amb-t-"))    # short: the fork server's socket fits
    # no pipes: a survivor holding the leader's stdout must not hang the test, only fail it
    proc = subprocess.Popen([*CLI, "sweep", str(sweep), "--out", str(root), "--workers", "2"],
                            env={**os.environ, **env, "TMPDIR": str(systmp)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:       # the fork server and two workers are up, one executing
        group = _pids_in_group(proc.pid)
        if len(group) >= 4 and set(_working_in(root)) - set(group):
            break
        assert proc.poll() is None, "the sweep ended before its workers were up"
        time.sleep(0.05)
    else:
        raise AssertionError("the sweep never started its workers")
    os.kill(proc.pid, signal.SIGKILL)        # the leader alone
    proc.wait(timeout=30)
    time.sleep(5)
    left = sorted(set(_pids_in_group(proc.pid)) | set(_working_in(root)))
    try:
        assert not left, [Path(f"/proc/{p}/cmdline").read_bytes()[:120] for p in left if Path(f"/proc/{p}").exists()]
    finally:
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(systmp, ignore_errors=True)
