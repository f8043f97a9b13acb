from __future__ import annotations

import math
import random

import pytest

from automedbench.report import aggregate
from automedbench.report.aggregate import bootstrap_ci, is_failure, summarize


def _agent(board, name):
    return next(a for a in board.agents if a.agent == name)


def test_hand_computed_means_and_costs(make_report):
    reps = [
        make_report("a1", task_score=0.4, overall=0.6, agentic=0.8, turns=10, wall_time_s=100,
                    tokens_in=1000, tokens_out=500, cost_usd=0.10),
        make_report("a2", task_score=0.2, overall=0.3, agentic=0.4, turns=20, wall_time_s=300,
                    tokens_in=3000, tokens_out=1500, cost_usd=0.30),
    ]
    a = _agent(aggregate(reps), "agent-a")
    assert a.n_runs == 2
    assert a.overall.mean == pytest.approx(0.45)
    assert a.agentic.mean == pytest.approx(0.6)
    assert a.task_score.mean == pytest.approx(0.3)
    assert a.avg_turns == pytest.approx(15)
    assert a.avg_wall_time_s == pytest.approx(200)
    assert a.avg_tokens == pytest.approx(3000)   # (1500 + 4500) / 2
    assert a.avg_cost_usd == pytest.approx(0.20)
    assert a.overall.std == pytest.approx(math.sqrt(((0.15) ** 2 * 2) / 1))
    assert 0.3 <= a.overall.ci_low <= a.overall.mean <= a.overall.ci_high <= 0.6


def test_null_stages_are_excluded_and_counted(make_report):
    reps = [
        make_report("r1", stages={"s1": 1.0, "s2": None, "s3": 0.0, "s4": 1.0, "s5": 1.0}),
        make_report("r2", stages={"s1": 0.5, "s2": 0.6, "s3": 1.0, "s4": 1.0, "s5": 0.5}),
        make_report("r3", stages={"s1": 0.0, "s2": None, "s3": None, "s4": 1.0, "s5": 0.0}),
    ]
    a = _agent(aggregate(reps), "agent-a")
    assert a.stages["s1"].mean == pytest.approx(0.5) and a.stages["s1"].n == 3
    assert a.stages["s2"].mean == pytest.approx(0.6) and a.stages["s2"].n == 1
    assert a.stages["s2"].n1 and a.stages["s2"].ci_low == a.stages["s2"].ci_high == pytest.approx(0.6)
    assert a.stages["s3"].mean == pytest.approx(0.5) and a.stages["s3"].n == 2
    assert a.stages["s5"].mean == pytest.approx(0.5)


def test_null_overall_excluded_all_null_gives_empty_stat(make_report):
    reps = [make_report("r1", overall=None, agentic=None), make_report("r2", overall=0.8)]
    a = _agent(aggregate(reps), "agent-a")
    assert a.overall.mean == pytest.approx(0.8) and a.overall.n == 1
    s = summarize([None, None])
    assert s.n == 0 and s.mean is None and s.ci_low is None


def test_failure_rate_counts_unsubmitted_and_no_valid_case(make_report):
    reps = [
        make_report("ok"),
        make_report("not-submitted", submitted=False),
        make_report("no-valid", valid_cases=0, invalid_cases=3),
        make_report("no-cases", valid_cases=0),
    ]
    assert [is_failure(r) for r in reps] == [False, True, True, True]
    a = _agent(aggregate(reps), "agent-a")
    assert a.failures == 3 and a.failure_rate == pytest.approx(0.75)


def test_counts_disqualified_judge_incomplete_unisolated(make_report):
    reps = [
        make_report("r1", disqualified=True, overall=0.0),
        make_report("r2", judge_incomplete=True),
        make_report("r3", sandbox="local (no isolation)"),
        make_report("r4"),
    ]
    a = _agent(aggregate(reps), "agent-a")
    assert (a.disqualified, a.judge_incomplete, a.unisolated_runs) == (1, 1, 1)


def test_bootstrap_is_deterministic_and_order_independent():
    vals = [0.1, 0.5, 0.3, 0.9, 0.7, 0.2]
    ci1 = bootstrap_ci(vals)
    ci2 = bootstrap_ci(list(reversed(vals)))
    assert ci1 == ci2
    lo, hi = ci1
    assert min(vals) <= lo < sum(vals) / len(vals) < hi <= max(vals)
    assert bootstrap_ci([0.4]) == (0.4, 0.4)
    assert bootstrap_ci([0.4, 0.4, 0.4]) == (0.4, 0.4)


def test_aggregate_is_independent_of_input_order(make_report):
    reps = [make_report(f"r{i}", overall=v, agent=ag)
            for i, (v, ag) in enumerate([(0.1, "x"), (0.5, "x"), (0.9, "x"), (0.4, "y"), (0.6, "y")])]
    shuffled = reps[:]
    random.Random(3).shuffle(shuffled)
    assert aggregate(reps).model_dump() == aggregate(shuffled).model_dump()


def test_groups_by_agent_task_tier_and_sorts_agents(make_report):
    reps = [
        make_report("a1", agent="alpha", task="t1", tier="lite", overall=0.2),
        make_report("a2", agent="alpha", task="t1", tier="pro", overall=0.4),
        make_report("b1", agent="beta", task="t1", tier="lite", overall=0.9),
        make_report("b2", agent="beta", task="t2", tier="standard", overall=0.7),
        make_report("c1", agent="gamma", overall=None, agentic=None),
    ]
    board = aggregate(reps)
    assert [a.agent for a in board.agents] == ["beta", "alpha", "gamma"]
    assert board.agents[0].overall.mean == pytest.approx(0.8)
    keys = [(g.task, g.tier, g.agent) for g in board.groups]
    assert keys == [("kits-demo", "lite", "gamma"), ("t1", "lite", "beta"),
                    ("t1", "lite", "alpha"), ("t1", "pro", "alpha"), ("t2", "standard", "beta")]
    assert board.tiers == ["lite", "standard", "pro"]
    assert board.n_runs == 5 and board.schema_version


def test_n1_group_ci_is_the_point(make_report):
    g = aggregate([make_report("only", overall=0.37)]).groups[0]
    assert g.overall.n1 and g.overall.std is None
    assert g.overall.ci_low == g.overall.ci_high == pytest.approx(0.37)


def test_error_histogram_separates_infrastructure(make_report):
    reps = [
        make_report("r1", errors=[
            {"code": "E3", "category": "verification/recovery", "step": "S3"},
            {"code": "E5", "category": "deliverable/submission", "step": "S5"},
            {"code": "JUDGE_DOWN", "category": "resource/infrastructure", "step": "S1",
             "infrastructure": True},
        ]),
        make_report("r2", errors=[{"code": "E3", "category": "verification/recovery", "step": "S3"}]),
        make_report("r3", errors=[{"code": "API_OUTAGE", "category": "resource/infrastructure",
                                   "step": "S2", "infrastructure": True}]),
    ]
    board = aggregate(reps)
    e = _agent(board, "agent-a").errors
    assert e.by_category == {"deliverable/submission": 1, "verification/recovery": 2}
    assert e.by_code == {"E3": 2, "E5": 1}
    assert e.infrastructure == {"API_OUTAGE": 1, "JUDGE_DOWN": 1}
    assert e.total == 3 and e.runs_with_errors == 2  # r3 had only an infrastructure fault
    assert board.error_categories[:2] == ["task-understanding", "planning"]


def test_empty_input():
    board = aggregate([])
    assert board.n_runs == 0 and board.agents == [] and board.groups == []


def test_non_finite_scores_are_treated_as_null(make_report):
    reps = [make_report("r1", overall=float("nan")), make_report("r2", overall=0.5)]
    a = _agent(aggregate(reps), "agent-a")
    assert a.overall.mean == pytest.approx(0.5) and a.overall.n == 1
