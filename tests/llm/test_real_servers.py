"""The agent loop against real servers' behaviour (issue 11), replayed from fixtures through
the loopback fake server: recorded llama.cpp exchanges, and llama-cpp-python / vLLM / SGLang /
Ollama / fenced-JSON replies written from their documentation (each fixture says which)."""
import json
from pathlib import Path

import pytest

from automedbench.agents.llm import LLMAgent
from automedbench.runs.models import TaskResult
from automedbench.scoring.error_codes import detect_errors

from .scripted_llm import agent_config
from .fake_openai import call, completion, fixture_responses, load_fixture

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def submit():
    return completion(tool_calls=[call("submit_results", {})])


def ex(lang, code):
    return call("execute_code", {"language": lang, "code": code})


def codes(r, end_reason, submitted=False):
    task = TaskResult(metric_name="m")
    return {e.code: e for e in detect_errors(r.events(), {}, task, submitted=submitted, end_reason=end_reason,
                                             workspace=r.workspace)}


def warnings(r, kind):
    return [e for e in r.types("warning") if e.kind == kind]


# ---- bullet 1: content "" on tool-call turns; an invalid-request 5xx is an interop fault -------

def _llama_cpp_python(request):
    """What llama-cpp-python's server does with our history: 500 on `content: null`."""
    msgs = request["body"]["messages"]
    if any(m.get("role") == "assistant" and m.get("content") is None for m in msgs):
        return fixture_responses("llama_cpp_python_content_null_500")[0]
    n_assistant = sum(m.get("role") == "assistant" for m in msgs)
    return submit() if n_assistant else completion(tool_calls=[ex("bash", "echo one > one.txt")])


def test_tool_call_turns_send_empty_content_not_null(fake_openai, rig):
    r = rig()
    fake_openai.default = _llama_cpp_python
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted" and (r.workspace / "one.txt").exists()
    history = fake_openai.chat_requests()[1]["body"]["messages"]
    assistant = [m for m in history if m["role"] == "assistant"]
    assert assistant and assistant[0]["content"] == "" and assistant[0]["tool_calls"]


def test_recorded_llama_cpp_accepts_both_null_and_empty_content():
    fx = load_fixture("llamacpp_content_null_vs_empty")
    sent = [ex_["request"]["messages"][2]["content"] for ex_ in fx["exchanges"]]
    assert sent == [None, ""] and [ex_["response"]["status"] for ex_ in fx["exchanges"]] == [200, 200]


def test_invalid_request_5xx_retried_once_then_interop_error(fake_openai, rig):
    r = rig()
    fake_openai.default = fixture_responses("llama_cpp_python_content_null_500")[0]
    out = LLMAgent(agent_config(fake_openai.url, retry={"max_retries": 5})).run("s", r.context, r.tools)
    assert out.end_reason == "provider_error"
    assert len(fake_openai.chat_requests()) == 2          # the first try + one retry, not 6
    err = [e for e in r.types("error") if e.kind == "infrastructure"][0]
    assert err.data["fault"] == "request_rejected" and "validation error" in err.message
    fired = codes(r, out.end_reason)
    assert "INFRA_REQUEST_REJECTED" in fired and fired["INFRA_REQUEST_REJECTED"].infrastructure
    assert "INFRA_PROVIDER" not in fired


def test_plain_5xx_is_still_an_outage(fake_openai, rig):
    r = rig()
    out = LLMAgent(agent_config(fake_openai.url, retry={"max_retries": 2})).run("s", r.context, r.tools)
    assert out.end_reason == "provider_unavailable" and len(fake_openai.chat_requests()) == 3
    assert [e for e in r.types("error") if e.kind == "infrastructure"][0].data["fault"] == "outage"
    assert "INFRA_PROVIDER" in codes(r, out.end_reason)


# ---- bullet 2: truncated tool calls are never executed ----------------------------------------

def test_llama_cpp_python_truncated_call_with_finish_tool_calls_not_executed(fake_openai, rig):
    r = rig()
    fx = load_fixture("llama_cpp_python_truncated_tool_call")
    # the cut-off code would write a file if "repaired" and run; prove it is not run
    resp = json.loads(json.dumps(fx["exchanges"][0]["response"]))
    args = resp["json"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    resp["json"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = \
        args.replace("import numpy as np", "open('ran.txt', 'w').write('cut code ran')")
    fake_openai.push(resp, submit())
    out = LLMAgent(agent_config(fake_openai.url, max_tokens=fx["max_tokens"])).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    assert not (r.workspace / "ran.txt").exists() and r.types("execution") == []
    fed = fake_openai.chat_requests()[1]["body"]["messages"][-1]
    assert fed["role"] == "tool" and "cut off" in fed["content"] and "NOT" in fed["content"]
    assert "smaller" in fed["content"]
    ev = warnings(r, "tool_call_truncated")
    assert len(ev) == 1 and ev[0].data["finish_reason"] == "tool_calls" and ev[0].data["tokens_out"] == 256
    fired = codes(r, out.end_reason, submitted=True)
    assert fired["TOOL_CALL_TRUNCATED"].evidence["excerpt"].startswith('{"language": "python"')


def test_complete_json_at_the_token_limit_is_still_truncated(fake_openai, rig):
    r = rig()
    fake_openai.push(completion(tool_calls=[ex("bash", "touch limit.txt")], usage_={"prompt_tokens": 10,
                                "completion_tokens": 64, "total_tokens": 74}), submit())
    LLMAgent(agent_config(fake_openai.url, max_tokens=64)).run("s", r.context, r.tools)
    assert not (r.workspace / "limit.txt").exists()
    assert "completion tokens 64 = max_tokens 64" in warnings(r, "tool_call_truncated")[0].message


def test_recorded_llama_cpp_parallel_calls_cut_runs_only_the_complete_one(fake_openai, rig):
    r = rig()
    resp = fixture_responses("llamacpp_parallel_calls_cut")[0]
    msg = resp["json"]["choices"][0]["message"]
    assert resp["json"]["choices"][0]["finish_reason"] == "length" and len(msg["tool_calls"]) == 2
    fake_openai.push(resp, submit())
    out = LLMAgent(agent_config(fake_openai.url, max_tokens=64)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    ran = r.types("tool_call")
    assert len(r.types("execution")) == 1 and ran[0].code == "ls -l /home/user/workspace/test.txt"
    tool_msgs = fake_openai.chat_requests()[1]["body"]["messages"][-2:]
    assert "cut off" not in tool_msgs[0]["content"] and "NOT executed" in tool_msgs[1]["content"]
    assert warnings(r, "tool_call_truncated")[0].data["tool"] == "execute_code"


def test_recorded_llama_cpp_truncated_call_not_executed(fake_openai, rig):
    r = rig()
    fake_openai.replay("llamacpp_truncated_tool_call").push(
        completion(tool_calls=[call("submit_results", {})], usage_={"prompt_tokens": 9, "completion_tokens": 5}))
    out = LLMAgent(agent_config(fake_openai.url, max_tokens=14)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    assert r.types("execution") == [] and len(warnings(r, "tool_call_truncated")) == 1


# ---- bullet 3: format failures are trace events and error codes ------------------------------

def test_recorded_text_only_reply_is_traced_and_fires_a_code(fake_openai, rig):
    r = rig()
    text = fixture_responses("llamacpp_text_only_reply")[0]
    fake_openai.push(text, {**text}, completion("still no tool"))
    out = LLMAgent(agent_config(fake_openai.url, max_continuations=1, nudges=1)).run("s", r.context, r.tools)
    assert out.end_reason == "agent_finished"
    replies = warnings(r, "text_reply")
    assert len(replies) == 3 and replies[0].data["finish_reason"] == "length"
    assert replies[0].message.startswith("List the files in the current directory")
    assert len(warnings(r, "continue_prompt")) == 1 and len(warnings(r, "nudge")) == 1
    fired = codes(r, out.end_reason)
    code = fired["TOOL_CALL_TEXT_ONLY"]
    assert code.step == "S1" and code.category == "deliverable/submission"
    assert code.evidence["excerpt"].startswith("List the files") or code.evidence["excerpt"] == "still no tool"
    assert "NOT_SUBMITTED" in fired


def test_fenced_json_rejected_recovered_and_unknown_tool(fake_openai, rig):
    r = rig()
    fake_openai.replay("fenced_json_calls")
    out = LLMAgent(agent_config(fake_openai.url, nudges=2)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    assert not (r.workspace / "triple.txt").exists()                   # triple-quoted: not JSON, not run
    assert (r.workspace / "fenced.txt").read_text().strip() == "fenced"  # valid fenced call to a real tool
    reqs = fake_openai.chat_requests()
    told = reqs[1]["body"]["messages"][-1]
    assert told["role"] == "user" and "triple-quoted" in told["content"] and "NOT executed" in told["content"]
    told2 = reqs[3]["body"]["messages"][-1]["content"]
    assert "'list_files' is not a tool" in told2
    rejected = warnings(r, "tool_call_rejected")
    assert [e.data["tool"] for e in rejected] == ["execute_code", "list_files"]
    assert warnings(r, "text_tool_call_recovered")[0].data["forms"] == ["fenced_json"]
    fired = codes(r, out.end_reason, submitted=True)
    assert fired["TOOL_CALL_REJECTED"].evidence["count"] == 2 and "TOOL_CALL_TEXT_ONLY" not in fired
    assert '"""' in fired["TOOL_CALL_REJECTED"].evidence["excerpt"]


def test_bare_json_in_prose_is_recorded_as_rejected(fake_openai, rig):
    r = rig()
    fake_openai.push(completion('Run this: {"name": "execute_code", "arguments": {"language": "bash", "code": "ls"}}'),
                     submit())
    LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert r.types("execution") == []
    assert warnings(r, "tool_call_rejected")[0].data["form"] == "text"
    assert "never executed" in fake_openai.chat_requests()[1]["body"]["messages"][-1]["content"]


def test_stage_of_a_format_failure_is_the_stage_the_run_was_in(fake_openai, rig):
    r = rig()
    fake_openai.push(completion(tool_calls=[ex("bash", "# S3\necho pilot")]), completion("Pilot looks fine."), submit())
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert codes(r, out.end_reason, submitted=True)["TOOL_CALL_TEXT_ONLY"].step == "S3"


# ---- servers written from documentation ---------------------------------------------------------

def test_vllm_hermes_parsed_unparsed_and_text_calls(fake_openai, rig):
    r = rig()
    fake_openai.replay("vllm_hermes")
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    assert (r.workspace / "listing.txt").exists() and (r.workspace / "hermes.txt").exists()
    assert warnings(r, "tool_call_rejected")[0].data["tool"] == "run_shell"     # not a real tool: not run
    assert warnings(r, "text_tool_call_recovered")[0].data["forms"] == ["tool_call_json"]
    for req in fake_openai.chat_requests():
        for m in req["body"]["messages"]:
            assert not (m["role"] == "assistant" and m.get("content") is None)


@pytest.mark.parametrize("fixture,written", [("sglang_qwen25", "sglang.txt"), ("ollama_openai", "ollama.txt")])
def test_sglang_and_ollama_tool_calls(fake_openai, rig, fixture, written):
    r = rig()
    fake_openai.replay(fixture)
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted" and (r.workspace / written).exists()
    # tool results answer every call id the server gave
    msgs = fake_openai.chat_requests()[1]["body"]["messages"]
    ids = [c["id"] for c in msgs[-1 - len([m for m in msgs if m["role"] == "tool"])]["tool_calls"]]
    assert [m["tool_call_id"] for m in msgs if m["role"] == "tool"] == ids


def test_fixtures_say_whether_they_were_recorded():
    for path in sorted(Path(__file__).with_name("fixtures").glob("*.json")):
        fx = json.loads(path.read_text())
        assert fx["server"] and fx["exchanges"], path.name
        assert ("RECORDED" in fx["notes"]) != ("NOT recorded" in fx["server"]), path.name


def test_recorded_lite_run_replays_to_the_same_trace(fake_openai, rig):
    """The exchanges of the opt-in real-server run (tests/llm/test_realserver.py), replayed."""
    r = rig()
    fx = load_fixture("llamacpp_lite_run")
    fake_openai.replay(fx)
    out = LLMAgent(agent_config(fake_openai.url, max_tokens=96, nudges=2, limits={"max_turns": 4})
                   ).run("s", r.context, r.tools)
    assert out.end_reason == "max_turns"
    usage = [ex["response"]["json"]["usage"] for ex in fx["exchanges"]]
    assert [(c.tokens_in, c.tokens_out) for c in r.types("model_call")] == \
        [(u["prompt_tokens"], u["completion_tokens"]) for u in usage]
    assert len(warnings(r, "text_reply")) == 4 and len(warnings(r, "continue_prompt")) == 3
    assert len(warnings(r, "nudge")) == 1
    assert "TOOL_CALL_TEXT_ONLY" in codes(r, out.end_reason)


def test_tool_results_as_user_for_servers_that_drop_tool_messages(fake_openai, rig):
    """llama-cpp-python's chatml-function-calling drops role:tool messages from the prompt;
    `tool_results_as: user` carries the results in a user message instead."""
    r = rig()
    fake_openai.push(completion(tool_calls=[ex("bash", "echo seen-by-model"), ex("bash", "echo second")]), submit())
    out = LLMAgent(agent_config(fake_openai.url, tool_results_as="user")).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    sent = fake_openai.chat_requests()[1]["body"]["messages"]
    assert all(m["role"] != "tool" for m in sent)
    assert sent[-1]["role"] == "user" and "seen-by-model" in sent[-1]["content"] and "second" in sent[-1]["content"]
