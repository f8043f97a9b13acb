"""The LLM agent loop against a real loopback HTTP server (no client mocks)."""
import json
import time

import pytest

from automedbench.agents.llm import LLMAgent

from .scripted_llm import agent_config
from .fake_openai import call, completion, error, usage

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def ex(lang, code, **kw):
    return call("execute_code", {"language": lang, "code": code}, **kw)


def submit():
    return completion(tool_calls=[call("submit_results", {})])


def test_full_run_writes_files_and_submits(fake_openai, rig):
    r = rig()
    fake_openai.push(
        completion("I will look at the data first.", [ex("bash", "# S1\nls $0; ls ../public 2>/dev/null; pwd")]),
        completion(tool_calls=[ex("python", "# S3\nopen('out.txt','w').write('segmented')\nprint('wrote')")]),
        completion(tool_calls=[ex("bash", "# S5\ncat out.txt")]),
        submit(),
    )
    out = LLMAgent(agent_config(fake_openai.url)).run("You are a test agent.", r.context, r.tools)
    assert out.end_reason == "submitted" and out.model == "fake-model"
    assert (r.workspace / "out.txt").read_text() == "segmented"
    reqs = fake_openai.chat_requests()
    assert len(reqs) == 4
    first = reqs[0]["body"]
    assert first["model"] == "fake-model"
    assert first["messages"][0] == {"role": "system", "content": "You are a test agent."}
    assert first["messages"][1] == {"role": "user", "content": "Begin the task."}
    assert {t["function"]["name"] for t in first["tools"]} == {"execute_code", "submit_results"}
    # the tool result of call 2 is fed back in request 3
    third = reqs[2]["body"]["messages"]
    assert third[-1]["role"] == "tool" and "wrote" in third[-1]["content"]
    assert third[-2]["tool_calls"][0]["function"]["name"] == "execute_code"
    assert r.tools.submitted and r.tools.turns == 4
    roles = [m.role for m in r.conversation.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant", "tool"]
    stages = [e.stage for e in r.types("execution")]
    assert stages == ["s1", "s3", "s5"]
    assert len(r.types("model_call")) == 4 and len(r.types("submit")) == 1


def _forever(req):
    return completion(tool_calls=[ex("bash", "echo again")], usage_=usage(100, 20))


def test_max_turns_from_config(fake_openai, rig):
    r = rig()
    fake_openai.default = _forever
    out = LLMAgent(agent_config(fake_openai.url, limits={"max_turns": 3})).run("s", r.context, r.tools)
    assert out.end_reason == "max_turns" and len(fake_openai.chat_requests()) == 3


def test_max_turns_from_toolbox(fake_openai, rig):
    r = rig(max_turns=2)
    fake_openai.default = _forever
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "max_turns" and len(fake_openai.chat_requests()) == 2


def test_max_total_tokens(fake_openai, rig):
    r = rig()
    fake_openai.default = _forever          # 120 tokens per call
    out = LLMAgent(agent_config(fake_openai.url, limits={"max_total_tokens": 250})).run("s", r.context, r.tools)
    assert out.end_reason == "max_tokens"
    assert len(fake_openai.chat_requests()) == 3       # 120, 240 (<250), 360 -> stop
    assert r.tools.tokens_in == 300 and r.tools.tokens_out == 60


def test_max_cost_and_cost_accounting(fake_openai, rig):
    r = rig()
    # per call: (1000-200)*2.0 + 200*0.5 + 500*8.0 = 1600 + 100 + 4000 = 5700 µUSD = 0.0057 USD
    fake_openai.default = lambda req: completion(tool_calls=[ex("bash", "true")], usage_=usage(1000, 500, cached=200))
    out = LLMAgent(agent_config(fake_openai.url, limits={"max_cost_usd": 0.01})).run("s", r.context, r.tools)
    assert out.end_reason == "max_cost"
    assert len(fake_openai.chat_requests()) == 2
    assert r.tools.cost_usd == pytest.approx(0.0114, abs=1e-12)
    calls = r.types("model_call")
    assert [c.cost_usd for c in calls] == [pytest.approx(0.0057)] * 2
    assert [c.tokens_cached for c in calls] == [200, 200]


def test_cost_without_cached_price_uses_input_price(fake_openai, rig):
    r = rig()
    fake_openai.push(completion(tool_calls=[call("submit_results")], usage_=usage(3000, 1000, cached=1000)))
    cfg = agent_config(fake_openai.url, pricing={"input_per_mtok": 3.0, "output_per_mtok": 15.0,
                                                 "cached_input_per_mtok": None})
    LLMAgent(cfg).run("s", r.context, r.tools)
    assert r.tools.cost_usd == pytest.approx((3000 * 3.0 + 1000 * 15.0) / 1e6)   # 0.024


def test_wall_time_while_model_hangs(fake_openai, rig):
    r = rig()
    fake_openai.push({"hang": 5, **submit()})
    t0 = time.monotonic()
    out = LLMAgent(agent_config(fake_openai.url, timeout_s=30, limits={"wall_time_s": 1.0})).run("s", r.context, r.tools)
    assert out.end_reason == "wall_time"
    assert time.monotonic() - t0 < 3.5


def test_wall_time_during_execution(fake_openai, rig):
    r = rig(wall_s=1.5)
    fake_openai.default = lambda req: completion(tool_calls=[ex("bash", "sleep 10")])
    t0 = time.monotonic()
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "wall_time" and time.monotonic() - t0 < 5


def test_retries_429_retry_after_500_bad_bodies(fake_openai, rig):
    r = rig()
    fake_openai.push(
        error(429, "slow down", headers={"Retry-After": "0.3"}),
        error(503, "overloaded"),
        {"status": 200, "body": "<html>gateway</html>"},
        {"status": 200, "body": ""},
        {"status": 200, "json": {"error": "oops"}},
        submit(),
    )
    cfg = agent_config(fake_openai.url, retry={"max_retries": 5})
    out = LLMAgent(cfg).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    reqs = fake_openai.chat_requests()
    assert len(reqs) == 6
    assert reqs[1]["t"] - reqs[0]["t"] >= 0.3          # Retry-After honoured
    retries = [e for e in r.types("warning") if e.kind == "provider_retry"]
    assert [e.data["status"] for e in retries] == [429, 503, 200, 200, 200]
    assert retries[0].data["retry_after"] == pytest.approx(0.3)
    assert all(e.data["delay_s"] <= 0.05 for e in retries[1:])      # backoff_max_s
    assert r.types("model_call")[0].data["attempts"] == 6


def test_timeout_is_retried(fake_openai, rig):
    r = rig()
    fake_openai.push({"hang": 1.5, **submit()}, submit())
    out = LLMAgent(agent_config(fake_openai.url, timeout_s=0.4)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted" and len(fake_openai.chat_requests()) == 2


def test_no_retry_on_400(fake_openai, rig):
    r = rig()
    fake_openai.push(error(400, "bad request: unknown parameter"), submit())
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "provider_error" and len(fake_openai.chat_requests()) == 1
    errs = r.types("error")
    assert errs and errs[0].kind == "infrastructure" and "400" in errs[0].message


def test_provider_unavailable_after_retries(fake_openai, rig):
    r = rig()
    out = LLMAgent(agent_config(fake_openai.url, retry={"max_retries": 2})).run("s", r.context, r.tools)
    assert out.end_reason == "provider_unavailable"
    assert len(fake_openai.chat_requests()) == 3
    errs = [e for e in r.types("error") if e.kind == "infrastructure"]
    assert len(errs) == 1 and errs[0].data["reason"] == "provider_unavailable"


def test_connection_refused_is_unavailable(rig):
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    r = rig()
    out = LLMAgent(agent_config(f"http://127.0.0.1:{port}/v1", retry={"max_retries": 1})).run("s", r.context, r.tools)
    assert out.end_reason == "provider_unavailable"


HERMES = ('Listing.\n<tool_call>\n{"name": "execute_code", "arguments": {"language": "bash", '
          '"code": "echo hermes > h.txt"}}\n</tool_call>')
FUNCTION = ("<tool_call>\n<function=execute_code>\n<parameter=language>\npython\n</parameter>\n"
            "<parameter=code>\nopen('f.txt','w').write('function')\n</parameter>\n</function>\n</tool_call>")
INVOKE = ('<function_calls><invoke name="execute_code"><parameter name="language">bash</parameter>'
          '<parameter name="code">echo invoke > i.txt</parameter></invoke></function_calls>')


@pytest.mark.parametrize("text,fname,form", [(HERMES, "h.txt", "tool_call_json"),
                                             (FUNCTION, "f.txt", "function_tag"),
                                             (INVOKE, "i.txt", "invoke_tag")])
def test_text_embedded_tool_calls(fake_openai, rig, text, fname, form):
    r = rig()
    fake_openai.push(completion(text), completion("<tool_call>{\"name\": \"submit_results\", \"arguments\": {}}</tool_call>"))
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    assert (r.workspace / fname).exists()
    rec = [e for e in r.types("warning") if e.kind == "text_tool_call_recovered"]
    assert rec[0].data["forms"] == [form]
    # the history sent back is well-formed: structured tool_calls + a tool result
    msgs = fake_openai.chat_requests()[1]["body"]["messages"]
    assert msgs[-2]["tool_calls"][0]["function"]["name"] == "execute_code"
    assert msgs[-1]["role"] == "tool" and msgs[-1]["tool_call_id"] == msgs[-2]["tool_calls"][0]["id"]


def test_bare_json_is_not_executed_then_nudge_then_end(fake_openai, rig):
    r = rig()
    bare = '{"name": "execute_code", "arguments": {"language": "bash", "code": "touch bare.txt"}}'
    fake_openai.push(completion(bare), completion("I am done."))
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "agent_finished"
    assert not (r.workspace / "bare.txt").exists()
    reqs = fake_openai.chat_requests()
    assert len(reqs) == 2
    assert reqs[1]["body"]["messages"][-1]["role"] == "user" and "execute_code" in reqs[1]["body"]["messages"][-1]["content"]


def test_nudges_configurable(fake_openai, rig):
    r = rig()
    fake_openai.default = lambda req: completion("thinking...")
    out = LLMAgent(agent_config(fake_openai.url, nudges=3)).run("s", r.context, r.tools)
    assert out.end_reason == "agent_finished" and len(fake_openai.chat_requests()) == 4


def test_malformed_arguments_repaired_and_unrepairable_reported(fake_openai, rig):
    r = rig()
    fake_openai.push(
        completion(tool_calls=[call("execute_code", '{"language": "bash", "code": "echo a\necho b > ab.txt",}')]),
        completion(tool_calls=[call("execute_code", "{{{ not json")]),
        completion(tool_calls=[call("execute_code", "{'language': 'python', 'code': 'print(1)'}")]),
        submit(),
    )
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    assert (r.workspace / "ab.txt").read_text().strip() == "b"
    msgs = fake_openai.chat_requests()[2]["body"]["messages"]
    assert msgs[-1]["role"] == "tool" and msgs[-1]["content"].startswith("error:")
    # repaired arguments are sent back as valid JSON
    json.loads(fake_openai.chat_requests()[1]["body"]["messages"][-2]["tool_calls"][0]["function"]["arguments"])
    kinds = [e.kind for e in r.types("warning")] + [e.kind for e in r.types("error")]
    assert kinds.count("tool_args_repaired") == 2 and "bad_tool_arguments" in kinds
    assert len(r.types("execution")) == 2


def test_bad_language_and_unknown_tool(fake_openai, rig):
    r = rig()
    fake_openai.push(completion(tool_calls=[call("execute_code", {"language": "ruby", "code": "puts 1"}),
                                            call("browse", {"url": "x"})]), submit())
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    msgs = fake_openai.chat_requests()[1]["body"]["messages"]
    assert "language" in msgs[-2]["content"] and "unknown tool" in msgs[-1]["content"]


def test_finish_reason_length_asks_to_continue(fake_openai, rig):
    r = rig()
    fake_openai.push(
        completion("My plan is: first", finish_reason="length"),
        completion(tool_calls=[call("execute_code", '{"language": "bash", "code": "echo trunc > t.txt')],
                   finish_reason="length"),
        submit())
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    reqs = fake_openai.chat_requests()
    assert "cut off" in reqs[1]["body"]["messages"][-1]["content"]
    assert reqs[1]["body"]["messages"][-2] == {"role": "assistant", "content": "My plan is: first"}
    assert not (r.workspace / "t.txt").exists()        # truncated call not executed
    assert "NOT executed" in reqs[2]["body"]["messages"][-1]["content"]


def test_long_tool_output_clipped_for_the_model_full_in_trace(fake_openai, rig):
    r = rig()
    fake_openai.push(completion(tool_calls=[ex("python", "print('x' * 30000 + 'END')")]), submit())
    LLMAgent(agent_config(fake_openai.url, tool_result_chars=2000)).run("s", r.context, r.tools)
    fed = fake_openai.chat_requests()[1]["body"]["messages"][-1]["content"]
    assert len(fed) < 2200 and "elided" in fed and fed.rstrip().endswith("END")
    assert len(r.types("execution")[0].stdout) > 30000


def test_usage_missing_is_estimated(fake_openai, rig):
    r = rig()
    fake_openai.push({**submit(), "json": {**submit()["json"]}})
    fake_openai.queue[0]["json"].pop("usage", None)
    LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    mc = r.types("model_call")[0]
    assert mc.tokens_in > 0 and mc.data["usage_estimated"] is True


SECRET = "sk-test-SUPERSECRET-0123456789abcdef"


def _backends():
    from automedbench.sandbox import available_backends
    return available_backends()      # local today; bwrap/docker are covered once registered


@pytest.mark.parametrize("backend", _backends())
def test_api_key_never_reaches_sandbox_conversation_or_trace(fake_openai, rig, monkeypatch, backend):
    monkeypatch.setenv("AMB_TEST_API_KEY", SECRET)
    from automedbench.sandbox import SandboxError
    try:
        r = rig(backend=backend)
    except SandboxError as exc:
        pytest.skip(f"sandbox {backend} unavailable here: {exc}")
    fake_openai.push(
        completion(tool_calls=[ex("bash", "env; cat /proc/self/environ | tr '\\0' '\\n'")]),
        completion(tool_calls=[ex("python", "import os; print(dict(os.environ))")]),
        submit())
    out = LLMAgent(agent_config(fake_openai.url, api_key_env="AMB_TEST_API_KEY")).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    # the key was really used on the wire ...
    assert fake_openai.chat_requests()[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    # ... and is nowhere the agent or the records can see it
    execs = r.types("execution")
    assert "PATH=" in execs[0].stdout and "AMB_TEST_API_KEY" not in execs[0].stdout
    for e in execs:
        assert SECRET not in (e.stdout or "") + (e.stderr or "")
    assert SECRET not in r.trace_path.read_text()
    assert SECRET not in r.conversation.model_dump_json()
    for req in fake_openai.chat_requests():
        assert SECRET not in json.dumps(req["body"])


def test_missing_key_env_is_provider_error(fake_openai, rig, monkeypatch):
    monkeypatch.delenv("AMB_TEST_API_KEY", raising=False)
    r = rig()
    out = LLMAgent(agent_config(fake_openai.url, api_key_env="AMB_TEST_API_KEY")).run("s", r.context, r.tools)
    assert out.end_reason == "provider_error" and fake_openai.chat_requests() == []
    assert "AMB_TEST_API_KEY" in r.types("error")[0].message


def test_retry_after_parsing_and_backoff():
    import email.utils
    import random
    from automedbench.llm.client import backoff_delay, parse_retry_after
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "150", "retry-after": "9"}) == 0.15
    now = 1_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after({"retry-after": "soon"}) is None and parse_retry_after({}) is None
    rng = random.Random(0)
    for attempt, cap in [(1, 1.0), (2, 2.0), (3, 4.0), (10, 8.0)]:
        d = backoff_delay(attempt, 1.0, 8.0, rng)
        assert cap / 2 <= d <= cap


def test_tool_call_inside_think_is_not_executed(fake_openai, rig):
    r = rig()
    thought = ('<think>I could run <tool_call>{"name": "execute_code", "arguments": {"language": "bash", '
               '"code": "touch thought.txt"}}</tool_call> but first...</think>Let me think more.')
    fake_openai.push(completion(thought),
                     completion('<think>ok</think><tool_call>{"name": "execute_code", "arguments": '
                                '{"language": "bash", "code": "touch real.txt"}}</tool_call>'),
                     submit())
    out = LLMAgent(agent_config(fake_openai.url)).run("s", r.context, r.tools)
    assert out.end_reason == "submitted"
    assert not (r.workspace / "thought.txt").exists() and (r.workspace / "real.txt").exists()
