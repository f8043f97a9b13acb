"""Plausibility as one mechanism (docs/judge.md "Plausibility", tracks/relations.py): each
track declares how its output's facts relate to its input's, and one comparison names the
mismatch. For every relation kind, a real output file that breaks it and real honest ones that
keep it, through the harness's real per-output check (scoring/output_checks.py) on the embedded
datasets: values in the input's units (arbitrary MR units included), boxes in the image's pixel
grid, a report about the body part its study's manifest names, an answer of the kind its
question asks for."""
from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from scipy import ndimage

from automedbench import api
from automedbench.api import demo_tasks
from automedbench.runs.trace import read_trace
from automedbench.tasks import get_task
from automedbench.agents import AGENT_CLASSES
from automedbench.tracks import relations
from automedbench.tracks.base import SubmittedCase
from automedbench.tracks.relations import Answer, Classes, Geometry, Subject, Values, mismatch

from tests.judge_runs import PLAN, needs_bwrap, run_scripted, steps_agent
from tests.test_output_checks import _effects, _put, _world


def _check_one(checker, ws: Path, rel: str):
    [check] = checker(_effects(ws, [rel]))
    assert check.valid, check.problem
    return check


# ---- values: the input's own units --------------------------------------------------------------
def _upsample(x: np.ndarray, how: str, scale: int) -> np.ndarray:
    """Honest super-resolution of a 2-D slice: what an agent would write."""
    if how == "nearest":
        return np.kron(x, np.ones((scale, scale)))
    order = {"linear": 1, "cubic": 3}[how]
    return ndimage.zoom(x, scale, order=order, mode="nearest", grid_mode=True)


@pytest.mark.parametrize("how", ["linear", "cubic"])
def test_mri_super_resolution_in_the_inputs_arbitrary_units_passes(tmp_path, staged_once, how):
    task, paths, ws, gold, checker, ids = _world("mri-sr", tmp_path, staged_once)
    name = task.options.output_file
    for cid in ids:
        x = np.load(paths.public / cid / task.options.input_file).astype(np.float64)
        rel = f"outputs/{cid}/{name}"
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        np.save(ws / rel, _upsample(x, how, task.options.scale).astype(np.float32))
        check = _check_one(checker, ws, rel)
        assert check.passed and not check.implausible, (cid, check.problem)


def test_each_pixel_repeated_is_the_trivial_baseline(tmp_path, staged_once):
    """An MR slice with each pixel repeated 2x2 (nearest neighbour) passes the format check and
    is in the input's units, yet nothing was up-sampled: the per-output check names it on every
    case (the input itself written back is already "a copy of the input")."""
    task, paths, ws, gold, checker, ids = _world("mri-sr", tmp_path, staged_once)
    name = task.options.output_file
    for cid in ids:
        x = np.load(paths.public / cid / task.options.input_file).astype(np.float64)
        rel = f"outputs/{cid}/{name}"
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        np.save(ws / rel, _upsample(x, "nearest", task.options.scale).astype(np.float32))
        check = _check_one(checker, ws, rel)
        assert not check.passed and check.implausible, (cid, check.problem)
        assert "the output is its input, each value copied or repeated" in check.problem


def test_mri_output_rescaled_to_unit_range_is_not_in_the_inputs_units(tmp_path, staged_once):
    """An MR slice has arbitrary units: its own range and scale. The same cubic up-sampling
    min-max rescaled to [0, 1] is named on every case, also where the input already spans about
    0..0.94 (the percentile spread alone cannot tell), by comparing on the input's grid through
    the task's block-mean degradation."""
    task, paths, ws, gold, checker, ids = _world("mri-sr", tmp_path, staged_once)
    name = task.options.output_file
    small_range = 0
    for cid in ids:
        x = np.load(paths.public / cid / task.options.input_file).astype(np.float64)
        small_range += float(x.max()) <= 1.0
        y = _upsample(x, "cubic", task.options.scale)
        rel = f"outputs/{cid}/{name}"
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        np.save(ws / rel, ((y - y.min()) / (y.max() - y.min())).astype(np.float32))
        check = _check_one(checker, ws, rel)
        assert check.implausible and not check.passed and "units" in check.problem, (cid, check.problem)
    assert small_range, "the demo has an MR case already in [0, 1]: the case the percentiles miss"


@pytest.mark.parametrize("sigma", [0.7, 1.5, 3.0])
def test_a_denoised_ct_passes_and_a_mirrored_one_does_not(tmp_path, staged_once, sigma):
    task, paths, ws, gold, checker, ids = _world("ldct-denoise", tmp_path, staged_once)
    name = task.options.output_file
    cid = ids[0]
    x = np.load(paths.public / cid / task.options.input_file).astype(np.float64)
    rel = f"outputs/{cid}/{name}"
    (ws / rel).parent.mkdir(parents=True, exist_ok=True)
    np.save(ws / rel, ndimage.gaussian_filter(x, sigma).astype(np.float32))
    assert _check_one(checker, ws, rel).passed
    np.save(ws / rel, ndimage.gaussian_filter(x, sigma)[::-1].astype(np.float32))
    check = _check_one(checker, ws, rel)
    assert check.implausible and "does not follow its input" in check.problem, check.problem


def test_z_super_resolution_honest_passes_and_scaled_or_flipped_does_not(tmp_path, staged_once):
    task, paths, ws, gold, checker, ids = _world("zsr-x4-demo", tmp_path, staged_once)
    name, cid = task.options.output_file, ids[0]
    img = nib.load(str(gold / cid / name))
    low = np.asarray(nib.load(str(paths.public / cid / task.options.input_file)).dataobj, dtype=np.float64)
    nz = img.shape[2]
    honest = ndimage.zoom(low, (1, 1, nz / low.shape[2]), order=1, mode="nearest", grid_mode=True)
    rel = f"outputs/{cid}/{name}"
    (ws / rel).parent.mkdir(parents=True, exist_ok=True)
    for out, words in [(honest, ""), (honest * 1.1, "units"), (honest[:, :, ::-1], "does not follow")]:
        nib.save(nib.Nifti1Image(out.astype(np.float32), img.affine), str(ws / rel))
        check = _check_one(checker, ws, rel)
        assert (words in check.problem and check.implausible) if words else check.passed, (words, check.problem)


# ---- geometry: the input image's pixel grid --------------------------------------------------
def test_boxes_in_fractions_of_the_image_or_below_a_pixel_are_named(tmp_path, staged_once):
    task, paths, ws, gold, checker, ids = _world("xray-marker-det", tmp_path, staged_once)
    name = task.options.output_file
    cid = next(c for c in ids if json.loads((gold / c / name).read_text())["boxes"])
    rel = _put(gold / cid / name, ws, f"outputs/{cid}/{name}")
    assert _check_one(checker, ws, rel).passed
    from PIL import Image
    w, h = Image.open(paths.public / cid / task.options.image_file).size
    data = json.loads((gold / cid / name).read_text())
    keys = (("x1", w), ("y1", h), ("x2", w), ("y2", h))
    fractions = {**data, "boxes": [{**b, **{k: b[k] / s for k, s in keys}} for b in data["boxes"]]}
    (ws / rel).write_text(json.dumps(fractions))
    check = _check_one(checker, ws, rel)
    assert check.implausible and "fractions of the image" in check.problem, check.problem
    tiny = {**data, "boxes": [{**b, "x2": b["x1"] + 0.5, "y2": b["y1"] + 0.5} for b in data["boxes"]]}
    (ws / rel).write_text(json.dumps(tiny))
    check = _check_one(checker, ws, rel)
    assert check.implausible and "smaller than one pixel" in check.problem, check.problem


# ---- subject: the study's public metadata ---------------------------------------------------
def test_a_report_about_another_body_part_than_its_manifest_is_named(tmp_path, staged_once):
    """A chest report filed for a leg study (and a leg report for a chest study): the study's
    own manifest.json says which body part it is; each honest report passes."""
    task, paths, ws, gold, checker, ids = _world("cxr-report-gen", tmp_path, staged_once)
    name = task.options.output_file
    part = {c: json.loads((paths.public / c / "manifest.json").read_text())["body_part"] for c in ids}
    chest = next(c for c in ids if part[c] == "CHEST")
    leg = next(c for c in ids if part[c] == "LEG")
    for cid in (chest, leg):
        assert _check_one(checker, ws, _put(gold / cid / name, ws, f"outputs/{cid}/{name}")).passed
    for study, other, words in ((leg, chest, "about the chest"), (chest, leg, "about the lower limb")):
        rel = _put(gold / other / name, ws, f"outputs/{study}/{name}")
        check = _check_one(checker, ws, rel)
        assert check.implausible and words in check.problem and "manifest" in check.problem, check.problem


# ---- answer kind: the question's kind -------------------------------------------------------
def test_an_open_answer_of_another_kind_than_its_question_asks_is_named(tmp_path, staged_once):
    """A plane asked, a modality answered; a count asked, yes answered; a modality asked, a plane
    answered; a body region asked, a number answered. Every gold answer passes (also in
    tests/test_output_checks.py)."""
    task, paths, ws, gold, checker, ids = _world("vqa-demo-open", tmp_path, staged_once)
    name = "answer.json"
    qtype = {c: json.loads((paths.public / c / "question.json").read_text())["question_type"] for c in ids}
    for kind, wrong in (("plane", "MRI"), ("count", "yes"), ("modality", "axial"), ("region", "3")):
        cid = next(c for c in ids if qtype[c] == kind)
        rel = _put(gold / cid / name, ws, f"outputs/{cid}/{name}")
        assert _check_one(checker, ws, rel).passed
        (ws / rel).write_text(json.dumps({**json.loads((gold / cid / name).read_text()), "predicted_answer": wrong}))
        check = _check_one(checker, ws, rel)
        assert check.implausible and f"a {kind} question answered" in check.problem, (kind, check.problem)


# ---- the comparison itself: what it abstains on ----------------------------------------------
def test_the_comparison_abstains_where_a_fact_is_missing() -> None:
    a = np.random.default_rng(0).normal(100, 20, (16, 16))
    assert mismatch([]) == ""
    assert mismatch([Values(a, a, None)]) == ""
    assert mismatch([Values(a, np.zeros((16, 16)), lambda o: o)]) == ""            # a flat input
    assert mismatch([Values(a, a, lambda o: o[:8])]) == ""                          # no grid mapping
    assert mismatch([Values(a, a, lambda o: (_ for _ in ()).throw(ValueError()))]) == ""  # a map that fails
    assert mismatch([Geometry(np.zeros((0, 4)), 512, 512)]) == ""                   # no boxes
    assert mismatch([Geometry(np.array([[0.1, 0.1, 0.5, 0.5]]), 4, 4)]) == ""        # a 4-px image
    assert mismatch([Subject("body part", frozenset({"chest"}), frozenset())]) == ""
    assert mismatch([Subject("body part", frozenset({"chest", "lower limb"}), frozenset({"lower limb"}))]) == ""
    assert mismatch([Answer("plane", "oblique-ish reformat")]) == ""
    assert mismatch([Answer("plane", "unknown words")]) == ""                       # of no known kind
    assert mismatch([Answer("region", "")]) == ""                                    # empty: the trivial check's
    assert relations.answer_kinds("2 lesions") == {"count"}
    assert "yes/no" in relations.answer_kinds("No, there is none")


# ---- classes: a label map in its input's contrast order ---------------------------------------
def test_a_label_map_whose_classes_run_against_the_contrast_is_named() -> None:
    """Three tissue bands of rising T1 intensity: labelled 1 < 2 < 3 as the task orders them
    passes; the same map numbered the other way round (CSF as white matter) is named; a class too
    small to say anything, or a map on another grid, makes the comparison abstain."""
    rng = np.random.default_rng(0)
    image = np.concatenate([rng.normal(m, 5, (10, 20, 4)) for m in (30, 60, 90)], axis=0)
    labels = np.repeat(np.array([1, 2, 3], dtype=np.uint8), 10)[:, None, None] * np.ones((1, 20, 4), np.uint8)
    names = {1: "csf", 2: "grey matter", 3: "white matter"}
    assert mismatch([Classes(labels, image, (1, 2, 3), names)]) == ""
    swapped = np.where(labels == 1, 3, np.where(labels == 3, 1, labels)).astype(np.uint8)
    why = mismatch([Classes(swapped, image, (1, 2, 3), names)])
    assert "labels swapped" in why and "csf" in why, why
    speck = labels.copy()
    speck[speck == 3] = 0
    speck[0, 0, 0] = 3                                        # one voxel of class 3: no median to compare
    assert mismatch([Classes(speck, image, (1, 2, 3), names)]) == ""
    assert mismatch([Classes(swapped[:, :10], image, (1, 2, 3), names)]) == ""   # another grid: abstains


# ---- honest work is not flagged: the reference agent on every demo task ------------------------
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
@pytest.mark.parametrize("task_id", demo_tasks())
def test_the_reference_agents_real_outputs_have_no_plausibility_finding(tmp_path, staged_once, reference_run_once,
                                                                       task_id):
    """The built-in `reference` agent (the task's classical method) through the real loop and
    bwrap sandbox: no per-output check of any call names a plausibility problem, and none of its
    submitted cases has one, so an honest pilot is never capped by this mechanism. (The run is
    the one test_judge_experiments.py replays: made once per test run, tests/conftest.py.)"""
    task = get_task(task_id)
    staged_once(task.dataset, tmp_path / "data")
    run_dir, report = reference_run_once(task_id)
    assert report.run.end_reason == "submitted", report.run
    checks = [c for e in read_trace(run_dir / "trace.jsonl") if e.type == "execution" for c in (e.output_checks or [])]
    assert checks, "the reference agent's pilot was checked"
    assert not [c.problem for c in checks if c.implausible]
    paths = api.ensure_dataset(task, tmp_path / "data")
    track, outputs, seen = task.track_impl, run_dir / "workspace" / "outputs", 0
    if track.submission(task.options).kind == "cohort":
        return      # a cohort's rows declare no relation to their inputs (docs/judge.md "Plausibility")
    for case in paths.load_manifest()["cases"]:
        cid = str(case["case_id"])
        _, meta = track.load_reference(paths.private / cid, case, task.options)
        check = track.check_case(SubmittedCase(cid, dir=outputs / cid), meta, task.options)
        assert check.valid, (cid, check.reason)
        assert track.plausibility(check.prediction, paths.public / cid, task.options) == "", cid
        seen += 1
    assert seen


# ---- the judge: a problem a relation names, left in the batch, caps S3 ------------------------
RESCALE_TO_UNIT_RANGE = textwrap.dedent("""\
    # (bug) every output written so far min-max rescaled to [0, 1]
    import pathlib, numpy as np
    for f in sorted(pathlib.Path("outputs").glob("*/enhanced.npy")):
        y = np.load(f)
        np.save(f, ((y - y.min()) / (y.max() - y.min())).astype(np.float32))
    """)


def _rescaled_left(c, m):
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", RESCALE_TO_UNIT_RANGE), ("python", m.inspect_code(c.data_dir)),
            ("python", m.batch_code(c.data_dir, careless=False)), ("python", RESCALE_TO_UNIT_RANGE)]


def _rescaled_fixed(c, m):
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", RESCALE_TO_UNIT_RANGE), ("python", m.inspect_code(c.data_dir)),
            ("python", m.pilot_code(c.data_dir)), ("python", m.inspect_code(c.data_dir)),
            ("python", m.batch_code(c.data_dir, careless=False))]


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("kind, steps, s3, why", [
    ("rescaled-left", _rescaled_left, 0.5, "failed the harness's own check"),
    ("rescaled-fixed", _rescaled_fixed, 1.0, "a failed inspection was followed by a fix"),
])
def test_an_mr_output_left_in_other_units_caps_s3(kind, steps, s3, why, tmp_path, monkeypatch, staged_once):
    """MRI super-resolution (arbitrary units) through the real loop and bwrap sandbox: the pilot
    min-max rescaled to [0, 1], looked at (the look prints both ranges), and the batch rescaled
    the same way: the `Values` relation names it in the pilot's per-output check, so S3 is 0.5;
    the same pilot re-run in the input's units and looked at again before the batch earns 1."""
    name = f"steps-{kind}"
    AGENT_CLASSES.add(name, steps_agent(name, steps), replace=True, description="test")
    report, _ = run_scripted("mri-sr", name, tmp_path, monkeypatch, staged_once, mode="1")
    assert report.stages["s3"].score == s3, report.stages["s3"].rationale
    assert why in report.stages["s3"].rationale
    checks = [c for e in read_trace(Path(report.run_dir) / "trace.jsonl") if e.type == "execution"
              for c in (e.output_checks or [])]
    assert any(c.implausible and "units" in c.problem for c in checks), [c.problem for c in checks]


SWAP_CSF_AND_WHITE_MATTER = textwrap.dedent("""\
    # (bug) the label map numbered the other way round: CSF written as 3, white matter as 1
    import pathlib, numpy as np, nibabel as nib
    for f in sorted(pathlib.Path("outputs").glob("*/labels.nii.gz")):
        img = nib.load(str(f)); a = np.asarray(img.dataobj)
        b = np.where(a == 1, 3, np.where(a == 3, 1, a)).astype(np.uint8)
        nib.save(nib.Nifti1Image(b, img.affine, img.header), str(f))
    """)


def _swapped_left(c, m):
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", SWAP_CSF_AND_WHITE_MATTER), ("python", m.inspect_code(c.data_dir)),
            ("python", m.batch_code(c.data_dir, careless=False)), ("python", SWAP_CSF_AND_WHITE_MATTER)]


@needs_bwrap
@pytest.mark.slow
def test_tissue_classes_numbered_against_the_contrast_and_kept_cap_s3_and_fail_s2e(tmp_path, monkeypatch,
                                                                                  staged_once):
    """brain-tissue-seg through the real loop and bwrap sandbox: the pilot's label map numbered the
    other way round (the task says T1 orders CSF < grey < white matter), looked at, and the batch
    numbered the same way. The `Classes` relation names it in the pilot's per-output check: S3 0.5,
    and the method was not found fine (s2e 0)."""
    AGENT_CLASSES.add("steps-swapped-left", steps_agent("steps-swapped-left", _swapped_left), replace=True,
                      description="test")
    report, _ = run_scripted("brain-tissue-seg", "steps-swapped-left", tmp_path, monkeypatch, staged_once, mode="1")
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    assert "labels swapped" in report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 0.0, report.stages["s2"].rationale
