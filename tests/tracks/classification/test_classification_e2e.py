"""Whole S1→S5 runs of the built-in agents on the modality-patches demo, in the real bwrap sandbox."""
import shutil

import pytest

from automedbench import api
from automedbench.runs.models import DetailReport

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
              pytest.mark.slow]
TASK = "modality-patch-cls"


@pytest.fixture(scope="module")
def runs(tmp_path_factory, staged_once):
    data = tmp_path_factory.mktemp("cls-data")
    staged_once("modality-patches", data)   # built once per test run (tests/conftest.py)
    out = tmp_path_factory.mktemp("cls-runs")
    found = {}
    for agent in ("reference", "careless", "empty"):
        d = api.run_one(TASK, "lite", agent, out, api.RunOptions(sandbox="bwrap", data_root=data, network=False)).run_dir
        found[agent] = DetailReport.model_validate_json((d / "detail_report.json").read_text())
    return found


def test_reference_earns_a_good_medal_cleanly(runs):
    r = runs["reference"]
    assert {s: r.stages[s].score for s in r.stages} == {"s1": 1.0, "s2": 1.0, "s3": 1.0, "s4": 1.0, "s5": 1.0}
    assert r.task.score >= 0.8 and r.medal == "good" and r.rating == "A"
    assert not r.errors, r.errors


def test_careless_label_shift_shows_in_score_and_confusion(runs):
    r = runs["careless"]
    m = r.task.aggregate_metrics
    assert "NO_PILOT" in {e.code for e in r.errors}
    assert r.task.score < 0.5 and r.medal == "none" and r.rating == "C"
    assert r.stages["s4"].score == 1.0          # a well-formed file: the labels are just wrong
    # ct patches land in the next class of the (sorted) label map, not in ct
    assert m["confusion/ct/ct"] <= 2 and max(m[f"confusion/ct/{x}"] for x in ("mr", "xray", "ultrasound", "histology")) >= 10
    # ... and the error codes name it: LOGIC_SUSPECT from the aggregate's label-shift finding
    suspect = next(e for e in r.errors if e.code == "LOGIC_SUSPECT")
    assert suspect.evidence["n_cases"] >= 50 and suspect.step == "S3"


def test_empty_agent_scores_nothing(runs):
    r = runs["empty"]
    assert r.task.score == 0 and r.rating == "F"
    assert r.stages["s4"].score == 0 and r.stages["s5"].score == 0
    assert "SUBMITTED_NOTHING" in {e.code for e in r.errors}
