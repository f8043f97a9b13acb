"""LLM judge against the loopback server: parsing, retries, fallback, nulls, cache."""
import json

import pytest

from automedbench.scoring.judge.llm import LLMJudge, parse_verdict
from automedbench.scoring.rubric import load_rubric

from .scripted_llm import agent_config
from .fake_openai import error
from .judging import FULL, answer, cite


def judge(srv, tmp_path, **over):
    cfg = agent_config(srv.url, retry={"max_retries": 1}, **over)
    return LLMJudge(cfg, cache_dir=tmp_path / "cache")


def test_valid_answer(fake_openai, evidence, tmp_path):
    fake_openai.push(answer(FULL))
    out = judge(fake_openai, tmp_path).judge(evidence)
    assert out["s1"].items == {k: float(v) for k, v in FULL["s1"]["items"].items()}
    assert out["s1"].score == pytest.approx(4 / 6)
    assert out["s2"].score == pytest.approx(0.8)
    assert out["s3"].score == 0.5 and out["s3"].rationale == "partial pilot"
    body = fake_openai.chat_requests()[0]["body"]
    assert body["temperature"] == 0.0
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["s3"]["properties"]["items"]["properties"]["s3"]["enum"] == [0, 0.5, 1]
    assert schema["properties"]["s1"]["properties"]["items"]["required"] == ["s1a", "s1b", "s1c", "s1d", "s1e", "s1f"]
    prompt = body["messages"][1]["content"]
    assert isinstance(prompt, str)
    assert "UNIQUE_PLAN_TEXT" in prompt and "plan.png exists but cannot be viewed by this judge" in prompt
    assert "Segment kidney and kidney tumour" in prompt and "Tier: standard" in prompt
    assert "RUN DIGEST" in prompt and "[S3]" in prompt
    assert "task score" not in prompt.lower().replace("not told how good", "")


def test_lite_not_applicable_items_not_asked_nor_passed(fake_openai, evidence, tmp_path):
    evidence.tier = "lite"
    ans = {**FULL, "s1": {"items": {"s1a": 1, "s1b": 0, "s1c": 1}, "rationale": "r"}}
    fake_openai.push(answer(ans))
    out = judge(fake_openai, tmp_path).judge(evidence)
    assert out["s1"].items == {"s1a": 1, "s1b": 0, "s1c": 1}      # s1d-s1f left out, not set to 1
    assert out["s1"].score == pytest.approx(2 / 3)
    prompt = fake_openai.chat_requests()[0]["body"]["messages"][1]["content"]
    assert "not applicable in tier lite: s1d, s1e, s1f" in prompt and "auto-pass" not in prompt
    req = fake_openai.chat_requests()[0]["body"]["response_format"]["json_schema"]["schema"]
    assert req["properties"]["s1"]["properties"]["items"]["required"] == ["s1a", "s1b", "s1c"]


def test_vision_sends_plan_png(fake_openai, evidence, tmp_path):
    fake_openai.push(answer(FULL))
    judge(fake_openai, tmp_path, vision=True).judge(evidence)
    content = fake_openai.chat_requests()[0]["body"]["messages"][1]["content"]
    imgs = [p for p in content if p["type"] == "image_url"]
    assert len(imgs) == 1 and imgs[0]["image_url"]["url"].startswith("data:image/png;base64,")


def test_invalid_then_valid_with_feedback(fake_openai, evidence, tmp_path):
    bad = json.loads(json.dumps(FULL))
    bad["s2"]["items"]["s2z"] = 1
    bad["s3"]["items"]["s3"] = 0.7
    fake_openai.push(answer("Sure! " + json.dumps(cite(bad))), answer("```json\n" + json.dumps(cite(FULL)) + "\n```"))
    j = judge(fake_openai, tmp_path)
    out = j.judge(evidence)
    assert all(out[s] is not None for s in ("s1", "s2", "s3"))
    assert out["s3"].score == 0.5
    reqs = fake_openai.chat_requests()
    assert len(reqs) == 2
    feedback = reqs[1]["body"]["messages"][-1]["content"]
    assert "s2z" in feedback and "0.7" in feedback
    # only the stages still missing are asked the second time
    assert set(reqs[1]["body"]["response_format"]["json_schema"]["schema"]["required"]) == {"s2", "s3"}


def test_unparseable_after_retries_gives_none_per_stage(fake_openai, evidence, tmp_path):
    partial = {"s1": FULL["s1"], "s2": {"items": {"s2a": "yes"}, "rationale": "x"}, "s3": FULL["s3"]}
    fake_openai.push(answer(partial), answer("no json here"), answer({"s2": {"items": {"s2a": 2}}}))
    out = judge(fake_openai, tmp_path).judge(evidence)
    assert out["s1"] is not None and out["s3"] is not None and out["s2"] is None
    assert len(fake_openai.chat_requests()) == 3           # 1 + 2 retries
    assert not any((tmp_path / "cache").rglob("*.json"))   # incomplete verdicts are not cached


def test_schema_rejected_falls_back_to_plain(fake_openai, evidence, tmp_path):
    fake_openai.push(error(400, "response_format json_schema is not supported"), answer(FULL))
    out = judge(fake_openai, tmp_path).judge(evidence)
    assert out["s2"].score == pytest.approx(0.8)
    reqs = fake_openai.chat_requests()
    assert len(reqs) == 2 and "response_format" not in reqs[1]["body"]


def test_provider_down_all_none(fake_openai, evidence, tmp_path):
    out = judge(fake_openai, tmp_path).judge(evidence)     # default: 500 forever
    assert out == {"s1": None, "s2": None, "s3": None}
    assert len(fake_openai.chat_requests()) == 2           # 1 + max_retries=1


def test_cache_hit_makes_zero_requests(fake_openai, evidence, tmp_path):
    fake_openai.push(answer(FULL))
    first = judge(fake_openai, tmp_path).judge(evidence)
    assert len(fake_openai.chat_requests()) == 1
    j2 = judge(fake_openai, tmp_path)
    second = j2.judge(evidence)
    assert len(fake_openai.chat_requests()) == 1 and j2.last_cache_hit
    assert {s: v.model_dump() for s, v in first.items()} == {s: v.model_dump() for s, v in second.items()}
    # a changed plan is a new key
    (evidence.workspace / "plan" / "plan.md").write_text("different")
    fake_openai.push(answer(FULL))
    judge(fake_openai, tmp_path).judge(evidence)
    assert len(fake_openai.chat_requests()) == 2


def test_parse_verdict_strictness():
    rub = load_rubric()
    ask = {"s1": list(rub.stages["s1"].items), "s3": ["s3"]}
    good, problems = parse_verdict(json.dumps({"s1": FULL["s1"], "s3": {"items": {"s3": True}, "rationale": "r"}}), ask, rub)
    assert "s1" in good and "s3" not in good and any("True" in p for p in problems)
    good, problems = parse_verdict(json.dumps({"s1": {**FULL["s1"], "items": {**FULL["s1"]["items"], "s1a": 0.5}},
                                               "s3": {"items": {"s3": 1}}}), ask, rub)
    assert good == {} and any("s1a" in p for p in problems) and any("rationale" in p for p in problems)
