"""Whole S1→S5 runs of the built-in agents on the report-generation demo, in the real sandbox."""
import json
import shutil

import pytest

from automedbench import api
from automedbench.datasets import stage
from automedbench.runs.models import DetailReport

TASK = "cxr-report-gen"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None,
                                reason="bubblewrap not installed: `make test` installs it as root (apt-get install bubblewrap)")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    data = tmp_path_factory.mktemp("report-data")
    paths = stage("cxr-report-demo", data, n_cases=12, quiet=True)
    out = tmp_path_factory.mktemp("report-runs")
    found = {}
    for agent in ("reference", "careless", "empty"):
        d = api.run_one(TASK, "lite", agent, out, api.RunOptions(sandbox="bwrap", data_root=data, network=False)).run_dir
        found[agent] = DetailReport.model_validate_json((d / "detail_report.json").read_text())
    legs = {c["case_id"] for c in json.loads(paths.manifest.read_text())["cases"] if c["body_part"] == "LEG"}
    return found, legs


def test_reference_writes_every_report_and_names_its_components(runs):
    r = runs[0]["reference"]
    assert {s: r.stages[s].score for s in r.stages} == {"s1": 1.0, "s2": 1.0, "s3": 1.0, "s4": 1.0, "s5": 1.0}
    assert r.task.completion_rate == 1.0 and r.task.format_valid and not r.errors, r.errors
    assert r.task.score > 0.5 and r.rating in ("A", "B")
    assert r.task.components == ["bleu", "rougeL", "meteor"]          # the report names what was used
    assert set(r.task.component_notes) == {"radgraph_f1", "chexbert_micro_f1"}
    assert r.task.aggregate_metrics["corpus_bleu4"] > 0


def test_careless_is_caught_on_the_studies_it_got_wrong(runs):
    found, legs = runs
    ref, r = found["reference"], found["careless"]
    codes = {e.code for e in r.errors}
    assert r.stages["s3"].score == 0.0 and "NO_PILOT" in codes
    suspect = next(e for e in r.errors if e.code == "LOGIC_SUSPECT")
    assert legs and set(suspect.evidence["cases"]) == legs    # chest reports written for leg films, only those
    # the Why names it: the track's plausibility (the report's body part against the study's own
    # public manifest, docs/judge.md "Plausibility") comes first, as on every page
    why = {c.case_id: c.reason for c in r.task.per_case}
    assert all(why[s] == "the report is about the chest (body part); the study's manifest.json says lower limb"
               for s in legs), why
    assert r.task.score < ref.task.score and r.overall < ref.overall


def test_empty_scores_zero(runs):
    r = runs[0]["empty"]
    assert r.task.score == 0 and r.rating == "F"
    assert "SUBMITTED_NOTHING" in {e.code for e in r.errors}
