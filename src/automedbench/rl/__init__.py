"""Every task an RL environment (docs/rl.md): a layer above the run lifecycle and below the API.

    env = MedEnv(task, tier, reward=RewardSpec(...), out_dir=..., options=RunOptions(...))
    obs = env.reset(seed)            # Observation: messages, tools, run_dir, episode_id, info
    step = env.step(message, usage)  # Step: tool_messages, done, reward, components, truncated, info
    group = run_group(task, tier, n, policy, workers=2)   # GroupResult: episodes, rewards, mean, std
    group_statistics(rewards)        # GroupStats of any group's rewards (None/NaN: infra, dropped)

Framework adapters (NeMo Gym, verifiers) are built on this API.
"""
from ..agents.turns import Policy, PolicyOutput
from ..lifecycle import RunEndedError, Usage
from .env import EXTERNAL_AGENT, AsyncMedEnv, ExternalPolicy, MedEnv, Observation, Step
from .groups import (
    Episode,
    EpisodeRunner,
    GroupResult,
    GroupStats,
    OpenAIPolicy,
    PolicyIdentity,
    group_statistics,
    play,
    policy_identity,
    run_group,
)
from .rewards import RewardComponents, RewardSpec, RewardSpecError, StageReward, load_reward_spec

__all__ = ["EXTERNAL_AGENT", "AsyncMedEnv", "Episode", "EpisodeRunner", "ExternalPolicy", "GroupResult", "GroupStats",
           "MedEnv", "Observation", "OpenAIPolicy", "Policy", "PolicyIdentity", "PolicyOutput", "RewardComponents",
           "RewardSpec", "RewardSpecError", "RunEndedError", "StageReward", "Step", "Usage", "group_statistics",
           "load_reward_spec", "play", "policy_identity", "run_group"]
