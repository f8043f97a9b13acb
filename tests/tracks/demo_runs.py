"""Whole S1→S5 runs of the built-in agents on one image-track demo task, in the real bwrap
sandbox, and the checks each such track's tests apply: the reference earns a good medal
cleanly, careless's bug is named and costs the medal, empty scores nothing."""
import shutil

import pytest

from automedbench import api
from automedbench.runs.models import DetailReport

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def run_builtin_agents(task: str, dataset: str, options: dict, tmp_path_factory, staged_once) -> dict[str, DetailReport]:
    data = tmp_path_factory.mktemp("data")
    staged_once(dataset, data, **options)   # built once per test run (tests/conftest.py)
    out = tmp_path_factory.mktemp("runs")
    found = {}
    for agent in ("reference", "careless", "empty"):
        d = api.run_one(task, "lite", agent, out, api.RunOptions(sandbox="bwrap", data_root=data, network=False)).run_dir
        found[agent] = DetailReport.model_validate_json((d / "detail_report.json").read_text())
    return found


def check_reference_earns_a_good_medal_cleanly(r: DetailReport) -> None:
    assert {s: r.stages[s].score for s in r.stages} == {"s1": 1.0, "s2": 1.0, "s3": 1.0, "s4": 1.0, "s5": 1.0}
    assert r.medal == "good" and r.rating == "A" and not r.errors, (r.task.score, r.errors)


def check_careless_bug_is_named_and_costs_the_medal(r: DetailReport, code: str) -> None:
    codes = {e.code for e in r.errors}
    assert {"NO_PILOT", code} <= codes, codes
    assert r.stages["s3"].score == 0
    # S4 is completion × format: an invalid file costs S4, a valid-but-wrong one costs only the task score
    assert (r.stages["s4"].score < 1.0) == (code == "FORMAT_INVALID")
    assert r.medal != "good" and r.rating in ("B", "C")


def check_empty_agent_scores_nothing(r: DetailReport) -> None:
    assert r.task.score == 0 and r.rating == "F" and r.medal == "none"
    # doing nothing earns nothing in any stage (docs/judge.md "s2d"; issue 45)
    assert {s: r.stages[s].score for s in r.stages} == {s: 0.0 for s in r.stages}, r.stages
    assert "SUBMITTED_NOTHING" in {e.code for e in r.errors}
