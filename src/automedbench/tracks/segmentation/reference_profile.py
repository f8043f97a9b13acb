"""The published reference's segmentation task score (docs/scoring-profiles.md), reproduced.

Reference: AutoMedBench/AutoMedBench, branch eval_seg, eval_seg/dice_scorer.py (`score_all`,
`score_all_multiclass`) and eval_seg/aggregate.py (`build_report`, `compute_clinical_score*`).
  organ_lesion  0.5 * lesion Dice + 0.5 * organ Dice, rounded to 4 places; lesion Dice is the
                mean over LESION-POSITIVE cases only (a reference with lesion voxels), organ Dice
                the mean over all cases; Dice = 2|P∩G|/(|P|+|G|), both empty = 1.
  multiclass    per class, the mean Dice over cases (a class absent from both = 1), then the
                macro mean over classes, rounded to 4 places.
  Completeness gate: unless EVERY case has its prediction, the score is 0.
Here a case counts as having its prediction when it passed our checks (status ok); a file the
reference would still read but our checks refuse (wrong affine, non-0/1 values) therefore trips
the gate here and not there: the one known difference, stated in docs/scoring-profiles.md.
"""
from __future__ import annotations

import numpy as np

from ..base import CaseRecord, CaseStatus
from ..profile import ProfileScore

BINARY = ("reference segmentation: round(0.5*lesion Dice over lesion-positive cases + 0.5*organ Dice "
          "over all cases, 4); 0 unless every case has a prediction")
MULTICLASS = ("reference segmentation: round(macro mean over classes of the per-class mean Dice "
              "(absent from both = 1), 4); 0 unless every case has a prediction")


def reference_score(records: list[CaseRecord], labels: dict[int, str] | None) -> ProfileScore:
    """From the per-case metrics (the core drops the volumes after each case): our organ and
    lesion Dice ARE the reference's Dice on every case it averages (same formula, both empty = 1);
    a multiclass class absent from both (ours: None) is 1 there."""
    scored = [r for r in records if r.status is not CaseStatus.REFERENCE_ERROR]
    definition = MULTICLASS if labels else BINARY
    if not scored:
        return ProfileScore(None, definition, "no scorable case")
    if any(r.status is not CaseStatus.OK or r.score is None for r in scored):
        return ProfileScore(0.0, definition, "completeness gate: not every case has a valid prediction")
    metrics = [r.score.metrics for r in scored if r.score is not None]
    if labels:
        per_class = [float(np.mean([1.0 if (v := m.get(f"dice_{name}")) is None else float(v) for m in metrics]))
                     for _, name in sorted(labels.items())]
        return ProfileScore(round(float(np.mean(per_class)), 4), definition)
    organ = float(sum(float(m["organ_dice"] or 0.0) for m in metrics) / len(metrics))
    lesion = [float(r.score.metrics["lesion_dice"] or 0.0) for r in scored
              if r.score is not None and r.score.extra.get("lesion_positive")]
    lesion_mean = float(np.mean(lesion)) if lesion else 0.0
    return ProfileScore(round(0.5 * lesion_mean + 0.5 * organ, 4), definition)
