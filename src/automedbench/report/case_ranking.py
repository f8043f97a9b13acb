"""The worst valid cases of a run page's "where the points went" (docs/site.md "Worst cases by
cost"): ranked by what each costs the task score (scoring/case_cost.py), each shown with every
component of the score, so a case whose lesion Dice is 0.018 is never listed as its organ Dice.
A score that is no mean over cases (mAP, accuracy) ranks by the headline metric, claiming no cost."""
from __future__ import annotations

from typing import Any

from ..runs.models import TaskResult
from ..scoring.case_cost import valid_by_cost

NOTHING_LOST = 1e-12     # a case whose own score is 1 (up to rounding) costs nothing: not listed


def worst_valid(task: TaskResult, rows: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """{by_cost, components, n_scored, cases: [{case_id, cost, parts: [(name, shown)], why, flags,
    writer}]}: at most `limit` valid cases that lost something, costliest first. `rows` are the
    page's case rows (site.case_rows: the values as the page prints them, the Why, the writer)."""
    ranking = valid_by_cost(task.per_case, task.components)
    by_id = {r["case_id"]: r for r in rows}
    lost = [c for c in ranking.cases if c.case_id in by_id and c.value is not None
            and (c.cost is not None and c.cost > NOTHING_LOST if ranking.by_cost else c.value < 1)]
    cases = []
    for c in lost[:limit]:
        row = by_id[c.case_id]
        cases.append({"case_id": c.case_id, "cost": c.cost,
                      "parts": [(name, row["shown"].get(name) or "—") for name, _ in c.components],
                      "why": row["why"] or "", "flags": row["flags"], "writer": row.get("writer")})
    return {"by_cost": ranking.by_cost, "components": list(ranking.components), "n_scored": ranking.n_scored,
            "cases": cases}
