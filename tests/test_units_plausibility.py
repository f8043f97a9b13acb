"""The input-units plausibility check shared by enhancement and z super-resolution
(tracks/units.py, docs/tracks.md "Plausibility"); on the demo's real cases through the harness's
per-output check in tests/test_output_checks.py."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter

from automedbench.tracks.units import not_in_input_units


@pytest.fixture(scope="module")
def ct_slice() -> np.ndarray:
    """A CT-like slice in HU: air around a body of soft tissue with a bone, noisy as low dose."""
    yy, xx = np.mgrid[:128, :128]
    body = (yy - 64) ** 2 + (xx - 64) ** 2 < 50 ** 2
    bone = (yy - 64) ** 2 + (xx - 80) ** 2 < 8 ** 2
    hu = np.where(body, 40.0, -1000.0) + np.where(bone, 1200.0, 0.0)
    return hu + np.random.default_rng(0).normal(0, 60, hu.shape)


def test_a_denoised_ct_is_in_its_inputs_units(ct_slice: np.ndarray) -> None:
    assert not_in_input_units(gaussian_filter(ct_slice, 1.5), ct_slice) == ""
    assert not_in_input_units(ct_slice, ct_slice) == ""


@pytest.mark.parametrize("broken, words", [
    (lambda a: a + 1000.0, "offset"),                                   # an HU offset applied twice
    (lambda a: (a - a.min()) / (a.max() - a.min()), "not in the input's units"),   # [0, 1] kept
    (lambda a: a * 1000.0, "not in the input's units"),
])
def test_an_output_in_other_units_is_named(ct_slice: np.ndarray, broken, words: str) -> None:
    why = not_in_input_units(broken(ct_slice), ct_slice)
    assert words in why, why


def test_a_flat_input_says_nothing() -> None:
    assert not_in_input_units(np.ones((8, 8)) * 5, np.zeros((8, 8))) == ""
