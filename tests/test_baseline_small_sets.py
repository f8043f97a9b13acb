"""The `reference` baseline earns its row on small own sets (issue 44, item 3; docs/your-task.md
section 5, docs/faults.md "S3's codes", docs/tracks/detection.md and report-generation.md
"Logic check").

Four folders as a researcher's small sets lie (a 6-case ImageFolder, a SLAKE-style question
table, five COCO images, five chest-film reports) are staged and run by `reference` through the
CLI in the bwrap sandbox: S3 is 100 on each (one case piloted and looked at), the VQA answers
are not empty, no LOGIC_SUSPECT fires on an honest miss, and no code contradicts its verdict."""
from __future__ import annotations

import csv
import json
import os
import shutil

import numpy as np
import pytest
from PIL import Image

from automedbench.runs.models import CaseResult, StageResult, TaskResult
from automedbench.scoring.error_codes import detect_errors
from automedbench.tracks.detection.slips import slip_explaining_misses
from automedbench.tracks.reportgen.body_parts import wrong_body_part
from automedbench.tracks.reportgen.text import tokenize
from tests.cli_forkserver import run_cli

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

REPORT_TASK = """id: my-report
title: Chest film reports (my data)
track: report-generation
dataset: my-report-data
description: Write the findings of each chest film.
case_unit: imaging study
input_files: [manifest.json, view1.png]
max_turns: 30
network: false
track_options:
  output_file: report.txt
  section: findings
tiers:
  lite: {model: "Rule-based report writer (numpy/scipy/pillow)", requirements: ["pillow>=10"]}
  standard: {candidates: ["Rule-based report writers", "A vision-language model"]}
  pro: {background: "Chest radiograph reports."}
"""

# SLAKE's questions, as its release words them: yes/no, modality, plane and organ
SLAKE_QUESTIONS = [("Is this a CT image?", "Yes", "CLOSED", "ct.jpg"),
                   ("What modality is used to take this image?", "CT", "OPEN", "ct.jpg"),
                   ("Which plane is this image taken?", "Transverse Plane", "OPEN", "ct.jpg"),
                   ("Which organ system is shown in this image?", "Chest", "OPEN", "ct.jpg"),
                   ("Does the picture contain lung?", "Yes", "CLOSED", "ct.jpg"),
                   ("Is this an MRI?", "Yes", "CLOSED", "mr.jpg"),
                   ("What is the scanning plane of this image?", "Transverse Plane", "OPEN", "mr.jpg"),
                   ("Which part of the body does this image belong to?", "Brain", "OPEN", "mr.jpg")]


def spot_image(size, spots):
    """A dark noisy image with bright discs at (cx, cy, r)."""
    yy, xx = np.mgrid[:size, :size]
    img = np.random.default_rng(size).normal(30, 4, (size, size))
    for cx, cy, r in spots:
        img[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] = 220
    return np.clip(img, 0, 255).astype(np.uint8)


def _ellipses(shapes, seed):
    yy, xx = np.mgrid[:128, :128]
    a = np.zeros((128, 128))
    for cx, cy, rx, ry, v in shapes:
        a[((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2 <= 1] = v
    return np.clip(a + np.random.default_rng(seed).normal(0, 5, a.shape), 0, 255).astype(np.uint8)


def slake_folder(root):
    (root / "images").mkdir(parents=True)
    Image.fromarray(_ellipses([(64, 64, 50, 40, 90), (45, 60, 12, 18, 30), (83, 60, 12, 18, 30)], 0)
                    ).convert("RGB").save(root / "images" / "ct.jpg")
    Image.fromarray(_ellipses([(64, 64, 45, 55, 120), (64, 64, 30, 40, 170)], 1)).convert("RGB").save(
        root / "images" / "mr.jpg")
    (root / "questions.json").write_text(json.dumps([
        {"qid": i, "img_name": img, "question": q, "answer": a, "answer_type": t, "q_lang": "en"}
        for i, (q, a, t, img) in enumerate(SLAKE_QUESTIONS)]))


def coco_five(root):
    """Five images; s4's second spot (5 px across) is below the reference detector's smallest
    object: an honest miss that put s4 at half the others' found50 (LOGIC_SUSPECT before)."""
    (root / "images").mkdir(parents=True)
    spots = {"s1.png": [(20, 20, 5)], "s2.png": [(40, 24, 6), (16, 44, 5)], "s3.png": [],
             "s4.png": [(30, 40, 7), (50, 12, 2)], "s5.png": [(12, 12, 4), (48, 48, 6)]}
    images, anns = [], []
    for iid, (name, discs) in enumerate(spots.items(), 1):
        Image.fromarray(spot_image(64 + iid, discs)).save(root / "images" / name)
        images.append({"id": iid, "file_name": name, "width": 64 + iid, "height": 64 + iid})
        anns += [{"id": len(anns) + 1, "image_id": iid, "category_id": 1,
                  "bbox": [cx - r, cy - r, 2 * r + 1, 2 * r + 1]} for cx, cy, r in discs]
    (root / "annotations.json").write_text(json.dumps(
        {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "spot"}]}))


def chest_reports(root):
    """Five synthetic chest films and their reports, worded as differently as real ones are."""
    (root / "images").mkdir(parents=True)
    yy, xx = np.mgrid[:256, :256] / 256.0
    rows = [("CXR1", "The lungs are clear.", "No acute cardiopulmonary abnormality.", None),
            ("CXR2", "PA and lateral views of the chest were obtained. No focal airspace consolidation is seen.",
             "No acute disease.", None),
            ("CXR3", "There is a right pleural effusion. The heart size is normal.", "Right pleural effusion.", 0.27),
            ("CXR4", "Heart size normal. The lungs are clear. No pneumothorax.", "Normal chest.", None),
            ("CXR5", "Stable appearance of the chest compared with prior.", "No change.", None)]
    with open(root / "reports.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["uid", "filename", "findings", "impression"])
        for i, (uid, findings, impression, effusion) in enumerate(rows):
            a = np.full((256, 256), 200.0)
            for cx in (0.27, 0.73):
                a[((xx - cx) / 0.13) ** 2 + ((yy - 0.45) / 0.3) ** 2 <= 1] = 60
            if effusion:
                a[(np.abs(xx - effusion) < 0.13) & (yy > 0.62) & (yy < 0.76)] = 170
            a += np.random.default_rng(i).normal(0, 12, a.shape)
            Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(root / "images" / f"{uid}.png")
            w.writerow([uid, f"{uid}.png", findings, impression])


@needs_bwrap
@pytest.mark.slow
def test_reference_earns_its_row_on_small_own_sets(tmp_path, my_tasks_dir, imagefolder):
    env = {**os.environ, "AUTOMEDBENCH_DATA": str(tmp_path / "data"), "COLUMNS": "200"}
    cls_yaml = my_tasks_dir / "my-cls" / "task.yaml"      # 8 images: 2 labelled examples, 6 cases
    cls_yaml.write_text(cls_yaml.read_text().replace("  labels: [normal, abnormal]\n",
                                                     "  labels: [normal, abnormal]\n  examples_per_class: 1\n"))
    (my_tasks_dir / "my-report").mkdir()
    (my_tasks_dir / "my-report" / "task.yaml").write_text(REPORT_TASK)
    slake_folder(tmp_path / "slake")
    coco_five(tmp_path / "coco")
    chest_reports(tmp_path / "reports")
    for ds, folder, task, summary in (("my-cls-data", imagefolder, "my-cls", "6 cases staged"),
                                      ("my-vqa-data", tmp_path / "slake", "my-vqa", "8 cases staged"),
                                      ("my-det-data", tmp_path / "coco", "my-det", "5 cases staged"),
                                      ("my-report-data", tmp_path / "reports", "my-report", "5 cases staged")):
        st = run_cli(("data", "stage", ds, "--from-folder", folder, "--task", task, "--tasks-dir", my_tasks_dir),
                     cwd=tmp_path, env=env, timeout=300)
        assert st.returncode == 0 and f"{ds}: {summary}" in st.stderr, st.stderr
    reports = {}
    for task in ("my-cls", "my-vqa", "my-det", "my-report"):
        done = run_cli(("run", "--task", task, "--agent", "reference", "--tasks-dir", my_tasks_dir, "--sandbox",
                        "bwrap", "--network", "off", "--out", tmp_path / "runs"), cwd=tmp_path, env=env, timeout=600)
        assert done.returncode == 0, done.stderr
        found = list((tmp_path / "runs").glob(f"*_{task}_lite_reference_*/detail_report.json"))
        reports[task] = json.loads(found[0].read_text())
    for task, r in reports.items():
        codes = {e["code"] for e in r["errors"]}
        # one case piloted and looked at, on 5, 6 or 8 cases
        assert r["stages"]["s3"]["score"] == 1.0, (task, r["stages"]["s3"]["rationale"])
        assert "LOGIC_SUSPECT" not in codes and not codes & {"NO_PILOT", "PILOT_NOT_INSPECTED", "PILOT_SUPERSEDED", "PILOT_UNRESOLVED"}, \
            (task, r["errors"])
        assert r["task"]["completion_rate"] == 1.0 and r["task"]["score"] > 0, (task, r["task"]["score"])
    assert reports["my-det"]["task"]["per_case"][3]["metrics"]["found50"] == 0.5   # the honest miss is scored
    vqa = reports["my-vqa"]
    run_dir = next((tmp_path / "runs").glob("*_my-vqa_lite_reference_*"))
    answers = {p.parent.name: json.loads(p.read_text())["predicted_answer"]
               for p in (run_dir / "workspace" / "outputs").glob("*/answer.json")}
    assert len(answers) == 8 and all(a.strip() and a != "unknown" for a in answers.values()), answers
    assert answers["0"] == "yes" and answers["1"] == "ct"      # "Is this a CT image?" read from the image
    assert {answers[q] for q in ("4", "5")} <= {"yes", "no"}     # yes/no questions get yes or no
    assert {"PLACEHOLDER_OUTPUT"}.isdisjoint(e["code"] for e in vqa["errors"])


def _s3(value: float, rationale: str) -> dict[str, StageResult | None]:
    return {"s3": StageResult(score=value, items={"s3": value}, rationale=rationale)}


@pytest.mark.parametrize("rationale, code", [
    ("no pilot; outputs were opened and printed after they were written; pilot: no (no call); "
     "inspection: no (no call); failed inspection: no (no call)", "NO_PILOT"),
    ("a pilot ran before the batch but no later call opened its output; pilot: yes (calls #4); "
     "inspection: no (no call); failed inspection: no (no call)", "PILOT_NOT_INSPECTED"),
    ("a pilot ran before the batch and was looked at (call #5), but the batch ran another method or other "
     "settings and did not submit what the look saw (outcome consistency); pilot: yes (calls #4); "
     "inspection: no (no call); superseded look: yes (calls #5); failed inspection: no (no call)", "PILOT_SUPERSEDED"),
    ("the pilot's inspection found a problem and no pilot output was re-written; pilot: yes (calls #4); "
     "inspection: yes (calls #5); failed inspection: yes (calls #5); fix: no (no call)", "PILOT_UNRESOLVED"),
])
def test_a_half_s3_fires_the_code_its_verdict_states(tmp_path, rationale, code):
    task = TaskResult(metric_name="score", per_case=[CaseResult(case_id="a", valid=True)], format_valid=True,
                      completion_rate=1.0)
    fired = detect_errors([], _s3(0.5, rationale), task, submitted=True, end_reason="submitted",
                          workspace=tmp_path, logic_metric=None)
    assert [e.code for e in fired if e.step == "S3"] == [code]


def test_detection_flags_a_geometric_slip_and_not_a_miss():
    ref = {"boxes": np.array([[0, 10, 10, 20, 20], [0, 50, 30, 62, 44]], float), "width": 100, "height": 80}
    missed_one = np.array([[0, .9, 10, 10, 20, 20]], float)
    assert slip_explaining_misses(missed_one, ref, 0.5, 100) == ""
    mirrored = np.array([[0, .9, 80, 10, 90, 20], [0, .8, 38, 30, 50, 44]], float)
    assert slip_explaining_misses(mirrored, ref, 0.5, 100).startswith("boxes mirrored left-right: found 0 of 2")
    swapped = np.array([[0, .9, 10, 10, 20, 20], [0, .8, 30, 50, 44, 62]], float)
    assert slip_explaining_misses(swapped, ref, 0.5, 100).startswith("boxes x and y swapped: found 1 of 2")


def test_report_for_another_body_part_is_named():
    chest = tokenize("The lungs are clear. No pleural effusion or pneumothorax.")
    leg = tokenize("There is a transverse fracture of the mid tibial shaft. The ankle joint is preserved.")
    assert wrong_body_part(chest, leg) == "a chest report for a lower limb study (body parts named in the findings)"
    assert wrong_body_part(chest, tokenize("Heart size normal.")) == ""
    assert wrong_body_part(chest, tokenize("No acute disease.")) == ""      # the reference names no part
