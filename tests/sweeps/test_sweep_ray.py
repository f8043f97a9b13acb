"""The Ray executor against a local Ray instance started by the test (2 CPUs): every run is a
Ray task, its results written by the Ray worker into the shared sweep root."""
from __future__ import annotations

import importlib.util
import os

import pytest

from automedbench.api import run_sweep
from automedbench.runs.sweep import RunOptions, SweepSpec

from .conftest import end_reason, reports_under

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="Ray is not installed: pip install 'automedbench[ray]'")


@pytest.fixture
def local_ray():
    import ray   # here, not at collection: ~0.6 s that every xdist worker would pay (docs/testing.md)

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.mark.slow
def test_ray_executor_runs_every_cell_in_ray_workers(sweep_env, local_ray):
    env, tmp, cfg = sweep_env
    spec = SweepSpec(agents=["quick", "flaky"], tasks=["tiny-seg"], tiers=["lite", "pro"], repeats=1, retries=2,
                     options=RunOptions(sandbox="local", network=False, agent_configs=[str(cfg)],
                                        data_root=env["AUTOMEDBENCH_DATA"], tasks_dirs=[env["AUTOMEDBENCH_TASKS"]]))
    starts = []
    results = run_sweep(spec, tmp / "root", executor="ray",
                        on_event=lambda ev: starts.append(len(ev.running)) if ev.kind == "start" else None)
    assert [r.status for r in results] == ["done"] * 4
    assert all(end_reason(r.run_dir) == "submitted" for r in results)
    assert len(reports_under(tmp / "root")) == 4
    pids = {r.worker.rsplit(":", 1)[1] for r in results}
    assert str(os.getpid()) not in pids                       # ran in Ray workers, not the driver
    assert max(starts) <= 2                                    # never more in flight than the 2 Ray CPUs
    flaky = [r for r in results if r.cell.agent == "flaky"]
    assert sum(r.attempts for r in flaky) == 4                 # the two 503s were retried, on Ray too
    again = run_sweep(spec, tmp / "root", executor="ray")      # resumable the same way
    assert [r.status for r in again] == ["skipped"] * 4
