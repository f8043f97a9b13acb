"""Per-study text metrics over `Report`s (tokenised once).

Per study: BLEU-1..4 and their mean, ROUGE-L P/R/F1, METEOR (None with a reason when WordNet
is absent). The dataset-level corpus BLEU-1..4 is metrics/bleu.py `corpus_bleu`, which the track
calls on the per-study `BleuStats`. References: metrics/bleu.py, metrics/rouge_l.py,
metrics/meteor.py.
"""
from __future__ import annotations

from functools import lru_cache

from ...metrics.bleu import BleuStats, bleu_stats, sentence_bleu
from ...metrics.meteor import Meteor, load_wordnet
from ...metrics.rouge_l import rouge_l
from .text import Report


@lru_cache(maxsize=1)
def meteor_scorer() -> tuple[Meteor | None, str]:
    """(scorer, "") or (None, why METEOR is unavailable). One per process: its caches grow
    with the vocabulary of the reports it has seen."""
    wordnet, reason = load_wordnet()
    if wordnet is None:
        return None, reason
    try:
        return Meteor(wordnet), ""
    except ImportError as exc:     # nltk's stemmer missing
        return None, f"METEOR unavailable: {exc}"


def study_metrics(pred: Report, ref: Report) -> tuple[dict[str, float | None], BleuStats]:
    stats = bleu_stats(pred.tokens, ref.tokens, hyp_counts=pred.counts, ref_counts=ref.counts)
    out: dict[str, float | None] = {**sentence_bleu(stats), **rouge_l(pred.tokens, ref.tokens)}
    meteor, _ = meteor_scorer()
    out["meteor"] = meteor.score(pred.tokens, ref.tokens) if meteor is not None else None
    return out, stats
