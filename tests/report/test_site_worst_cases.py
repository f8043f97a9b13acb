"""Worst cases by cost (issue 45, item 5; docs/site.md "Worst cases by cost"): an organ+lesion
segmentation run whose costliest case has lesion Dice 0.018 and organ Dice 0.950 among cases at
0.80/0.80. The run page written by the site's own code must list that case first, with both
components and the cost it states, and the cost must be what the segmentation track's own
aggregate gains when that case is made perfect. Before this change the page ranked by the
first metric (organ Dice): the case was left out of the five listed and named as 0.950."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from automedbench.report import collect_reports, write_leaderboard
from automedbench.report.site import run_slug
from automedbench.runs.models import CaseResult
from automedbench.scoring.case_cost import valid_by_cost
from automedbench.scoring.pictures import pick_cases
from automedbench.scoring.task_score import aggregate_cases
from automedbench.tasks import get_task
from automedbench.tracks.base import CaseRecord, CaseScore, CaseStatus, ScoringContext
from tests.report.factories import build_report, write_run

METRICS = {f"c{i}": (0.80, 0.80) for i in range(6)} | {"bad": (0.950, 0.018)}   # organ, lesion


def _records() -> list[CaseRecord]:
    return [CaseRecord(cid, {"case_id": cid, "lesion_positive": True}, CaseStatus.OK,
                       score=CaseScore({"organ_dice": organ, "lesion_dice": lesion}))
            for cid, (organ, lesion) in METRICS.items()] + \
        [CaseRecord("gone", {"case_id": "gone", "lesion_positive": True}, CaseStatus.MISSING, reason="no output")]


def test_the_worst_case_is_the_costliest_with_every_component(tmp_path):
    task = get_task("brain-lesion-seg")
    track, options = task.track_impl, task.options
    records = _records()
    agg = aggregate_cases(track, records, options, ScoringContext())
    per_case = [CaseResult(case_id=r.case_id, status=r.status.value, valid=r.status is CaseStatus.OK,
                           reason=r.reason, metrics=dict(r.score.metrics) if r.score else {}) for r in records]
    rep = build_report("seg_costs", task=task.id, task_score=agg.score)
    rep.run.track = track.name
    rep.task = rep.task.model_copy(update={"per_case": per_case, "components": agg.components,
                                           "score": agg.score, "metric_name": track.metric_name(options)})
    write_run(tmp_path / "runs", rep)
    write_leaderboard(collect_reports([tmp_path / "runs"]), tmp_path / "site")
    page = (tmp_path / "site" / "runs" / f"{run_slug(rep.run.run_id)}.html").read_text(encoding="utf-8")
    points = re.search(r'id="points".*?</table>', page, re.DOTALL)
    assert points
    worst = re.search(r"<b>Worst valid cases.*?</ul>", points.group(0), re.DOTALL)
    assert worst, points.group(0)
    items = re.findall(r"<li>(.*?)</li>", worst.group(0), re.DOTALL)
    first = re.sub(r"<[^>]+>", "", items[0])
    assert first.startswith("bad costs "), first
    assert "lesion_dice 0.018" in first and "organ_dice 0.950" in first, first

    # the stated cost is what the track's own aggregate gains were that case perfect
    stated = float(re.match(r"bad costs ([\d.]+):", first).group(1))
    perfect = [replace(r, score=CaseScore({"organ_dice": 1.0, "lesion_dice": 1.0})) if r.case_id == "bad" else r
               for r in records]
    gain = aggregate_cases(track, perfect, options, ScoringContext()).score - agg.score
    assert abs(stated - 100 * gain) <= 0.05 + 1e-9, (stated, gain)   # printed to one decimal
    ranking = valid_by_cost(per_case, agg.components)
    assert ranking.by_cost and ranking.cases[0].cost == pytest.approx(gain)
    # the pictures pick the same case first
    assert pick_cases(per_case, "", components=agg.components)[0][0] == "bad"


def test_a_score_that_is_no_mean_over_cases_claims_no_cost():
    # detection's mAP is no sum over cases: ranked by the headline metric, no cost stated
    per_case = [CaseResult(case_id=f"i{k}", valid=True, metrics={"found50": v}) for k, v in enumerate((1.0, 0.0, 0.5))]
    ranking = valid_by_cost(per_case, ["mAP@0.5 (COCO 101-point)"], "found50")
    assert not ranking.by_cost and [c.case_id for c in ranking.cases] == ["i1", "i2", "i0"]
    assert all(c.cost is None for c in ranking.cases)
