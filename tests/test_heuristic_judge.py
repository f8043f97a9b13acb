"""The offline heuristic judge on hand-made workspaces and traces (rubric ids per docs/scoring.md#stages)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from automedbench.runs.models import TraceEvent
from automedbench.scoring.judge.base import JudgeEvidence
from automedbench.scoring.judge.heuristic import HeuristicJudge
from automedbench.tasks import get_task

TASK = get_task("brain-lesion-seg")
GOOD_PLAN = """# Plan
Target: brain mask and lesion mask.
| method | verdict |
|---|---|
| {0} | chosen |
| {1} | considered |
| {2} | considered |
1. inspect input
2. segment brain
3. segment lesion
""".format(*TASK.tiers.standard.candidates)


def _calls(*specs):
    """specs: (stage, code, exit_code) -> tool_call + execution events."""
    events = []
    for i, (stage, code, rc) in enumerate(specs, 1):
        events.append(TraceEvent(type="tool_call", t=i, call_index=i, stage=stage, code=code))
        events.append(TraceEvent(type="execution", t=i, call_index=i, stage=stage, exit_code=rc, stdout="ok"))
    return events


def _judge(tmp_path, tier="standard", plan=GOOD_PLAN, png=True, trace=()):
    if plan is not None:
        (tmp_path / "plan").mkdir(exist_ok=True)
        (tmp_path / "plan" / "plan.md").write_text(plan)
    if png:
        (tmp_path / "plan").mkdir(exist_ok=True)
        fig = plt.figure(figsize=(4, 2))
        fig.savefig(tmp_path / "plan" / "plan.png")
        plt.close(fig)
    return HeuristicJudge().judge(JudgeEvidence(TASK, tier, tmp_path, list(trace), None))


def test_s1_full_marks(tmp_path):
    v = _judge(tmp_path)
    assert v["s1"].items == {k: 1.0 for k in ("s1a", "s1b", "s1c", "s1d", "s1e", "s1f")}


def test_s1_without_plan(tmp_path):
    v = _judge(tmp_path, plan=None, png=False)
    assert v["s1"].score == 0
    lite = _judge(tmp_path, tier="lite", plan=None, png=False)
    # Lite's not-applicable items are left out of the mean, not passed: nothing written -> S1 = 0
    assert lite["s1"].items == {"s1a": 0, "s1b": 0, "s1c": 0} and lite["s1"].score == 0
    assert "not applicable in lite: s1d,s1e,s1f" in lite["s1"].rationale


def test_s1_wrong_target_and_fake_png(tmp_path):
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "plan.png").write_bytes(b"not a png")
    v = _judge(tmp_path, plan="1. run an organ segmenter\n2. save\n3. submit\n", png=False)
    assert v["s1"].items["s1b"] == 1 and v["s1"].items["s1c"] == 0
    assert v["s1"].items["s1d"] == 0 and v["s1"].items["s1e"] == 0


@pytest.mark.parametrize("trace, expected", [
    (_calls(("s3", "run('outputs/case_000')", 0), ("s3", "print(np.unique(load('outputs/case_000')))", 0),
            ("s4", "for c in cases: run(c)", 0)), 1.0),
    (_calls(("s3", "run('outputs/case_000')", 0), ("s4", "for c in cases: run(c)", 0)), 0.5),
    (_calls(("s4", "for c in cases: run(f'outputs/{c}')", 0), ("s3", "print(load('outputs/x').shape)", 0)), 0.0),
    (_calls(("s4", "for c in cases: run(c)", 0)), 0.0),
])
def test_s3_ladder(tmp_path, trace, expected):
    assert _judge(tmp_path, trace=trace)["s3"].items == {"s3": expected}


def test_s2(tmp_path):
    nothing = _judge(tmp_path)["s2"]
    assert nothing.score == 0  # no setup attempted: no credit for "few failures"
    many_failures = _calls(*[("s2", "pip install x", 1)] * 6, ("s2", "import nibabel; print(img.shape, '/data')", 0))
    v = _judge(tmp_path, trace=many_failures)["s2"]
    assert v.items["s2d"] == 0 and v.items["s2a"] == 1 and v.items["s2b"] == 1
