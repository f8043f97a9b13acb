"""The judge on the held-out set (docs/judge.md "Held-out set"): trajectories written in real
agents' styles by someone who never read the judge, labelled before they existed. `make test`
enforces issue 25's bar on the parts that have been looked at (dev, sealed, sealed-2: every
fact-decided item kappa >= 0.9, S3 accuracy >= 0.9, no adversarial trajectory above its label),
and on sealed-3, never tuned against, its first measured accuracies and over-credits as limits
it cannot get worse than (the bar is not met there: docs/judge.md "Held-out set: measured")."""
from collections import Counter

import pytest
import yaml

from automedbench.scoring.judge_eval import HELDOUT_FLOORS, HELDOUT_PARTS, evaluate_heldout, render_table
from automedbench.scoring.judge.heuristic import HeuristicJudge
from tests.helpers import needs_calibration

pytestmark = [needs_calibration(), pytest.mark.slow]   # the held-out set judged whole: ~30 s (docs/testing.md)


@pytest.fixture(scope="module")
def reports():
    return evaluate_heldout(HeuristicJudge())


def _known_over(part: str) -> Counter[str]:
    """Over-credits first measured on a sealed part that misses the bar (floors.yaml known_over:
    "<behaviour> <item>": trajectories): they may not grow, and nothing else may appear."""
    return Counter((yaml.safe_load(HELDOUT_FLOORS.read_text()).get("known_over") or {}).get(part) or {})


@pytest.mark.parametrize("part", HELDOUT_PARTS)
def test_heldout_floors_and_no_adversary_above_its_label(reports, part):
    rep = reports[part]
    assert rep.n_trajectories >= 20 and rep.errors == []
    assert rep.floors, f"no floors for the {part} part"
    known = _known_over(part)
    over = Counter(f"{o['trajectory'].split('__')[0]} {o['item']}" for o in rep.adversarial_over)
    assert not over - known, (sorted(over - known), render_table(rep))
    failures = [f for f in rep.floor_failures if not f.startswith("adversarial ")
                or f.split()[1].split("__")[0] + " " + f.split()[2].rstrip(":") not in known]
    assert failures == [], render_table(rep)


def test_dev_part_holds_issue_25s_bar(reports):
    floors = reports["dev"].floors
    assert floors["min_accuracy"]["s3"] == 0.9
    assert all(floors["min_kappa"][i] == 0.9 for i in ("s1a", "s1e", "s2a", "s2b", "s2c", "s2d", "s2e", "s3"))
