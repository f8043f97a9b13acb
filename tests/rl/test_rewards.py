"""Reward specifications (docs/rl.md "Rewards"): data, checked when loaded, computed from the
published components of a real scored episode; infra episodes never get a number."""
import pytest

from automedbench.rl import MedEnv, RewardComponents, RewardSpec, RewardSpecError
from automedbench.scoring.rubric import load_rubric

from .conftest import needs_bwrap
from .policies import ReplayPolicy, scripted_llm_messages

pytestmark = [needs_bwrap, pytest.mark.filterwarnings("ignore::RuntimeWarning")]


@pytest.fixture(scope="module")
def episode(options, tmp_path_factory):
    """One worked episode (plan, setup, pilot, batch, submit), scored, with per-stage credit."""
    env = MedEnv("brain-lesion-seg", "lite", out_dir=tmp_path_factory.mktemp("eps"), options=options,
                 reward={"stage_rewards": True})
    obs, policy = env.reset(seed=0), ReplayPolicy([scripted_llm_messages()])
    while not (step := env.step(policy(env.messages, obs.tools))).done:
        pass
    return step


def test_the_default_reward_is_the_published_overall(episode):
    c = episode.components
    assert episode.reward == c.overall == RewardComponents.from_run_dir(c.run_dir).overall
    assert RewardSpec(base="task").reward(c) == c.task and RewardSpec(base="agentic").reward(c) == c.agentic
    assert c.task is not None and c.agentic is not None and c.task != c.agentic


def test_stage_weights_and_penalties(episode):
    c = episode.components
    spec = RewardSpec.load({"base": "stages", "stage_weights": {"s3": 2.0, "s4": 1.0}})
    assert spec.reward(c) == pytest.approx((2 * c.s3 + c.s4) / 3)
    rubric = {s: w for s, w in load_rubric().weights().items()}
    assert RewardSpec(base="stages").reward(c) == pytest.approx(
        sum(rubric[s] * c.stage(s) for s in rubric) / sum(rubric.values()))
    fired = c.error_codes[0]
    pen = RewardSpec(error_penalties={fired: 0.1, "SANDBOX_VIOLATION": 5.0})
    assert pen.reward(c) == pytest.approx(c.overall - 0.1 * c.error_codes.count(fired))


def test_per_stage_credit_sums_to_the_agentic_score(episode):
    credit = episode.stage_rewards
    assert [r.stage for r in credit] == ["s1", "s2", "s3", "s4", "s5"]
    assert sum(r.value for r in credit) == pytest.approx(episode.components.agentic)
    turns = [r.turn for r in credit]
    assert turns[0] == 1 and turns[-1] == 5 and turns == sorted(turns)   # the submit is the last turn


def test_an_infra_episode_has_no_reward_whatever_the_spec(episode):
    infra = episode.components.model_copy(update={"infra": True, "end_reason": "infra_error"})
    for spec in (RewardSpec(), RewardSpec(base="task"), RewardSpec(error_penalties={"NO_PILOT": 1.0})):
        assert spec.reward(infra) is None
    assert RewardSpec(stage_rewards=True).stage_credit(infra, episode.components.run_dir) == []


def test_specs_load_from_yaml_and_bad_ones_name_the_field(tmp_path):
    f = tmp_path / "reward.yaml"
    f.write_text("base: stages\nstage_weights: {s3: 1}\nerror_penalties: {NO_PILOT: 0.2}\n")
    spec = RewardSpec.load(f)
    assert spec.base == "stages" and spec.stage_weights == {"s3": 1.0} and spec.error_penalties == {"NO_PILOT": 0.2}
    f.write_text("base: vibes\n")
    with pytest.raises(RewardSpecError, match=r"reward.yaml: field 'base':"):
        RewardSpec.load(f)
    with pytest.raises(RewardSpecError, match="unknown error code.*NOT_A_CODE"):
        RewardSpec.load({"error_penalties": {"NOT_A_CODE": 1}})
    with pytest.raises(RewardSpecError, match="set base: stages"):
        RewardSpec.load({"stage_weights": {"s1": 1}})
    with pytest.raises(RewardSpecError, match="positive sum"):
        RewardSpec.load({"base": "stages", "stage_weights": {"s1": 0}})
    with pytest.raises(RewardSpecError, match="cannot read"):
        RewardSpec.load(tmp_path / "missing.yaml")
    with pytest.raises(RewardSpecError, match="s9"):
        RewardSpec.load({"base": "stages", "stage_weights": {"s9": 1}})
