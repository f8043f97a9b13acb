"""Which slices a segmentation picture shows (docs/site.md "Pictures of outputs"): the
reference's largest slice, the same for every run of a case, and the prediction's largest
disagreement when it lies elsewhere; never an edge slice of noise for an empty reference."""
from __future__ import annotations

import numpy as np

from automedbench.tracks.segmentation.pictures import case_slice, slices_for


def _mask(z0: int, z1: int, shape=(10, 10, 24)) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    m[3:6, 3:6, z0:z1 + 1] = 1
    m[3:7, 3:7, (z0 + z1) // 2] = 1          # one slice larger than the others
    return m


def test_dice_zero_shows_the_reference_and_the_prediction():
    ref, pred = _mask(12, 16), _mask(2, 4)
    assert slices_for(pred, ref, 0) == [(14, "largest ground truth"), (3, "most spurious")]


def test_two_runs_share_the_first_slice():
    ref = _mask(12, 16)
    a, b = slices_for(_mask(12, 16), ref, 0), slices_for(_mask(18, 22), ref, 0)
    assert a[0] == b[0] == (14, "largest ground truth") and len(a) == 1 and b[1] == (20, "most spurious")


def test_an_empty_reference_is_drawn_on_the_cases_largest_reference():
    organ, lesion = _mask(6, 18), np.zeros((10, 10, 24), np.uint8)
    k = case_slice([organ, lesion])
    assert k == 12
    assert slices_for(lesion, lesion, k) == [(12, "no ground truth here")]          # not slice 0
    assert case_slice([lesion]) == 12                                             # nothing anywhere: the middle
