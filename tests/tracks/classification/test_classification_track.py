"""Classification track: demo data, cohort CSV checks, gold/reference/careless, bad inputs."""
import json
import os
import time
from collections import Counter

import pytest
from tests.track_scoring import run_scripted, score_outputs

from automedbench.data import DatasetPaths
from automedbench.tracks.base import CaseStatus
from automedbench.tracks.classification import TRACK
from automedbench.tracks.classification.data.demo import LABELS, build_modality_patches

OPTS = TRACK.options_model.model_validate({"labels": list(LABELS), "reference_method": "patch_classifier.py"})


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("modality-patches")
    t = time.perf_counter()
    build_modality_patches(DatasetPaths(root))
    assert time.perf_counter() - t < 30
    return root


def _manifest(root):
    return json.loads((root / "manifest.json").read_text())


def test_demo_is_balanced_seeded_and_ids_hide_labels(demo, tmp_path):
    cases = _manifest(demo)["cases"]
    assert len(cases) == 100 and set(Counter(c["label"] for c in cases).values()) == {20}
    assert [c["label"] for c in cases[:5]] != [LABELS[i % 5] for i in range(5)] or \
        [c["label"] for c in cases[5:10]] != [LABELS[i % 5] for i in range(5)]
    again = tmp_path / "again"
    build_modality_patches(DatasetPaths(again), n_cases=10)
    small = tmp_path / "small"
    build_modality_patches(DatasetPaths(small), n_cases=10)
    assert [c["files"] for c in _manifest(again)["cases"]] == [c["files"] for c in _manifest(small)["cases"]]
    assert (again / "_examples").exists() is False and (again / "public" / "_examples" / "labels.csv").is_file()
    assert not any("label" in p.name for p in (demo / "public").glob("pt_*/*"))


def _write(out, text):
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        (out / "predictions.csv").write_bytes(text)
    else:
        (out / "predictions.csv").write_text(text)


def _gold_rows(demo):
    return [(c["case_id"], c["label"]) for c in _manifest(demo)["cases"]]


def test_gold_scores_one_and_empty_scores_zero(demo, tmp_path):
    TRACK.gold_submission(demo, tmp_path / "gold" / "outputs", OPTS)
    agg, _ = score_outputs(TRACK, demo, tmp_path / "gold" / "outputs", OPTS)
    assert agg.score == pytest.approx(1.0) and agg.aggregate_metrics["balanced_accuracy"] == 1.0
    (tmp_path / "none" / "outputs").mkdir(parents=True)
    agg, records = score_outputs(TRACK, demo, tmp_path / "none" / "outputs", OPTS)
    assert agg.score == 0.0 and agg.aggregate_metrics["completion"] == 0.0
    assert agg.aggregate_metrics["confusion/ct/(none)"] == 20.0


@pytest.mark.slow
def test_reference_earns_good_medal_and_careless_shows_the_shift(demo, tmp_path):
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
    bad, records = score_outputs(TRACK, demo, ws / "outputs", OPTS)
    assert bad.score < TRACK.default_bands(OPTS).okay
    assert all(r.status == CaseStatus.OK for r in records)      # well-formed, just wrong
    # the shift shows in the confusion matrix: each class mostly predicted as another one
    assert all(bad.aggregate_metrics[f"recall/{x}"] < 0.5 for x in LABELS)
    # ... and per case (docs/tracks.md: `correct`, and why a wrong case is wrong)
    wrong = [c for c in bad.per_case if c.metrics["correct"] == 0]
    assert len(wrong) == round(sum(bad.aggregate_metrics[f"confusion/{t}/{p}"] for t in LABELS for p in LABELS if p != t))
    assert all(c.metrics["correct"] == 1 and not c.reason for c in bad.per_case if c not in wrong)
    for c in wrong:
        pred, ref = c.reason.removeprefix("predicted ").split(", ground truth ")
        assert pred in LABELS and ref in LABELS and pred != ref


def test_missing_and_bad_rows_count_as_wrong_with_reasons(demo, tmp_path):
    rows = _gold_rows(demo)
    body = ["patient_id,label"]
    body += [f"{cid},{lab}" for cid, lab in rows[:90]]
    body += [f"{rows[90][0]},", f"{rows[91][0]},tumour", f"{rows[92][0]}, CT ".replace("CT", rows[92][1].upper())]
    body += [f"{rows[93][0]},{rows[93][1]}", f"{rows[93][0]},{rows[93][1]}", "pt_999,ct", "_examples,ct"]
    _write(tmp_path / "out" / "outputs", "\n".join(body) + "\n")
    agg, records = score_outputs(TRACK, demo, tmp_path / "out" / "outputs", OPTS)
    by = {r.case_id: r for r in records}
    assert by[rows[90][0]].status == CaseStatus.INVALID and "empty label" in by[rows[90][0]].reason
    assert by[rows[91][0]].status == CaseStatus.INVALID and "unknown label 'tumour'" in by[rows[91][0]].reason
    assert by[rows[92][0]].status == CaseStatus.OK                      # trimmed, case-insensitive
    assert by[rows[93][0]].status == CaseStatus.INVALID and "duplicates" in by[rows[93][0]].reason
    assert by[rows[95][0]].status == CaseStatus.MISSING
    assert agg.score == pytest.approx(91 / 100)
    assert agg.aggregate_metrics["completion"] == pytest.approx(91 / 100)


@pytest.mark.parametrize("content, reason", [
    ("id,label\npt_000,ct\n", "lacks column"),
    ("patient_id;label\npt_000;ct\n", "lacks column"),
    (b"\xff\xfe\x00garbage\x00", "not UTF-8"),
    ("", "lacks column"),
])
def test_unusable_files_fail_every_case_with_a_reason(demo, tmp_path, content, reason):
    _write(tmp_path / "out" / "outputs", content)
    agg, records = score_outputs(TRACK, demo, tmp_path / "out" / "outputs", OPTS)
    assert agg.score == 0.0
    assert all(r.status == CaseStatus.INVALID and reason in r.reason for r in records)


def test_symlinked_or_huge_cohort_file_is_refused(demo, tmp_path):
    out = tmp_path / "out" / "outputs"
    out.mkdir(parents=True)
    TRACK.gold_submission(demo, tmp_path / "gold" / "outputs", OPTS)
    os.symlink(tmp_path / "gold" / "outputs" / "predictions.csv", out / "predictions.csv")
    agg, records = score_outputs(TRACK, demo, out, OPTS)
    assert agg.score == 0.0 and "symlink" in records[0].reason
    (out / "predictions.csv").unlink()
    with open(out / "predictions.csv", "wb") as fh:
        fh.truncate(60_000_000)
    agg, records = score_outputs(TRACK, demo, out, OPTS)
    assert agg.score == 0.0 and "larger than" in records[0].reason


def test_reference_error_cases_are_left_out(demo, tmp_path):
    import shutil
    broken = tmp_path / "broken"
    shutil.copytree(demo, broken)
    first = _manifest(broken)["cases"][0]["case_id"]
    (broken / "private" / first / "label.txt").write_text("alien\n")
    TRACK.gold_submission(demo, tmp_path / "gold" / "outputs", OPTS)
    agg, records = score_outputs(TRACK, broken, tmp_path / "gold" / "outputs", OPTS)
    assert records[0].status == CaseStatus.REFERENCE_ERROR
    assert agg.score == pytest.approx(1.0)


def test_contract_is_a_cohort_csv():
    layout = TRACK.submission(OPTS)
    assert layout.kind == "cohort" and layout.cohort_format == "csv"
    assert layout.key == "patient_id" and layout.columns == ["label"]
    text = layout.contract("/workspace")
    assert "predictions.csv" in text and "histology" in text
    with pytest.raises(ValueError):
        TRACK.options_model.model_validate({"labels": ["a", " A"]})


def test_official_tasks_have_no_scripted_method():
    assert TRACK.scripted_methods(TRACK.options_model.model_validate({"labels": ["NORMAL", "PNEUMONIA"]})) is None
