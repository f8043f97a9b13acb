"""The judge on the held-out set (docs/judge.md "Held-out set"): trajectories written in real
agents' styles by someone who never read the judge, labelled before they existed. `make test`
enforces issue 25's bar on the dev part (every fact-decided item kappa >= 0.9, S3 accuracy >=
0.9), the sealed part's first measured accuracies as a floor it cannot fall below (the bar is
not met there: docs/judge.md "Held-out set: measured"), and on both parts that no adversarial
trajectory is credited above its label."""
import pytest

from automedbench.scoring.judge.calibration import HELDOUT_PARTS, evaluate_heldout, render_table
from automedbench.scoring.judge.heuristic import HeuristicJudge


@pytest.fixture(scope="module")
def reports():
    return evaluate_heldout(HeuristicJudge())


@pytest.mark.parametrize("part", HELDOUT_PARTS)
def test_heldout_floors_and_no_adversary_above_its_label(reports, part):
    rep = reports[part]
    assert rep.n_trajectories >= 20 and rep.errors == []
    assert rep.floors, f"no floors for the {part} part"
    assert rep.floor_failures == [], render_table(rep)
    assert rep.adversarial_over == []


def test_dev_part_holds_issue_25s_bar(reports):
    floors = reports["dev"].floors
    assert floors["min_accuracy"]["s3"] == 0.9
    assert all(floors["min_kappa"][i] == 0.9 for i in ("s1a", "s1e", "s2a", "s2b", "s2c", "s2d", "s2e", "s3"))
