"""The image type comes from the data (issue 44 item 2; docs/your-task.md section 3): a task's
`image_file` follows its `input_files`, a folder of another image type is refused naming the
field to set, and the reference agent reads the file the task declares."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from PIL import Image

from automedbench import api
from automedbench.data import DatasetError
from automedbench.data.from_folder import stage_from_folder
from automedbench.runs.trace import read_trace
from automedbench.tasks import TaskError, get_task


def jpeg_imagefolder(root, per_label=4):
    """ImageFolder of JPEGs: normal/ dark, abnormal/ bright, `per_label` each; names without label words."""
    rng = np.random.default_rng(7)
    for label, level, prefix in (("normal", 50, "a"), ("abnormal", 190, "b")):
        (root / label).mkdir(parents=True)
        for i in range(per_label):
            arr = np.clip(rng.normal(level, 12, (24, 24, 3)), 0, 255).astype(np.uint8)
            Image.fromarray(arr).save(root / label / f"{prefix}{i:02d}.jpg", quality=90)
    return root


def cls_task(my_tasks_dir, input_file="image.jpg", extra=""):
    yaml = my_tasks_dir / "my-cls" / "task.yaml"
    text = yaml.read_text().replace("input_files: [image.png]", f"input_files: [{input_file}]")
    yaml.write_text(text.replace("  labels: [normal, abnormal]\n",
                                 f"  labels: [normal, abnormal]\n  examples_per_class: 1\n{extra}"))
    return get_task("my-cls", [my_tasks_dir])


def test_image_file_follows_input_files_and_an_explicit_other_one_is_refused(my_tasks_dir):
    assert cls_task(my_tasks_dir).options.image_file == "image.jpg"
    with pytest.raises(TaskError, match=r"image_file 'image.png' is not among the task's input_files \['image.jpg'\]"):
        cls_task(my_tasks_dir, extra="  image_file: image.png\n").options   # noqa: B018 - loading validates


def test_a_jpeg_folder_for_a_png_task_is_refused_naming_the_field(my_tasks_dir, tmp_path):
    folder = jpeg_imagefolder(tmp_path / "jpegs")
    task = get_task("my-cls", [my_tasks_dir])   # as the docs write it: input_files: [image.png]
    with pytest.raises(DatasetError) as exc:
        stage_from_folder("my-cls-data", folder, task, tmp_path / "data")
    msg = str(exc.value)
    assert "holds *.jpg images, not *.png" in msg and "track_options.image_file" in msg, msg
    assert "fix: set `input_files: [image.jpg]` in task.yaml" in msg, msg


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_a_jpeg_classification_task_stages_and_the_reference_agent_scores_it(my_tasks_dir, tmp_path):
    folder = jpeg_imagefolder(tmp_path / "jpegs")
    task = cls_task(my_tasks_dir)
    result = stage_from_folder("my-cls-data", folder, task, tmp_path / "data")
    assert result.layout == "imagefolder" and result.summary() == "6 cases staged"
    staged = result.paths.root / "public"
    assert sorted(p.name for p in (staged / "a01").iterdir()) == ["image.jpg"]
    assert (staged / "_examples" / "a00.jpg").is_file()

    report = api.run_one("my-cls", "lite", "reference", tmp_path / "runs", api.RunOptions(
        sandbox="bwrap", data_root=tmp_path / "data", tasks_dirs=[my_tasks_dir], network=False))
    execs = [e for e in read_trace(report.run_dir / "trace.jsonl") if e.type == "execution"]
    shown = "".join((e.stdout or "") + (e.stderr or "") for e in execs)
    assert "Traceback" not in shown and all(e.exit_code == 0 for e in execs), shown[-2000:]
    # the classifier read the task's own file name (image.jpg), in every case it ran on
    read = {p for e in execs if e.effects is not None for p in e.effects.read}
    assert {f"/data/public/{c}/image.jpg" for c in ("a01", "a02")} <= read, sorted(read)
    assert report.run.end_reason == "submitted", report.run
    assert report.task.completion_rate == 1.0 and report.task.score > 0, report.task


def test_a_coco_folder_of_jpegs_for_a_png_detection_task_names_the_field(my_tasks_dir, tmp_path):
    import json
    root = tmp_path / "coco-jpg"
    (root / "images").mkdir(parents=True)
    Image.fromarray(np.zeros((32, 32), np.uint8)).save(root / "images" / "s1.jpg")
    (root / "annotations.json").write_text(json.dumps({"images": [{"id": 1, "file_name": "s1.jpg", "width": 32,
                                                                   "height": 32}], "annotations": [],
                                                       "categories": [{"id": 1, "name": "spot"}]}))
    with pytest.raises(DatasetError, match=r"fix: set `input_files: \[image.jpg\]` in task.yaml"):
        stage_from_folder("my-det-data", root, get_task("my-det", [my_tasks_dir]), tmp_path / "data")
    yaml = my_tasks_dir / "my-det" / "task.yaml"
    yaml.write_text(yaml.read_text().replace("input_files: [image.png]", "input_files: [image.jpg]"))
    result = stage_from_folder("my-det-data", root, get_task("my-det", [my_tasks_dir]), tmp_path / "data")
    assert (result.paths.root / "public" / "s1" / "image.jpg").is_file()
