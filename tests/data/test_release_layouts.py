"""Data as public releases ship it (issue 44 item 1; docs/your-task.md section 2): an ImageFolder
with train/ val/ test/ splits, COCO's annotations/instances_<split>.json, SLAKE, VQA-RAD and
PathVQA as released, MIMIC-CXR's folders of .txt reports. Each tree is written here in its
release's shape (synthetic pixels); each is detected, or forced with --layout, and a file it
lacks is named in the refusal. The slow test stages each with ONE command and runs the
`reference` agent on it through bwrap: task > 0 and S3 = 100 on each (imagefolder-splits is a
6-case set), no S3 or logic code, and every VQA answer a word (yes/no questions yes or no, the
modality question a modality)."""
from __future__ import annotations

import json
import os
import pickle
import shutil

import numpy as np
import pytest
from PIL import Image

from automedbench import api
from automedbench.data import DatasetError
from automedbench.data.from_folder import stage_from_folder
from automedbench.tasks import get_task
from tests.cli_forkserver import run_cli

REPORT_TASK = """id: my-report
title: Chest radiograph reports (my data)
track: report-generation
dataset: my-report-data
description: Write the report of each chest radiograph study.
case_unit: imaging study
input_files: [manifest.json]
max_turns: 30
network: false
tiers:
  lite: {model: "Rule-based report writer (numpy/scipy/pillow)", requirements: ["pillow>=10"]}
  standard: {candidates: ["Rule-based report writers", "A vision-language model"]}
  pro: {background: "A chest report names lungs, pleura, heart and bones."}
"""


def _save(path, arr, quality=95):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(arr).save(path, **({"quality": quality} if path.suffix == ".jpg" else {}))


def _patch(level, seed):
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(level, 12, (24, 24, 3)), 0, 255).astype(np.uint8)


def _spots(size, discs, seed=0):
    """A dark noisy image with saturated discs (cx, cy, r)."""
    yy, xx = np.mgrid[:size, :size]
    img = np.random.default_rng(seed).normal(30, 4, (size, size))
    for cx, cy, r in discs:
        img[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] = 255
    return np.clip(img, 0, 255).astype(np.uint8)


# ---- the trees, as each release ships them ------------------------------------------------------

def imagefolder_splits(root):
    """train/ val/ test/, one folder per label in each (dark normal, bright abnormal), neutral names."""
    for split, n in (("train", 3), ("val", 2), ("test", 3)):
        for label, level in (("normal", 50), ("abnormal", 190)):
            for i in range(n):
                _save(root / split / label / f"{split[:2]}{label[:1]}{i}.png", _patch(level, len(split) * 100 + level + i))
    return root


def imagefolder_flat(root):
    for label, level in (("normal", 50), ("abnormal", 190)):
        for i in range(4):
            _save(root / label / f"{label[:1]}{i:02d}.png", _patch(level, i))
    return root


def coco_splits(root):
    """annotations/instances_{train,val}2017.json + train2017/ val2017/ (COCO 2017's own shape)."""
    for split, spots in (("train2017", {"t1.png": [(20, 20, 5)]}),
                         ("val2017", {"v1.png": [(20, 20, 5)], "v2.png": [(40, 24, 6), (16, 44, 5)], "v3.png": []})):
        images, anns = [], []
        for iid, (name, discs) in enumerate(spots.items(), 1):
            _save(root / split / name, _spots(64, discs, iid))
            images.append({"id": iid, "file_name": name, "width": 64, "height": 64})
            anns += [{"id": len(anns) + 1, "image_id": iid, "category_id": 1, "iscrowd": 0,
                      "bbox": [cx - r, cy - r, 2 * r + 1, 2 * r + 1]} for cx, cy, r in discs]
        (root / "annotations").mkdir(parents=True, exist_ok=True)
        (root / "annotations" / f"instances_{split}.json").write_text(json.dumps(
            {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "spot"}]}))
    return root


QUESTIONS = [("Are there lesions in this image?", "yes", True), ("Is this an MRI?", "yes", True),
             ("What modality is used to take this image?", "MRI", True), ("How many lesions are there?", "1", True),
             ("Is there a lesion?", "no", False), ("Which organ is shown?", "brain", True)]


def slake(root):
    """Slake1.0/{train,validate,test}.json + imgs/xmlab<N>/source.jpg, English and Chinese rows."""
    base = root / "Slake1.0"
    items = []
    for n, (question, answer, spot) in enumerate(QUESTIONS):
        _save(base / "imgs" / f"xmlab{n}" / "source.jpg", _spots(64, [(30, 30, 6)] if spot else [], n))
        items.append({"img_id": n, "img_name": f"xmlab{n}/source.jpg", "question": question, "answer": answer,
                      "q_lang": "en", "answer_type": "CLOSED" if answer in ("yes", "no") else "OPEN",
                      "content_type": "Abnormality", "modality": "MRI", "location": "Brain", "qid": n})
    items.append({"img_id": 0, "img_name": "xmlab0/source.jpg", "question": "图中有病变吗?", "answer": "是",
                  "q_lang": "zh", "answer_type": "CLOSED", "content_type": "Abnormality", "qid": 99})
    (base / "test.json").write_text(json.dumps(items, ensure_ascii=False))
    (base / "train.json").write_text(json.dumps(items[:1]))
    return root


def vqa_rad(root):
    """`VQA_RAD Dataset Public.json` + `VQA_RAD Image Folder/` (the OSF release)."""
    items = []
    for n, (question, answer, spot) in enumerate(QUESTIONS):
        _save(root / "VQA_RAD Image Folder" / f"synpic{n}.jpg", _spots(64, [(30, 30, 6)] if spot else [], n))
        items.append({"qid": n, "image_name": f"synpic{n}.jpg", "question": question, "answer": answer,
                      "answer_type": "CLOSED" if answer in ("yes", "no") else "OPEN", "question_type": "PRES",
                      "phrase_type": "test_freeform" if n < 3 else "freeform", "image_organ": "HEAD"})
    (root / "VQA_RAD Dataset Public.json").write_text(json.dumps(items))
    return root


def pathvqa(root):
    """pvqa/qas/test/test_qa.pkl + pvqa/images/test/<image>.jpg."""
    items = []
    for n, (question, answer, spot) in enumerate(QUESTIONS):
        _save(root / "pvqa" / "images" / "test" / f"test_{n:04d}.jpg", _spots(64, [(30, 30, 6)] if spot else [], n))
        items.append({"image": f"test_{n:04d}", "question": question, "answer": answer})
    (root / "pvqa" / "qas" / "test").mkdir(parents=True)
    (root / "pvqa" / "qas" / "test" / "test_qa.pkl").write_bytes(pickle.dumps(items))
    return root


REPORT = """                                 FINAL REPORT
 EXAMINATION:  CHEST (PA AND LAT)

 INDICATION:  ___F with cough  // eval for pneumonia

 FINDINGS:

 The lungs are clear. No pleural effusion or pneumothorax. The cardiomediastinal
 silhouette is normal.

 IMPRESSION:

 No acute cardiopulmonary process.
"""


def _chest(seed, lateral=False):
    """A radiograph-like picture: bright body, two darker lung fields (or one, lateral)."""
    rng = np.random.default_rng(seed)
    img = np.full((128, 128), 40.0)
    img[10:120, 12:116] = 170
    for x0, x1 in (((30, 90),) if lateral else ((22, 52), (76, 106))):
        img[20:95, x0:x1] = 70
    return np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)


def mimic_cxr(root):
    """files/p10/p1000000<k>/s5000000<k>.txt + s5000000<k>/<dicom_id>.jpg, the metadata table,
    one study folder without its report."""
    rows = ["dicom_id,subject_id,study_id,ViewPosition"]
    for k in range(5):
        patient = root / "files" / "p10" / f"p1000000{k}"
        study = f"s5000000{k}"
        for view, lateral in (("b-lat", True), ("a-pa", False)):
            dicom = f"{view}{k}"
            _save(patient / study / f"{dicom}.jpg", _chest(k * 2 + lateral, lateral))
            rows.append(f"{dicom},1000000{k},5000000{k},{'LATERAL' if lateral else 'PA'}")
        if k < 4:
            (patient / f"{study}.txt").write_text(REPORT)
    (root / "mimic-cxr-2.0.0-metadata.csv").write_text("\n".join(rows) + "\n")
    return root


def _tasks(my_tasks_dir, examples=0):
    cls = my_tasks_dir / "my-cls" / "task.yaml"
    cls.write_text(cls.read_text().replace("  labels: [normal, abnormal]\n",
                                           f"  labels: [normal, abnormal]\n  examples_per_class: {examples}\n"))
    vqa = my_tasks_dir / "my-vqa" / "task.yaml"   # a release's questions are yes/no and open
    vqa.write_text(vqa.read_text().replace("mode: mixed", "mode: open"))
    (my_tasks_dir / "my-report").mkdir()
    (my_tasks_dir / "my-report" / "task.yaml").write_text(REPORT_TASK)
    return my_tasks_dir


def stage(folder, task_id, tasks, data, **kw):
    task = get_task(task_id, [tasks])
    return stage_from_folder(task.dataset, folder, task, data, **kw)


# ---- each layout: detected, its split chosen, what it lacks named -------------------------------

def test_an_imagefolder_with_splits_takes_examples_from_train_and_cases_from_test(my_tasks_dir, tmp_path):
    tasks, folder = _tasks(my_tasks_dir, examples=2), imagefolder_splits(tmp_path / "chest-xray")
    result = stage(folder, "my-cls", tasks, tmp_path / "data")
    assert result.layout == "imagefolder-splits" and result.summary() == "6 cases staged"
    public = result.paths.public
    assert sorted(p.name for p in public.iterdir() if p.name != "_examples") == [
        "tea0", "tea1", "tea2", "ten0", "ten1", "ten2"]
    assert (public / "_examples" / "labels.csv").read_text().splitlines() == [
        "file,label", "tra0.png,abnormal", "tra1.png,abnormal", "trn0.png,normal", "trn1.png,normal"]
    assert "val/: not staged (--split val stages it as the cases)" in result.notes
    # --split val: the validation images are the cases; train/ still gives the examples
    val = stage(folder, "my-cls", tasks, tmp_path / "data", force=True, split="val")
    assert val.summary() == "4 cases staged" and (val.paths.private / "van1" / "label.txt").read_text() == "normal\n"
    manifest = json.loads((val.paths.root / "manifest.json").read_text())
    assert manifest["provenance"]["split"] == "val" and "test/: not staged" in " ".join(val.notes)
    with pytest.raises(DatasetError, match=r"--split train: train/ holds the labelled examples"):
        stage(folder, "my-cls", tasks, tmp_path / "data", force=True, split="train")
    shutil.rmtree(folder / "test")
    shutil.rmtree(folder / "val")
    with pytest.raises(DatasetError, match=r"layout 'imagefolder-splits': .*chest-xray/test/ is missing "
                                           r"\(it has train/\)"):
        stage(folder, "my-cls", tasks, tmp_path / "data", force=True)


def test_without_examples_per_class_train_is_said_not_staged(my_tasks_dir, tmp_path):
    result = stage(imagefolder_splits(tmp_path / "x"), "my-cls", my_tasks_dir, tmp_path / "data")
    assert not (result.paths.public / "_examples").exists()
    assert any(n.startswith("train/: not staged (set `examples_per_class: N`") for n in result.notes), result.notes


def test_coco_instances_per_split_default_val_and_the_missing_file_named(my_tasks_dir, tmp_path):
    folder = coco_splits(tmp_path / "coco")
    result = stage(folder, "my-det", my_tasks_dir, tmp_path / "data")
    assert result.layout == "coco" and result.summary() == "3 cases staged"
    assert json.loads((result.paths.private / "v2" / "boxes.json").read_text())["boxes"][0] == {
        "class": "spot", "x1": 34.0, "y1": 18.0, "x2": 47.0, "y2": 31.0}
    assert "annotations/instances_train2017.json: not staged" in " ".join(result.notes)
    train = stage(folder, "my-det", my_tasks_dir, tmp_path / "data", force=True, split="train")
    assert train.staged == ["t1"]
    with pytest.raises(DatasetError, match=r"coco/annotations/instances_test.json is missing \(it has "
                                           r"instances_train2017.json, instances_val2017.json\)"):
        stage(folder, "my-det", my_tasks_dir, tmp_path / "data", force=True, split="test")
    (folder / "annotations" / "instances_val2017.json").unlink()
    assert stage(folder, "my-det", my_tasks_dir, tmp_path / "data", force=True).staged == ["t1"]   # the only one


def test_slake_vqa_rad_and_pathvqa_as_released(my_tasks_dir, tmp_path):
    tasks = _tasks(my_tasks_dir)
    for name, build, ids in (("slake", slake, [f"slake_{i}" for i in range(6)]),
                             ("vqa-rad", vqa_rad, ["vqarad_0", "vqarad_1", "vqarad_2"]),
                             ("pathvqa", pathvqa, [f"pathvqa_test_0000{i}" for i in range(6)])):
        result = stage(build(tmp_path / name), "my-vqa", tasks, tmp_path / "data", force=True)
        assert result.layout == name and result.staged == ids, (name, result.staged)
        q = json.loads((result.paths.public / ids[0] / "question.json").read_text())
        assert q["question"] == QUESTIONS[0][0] and q["images"] == ["image_0.jpg"]
        assert (result.paths.public / ids[0] / "image_0.jpg").is_file()
        assert json.loads((result.paths.private / ids[0] / "answer.json").read_text())["answer"] == "yes"
    with pytest.raises(DatasetError, match=r"layout 'slake': .*Slake1.0/validate.json is missing \(SLAKE's validate "
                                           r"questions; it has train.json, test.json\)"):
        stage(tmp_path / "slake", "my-vqa", tasks, tmp_path / "data", force=True, split="validate")
    empty = tmp_path / "empty"
    empty.mkdir()
    for layout, missing in (("vqa-rad", "empty/VQA_RAD Dataset Public.json is missing"),
                            ("pathvqa", "empty/qas/test/test_qa.pkl is missing"),
                            ("slake", "empty/test.json is missing")):
        with pytest.raises(DatasetError, match=f"layout '{layout}': .*{missing}"):
            stage(empty, "my-vqa", tasks, tmp_path / "data", force=True, layout=layout)


def test_mimic_cxr_report_folders(my_tasks_dir, tmp_path):
    tasks = _tasks(my_tasks_dir)
    result = stage(mimic_cxr(tmp_path / "mimic-cxr-jpg"), "my-report", tasks, tmp_path / "data")
    assert result.layout == "mimic-cxr"
    assert result.summary() == "4 cases staged, 1 skipped: no report (s50000004)"
    study = json.loads((result.paths.public / "s50000001" / "manifest.json").read_text())
    assert study["indication"] == "___F with cough // eval for pneumonia"
    assert [(v["file"], v["source"], v["view_position"]) for v in study["views"]] == [
        ("view1.jpg", "a-pa1.jpg", "PA"), ("view2.jpg", "b-lat1.jpg", "LATERAL")]
    assert "The lungs are clear." in (result.paths.private / "s50000001" / "report.txt").read_text()


def test_a_split_for_a_layout_without_splits_is_refused(my_tasks_dir, tmp_path):
    with pytest.raises(DatasetError, match=r"--split val: layout 'imagefolder' has no splits to choose from"):
        stage(imagefolder_flat(tmp_path / "flat"), "my-cls", my_tasks_dir, tmp_path / "data", split="val")


# ---- one command each, then the baseline through bwrap ------------------------------------------

LAYOUTS = {   # layout -> (tree, task, split)
    "imagefolder-splits": (imagefolder_splits, "my-cls", None),
    "imagefolder": (imagefolder_flat, "my-cls", None),
    "coco": (coco_splits, "my-det", "val"),
    "slake": (slake, "my-vqa", None),
    "vqa-rad": (vqa_rad, "my-vqa", "test"),
    "pathvqa": (pathvqa, "my-vqa", None),
    "mimic-cxr": (mimic_cxr, "my-report", None),
}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_each_release_layout_stages_with_one_command_and_the_baseline_scores(layout, my_tasks_dir, tmp_path):
    build, task_id, split = LAYOUTS[layout]
    tasks = _tasks(my_tasks_dir, examples=1)
    folder = build(tmp_path / "release")
    dataset = get_task(task_id, [tasks]).dataset
    data = tmp_path / "data"
    st = run_cli(["data", "stage", dataset, "--from-folder", folder, "--task", task_id, "--tasks-dir", tasks,
                  *(["--split", split] if split else [])],
                 cwd=tmp_path, env={**os.environ, "AUTOMEDBENCH_DATA": str(data), "COLUMNS": "200"}, timeout=300)
    assert st.returncode == 0 and f"layout {layout!r}: " in st.stderr, st.stderr

    report = api.run_one(task_id, "lite", "reference", tmp_path / "runs", api.RunOptions(
        sandbox="bwrap", data_root=data, tasks_dirs=[tasks], network=False))
    assert "Traceback" not in (report.run_dir / "trace.jsonl").read_text()
    assert report.run.end_reason == "submitted", report.run
    assert report.task.completion_rate == 1.0 and report.task.score > 0, report.task
    s3 = report.stages["s3"]
    assert s3 is not None and s3.score == 1.0, (layout, s3)     # one case piloted and looked at
    codes = {e.code for e in report.errors}
    assert not codes & {"NO_PILOT", "PILOT_NOT_INSPECTED", "PILOT_SUPERSEDED", "PILOT_UNRESOLVED", "LOGIC_SUSPECT"}, report.errors
    if task_id == "my-vqa":   # every question answered, yes/no and modality ones with a word, not ""
        answers = {p.parent.name: json.loads(p.read_text())["predicted_answer"]
                   for p in (report.run_dir / "workspace" / "outputs").glob("*/answer.json")}
        asked = {p.parent.name: json.loads(p.read_text())["question"]
                 for p in (data / dataset / "public").glob("*/question.json")}
        assert answers.keys() == asked.keys() and all(a.strip() for a in answers.values()), answers
        for case, question in asked.items():
            if question.startswith(("Is ", "Are ", "Does ")):
                assert answers[case] in ("yes", "no"), (question, answers[case])
            if "modality" in question:
                assert answers[case] not in ("", "unknown"), (question, answers[case])


def test_split_reaches_the_official_stagers_too(tmp_path):
    """`data stage slake-en --source DIR --split train`: the same option for an official stager."""
    folder = slake(tmp_path / "release")
    env = {**os.environ, "AUTOMEDBENCH_DATA": str(tmp_path / "data"), "COLUMNS": "200"}
    st = run_cli(["data", "stage", "slake-en", "--source", folder, "--split", "train"], cwd=tmp_path, env=env,
                 timeout=300)
    assert st.returncode == 0, st.stderr
    manifest = json.loads((tmp_path / "data" / "slake-en" / "manifest.json").read_text())
    assert manifest["stage_options"]["split"] == "train" and [c["case_id"] for c in manifest["cases"]] == ["slake_0"]
    bad = run_cli(["data", "stage", "vqa-demo-open", "--split", "train"], cwd=tmp_path, env=env, timeout=300)
    assert bad.returncode != 0 and "unknown option(s) ['split']" in bad.stderr, bad.stderr
