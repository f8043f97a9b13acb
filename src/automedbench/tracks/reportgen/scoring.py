"""Per-study text metrics over `Report`s (tokenised once).

Per study: BLEU-1..4 and their mean, ROUGE-L P/R/F1, METEOR (None with a reason when WordNet
is absent). The dataset-level corpus BLEU-1..4 is metrics/bleu.py `corpus_bleu`, which the track
calls on the per-study `BleuStats`. References: metrics/bleu.py, metrics/rouge_l.py,
metrics/meteor.py.
"""
from __future__ import annotations

from functools import lru_cache

from ...metrics.bleu import BleuStats, bleu_stats, sentence_bleu
from ...home import home
from ...metrics import meteor as meteor_metric
from ...metrics.meteor import Meteor, MeteorUnavailable, load_wordnet
from ...metrics.meteor_words import word_store
from ...metrics.rouge_l import rouge_l
from .text import Report


def _wordnet_when_needed() -> object:
    wordnet, reason = load_wordnet()
    if wordnet is None:
        raise MeteorUnavailable(reason)
    return wordnet


@lru_cache(maxsize=1)
def meteor_scorer() -> tuple[Meteor | None, str]:
    """(scorer, "") or (None, why METEOR is unavailable). One per process: its caches grow
    with the vocabulary of the reports it has seen, and are kept between processes
    (metrics/meteor_words.py): a store written under this very nltk and WordNet means WordNet
    was found, so it is loaded only when a word is not stored."""
    known = word_store(home(), meteor_metric.DEBIAN_WORDNET, meteor_metric.REQUIRED_FILES)
    if known is not None and known.stems:
        return Meteor(_wordnet_when_needed, known=known), ""
    wordnet, reason = load_wordnet()
    if wordnet is None:
        return None, reason
    return Meteor(wordnet, known=known), ""


def study_metrics(pred: Report, ref: Report) -> tuple[dict[str, float | None], BleuStats]:
    stats = bleu_stats(pred.tokens, ref.tokens, hyp_counts=pred.counts, ref_counts=ref.counts)
    out: dict[str, float | None] = {**sentence_bleu(stats), **rouge_l(pred.tokens, ref.tokens)}
    meteor, _ = meteor_scorer()
    try:
        out["meteor"] = meteor.score(pred.tokens, ref.tokens) if meteor is not None else None
    except MeteorUnavailable:
        out["meteor"] = None      # WordNet went missing since the words were stored: null, never 0
    if meteor is not None and meteor.known is not None:
        meteor.known.save()       # only writes when this study brought new words
    return out, stats
