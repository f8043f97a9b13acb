"""BLEU-1..4 (Papineni et al., ACL 2002), sentence- and corpus-level. Pure, no I/O.

BLEU-n is the cumulative score over orders 1..n with uniform weights 1/n:
    BLEU-n = BP · exp( (1/n) · Σ_{k≤n} log p_k ),   BP = exp(1 − r/c) if c < r else 1
with p_k the clipped k-gram precision, c the hypothesis length and r the reference length
(one reference per study).

Sentence level (one study) follows sacrebleu's `sentence_bleu` exactly (Post, WMT 2018;
sacrebleu ≥ 2, `BLEU(max_ngram_order=n, smooth_method="exp", effective_order=True)`):
  - "exp" smoothing (NIST mteval-v13a; Chen & Cherry 2014 method 3): the k-th order with no
    match gets precision 1 / (2^j · total_k), j counting zero-match orders so far;
  - effective order: orders the hypothesis is too short to have are left out of the mean;
  - no unigram match at all → 0.
Corpus level sums the clipped counts and lengths over studies first, no smoothing (the
number papers report: sacrebleu `corpus_bleu(..., smooth_method="none")`).

The arithmetic mirrors sacrebleu's (precisions in percent, the same log/exp order), so
values are identical, not merely close. Speed: the n-grams of all four orders are counted
once per text, where calling a library per order counts them four times.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

MAX_ORDER = 4


@dataclass(frozen=True)
class BleuStats:
    """Sufficient statistics of one hypothesis/reference pair (summable over a corpus)."""

    correct: tuple[int, ...]     # clipped matches per order 1..MAX_ORDER
    total: tuple[int, ...]       # hypothesis n-grams per order
    hyp_len: int
    ref_len: int

    def __add__(self, other: BleuStats) -> BleuStats:
        return BleuStats(tuple(a + b for a, b in zip(self.correct, other.correct)),
                         tuple(a + b for a, b in zip(self.total, other.total)),
                         self.hyp_len + other.hyp_len, self.ref_len + other.ref_len)


def ngram_counts(tokens: list[str], max_order: int = MAX_ORDER) -> list[Counter]:
    """k-gram counts for k = 1..max_order (index k-1)."""
    return [Counter(zip(*(tokens[i:] for i in range(k)))) for k in range(1, max_order + 1)]


def bleu_stats(hyp: list[str], ref: list[str], *, hyp_counts: list[Counter] | None = None,
               ref_counts: list[Counter] | None = None) -> BleuStats:
    hc = hyp_counts if hyp_counts is not None else ngram_counts(hyp)
    rc = ref_counts if ref_counts is not None else ngram_counts(ref)
    correct, total = [], []
    for h, r in zip(hc, rc):
        correct.append(sum(min(c, r[g]) for g, c in h.items() if g in r))
        total.append(sum(h.values()))
    return BleuStats(tuple(correct), tuple(total), len(hyp), len(ref))


def _log(x: float) -> float:
    return -9999999999.0 if x == 0 else math.log(x)   # sacrebleu's my_log


def bleu_from_stats(stats: BleuStats, order: int, *, smooth: bool, effective_order: bool) -> float:
    """BLEU-`order` in [0, 1] from sufficient statistics (see the module docstring)."""
    c, r = stats.hyp_len, stats.ref_len
    bp = (math.exp(1 - r / c) if c > 0 else 0.0) if c < r else 1.0
    correct, total = stats.correct[:order], stats.total[:order]
    if not any(correct):
        return 0.0
    precisions = [0.0] * order
    smooth_mteval, eff = 1.0, order
    for k in range(1, order + 1):
        if total[k - 1] == 0:
            break
        if effective_order:
            eff = k
        if correct[k - 1] == 0:
            if smooth:
                smooth_mteval *= 2
                precisions[k - 1] = 100.0 / (smooth_mteval * total[k - 1])
        else:
            precisions[k - 1] = 100.0 * correct[k - 1] / total[k - 1]
    score = bp * math.exp(sum([_log(p) for p in precisions[:eff]]) / eff)
    return score / 100.0


def sentence_bleu(stats: BleuStats) -> dict[str, float]:
    """{"bleu1".."bleu4"} of one study, and "bleu" = their mean (the report track's component)."""
    out = {f"bleu{n}": bleu_from_stats(stats, n, smooth=True, effective_order=True)
           for n in range(1, MAX_ORDER + 1)}
    out["bleu"] = sum(out.values()) / MAX_ORDER
    return out


def corpus_bleu(per_study: list[BleuStats]) -> dict[str, float]:
    """Corpus BLEU-1..4 (counts summed over studies, no smoothing) and their mean."""
    if not per_study:
        return {f"corpus_bleu{n}": 0.0 for n in range(1, MAX_ORDER + 1)} | {"corpus_bleu": 0.0}
    total = per_study[0]
    for s in per_study[1:]:
        total = total + s
    out = {f"corpus_bleu{n}": bleu_from_stats(total, n, smooth=False, effective_order=False)
           for n in range(1, MAX_ORDER + 1)}
    out["corpus_bleu"] = sum(out.values()) / MAX_ORDER
    return out
