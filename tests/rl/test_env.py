"""The RL environment (docs/rl.md) on the real bwrap sandbox: reset/step, the same scores as `run`
and `automedbench score`, limits, infrastructure ends, many episodes at once."""
import asyncio
import json
import time

import pytest

from automedbench import api
from automedbench.export import inspect_log
from automedbench.report.collect import collect_reports
from automedbench.rl import AsyncMedEnv, MedEnv, OpenAIPolicy, RewardComponents, RunEndedError, Usage, play
from automedbench.run_files import RunFiles
from tests.helpers import amb
from tests.llm.fake_openai import call
from tests.llm.scripted_llm import agent_script, write_agents_yaml

from .conftest import needs_bwrap
from .policies import DATA, ReplayPolicy, looks_and_submits, scripted_llm_messages

pytestmark = [needs_bwrap, pytest.mark.slow, pytest.mark.filterwarnings("ignore::RuntimeWarning")]
TASK, TIER = "brain-lesion-seg", "lite"


def _same(a: RewardComponents, b: RewardComponents) -> None:
    assert a.model_dump(exclude={"run_dir"}) == b.model_dump(exclude={"run_dir"})


def test_reset_and_step_return_the_documented_shapes(options, tmp_path):
    env = MedEnv(TASK, TIER, out_dir=tmp_path / "eps", options=options)
    obs = env.reset(seed=7)
    assert [m["role"] for m in obs.messages] == ["system", "user"]
    assert "/workspace" in obs.messages[0]["content"] and obs.messages[1]["content"]
    assert {t["function"]["name"] for t in obs.tools} == {"execute_code", "submit_results"}
    meta = json.loads(RunFiles(obs.run_dir).meta.read_text())
    assert meta["episode"]["seed"] == 7 and meta["episode"]["episode_id"] == obs.episode_id
    assert meta["run"]["agent"] == "external" and obs.info["seed"] == 7 and obs.info["data_dir"] == DATA
    assert meta["run"]["scaffold"] == "external"    # the caller's policy drives it (docs/agents.md "Scaffold and model")

    text = env.step({"role": "assistant", "content": "Let me look first."})
    assert not text.done and text.reward is None and text.components is None
    (nudge,) = text.tool_messages     # nudged, as `run` nudges its model (the one loop)
    assert nudge["role"] == "user" and "without calling a tool" in nudge["content"]
    c = call("execute_code", {"language": "bash", "code": "# S1\necho hello-from-sandbox; ls /data/public"})
    step = env.step({"role": "assistant", "content": "", "tool_calls": [c]}, Usage(tokens_in=10, tokens_out=5))
    assert not step.done and step.info["turn"] == 2 and step.info["stage"] == "s1"
    (msg,) = step.tool_messages
    assert msg["role"] == "tool" and msg["tool_call_id"] == c["id"] and "hello-from-sandbox" in msg["content"]
    assert "case_001" in msg["content"]
    assert [m["role"] for m in env.messages] == ["system", "user", "assistant", "user", "assistant", "tool"]

    final = env.close()
    assert final is not None and final.done and final.info["end_reason"] == "agent_finished"
    assert final.components is not None and not final.components.infra
    assert final.reward == final.components.overall and final.reward is not None
    with pytest.raises(RunEndedError):
        env.step({"role": "assistant", "content": "more"})
    conv = json.loads(RunFiles(obs.run_dir).conversation.read_text())
    assert conv["system_prompt"] == obs.messages[0]["content"]      # what the model saw is what was recorded
    report = json.loads(RunFiles(obs.run_dir).report.read_text())
    assert report["run"]["tokens_in"] == 10 and report["run"]["turns"] == 2
    second = env.reset(seed=8)
    assert second.run_dir != obs.run_dir and second.episode_id != obs.episode_id
    env.close()
    # normal run folders: the site's collection finds both, the export writes an Inspect log
    found = collect_reports([tmp_path / "eps"])
    assert sorted(r.run.run_id for r in found) == sorted([obs.episode_id, second.episode_id]) and not found.warnings
    log = inspect_log(obs.run_dir)
    assert log["results"]["scores"][0]["metrics"]["overall"]["value"] == final.reward


def test_a_trajectory_scores_as_through_run_and_as_automedbench_score(fake_openai, options, tmp_path):
    """The same assistant messages through `run` (our LLM agent asking the loopback server) and
    through MedEnv.step: equal components; `automedbench score` of the episode's folder agrees."""
    cfg = write_agents_yaml(tmp_path / "agents.yaml", fake_openai.url)
    opts = options.model_copy(update={"agent_configs": [str(cfg)]})
    replies = agent_script(DATA)
    fake_openai.push(*replies)
    inside = api.run_one(TASK, TIER, "fake-agent", options=opts, run_dir=tmp_path / "inside")
    assert inside.run.end_reason == "submitted" and inside.overall is not None

    env = MedEnv(TASK, TIER, out_dir=tmp_path / "eps", options=opts, model="fake-coder")
    obs = env.reset(seed=0)
    for reply in replies:
        body = reply["json"]
        step = env.step(body["choices"][0]["message"],
                        Usage(tokens_in=body["usage"]["prompt_tokens"], tokens_out=body["usage"]["completion_tokens"]))
    assert step.done and step.info["end_reason"] == "submitted" and not step.truncated
    _same(step.components, RewardComponents.from_report(inside))
    assert step.reward == inside.overall
    assert step.tool_messages[0]["content"].startswith("Submission received")

    saved = RewardComponents.from_run_dir(obs.run_dir)
    amb("score", obs.run_dir)            # re-scored from the folder alone, by the CLI
    _same(RewardComponents.from_run_dir(obs.run_dir), saved)
    _same(saved, step.components)


def test_the_turn_limit_ends_the_episode_truncated(options, tmp_path):
    env = MedEnv(TASK, TIER, out_dir=tmp_path, options=options, max_turns=2)
    obs = env.reset()
    assert obs.info["limits"]["max_turns"] == 2
    ls = {"role": "assistant", "content": "", "tool_calls": [call("execute_code", {"language": "bash", "code": "ls"})]}
    assert not env.step(ls).done
    last = env.step(ls)     # the second turn reaches the limit: the episode ends after it
    assert last.done and last.truncated and last.info["end_reason"] == "max_turns"
    with pytest.raises(RunEndedError):
        env.step({"role": "assistant", "content": "", "tool_calls": [call("submit_results", {})]})
    assert last.reward is not None and "BUDGET_EXHAUSTED" in last.components.error_codes
    assert json.loads(RunFiles(obs.run_dir).meta.read_text())["limits"]["max_turns"] == 2


def test_a_sandbox_that_cannot_start_is_an_infra_episode(options, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMEDBENCH_AGENT_RUNTIME", str(tmp_path / "no-such-runtime"))
    env = MedEnv(TASK, TIER, out_dir=tmp_path, options=options)
    obs = env.reset(seed=1)
    assert obs.done and obs.messages == [] and obs.final is not None
    c = obs.final.components
    assert obs.final.reward is None and c.infra and c.end_reason == "infra_error"
    assert c.end_detail == "sandbox_start_failed" and "INFRA_SANDBOX" in c.error_codes and c.overall is None
    with pytest.raises(RunEndedError):
        env.step({"role": "assistant", "content": "hi"})
    assert RewardComponents.from_run_dir(obs.run_dir).infra


def test_a_provider_outage_is_an_infra_episode_never_reward_0(fake_openai, options, tmp_path):
    """The policy's endpoint answers once, then only HTTP 500: after the client's retries the
    episode ends as infrastructure (the server's queue is empty: it serves 500s)."""
    plan = [r for r in agent_script(DATA)][:1]
    fake_openai.push(*plan)
    policy = OpenAIPolicy(fake_openai.url, "fake-model", max_retries=1, timeout_s=5,
                          retry={"backoff_base_s": 0.01, "backoff_max_s": 0.02})
    env = MedEnv(TASK, TIER, out_dir=tmp_path, options=options, model="fake-model")
    comp = play(env, policy, seed=3)
    assert comp is not None and comp.infra and env.final is not None and env.final.reward is None
    assert comp.end_reason == "infra_error" and comp.end_detail == "provider_unavailable"
    assert "INFRA_PROVIDER" in comp.error_codes and comp.overall is None
    run_dir = RunFiles(comp.run_dir)
    assert (run_dir.workspace / "plan" / "plan.md").is_file()      # the first step did run
    trace = [json.loads(line) for line in run_dir.trace.read_text().splitlines()]
    assert any(e["type"] == "error" and e.get("kind") == "infrastructure" for e in trace)
    assert len([r for r in fake_openai.requests if r["path"].endswith("/chat/completions")]) == 3


def test_four_episodes_at_once_with_asyncio_gather(options, tmp_path):
    scripts = [scripted_llm_messages(), looks_and_submits()]

    async def episode(seed: int):
        policy = ReplayPolicy(scripts).for_seed(seed)
        env = await AsyncMedEnv.create(TASK, TIER, out_dir=tmp_path, options=options)
        t0 = time.monotonic()
        obs = await env.reset(seed=seed)
        while True:
            step = await env.step(policy(env.env.messages, obs.tools))
            if step.done:
                return obs.run_dir, step, t0, time.monotonic()

    async def main():
        return await asyncio.gather(*(episode(s) for s in range(4)))

    done = asyncio.run(main())
    assert len({d[0] for d in done}) == 4
    rewards = [d[1].reward for d in done]
    assert all(r is not None for r in rewards) and rewards[0] == rewards[2] and rewards[1] == rewards[3]
    assert rewards[0] > rewards[1]            # the worked trajectory beats looking and submitting
    for run_dir, step, *_ in done:
        _same(RewardComponents.from_run_dir(run_dir), step.components)
    # they ran at once: every episode started before any ended
    assert max(d[2] for d in done) < min(d[3] for d in done)
