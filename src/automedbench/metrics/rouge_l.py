"""ROUGE-L (Lin 2004): longest-common-subsequence precision, recall and F1. Pure, no I/O.

    P = LCS / |hyp|, R = LCS / |ref|, F1 = 2PR / (P + R)   (0 when either text is empty)
This is rouge-score's `rougeL` (summary-level `rougeLsum` is not used; no stemming), and the
tests compare the two on the same tokens.

The LCS length is computed bit-parallel (Allison & Dix 1986; Crochemore et al. 2001): the
DP row over the reference is one Python integer, updated once per hypothesis word with
V ← (V + (V & M_w)) | (V & ~M_w), M_w the bit-mask of positions of w in the reference;
LCS = number of zero bits of V. O(|hyp|) big-int operations instead of rouge-score's
|hyp|·|ref| Python-level table.
"""
from __future__ import annotations


def lcs_length(hyp: list[str], ref: list[str]) -> int:
    m = len(ref)
    if m == 0 or not hyp:
        return 0
    masks: dict[str, int] = {}
    for j, w in enumerate(ref):
        masks[w] = masks.get(w, 0) | (1 << j)
    full = (1 << m) - 1
    v = full
    for w in hyp:
        mw = masks.get(w)
        if mw:
            u = v & mw
            v = ((v + u) | (v - u)) & full
    return m - v.bit_count()


def rouge_l(hyp: list[str], ref: list[str]) -> dict[str, float]:
    """{"rougeL_p", "rougeL_r", "rougeL"} (rougeL = F1, the report track's component)."""
    if not hyp or not ref:
        return {"rougeL_p": 0.0, "rougeL_r": 0.0, "rougeL": 0.0}
    lcs = lcs_length(hyp, ref)
    p, r = lcs / len(hyp), lcs / len(ref)
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {"rougeL_p": p, "rougeL_r": r, "rougeL": f}
