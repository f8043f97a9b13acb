"""Medals start above chance (docs/scoring.md "Medals start above chance", issue 45 item 3):
every band floor lies above what a guess or the trivial output scores, on every demo task;
multiple-choice VQA's careless run earns no medal; the empty agent earns 0 in every stage."""
from __future__ import annotations

import json
import shutil

import pytest

from automedbench import api
from automedbench.scoring.overall import bands_above_chance, medal_and_rating, resolve_bands
from automedbench.scoring.task_score import score_workspace
from automedbench.tasks import discover
from automedbench.tracks.base import MedalBands, ScoringContext
from automedbench.tracks.enhancement.baselines import bands_from_top

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


@pytest.mark.parametrize("chance", [0.2, 0.25, 1 / 3, 0.5, 0.9])
def test_every_floor_is_read_from_chance_up(chance):
    bands = MedalBands(metric="score", good=0.40, okay=0.25)
    raised, shown = bands_above_chance(bands, {"chance_level.score": chance})
    assert chance < raised.okay < raised.good <= 1
    assert raised.okay == pytest.approx(chance + 0.25 * (1 - chance), abs=1e-4)
    assert shown == {"chance": round(chance, 4), "declared": {"good": 0.40, "okay": 0.25}}
    assert medal_and_rating(raised, {"score": chance}, True, False) == ("none", "C")
    # a chance level named for another metric leaves these bands alone
    assert bands_above_chance(bands, {"chance_level.lesion_dice": chance}) == (bands, {})


def test_enhancement_floors_lie_above_the_trivial_baseline():
    # the demo MRI x2 data: bicubic 0.9688 is the top, nearest neighbour 0.9509 the trivial output;
    # the B and C edges (top - 0.02, top - 0.05) lie below nearest neighbour
    mb = bands_from_top(0.9688, None, ("nearest", 0.9509))["medal_bands"]
    assert mb["okay"] > 0.9509 and mb["good"] >= mb["okay"] and "nearest" in mb["source"]
    # far below the top, the edges stay as they were
    mb = bands_from_top(0.8957, None, ("identity", 0.5585))["medal_bands"]
    assert (mb["good"], mb["okay"]) == (pytest.approx(0.8757), pytest.approx(0.8457))


@pytest.mark.parametrize("task_id", api.demo_tasks())
def test_the_gold_and_trivial_outputs_of_every_demo_task(task_id, tmp_path, staged_once):
    """The gold submission states its chance level where the bands are on a metric a guess can
    score; the bands read from it put every floor above it."""
    task = discover()[task_id]
    track, options = task.track_impl, task.options
    data = staged_once(task.dataset, tmp_path / "data")
    track.gold_submission(data.root, tmp_path / "ws" / "outputs", options)
    cases = json.loads(data.manifest.read_text())["cases"]
    result, _ = score_workspace(track, tmp_path / "ws", data.private, cases, options, ScoringContext())
    bands, shown = bands_above_chance(resolve_bands(task, data.root), result.aggregate_metrics)
    chance = result.aggregate_metrics.get(f"chance_level.{bands.metric}")
    if chance:
        assert shown["chance"] == pytest.approx(chance, abs=1e-4) and bands.okay > chance
        assert f"chance_level.{bands.metric}" in result.component_notes   # says how it was computed
    assert bands.okay > 0 and bands.good >= bands.okay
    metrics = {"score": result.score, **result.aggregate_metrics}
    assert medal_and_rating(bands, metrics, True, False)[0] == "good", (task_id, metrics.get(bands.metric), bands)


def _mcq_guess(data) -> float:
    """1/options per question, from the public question files (the questions have 2-5 options)."""
    cases = json.loads(data.manifest.read_text())["cases"]
    return sum(1 / len(json.loads((data.public / c["case_id"] / "question.json").read_text())["options"])
               for c in cases) / len(cases)


def test_chance_levels_of_the_demo_answer_spaces(tmp_path, staged_once):
    for task_id in ("vqa-demo-mcq", "modality-patch-cls"):
        task = discover()[task_id]
        data = staged_once(task.dataset, tmp_path / task_id)
        # a guess among the options; the five modality classes are balanced
        chance = _mcq_guess(data) if task_id == "vqa-demo-mcq" else 0.2
        task.track_impl.gold_submission(data.root, tmp_path / task_id / "ws" / "outputs", task.options)
        cases = json.loads(data.manifest.read_text())["cases"]
        result, _ = score_workspace(task.track_impl, tmp_path / task_id / "ws", data.private, cases, task.options)
        assert result.aggregate_metrics["chance_level.score"] == pytest.approx(chance, abs=1e-9), task_id


@needs_bwrap
@pytest.mark.slow
def test_mcq_careless_earns_no_medal_and_empty_earns_nothing(tmp_path_factory, staged_once):
    data = tmp_path_factory.mktemp("data")
    staged_once("vqa-demo-mcq", data)
    out = tmp_path_factory.mktemp("runs")
    opts = api.RunOptions(sandbox="bwrap", data_root=data, network=False)
    careless = api.run_one("vqa-demo-mcq", "lite", "careless", out, opts)
    assert careless.task.score > careless.task.medal_bands["chance"]   # above a guess, yet ...
    assert careless.medal == "none" and careless.rating == "C"        # ... not far enough for a medal
    assert careless.task.medal_bands["okay"] > careless.task.medal_bands["chance"]
    empty = api.run_one("vqa-demo-mcq", "lite", "empty", out, opts)
    assert {s: empty.stages[s].score for s in empty.stages} == {s: 0.0 for s in empty.stages}, empty.stages
    assert empty.medal == "none" and empty.task.score == 0


def test_the_task_page_shows_chance_beside_the_bands(tmp_path):
    from automedbench.report import write_leaderboard
    from automedbench.report.collect import ReportList
    from tests.report.factories import build_report
    r = build_report("mcq1", task="vqa-demo-mcq")
    raised, shown = bands_above_chance(MedalBands(metric="score", good=0.40, okay=0.25), {"chance_level.score": 0.2958})
    r.task.medal_bands = {**raised.model_dump(), **shown, "chance_basis": "a guess per question"}
    write_leaderboard(ReportList([r], run_dirs={}), tmp_path)
    html = (tmp_path / "tasks" / "vqa-demo-mcq.html").read_text()
    bands = html[html.index('id="task-bands"'):]
    bands = bands[:bands.index("</dd>")]
    assert "good ≥ 0.5775, okay ≥ 0.4718" in bands and "chance 0.296 (a guess per question)" in bands
    assert "declared good 0.4, okay 0.25" in bands
