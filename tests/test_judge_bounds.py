"""An LLM judge is bounded by facts (docs/judge.md "An LLM judge bounded by facts"): whatever
a model says, it cannot credit what the observed effects rule out. Measured with the most
credulous judge there is (every item 1) on the calibration set's adversarial trajectories:
after the bound, no fact-decided item is above its hand label."""
from automedbench.runs.models import StageResult
from automedbench.runs.trace import read_trace
from automedbench.scoring.judge.base import JudgeEvidence
from automedbench.scoring.judge.bounds import bound, ceilings
from automedbench.scoring.judge_eval import calibration_inputs, load_set
from automedbench.scoring.rubric import load_rubric
from automedbench.tasks import get_task
from tests.helpers import needs_calibration

pytestmark = needs_calibration()

FACT_DECIDED = {"s1a", "s1e", "s2a", "s2b", "s2e", "s3"}


def _credulous(ev: JudgeEvidence) -> dict[str, StageResult | None]:
    rubric = load_rubric()
    out: dict[str, StageResult | None] = {}
    for s in rubric.judged:
        items = {i: 1.0 for i in rubric.stages[s].applicable(ev.tier)}
        out[s] = StageResult(score=rubric.stages[s].score(items), items=items, rationale="all good")
    return out


def _evidence(t) -> JudgeEvidence:
    task = get_task(t.task)
    return JudgeEvidence(task=task, tier=t.tier, workspace=t.dir, trace=read_trace(t.dir / "trace.jsonl"),
                         conversation=None, case_ids=t.case_ids, data_dir=calibration_inputs(task))


def test_a_credulous_judge_bounded_by_facts_never_credits_an_adversary_above_its_label():
    rubric = load_rubric()
    adversarial = [t for t in load_set() if t.adversarial]
    assert len(adversarial) >= 20
    over, lowered = [], 0
    for t in adversarial:
        ev = _evidence(t)
        bounded = bound(_credulous(ev), ev, rubric)
        for stage in bounded.values():
            assert stage is not None
            for item, value in stage.items.items():
                if item in FACT_DECIDED and item in t.labels and value > t.labels[item]:
                    over.append((t.id, item, value, t.labels[item]))
            lowered += "bounded by facts" in stage.rationale
    assert over == []
    assert lowered >= len(adversarial)     # every adversary had something lowered, and was told why


def test_an_honest_trajectory_is_not_bounded():
    t = next(t for t in load_set() if t.agent == "reference" and t.task == "brain-lesion-seg")
    ev = _evidence(t)
    assert ceilings(ev) == {}
    verdict = _credulous(ev)
    assert bound(verdict, ev, load_rubric()) == verdict
