"""Error codes after a run the provider ended (issue 11, "Scoring after an infrastructure end"),
and the pre-run readiness check of an endpoint entry (issue 12: a missing key is a user error)."""
import pytest

from automedbench.agents import check_ready, get_agent
from automedbench.llm import LLMConfigError
from automedbench.runs.models import CaseResult, StageResult, TaskResult, TraceEvent
from automedbench.scoring.error_codes import detect_errors

from .scripted_llm import agent_config


def _exec(call, exit_code, stage="s2", stderr=""):
    return TraceEvent(type="execution", t=float(call), turn=call, call_index=call, stage=stage,
                      exit_code=exit_code, stderr=stderr)


def _provider_gone(reason="provider_unavailable"):
    return TraceEvent(type="error", t=9.0, turn=3, kind="infrastructure", message="gave up after 6 attempts",
                      data={"reason": reason, "fault": "outage"})


def _detect(trace, tmp_path, *, submitted, end_reason, s3=None):
    task = TaskResult(metric_name="m", per_case=[CaseResult(case_id="case_001", valid=False,
                                                            reason="missing output")])
    stages = {"s1": StageResult(score=0.0), "s2": StageResult(score=0.0), "s3": s3 or StageResult(score=0.5)}
    return {e.code: e for e in detect_errors(trace, stages, task, submitted=submitted, end_reason=end_reason,
                                             workspace=tmp_path)}


def test_provider_end_without_submission_is_not_submitted_nothing(tmp_path):
    fired = _detect([_exec(1, 0), _provider_gone()], tmp_path, submitted=False, end_reason="provider_unavailable")
    assert "SUBMITTED_NOTHING" not in fired and "NOT_SUBMITTED" not in fired
    assert "INFRA_PROVIDER" in fired


def test_submitted_nothing_still_fires_when_submit_was_called(tmp_path):
    fired = _detect([_exec(1, 0)], tmp_path, submitted=True, end_reason="submitted")
    assert fired["SUBMITTED_NOTHING"].category == "hallucination"


def test_failure_the_provider_ended_is_not_unrecovered(tmp_path):
    trace = [_exec(1, 0), _exec(2, 1, stderr="ImportError: no module named foo"), _provider_gone()]
    assert "UNRECOVERED_ERROR" not in _detect(trace, tmp_path, submitted=False, end_reason="provider_unavailable")
    # the same failure at the end of a run the agent ended itself is still its own
    fired = _detect(trace[:2], tmp_path, submitted=True, end_reason="submitted")
    assert "ImportError" in fired["UNRECOVERED_ERROR"].evidence["excerpt"]


def test_no_pilot_does_not_claim_a_batch_ran(tmp_path):
    s3 = StageResult(score=0.0, items={"s3": 0.0}, rationale="no single-case pilot")
    fired = _detect([_exec(1, 0, stage="s1")], tmp_path, submitted=False, end_reason="agent_finished", s3=s3)
    ev = fired["NO_PILOT"].evidence
    assert ev["batch"] == "no batch ran" and "the batch ran" not in ev["what"]
    fired = _detect([_exec(1, 0, stage="s1"), _exec(2, 0, stage="s4")], tmp_path, submitted=True,
                    end_reason="submitted", s3=s3)
    assert fired["NO_PILOT"].evidence["batch"] == "the batch started at call 2 without a checked pilot"


def test_heuristic_judge_says_no_batch_ran(tmp_path):
    from automedbench.scoring.judge.base import JudgeEvidence
    from automedbench.scoring.judge.heuristic import HeuristicJudge
    from automedbench.tasks import get_task
    from automedbench.runs.models import Effects
    trace = [TraceEvent(type="tool_call", t=1.0, turn=1, call_index=1, stage="s1", code="ls"), _exec(1, 0, stage="s1")]
    trace[1].effects = Effects()     # the sandbox saw the call write nothing (judge v3 decides from effects)
    ev = JudgeEvidence(task=get_task("brain-lesion-seg"), tier="lite", workspace=tmp_path, trace=trace,
                       conversation=None)
    s3 = HeuristicJudge().judge(ev)["s3"]
    assert s3.score == 0 and "None" not in s3.rationale and "no pilot, no batch" in s3.rationale


# ---- issue 12: readiness before the first turn ---------------------------------------------------

def test_check_ready_names_the_missing_env_var(monkeypatch):
    monkeypatch.delenv("AMB_UNSET_KEY", raising=False)
    cfg = agent_config("http://127.0.0.1:9/v1", api_key_env="AMB_UNSET_KEY")
    with pytest.raises(LLMConfigError, match="AMB_UNSET_KEY") as ei:
        cfg.check_ready()
    assert "api_key_env" in str(ei.value) and "'fake'" in str(ei.value)
    monkeypatch.setenv("AMB_UNSET_KEY", "k")
    cfg.check_ready()


def test_check_ready_covers_header_env_refs(monkeypatch):
    monkeypatch.delenv("AMB_UNSET_TOKEN", raising=False)
    cfg = agent_config("http://127.0.0.1:9/v1", headers={"Authorization": "Bearer ${AMB_UNSET_TOKEN}"})
    with pytest.raises(LLMConfigError, match="AMB_UNSET_TOKEN"):
        cfg.check_ready(role="judge")


def test_agent_check_ready_before_any_turn(tmp_path, monkeypatch):
    monkeypatch.delenv("AMB_UNSET_KEY", raising=False)
    reg = tmp_path / "agents.yaml"
    reg.write_text("agents:\n  - name: needs-key\n    model: m\n    base_url: http://127.0.0.1:9/v1\n"
                   "    api_key_env: AMB_UNSET_KEY\n")
    agent = get_agent("needs-key", [reg])
    with pytest.raises(LLMConfigError, match="AMB_UNSET_KEY.*not set"):
        check_ready(agent)
    check_ready(get_agent("reference"))     # scripted agents need nothing
