"""What a trainer must be able to trust of an episode driven from outside (docs/rl.md "Malformed
messages", "Which policy"), on the real bwrap sandbox: a message that is not a message is the
policy's fault (coded, scored; never an infrastructure end with reward None); `tool_calls` that
is not a list of calls is refused with a message and runs nothing; the policy's name, model and
settings are run.json's agent configuration, so two policies get two config hashes (two board
rows) and one policy over many seeds one."""
import json
import math

import pytest

from automedbench.report.aggregate import agent_labels
from automedbench.rl import MedEnv, OpenAIPolicy, group_statistics, play, policy_identity, run_group
from automedbench.run_files import RunFiles
from automedbench.runs.models import DetailReport
from tests.llm.fake_openai import call

from .conftest import needs_bwrap
from .policies import ReplayPolicy, looks_and_submits

TASK, TIER = "brain-lesion-seg", "lite"
LOOK = {"role": "assistant", "content": "",
        "tool_calls": [call("execute_code", {"language": "bash", "code": "# S1\nls /data/public"})]}


def _report(run_dir) -> dict:
    return json.loads(RunFiles(run_dir).report.read_text())


def _is_the_policys_fault(step, run_dir) -> None:
    """Ended by the policy, scored, coded TOOL_CALL_REJECTED (an agent code), no infra code."""
    c = step.components
    assert step.done and c is not None and not c.infra and step.reward is not None and step.reward == c.overall
    assert (c.end_reason, c.end_detail) == ("agent_finished", "malformed_message")
    assert "TOOL_CALL_REJECTED" in c.error_codes and not any(code.startswith("INFRA") for code in c.error_codes)
    (code,) = [e for e in _report(run_dir)["errors"] if e["code"] == "TOOL_CALL_REJECTED"]
    assert not code["infrastructure"] and "not an assistant message" in code["evidence"]["reason"]


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("message", ["submit_results()", [LOOK]], ids=["a string", "a list"])
def test_a_message_that_is_not_a_dict_ends_the_episode_as_the_policys_fault(message, options, tmp_path):
    env = MedEnv(TASK, TIER, out_dir=tmp_path, options=options)
    obs = env.reset(seed=0)
    assert not env.step(LOOK).done                       # one good turn first: it is scored with the rest
    final = env.step(message)
    _is_the_policys_fault(final, obs.run_dir)
    assert final.info["turn"] == 2
    trace = [json.loads(line) for line in RunFiles(obs.run_dir).trace.read_text().splitlines()]
    assert not any(e["type"] == "error" for e in trace)  # no harness or infrastructure fault was recorded


@needs_bwrap
@pytest.mark.slow
def test_a_policy_returning_none_is_the_policys_fault(options, tmp_path):
    env = MedEnv(TASK, TIER, out_dir=tmp_path, options=options)
    components = play(env, lambda messages, tools: None, seed=4)
    assert components is not None and env.final is not None
    _is_the_policys_fault(env.final, components.run_dir)
    (code,) = [e for e in _report(components.run_dir)["errors"] if e["code"] == "TOOL_CALL_REJECTED"]
    assert "NoneType None" in code["evidence"]["reason"] and code["evidence"]["excerpt"] == "None"


@needs_bwrap
@pytest.mark.slow
def test_tool_calls_that_are_not_a_list_are_refused_with_a_message(options, tmp_path):
    """A JSON string of a call that would write a file, and a list holding a string: refused, told
    why, nothing runs (no file, no execution), each a turn; the episode goes on and is scored."""
    writes = call("execute_code", {"language": "bash", "code": "# S1\ntouch /workspace/ran"})
    env = MedEnv(TASK, TIER, out_dir=tmp_path, options=options)
    obs = env.reset(seed=0)
    step = env.step({"role": "assistant", "content": "Calling it now.", "tool_calls": json.dumps([writes])})
    assert not step.done and step.info["turn"] == 1
    (answer,) = step.tool_messages
    assert answer["role"] == "user" and "refused" in answer["content"] and "not a list" in answer["content"]
    assert env.messages[-2:] == [{"role": "assistant", "content": "Calling it now."}, answer]
    step = env.step({"role": "assistant", "content": "", "tool_calls": ["execute_code"]})
    assert not step.done and "item 0" in step.tool_messages[0]["content"]
    assert not (RunFiles(obs.run_dir).workspace / "ran").exists()
    trace = [json.loads(line) for line in RunFiles(obs.run_dir).trace.read_text().splitlines()]
    assert not any(e["type"] in ("tool_call", "execution") for e in trace)
    final = env.step({"role": "assistant", "content": "", "tool_calls": [call("submit_results", {})]})
    c = final.components
    assert final.done and c.end_reason == "submitted" and not c.infra and final.reward is not None
    (code,) = [e for e in _report(obs.run_dir)["errors"] if e["code"] == "TOOL_CALL_REJECTED"]
    assert code["evidence"]["count"] == 2 and code["evidence"]["turns"] == [1, 2]
    conv = json.loads(RunFiles(obs.run_dir).conversation.read_text())["messages"]
    assert answer in conv                                 # the refusal is in the recorded conversation


@needs_bwrap
@pytest.mark.slow
def test_the_policys_name_model_and_settings_make_its_config_hash(options, tmp_path):
    """One policy over two seeds: one config hash. Another model, or a group whose policy names
    itself: other hashes, so the board has a row for each."""
    env = MedEnv(TASK, TIER, out_dir=tmp_path / "a", options=options, model="policy-a",
                 policy_settings={"temperature": 0.7})
    runs = []
    for seed in (0, 1):
        runs.append(env.reset(seed=seed).run_dir)     # a second reset closes the first episode, scored
        env.step(LOOK)
    env.close()
    other = MedEnv(TASK, TIER, out_dir=tmp_path / "b", options=options, model="policy-b",
                   policy_settings={"temperature": 0.7})
    runs.append(other.reset(seed=0).run_dir)
    other.close()

    class Named(ReplayPolicy):
        name, model = "my-policy", "policy-c"

        def for_seed(self, seed):
            return self

    group = run_group(TASK, TIER, 1, Named([looks_and_submits()]), out_dir=tmp_path / "g", options=options)
    runs.append(group.episodes[0].run_dir)

    metas = [json.loads(RunFiles(r).meta.read_text()) for r in runs]
    assert metas[0]["agent_config"] == {"kind": "external", "name": "external", "model": "policy-a",
                                        "settings": {"temperature": 0.7}}
    assert [m["run"]["model"] for m in metas] == ["policy-a", "policy-a", "policy-b", "policy-c"]
    assert metas[3]["run"]["agent"] == "my-policy" and metas[3]["agent_config"]["name"] == "my-policy"
    hashes = [m["run"]["config_hash"] for m in metas]
    assert hashes[0] == hashes[1] and len(set(hashes)) == 3
    labels = agent_labels([DetailReport.model_validate_json(RunFiles(r).report.read_text()) for r in runs[:3]])
    assert len(set(labels.values())) == 2                # policy-a and policy-b: two rows of "external"


def test_an_openai_policys_identity_leaves_out_the_seed_and_the_key():
    policy = OpenAIPolicy("http://127.0.0.1:9/v1", "served-model", api_key_env="MY_KEY", temperature=0.2)
    one, two = policy_identity(policy.for_seed(1)), policy_identity(policy.for_seed(2))
    assert one == two and one.name == "external" and one.model == "served-model"
    assert one.settings["base_url"] == "http://127.0.0.1:9/v1" and one.settings["temperature"] == 0.2
    assert "MY_KEY" not in json.dumps(one.settings) and "seed" not in json.dumps(one.settings)
    assert policy_identity(policy, "named", "given").model == "given"
    assert policy_identity(OpenAIPolicy("http://127.0.0.1:9/v1", "served-model", temperature=1.0)) != one


def test_group_statistics_drop_infra_episodes_none_or_nan():
    stats = group_statistics([1.0, None, 0.0, math.nan])
    assert (stats.mean, stats.std, stats.dropped) == (0.5, 0.5, 2)
    assert stats.advantages[1] is None and stats.advantages[3] is None
    assert stats.advantages[0] == pytest.approx(1.0, abs=1e-5) and stats.advantages[2] == pytest.approx(-1.0, abs=1e-5)
    empty = group_statistics([None, math.nan])
    assert empty.mean is None and empty.std is None and empty.advantages == [None, None] and empty.dropped == 2
