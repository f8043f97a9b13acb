"""What each case costs the task score (docs/site.md "Worst cases by cost").

Where the task score is the mean of its components and each component is a per-case metric
averaged over the expected cases (segmentation's lesion and organ Dice, macro Dice, SSIM, report
generation's BLEU, ROUGE-L and METEOR), the score is the mean over the expected cases of each
case's own score s = the mean of its component values (a value the case lacks counts 0, as in
the aggregate, tracks/reducers.py). A valid case then costs the task score (1 - s) / n, n the
cases scored (reference errors aside): what the score would gain were that case perfect; a
missing or invalid case costs 1 / n. Where a component is no per-case metric (mAP, accuracy,
a weight-backed text metric), a case's share of the score cannot be told: cases are ranked by
their headline metric and no cost is claimed.

    valid_by_cost(per_case, components, headline) -> Ranking
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..runs.models import CaseResult


@dataclass(frozen=True)
class CaseCost:
    case_id: str
    value: float | None               # what the case is ranked by: its own score, or its headline metric
    cost: float | None                # what it costs the task score (0-1); None when no cost can be told
    components: tuple[tuple[str, float | None], ...]   # each component's value (or the headline's)


@dataclass(frozen=True)
class Ranking:
    cases: list[CaseCost]             # valid cases, lowest value (highest cost) first, ties in case order
    by_cost: bool                     # ranked by cost (every component a per-case metric)
    components: tuple[str, ...]       # the components the cost is read from ((headline,) otherwise)
    n_scored: int                     # the cases the task score is over


def per_case_components(per_case: Sequence[CaseResult], components: Sequence[str]) -> tuple[str, ...]:
    """The score's components when every one is a per-case metric, else ()."""
    names = {m for c in per_case for m in c.metrics}
    return tuple(components) if components and all(c in names for c in components) else ()


def _first_present(case: CaseResult, metric: str) -> tuple[str, float | None]:
    named = case.metrics.get(metric)
    if named is not None:
        return metric, float(named)
    return next(((k, float(v)) for k, v in case.metrics.items() if v is not None), (metric, None))


def valid_by_cost(per_case: Sequence[CaseResult], components: Sequence[str], headline: str = "") -> Ranking:
    """The valid cases ranked by what they cost the task score (module docstring); without
    per-case components, by `headline` (else each case's first metric) and with no cost."""
    n = sum(c.status != "reference_error" for c in per_case)
    parts = per_case_components(per_case, components)
    read: Callable[[CaseResult], CaseCost]
    if parts:
        def read(c: CaseResult) -> CaseCost:
            values = tuple((p, c.metrics.get(p)) for p in parts)
            own = sum(float(v or 0.0) for _, v in values) / len(values)
            return CaseCost(c.case_id, own, max(0.0, 1.0 - own) / n if n else None, values)
    else:
        def read(c: CaseResult) -> CaseCost:
            name, value = _first_present(c, headline)
            return CaseCost(c.case_id, value, None, ((name, value),))
    costs = [read(c) for c in per_case if c.valid]
    order = sorted(range(len(costs)), key=lambda i: (float("inf") if costs[i].value is None else costs[i].value, i))
    return Ranking([costs[i] for i in order], bool(parts), parts or (headline,), n)
