"""The enhancement reference profile against the published reference's enhancement_scorer
(verbatim copy in reference_eval_image_enhancement/, MIT, commit cited there): gold, noisy,
blurred and partly missing submissions on both demo datasets."""
from __future__ import annotations

import importlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter

from automedbench.scoring.task_score import score_workspace
from automedbench.tasks import get_task
from automedbench.tracks.enhancement import TRACK
from automedbench.tracks.enhancement.track import EnhancementOptions

REFERENCE_DIR = Path(__file__).with_name("reference_eval_image_enhancement")


@pytest.fixture(scope="module")
def enhancement_scorer():
    sys.path.insert(0, str(REFERENCE_DIR))
    try:
        module = importlib.import_module("enhancement_scorer")
        # its score_all also runs LPIPS (torch + AlexNet weights, absent offline); LPIPS enters
        # only its mean_lpips, never mean_ssim / mean_psnr, which are what is compared here
        module.lpips_score = lambda pred, ref: float("nan")
        yield module
    finally:
        sys.path.remove(str(REFERENCE_DIR))


@pytest.fixture(scope="module")
def datasets(tmp_path_factory, staged_once):
    root = tmp_path_factory.mktemp("enh-ref")
    return {task: staged_once(name, root, n_cases=4)   # the 4 cases test_enhancement_demo_e2e.py runs on
            for task, name in (("ldct-denoise", "ldct-demo"), ("mri-sr", "mri-sr-demo"))}


def _perturb(outputs: Path, how: str, rng: np.random.Generator) -> None:
    dirs = sorted(outputs.iterdir())
    if how == "missing_case":
        shutil.rmtree(dirs[0])
        return
    for d in dirs:
        f = d / "enhanced.npy"
        a = np.load(f)
        if how == "noise":
            a = a + rng.normal(0, 0.05 * float(np.ptp(a)), a.shape)
        elif how == "blur":
            a = gaussian_filter(a, 1.2)
        np.save(f, a.astype(np.float32))


@pytest.mark.parametrize("task_id", ["ldct-denoise", "mri-sr"])
@pytest.mark.parametrize("how", ["gold", "noise", "blur", "missing_case"])
def test_reference_profile_equals_the_reference_scorer(datasets, enhancement_scorer, task_id, how, tmp_path):
    paths = datasets[task_id]
    options = EnhancementOptions(**get_task(task_id).track_options)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    TRACK.gold_submission(paths.root, outputs, options)
    _perturb(outputs, how, np.random.default_rng(2))
    cases = json.loads(paths.manifest.read_text())["cases"]
    result, _ = score_workspace(TRACK, tmp_path, paths.private, cases, options)
    ids = [c["case_id"] for c in cases]
    theirs = enhancement_scorer.score_all(str(outputs), str(paths.private), ids)
    ref = result.profile_scores["reference"]
    assert ref.score == pytest.approx(theirs["mean_ssim"], abs=1e-12), (how, ref)
    assert f"{theirs['mean_psnr']:.4f} dB" in ref.note
    if how == "missing_case":
        # the reference leaves the missing case out; ours counts it 0
        assert result.score < ref.score
