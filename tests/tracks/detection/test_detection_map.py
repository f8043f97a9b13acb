"""Our pure mAP@0.5 equals pycocotools' on randomised inputs (ties, empty, negative images)."""
import numpy as np
import pytest

from automedbench.metrics.coco_reference import coco_map
from automedbench.metrics.detection_map import box_iou, mean_average_precision

pytest.importorskip("pycocotools")


def _random_case(seed: int):
    rng = np.random.default_rng(seed)
    n_img, n_cls = int(rng.integers(1, 25)), int(rng.integers(1, 4))
    gts, dts = [], []
    for _ in range(n_img):
        g = []
        for _ in range(int(rng.choice([0, 0, 1, 2, 3, 6]))):        # many negative images
            x, y = rng.integers(0, 200, 2)
            w, h = rng.integers(4, 60, 2)
            g.append((int(rng.integers(n_cls)), x, y, x + w, y + h))
        d = []
        mode = rng.choice(["none", "some", "many"], p=[0.2, 0.5, 0.3])
        if mode != "none":
            for c, x1, y1, x2, y2 in g:
                for _ in range(int(rng.integers(0, 3))):           # duplicates on one box
                    j = rng.integers(-6, 7, 4)                     # integer jitter: exact IoU ties
                    cls = c if rng.random() < 0.85 else int(rng.integers(n_cls))
                    d.append((cls, round(float(rng.random()), 1), x1 + j[0], y1 + j[1],
                              max(x1 + j[0] + 1, x2 + j[2]), max(y1 + j[1] + 1, y2 + j[3])))
            for _ in range(int(rng.integers(0, 4 if mode == "some" else 12))):
                x, y = rng.integers(0, 200, 2)
                w, h = rng.integers(4, 60, 2)
                d.append((int(rng.integers(n_cls)), round(float(rng.random()), 1), x, y, x + w, y + h))
        gts.append(g)
        dts.append(d)
    return gts, dts, n_cls


@pytest.mark.parametrize("seed", range(60))
def test_equals_pycocotools_on_random_cases(seed):
    gts, dts, k = _random_case(seed)
    ours = mean_average_precision(gts, dts, k).map
    theirs = coco_map(gts, dts, k)
    assert ours == theirs          # identical, not approximately equal


def test_ties_across_images_follow_image_order():
    # same score in two images: the stable sort keeps image order (pycocotools does too)
    gts = [[(0, 0, 0, 10, 10)], [(0, 0, 0, 10, 10)]]
    dts = [[(0, 0.5, 50, 50, 60, 60)], [(0, 0.5, 0, 0, 10, 10)]]
    assert mean_average_precision(gts, dts, 1).map == coco_map(gts, dts, 1)
    dts_swapped = [dts[1], dts[0]]
    assert mean_average_precision(gts, dts_swapped, 1).map == coco_map(gts, dts_swapped, 1)


def test_max_dets_truncates_per_image_and_class():
    gts = [[(0, 0, 0, 10, 10)]]
    dts = [[(0, 0.9, 100 + i, 100, 110 + i, 110) for i in range(120)] + [(0, 0.1, 0, 0, 10, 10)]]
    ours = mean_average_precision(gts, dts, 1)
    assert ours.map == coco_map(gts, dts, 1) == 0.0   # the true box is the 121st: cut off
    assert ours.n_det == [100]


def test_empty_predictions_and_negative_images():
    gts = [[(0, 0, 0, 10, 10)], []]
    assert mean_average_precision(gts, [[], []], 1).map == 0.0 == coco_map(gts, [[], []], 1)
    # no ground truth anywhere: undefined (pycocotools -1), false positives cost nothing
    assert mean_average_precision([[], []], [[(0, 0.9, 0, 0, 5, 5)], []], 1).map is None
    assert coco_map([[], []], [[(0, 0.9, 0, 0, 5, 5)], []], 1) is None


def test_hand_computed_value():
    # 2 gt boxes; detections ranked: TP (0.9), FP (0.8), TP (0.7) -> recall 0.5 @ P=1, 1.0 @ P=2/3
    gts = [[(0, 0, 0, 10, 10), (0, 20, 20, 30, 30)]]
    dts = [[(0, 0.9, 0, 0, 10, 10), (0, 0.8, 50, 50, 60, 60), (0, 0.7, 20, 20, 30, 30)]]
    expected = (51 * 1.0 + 50 * (2 / 3)) / 101
    assert mean_average_precision(gts, dts, 1).map == pytest.approx(expected, abs=1e-12)
    assert mean_average_precision(gts, dts, 1).map == coco_map(gts, dts, 1)


def test_class_without_ground_truth_is_left_out():
    gts = [[(0, 0, 0, 10, 10)]]
    dts = [[(0, 0.9, 0, 0, 10, 10), (1, 0.95, 0, 0, 10, 10)]]
    r = mean_average_precision(gts, dts, 2)
    assert r.ap[1] is None and r.map == coco_map(gts, dts, 2)
    assert r.map == pytest.approx(1.0)   # cocoeval's precision has +eps in the denominator


def test_iou_matches_hand_value_and_touching_boxes_are_zero():
    a = np.array([[0, 0, 10, 10]], float)
    b = np.array([[5, 0, 15, 10], [10, 0, 20, 10]], float)
    iou = box_iou(a, b)
    assert iou[0, 0] == pytest.approx(50 / 150) and iou[0, 1] == 0.0


def test_rejects_malformed_rows():
    with pytest.raises(ValueError):
        mean_average_precision([[(0, 1, 2)]], [[]], 1)
