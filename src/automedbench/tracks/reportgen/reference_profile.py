"""The published reference's report-generation task score (docs/scoring-profiles.md): defined,
but not reproduced here.

Reference: AutoMedBench/AutoMedBench, branch eval_report_gen, eval_report_gen/aggregate.py
(`compute_clinical_score`), report_scorer.py and mlrg_metrics.py, with the published task's
config (mimic-cxr-report-task/config.yaml: clinical_score_backend mlrg, seven weights of 1/7):
  round(mean of BLEU (mean of BLEU-1..4), METEOR, ROUGE-L, F1-RadGraph (partial), CheXbert
  micro precision, recall and F1, 4), each from the external MLRG toolkit, and 0 unless every
  study has a valid report.
Three of the seven components need model weights (RadGraph, CheXbert) and the MLRG checkout,
which this harness never downloads; the text components' tokenisation is MLRG's, which is not
published with the reference. So the profile records the definition and says why the number is
null; the pycocoevalcap-style text metrics beside our score (`coco_*`) are the nearest
literature-comparable numbers.
"""
from __future__ import annotations

from ..base import CaseRecord
from ..profile import ProfileScore

DEFINITION = ("reference report generation (MLRG backend): round(mean of BLEU, METEOR, ROUGE-L, F1-RadGraph, "
              "CheXbert micro P/R/F1, 4); 0 unless every study has a valid report")
WHY_NULL = ("not reproduced: needs the MLRG toolkit with RadGraph and CheXbert weights (never downloaded "
            "here); see aggregate_metrics coco_bleu1..4 / coco_rougeL / coco_meteor for the text parts")


def reference_score(records: list[CaseRecord]) -> ProfileScore:
    return ProfileScore(None, DEFINITION, WHY_NULL)
