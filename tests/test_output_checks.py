"""The harness's per-output checks (docs/judge.md "Per-output checks"): the real tracks' own
per-case checks run on real files of the embedded datasets, as the agent loop runs them after
each call (scoring/output_checks.py)."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from automedbench.api import ensure_dataset
from automedbench.scoring.output_checks import MAX_UNITS_PER_CALL, OutputChecks
from automedbench.tasks import get_task

WS, PUB = "/workspace", "/data/public"


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _world(task_id: str, tmp_path: Path, staged_once):
    task = get_task(task_id)
    staged_once(task.dataset, tmp_path / "data")
    paths = ensure_dataset(task, tmp_path / "data")
    cases = [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]
    ws = tmp_path / "ws"
    gold = tmp_path / "gold"
    gold.mkdir()
    task.track_impl.gold_submission(paths.root, gold, task.options)
    checker = OutputChecks(task.track_impl, task.options, cases, paths.private, workspace=(ws, WS),
                           public=(paths.public, PUB))
    return task, paths, ws, gold, checker, [str(c["case_id"]) for c in cases]


def _effects(ws: Path, rels: list[str]) -> dict:
    return {"written": [{"path": f"{WS}/{r}", "op": "created", "size": (ws / r).stat().st_size,
                         "sha256": _sha(ws / r)} for r in rels]}


def _put(src: Path, ws: Path, rel: str) -> str:
    (ws / rel).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, ws / rel)
    return rel


def test_segmentation_valid_wrong_shape_empty_and_copy_of_input(tmp_path, staged_once):
    task, paths, ws, gold, checker, ids = _world("brain-lesion-seg", tmp_path, staged_once)
    names = task.track_impl.submission(task.options).file_names
    case = ids[0]
    # a valid pilot, written in a scratch folder: units are found wherever they are written
    rels = [_put(gold / case / n, ws, f"scratch/{case}/{n}") for n in names]
    [check] = checker(_effects(ws, rels))
    assert check.path == f"{WS}/scratch/{case}" and check.case_id == case
    assert check.valid and check.passed and check.problem == ""
    shape = list(nib.load(str(gold / case / names[0])).shape)
    assert check.facts[f"{WS}/scratch/{case}/{names[0]}"]["facts"]["shape"] == shape
    # the wrong grid: invalid, and the reason says so
    img = nib.load(str(gold / case / names[0]))
    for n in names:
        nib.save(nib.Nifti1Image(np.zeros((5, 5, 5), np.uint8), img.affine), str(ws / "scratch" / case / n))
    [check] = checker(_effects(ws, rels))
    assert not check.valid and not check.passed and "shape" in check.problem.lower()
    # empty masks on the right grid: valid but trivial, which a segmentation is never
    for n in names:
        nib.save(nib.Nifti1Image(np.zeros(img.shape, np.uint8), img.affine), str(ws / "scratch" / case / n))
    [check] = checker(_effects(ws, rels))
    assert check.valid and check.non_trivial is False and not check.passed and "trivial" in check.problem
    # the input volume copied in as a prediction
    src = next(p for p in (paths.public / case).iterdir() if p.name.endswith(".nii.gz"))
    rel = _put(src, ws, f"outputs/{case}/{names[0]}")
    [check] = checker(_effects(ws, [rel]))
    assert check.copy_of_input and not check.passed and check.problem
    # ... and re-saved (other bytes, the same voxels): still the input
    src_img = nib.load(str(src))
    nib.save(nib.Nifti1Image(np.asarray(src_img.dataobj), src_img.affine), str(ws / rel))
    assert _sha(ws / rel) != _sha(src)
    [check] = checker(_effects(ws, [rel]))
    assert check.copy_of_input and not check.passed


def test_only_contract_files_in_case_folders_count_and_a_call_checks_a_few(tmp_path, staged_once):
    task, paths, ws, gold, checker, ids = _world("brain-lesion-seg", tmp_path, staged_once)
    names = task.track_impl.submission(task.options).file_names
    other = ws / "notes" / "x.nii.gz"
    other.parent.mkdir(parents=True)
    other.write_bytes(b"not a unit")
    assert checker(_effects(ws, ["notes/x.nii.gz"])) == []
    rels = [_put(gold / c / n, ws, f"outputs/{c}/{n}") for c in ids for n in names]
    checks = checker(_effects(ws, rels))
    assert len(checks) == min(MAX_UNITS_PER_CALL, len(ids)) and all(c.passed for c in checks)


def test_detection_no_boxes_can_be_right(tmp_path, staged_once):
    task, paths, ws, gold, checker, ids = _world("xray-marker-det", tmp_path, staged_once)
    out = task.options.output_file
    rel = f"outputs/{ids[0]}/{out}"
    (ws / rel).parent.mkdir(parents=True)
    (ws / rel).write_text(json.dumps({"boxes": []}))
    [check] = checker(_effects(ws, [rel]))
    assert check.valid and check.passed, check
    (ws / rel).write_text(json.dumps({"boxes": [{"class": "x", "score": 1, "x1": 5, "y1": 5, "x2": 1, "y2": 1}]}))
    [check] = checker(_effects(ws, [rel]))
    assert not check.valid and check.problem


def test_cohort_file_rows_checked(tmp_path, staged_once):
    task, paths, ws, gold, checker, ids = _world("modality-patch-cls", tmp_path, staged_once)
    name = task.track_impl.submission(task.options).file_names[0]
    rel = _put(gold / name, ws, f"outputs/{name}")
    [check] = checker(_effects(ws, [rel]))
    assert check.valid and check.passed and check.facts[f"{WS}/{rel}"]["facts"]["rows"] == len(ids)
    text = (ws / rel).read_text().splitlines()
    header, first = text[0], text[1].split(",")
    (ws / rel).write_text("\n".join([header, ",".join([first[0], "no-such-label", *first[2:]])]) + "\n")
    [check] = checker(_effects(ws, [rel]))
    assert not check.valid and not check.passed and first[0] in check.problem


def test_the_agent_loop_records_the_checks(tmp_path):
    """Through the real loop and sandbox: the reference agent's pilot is checked when written."""
    from automedbench.api import run_one
    from automedbench.runs.trace import read_trace
    report = run_one("xray-marker-det", "lite", "reference", tmp_path / "runs")
    events = [e for e in read_trace(Path(report.run_dir) / "trace.jsonl") if e.type == "execution"]
    checked = [c for e in events for c in (e.output_checks or [])]
    assert checked and all(c.passed for c in checked)
    assert {c.case_id for c in checked} >= {checked[0].case_id}
    first = next(e for e in events if e.output_checks)
    assert len({c.case_id for c in first.output_checks}) == 1   # the pilot: one case, checked as written


@pytest.mark.parametrize("bad", ["{not json", "[]"])
def test_a_broken_unit_is_a_reason_never_a_crash(tmp_path, staged_once, bad):
    task, paths, ws, gold, checker, ids = _world("xray-marker-det", tmp_path, staged_once)
    rel = f"outputs/{ids[0]}/{task.options.output_file}"
    (ws / rel).parent.mkdir(parents=True)
    (ws / rel).write_text(bad)
    [check] = checker(_effects(ws, [rel]))
    assert not check.valid and check.problem


def test_enhancement_output_not_in_the_input_units_is_implausible(tmp_path, staged_once):
    """The careless agent's bug (a [0, 1] normalisation kept): valid for the contract, but a look
    at it shows values in the wrong units, and the harness's check says so."""
    task, paths, ws, gold, checker, ids = _world("ldct-denoise", tmp_path, staged_once)
    name = task.options.output_file
    rel = _put(gold / ids[0] / name, ws, f"outputs/{ids[0]}/{name}")
    [check] = checker(_effects(ws, [rel]))
    assert check.passed and not check.implausible
    y = np.load(ws / rel)
    np.save(ws / rel, ((y - y.min()) / (y.max() - y.min())).astype(np.float32))
    [check] = checker(_effects(ws, [rel]))
    assert check.valid and check.implausible and not check.passed and "units" in check.problem


@pytest.mark.parametrize("task_id", ["ldct-denoise", "zsr-x4-demo"])
def test_an_output_offset_from_the_input_units_is_implausible(tmp_path, staged_once, task_id):
    """The same image 1000 HU higher (an offset applied twice) keeps its spread: the check names
    the offset (tracks/units.py), for enhancement and for z super-resolution alike."""
    task, paths, ws, gold, checker, ids = _world(task_id, tmp_path, staged_once)
    name = task.options.output_file
    rel = _put(gold / ids[0] / name, ws, f"outputs/{ids[0]}/{name}")
    [check] = checker(_effects(ws, [rel]))
    assert check.passed and not check.implausible, check.problem
    mutant = next(m for m in task.track_impl.mutants(task.options) if m.name == "plus_1000")
    assert mutant.apply({name: ws / rel})
    [check] = checker(_effects(ws, [rel]))
    assert check.valid and check.implausible and "offset" in check.problem, check.problem


@pytest.mark.parametrize("task_id", ["vqa-demo-open", "vqa-demo-mcq"])
def test_an_answer_that_does_not_fit_its_question_is_implausible(tmp_path, staged_once, task_id):
    """Every gold answer fits its question; a yes/no question answered otherwise, or a
    multiple-choice answer that is none of the options, is a problem a look at the answer beside
    its question shows (tracks/vqa/plausible.py), without the reference."""
    task, paths, ws, gold, checker, ids = _world(task_id, tmp_path, staged_once)
    name = task.options.output_file if hasattr(task.options, "output_file") else "answer.json"
    for cid in ids:
        rel = _put(gold / cid / name, ws, f"outputs/{cid}/{name}")
        [check] = checker(_effects(ws, [rel]))
        assert check.passed, (cid, check.problem)
    questions = {cid: json.loads((paths.public / cid / "question.json").read_text()) for cid in ids}
    if task_id == "vqa-demo-mcq":
        cid = ids[0]
        broken = {**json.loads((gold / cid / name).read_text()), "predicted_label": "the lesion"}
    else:
        cid = next(c for c, q in questions.items() if q["question"].split()[0].lower() in ("is", "does", "are")
                   and " or " not in q["question"])
        broken = {**json.loads((gold / cid / name).read_text()), "predicted_answer": "axial"}
    rel = f"outputs/{cid}/{name}"
    (ws / rel).write_text(json.dumps(broken))
    [check] = checker(_effects(ws, [rel]))
    assert check.valid and check.implausible and not check.passed, check.problem
    assert ("none of the options" if task_id == "vqa-demo-mcq" else "a yes/no question answered") in check.problem
