"""Scoring profiles through the CLI as a user runs it (docs/scoring-profiles.md): both profiles'
task scores saved in detail_report.json, `score --profile reference` prints the reference's
number, `report --profile reference` switches the board's task column, a bad name is one line."""
import json
import os

import pytest
from tests.cli_forkserver import run_cli
from tests.helpers import copy_reference, tiny_lesion_dataset

from automedbench import api
from automedbench.data import DatasetPaths
from automedbench.tracks.segmentation import SegmentationTrack



def amb(*args, env, check=True):
    proc = run_cli(args, timeout=300, env={**os.environ, "COLUMNS": "250", **env})
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:{proc.stdout}\nstderr:{proc.stderr}")
    return proc


@pytest.fixture
def run_dir(tmp_path):
    data = tmp_path / "data"
    tiny_lesion_dataset(data / "tiny-lesion")
    tasks = tmp_path / "tasks"
    (tasks / "tiny-seg").mkdir(parents=True)
    src = (SegmentationTrack.tasks_dir / "brain-lesion-seg" / "task.yaml").read_text()
    (tasks / "tiny-seg" / "task.yaml").write_text(
        src.replace("id: brain-lesion-seg", "id: tiny-seg").replace("dataset: mni-brain-lesion", "dataset: tiny-lesion"))
    env = {"AUTOMEDBENCH_DATA": str(data), "AUTOMEDBENCH_TASKS": str(tasks)}
    # the run is the setting, not what is tested (`score`/`report --profile` are): made in-process
    run = api.run_one("tiny-seg", "lite", "empty", tmp_path / "runs",
                      api.RunOptions(sandbox="local", data_root=data, tasks_dirs=[tasks])).run_dir
    ds = DatasetPaths(data / "tiny-lesion")
    for cid in ds.case_ids():          # the reference's outputs, then every lesion-free case gets lesions
        copy_reference(ds, run / "workspace", cid)
    return env, run, ds


def test_both_profiles_are_saved_and_printed(run_dir, tmp_path):
    env, run, ds = run_dir
    import nibabel as nib
    import numpy as np
    for cid in ds.case_ids():
        f = run / "workspace" / "outputs" / cid / "lesion.nii.gz"
        img = nib.load(f)
        if not np.asarray(img.dataobj).any():       # "lesion" on a lesion-free case
            nib.save(nib.Nifti1Image(np.ones(img.shape, np.uint8), img.affine), f)
    proc = amb("score", run, "--profile", "reference", env=env)
    report = json.loads((run / "detail_report.json").read_text())
    profiles = report["task"]["profile_scores"]
    assert set(profiles) == {"ours", "reference"} and profiles["ours"]["score"] == report["task"]["score"]
    ours, ref = profiles["ours"]["score"], profiles["reference"]["score"]
    assert ref == 1.0 and ours < 1.0            # ours punishes the invented lesions, the reference does not
    assert "profile 'reference'" in proc.stdout and "1.0000" in proc.stdout and f"{ours:.4f}" in proc.stdout
    # the board: ours by default, the reference's task column when asked
    amb("report", run.parent, "--out", tmp_path / "site", env=env)
    board = json.loads((tmp_path / "site" / "leaderboard.json").read_text())
    assert board["task_profile"] == "ours" and board["groups"][0]["task_score"]["mean"] == pytest.approx(ours)
    amb("report", run.parent, "--out", tmp_path / "site-ref", "--profile", "reference", env=env)
    board = json.loads((tmp_path / "site-ref" / "leaderboard.json").read_text())
    assert board["task_profile"] == "reference" and board["groups"][0]["task_score"]["mean"] == pytest.approx(ref)


def test_an_unknown_profile_is_one_clear_line(run_dir):
    env, run, _ = run_dir
    proc = amb("score", run, "--profile", "literature", env=env, check=False)
    assert proc.returncode == 2 and "unknown scoring profile 'literature'" in proc.stderr
