"""Task scoring on real files: every kind of bad output scores 0 with its reason; nothing crashes."""
import os

import numpy as np
import pytest
from tests.helpers import copy_reference, save_nii, tiny_lesion_dataset, truncate, write_prediction

from automedbench.scoring.task_score import score_workspace
from automedbench.tracks.segmentation import SegmentationOptions, SegmentationTrack

OPTS = SegmentationOptions(variant="organ_lesion")


def _cases(paths):
    return [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]


def score(paths, ws, opts=OPTS):
    result, outcomes = score_workspace(SegmentationTrack(), ws, paths.private, _cases(paths), opts)
    return result, outcomes, result.aggregate_metrics


@pytest.fixture
def ds(tmp_path):
    return tiny_lesion_dataset(tmp_path / "ds")


def _score(ds, ws):
    return score(ds, ws)


def _case(result, cid):
    return next(c for c in result.per_case if c.case_id == cid)


def test_perfect_submission(ds, tmp_path):
    ws = tmp_path / "ws"
    for cid in ds.case_ids():
        copy_reference(ds, ws, cid)
    result, outcomes, agg = _score(ds, ws)
    assert result.score == pytest.approx(1.0)
    assert result.completion_rate == 1.0 and result.format_valid
    # lesion-negative case: BraTS convention (empty prediction = 1), false positives reported
    neg = _case(result, "case_000")
    assert neg.metrics["lesion_dice"] == 1.0 and neg.metrics["lesion_false_positive_voxels"] == 0
    assert agg["lesion_dice_positive"] == pytest.approx(1.0) and agg["negative_cases_clean"] == 1.0


def test_empty_workspace(ds, tmp_path):
    result, _, _ = _score(ds, tmp_path / "nothing")
    assert result.score == 0 and result.completion_rate == 0 and not result.format_valid
    assert all(c.status == "missing" and c.reason == "no output folder" for c in result.per_case)


def test_missing_case_counts_zero(ds, tmp_path):
    ws = tmp_path / "ws"
    copy_reference(ds, ws, "case_000")
    copy_reference(ds, ws, "case_001")
    result, _, agg = _score(ds, ws)
    # organ: 2 of 3 perfect -> 2/3; lesion over all cases (BraTS): 000 (negative, empty) 1,
    # 001 1, 002 missing 0 -> 2/3; positives only: 001 (1.0) and 002 (missing, 0) -> 0.5
    assert agg["organ_dice"] == pytest.approx(2 / 3)
    assert agg["lesion_dice"] == pytest.approx(2 / 3)
    assert agg["lesion_dice_positive"] == pytest.approx(0.5)
    assert result.score == pytest.approx(0.5 * 2 / 3 + 0.5 * 2 / 3)
    assert result.completion_rate == pytest.approx(2 / 3)
    assert result.format_valid  # what was submitted is valid


BAD = {
    "truncated": (lambda p, shape: truncate(p / "organ.nii.gz"), "unreadable NIfTI"),
    "corrupt": (lambda p, shape: (p / "organ.nii.gz").write_bytes(b"\x00" * 100), "unreadable NIfTI"),
    "wrong_shape": (lambda p, shape: save_nii(p / "organ.nii.gz", np.zeros((5, 5, 5), np.uint8)), "wrong shape"),
    "nan": (lambda p, shape: save_nii(p / "organ.nii.gz", np.full(shape, np.nan, np.float32)), "NaN"),
    "non_binary": (lambda p, shape: save_nii(p / "lesion.nii.gz", np.full(shape, 2, np.uint8)), "non-binary"),
    "negative": (lambda p, shape: save_nii(p / "lesion.nii.gz", np.full(shape, -1, np.int16)), "non-binary"),
    "missing_file": (lambda p, shape: (p / "lesion.nii.gz").unlink(), "lesion.nii.gz: missing"),
    "leading_singleton": (lambda p, shape: save_nii(p / "organ.nii.gz", np.zeros((1, *shape), np.uint8)),
                          "wrong shape"),
    "flipped_affine": (lambda p, shape: save_nii(p / "organ.nii.gz", _ref(p, "organ"), np.diag([-1, 1, 1, 1])),
                       "affine differs"),
    "directory_not_file": (lambda p, shape: ((p / "lesion.nii.gz").unlink(), (p / "lesion.nii.gz").mkdir()),
                           "not a regular file"),
}


def _ref(case_out, name):
    import nibabel as nib
    return np.asarray(nib.load(str(case_out / f"{name}.nii.gz")).dataobj)


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_case_scores_zero_with_reason(ds, tmp_path, kind):
    ws = tmp_path / "ws"
    for cid in ds.case_ids():
        copy_reference(ds, ws, cid)
    shape = (16, 14, 12)
    make_bad, expected_reason = BAD[kind]
    make_bad(ws / "outputs" / "case_001", shape)
    result, _, agg = _score(ds, ws)
    bad = _case(result, "case_001")
    assert not bad.valid and bad.status == "invalid" and expected_reason in bad.reason
    assert _case(result, "case_002").valid and _case(result, "case_000").valid
    assert not result.format_valid
    assert result.completion_rate == pytest.approx(2 / 3)
    assert agg["organ_dice"] == pytest.approx(2 / 3)


def test_symlink_to_private_is_rejected(ds, tmp_path):
    ws = tmp_path / "ws"
    for cid in ds.case_ids():
        copy_reference(ds, ws, cid)
    target = ws / "outputs" / "case_002" / "lesion.nii.gz"
    target.unlink()
    os.symlink(ds.private / "case_002" / "lesion.nii.gz", target)
    result, _, _ = _score(ds, ws)
    assert "symlink" in _case(result, "case_002").reason


def test_symlinked_case_folder_is_rejected(ds, tmp_path):
    ws = tmp_path / "ws"
    (ws / "outputs").mkdir(parents=True)
    os.symlink(ds.private / "case_001", ws / "outputs" / "case_001")
    result, _, _ = _score(ds, ws)
    assert "symlink" in _case(result, "case_001").reason


def test_extra_unknown_case_is_listed_not_scored(ds, tmp_path):
    ws = tmp_path / "ws"
    for cid in ds.case_ids():
        copy_reference(ds, ws, cid)
    write_prediction(ws, "case_999", np.zeros((2, 2, 2), np.uint8), np.zeros((2, 2, 2), np.uint8))
    result, _, _ = _score(ds, ws)
    assert result.unexpected_cases == ["case_999"]
    assert result.score == pytest.approx(1.0)


def test_float_binary_masks_are_accepted(ds, tmp_path):
    ws = tmp_path / "ws"
    for cid in ds.case_ids():
        copy_reference(ds, ws, cid)
        for f in ("organ.nii.gz", "lesion.nii.gz"):
            import nibabel as nib
            p = ws / "outputs" / cid / f
            save_nii(p, nib.load(str(p)).get_fdata().astype(np.float32))
    result, _, _ = _score(ds, ws)
    assert result.score == pytest.approx(1.0)


def test_multiclass_macro_dice(tmp_path):
    from automedbench.data import DatasetPaths, write_manifest
    paths = DatasetPaths(tmp_path / "mc")
    ref = np.zeros((10, 10, 4), np.uint8)
    ref[:5] = 1
    ref[5:, :5] = 2
    ref[5:, 5:] = 3
    save_nii(paths.public / "c0" / "image.nii.gz", ref.astype(np.float32))
    save_nii(paths.private / "c0" / "labels.nii.gz", ref)
    write_manifest(paths, dataset="mc", description="", cases=[{"case_id": "c0"}], provenance={})
    pred = ref.copy()
    pred[pred == 3] = 2  # class 3 lost, class 2 doubled
    save_nii(tmp_path / "ws" / "outputs" / "c0" / "labels.nii.gz", pred)
    opts = SegmentationOptions(variant="multiclass", labels={1: "a", 2: "b", 3: "c"})
    result, _, agg = score(paths, tmp_path / "ws", opts)
    # dice a = 1; b: tp=100, |ref|=100, |pred|=200 -> 2/3; c = 0
    assert agg["macro_dice"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    bad = pred.copy()
    bad[0, 0, 0] = 7
    save_nii(tmp_path / "ws" / "outputs" / "c0" / "labels.nii.gz", bad)
    result, _, _ = score(paths, tmp_path / "ws", opts)
    assert "outside the allowed set" in result.per_case[0].reason


def test_trailing_singleton_axis_is_tolerated(ds, tmp_path):
    ws = tmp_path / "ws"
    for cid in ds.case_ids():
        copy_reference(ds, ws, cid)
    p = ws / "outputs" / "case_001" / "organ.nii.gz"
    save_nii(p, _ref(p.parent, "organ")[..., None])
    result, _, _ = _score(ds, ws)
    assert _case(result, "case_001").valid and result.score == pytest.approx(1.0)


def test_flipped_voxels_with_matching_flipped_affine_fail_with_a_format_message(ds, tmp_path):
    """Same anatomy stored in flipped voxel order with a flipped affine: the contract asks for
    the input's affine, so it is a format error naming the affine, not a silent lesion 0."""
    ws = tmp_path / "ws"
    for cid in ds.case_ids():
        copy_reference(ds, ws, cid)
    flip = np.diag([-1.0, 1, 1, 1])
    flip[0, 3] = 15
    for f in ("organ", "lesion"):
        p = ws / "outputs" / "case_001" / f"{f}.nii.gz"
        save_nii(p, np.ascontiguousarray(_ref(p.parent, f)[::-1]), flip)
    result, _, _ = _score(ds, ws)
    assert "affine differs" in _case(result, "case_001").reason


def test_whole_brain_as_lesion_on_a_negative_case_costs(ds, tmp_path):
    """BraTS convention (docs/scoring.md#segmentation-rules): labelling everything as lesion on a lesion-free case scores 0."""
    ws = tmp_path / "ws"
    for cid in ds.case_ids():
        copy_reference(ds, ws, cid)
    clean, _, _ = _score(ds, ws)
    p = ws / "outputs" / "case_000" / "lesion.nii.gz"
    save_nii(p, _ref(p.parent, "organ"))
    result, _, agg = _score(ds, ws)
    assert _case(result, "case_000").metrics["lesion_dice"] == 0.0
    assert agg["lesion_dice"] == pytest.approx(2 / 3) and agg["lesion_dice_positive"] == pytest.approx(1.0)
    assert result.score < clean.score - 0.1


def test_corrupt_private_reference_is_excluded_as_a_harness_fault(ds, tmp_path):
    ws = tmp_path / "ws"
    for cid in ds.case_ids():
        copy_reference(ds, ws, cid)
    (ds.private / "case_002" / "organ.nii.gz").write_bytes(b"garbage")
    result, _, _ = _score(ds, ws)
    broken = _case(result, "case_002")
    assert broken.status == "reference_error" and "benchmark data fault" in broken.reason
    assert result.excluded_cases == ["case_002"]
    assert result.score == pytest.approx(1.0) and result.completion_rate == 1.0 and result.format_valid


def test_multiclass_class_absent_from_both_is_left_out(tmp_path):
    from automedbench.data import DatasetPaths, write_manifest
    paths = DatasetPaths(tmp_path / "mc")
    ref = np.zeros((10, 10, 4), np.uint8)
    ref[:5] = 1
    ref[5:, :5] = 2          # class 3 absent from the reference
    save_nii(paths.public / "c0" / "image.nii.gz", ref.astype(np.float32))
    save_nii(paths.private / "c0" / "labels.nii.gz", ref)
    write_manifest(paths, dataset="mc", description="", cases=[{"case_id": "c0"}], provenance={})
    opts = SegmentationOptions(variant="multiclass", labels={1: "a", 2: "b", 3: "c"})
    save_nii(tmp_path / "ws" / "outputs" / "c0" / "labels.nii.gz", ref)
    result, _, agg = score(paths, tmp_path / "ws", opts)
    assert result.per_case[0].metrics["dice_c"] is None and agg["macro_dice"] == pytest.approx(1.0)
    stray = ref.copy()
    stray[9, 9, 3] = 3       # one stray voxel of the absent class: that class scores 0
    save_nii(tmp_path / "ws" / "outputs" / "c0" / "labels.nii.gz", stray)
    result, _, agg = score(paths, tmp_path / "ws", opts)
    assert result.per_case[0].metrics["dice_c"] == 0.0
    assert agg["macro_dice"] == pytest.approx((1 + 1 + 0) / 3)   # the stray voxel was background
