"""The kappa / accuracy / confusion functions judge-eval uses (scoring/judge/agreement.py),
cross-checked against scikit-learn when it is installed and against textbook examples."""
import random

import pytest

from automedbench.scoring.judge.agreement import accuracy, cohen_kappa, confusion, weighted_kappa

LADDER = [0.0, 0.5, 1.0]


def test_textbook_unweighted_kappa():
    # Cohen (1960)-style 2x2: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> po 0.7, pe 0.5, kappa 0.4
    a = [1] * 25 + [0] * 25
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert weighted_kappa(a, b, [0, 1], None) == pytest.approx(0.4)
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert accuracy(a, b) == pytest.approx(0.7)
    assert confusion(a, b, [0, 1]) == [[15, 10], [5, 20]]


def test_linear_weights_credit_near_misses():
    labels = [0.0, 0.5, 1.0, 1.0]
    near = [0.5, 0.5, 1.0, 1.0]     # one near miss
    far = [1.0, 0.5, 1.0, 1.0]      # one far miss
    assert weighted_kappa(labels, near, LADDER) > weighted_kappa(labels, far, LADDER)
    assert weighted_kappa(labels, labels, LADDER) == 1.0
    assert weighted_kappa([1.0, 1.0], [1.0, 1.0], LADDER) is None   # no chance disagreement: undefined
    assert weighted_kappa([], [], LADDER) is None and accuracy([], []) is None


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_matches_sklearn(weights):
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(7)
    for _ in range(30):
        a = [rng.choice(LADDER) for _ in range(40)]
        b = [x if rng.random() < 0.7 else rng.choice(LADDER) for x in a]
        ref = metrics.cohen_kappa_score([int(x * 2) for x in a], [int(x * 2) for x in b], labels=[0, 1, 2],
                                        weights=weights)
        assert weighted_kappa(a, b, LADDER, weights) == pytest.approx(ref, abs=1e-12)
