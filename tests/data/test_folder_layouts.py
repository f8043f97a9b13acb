"""The public layouts `data stage --from-folder` recognises (docs/your-task.md section 2):
detected by their names, forced with --layout, each error naming the layout and the fix."""
from __future__ import annotations

import json
import os

import pytest

from automedbench.data import DatasetError
from automedbench.data.from_folder import stage_from_folder, verify_dataset
from automedbench.tasks import get_task


def stage(name, folder, task_id, tasks, data, **kw):
    return stage_from_folder(name, folder, get_task(task_id, [tasks]), data, **kw)


def test_msd_with_channel_suffixes_stages_every_channel_and_reports_the_test_images(msd_folder, my_tasks_dir, tmp_path):
    result = stage("my-msd-data", msd_folder, "my-msd", my_tasks_dir, tmp_path / "data")
    assert result.layout == "msd"
    assert result.summary() == "3 cases staged, 1 skipped: no segmentation (hu_04)"
    assert "imagesTs/: 2 test case(s) not staged (no label maps to score against)" in result.notes
    root = result.paths.root
    assert sorted(p.name for p in (root / "public" / "hu_01").iterdir()) == ["image.nii.gz", "image_0001.nii.gz"]
    assert (root / "private" / "hu_01" / "labels.nii.gz").is_file()
    prov = json.loads((root / "manifest.json").read_text())["provenance"]
    assert prov["layout"] == "msd" and prov["channels"] == ["T2", "ADC"]
    assert prov["labels"] == {"1": "peripheral zone", "2": "transition zone"}


def test_msd_labels_that_are_not_the_tasks_name_the_line_to_write(msd_folder, my_tasks_dir, tmp_path):
    meta = json.loads((msd_folder / "dataset.json").read_text())
    meta["labels"] = {"0": "background", "1": "prostate"}      # the MSD form, another label set
    (msd_folder / "dataset.json").write_text(json.dumps(meta))
    with pytest.raises(DatasetError, match=r"fix: set `labels: \{1: prostate\}` in task.yaml"):
        stage("my-msd-data", msd_folder, "my-msd", my_tasks_dir, tmp_path / "data")
    # organ_lesion reads 1 organ, 2 lesion: a three-label set says to switch the variant
    meta["labels"] = {"0": "background", "1": "a", "2": "b", "3": "c"}
    (msd_folder / "dataset.json").write_text(json.dumps(meta))
    with pytest.raises(DatasetError, match=r"fix: set `variant: multiclass` and `labels: \{1: a, 2: b, 3: c\}`"):
        stage("my-seg-data", msd_folder, "my-seg", my_tasks_dir, tmp_path / "data")
    # a case missing a channel is refused by name, with the file to add
    meta["labels"] = {"0": "background", "1": "peripheral zone", "2": "transition zone"}
    (msd_folder / "dataset.json").write_text(json.dumps(meta))
    (msd_folder / "imagesTr" / "hu_02_0001.nii.gz").unlink()
    with pytest.raises(DatasetError, match=r"case 'hu_02': imagesTr/ has no channel _0001 .* fix: add hu_02_0001.nii.gz"):
        stage("my-msd-data", msd_folder, "my-msd", my_tasks_dir, tmp_path / "data")
    assert not (tmp_path / "data" / "my-msd-data").exists()


def test_the_plain_folders_layout_takes_channel_suffixes_too(seg_folder, my_tasks_dir, tmp_path):
    for f in (seg_folder / "images").iterdir():
        f.rename(f.with_name(f.name.replace(".nii.gz", "_0000.nii.gz")))
    result = stage("my-seg-data", seg_folder, "my-seg", my_tasks_dir, tmp_path / "data")
    assert result.layout == "folders" and result.summary().startswith("4 cases staged")


def test_imagefolder_with_labelled_examples(imagefolder, my_tasks_dir, tmp_path):
    yaml = my_tasks_dir / "my-cls" / "task.yaml"
    yaml.write_text(yaml.read_text().replace("  labels: [normal, abnormal]\n",
                                             "  labels: [normal, abnormal]\n  examples_per_class: 1\n"))
    result = stage("my-cls-data", imagefolder, "my-cls", my_tasks_dir, tmp_path / "data")
    assert result.layout == "imagefolder" and result.summary() == "6 cases staged"
    public = result.paths.public
    assert (public / "_examples" / "labels.csv").read_text().splitlines() == [
        "file,label", "abn_0.png,abnormal", "nor_0.png,normal"]
    assert (result.paths.private / "nor_3" / "label.txt").read_text().strip() == "normal"
    # a folder that is not a label: refused, naming it and the fix
    (imagefolder / "tumour").mkdir()
    (imagefolder / "normal" / "nor_1.png").rename(imagefolder / "tumour" / "t.png")
    with pytest.raises(DatasetError, match=r"layout 'imagefolder': folder\(s\) tumour .* fix: rename"):
        stage("my-cls-data", imagefolder, "my-cls", my_tasks_dir, tmp_path / "data", force=True)


def test_coco_and_yolo_become_the_same_boxes(coco_folder, my_tasks_dir, tmp_path):
    coco = stage("my-det-data", coco_folder, "my-det", my_tasks_dir, tmp_path / "data")
    assert coco.layout == "coco" and coco.summary() == "3 cases staged"
    boxes = json.loads((coco.paths.private / "s2" / "boxes.json").read_text())
    assert boxes["width"] == 64 and boxes["boxes"][0] == {"class": "spot", "x1": 34.0, "y1": 18.0, "x2": 47.0, "y2": 31.0}
    assert json.loads((coco.paths.private / "s3" / "boxes.json").read_text())["boxes"] == []
    # the same boxes as YOLO text labels
    yolo = tmp_path / "spots-yolo"
    (yolo / "labels").mkdir(parents=True)
    (coco_folder / "images").rename(yolo / "images")
    for b in boxes["boxes"]:
        cx, cy = (b["x1"] + b["x2"]) / 2 / 64, (b["y1"] + b["y2"]) / 2 / 64
        with open(yolo / "labels" / "s2.txt", "a") as fh:
            fh.write(f"0 {cx} {cy} {(b['x2'] - b['x1']) / 64} {(b['y2'] - b['y1']) / 64}\n")
    got = stage("my-det-data", yolo, "my-det", my_tasks_dir, tmp_path / "data", force=True)
    assert got.layout == "yolo"
    again = json.loads((got.paths.private / "s2" / "boxes.json").read_text())["boxes"]
    assert [pytest.approx([b[k] for k in ("x1", "y1", "x2", "y2")]) for b in boxes["boxes"]] == \
        [[b[k] for k in ("x1", "y1", "x2", "y2")] for b in again]
    # a category the task does not list: the classes line to write
    (yolo / "classes.txt").write_text("lesion\n")
    with pytest.raises(DatasetError, match=r"layout 'yolo': class\(es\) lesion .* fix: set `classes: \[lesion\]`"):
        stage("my-det-data", yolo, "my-det", my_tasks_dir, tmp_path / "data", force=True)


def test_a_vqa_table_with_open_and_multiple_choice_questions(vqa_folder, my_tasks_dir, tmp_path):
    result = stage("my-vqa-data", vqa_folder, "my-vqa", my_tasks_dir, tmp_path / "data")
    assert result.layout == "table" and result.summary() == "3 cases staged, 1 skipped: no answer (v4)"
    q3 = json.loads((result.paths.public / "v3" / "question.json").read_text())
    assert q3 == {"question_id": "v3", "question": "Is there a bright spot?", "images": ["a.png"],
                  "options": {"A": "yes", "B": "no"}}
    a3 = json.loads((result.paths.private / "v3" / "answer.json").read_text())
    assert a3["label"] == "A" and a3["answer"] == "yes" and a3["answer_type"] == "mcq"
    assert (result.paths.public / "v1" / "a.png").is_file()


def test_no_layout_fits_lists_each_and_a_forced_one_names_what_is_missing(tmp_path, my_tasks_dir):
    empty = tmp_path / "nothing"
    (empty / "stuff").mkdir(parents=True)
    (empty / "stuff" / "sub").mkdir()
    with pytest.raises(DatasetError, match=r"no detection layout recognises this folder; expected one of: "
                                           r"coco: annotations.json .*; yolo: .*; generic: "):
        stage("my-det-data", empty, "my-det", my_tasks_dir, tmp_path / "data")
    with pytest.raises(DatasetError, match=r"layout 'msd': .*/imagesTr/ holds no .* fix: put the images there"):
        stage("my-msd-data", empty, "my-msd", my_tasks_dir, tmp_path / "data", layout="msd")
    with pytest.raises(DatasetError, match=r"--layout coco: track 'segmentation' has no such layout; it has msd, folders, generic"):
        stage("my-msd-data", empty, "my-msd", my_tasks_dir, tmp_path / "data", layout="coco")


def test_link_stages_by_hard_link_and_verify_sees_an_edit_in_place(coco_folder, my_tasks_dir, tmp_path):
    result = stage("my-det-data", coco_folder, "my-det", my_tasks_dir, tmp_path / "data", link=True)
    staged = result.paths.public / "s1" / "image.png"
    assert os.path.samefile(staged, coco_folder / "images" / "s1.png")
    assert result.tally == {"hardlink": 3, "bytes:hardlink": result.tally["bytes:hardlink"]}
    lines = result.disk_lines(link=True)
    assert any(line.startswith("3 file(s) hard-linked to your folder") for line in lines), lines
    assert verify_dataset("my-det-data", tmp_path / "data") == []
    with open(coco_folder / "images" / "s1.png", "ab") as fh:   # the user edits the source in place
        fh.write(b"\0")
    assert verify_dataset("my-det-data", tmp_path / "data") == ["public/s1/image.png: missing or changed since staging"]
    # without --link: a copy, and the summary says how much disk it took and how to avoid it
    copied = stage("my-det-data", coco_folder, "my-det", my_tasks_dir, tmp_path / "data", force=True)
    assert not os.path.samefile(copied.paths.public / "s1" / "image.png", coco_folder / "images" / "s1.png")
    assert any("3 file(s) copied (" in line and "--link stages by hard link" in line
               for line in copied.disk_lines(link=False))


def test_a_report_table_with_whole_reports_or_findings_and_impression(tmp_path):
    """Report generation's `table` layout (reports.csv, the form public report sets ship): each
    study's images and manifest go public, its report private, as the track reads them."""
    from PIL import Image
    src = tmp_path / "iu-like"
    (src / "images").mkdir(parents=True)
    for name in ("a.png", "b.png"):
        Image.new("L", (32, 32), 90).save(src / "images" / name)
    (src / "reports.csv").write_text(
        "uid,filename,findings,impression,report,indication\n"
        "s1,a.png,The lungs are clear.,No acute disease.,,cough\n"
        "s2,a.png;b.png,,,FINDINGS: Heart size normal. IMPRESSION: Normal.,\n"
        "s3,b.png,,,,\n", encoding="utf-8")
    task = get_task("cxr-report-gen")
    result = stage_from_folder(task.dataset, src, task, tmp_path / "data")
    assert result.layout == "table" and result.summary() == "2 cases staged, 1 skipped: no report (s3)"
    study = json.loads((result.paths.public / "s2" / "manifest.json").read_text())
    assert study == {"study_id": "s2", "indication": "",
                     "views": [{"file": "view1.png", "source": "a.png"}, {"file": "view2.png", "source": "b.png"}]}
    assert (result.paths.public / "s2" / "view2.png").is_file()
    text = (result.paths.private / "s1" / "report.txt").read_text()
    assert text == "FINDINGS:\nThe lungs are clear.\n\nIMPRESSION:\nNo acute disease.\n"
    ref, _ = task.track_impl.load_reference(result.paths.private / "s1", {"case_id": "s1"}, task.options)
    assert ref.tokens
    assert verify_dataset(task.dataset, tmp_path / "data") == []
    # no table: the error names the layout and the fix
    (src / "reports.csv").unlink()
    with pytest.raises(DatasetError, match="reports.csv"):
        stage_from_folder(task.dataset, src, task, tmp_path / "data2", layout="table")
