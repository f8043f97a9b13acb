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
        "lesion Dice 0: no overlap; ground truth 36 voxels on slices 12-15, prediction 18 voxels on slices 3-4"
    assert zero_dice_why("lesion", 0.0, ref, empty) == \
        "lesion Dice 0: the prediction is empty; the ground truth has 36 voxels (slices 12-15)"
    assert zero_dice_why("lesion", 0.0, empty, _mask(7, 7)) == \
        "lesion Dice 0: the ground truth has none; the prediction marks 9 voxels (slice 7)"
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
    assert score.extra["why"] == "lesion Dice 0: the prediction is empty; the ground truth has 36 voxels (slices 12-15)"


def test_flat_output_is_called_flat():
    rng = np.random.default_rng(0)
    ref = rng.normal(100, 20, (32, 32))
    assert flat_output_why(np.full((32, 32), 7.0), ref).startswith("flat output: every pixel is 7 (ground truth ")
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


def test_detection_none_found_says_why():
    # an image with reference boxes and none found: nothing predicted, or how near the nearest came
    from automedbench.tracks.base import ScoringContext
    from automedbench.tracks.detection.options import DetectionOptions
    from automedbench.tracks.detection.track import DetectionTrack
    track, opts = DetectionTrack(), DetectionOptions(classes=["marker"])
    ref = {"boxes": np.array([[0, 10, 10, 20, 20], [0, 50, 50, 60, 60]], float), "width": 100, "height": 100}
    empty = track.score_case(np.zeros((0, 6)), ref, opts, ScoringContext())
    assert empty.metrics["found50"] == 0
    assert empty.extra["why"] == "found 0 of 2 ground-truth boxes: no box predicted"
    # a box of the right size shifted by half its width: IoU 1/3
    near = track.score_case(np.array([[0, 0.9, 15, 10, 25, 20]], float), ref, opts, ScoringContext())
    assert near.extra["why"] == ("found 0 of 2 ground-truth boxes: 1 predicted, the nearest overlaps with "
                                 "IoU 0.33 (needs 0.5)")
    hit = track.score_case(np.array([[0, 0.9, 10, 10, 20, 20]], float), ref, opts, ScoringContext())
    assert hit.metrics["found50"] == 0.5 and hit.extra["why"] == ""


def test_vqa_wrong_answers_say_what_was_answered():
    from automedbench.tracks.base import ScoringContext
    from automedbench.tracks.vqa.options import VQAOptions
    from automedbench.tracks.vqa.track import VQATrack
    track, ctx = VQATrack(), ScoringContext()
    mcq = {"label": "C", "options": {"A": "Sagittal", "B": "Coronal", "C": "Axial"}, "question": "Which plane?"}
    chose = track.score_case({"predicted_label": "A", "predicted_answer": "Sagittal", "raw_model_output": "A"},
                             mcq, VQAOptions(mode="mcq"), ctx)
    assert chose.metrics["score"] == 0 and chose.extra["why"] == "chose A ('Sagittal'), ground truth C ('Axial')"
    right = track.score_case({"predicted_label": "C", "predicted_answer": "Axial", "raw_model_output": "C"},
                             mcq, VQAOptions(mode="mcq"), ctx)
    assert right.metrics["score"] == 1 and not right.extra.get("why")
    open_ref = {"answer": "coronal", "question": "Which plane?"}
    wrong = track.score_case({"predicted_answer": "axial", "raw_model_output": "axial"}, open_ref,
                             VQAOptions(mode="open"), ctx)
    assert wrong.extra["why"] == "answered 'axial', ground truth 'coronal' (no word in common)"
    ph = track.score_case({"predicted_answer": "unknown", "raw_model_output": "unknown"}, open_ref,
                          VQAOptions(mode="open"), ctx)
    assert ph.extra["why"] == "placeholder answer 'unknown'"
