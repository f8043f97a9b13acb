"""SWEEP.yaml: the matrix with include/exclude, errors that name the file and field, the lock."""
from __future__ import annotations

import os

import pytest

from automedbench.api import run_sweep
from automedbench.runs.sweep import (
    CellFilter, SweepConfigError, SweepSpec, expand_cells, load_sweep_file,
)

from .conftest import end_reason, reports_under, tiny_spec as _spec
from tests.cli_forkserver import run_cli



def test_matrix_with_exclude_and_include():
    spec = SweepSpec(agents=["a", "b"], tasks=["t1", "t2"], tiers=["lite", "pro"], repeats=2,
                     exclude=[CellFilter(agent="b", tier="pro"), CellFilter(task="t2", tier="lite")],
                     include=[CellFilter(agent="c", task="t1", tier="pro", repeats=1)])
    keys = [c.key for c in expand_cells(spec)]
    assert keys == ["t1/lite/a#0", "t1/lite/a#1", "t1/lite/b#0", "t1/lite/b#1", "t1/pro/a#0", "t1/pro/a#1",
                    "t2/pro/a#0", "t2/pro/a#1", "t1/pro/c#0"]


@pytest.mark.parametrize("text, needle", [
    ("agents: [a]\ntasks: [t]\nrepeats: 0\n", "field 'repeats'"),
    ("agents: [a]\ntasks: [t]\ncolour: red\n", "field 'colour'"),
    ("agents: [a\n", "not valid YAML"),
    ("- a\n- b\n", "expected a mapping"),
    ("agents: [a]\ntasks: [t]\ninclude: [{agent: a}]\n", "include"),
])
def test_bad_sweep_files_name_the_problem(tmp_path, text, needle):
    f = tmp_path / "s.yaml"
    f.write_text(text)
    with pytest.raises(SweepConfigError, match=needle) as exc:
        load_sweep_file(f)
    assert str(f) in str(exc.value)


def test_cli_user_errors_are_one_line_exit_2(tmp_path):
    bad = tmp_path / "s.yaml"
    bad.write_text("agents: [a]\ntasks: [t]\nrepeats: -1\n")
    for args in (["sweep", str(bad)], ["sweep", str(tmp_path / "nope.yaml")], ["sweep"],
                 ["sweep", str(bad), "--task", "x"], ["sweep", "--task", "t", "--agent", "a", "--executor", "dask"]):
        proc = run_cli(args, timeout=60)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:"), (args, proc.stderr)


def test_relative_paths_in_the_file_are_relative_to_it(tmp_path):
    (tmp_path / "sub").mkdir()
    f = tmp_path / "sub" / "s.yaml"
    f.write_text("agents: a\ntasks: t\nout: runs\noptions: {agent_configs: [agents.yaml], data_root: data}\n")
    spec = load_sweep_file(f)
    assert spec.agents == ["a"] and spec.out == str(tmp_path / "sub" / "runs")
    assert spec.options.agent_configs == [str(tmp_path / "sub" / "agents.yaml")]


def test_changed_config_is_refused_unless_forced_and_finished_runs_are_skipped(sweep_env):
    env, tmp, cfg = sweep_env
    root = tmp / "root"
    first = run_sweep(_spec(cfg, env, agents=["quick"], repeats=2), root)
    assert [r.status for r in first] == ["done", "done"]
    again = run_sweep(_spec(cfg, env, agents=["quick"], repeats=2), root)
    assert [r.status for r in again] == ["skipped", "skipped"]
    with pytest.raises(SweepConfigError, match="1 cell.s. added.*--force"):
        run_sweep(_spec(cfg, env, agents=["quick"], repeats=3), root)
    with pytest.raises(SweepConfigError, match="options changed: exec_timeout_s"):
        s = _spec(cfg, env, agents=["quick"], repeats=2)
        run_sweep(s.model_copy(update={"options": s.options.model_copy(update={"exec_timeout_s": 5})}), root)
    forced = run_sweep(_spec(cfg, env, agents=["quick"], repeats=3), root, force=True)
    assert [r.status for r in forced] == ["skipped", "skipped", "done"]
    assert len(reports_under(root)) == 3


def test_infra_ended_runs_are_retried_then_counted_as_infra_never_as_failures(sweep_env):
    env, tmp, cfg = sweep_env
    root = tmp / "root"
    events = []
    results = run_sweep(_spec(cfg, env, agents=["flaky", "down"], retries=2), root, on_event=events.append)
    flaky, down = results
    # flaky: 503 twice (one attempt each, max_retries 0), then fine -> the third attempt counts
    assert flaky.status == "done" and flaky.attempts == 3 and end_reason(flaky.run_dir) == "submitted"
    archived = sorted((root / ".attempts" / "tiny-seg" / "lite" / "flaky" / "rep0").iterdir())
    assert [p.name for p in archived] == ["attempt1", "attempt2"]
    assert all(end_reason(p) == "infra_error" for p in archived)      # the provider stayed down (docs/faults.md)
    # down: out of retries -> the last infra-ended run stays in place, status infra
    assert down.status == "infra" and down.attempts == 3 and end_reason(down.run_dir) == "infra_error"
    assert sum(e.kind == "retry" for e in events) == 4
    # a restart does not retry a cell that already used its retries
    again = run_sweep(_spec(cfg, env, agents=["flaky", "down"], retries=2), root)
    assert [r.status for r in again] == ["skipped", "infra"]
    # the leaderboard shows `down` as infra-ended, not as a failed agent
    from automedbench.report import aggregate, collect_reports
    board = aggregate(collect_reports([root]))
    row = next(a for a in board.agents if a.agent == "down")
    assert row.infra_runs == 1 and row.failures == 0 and row.overall.n == 0
    assert len(collect_reports([root])) == 2  # the archived attempts are not collected


@pytest.mark.slow
def test_gpu_slots_one_gpu_per_run_and_none_for_cpu_runs(sweep_env):
    env, tmp, cfg = sweep_env
    spec = _spec(cfg, env, agents=["quick"], repeats=4, task_resources={"tiny-seg": {"gpus": 1}})
    running_gpu_counts = []
    results = run_sweep(spec, tmp / "root", workers=4, gpus=["0", "1"],
                        on_event=lambda ev: running_gpu_counts.append(len(ev.running)) if ev.kind == "start" else None)
    assert all(r.status == "done" for r in results)
    assert {r.gpus for r in results} <= {"0", "1"} and len({r.gpus for r in results}) == 2
    assert max(running_gpu_counts) == 2  # 4 CPU slots, but only 2 GPUs
    cpu = run_sweep(_spec(cfg, env, agents=["quick"]), tmp / "root2", workers=2, gpus=["0", "1"])
    assert cpu[0].gpus == ""  # a CPU run cannot see (and grab) a GPU
    # a GPU cell on a machine without one is refused before any cell runs, naming the cell
    from automedbench.runs.preflight import ImpossibleCellError
    with pytest.raises(ImpossibleCellError, match=r"tiny-seg/lite/quick#0 needs 1 GPU\(s\) but this machine offers 0"):
        run_sweep(spec.model_copy(update={"repeats": 1}), tmp / "root3", gpus=[])
    assert not list((tmp / "root3").glob("tiny-seg"))


def test_another_sweep_on_the_same_root_is_refused(sweep_env):
    env, tmp, cfg = sweep_env
    from automedbench.runs.sweep import RootLock
    root = tmp / "root"
    root.mkdir()
    with RootLock(root):
        with pytest.raises(SweepConfigError, match=f"pid {os.getpid()}"):
            with RootLock(root, wait_s=0.3):
                pass
