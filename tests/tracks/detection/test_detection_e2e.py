"""Whole S1→S5 runs of the built-in agents on the xray-markers demo, in the real bwrap sandbox."""
import shutil

import pytest

from automedbench import api
from automedbench.datasets import stage
from automedbench.runs.models import DetailReport

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
              pytest.mark.slow]
TASK = "xray-marker-det"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    data = tmp_path_factory.mktemp("det-data")
    stage("xray-markers", data, n_cases=9, quiet=True)
    out = tmp_path_factory.mktemp("det-runs")
    found = {}
    for agent in ("reference", "careless", "empty"):
        d = api.run_one(TASK, "lite", agent, out, api.RunOptions(sandbox="bwrap", data_root=data, network=False)).run_dir
        found[agent] = DetailReport.model_validate_json((d / "detail_report.json").read_text())
    return found


def test_reference_earns_a_good_medal_cleanly(runs):
    r = runs["reference"]
    assert {s: r.stages[s].score for s in r.stages} == {"s1": 1.0, "s2": 1.0, "s3": 1.0, "s4": 1.0, "s5": 1.0}
    assert r.task.score >= 0.6 and r.medal == "good" and r.rating == "A"
    assert not r.errors, r.errors


def test_careless_xywh_boxes_are_named_in_the_format_errors(runs):
    r = runs["careless"]
    codes = {e.code for e in r.errors}
    assert {"NO_PILOT", "FORMAT_INVALID"} <= codes
    fmt = next(e for e in r.errors if e.code == "FORMAT_INVALID")
    assert fmt.evidence["cases"] and all("(x, y, w, h)" in c["reason"] for c in fmt.evidence["cases"])
    assert r.task.score < 0.3 and r.medal == "none" and r.stages["s4"].score < 0.5
    assert r.task.aggregate_metrics["map50"] == 0.0


def test_empty_agent_scores_nothing(runs):
    r = runs["empty"]
    assert r.task.score == 0 and r.rating == "F"
    assert r.stages["s4"].score == 0 and r.stages["s5"].score == 0
    assert "SUBMITTED_NOTHING" in {e.code for e in r.errors}
