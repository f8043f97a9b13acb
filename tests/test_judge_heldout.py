"""The judge on the held-out set (docs/judge.md "Held-out set"): trajectories written in real
agents' styles by someone who never read the judge, labelled before they existed. `make test`
enforces issue 25's bar on each part apart, the sealed part (never tuned against) included:
every fact-decided item kappa >= 0.9 (or all right where one category only), S3 accuracy >= 0.9,
and no adversarial trajectory credited above its label."""
import pytest

from automedbench.scoring.judge.calibration import HELDOUT_PARTS, evaluate_heldout, render_table
from automedbench.scoring.judge.heuristic import HeuristicJudge


@pytest.fixture(scope="module")
def reports():
    return evaluate_heldout(HeuristicJudge())


@pytest.mark.parametrize("part", HELDOUT_PARTS)
def test_heldout_floors(reports, part):
    rep = reports[part]
    assert rep.n_trajectories >= 20 and rep.errors == []
    assert rep.floors["min_accuracy"]["s3"] == 0.9 and rep.floors["min_kappa"]["s3"] == 0.9
    assert rep.floor_failures == [], render_table(rep)
    assert rep.adversarial_over == []
