"""The LLM answer judge (a ScoringContext service) over real loopback HTTP."""
import pytest

from automedbench.llm.answer_judge import LLMAnswerJudge, get_answer_judge, parse_score

from .scripted_llm import agent_config
from .fake_openai import completion, error


def test_parse_score_is_strict():
    assert parse_score('{"score": 1}') == 1.0 and parse_score('{"score": 0.5}') == 0.5
    assert parse_score('```json\n{"score": 0}\n```') == 0.0
    assert parse_score('Sure! {"score": "1"} because') == 1.0
    assert parse_score('{"score": 0.7}') is None and parse_score("yes") is None and parse_score("") is None


def test_verdicts_are_graded_cached_and_null_when_unjudgeable(fake_openai, tmp_path):
    judge = LLMAnswerJudge(agent_config(fake_openai.url, retry={"max_retries": 0}), cache_dir=tmp_path)
    fake_openai.push(completion('{"score": 1}'))
    assert judge("Is there a nodule?", "yes", "yes, one nodule") == 1.0
    assert judge("Is there a nodule?", "yes", "yes, one nodule") == 1.0      # cached: no second call
    assert len(fake_openai.requests) == 1
    body = fake_openai.requests[0]["body"]
    assert body["temperature"] == 0 and "REFERENCE: yes" in body["messages"][1]["content"]
    fake_openai.push(completion("I think it is right"))                       # unparseable, then
    fake_openai.push(completion("still not JSON"))                            # the one retry fails too
    assert judge("Which lobe?", "left upper", "right") is None
    fake_openai.push(error(503, "down"))
    assert judge("Which side?", "left", "left") is None                        # provider down: null, not 0
    assert judge.failures == 2


def test_missing_key_is_a_user_error_before_any_call(tmp_path, monkeypatch):
    from automedbench.llm.registry import LLMConfigError
    cfg = tmp_path / "agents.yaml"
    cfg.write_text("agents:\n  - name: grader\n    model: m\n    base_url: http://127.0.0.1:9/v1\n"
                   "    api_key_env: AMB_TEST_GRADER_KEY\n")
    monkeypatch.delenv("AMB_TEST_GRADER_KEY", raising=False)
    with pytest.raises(LLMConfigError, match="AMB_TEST_GRADER_KEY"):
        get_answer_judge("grader", [cfg])
    assert get_answer_judge(None) is None
