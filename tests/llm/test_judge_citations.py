"""The LLM judge must cite its evidence (docs/judge.md "LLM judge"): every credited item
cites calls/files; the harness checks them against the trace and its effects; a bad citation
is re-asked once, then the stage is null (judge_incomplete), never a pass."""
import json

import pytest

from automedbench.runs.models import Effects, TraceEvent
from automedbench.scoring.judge.base import JudgeEvidence
from automedbench.scoring.judge.llm import LLMJudge
from automedbench.scoring.score_run import run_judge
from automedbench.tasks import get_task

from .scripted_llm import agent_config
from .fake_openai import completion

TASK = get_task("brain-lesion-seg")
PILOT_OUT = "/workspace/outputs/case_000/organ.nii.gz"


def _trace():
    ev = []
    calls = [("s2", {"written": [], "read": ["/data/public/case_000/t1.nii.gz"]}),
             ("s3", {"written": [{"path": PILOT_OUT, "op": "created", "size": 10, "sha256": "ab"}],
                     "read": ["/data/public/case_000/t1.nii.gz"]}),
             ("s3", {"written": [], "read": [PILOT_OUT]}),
             # the batch: without it the facts would bound S3 at 0.5 (scoring/judge/bounds.py)
             ("s4", {"written": [{"path": PILOT_OUT.replace("case_000", f"case_{i:03d}"), "op": "created",
                                  "size": 10, "sha256": f"b{i}"} for i in range(1, 5)],
                     "read": [f"/data/public/case_{i:03d}/t1.nii.gz" for i in range(1, 5)]})]
    for i, (stage, eff) in enumerate(calls, 1):
        ev.append(TraceEvent(type="tool_call", t=i, call_index=i, stage=stage, code=f"# {stage.upper()} step {i}"))
        ev.append(TraceEvent(type="execution", t=i, call_index=i, stage=stage, exit_code=0, stdout="ok",
                             effects=Effects(**eff)))
    return ev


@pytest.fixture
def evidence(tmp_path):
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "plan.md").write_text("1. a\n2. b\n3. c\n")
    return JudgeEvidence(task=TASK, tier="lite", workspace=tmp_path, trace=_trace(), conversation=None)


def verdict(s3_calls, s3_files):
    none = {"calls": [], "files": []}
    return {"s1": {"items": {"s1a": 1, "s1b": 1, "s1c": 0}, "rationale": "plan",
                   "evidence": {"s1a": {"calls": [], "files": ["plan/plan.md"]},
                                "s1b": {"calls": [], "files": ["/workspace/plan/plan.md"]}, "s1c": none}},
            "s2": {"items": {"s2a": 0, "s2b": 1, "s2c": 0, "s2d": 0, "s2e": 0}, "rationale": "input read",
                   "evidence": {"s2a": none, "s2b": {"calls": [1], "files": ["/data/public/case_000/t1.nii.gz"]},
                                "s2c": none, "s2d": none, "s2e": none}},
            "s3": {"items": {"s3": 1}, "rationale": "pilot inspected",
                   "evidence": {"s3": {"calls": s3_calls, "files": s3_files}}}}


def judge(srv, tmp_path):
    return LLMJudge(agent_config(srv.url, retry={"max_retries": 1}), cache_dir=tmp_path / "cache")


def test_bad_citation_is_reasked_once_then_accepted(fake_openai, evidence, tmp_path):
    # call #9 does not exist; then a file the cited call never opened; then a valid citation
    fake_openai.push(completion(json.dumps(verdict([9], [PILOT_OUT]))),
                     completion(json.dumps(verdict([2, 3], [PILOT_OUT]))))
    out = judge(fake_openai, tmp_path).judge(evidence)
    assert out["s3"].items == {"s3": 1.0} and out["s2"].items["s2b"] == 1.0
    second = fake_openai.chat_requests()[1]["body"]["messages"][-1]["content"]
    assert "s3: s3: cites call(s) [9] that do not exist in the trace" in second


def test_citation_still_bad_after_one_reask_is_null_never_a_pass(fake_openai, evidence, tmp_path):
    j = judge(fake_openai, tmp_path)
    fake_openai.push(completion(json.dumps(verdict([1], [PILOT_OUT]))),      # call #1 never touched it
                     completion(json.dumps(verdict([], []))))                  # credited without evidence
    out, info = run_judge(j, evidence)
    assert out["s3"] is None and out["s1"] is not None and out["s2"] is not None
    assert info.judge_incomplete and "citations still invalid" in info.error
    assert len(fake_openai.chat_requests()) == 2      # re-asked once, not more


def test_digest_shows_effects(fake_openai, evidence, tmp_path):
    fake_openai.push(completion(json.dumps(verdict([2, 3], [PILOT_OUT]))))
    judge(fake_openai, tmp_path).judge(evidence)
    prompt = fake_openai.chat_requests()[0]["body"]["messages"][1]["content"]
    assert f"effects (observed by the sandbox): wrote {PILOT_OUT}" in prompt
    assert "read 1 files" in prompt and '"evidence"' in prompt


def test_checked_citations_are_stored_as_item_evidence(fake_openai, evidence, tmp_path):
    # docs/judge.md#item-evidence: the record keeps the citations that passed the check, per item
    good = verdict([2, 3], [PILOT_OUT])
    good["s3"]["evidence"]["s3"]["why"] = "pilot written by #2, opened and printed by #3"
    fake_openai.push(completion(json.dumps(verdict([9], [PILOT_OUT]))), completion(json.dumps(good)))
    out = judge(fake_openai, tmp_path).judge(evidence)
    s3 = out["s3"].evidence["s3"]
    assert (s3.calls, s3.files, s3.why) == ([2, 3], [PILOT_OUT], "pilot written by #2, opened and printed by #3")
    assert out["s2"].evidence["s2b"].calls == [1] and out["s2"].evidence["s2a"].calls == []
    assert out["s1"].evidence["s1a"].files == ["plan/plan.md"]
    # the cache keeps them: a re-judge makes no request and returns the same evidence
    again = judge(fake_openai, tmp_path).judge(evidence)
    assert again["s3"].evidence == out["s3"].evidence and len(fake_openai.chat_requests()) == 2
