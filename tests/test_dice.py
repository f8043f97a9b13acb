import numpy as np
import pytest

from automedbench.metrics.dice import binary_dice, confusion_matrix, dice_from_confusion, multiclass_dice


def test_binary_dice_hand_computed():
    ref = np.array([1, 1, 1, 0, 0], np.uint8)
    pred = np.array([1, 1, 0, 1, 0], np.uint8)
    # |A∩B| = 2, |A| = 3, |B| = 3 -> 4/6
    assert binary_dice(ref, pred) == pytest.approx(4 / 6)


def test_empty_conventions():
    z = np.zeros(10, np.uint8)
    o = np.ones(10, np.uint8)
    assert binary_dice(z, z) == 1.0
    assert binary_dice(z, o) == 0.0
    assert binary_dice(o, z) == 0.0


def test_shape_mismatch_raises():
    with pytest.raises(ValueError, match="shape mismatch"):
        binary_dice(np.zeros((2, 2)), np.zeros((2, 3)))


def test_multiclass_matches_per_label_binary():
    rng = np.random.default_rng(1)
    ref = rng.integers(0, 4, (20, 21, 22)).astype(np.uint8)
    pred = ref.copy()
    pred[rng.random(ref.shape) < 0.3] = 2
    per = multiclass_dice(ref, pred, [1, 2, 3])
    for label, value in per.items():
        assert value == pytest.approx(binary_dice(ref == label, pred == label), abs=1e-12)


def test_confusion_matrix_counts():
    ref = np.array([0, 1, 1, 2], np.uint8)
    pred = np.array([0, 1, 2, 2], np.uint8)
    cm = confusion_matrix(ref, pred, 3)
    assert cm.tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    assert dice_from_confusion(cm, 2) == pytest.approx(2 * 1 / (1 + 2))


def test_many_labels_do_not_overflow():
    ref = np.arange(40, dtype=np.uint8)
    assert multiclass_dice(ref, ref.copy(), list(range(1, 40))) == {k: 1.0 for k in range(1, 40)}
