"""A page names as the score's components only what the score is computed from (issue 45,
item 2; docs/scoring.md#task-score): for every demo task, the gold submission is scored by the
core, its run page is written by the site's own code, and each component the page names must
move the task score when its per-case values move (PSNR beside an SSIM-only score does not)."""
from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from automedbench import api
from automedbench.report import collect_reports, write_leaderboard
from automedbench.scoring.task_score import aggregate_cases, score_workspace
from automedbench.tasks import discover
from automedbench.tracks.base import CaseScore, CaseStatus, ScoringContext
from tests.report.factories import build_report, write_run

DEMO = api.demo_tasks()


def _named_components(html: str) -> list[str]:
    """The components #task-components says the score uses ([] when it names none)."""
    block = re.search(r'<div id="task-components"[^>]*>(.*?)</div>', html, re.DOTALL)
    assert block, "the run page has no #task-components"
    said = re.match(r"The score uses \d+ components?: (.*?)\.(?: |<br>|$)", block.group(1))
    return re.findall(r"<b>(.*?)</b>", said.group(1)) if said else []


def _moves_the_score(track, records, options, name: str) -> bool:
    """Halving `name` in every valid case's metrics changes the aggregate score."""
    before = aggregate_cases(track, records, options, ScoringContext()).score
    halved = [replace(r, score=CaseScore({**r.score.metrics, name: 0.5 * r.score.metrics[name]}, r.score.extra))
              if r.status is CaseStatus.OK and r.score is not None and r.score.metrics.get(name) else r
              for r in records]
    return aggregate_cases(track, halved, options, ScoringContext()).score != pytest.approx(before)


@pytest.mark.parametrize("task_id", DEMO)
def test_a_run_page_names_only_the_components_the_score_uses(task_id, tmp_path, staged_once):
    task = discover()[task_id]
    track, options = task.track_impl, task.options
    data = staged_once(task.dataset, tmp_path / "data")
    track.gold_submission(data.root, tmp_path / "ws" / "outputs", options)
    cases = json.loads(data.manifest.read_text())["cases"]
    result, outcomes = score_workspace(track, tmp_path / "ws", data.private, cases, options, ScoringContext())
    rep = build_report(f"{task_id}_gold", task=task_id)
    rep.run.track, rep.task = track.name, result
    write_run(tmp_path / "runs", rep)
    write_leaderboard(collect_reports([tmp_path / "runs"]), tmp_path / "site")
    (page,) = (tmp_path / "site" / "runs").glob(f"{task_id}_gold*.html")
    named = _named_components(page.read_text())
    assert named == result.components, (named, result.components)
    records = [o.record for o in outcomes]
    per_case = {k for r in records if r.score is not None for k in r.score.metrics}
    for name in named:
        if name in per_case:
            assert _moves_the_score(track, records, options, name), \
                f"{task_id}: the page says the score uses {name}, but the score does not move with it"
        else:   # a corpus-level component (mAP, accuracy): only as the one the score is
            assert len(named) == 1, f"{task_id}: {name} is no per-case metric and not the only component"
