"""Every task an RL environment (docs/rl.md): one episode = one run of the run lifecycle,
driven from outside.

    env = MedEnv(task_id, "lite", out_dir="episodes")   # any task `automedbench tasks` lists
    obs = env.reset(seed=0)                   # system prompt + kickoff, tool schemas, run folder
    while True:
        step = env.step(policy(obs.messages + history, obs.tools))   # one assistant message
        if step.done: break                   # step.reward, step.components (None: infra, drop it)

`reset` opens a run (open_run) prepared for the caller's policy (prepare_run); `step` hands
the message to the lifecycle's RunDriver, the driver `automedbench run` drives its own agent
through (the same loop: nudges, continuations, limits, violation policy, records); `play`
(rl/groups.py) has the lifecycle ask a policy turn after turn through it; when the run ends (submit, a limit, a disqualification, an infrastructure fault) the
run is closed and scored by the same scoring and judge as `run`, and the reward is read from its
detail_report.json (rl/rewards.py). Every episode leaves a normal run folder.

The seed is the episode's: recorded in run.json (`episode.seed`) and handed to seeded policies
(rl/groups.py); it never changes the task instance (every seed sees the same cases).
"""
from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..agents import AgentContext, AgentOutcome, ToolBox
from ..agents.replies import TOOLS
from ..errors import UserError
from ..agents.turns import Policy
from ..lifecycle import (
    OpenRun,
    Prepared,
    RunDriver,
    RunEndedError,
    Usage,
    act,
    close_run,
    open_run,
    prepare_run,
    score,
)
from ..llm.registry import Limits
from ..runs.layout import new_run_id
from ..runs.options import RunOptions
from .rewards import RewardComponents, RewardSpec, StageReward

EXTERNAL_AGENT = "external"


class ExternalPolicy:
    """The agent of an episode: the caller's model, acting through `MedEnv.step`. The harness
    never runs it from inside. Its configuration (kind `external`, its name, its model and any
    settings the caller states, such as an endpoint's sampling settings) is what run.json
    records as the agent's and what the run's config hash is taken over (docs/rl.md "Which
    policy"): two policies that differ in any of these are two rows of a board."""

    def __init__(self, name: str = EXTERNAL_AGENT, model: str | None = None,
                 settings: Mapping[str, Any] | None = None):
        self.name = name
        self.model = model
        self.settings = dict(settings or {})

    def configuration(self) -> dict[str, Any]:
        conf: dict[str, Any] = {"kind": "external", "name": self.name, "model": self.model}
        if self.settings:
            conf["settings"] = dict(self.settings)
        return conf

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        raise UserError("an RL episode's agent acts through MedEnv.step, not from inside a run")


def episode_limits(limits: Limits | Mapping[str, Any] | None, max_turns: int | None = None) -> Limits | None:
    """The caller's limits of an episode (a mapping is read as an agent entry's `limits`; a
    bad value is a user error), `max_turns` tightening them."""
    if max_turns is not None and max_turns < 1:
        raise UserError(f"max_turns must be >= 1, got {max_turns}")
    try:
        out = limits if isinstance(limits, Limits) else Limits.model_validate(dict(limits or {}))
    except ValueError as exc:
        raise UserError(f"episode limits: {exc}") from None
    if max_turns is not None:
        out = out.model_copy(update={"max_turns": max_turns if out.max_turns is None else min(out.max_turns, max_turns)})
    return out if out.model_dump(exclude_none=True) else None


class Observation(BaseModel):
    """What `reset` returns: the conversation so far (system prompt + kickoff, OpenAI chat
    format), the tool schemas to offer the model, and where the episode is recorded."""
    model_config = ConfigDict(extra="forbid")

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    run_dir: str
    episode_id: str
    info: dict[str, Any] = Field(default_factory=dict)
    done: bool = False                 # the episode ended while opening (an infrastructure fault)
    final: Step | None = None          # then: its final step (reward None, components.infra)


class Step(BaseModel):
    """What `step` returns. `reward` and `components` are set only once `done`."""
    model_config = ConfigDict(extra="forbid")

    tool_messages: list[dict[str, Any]] = Field(default_factory=list)
    done: bool = False
    reward: float | None = None
    components: RewardComponents | None = None
    truncated: bool = False            # ended by a limit (turns, tokens, cost, wall time)
    stage_rewards: list[StageReward] | None = None   # RewardSpec.stage_rewards, on the final step
    info: dict[str, Any] = Field(default_factory=dict)


Observation.model_rebuild()


class MedEnv:
    """One episode at a time of (task, tier) as an RL environment (module doc; docs/rl.md).

    `options`: sandbox, network, judges, data root... as for `run` (runs/options.py).
    `agent_name` / `model` are recorded in run.json as the run's agent and model, and with
    `policy_settings` (what else tells this policy from another: an endpoint, sampling settings)
    as its agent configuration, whose hash tells board rows apart (ExternalPolicy).
    `max_turns`, `limits` (max_turns, wall_time_s, max_total_tokens, max_cost_usd): tighter
    limits than the task's, applied as a run applies its agent entry's (recorded in run.json's
    limits; docs/rl.md "Limits").
    User errors (unknown task or tier, unstaged data, unknown judge or backend) raise here,
    before any episode."""

    def __init__(self, task_id: str, tier: str = "lite", *, reward: RewardSpec | dict[str, Any] | str | Path | None = None,
                 out_dir: Path | str = "episodes", options: RunOptions | None = None,
                 agent_name: str = EXTERNAL_AGENT, model: str | None = None, max_turns: int | None = None,
                 policy_settings: Mapping[str, Any] | None = None,
                 limits: Limits | Mapping[str, Any] | None = None):
        self.options = options or RunOptions()
        self.reward_spec = RewardSpec.load(reward)
        self.out_dir = Path(out_dir)
        self.tier = tier
        self.agent_name = agent_name
        self.limits = episode_limits(limits, max_turns)
        self.prep: Prepared = prepare_run(task_id, tier, ExternalPolicy(agent_name, model, policy_settings),
                                          self.options)
        self.task_id = self.prep.task.id
        self._run: OpenRun | None = None
        self._driver: RunDriver | None = None
        self._final: Step | None = None
        self.seed: int | None = None

    # ---- the episode -------------------------------------------------------------------------
    @property
    def run(self) -> OpenRun | None:
        """The current episode's open run (lifecycle/session.py), or None before reset."""
        return self._run

    @property
    def done(self) -> bool:
        return self._final is not None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The episode's conversation as the model should see it next: system prompt, kickoff,
        then each assistant message as recorded and its tool results (a copy)."""
        return copy.deepcopy(self._driver.messages) if self._driver is not None else []

    @property
    def final(self) -> Step | None:
        """The current episode's final step once it is done."""
        return self._final

    def reset(self, seed: int | None = None, *, run_dir: Path | str | None = None,
              episode: dict[str, Any] | None = None) -> Observation:
        """Start a new episode (an unfinished one is closed first, `agent_finished`, and scored).
        `run_dir`: where to record it (default: a new folder under out_dir). `episode`: extra
        facts recorded in run.json's `episode` (e.g. a group id)."""
        if self._run is not None and not self.done:
            self.close()
        self.seed = seed
        run_id = new_run_id(self.agent_name, self.task_id, self.tier)
        where = Path(run_dir) if run_dir is not None else self.out_dir / run_id
        facts = {"episode_id": run_id, "seed": seed, "reward": self.reward_spec.model_dump(mode="json"),
                 **(episode or {})}
        run = open_run(self.prep, self.tier, self.agent_name, where, self.options, run_id, limits=self.limits,
                       episode=facts)
        self._run, self._final = run, None
        self._driver = RunDriver(run)
        info = {"task": self.task_id, "tier": self.tier, "seed": seed, "limits": dict(run.meta.limits),
                "data_dir": run.context.data_dir if run.context else None,
                "workspace_dir": run.context.workspace_dir if run.context else None}
        obs = Observation(messages=copy.deepcopy(self._driver.messages), tools=copy.deepcopy(TOOLS),
                          run_dir=str(where), episode_id=run_id, info=info)
        if run.ended:   # the sandbox could not start: an infrastructure end, scored null
            obs.final = self._finish()
            obs.done = True
            obs.info["end_reason"] = run.info.end_reason
        return obs

    def step(self, message: object, usage: Usage | None = None) -> Step:
        """One assistant message (OpenAI chat format: content and/or tool_calls): its calls run in
        the episode's sandbox. Returns the tool messages; once the episode ended, also `done`,
        the reward and its components. Raises RunEndedError after the end (reset first).
        A malformed message is the policy's fault (docs/rl.md "Malformed messages"): one that is
        not a dict (a string, None) ends the episode, scored, with TOOL_CALL_REJECTED; `tool_calls`
        that is not a list of call objects is refused with a user message saying why."""
        run, driver = self._run, self._driver
        if run is None or driver is None:
            raise RunEndedError("no episode: call reset() first")
        if self.done:
            raise RunEndedError(f"episode {run.info.run_id} has ended ({run.info.end_reason}); call reset()")
        try:
            result = driver.step(message, usage)
        except KeyboardInterrupt:
            close_run(run)
            raise
        if not result.done:
            return Step(tool_messages=result.tool_messages,
                        info={"turn": run.box.turns if run.box else 0, "stage": run.box.stage if run.box else None})
        final = self._finish()
        return final.model_copy(update={"tool_messages": result.tool_messages})

    def close(self, reason: str | None = None, message: str = "") -> Step | None:
        """End the current episode if it is not done, and return its final step (None without
        one). `reason`: None or "agent_finished" (the caller stopped: still scored), a provider
        end reason ("provider_unavailable", "provider_error": an infrastructure end, reward None),
        or another end reason the run records ("agent_crash", "wall_time", ...)."""
        run, driver = self._run, self._driver
        if run is None or driver is None:
            return None
        if self.done:
            return self._final
        driver.end(reason, message)
        return self._finish()

    def play(self, policy: Policy) -> Step:
        """The current episode played to its end by `policy`, asked turn after turn by the
        lifecycle (the loop `run` drives its agent through: a provider failure is an
        infrastructure end, any other exception of the policy its crash); its final step."""
        run, driver = self._run, self._driver
        if run is None or driver is None:
            raise RunEndedError("no episode: call reset() first")
        if not self.done:
            try:
                act(run, policy, driver)
            except KeyboardInterrupt:
                close_run(run)
                raise
            self._final = self._finish()
        assert self._final is not None
        return self._final

    def _finish(self) -> Step:
        """Close the run, score it (the same scoring and judge as `run`), read the reward."""
        run = self._run
        assert run is not None
        close_run(run)
        report = score(run)
        components = RewardComponents.from_report(report, run.files.dir)
        spec = self.reward_spec
        final = Step(done=True, reward=spec.reward(components), components=components,
                     truncated=components.truncated,
                     stage_rewards=spec.stage_credit(components, run.files.dir) if spec.stage_rewards else None,
                     info={"end_reason": components.end_reason, "end_detail": components.end_detail,
                           "run_dir": str(run.files.dir), "episode_id": run.info.run_id, "seed": self.seed,
                           "turn": run.info.turns})
        self._final = final
        return final

    # ---- async: the blocking sandbox work in a thread, so many episodes run at once ---------
    async def areset(self, seed: int | None = None, *, run_dir: Path | str | None = None,
                     episode: dict[str, Any] | None = None) -> Observation:
        return await asyncio.to_thread(self.reset, seed, run_dir=run_dir, episode=episode)

    async def astep(self, message: object, usage: Usage | None = None) -> Step:
        return await asyncio.to_thread(self.step, message, usage)

    async def aclose(self, reason: str | None = None, message: str = "") -> Step | None:
        return await asyncio.to_thread(self.close, reason, message)

    # ---- context manager -------------------------------------------------------------------
    def __enter__(self) -> MedEnv:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            if self._run is not None:
                close_run(self._run)
            return
        self.close()


class AsyncMedEnv:
    """MedEnv with async reset/step/close (each in a worker thread: asyncio.to_thread), for
    running many episodes at once with asyncio.gather; each has its own sandbox and run folder."""

    def __init__(self, task_id: str, tier: str = "lite", **kwargs: Any):
        self.env = MedEnv(task_id, tier, **kwargs)

    @classmethod
    async def create(cls, task_id: str, tier: str = "lite", **kwargs: Any) -> AsyncMedEnv:
        """Build it in a thread (preparing may stage a demo dataset)."""
        return await asyncio.to_thread(cls, task_id, tier, **kwargs)

    @property
    def done(self) -> bool:
        return self.env.done

    async def reset(self, seed: int | None = None, *, run_dir: Path | str | None = None,
                    episode: dict[str, Any] | None = None) -> Observation:
        return await self.env.areset(seed, run_dir=run_dir, episode=episode)

    async def step(self, message: object, usage: Usage | None = None) -> Step:
        return await self.env.astep(message, usage)

    async def close(self, reason: str | None = None, message: str = "") -> Step | None:
        return await self.env.aclose(reason, message)

    async def __aenter__(self) -> AsyncMedEnv:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()
