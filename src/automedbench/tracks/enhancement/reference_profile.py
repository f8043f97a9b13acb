"""The published reference's enhancement numbers (docs/scoring-profiles.md), reproduced.

Reference: AutoMedBench/AutoMedBench, branch eval_image_enhancement,
eval_image_enhancement/enhancement_scorer.py (`ssim`, `psnr`, `score_all`, `clinical_score`).
  per case  SSIM = skimage structural_similarity(reference, prediction, data_range,
            gaussian_weights=True, use_sample_covariance=False) on float32 (a Gaussian window,
            sigma 1.5, where ours is the uniform 7x7 window with sample covariance); PSNR =
            10 log10(R^2 / MSE) on float32, 99 dB when MSE <= 1e-12. R = reference max - min.
  task      the reference profile's number is the reference's `mean_ssim`: the mean over VALID
            cases only (a missing case is left out, not 0). The reference's composite
            `clinical` score (mean of windowed PSNR, SSIM and 1 - LPIPS/max) needs LPIPS with
            AlexNet weights and is not reproduced; its PSNR mean is given in the note.
"""
from __future__ import annotations

import numpy as np

from ..base import CaseRecord, CaseStatus
from ..profile import ProfileScore

DEFINITION = ("reference enhancement: mean SSIM (Gaussian window, sigma 1.5, population covariance) "
              "over valid cases only (missing cases left out)")


def case_values(reference: np.ndarray, prediction: np.ndarray) -> dict[str, float]:
    """The reference's per-case SSIM and PSNR (computed while the arrays are in memory)."""
    from skimage.metrics import structural_similarity

    ref32 = np.asarray(reference).astype(np.float32)
    pred32 = np.asarray(prediction).astype(np.float32)
    # the reference takes R from the file as stored; our loader widened it to float64, so use
    # float32 arithmetic when the values are float32 values (a float32 file), else float64
    exact32 = bool(np.array_equal(ref32.astype(np.float64), np.asarray(reference, dtype=np.float64)))
    r = float(ref32.max() - ref32.min()) if exact32 else float(np.max(reference) - np.min(reference))
    mse = float(np.mean((pred32 - ref32) ** 2))
    psnr = 99.0 if mse <= 1e-12 else float(10.0 * np.log10((r ** 2) / mse))
    ssim = float(structural_similarity(ref32, pred32, data_range=r, gaussian_weights=True,
                                       use_sample_covariance=False))
    return {"reference_ssim": ssim, "reference_psnr": psnr}


def reference_score(records: list[CaseRecord]) -> ProfileScore:
    valid = [r.score.extra for r in records
             if r.status == CaseStatus.OK and r.score is not None and "reference_ssim" in r.score.extra]
    if not valid:
        return ProfileScore(None, DEFINITION, "no valid case (the reference's mean is then undefined)")
    ssim = float(np.mean([v["reference_ssim"] for v in valid]))
    psnr = float(np.mean([v["reference_psnr"] for v in valid]))
    return ProfileScore(ssim, DEFINITION,
                        f"over {len(valid)} valid case(s); reference PSNR mean {psnr:.4f} dB; the reference's "
                        "composite clinical score needs LPIPS (AlexNet weights): not reproduced")
