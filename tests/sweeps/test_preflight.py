"""Impossible cells are refused before any cell runs, naming them; a sweep that scored nothing
exits non-zero and announces no board (docs/sweeps.md "Refused before any cell")."""
from __future__ import annotations

import os

import pytest
from .conftest import tiny_spec as _spec

from automedbench.runs.preflight import ImpossibleCellError
from automedbench.api import run_sweep
from tests.cli_forkserver import run_cli


def _task_copy(env, new_id: str, edit) -> None:
    from pathlib import Path
    tasks = Path(env["AUTOMEDBENCH_TASKS"])
    text = (tasks / "tiny-seg" / "task.yaml").read_text().replace("id: tiny-seg", f"id: {new_id}")
    (tasks / new_id).mkdir()
    (tasks / new_id / "task.yaml").write_text(edit(text))


def _nomethod_task(env) -> None:
    """docs/your-task.md's my-cls as `nomethod-cls`: no labelled examples, so no classical
    method of the track fits it (docs/your-task.md section 5)."""
    from pathlib import Path

    from tests.conftest import _doc_task_yaml
    folder = Path(env["AUTOMEDBENCH_TASKS"]) / "nomethod-cls"
    folder.mkdir()
    (folder / "task.yaml").write_text(_doc_task_yaml("my-cls").replace("id: my-cls", "id: nomethod-cls"))


def test_scripted_agent_without_a_method_is_refused_naming_the_cell(sweep_env):
    env, tmp, cfg = sweep_env
    _nomethod_task(env)
    spec = _spec(cfg, env, agents=["reference"]).model_copy(update={"tasks": ["tiny-seg", "nomethod-cls"]})
    with pytest.raises(ImpossibleCellError, match=r"nomethod-cls/lite/reference#0: the scripted agent has no method "
                                                  r"for the task \(task nomethod-cls: patch_classifier.py needs "
                                                  r"labelled examples.*exclude:"):
        run_sweep(spec, tmp / "root")
    assert not (tmp / "root").exists()   # nothing ran, nothing written


def test_requirements_the_offline_sandbox_cannot_install_are_refused(sweep_env):
    env, tmp, cfg = sweep_env
    _task_copy(env, "needs-nnunet", lambda t: t.replace('"nibabel>=5.2"', '"nnunetv2==2.5.1"'))
    spec = _spec(cfg, env, agents=["quick"]).model_copy(update={"tasks": ["needs-nnunet"]})   # network: false
    with pytest.raises(ImpossibleCellError, match=r"needs-nnunet/lite/quick#0 needs nnunetv2"):
        run_sweep(spec, tmp / "root")


def test_a_sweep_that_scored_nothing_exits_1_and_announces_no_board(sweep_env):
    env, tmp, cfg = sweep_env
    proc = run_cli(["sweep", "--task", "tiny-seg", "--agent", "down",
                    "--agent-config", str(cfg), "--sandbox", "local", "--network", "off", "--retries", "0",
                    "--out", str(tmp / "root")], env={**os.environ, **env}, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "no run of this sweep was scored" in proc.stderr and "Leaderboard:" not in proc.stdout
    assert "1 of 1 cell(s) failed or ended on an infrastructure fault" in proc.stderr


def test_a_single_run_of_a_scripted_agent_without_a_method_is_refused(sweep_env, cls_folder):
    from pathlib import Path

    from automedbench import api
    from automedbench.data.from_folder import stage_from_folder
    from automedbench.tasks import get_task
    env, tmp, cfg = sweep_env
    _nomethod_task(env)
    tasks = [Path(env["AUTOMEDBENCH_TASKS"])]
    stage_from_folder("my-cls-data", cls_folder, get_task("nomethod-cls", tasks), env["AUTOMEDBENCH_DATA"])
    with pytest.raises(ImpossibleCellError, match=r"`automedbench run --agent reference` cannot run here: .*task "
                                                  r"nomethod-cls: patch_classifier.py needs labelled examples"):
        api.prepare_run("nomethod-cls", "lite", "reference", api.RunOptions(
            sandbox="local", data_root=env["AUTOMEDBENCH_DATA"], tasks_dirs=tasks))
    # an agent that needs no method (empty) is fine on the same task
    api.prepare_run("nomethod-cls", "lite", "empty", api.RunOptions(
        sandbox="local", data_root=env["AUTOMEDBENCH_DATA"], tasks_dirs=tasks))


def test_a_prepared_runtime_with_the_package_passes_the_requirements_check(sweep_env, tmp_path, monkeypatch):
    from automedbench.runs.preflight import check_requirements
    from automedbench.sandbox.runtime import runtime_package_names
    from automedbench.runs.sweep import Cell
    from automedbench.tasks import get_task
    env, tmp, cfg = sweep_env
    _task_copy(env, "needs-nnunet", lambda t: t.replace('"nibabel>=5.2"', '"nnunetv2==2.5.1"'))
    from pathlib import Path
    task = get_task("needs-nnunet", [Path(env["AUTOMEDBENCH_TASKS"])])
    cells = [Cell("needs-nnunet", "lite", "quick", 0)]
    prepared = tmp_path / "runtime"
    (prepared / "bin").mkdir(parents=True)
    for dist in ("nnunetv2-2.5.1", "numpy-2.1.0", "scipy-1.14.0"):
        (prepared / "site" / f"{dist}.dist-info").mkdir(parents=True)
    monkeypatch.setenv("AUTOMEDBENCH_AGENT_RUNTIME", str(prepared))
    assert runtime_package_names() == {"nnunetv2", "numpy", "scipy"}
    check_requirements(cells, {"needs-nnunet": task}, False, have=runtime_package_names())   # it is there: fine
    check_requirements(cells, {"needs-nnunet": task}, False, "docker", have=runtime_package_names())   # the image is the runtime: not checked
    monkeypatch.delenv("AUTOMEDBENCH_AGENT_RUNTIME")
    with pytest.raises(ImpossibleCellError):
        check_requirements(cells, {"needs-nnunet": task}, False, have=runtime_package_names())
