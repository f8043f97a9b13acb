"""Several judges, one verdict: per-item majority (a tie goes to the lower value), with agreement
statistics in the shape docs/llm.md "Several judges: majority and agreement" shows."""
from __future__ import annotations

from typing import Any, Sequence

from ...runs.models import StageResult
from ..rubric import load_rubric
from .agreement import majority, stats
from .base import BareJudge, Judge, JudgeBase, JudgeEvidence, as_judge

RULE = "per-item majority over judges that answered; ties -> the lower value"


class JudgePanel(JudgeBase):
    backend = "panel"

    def __init__(self, judges: Sequence[BareJudge]):
        if len(judges) < 2:
            raise ValueError("a JudgePanel needs at least 2 judges")
        self.judges: list[Judge] = [as_judge(j) for j in judges]
        names: list[str] = []
        for i, j in enumerate(self.judges):
            n = j.name or j.model or j.backend
            names.append(n if n not in names else f"{n}#{i}")
        self.names = names
        self.model = ",".join(j.model or j.backend for j in self.judges)
        self.version = "panel-1:" + ",".join(f"{j.backend}-{j.version}" for j in self.judges)
        self.last_agreement: dict[str, Any] | None = None
        self.last_verdicts: dict[str, dict[str, StageResult | None]] = {}

    def check_ready(self) -> None:
        for j in self.judges:
            j.check_ready()

    def judge(self, evidence: JudgeEvidence) -> dict[str, StageResult | None]:
        rubric = load_rubric()
        stages = rubric.judged
        verdicts: dict[str, dict[str, StageResult | None]] = {}
        errors: dict[str, str] = {}
        for name, j in zip(self.names, self.judges):
            try:
                verdicts[name] = j.judge(evidence)
            except Exception as exc:  # a broken judge is an infrastructure fault, not a 0
                verdicts[name] = {s: None for s in stages}
                errors[name] = f"{type(exc).__name__}: {exc}"
        self.last_verdicts = verdicts
        out: dict[str, StageResult | None] = {}
        items_ag: dict[str, Any] = {}
        stage_ag: dict[str, Any] = {}
        all_rows: list[list[float]] = []
        excluded: list[str] = []
        for s in stages:
            srub = rubric.stages[s]
            answered = [(n, r) for n, v in verdicts.items() if (r := v.get(s)) is not None]
            applicable = srub.applicable(evidence.tier)
            excluded += sorted(set(srub.items) - set(applicable))
            for i in applicable:
                ratings = {n: (r.items.get(i) if (r := v.get(s)) is not None else None)
                           for n, v in verdicts.items()}
                given = [r for r in ratings.values() if r is not None]
                items_ag[i] = {"ratings": ratings, "majority": majority(given) if given else None,
                               "unanimous": bool(given) and len(set(given)) == 1 and len(given) == len(ratings)}
            if not answered:
                out[s], stage_ag[s] = None, stats([])
                continue
            # a judge may abstain on an item it cannot decide (heuristic v3: docs/judge.md): the
            # majority is over the judges that answered it, agreement over items all answered
            given_by_item = {i: [r.items[i] for _, r in answered if i in r.items] for i in applicable}
            items = {i: majority(g) for i, g in given_by_item.items() if g}
            rationale = "\n".join(f"[{n}] {r.rationale}" for n, r in answered)
            # each item's evidence: that of the first judge whose verdict is the majority's
            item_ev = {}
            for i, v in items.items():
                for n, r in answered:
                    if r.items.get(i) == v and i in r.evidence:
                        e = r.evidence[i]
                        item_ev[i] = e.model_copy(update={"why": f"[{n}] {e.why}"})
                        break
            out[s] = StageResult(score=srub.score(items), items=items, rationale=rationale,
                                 evidence=item_ev) if items else None
            rows = [g for g in given_by_item.values() if len(g) == len(answered)]
            stage_ag[s] = stats(rows) if rows else {**stats([]), "n_raters": len(answered)}
            if len(answered) == len(self.judges):
                all_rows += rows
        self.last_agreement = {
            "judges": self.names, "rule": RULE, "items": items_ag, "stages": stage_ag,
            "overall": stats(all_rows) if all_rows else None, "excluded_not_applicable": excluded,
            "errors": errors or None,
        }
        return out
