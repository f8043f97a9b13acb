"""docs/leaderboard.md#the-rules-of-the-numbers: the leaderboard cannot be gamed by faults. Each test fails on the pre-§8 code
(pooled means over every run, a pooled CI that measured the spread between tasks)."""
from __future__ import annotations


import pytest

from automedbench import __version__
from automedbench.report import aggregate, write_leaderboard
from automedbench.report.aggregate import stratified_bootstrap
from tests.cli_forkserver import run_cli



def _agent(board, name):
    return next(a for a in board.agents if a.agent == name)


def test_infra_ended_runs_are_counted_never_averaged(make_report):
    ok = make_report("a1", overall=0.8, agentic=0.8, task_score=0.8)
    crashed = make_report("a2", overall=0.0, agentic=0.0, task_score=0.0, submitted=False, valid_cases=0,
                          end_reason="harness_error")
    outage = make_report("a3", overall=0.1, agentic=0.1, task_score=0.1, end_reason="provider_unavailable")
    a = _agent(aggregate([ok, crashed, outage]), "agent-a")
    assert a.overall.mean == pytest.approx(0.8) and a.overall.n == 1
    assert a.infra_runs == 2 and a.n_runs == 3 and a.n_complete == 1
    assert a.failures == 0 and a.failure_rate == 0.0       # the harness's faults are not the agent's
    g = aggregate([ok, crashed, outage]).groups[0]
    assert g.overall.mean == pytest.approx(0.8) and g.infra_runs == 2


def test_judge_incomplete_runs_do_not_raise_agentic(make_report):
    # a judge outage nulls S1-S3, which leaves only S4/S5 (high) in that run's agentic
    honest = make_report("a1", stages={"s1": 0.0, "s2": 0.0, "s3": 0.0, "s4": 1.0, "s5": 1.0})
    outage = make_report("a2", stages={"s1": None, "s2": None, "s3": None, "s4": 1.0, "s5": 1.0},
                         judge_incomplete=True)
    a = _agent(aggregate([honest, outage]), "agent-a")
    assert a.agentic.mean == pytest.approx(honest.agentic) and a.agentic.n == 1
    assert a.judge_incomplete == 1 and a.stages["s4"].n == 1


def test_agent_row_is_the_mean_of_per_task_means(make_report):
    reps = [make_report(f"a{i}", task="big", overall=0.9) for i in range(3)] + [
        make_report("b1", task="small", overall=0.1)]
    a = _agent(aggregate(reps), "agent-a")
    assert a.overall.mean == pytest.approx(0.5)       # not the pooled 0.7
    assert a.overall.n == 4 and a.overall.n_strata == 2


def test_agent_ci_is_stratified_by_task_not_spread_between_tasks(make_report):
    # no spread between repeats within either task: the mean over tasks is known exactly
    reps = [make_report(f"a{i}", task="t1", overall=0.9) for i in range(3)] + [
        make_report(f"b{i}", task="t2", overall=0.1) for i in range(3)]
    a = _agent(aggregate(reps), "agent-a")
    assert (a.overall.ci_low, a.overall.ci_high) == pytest.approx((0.5, 0.5))
    # with spread inside one task the interval widens, and it brackets the mean
    reps2 = reps[:3] + [make_report("c0", task="t2", overall=0.0), make_report("c1", task="t2", overall=0.2),
                        make_report("c2", task="t2", overall=0.1)]
    b = _agent(aggregate(reps2), "agent-a")
    assert b.overall.ci_low < 0.5 < b.overall.ci_high and b.overall.ci_high - b.overall.ci_low < 0.2


def test_stratified_bootstrap_against_hand_values():
    mean, lo, hi = stratified_bootstrap({("t1", "lite"): [1.0, 1.0], ("t1", "pro"): [0.0], ("t2", "lite"): [0.5]})
    assert mean == pytest.approx(0.5)                 # t1 = mean(1.0, 0.0) = 0.5, t2 = 0.5
    assert lo == pytest.approx(0.5) and hi == pytest.approx(0.5)
    again = stratified_bootstrap({("t2", "lite"): [0.5], ("t1", "pro"): [0.0], ("t1", "lite"): [1.0, 1.0]})
    assert again == (mean, lo, hi)                    # order of strata does not matter


def test_page_names_harness_rubric_and_judges(tmp_path, make_report):
    from automedbench.scoring.rubric import load_rubric
    current = str(load_rubric().version)
    index = write_leaderboard([make_report("a1")], tmp_path / "site", analysis_plots=False)
    html = index.read_text()
    board = aggregate([make_report("a1")])      # reports without recorded versions: the current ones
    assert board.harness_version == __version__ and board.rubric_version == current
    assert board.judges == ["heuristic v1"]
    assert f"harness {__version__}" in html and f"rubric v{current}" in html and "heuristic v1" in html
    # the versions the reports were scored with win, and a mix is shown, not hidden
    old = make_report("o1")
    old.versions = {"harness_scored": "0.0.9", "rubric": "1"}
    new = make_report("n1")
    new.versions = {"harness_scored": "0.1.0", "rubric": "2"}
    mixed = aggregate([old, new])
    assert mixed.rubric_version == "1, 2" and mixed.harness_version == "0.0.9, 0.1.0"


def test_infra_and_judge_incomplete_counts_beside_the_row(tmp_path, make_report):
    reps = [make_report("a1"), make_report("a2", end_reason="infra_error"), make_report("a3", judge_incomplete=True)]
    html = write_leaderboard(reps, tmp_path / "site").read_text()
    assert "1 infra" in html and "1 judge incomplete" in html


@pytest.mark.parametrize("make_target", ["missing", "random", "file"])
def test_report_on_nothing_is_a_user_error(tmp_path, make_target):
    target = tmp_path / "target"
    if make_target == "random":
        (target / "sub").mkdir(parents=True)
        (target / "sub" / "notes.txt").write_text("hello")
    elif make_target == "file":
        target.write_text("not a report")
    proc = run_cli(["report", str(target), "--out", str(tmp_path / "site")], timeout=60)
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and str(target) in lines[0]
    assert not (tmp_path / "site" / "index.html").exists()
