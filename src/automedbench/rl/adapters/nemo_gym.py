"""Every task a NeMo Gym resources server (docs/rl.md "Frameworks": NeMo Gym).

NeMo Gym (0.4.0; Python >= 3.12) collects a rollout as: its agent server (`simple_agent`) posts
the dataset row to our `/seed_session`, asks the model server (`/v1/responses`, e.g. its
`vllm_model`, which calls any OpenAI-compatible chat endpoint), posts each function call to our
`/<tool name>` with its JSON arguments, and when the model stops calling tools posts the whole
response to our `/verify`, whose `reward` is the rollout's. Here:

- `/seed_session` opens the session's episode: its own MedEnv (rl/env.py), sandbox and run
  folder. The row's prompt must be the episode's (`dataset_rows` writes such rows).
- `/<tool>` (execute_code, submit_results, ... as the task offers them) is one MedEnv step with
  that one call; its tool message's text is the answer. After the episode ended, a call is
  answered with a note that it has.
- `/verify` closes an episode the model left unfinished (`agent_finished`, still scored), and
  answers the reward (our RewardSpec over the run folder's scores) with the components.

An infra episode (reward None) is marked with NeMo Gym's failure class (`_ng_failure_class`):
its rollout collection writes such rows to the `<output>_failures.jsonl` sidecar, never to the
rollouts file a trainer reads, and retries them on resume. The response's `reward` field must
be a finite number for NeMo Gym's schema; it is 0.0 there and means nothing (see docs/rl.md).

Run it as a NeMo Gym server (`python -m automedbench.rl.adapters.nemo_gym` with NeMo Gym's
config environment, or through `ng_run` with `entrypoint` pointing at this file's server app).
"""
from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

try:
    from fastapi import FastAPI, Request
    from nemo_gym.base_resources_server import (
        BaseResourcesServerConfig,
        BaseSeedSessionRequest,
        BaseSeedSessionResponse,
        BaseVerifyRequest,
        BaseVerifyResponse,
        SimpleResourcesServer,
    )
    from nemo_gym.server_utils import SESSION_ID_KEY
    from pydantic import ConfigDict
except ImportError as exc:   # the optional extra (pyproject `[rl]`, Python >= 3.12)
    raise ImportError("the NeMo Gym adapter needs nemo-gym 0.4.0 (Python >= 3.12): "
                      f"pip install 'automedbench[rl-nemo-gym]' in a Python 3.12 environment (make test-rl-nemo-gym); {exc}") from exc

from ...runs.options import RunOptions
from ..env import EXTERNAL_AGENT, MedEnv, Step
from ..rewards import RewardSpec

FAILURE_CLASS_KEY = "_ng_failure_class"     # nemo_gym/rollout_collection.py: rows so marked go to the sidecar
INFRA_FAILURE_CLASS = "automedbench_infra"
TASK_INDEX_KEY, ROLLOUT_INDEX_KEY = "_ng_task_index", "_ng_rollout_index"   # rows as NeMo Gym repeats them
SEED_STRIDE = 1000


class AutoMedBenchResourcesServerConfig(BaseResourcesServerConfig):  # type: ignore[misc]
    task_id: str                      # required: the core names no task
    tier: str = "lite"
    out_dir: str = "episodes"
    data_root: str | None = None
    sandbox: str | None = None
    network: bool | None = None       # the sandbox's network; None: as the task says (docs/rl.md "NeMo Gym")
    exec_timeout_s: float = 60.0
    reward: dict[str, Any] | None = None
    max_turns: int | None = None
    agent_name: str = EXTERNAL_AGENT  # the policy as run.json records it (docs/rl.md "Which policy")
    model: str | None = None


class SeedSessionRequest(BaseSeedSessionRequest):  # type: ignore[misc]
    model_config = ConfigDict(extra="allow")


class SeedSessionResponse(BaseSeedSessionResponse):  # type: ignore[misc]
    episode_id: str
    run_dir: str
    seed: int | None = None


class VerifyRequest(BaseVerifyRequest):  # type: ignore[misc]
    model_config = ConfigDict(extra="allow")


class VerifyResponse(BaseVerifyResponse):  # type: ignore[misc]
    model_config = ConfigDict(extra="allow")


def run_options(cfg: AutoMedBenchResourcesServerConfig) -> RunOptions:
    kw: dict[str, Any] = {"exec_timeout_s": cfg.exec_timeout_s}
    if cfg.data_root:
        kw["data_root"] = Path(cfg.data_root)
    if cfg.sandbox:
        kw["sandbox"] = cfg.sandbox
    if cfg.network is not None:
        kw["network"] = cfg.network
    return RunOptions(**kw)


def to_responses_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI chat tool schema as a Responses API function tool (what NeMo Gym rows carry)."""
    fn = tool["function"]
    return {"type": "function", "name": fn["name"], "description": fn.get("description", ""),
            "parameters": fn.get("parameters", {}), "strict": False}


def dataset_rows(task_id: str, tier: str, groups: int, *, options: RunOptions | None = None,
                 out_dir: Path | str) -> list[dict[str, Any]]:
    """NeMo Gym dataset rows, one a group (collect with num_repeats = the group's size): the
    episode's own system prompt, kickoff and tools (read off a probe episode, closed again).
    Each rollout's seed is group * 1000 + NeMo Gym's rollout index."""
    env = MedEnv(task_id, tier, out_dir=out_dir, options=options)
    obs = env.reset(None, run_dir=Path(out_dir) / "probe")
    env.close()
    params = {"input": [{"role": m["role"], "content": m["content"]} for m in obs.messages],
              "tools": [to_responses_tool(t) for t in obs.tools], "parallel_tool_calls": False}
    return [{"responses_create_params": params, "automedbench": {"group": g}} for g in range(groups)]


class AutoMedBenchResourcesServer(SimpleResourcesServer):  # type: ignore[misc]
    """One task (task id + tier) as a NeMo Gym resources server (module doc)."""

    config: AutoMedBenchResourcesServerConfig

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self._episodes: dict[str, MedEnv] = {}
        self._call_ids = itertools.count()

    def setup_webserver(self) -> FastAPI:
        # the task, tier, data, judge and sandbox are checked once, before serving (a user error
        # stops the server with its message); this also loads the track and task registries in
        # one thread before sessions open episodes in many at once
        cfg = self.config
        MedEnv(cfg.task_id, cfg.tier, reward=RewardSpec.load(cfg.reward), out_dir=cfg.out_dir, options=run_options(cfg))
        app: FastAPI = super().setup_webserver()   # /seed_session, /verify, /aggregate_metrics
        app.post("/{tool_name}")(self.tool)
        return app

    def _session(self, request: Request) -> str:
        return str(request.session[SESSION_ID_KEY])

    async def seed_session(self, request: Request, body: SeedSessionRequest) -> SeedSessionResponse:
        cfg = self.config
        extra = body.model_extra or {}
        facts = extra.get("automedbench") or {}
        group = facts.get("group", extra.get(TASK_INDEX_KEY))
        seed = None if group is None else int(group) * SEED_STRIDE + int(extra.get(ROLLOUT_INDEX_KEY) or 0)
        env = await asyncio.to_thread(MedEnv, cfg.task_id, cfg.tier, reward=RewardSpec.load(cfg.reward),
                                      out_dir=cfg.out_dir, options=run_options(cfg), max_turns=cfg.max_turns,
                                      agent_name=cfg.agent_name, model=cfg.model,
                                      policy_settings={"framework": "nemo_gym"})
        obs = await env.areset(seed, episode={"group": f"nemo-gym-{group}", "framework": "nemo_gym"})
        self._episodes[self._session(request)] = env
        return SeedSessionResponse(episode_id=obs.episode_id, run_dir=obs.run_dir, seed=seed)

    async def tool(self, tool_name: str, request: Request) -> str:
        """One function call of the model: one MedEnv step; the tool message's text back."""
        env = self._episodes.get(self._session(request))
        if env is None:
            return "error: no episode for this session (call /seed_session first)"
        if env.done:
            return f"The episode has ended ({env.final.info.get('end_reason') if env.final else 'done'}); no more calls run."
        raw = await request.body()
        arguments = raw.decode("utf-8") if raw else "{}"
        message = {"role": "assistant", "content": None,
                   "tool_calls": [{"id": f"ng_{next(self._call_ids)}", "type": "function",
                                   "function": {"name": tool_name, "arguments": arguments}}]}
        step = await env.astep(message)
        return "\n".join(str(m.get("content", "")) for m in step.tool_messages)

    async def verify(self, request: Request, body: VerifyRequest) -> VerifyResponse:
        env = self._episodes.pop(self._session(request), None)
        final: Step | None = None
        if env is not None:
            final = env.final if env.done else await env.aclose("agent_finished")
        extra: dict[str, Any] = {}
        if final is None or final.reward is None:
            extra[FAILURE_CLASS_KEY] = INFRA_FAILURE_CLASS
        c = final.components if final is not None else None
        data = body.model_dump()
        data["automedbench"] = {"run_dir": final.info.get("run_dir") if final else None,
                                "episode_id": final.info.get("episode_id") if final else None,
                                "seed": final.info.get("seed") if final else None,
                                "end_reason": final.info.get("end_reason") if final else None,
                                "infra": final is None or final.reward is None,
                                "reward": final.reward if final else None,
                                "components": json.loads(c.model_dump_json()) if c else None}
        reward = final.reward if final is not None and final.reward is not None else 0.0
        return VerifyResponse(**data, reward=reward, **extra)

if __name__ == "__main__":
    AutoMedBenchResourcesServer.run_webserver()
