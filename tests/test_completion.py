"""Completion is one number: the factor the core multiplies the task score by and the task's
`completion_rate` (which S4 reads) come from the same computation (docs/scoring.md "S4")."""
import csv

import pytest
from toy_track_pkg import ToyTrack, build_toy_values

from automedbench.data import DatasetPaths
from automedbench.scoring.stages import s4_inference
from automedbench.scoring.task_score import scored_cases
from tests.track_scoring import score_outputs


def test_the_task_score_factor_and_completion_rate_are_one_completion(tmp_path):
    track = ToyTrack()
    options = track.parse_options({})
    data = DatasetPaths(tmp_path / "toy")
    build_toy_values(data, n_cases=6)
    # case_005: its reference cannot be read (left out on both sides); case_004: no row (missing);
    # case_002: a label the format check refuses (invalid); 000 and 003 right, 001 wrong
    (data.private / "case_005" / "label.txt").unlink()
    labels = {c: (data.private / c / "label.txt").read_text() for c in ("case_000", "case_001", "case_003")}
    wrong = {"low": "high", "high": "low"}[labels["case_001"]]
    outputs = tmp_path / "ws" / "outputs"
    outputs.mkdir(parents=True)
    with open(outputs / "labels.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerows([("case_id", "label"), ("case_000", labels["case_000"]), ("case_001", wrong),
                     ("case_002", "maybe"), ("case_003", labels["case_003"])])
    result, records = score_outputs(track, data.root, outputs, options)
    statuses = [r.status.value for r in records]
    assert statuses == ["ok", "ok", "invalid", "ok", "missing", "reference_error"], statuses
    assert result.completion_rate == pytest.approx(3 / 5)           # valid / scorable, not / 6
    assert scored_cases(records).completion == result.completion_rate
    # accuracy over the valid cases is 2/3; the task score is it × the same completion
    assert result.score == pytest.approx(2 / 3 * result.completion_rate)
    assert s4_inference(result).items["s4_completion"] == pytest.approx(0.6)
