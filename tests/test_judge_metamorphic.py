"""Metamorphic tests of the heuristic judge (docs/judge.md "Metamorphic variants"): the
calibration trajectories changed in one known way each. Substance kept, every verdict must
stay; substance removed, the named item must drop. Variants marked open show known failures
of the judge: they are measured and printed, not enforced."""
import json

import pytest

from automedbench.runs.trace import read_trace
from automedbench.scoring.judge_eval import load_set
from automedbench.scoring.judge_eval.metamorphic import (
    VARIANTS,
    Context,
    evaluate_metamorphic,
    metamorphic_failures,
    render_metamorphic,
)
from automedbench.scoring.judge.facts import Roots, derive_facts
from automedbench.scoring.judge.heuristic import HeuristicJudge
from automedbench.tasks import get_task
from tests.helpers import amb, needs_calibration

pytestmark = [needs_calibration(), pytest.mark.slow]   # every variant of the calibration set: ~40 s (docs/testing.md)


@pytest.fixture(scope="module")
def results():
    return evaluate_metamorphic(HeuristicJudge())


def test_every_variant_that_is_not_open_holds_wherever_it_applies(results):
    assert metamorphic_failures(results) == [], render_metamorphic(results)
    by_name = {r.name: r for r in results}
    # each one actually ran, on more than a handful of trajectories
    for v in VARIANTS:
        assert by_name[v.name].applied >= 4, (v.name, by_name[v.name].applied)
    assert {r.kind for r in results} == {"keep", "remove"}


def test_no_variant_is_left_open(results):
    """Issue 25's floor: 100 % of substance-keeping variants keep their verdicts and 100 % of
    substance-removing ones lower the right item; none is excused as a known failure."""
    assert [r.name for r in results if r.open] == []
    assert all(r.rate == 1.0 for r in results), render_metamorphic(results)


def _context(t):
    task = get_task(t.task)
    layout = task.track_impl.submission(task.options)
    events = read_trace(t.dir / "trace.jsonl")
    facts = derive_facts(events, layout, t.case_ids)
    return events, Context(facts, Roots.of(events), tuple(layout.file_names), layout.effective_unit == "case",
                           tuple(t.case_ids))


def test_the_transforms_do_what_they_say():
    """A variant that changed nothing would pass every keep check and fail no remove check for
    the wrong reason: each transform is checked on an honest trajectory."""
    t = next(t for t in load_set() if t.agent == "reference" and t.task == "brain-lesion-seg")
    events, ctx = _context(t)
    by = {v.name: v.transform for v in VARIANTS}
    first_batch = min(ctx.facts.batch.calls)
    moved = by["pilot in a scratch folder"](events, ctx)
    before = [e for e in moved if e.effects and e.call_index < first_batch]
    assert not any(w.path.startswith("/workspace/outputs/") for e in before for w in e.effects.written)
    assert any(w.path.startswith("/workspace/scratch/") for e in before for w in e.effects.written)
    look = by["look is a constant print"](events, ctx)
    insp = ctx.facts.pilot_inspection.calls
    assert all(not set(e.effects.read) & set(ctx.facts.pilot_inspection.paths)
               for e in look if e.type == "execution" and e.call_index in insp)
    split = by["batch cut in two calls"](events, ctx)
    n_calls = len({e.call_index for e in events if e.call_index is not None})
    assert len({e.call_index for e in split if e.call_index is not None}) == n_calls + 1
    staged = by["pilot is a staged copy"](events, ctx)
    assert any(w.path.startswith("/workspace/staged/") for e in staged if e.effects for w in e.effects.written)
    untagged = by["tags removed"](events, ctx)
    assert not any(e.stage for e in untagged)


def test_cli_judge_eval_metamorphic(tmp_path, results):
    # one measurement through the command (its JSON); the table it prints otherwise is
    # render_metamorphic's, shown here on this module's results (one full run, not three)
    table = render_metamorphic(results)
    assert "substance kept:" in table and "pilot is a staged copy" in table
    data = json.loads(amb("judge-eval", "--metamorphic", "--json", env={"AUTOMEDBENCH_HOME": str(tmp_path)}).stdout)
    assert {v["name"] for v in data["metamorphic"]} == {v.name for v in VARIANTS}
    assert data["calibration"]["floor_failures"] == []
