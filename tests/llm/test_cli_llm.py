"""The CLI with an LLM agent and an LLM judge, as a user runs it (real subprocess, the
fake server on loopback)."""
import json
from pathlib import Path

from tests.helpers import amb

from .fake_openai import completion
from .scripted_llm import VERDICT, agent_script, write_agents_yaml


def test_cli_run_and_rejudge_with_llm(fake_openai, tiny):
    env, tmp = tiny
    cfg = write_agents_yaml(tmp / "agents.yaml", fake_openai.url)
    data_dir = str((tmp / "data" / "tiny-lesion" / "public").resolve())
    fake_openai.push(*agent_script(data_dir), completion(json.dumps(VERDICT)))
    proc = amb("run", "--task", "tiny-seg", "--tier", "lite", "--agent", "fake-agent", "--agent-config", cfg,
               "--judge", "fake-judge", "--sandbox", "local", "--out", tmp / "runs", env=env)
    run_dir = proc.stdout.strip().splitlines()[-1]
    report = json.loads((Path(run_dir) / "detail_report.json").read_text())
    assert report["run"]["end_reason"] == "submitted"
    assert report["judge"]["backend"] == "llm" and report["stages"]["s3"]["score"] == 0.5
    n = len(fake_openai.chat_requests())
    assert n == 6
    amb("judge", run_dir, "--judge", "fake-judge", "--agent-config", cfg, env=env)
    assert len(fake_openai.chat_requests()) == n            # cached: zero HTTP calls


def test_cli_agents_list_and_bad_config(tmp_path):
    good = write_agents_yaml(tmp_path / "a.yaml", "http://127.0.0.1:9/v1")
    listed = amb("agents", "list", "--agent-config", good, "--json").stdout
    assert "fake-agent" in listed and "gpt-4.1" in listed
    bad = tmp_path / "bad.yaml"
    bad.write_text("agents:\n  - {name: x, model: m, base_url: 'http://h/v1', api_key: sk-live-123}\n")
    proc = amb("agents", "list", "--agent-config", bad, check=False)
    assert proc.returncode != 0 and "api_key_env" in proc.stderr and "Traceback" not in proc.stderr
    assert "sk-live-123" not in proc.stderr + proc.stdout


def test_llm_agent_without_its_key_is_a_user_error_before_any_call(fake_openai, tiny):
    """docs/faults.md: an unset api_key_env used to run, print nothing and score F."""
    env, tmp = tiny
    cfg = tmp / "keyed.yaml"
    cfg.write_text(f"""agents:
  - name: keyed-agent
    model: m
    base_url: {fake_openai.url}
    api_key_env: AMB_TEST_UNSET_KEY
""")
    out = tmp / "runs"
    proc = amb("run", "--task", "tiny-seg", "--agent", "keyed-agent", "--agent-config", cfg, "--sandbox", "local",
               "--out", out, env={**env, "AMB_TEST_UNSET_KEY": ""}, check=False)
    assert proc.returncode == 2 and "AMB_TEST_UNSET_KEY" in proc.stderr and "keyed-agent" in proc.stderr
    assert len([line for line in proc.stderr.splitlines() if line.strip()]) == 1 and "Traceback" not in proc.stderr
    assert fake_openai.chat_requests() == [] and not out.exists()
