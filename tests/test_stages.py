import pytest

from automedbench.runs.models import CaseResult, StageResult, TaskResult
from automedbench.scoring.overall import medal_and_rating, overall_score
from automedbench.scoring.rubric import load_rubric
from automedbench.scoring.stages import agentic_score, s4_inference, s5_submit


def _task(valid_flags, reasons=None):
    per = [CaseResult(case_id=f"c{i}", valid=v, reason="" if v else (reasons or {}).get(i, "missing: no output folder"))
           for i, v in enumerate(valid_flags)]
    subm = [c for c in per if c.valid or not c.reason.startswith("missing")]
    return TaskResult(score=0, metric_name="m", completion_rate=sum(valid_flags) / len(valid_flags),
                      format_valid=bool(subm) and all(c.valid for c in subm), per_case=per)


def test_s4_values():
    assert s4_inference(_task([True, True])).score == 1.0
    assert s4_inference(_task([True, False])).score == pytest.approx(0.5 * 0.5 + 0.5)   # missing, rest valid
    assert s4_inference(_task([True, False], {1: "bad shape"})).score == pytest.approx(0.25)
    assert s4_inference(_task([False, False])).score == 0.0


def test_s5_values():
    ok = _task([True, True])
    assert s5_submit(ok, True, True).score == 1.0
    assert s5_submit(ok, False, True).score == 0.5     # not called: the call matters
    assert s5_submit(ok, True, False).score == 0.5     # trivial outputs
    assert s5_submit(_task([False]), True, False).score == 0.0


def test_agentic_weights_and_null_policy():
    r = load_rubric()
    assert r.weights() == {"s1": 0.25, "s2": 0.15, "s3": 0.35, "s4": 0.15, "s5": 0.10}
    stages = {s: StageResult(score=1.0) for s in r.stages}
    stages["s3"] = StageResult(score=0.0)
    value, active = agentic_score(stages, r)
    assert value == pytest.approx(0.65) and active == ["s1", "s2", "s3", "s4", "s5"]
    stages["s3"] = None  # judge failed: left out, not zero
    value, active = agentic_score(stages, r)
    assert value == pytest.approx(1.0) and "s3" not in active
    assert agentic_score({s: None for s in r.stages}, r) == (None, [])


def test_overall_medal_rating():
    assert overall_score(0.6, 0.4) == pytest.approx(0.5)
    assert overall_score(None, 0.4) is None
    from automedbench.tracks.base import MedalBands
    bands = MedalBands(metric="lesion_dice", fallback_metric="organ_dice", good=0.70, okay=0.30)
    assert medal_and_rating(bands, {"lesion_dice": 0.71}, True, False) == ("good", "A")
    assert medal_and_rating(bands, {"lesion_dice": 0.3}, True, False) == ("okay", "B")
    assert medal_and_rating(bands, {"lesion_dice": 0.1}, True, False) == ("none", "C")
    assert medal_and_rating(bands, {"lesion_dice": None, "organ_dice": 0.9}, True, False) == ("good", "A")
    assert medal_and_rating(bands, {"lesion_dice": 0.9}, False, False) == ("none", "F")
    assert medal_and_rating(bands, {"lesion_dice": 0.9}, True, True) == ("none", "F")


def test_lite_not_applicable_items_are_data_and_left_out_of_the_mean():
    rubric = load_rubric()
    s1 = rubric.stages["s1"]
    assert rubric.version == 2
    assert s1.not_applicable_in("lite") == ["s1d", "s1e", "s1f"] and s1.not_applicable_in("pro") == []
    assert s1.applicable("lite") == ["s1a", "s1b", "s1c"]
    assert s1.score({"s1a": 1, "s1b": 0, "s1c": 0}) == pytest.approx(1 / 3)   # not (1 + 3) / 6
