"""`automedbench report --tasks-dir` (docs/your-task.md section 6, docs/cli.md): a board of your
own tasks reads their task.yaml from the folders named, as `run` did, so its task board shows
the dataset instead of "—"."""
from __future__ import annotations

import os

from tests.cli_forkserver import run_cli


def test_report_reads_your_tasks_from_tasks_dir(tmp_path, make_report, make_run, my_tasks_dir):
    make_run(tmp_path / "runs", make_report(task="my-cls"))
    env = {k: v for k, v in os.environ.items() if k != "AUTOMEDBENCH_TASKS"}
    env["AUTOMEDBENCH_ANALYSIS_PLOTS"] = "0"

    def board(*extra):
        done = run_cli(["report", tmp_path / "runs", "--out", tmp_path / "board", *extra], env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return (tmp_path / "board" / "tasks" / "my-cls.html").read_text()

    assert "<dt>Dataset</dt><dd>—</dd>" in board()   # the task is not installed: described from its runs only
    page = board("--tasks-dir", my_tasks_dir)
    assert "<dt>Dataset</dt><dd>my-cls-data</dd>" in page and "Normal vs abnormal patches (my data)" in page
    missing = run_cli(["report", tmp_path / "runs", "--out", tmp_path / "b2", "--tasks-dir", tmp_path / "nope"],
                      env=env, cwd=tmp_path)
    assert missing.returncode != 0 and "--tasks-dir" in missing.stderr and "no such folder" in missing.stderr
