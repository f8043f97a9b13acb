"""No self-judging (docs/judge.md): a judge whose model is the agent's model is a user error
before any turn, unless --allow-self-judge; the report names both models."""
import json
from pathlib import Path

from tests.helpers import amb

from .fake_openai import completion
from .scripted_llm import VERDICT, agent_script


def registry(path, url):
    path.write_text(f"""agents:
  - name: fake-agent
    model: same-model
    base_url: {url}
    retry: {{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}}
  - name: twin-judge
    model: Provider/SAME-model
    base_url: {url}
    retry: {{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}}
""")
    return path


def test_self_judge_is_a_user_error_before_any_turn(fake_openai, tiny):
    env, tmp = tiny
    cfg = registry(tmp / "agents.yaml", fake_openai.url)
    out = tmp / "runs"
    for judges in (["twin-judge"], ["heuristic", "twin-judge"]):   # alone, or inside a panel
        args = [a for j in judges for a in ("--judge", j)]
        proc = amb("run", "--task", "tiny-seg", "--agent", "fake-agent", "--agent-config", cfg, *args,
                   "--sandbox", "local", "--out", out, env=env, check=False)
        assert proc.returncode == 2, proc.stderr
        assert "same-model" in proc.stderr.lower() and "--allow-self-judge" in proc.stderr
        assert "Traceback" not in proc.stderr
    assert fake_openai.chat_requests() == [] and not out.exists()


def test_allow_self_judge_runs_and_names_both_models(fake_openai, tiny):
    env, tmp = tiny
    cfg = registry(tmp / "agents.yaml", fake_openai.url)
    data_dir = str((tmp / "data" / "tiny-lesion" / "public").resolve())
    fake_openai.push(*agent_script(data_dir), completion(json.dumps(VERDICT)))
    proc = amb("run", "--task", "tiny-seg", "--tier", "lite", "--agent", "fake-agent", "--agent-config", cfg,
               "--judge", "twin-judge", "--allow-self-judge", "--sandbox", "local", "--out", tmp / "runs", env=env)
    run_dir = Path(proc.stdout.strip().splitlines()[-1])
    report = json.loads((run_dir / "detail_report.json").read_text())
    assert report["run"]["model"] == "same-model" and report["judge"]["model"] == "Provider/SAME-model"
    # re-judging the saved run with the agent's own model is refused the same way, before any call
    n = len(fake_openai.chat_requests())
    again = amb("judge", run_dir, "--judge", "twin-judge", "--agent-config", cfg, env=env, check=False)
    assert again.returncode == 2 and "--allow-self-judge" in again.stderr and "Traceback" not in again.stderr
    assert len(fake_openai.chat_requests()) == n
