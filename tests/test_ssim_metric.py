"""metrics/ssim.py against scikit-image: equal with ==, not approximately. (scikit-image, which
imports scipy.stats, is imported by the tests that compare with it, not when the file is
collected: docs/testing.md "What is slow".)"""
import math

import numpy as np
import pytest

from automedbench.metrics.ssim import psnr, reference_data_range, ssim, ssim_psnr, ssim_psnr_many


@pytest.mark.parametrize("shape", [(64, 80), (31, 47), (20, 24, 18)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ssim_and_psnr_bit_identical_to_skimage(shape, seed):
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    rng = np.random.default_rng(seed)
    ref = rng.normal(100, 40, shape)
    pred = ref + rng.normal(0, 10 * (seed + 1), shape)
    r = reference_data_range(ref)
    assert ssim(ref, pred, r) == structural_similarity(ref, pred, data_range=r)
    assert psnr(ref, pred, r) == peak_signal_noise_ratio(ref, pred, data_range=r)


def test_float32_inputs_are_scored_in_float64_like_skimage_on_float64():
    from skimage.metrics import structural_similarity

    rng = np.random.default_rng(5)
    ref = rng.random((40, 40)).astype(np.float32)
    pred = (ref + 0.1 * rng.random((40, 40))).astype(np.float32)
    r = reference_data_range(ref)
    want = structural_similarity(ref.astype(np.float64), pred.astype(np.float64), data_range=r)
    assert ssim(ref, pred, r) == want


def test_identical_images_score_one_and_infinite_psnr():
    ref = np.arange(100.0).reshape(10, 10)
    s, p, r = ssim_psnr(ref, ref.copy())
    assert s == 1.0 and math.isinf(p) and r == 99.0


def test_data_range_comes_from_the_reference_not_the_prediction():
    ref = np.linspace(0, 1, 400).reshape(20, 20)
    pred = ref * 1000          # a prediction in the wrong units must not rescale the metric
    assert ssim_psnr(ref, pred)[2] == 1.0
    assert ssim_psnr(ref, pred)[0] < 0.01


@pytest.mark.parametrize("bad", [dict(shape=(10, 11)), dict(data_range=0.0), dict(data_range=float("nan")),
                                 dict(win_size=4), dict(small=True)])
def test_invalid_arguments_raise_value_error(bad):
    ref = np.zeros((5, 5)) if bad.get("small") else np.random.default_rng(0).random((10, 10))
    pred = np.zeros(bad.get("shape", ref.shape))
    with pytest.raises(ValueError):
        ssim(ref, pred, bad.get("data_range", 1.0), bad.get("win_size", 7))


def test_many_keeps_order_and_isolates_a_failing_pair():
    rng = np.random.default_rng(3)
    pairs = [(rng.random((32, 32)), rng.random((32, 32))) for _ in range(5)]
    pairs.insert(2, (np.ones((32, 32)), np.ones((32, 32))))   # flat reference: no data range
    one = [ssim_psnr(a, b) if i != 2 else None for i, (a, b) in enumerate(pairs)]
    many = ssim_psnr_many(pairs, workers=2)
    assert all(math.isnan(v) for v in many[2])
    assert [m for i, m in enumerate(many) if i != 2] == [o for i, o in enumerate(one) if i != 2]


def test_reused_scratch_buffers_never_leak_between_cases_shapes_dtypes_or_threads():
    from skimage.metrics import structural_similarity

    # The metric reuses per-thread scratch arrays; a case scored after another of the same
    # shape, after another shape, in float32 or float64, on any thread, must still equal
    # scikit-image on that case alone.
    rng = np.random.default_rng(11)
    cases = []
    for i in range(24):
        shape = [(48, 56), (48, 56), (33, 41), (12, 14, 16)][i % 4]
        ref = rng.normal(50, 20, shape).astype([np.float32, np.float64][i % 2])
        pred = (ref + rng.normal(0, 1 + i, shape)).astype(ref.dtype)
        cases.append((ref, pred))
    want = []
    for ref, pred in cases:
        r = reference_data_range(ref)
        want.append(structural_similarity(ref.astype(np.float64), pred.astype(np.float64), data_range=r))
    for workers in (1, 3):
        got = [s for s, _, _ in ssim_psnr_many(cases, workers=workers)]
        assert got == want
    ref0, pred0 = cases[0]
    before = (ref0.copy(), pred0.copy())
    ssim(ref0, pred0, reference_data_range(ref0))
    assert np.array_equal(ref0, before[0]) and np.array_equal(pred0, before[1])    # inputs untouched
