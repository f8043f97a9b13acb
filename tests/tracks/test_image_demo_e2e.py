"""Whole S1→S5 runs of the built-in agents on the enhancement and synthesis demo tasks, in the
real bwrap sandbox: the reference earns a good medal, careless and empty are named."""
import shutil

import pytest

from automedbench import api
from automedbench.datasets import stage
from automedbench.runs.models import DetailReport

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
              pytest.mark.slow]
# task -> (dataset, builder options, the error code careless's bug must raise): synthesis's
# careless copies the input header (wrong affine: invalid), enhancement's ruins every other
# case's content (valid files, far below the best case: a suspected logic bug)
CELLS = {"zsr-x4-demo": ("ct-brain-zsr-demo", {"n_cases": 2}, "FORMAT_INVALID"),
         "ldct-denoise": ("ldct-demo", {"n_cases": 4}, "LOGIC_SUSPECT")}


@pytest.fixture(scope="module", params=sorted(CELLS))
def runs(request, tmp_path_factory):
    task = request.param
    dataset, options, _ = CELLS[task]
    data = tmp_path_factory.mktemp("data")
    stage(dataset, data, quiet=True, **options)
    out = tmp_path_factory.mktemp("runs")
    found = {}
    for agent in ("reference", "careless", "empty"):
        d = api.run_one(task, "lite", agent, out, sandbox="bwrap", data_root=data, network=False).run_dir
        found[agent] = DetailReport.model_validate_json((d / "detail_report.json").read_text())
    found["task"] = task
    return found


def test_reference_earns_a_good_medal_cleanly(runs):
    r = runs["reference"]
    assert {s: r.stages[s].score for s in r.stages} == {"s1": 1.0, "s2": 1.0, "s3": 1.0, "s4": 1.0, "s5": 1.0}
    assert r.medal == "good" and r.rating == "A" and not r.errors, (r.task.score, r.errors)


def test_careless_bug_is_named_and_costs_the_medal(runs):
    r = runs["careless"]
    codes = {e.code for e in r.errors}
    assert {"NO_PILOT", CELLS[runs["task"]][2]} <= codes, codes
    assert r.stages["s3"].score == 0
    # S4 is completion × format: an invalid file costs S4, a valid-but-wrong one costs only the task score
    assert (r.stages["s4"].score < 1.0) == (CELLS[runs["task"]][2] == "FORMAT_INVALID")
    assert r.medal != "good" and r.rating in ("B", "C")


def test_empty_agent_scores_nothing(runs):
    r = runs["empty"]
    assert r.task.score == 0 and r.rating == "F" and r.medal == "none"
    assert "SUBMITTED_NOTHING" in {e.code for e in r.errors}
