"""Your own data from a plain folder, end to end through the CLI (docs/your-task.md)."""
from __future__ import annotations

import json
import os

import pytest
from tests.cli_forkserver import run_cli



def amb(*args, env=None):
    return run_cli(args, env={**os.environ, "COLUMNS": "200", **(env or {})}, timeout=300)


def test_segmentation_and_classification_folders_become_staged_datasets(my_tasks_dir, seg_folder, cls_folder, tmp_path):
    data = tmp_path / "data"
    env = {"AUTOMEDBENCH_DATA": str(data)}
    # before staging, `tasks list` flags the datasets as unknown and says how to stage them
    listed = amb("tasks", "list", "--tasks-dir", my_tasks_dir, env=env)
    assert listed.returncode == 0 and "unknown dataset" in listed.stdout
    assert "automedbench data stage my-seg-data --from-folder DIR --task my-seg" in listed.stderr
    # an unknown name without --from-folder: the known names, and the way to stage your own
    unknown = amb("data", "stage", "my-seg-data", env=env)
    assert unknown.returncode == 2 and "known: " in unknown.stderr and "--from-folder DIR" in unknown.stderr

    seg = amb("data", "stage", "my-seg-data", "--from-folder", seg_folder, "--task", "my-seg",
              "--tasks-dir", my_tasks_dir, env=env)
    assert seg.returncode == 0, seg.stderr
    assert "my-seg-data: 4 cases staged, 1 skipped: no segmentation (case_05)" in seg.stderr
    root = data / "my-seg-data"
    manifest = json.loads((root / "manifest.json").read_text())
    assert [c["case_id"] for c in manifest["cases"]] == ["case_01", "case_02", "case_03", "case_04"]
    assert [c["lesion_positive"] for c in manifest["cases"]] == [True, False, True, True]
    assert sorted(p.name for p in (root / "private" / "case_01").iterdir()) == ["lesion.nii.gz", "organ.nii.gz"]
    assert (root / "public" / "case_01" / "image.nii.gz").is_file()
    assert not (root / "private" / "case_05").exists() and not (root / "public" / "case_05").exists()

    cls = amb("data", "stage", "my-cls-data", "--from-folder", cls_folder, "--task", "my-cls",
              "--tasks-dir", my_tasks_dir, env=env)
    assert cls.returncode == 0, cls.stderr
    assert "my-cls-data: 4 cases staged, 1 skipped: no label (img_5)" in cls.stderr
    assert (data / "my-cls-data" / "private" / "img_2" / "label.txt").read_text().strip() == "normal"

    ok = amb("data", "verify", "my-seg-data", "--tasks-dir", my_tasks_dir, env=env)
    assert ok.returncode == 0 and "my-seg-data: 4 cases, every file matches the manifest" in ok.stdout
    (root / "private" / "case_03" / "lesion.nii.gz").write_bytes(b"not a nifti")
    bad = amb("data", "verify", "my-seg-data", "--tasks-dir", my_tasks_dir, env=env)
    assert bad.returncode == 1 and "private/case_03/lesion.nii.gz: missing or changed since staging" in bad.stderr

    listed = amb("tasks", "list", "--tasks-dir", my_tasks_dir, env=env)
    assert not [line for line in listed.stdout.splitlines() if "my-seg-data" in line and "unknown dataset" in line]
    assert "my-seg-data --from-folder" not in listed.stderr and "my-cls-data --from-folder" not in listed.stderr

    # the staged task runs and is scored (the `empty` scripted agent: valid run, nothing written)
    run = amb("run", "--task", "my-cls", "--agent", "empty", "--tasks-dir", my_tasks_dir, "--sandbox", "local",
              "--out", tmp_path / "runs", env=env)
    assert run.returncode == 0, run.stderr


def test_a_broken_case_is_refused_by_name_and_leaves_nothing_behind(my_tasks_dir, cls_folder, tmp_path):
    data = tmp_path / "data"
    csv = cls_folder / "labels.csv"
    csv.write_text(csv.read_text().replace("img_3,abnormal", "img_3,tumour"))
    out = amb("data", "stage", "my-cls-data", "--from-folder", cls_folder, "--task", "my-cls",
              "--tasks-dir", my_tasks_dir, env={"AUTOMEDBENCH_DATA": str(data)})
    assert out.returncode == 2 and "case 'img_3'" in out.stderr and "tumour" in out.stderr
    assert not data.exists()   # nothing left behind, not even the data root it created


def test_the_manifest_schema_is_exported():
    from automedbench.runs.schemas import render_schemas
    schema = json.loads(render_schemas()["manifest.schema.json"])
    assert {"dataset", "cases", "provenance"} <= set(schema["properties"])


def test_a_track_without_its_own_layout_takes_the_generic_one(tmp_path):
    """Report generation declares no folder layout: DIR/<case_id>/{public,private}/ + cases.csv."""
    from automedbench.data import DatasetError
    from automedbench.data.from_folder import stage_from_folder
    from automedbench.tasks import get_task
    src_task = get_task("cxr-report-gen")
    tasks = tmp_path / "tasks" / "my-reports"
    tasks.mkdir(parents=True)
    (tasks / "task.yaml").write_text((src_task.folder / "task.yaml").read_text()
                                     .replace("id: cxr-report-gen", "id: my-reports")
                                     .replace(f"dataset: {src_task.dataset}", "dataset: my-report-data")
                                     .replace("demo: true", "demo: false"))
    task = get_task("my-reports", [tmp_path / "tasks"])
    folder = tmp_path / "reports"
    for cid in ("r1", "r2"):
        for f in task.input_files:
            (folder / cid / "public").mkdir(parents=True, exist_ok=True)
            (folder / cid / "public" / f).write_text("{}")
        (folder / cid / "private").mkdir(parents=True)
        (folder / cid / "private" / "report.txt").write_text("No acute cardiopulmonary abnormality.")
    (folder / "r3" / "public").mkdir(parents=True)      # no reference: skipped
    (folder / "cases.csv").write_text("case_id,view,priority\nr1,PA,2\nr2,AP,\n")
    result = stage_from_folder("my-report-data", folder, task, tmp_path / "data")
    assert result.summary() == "2 cases staged, 1 skipped: no private/ folder (no reference) (r3)"
    manifest = json.loads(result.paths.manifest.read_text())
    assert manifest["cases"][0]["view"] == "PA" and manifest["cases"][0]["priority"] == 2
    assert "priority" not in manifest["cases"][1]
    # the generic layout is still validated: a missing input file is refused, naming the case
    (folder / "r2" / "public" / task.input_files[0]).unlink()
    with pytest.raises(DatasetError, match=r"case 'r2': public/r2/ has no"):
        stage_from_folder("my-report-data", folder, task, tmp_path / "data", force=True)
