"""Inter-judge agreement (pure functions) and the panel's majority rule: percent agreement,
Cohen's and Fleiss' kappa over nominal ratings, None where chance agreement is 1 (docs/llm.md
"Several judges: majority and agreement")."""
from __future__ import annotations

from collections import Counter
from typing import Any, Hashable, Sequence


def majority(values: Sequence[float]) -> float:
    """The most frequent value; a tie goes to the LOWER value (a judge panel must not
    award a criterion that half of it did not see)."""
    counts = Counter(values)
    best = max(counts.values())
    return min(v for v, c in counts.items() if c == best)


def _pairs_agree(row: Sequence[Hashable]) -> float:
    n = len(row)
    if n < 2:
        return 1.0
    counts = Counter(row)
    return sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))


def percent_agreement(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """ratings[subject][rater]."""
    if not ratings:
        return None
    return sum(_pairs_agree(r) for r in ratings) / len(ratings)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    if len(a) != len(b):
        raise ValueError("cohen_kappa: both raters must rate the same subjects")
    n = len(a)
    if n == 0:
        return None
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """ratings[subject] = the categories given by each rater (same count per subject, ≥ 2)."""
    if not ratings:
        return None
    n = len(ratings[0])
    if n < 2 or any(len(r) != n for r in ratings):
        raise ValueError("fleiss_kappa: every subject needs the same number (≥ 2) of ratings")
    N = len(ratings)
    p_bar = sum(_pairs_agree(r) for r in ratings) / N
    totals: Counter = Counter()
    for r in ratings:
        totals.update(r)
    pe = sum((c / (N * n)) ** 2 for c in totals.values())
    if pe >= 1.0:
        return None
    return (p_bar - pe) / (1 - pe)


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def stats(ratings: Sequence[Sequence[Hashable]]) -> dict[str, Any]:
    """percent agreement, Cohen (exactly 2 raters), Fleiss (≥ 2) for subjects × raters."""
    out: dict[str, Any] = {"n_subjects": len(ratings), "n_raters": len(ratings[0]) if ratings else 0,
                           "percent_agreement": _r(percent_agreement(ratings)), "cohen_kappa": None, "fleiss_kappa": None}
    if ratings and out["n_raters"] >= 2 and all(len(r) == out["n_raters"] for r in ratings):
        out["fleiss_kappa"] = _r(fleiss_kappa(ratings))
        if out["n_raters"] == 2:
            out["cohen_kappa"] = _r(cohen_kappa([r[0] for r in ratings], [r[1] for r in ratings]))
    return out


def aggregate_agreement(per_run: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Across runs: per item, subjects = runs where every panel judge rated the item.
    Input: the `agreement` dicts a JudgePanel produced (DetailReport.judge.agreement)."""
    by_item: dict[str, list[list[float]]] = {}
    judges: list[str] | None = None
    for ag in per_run:
        if not ag:
            continue
        judges = judges or ag.get("judges")
        for item, rec in (ag.get("items") or {}).items():
            ratings = rec.get("ratings") or {}
            if judges and all(j in ratings and ratings[j] is not None for j in judges):
                by_item.setdefault(item, []).append([ratings[j] for j in judges])
    items = {item: stats(rows) for item, rows in sorted(by_item.items())}
    all_rows = [row for rows in by_item.values() for row in rows]
    return {"judges": judges or [], "items": items, "overall": stats(all_rows) if all_rows else None}


# ---- a judge against hand labels (scoring/judge_eval: `automedbench judge-eval`) ----

def accuracy(labels: Sequence[Hashable], verdicts: Sequence[Hashable]) -> float | None:
    """Share of subjects where the verdict equals the label; None without subjects."""
    if len(labels) != len(verdicts):
        raise ValueError("accuracy: labels and verdicts must cover the same subjects")
    return sum(x == y for x, y in zip(labels, verdicts)) / len(labels) if labels else None


def confusion(labels: Sequence[float], verdicts: Sequence[float], categories: Sequence[float]) -> list[list[int]]:
    """matrix[i][j] = subjects labelled categories[i] and judged categories[j]."""
    pos = {c: k for k, c in enumerate(categories)}
    m = [[0] * len(categories) for _ in categories]
    for x, y in zip(labels, verdicts):
        m[pos[x]][pos[y]] += 1
    return m


def weighted_kappa(labels: Sequence[float], verdicts: Sequence[float], categories: Sequence[float],
                   weights: str | None = "linear") -> float | None:
    """Cohen's kappa with disagreement weights over ORDERED categories (the S3 ladder 0/0.5/1):
    1 - sum(w*O)/sum(w*E), w_ij = |i-j|/(k-1) (linear) or its square (quadratic); weights=None
    is the unweighted kappa. None when undefined (no subjects, or chance disagreement 0)."""
    n = len(labels)
    if n != len(verdicts):
        raise ValueError("weighted_kappa: labels and verdicts must cover the same subjects")
    if n == 0:
        return None
    k = len(categories)
    obs = confusion(labels, verdicts, categories)
    rows = [sum(r) for r in obs]
    cols = [sum(obs[i][j] for i in range(k)) for j in range(k)]

    def w(i: int, j: int) -> float:
        if weights is None:
            return float(i != j)
        d = abs(i - j) / (k - 1)
        return d if weights == "linear" else d * d
    o = sum(w(i, j) * obs[i][j] for i in range(k) for j in range(k))
    e = sum(w(i, j) * rows[i] * cols[j] / n for i in range(k) for j in range(k))
    if e == 0:
        return None
    return 1.0 - o / e
