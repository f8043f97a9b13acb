"""Why a clear failure failed, in one line per case (docs/tracks.md `extra["why"]`): a Dice of
0 says whether the prediction was empty, spurious or elsewhere (and where each mask lies); a
flat output says it is flat. Real arrays through the tracks' own score_case."""
from __future__ import annotations

import numpy as np

from automedbench.tracks.per_case import flat_output_why
from automedbench.tracks.segmentation.track import zero_dice_why


def _mask(z0: int, z1: int) -> np.ndarray:
    m = np.zeros((8, 8, 20), bool)
    m[2:5, 2:5, z0:z1 + 1] = True
    return m


def test_dice_zero_says_where_each_mask_lies():
    ref, pred, empty = _mask(12, 15), _mask(3, 4), np.zeros((8, 8, 20), bool)
    assert zero_dice_why("lesion", 0.0, ref, pred) == \
        "lesion Dice 0: no overlap; reference 36 voxels on slices 12-15, prediction 18 voxels on slices 3-4"
    assert zero_dice_why("lesion", 0.0, ref, empty) == \
        "lesion Dice 0: the prediction is empty; the reference has 36 voxels (slices 12-15)"
    assert zero_dice_why("lesion", 0.0, empty, _mask(7, 7)) == \
        "lesion Dice 0: the reference has none; the prediction marks 9 voxels (slice 7)"
    assert zero_dice_why("lesion", 0.4, ref, pred) == "" and zero_dice_why("organ", None, ref, pred) == ""


def test_segmentation_score_case_carries_the_why():
    from automedbench.tracks.segmentation.options import SegmentationOptions
    from automedbench.tracks.segmentation.track import SegmentationTrack
    track = SegmentationTrack()
    opts = SegmentationOptions(variant="organ_lesion")
    organ_f, lesion_f = track._files(opts)
    ref = {organ_f: _mask(2, 16).astype(np.uint8), lesion_f: _mask(12, 15).astype(np.uint8)}
    pred = {organ_f: _mask(2, 16).astype(np.uint8), lesion_f: np.zeros((8, 8, 20), np.uint8)}
    score = track.score_case(pred, ref, opts, None)
    assert score.metrics["lesion_dice"] == 0 and score.metrics["organ_dice"] == 1
    assert score.extra["why"] == "lesion Dice 0: the prediction is empty; the reference has 36 voxels (slices 12-15)"


def test_flat_output_is_called_flat():
    rng = np.random.default_rng(0)
    ref = rng.normal(100, 20, (32, 32))
    assert flat_output_why(np.full((32, 32), 7.0), ref).startswith("flat output: every pixel is 7 (reference ")
    nearly = 50 + rng.normal(0, 0.1, (32, 32))
    assert flat_output_why(nearly, ref).startswith("nearly flat output: its spread")
    assert flat_output_why(ref + rng.normal(0, 5, (32, 32)), ref) == ""


def test_logic_suspect_names_its_metric_and_guesses_no_track_cause(tmp_path):
    # the code's text is the same on every track: no "orientation or threshold?" on a report task
    from automedbench.runs.models import CaseResult, TaskResult
    from automedbench.scoring.error_codes import code_texts, detect_errors
    cases = [CaseResult(case_id=f"c{i}", valid=True, metrics={"bleu": 0.1, "score": v})
             for i, v in enumerate((0.9, 0.8, 0.85, 0.05))]
    task = TaskResult(metric_name="score", per_case=cases, format_valid=True, completion_rate=1.0)
    codes = detect_errors([], {}, task, submitted=True, end_reason="submitted", workspace=tmp_path,
                          logic_metric="score")
    suspect = next(e for e in codes if e.code == "LOGIC_SUSPECT")
    assert suspect.evidence["cases"] == ["c3"] and suspect.evidence["metric"] == "score"
    assert "orientation" not in code_texts()["LOGIC_SUSPECT"]
