"""Detection track: demo data, contract checks, gold/reference/careless scores, bad inputs."""
import json
import os
import time

import numpy as np
import pytest
from tests.track_scoring import run_scripted, score_outputs

from automedbench.data import DatasetPaths
from automedbench.tracks.base import CaseStatus, ScoringContext, SubmittedCase
from automedbench.tracks.detection import TRACK
from automedbench.tracks.detection.data.demo import build_xray_markers

OPTS = TRACK.options_model.model_validate({"classes": ["marker", "ring"], "reference_method": "marker_detector.py"})


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("xray-markers")
    t = time.perf_counter()
    build_xray_markers(DatasetPaths(root), n_cases=12, seed=3)
    assert time.perf_counter() - t < 30
    return root


def test_demo_is_seeded_and_has_negatives(demo, tmp_path):
    again = tmp_path / "again"
    build_xray_markers(DatasetPaths(again), n_cases=12, seed=3)
    a, b = json.loads((demo / "manifest.json").read_text()), json.loads((again / "manifest.json").read_text())
    assert [c["files"] for c in a["cases"]] == [c["files"] for c in b["cases"]]
    positives = [c["positive"] for c in a["cases"]]
    assert 0 < sum(positives) < len(positives)
    other = tmp_path / "other"
    build_xray_markers(DatasetPaths(other), n_cases=12, seed=4)
    b = json.loads((other / "manifest.json").read_text())
    assert [c["files"] for c in a["cases"]] != [c["files"] for c in b["cases"]]


def test_gold_submission_scores_one(demo, tmp_path):
    TRACK.gold_submission(demo, tmp_path / "outputs", OPTS)
    agg, records = score_outputs(TRACK, demo, tmp_path / "outputs", OPTS)
    assert all(r.status == CaseStatus.OK for r in records)
    assert agg.score == pytest.approx(1.0, abs=1e-6)
    assert agg.aggregate_metrics["completion"] == 1.0


def test_empty_submission_scores_zero(demo, tmp_path):
    (tmp_path / "outputs").mkdir()
    agg, records = score_outputs(TRACK, demo, tmp_path / "outputs", OPTS)
    assert agg.score == 0.0 and all(r.status == CaseStatus.MISSING for r in records)


@pytest.mark.slow
def test_reference_method_earns_good_medal_and_careless_names_its_bug(demo, tmp_path):
    methods = TRACK.scripted_methods(OPTS)
    data = str(demo / "public")
    ws = tmp_path / "ref"
    for code in (methods.setup_code(data), methods.pilot_code(data), methods.inspect_code(data),
                 methods.batch_code(data, careless=False), methods.verify_code(data)):
        run_scripted(code, ws)
    agg, _ = score_outputs(TRACK, demo, ws / "outputs", OPTS)
    assert agg.score >= TRACK.default_bands(OPTS).good, agg.aggregate_metrics

    ws = tmp_path / "careless"
    run_scripted(methods.setup_code(data), ws)
    run_scripted(methods.batch_code(data, careless=True), ws)
    agg_bad, records = score_outputs(TRACK, demo, ws / "outputs", OPTS)
    assert agg_bad.score < TRACK.default_bands(OPTS).okay
    invalid = [r for r in records if r.status == CaseStatus.INVALID]
    assert invalid and all("(x, y, w, h)" in r.reason for r in invalid)


def test_missing_images_count_their_boxes_as_missed_and_cut_completion(demo, tmp_path):
    out = tmp_path / "outputs"
    TRACK.gold_submission(demo, out, OPTS)
    manifest = json.loads((demo / "manifest.json").read_text())
    pos = next(c["case_id"] for c in manifest["cases"] if c["positive"])
    neg = next(c["case_id"] for c in manifest["cases"] if not c["positive"])
    (out / pos / "prediction.json").unlink()
    (out / pos).rmdir()
    agg, _ = score_outputs(TRACK, demo, out, OPTS)
    assert agg.aggregate_metrics["map50"] < 1.0 and agg.aggregate_metrics["map50_answered"] == pytest.approx(1.0)
    n = len(manifest["cases"])
    assert agg.score == pytest.approx(agg.aggregate_metrics["map50"] * (n - 1) / n)
    # skipping a NEGATIVE image leaves mAP perfect but still costs completion
    TRACK.gold_submission(demo, out, OPTS)
    (out / neg / "prediction.json").unlink()
    agg, _ = score_outputs(TRACK, demo, out, OPTS)
    assert agg.aggregate_metrics["map50"] == pytest.approx(1.0) and agg.score == pytest.approx((n - 1) / n)


def _check(tmp_path, content, *, raw=False, opts=OPTS):
    d = tmp_path / "case"
    d.mkdir(exist_ok=True)
    f = d / "prediction.json"
    if f.exists() or f.is_symlink():
        f.unlink()
    if isinstance(content, bytes):
        f.write_bytes(content)
    else:
        f.write_text(content if raw or isinstance(content, str) else json.dumps(content))
    return TRACK.check_case(SubmittedCase("case", dir=d), {"width": 100, "height": 80}, opts)


def _box(**kw):
    return {"class": "marker", "score": 0.5, "x1": 10, "y1": 10, "x2": 20, "y2": 20, **kw}


@pytest.mark.parametrize("content, reason", [
    ("{not json", "malformed JSON"),
    (b"\x89PNG\x00\xff\xfe garbage", "not UTF-8"),
    ([], "expected a JSON object"),
    ({"boxes": {"a": 1}}, "must be a list"),
    ({"boxes": [_box(x2=120)]}, "outside the 100x80 image"),
    ({"boxes": [_box(y1=-1)]}, "outside"),
    ({"boxes": [_box(score=1.5)]}, "score"),
    ({"boxes": [_box(score=-0.1)]}, "score"),
    ({"boxes": [_box(score="high")]}, "score"),
    ({"boxes": [_box(x1=15, x2=5)]}, "(x, y, w, h)"),
    ({"boxes": [_box(**{"class": "nodule"})]}, "unknown class 'nodule'"),
    ({"boxes": [_box(**{"class": "abnormality"})]}, "unknown class"),
    ({"boxes": [{"class": "marker", "score": 0.5, "x1": 1}]}, "missing"),
    ({"boxes": [_box(x1=True)]}, "finite numbers"),
    ({"boxes": [_box()] * 1001}, "more than the 1000"),
])
def test_bad_predictions_fail_with_a_reason(tmp_path, content, reason):
    check = _check(tmp_path, content)
    assert not check.valid and reason in check.reason
    assert "\n" not in check.reason


def test_nan_and_infinity_literals_are_refused(tmp_path):
    for lit in ("NaN", "Infinity"):
        box = '{"boxes": [{"class": "marker", "score": %s, "x1": %s, "y1": 1, "x2": 5, "y2": 5}]}'
        check = _check(tmp_path, box % (lit, 1), raw=True)
        assert not check.valid and "score" in check.reason
        check = _check(tmp_path, box % (0.5, lit), raw=True)
        assert not check.valid and "finite" in check.reason


def test_absurd_numbers_and_deep_nesting_never_raise(tmp_path):
    box = '{"boxes": [{"class": "marker", "score": 0.5, "x1": %s, "y1": 1, "x2": 5, "y2": 5}]}'
    for literal in ("1" + "0" * 400, "1" + "0" * 5000, "1e400", "-1e400"):
        check = _check(tmp_path, box % literal, raw=True)
        assert not check.valid and check.reason
    check = _check(tmp_path, "[" * 100000 + "]" * 100000, raw=True)
    assert not check.valid and check.reason


def test_symlink_and_huge_files_are_refused(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"boxes": []}))
    d = tmp_path / "case"
    d.mkdir()
    os.symlink(secret, d / "prediction.json")
    check = TRACK.check_case(SubmittedCase("case", dir=d), {"width": 100, "height": 80}, OPTS)
    assert not check.valid and "symlink" in check.reason
    (d / "prediction.json").unlink()
    with open(d / "prediction.json", "wb") as fh:
        fh.truncate(6_000_000)
    check = TRACK.check_case(SubmittedCase("case", dir=d), {"width": 100, "height": 80}, OPTS)
    assert not check.valid and "larger than" in check.reason


def test_valid_prediction_class_names_are_case_insensitive_and_empty_is_trivial(tmp_path):
    check = _check(tmp_path, {"boxes": [_box(**{"class": " Ring "}), _box(x1=0, y1=0, x2=100, y2=80)]})
    assert check.valid and check.prediction[:, 0].tolist() == [1, 0]
    empty = _check(tmp_path, {"boxes": []})
    assert empty.valid and not empty.non_trivial


def test_class_agnostic_policy_scores_one_class_and_accepts_abnormality(tmp_path, demo):
    opts = TRACK.options_model.model_validate({"classes": ["marker", "ring"], "class_agnostic": True})
    assert _check(tmp_path, {"boxes": [_box(**{"class": "abnormality"})]}, opts=opts).valid
    assert not _check(tmp_path, {"boxes": [_box(**{"class": "lesion"})]}, opts=opts).valid
    out = tmp_path / "outputs"
    TRACK.gold_submission(demo, out, opts)
    for f in out.glob("*/prediction.json"):     # swap every class: right boxes, wrong names
        boxes = json.loads(f.read_text())["boxes"]
        for b in boxes:
            b["class"] = {"marker": "ring", "ring": "marker"}[b["class"]]
        f.write_text(json.dumps({"boxes": boxes}))
    assert score_outputs(TRACK, demo, out, opts)[0].score == pytest.approx(1.0)
    strict = score_outputs(TRACK, demo, out, OPTS)[0]
    assert strict.score < 0.5 and strict.aggregate_metrics["ap50_marker"] is not None


def test_options_refuse_duplicate_or_unknown_fields():
    with pytest.raises(ValueError):
        TRACK.options_model.model_validate({"classes": ["a", "A"]})
    with pytest.raises(ValueError):
        TRACK.options_model.model_validate({"classes": ["a"], "clases": 1})


def test_score_case_diagnostics():
    ref = {"boxes": np.array([[0, 10, 10, 20, 20], [1, 40, 40, 60, 60]], float), "width": 100, "height": 100}
    pred = np.array([[0, 0.9, 10, 10, 20, 20], [0, 0.8, 40, 40, 60, 60]], float)
    m = TRACK.score_case(pred, ref, OPTS, ScoringContext()).metrics
    assert m["tp50"] == 1 and m["fp50"] == 1 and m["recall50"] == 0.5 == m["found50"]
    neg = TRACK.score_case(np.zeros((0, 6)), {"boxes": np.zeros((0, 5))}, OPTS, ScoringContext()).metrics
    assert neg["recall50"] is None and neg["found50"] == 1.0 and neg["n_pred"] == 0


def test_official_tasks_have_no_scripted_method():
    opts = TRACK.options_model.model_validate({"classes": ["RBC", "WBC", "Platelets"]})
    assert TRACK.scripted_methods(opts) is None
