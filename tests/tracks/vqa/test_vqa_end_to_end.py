"""Whole S1→S5 runs of the built-in agents on the VQA demo tasks, in the real bwrap sandbox."""
from __future__ import annotations

import json
import shutil

import pytest

from automedbench import api
from automedbench.datasets import stage
from automedbench.runs.models import DetailReport

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")]


@pytest.fixture(scope="module")
def vqa_runs(tmp_path_factory):
    data = tmp_path_factory.mktemp("vqa-data")
    stage("vqa-demo-open", data, n_cases=16, quiet=True)
    stage("vqa-demo-mcq", data, n_cases=16, quiet=True)
    out = tmp_path_factory.mktemp("vqa-runs")
    runs = {}
    for task, agent in (("vqa-demo-open", "reference"), ("vqa-demo-open", "careless"), ("vqa-demo-mcq", "reference")):
        d = api.run_one(task, "lite", agent, out, api.RunOptions(sandbox="bwrap", data_root=data, network=False)).run_dir
        runs[task, agent] = (d, DetailReport.model_validate_json((d / "detail_report.json").read_text()))
    return runs


@pytest.mark.parametrize("task", ["vqa-demo-open", "vqa-demo-mcq"])
def test_reference_agent_answers_in_the_sandbox(vqa_runs, task):
    run_dir, r = vqa_runs[task, "reference"]
    assert r.run.submitted and r.run.sandbox == "bwrap"
    assert r.task.completion_rate == 1.0 and r.task.format_valid
    assert r.task.score >= 0.75, r.task.aggregate_metrics
    assert r.task.aggregate_metrics["n_placeholder"] == 0
    codes = {e.code for e in r.errors}
    assert "PLACEHOLDER_OUTPUT" not in codes
    assert "LOGIC_SUSPECT" not in codes          # a few wrong answers are accuracy, not a logic bug
    answer = json.loads(next((run_dir / "workspace" / "outputs").glob("*/answer.json")).read_text())
    assert answer["model_name"] == "rule-based-vqa-1" and answer["raw_model_output"]


def test_careless_agent_is_named_for_its_placeholders(vqa_runs):
    _, ref = vqa_runs["vqa-demo-open", "reference"]
    _, r = vqa_runs["vqa-demo-open", "careless"]
    codes = {e.code: e for e in r.errors}
    assert "PLACEHOLDER_OUTPUT" in codes and "NO_PILOT" in codes
    flagged = [c for c in r.task.per_case if "placeholder" in c.flags]
    assert flagged and all(c.metrics["score"] == 0.0 for c in flagged)
    assert set(codes["PLACEHOLDER_OUTPUT"].evidence["cases"]) == {c.case_id for c in flagged}
    assert r.task.score < ref.task.score and r.overall < ref.overall
