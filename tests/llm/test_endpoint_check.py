"""`agents check` and endpoint errors a person can act on (docs/llm.md "Checking an endpoint").
Loopback only: the fake OpenAI server, and a closed loopback port for "refused"."""
from __future__ import annotations

import json
import os
import socket

import pytest

from automedbench.llm.check import EndpointConfigError, check_endpoint, preflight
from automedbench.llm.client import ChatClient, ProviderError
from tests.cli_forkserver import run_cli

from .scripted_llm import agent_config
from .fake_openai import call, completion


def amb(*args):
    """The CLI as a user runs it (a process of its own: stdout and stderr as printed)."""
    proc = run_cli(args, timeout=120)
    proc.output = proc.stdout + proc.stderr
    proc.exit_code = proc.returncode
    return proc


def closed_port() -> int:
    """A loopback port nothing listens on: bound, then closed."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _entries(tmp_path, **entries) -> str:
    path = tmp_path / "agents.yaml"
    path.write_text("agents:\n" + "".join(
        f"  - name: {n}\n    model: {m}\n    base_url: {u}\n    timeout_s: 5\n"
        "    retry: {max_retries: 0, backoff_base_s: 0.01, backoff_max_s: 0.02}\n"
        for n, (m, u) in entries.items()))
    return str(path)


def test_check_reports_model_tool_calls_and_latency(fake_openai, tmp_path):
    fake_openai.script_checks = True
    fake_openai.push(completion("ok", model="served-model-7b"),
                     completion(tool_calls=[call("report_number", {"value": 7})]))
    cfg = _entries(tmp_path, mine=("fake-model", fake_openai.url))
    res = amb(*["agents", "check", "mine", "--agent-config", cfg])
    assert res.exit_code == 0, res.output
    assert "ok mine:" in res.output and "reachable" in res.output and "'served-model-7b'" in res.output
    assert "tool calling: yes" in res.output and " s;" in res.output
    tool_req = fake_openai.chat_requests()[1]["body"]
    assert tool_req["tools"][0]["function"]["name"] == "report_number"


def test_text_only_model_is_reported_as_no_tool_calls(fake_openai):
    fake_openai.script_checks = True
    fake_openai.push(completion("ok"), completion("I would call report_number(7)"))
    res = check_endpoint(agent_config(fake_openai.url))
    assert res.ok and res.tool_calls is False and "text" in res.notes[0]


def test_refused_connection_is_a_configuration_error_with_a_hint(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    res = check_endpoint(agent_config(url))
    assert not res.reachable and res.config_error
    assert url in res.error and "connection refused: is the server running" in res.hint
    cfg = _entries(tmp_path, nothere=("m", url))
    out = amb(*["agents", "check", "nothere", "--agent-config", cfg])
    assert out.exit_code == 2 and "connection refused" in out.output and url in out.output


def test_missing_v1_is_a_404_with_the_hint(fake_openai):
    res = check_endpoint(agent_config(fake_openai.url.removesuffix("/v1")))
    assert res.config_error and res.status == 404 and "HTTP 404" in res.error
    assert "does base_url end in /v1 (it does not)?" in res.hint


def test_unknown_model_names_what_the_server_serves(fake_openai):
    fake_openai.models = ["qwen2.5-coder-7b", "llama-3.1-8b"]
    res = check_endpoint(agent_config(fake_openai.url, model="qwen-coder"))
    assert res.config_error and "does not exist" in res.error
    assert "does not serve model 'qwen-coder'; the server serves: qwen2.5-coder-7b, llama-3.1-8b" in res.hint
    with pytest.raises(EndpointConfigError, match="agents check"):
        preflight([agent_config(fake_openai.url, model="qwen-coder")])


def test_401_names_the_key_variable(fake_openai, monkeypatch):
    from .fake_openai import error
    monkeypatch.setenv("MY_TEST_KEY", "sk-secret-value-123")
    fake_openai.script_checks = True
    fake_openai.push(error(401, "invalid api key sk-secret-value-123"))
    res = check_endpoint(agent_config(fake_openai.url, api_key_env="MY_TEST_KEY"))
    assert res.config_error and "MY_TEST_KEY" in res.hint and "sk-secret-value-123" not in res.error


def test_a_5xx_is_not_a_configuration_error(fake_openai):
    fake_openai.script_checks = True
    assert preflight([agent_config(fake_openai.url)])[0].ok is False   # the default 500: reported, not raised


def test_run_time_errors_carry_url_status_and_hint(fake_openai):
    fake_openai.models = ["other"]
    client = ChatClient(agent_config(fake_openai.url))
    with pytest.raises(ProviderError) as exc:
        client.complete([{"role": "user", "content": "hi"}])
    msg = exc.value.message
    assert f"POST {fake_openai.url}/chat/completions: HTTP 404" in msg and "does not serve model 'fake-model'" in msg
    refused = ChatClient(agent_config(f"http://127.0.0.1:{closed_port()}/v1", retry={"max_retries": 0}))
    with pytest.raises(ProviderError) as exc:
        refused.complete([{"role": "user", "content": "hi"}])
    assert "connection refused: is the server running" in exc.value.message


def test_json_output(fake_openai, tmp_path):
    fake_openai.script_checks = True
    fake_openai.push(completion("ok"), completion(tool_calls=[call("report_number", {"value": 7})]))
    cfg = _entries(tmp_path, mine=("fake-model", fake_openai.url))
    res = amb(*["agents", "check", "mine", "--agent-config", cfg, "--json"])
    assert res.exit_code == 0 and json.loads(res.output)[0]["tool_calls"] is True


def test_cli_run_prints_url_status_and_hint_when_the_endpoint_fails_mid_run(fake_openai, tmp_path, my_tasks_dir,
                                                                              cls_folder):
    """The check passes (the server answers it), then the run's requests get a 503: `run` exits 1
    and prints the trace's message: the URL, the status, the body and a hint."""
    from .fake_openai import error
    env = {"AUTOMEDBENCH_DATA": str(tmp_path / "data")}
    fake_openai.default = error(503, "upstream overloaded")
    cfg = _entries(tmp_path, mine=("fake-model", fake_openai.url))
    for args in (["data", "stage", "my-cls-data", "--from-folder", cls_folder, "--task", "my-cls"],
                 ["run", "--task", "my-cls", "--agent", "mine", "--agent-config", cfg, "--sandbox", "local",
                  "--out", tmp_path / "runs"]):
        proc = run_cli([*args, "--tasks-dir", str(my_tasks_dir)], env={**os.environ, **env}, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert f"POST {fake_openai.url}/chat/completions: gave up after 1 attempts; last: HTTP 503" in proc.stderr
    assert "upstream overloaded" in proc.stderr and "the server failed" in proc.stderr


def test_check_of_a_scripted_agent_says_there_is_nothing_to_check():
    proc = amb("agents", "check", "reference")
    assert proc.exit_code == 0 and "reference: a scripted agent (no endpoint to check)" in proc.stdout


def test_a_base_url_ending_in_chat_completions_gets_the_url_to_set(fake_openai):
    """The client appends /chat/completions; a base_url copied with it says which URL to set
    (a real server answers .../chat/completions/chat/completions with 404)."""
    from .fake_openai import error
    fake_openai.script_checks = True
    fake_openai.push(error(404, "Not Found"))
    res = check_endpoint(agent_config(fake_openai.url + "/chat/completions"))
    assert res.config_error
    assert f"ends in /chat/completions, which the client adds itself: set base_url to {fake_openai.url}" in res.hint


def test_the_preflight_hint_names_the_agents_to_check(fake_openai):
    fake_openai.models = ["fake-model"]
    with pytest.raises(EndpointConfigError) as exc:
        preflight([agent_config(fake_openai.url, model="qwen-coder", name="my-qwen")])
    assert "(check with `automedbench agents check my-qwen`)" in str(exc.value) and " NAME`" not in str(exc.value)
