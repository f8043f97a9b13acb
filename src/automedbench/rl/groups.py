"""Groups for GRPO (docs/rl.md "Groups"): n episodes of the same task instance (the same cases)
with different seeds, run in parallel on the sweep executors (runs/executors.py: the local
process pool, or Ray), returned with their rewards, the group's mean and its standard deviation.

    group = run_group(task_id, "lite", 4, policy, workers=2)
    group.rewards, group.mean, group.std, group.advantages()

Each episode is one executor job: the job's run function (`EpisodeRunner`, pickled into worker
processes and Ray tasks) plays the policy through a MedEnv until the episode ends. The rewards
are read back from the episodes' run folders (detail_report.json), so they are the numbers
`automedbench score` gives. Infra episodes (reward None) are listed apart and left out of the
mean and standard deviation.

A policy is a callable (messages, tools) -> assistant message (or (message, Usage)), or an
`OpenAIPolicy` for any OpenAI-compatible endpoint (the harness's one LLM client). A policy with
a `for_seed(seed)` method is asked for the episode's policy first (OpenAIPolicy sends the seed
as the request's sampling seed). A policy's `name`, `model` and `settings()`, where it has them,
are what run.json records as the episode's agent (docs/rl.md "Which policy").

`group_statistics(rewards)` is the one computation of a group's mean, standard deviation and
advantages with infra episodes (None) left out, for groups collected here or by a framework.
"""
from __future__ import annotations

import copy
import math
import secrets
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agents.llm import LLMAgent
from ..agents.turns import Policy, PolicyOutput, TurnRules, Turns
from ..errors import UserError
from ..llm.registry import AgentConfig, Limits
from ..runs.executors import JobResult, Resources, RunJob, make_executor
from ..runs.options import RunOptions
from .env import EXTERNAL_AGENT, MedEnv, episode_limits
from .rewards import RewardComponents, RewardSpec


class OpenAIPolicy:
    """A policy served by an OpenAI-compatible endpoint (vLLM, SGLang, a trainer's server...),
    asked as `run` asks an agent entry's endpoint: by the LLM agent (agents/llm.py; the LLM
    client's retries and backoff, the entry's nudges and continuations). The key is read
    from the environment variable `api_key_env` in the harness process, never the sandbox's.
    A provider failure after retries ends the episode as infrastructure (reward None)."""

    def __init__(self, base_url: str, model: str, *, api_key_env: str | None = None,
                 temperature: float | None = None, max_tokens: int | None = 4096, seed: int | None = None,
                 timeout_s: float = 300.0, max_retries: int = 5, extra_body: dict[str, Any] | None = None,
                 retry: dict[str, float] | None = None):
        self.base_url, self.model, self.api_key_env = base_url, model, api_key_env
        self.temperature, self.max_tokens, self.seed = temperature, max_tokens, seed
        self.timeout_s, self.max_retries, self.extra_body = timeout_s, max_retries, extra_body
        self.retry = dict(retry or {})   # more of the endpoint entry's `retry` (llm/registry.py Retry)
        self._agent: LLMAgent | None = None   # the LLM agent that asks the endpoint for it

    def settings(self) -> dict[str, Any]:
        """What tells this policy from another besides its model (run.json's agent_config,
        hashed): the endpoint and the sampling settings, not the per-episode seed, the key's
        variable or the client's retry and timeout settings."""
        return {"base_url": self.base_url, "temperature": self.temperature, "max_tokens": self.max_tokens,
                "extra_body": self.extra_body}

    def config(self) -> AgentConfig:
        body = dict(self.extra_body or {})
        if self.seed is not None:
            body["seed"] = self.seed
        return AgentConfig.model_validate({
            "name": "rl-policy", "model": self.model, "base_url": self.base_url, "api_key_env": self.api_key_env,
            "temperature": self.temperature, "max_tokens": self.max_tokens, "timeout_s": self.timeout_s,
            "extra_body": body or None,
            "retry": {"max_retries": self.max_retries, **self.retry}})

    def for_seed(self, seed: int | None) -> OpenAIPolicy:
        other = copy.copy(self)
        other.seed, other._agent = seed, None
        return other

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_agent": None}   # an open HTTP client does not travel to workers

    def _asker(self) -> LLMAgent:
        if self._agent is None:
            self._agent = LLMAgent(self.config())
        return self._agent

    def rules(self) -> TurnRules:
        """The loop's rules of an agent entry with these settings (agents/turns.py)."""
        return self._asker().rules()

    def start(self, turns: Turns) -> None:
        """The episode it plays (agents/turns.py drive): waits bounded by its wall time, retries recorded."""
        self._asker().start(turns)

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> PolicyOutput:
        return self._asker()(messages, tools)

    def close(self) -> None:
        if self._agent is not None:
            self._agent.close()


def play(env: MedEnv, policy: Policy | Callable[..., PolicyOutput], seed: int | None = None, *,
         run_dir: Path | str | None = None, episode: dict[str, Any] | None = None) -> RewardComponents | None:
    """One episode of `policy` through `env` until it ends; returns its components. The
    lifecycle asks the policy turn after turn (MedEnv.play), as `run` asks its LLM agent: a
    provider failure of the policy ends it as infrastructure; any other exception of the
    policy is the agent's crash (both recorded and scored as `run` would)."""
    obs = env.reset(seed, run_dir=run_dir, episode=episode)
    final = obs.final if obs.done else env.play(policy)
    return final.components if final else None


@dataclass(frozen=True)
class PolicyIdentity:
    """What run.json records as an episode's agent: a name, a model, and any other settings
    that tell this policy from another (all of it hashed into run.json's config_hash)."""
    name: str = EXTERNAL_AGENT
    model: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)


def policy_identity(policy: object, agent_name: str | None = None, model: str | None = None) -> PolicyIdentity:
    """The identity of `policy`: `agent_name` and `model` where given, else the policy's own
    `name` and `model` attributes (an OpenAIPolicy's model), else "external" and none; its
    `settings()` where it has that method."""
    own_name, own_model = getattr(policy, "name", None), getattr(policy, "model", None)
    name = agent_name or (own_name if isinstance(own_name, str) and own_name else EXTERNAL_AGENT)
    model = model or (own_model if isinstance(own_model, str) else None)
    settings = getattr(policy, "settings", None)
    return PolicyIdentity(name, model, dict(settings()) if callable(settings) else {})


@dataclass
class EpisodeRunner:
    """An executor job's run function (runs/executors.py RunFunction): plays one episode of the
    policy in the job's run folder. Pickled into worker processes and Ray tasks, so the policy
    must be picklable (a module-level callable or class instance, or an OpenAIPolicy)."""
    policy: Any
    seed: int | None
    reward: RewardSpec
    episode: dict[str, Any]
    model: str | None = None
    max_turns: int | None = None
    agent_name: str = EXTERNAL_AGENT
    policy_settings: dict[str, Any] = field(default_factory=dict)
    limits: Limits | None = None

    def __call__(self, task_id: str, tier: str, agent_name: str, out_dir: Path | str = "episodes",
                 options: RunOptions | None = None, *, run_dir: Path | str | None = None) -> object:
        env = MedEnv(task_id, tier, reward=self.reward, out_dir=out_dir, options=options, agent_name=agent_name,
                     model=self.model, max_turns=self.max_turns, policy_settings=self.policy_settings,
                     limits=self.limits)
        for_seed = getattr(self.policy, "for_seed", None)
        policy = for_seed(self.seed) if callable(for_seed) else self.policy
        return play(env, policy, self.seed, run_dir=run_dir, episode=self.episode)


@dataclass
class Episode:
    """One episode of a group: its seed, run folder, reward (None: infra, or it failed to run)
    and components; `error` says why an episode left no scored run folder."""
    index: int
    seed: int | None
    run_dir: str
    reward: float | None
    components: RewardComponents | None
    error: str | None = None
    wall_s: float = 0.0
    worker: str = ""          # host:pid of the process that ran it

    @property
    def infra(self) -> bool:
        return self.components is None or self.components.infra


@dataclass(frozen=True)
class GroupStats:
    """A group's statistics over its scored episodes: `mean`, population `std` (None when no
    episode was scored), `advantages` per episode in order (None for a dropped one), and how
    many episodes were `dropped` (infra: reward None, or NaN as verifiers reports one)."""
    mean: float | None
    std: float | None
    advantages: list[float | None]
    dropped: int


def group_statistics(rewards: Sequence[float | None], eps: float = 1e-6) -> GroupStats:
    """GRPO's group statistics with infra episodes left out (docs/rl.md "Groups"): a reward of
    None or NaN is dropped, never counted as 0; each kept episode's advantage is
    (r - mean) / (std + eps) over the kept ones."""
    kept = [r for r in rewards if r is not None and not math.isnan(r)]
    if not kept:
        return GroupStats(None, None, [None for _ in rewards], len(rewards))
    mean, std = statistics.fmean(kept), statistics.pstdev(kept)
    return GroupStats(mean, std, [None if r is None or math.isnan(r) else (r - mean) / (std + eps) for r in rewards],
                      len(rewards) - len(kept))


@dataclass
class GroupResult:
    group_id: str
    task: str
    tier: str
    episodes: list[Episode]
    rewards: list[float] = field(default_factory=list)    # the non-infra episodes', in episode order
    mean: float | None = None
    std: float | None = None       # population standard deviation over the non-infra episodes

    @property
    def infra(self) -> list[Episode]:
        """The episodes a trainer must drop (never count them as reward 0)."""
        return [e for e in self.episodes if e.infra]

    @property
    def scored(self) -> list[Episode]:
        return [e for e in self.episodes if not e.infra]

    def advantages(self, eps: float = 1e-6) -> list[float | None]:
        """GRPO's group-normalised advantage per episode, (r - mean) / (std + eps); None for infra."""
        return group_statistics([e.reward for e in self.episodes], eps).advantages


def _episode(index: int, seed: int | None, res: JobResult | None, run_dir: Path, spec: RewardSpec) -> Episode:
    error = res.error if res is not None else "not run"
    wall, worker = (res.wall_s, res.worker) if res is not None else (0.0, "")
    try:
        comp = RewardComponents.from_run_dir(run_dir)
    except (UserError, ValueError) as exc:
        return Episode(index, seed, str(run_dir), None, None, error or str(exc), wall, worker)
    return Episode(index, seed, str(run_dir), spec.reward(comp), comp, error, wall, worker)


def run_group(task: str, tier: str, n: int, policy: Policy | Callable[..., PolicyOutput], *,
              seeds: Sequence[int] | None = None, workers: int = 1, executor: str = "local",
              address: str | None = None, reward: RewardSpec | dict[str, Any] | str | Path | None = None,
              out_dir: Path | str = "episodes", options: RunOptions | None = None,
              model: str | None = None, max_turns: int | None = None, agent_name: str | None = None,
              limits: Limits | dict[str, Any] | None = None, cpus_per_episode: float = 1.0, gpus_per_episode: int = 0, group_id: str | None = None) -> GroupResult:
    """n episodes of (task, tier) with `seeds` (default 0..n-1), `workers` at a time on the
    executor (`local`: this process for one worker, a process pool for more; `ray`: one Ray task
    per episode, `address` joins a cluster whose nodes share `out_dir`). The episodes' agent is
    `policy_identity(policy, agent_name, model)`; `limits` tighten the task's (MedEnv). User errors raise before any episode runs
    (module doc)."""
    seeds = list(range(n)) if seeds is None else list(seeds)
    if len(seeds) != n:
        raise UserError(f"run_group: {n} episodes but {len(seeds)} seeds")
    spec = RewardSpec.load(reward)
    options = (options or RunOptions()).resolved()
    who = policy_identity(policy, agent_name, model)
    caps = episode_limits(limits)
    MedEnv(task, tier, reward=spec, options=options, agent_name=who.name, model=who.model, max_turns=max_turns,
           policy_settings=who.settings, limits=caps)
    gid = group_id or f"group_{secrets.token_hex(4)}"
    root = Path(out_dir).resolve() / gid
    jobs = [RunJob(key=f"{gid}#{i}", task=task, tier=tier, agent=who.name,
                   run_dir=str(root / f"ep{i:03d}_seed{seed}"), options=options,
                   run=EpisodeRunner(policy, seed, spec, {"group_id": gid, "index": i}, who.model, max_turns, who.name,
                                     who.settings, caps),
                   resources=Resources(cpus=cpus_per_episode, gpus=gpus_per_episode))
            for i, seed in enumerate(seeds)]
    results = _execute(jobs, executor, workers, address)
    episodes = [_episode(i, seeds[i], results.get(j.key), Path(j.run_dir), spec) for i, j in enumerate(jobs)]
    stats = group_statistics([e.reward for e in episodes])
    return GroupResult(gid, task, tier, episodes, [e.reward for e in episodes if e.reward is not None],
                       stats.mean, stats.std)


def _execute(jobs: list[RunJob], executor: str, workers: int, address: str | None) -> dict[str, JobResult]:
    """Every job on the executor, no more at once than it has slots for."""
    ex = make_executor(executor, workers=workers, address=address)
    pending = list(jobs)
    handles: list[Any] = []
    results: dict[str, JobResult] = {}
    try:
        for job in jobs:
            reason = ex.check(job.resources)
            if reason:
                raise UserError(f"episode {job.key} cannot run: {reason}")
        while pending or handles:
            while pending and ex.can_start(pending[0].resources):
                handles.append(ex.submit(pending.pop(0)))
            for handle, res in ex.wait(handles, timeout=1.0):
                handles.remove(handle)
                results[res.key] = res
    finally:
        ex.shutdown(kill=bool(handles))
    return results
