"""The literature-comparable numbers beside our per-study ones (docs/tracks/report-generation.md
"Literature-comparable metrics"): pycocoevalcap's corpus BLEU-1..4, ROUGE-L (beta 1.2) and,
when asked for, METEOR 1.5, over the same scored sections. A missing or invalid study enters as
an empty report (it counts against the corpus numbers, as our missing = 0 rule does)."""
from __future__ import annotations

from ...metrics.coco_caption import literature_metrics
from ..base import CaseRecord, CaseStatus

def literature_values(records: list[CaseRecord], with_meteor: bool) -> tuple[dict[str, float | None], str]:
    """({coco_bleu1..4, coco_rougeL, coco_meteor}, why coco_meteor is None when it was asked for,
    else ""). Not asked for (the default: the jar takes ~20 s and 2 GB), coco_meteor is None."""
    expected = [r for r in records if r.status != CaseStatus.REFERENCE_ERROR and r.reference is not None]
    hyps = [r.prediction.section if r.status == CaseStatus.OK and r.prediction is not None else ""
            for r in expected]
    refs = [r.reference.section for r in expected]
    if not with_meteor:
        values, _ = literature_metrics(hyps, refs, meteor=False)
        return values, ""
    return literature_metrics(hyps, refs)
