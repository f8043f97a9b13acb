"""The segmentation reference profile against the published reference's own scorer (copied in
reference_eval_seg/, MIT, commit cited there): the gold submission of each demo dataset and
perturbed copies (shifted, eroded, lesions invented on lesion-free cases, labels mixed, a case deleted)."""
from __future__ import annotations

import importlib
import json
import shutil
import sys
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from automedbench.scoring.task_score import score_workspace
from automedbench.tasks import get_task
from automedbench.tracks.segmentation import TRACK

REFERENCE_DIR = Path(__file__).with_name("reference_eval_seg")


@pytest.fixture(scope="module")
def reference():
    sys.path.insert(0, str(REFERENCE_DIR))
    try:
        yield importlib.import_module("dice_scorer"), importlib.import_module("aggregate_excerpt")
    finally:
        sys.path.remove(str(REFERENCE_DIR))


@pytest.fixture(scope="module")
def datasets(tmp_path_factory, staged_once):
    root = tmp_path_factory.mktemp("seg-ref")
    out = {}
    for task_id, dataset in (("brain-lesion-seg", "mni-brain-lesion"), ("brain-tissue-seg", "mni-brain-tissue")):
        paths = staged_once(dataset, root, n_cases=3)   # the 3 cases test_end_to_end.py runs on
        out[task_id] = (paths, get_task(task_id).track_options)
    return out


def _options(task_id):
    from automedbench.tracks.segmentation.track import SegmentationOptions
    return SegmentationOptions(**get_task(task_id).track_options)


def _perturb(outputs: Path, how: str, rng: np.random.Generator) -> None:
    dirs = sorted(outputs.iterdir())
    if how == "delete_case":
        shutil.rmtree(dirs[-1])
        return
    for d in dirs:
        for f in d.glob("*.nii.gz"):
            img = nib.load(f)
            a = np.asarray(img.dataobj)
            if how == "shift":
                a = np.roll(a, 2, axis=0)
            elif how == "erode" and f.name != "labels.nii.gz":
                a = (a * (rng.random(a.shape) > 0.3)).astype(a.dtype)
            elif how == "lesions_invented" and f.name == "lesion.nii.gz" and not a.any():
                a = np.ones_like(a)          # "lesion everywhere" on a lesion-free case
            elif how == "labels_mixed" and f.name == "labels.nii.gz":
                a = np.where((a == 2) & (rng.random(a.shape) > 0.5), 3, a).astype(a.dtype)
            nib.save(nib.Nifti1Image(a, img.affine, img.header), f)


@pytest.mark.parametrize("task_id", ["brain-lesion-seg", "brain-tissue-seg"])
@pytest.mark.parametrize("how", ["gold", "shift", "erode", "lesions_invented", "labels_mixed", "delete_case"])
def test_reference_profile_equals_the_reference_scorer(datasets, reference, task_id, how, tmp_path):
    dice_scorer, excerpt = reference
    paths, _ = datasets[task_id]
    options = _options(task_id)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    TRACK.gold_submission(paths.root, outputs, options)
    _perturb(outputs, how, np.random.default_rng(0))
    cases = json.loads(paths.manifest.read_text())["cases"]
    result, _ = score_workspace(TRACK, tmp_path, paths.private, cases, options)
    ids = [c["case_id"] for c in cases]
    if options.variant == "multiclass":
        theirs = excerpt.clinical_score_multiclass(dice_scorer.score_all_multiclass(
            str(outputs), str(paths.private), ids, options.labels, output_filename=options.label_file))
    else:
        theirs = excerpt.clinical_score_binary(dice_scorer.score_all(str(outputs), str(paths.private), ids))
    ref = result.profile_scores["reference"]
    assert ref.score == pytest.approx(theirs, abs=1e-12), (how, ref)
    if how == "gold":
        assert ref.score == 1.0 and result.score == pytest.approx(1.0)
    if how == "lesions_invented" and options.variant == "organ_lesion":
        # ours punishes lesions invented on lesion-free cases; the reference's lesion mean never sees them
        assert result.score < 0.9 and ref.score == 1.0
