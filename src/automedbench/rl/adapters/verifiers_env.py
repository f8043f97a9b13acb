"""Every task a verifiers environment (docs/rl.md "Frameworks": verifiers).

    import verifiers as vf
    env = vf.load_environment("automedbench.rl.adapters.verifiers_env", task_id=TASK_ID,
                              tier="lite", out_dir="episodes", num_examples=4)
    results = await env.evaluate(client, model, num_examples=4, rollouts_per_example=4)

verifiers' classic multi-turn stack (`vf.MultiTurnEnv`, `vf.Rubric`, `env.evaluate`/`generate`;
verifiers 0.3.x, where it lives beside the new v1 stack; 0.4.0 removed it) drives the episode:
verifiers asks the model, and each assistant message is handed to our MedEnv (rl/env.py), which
runs its tool calls in the episode's own sandbox and records a normal run folder. Each rollout
is one MedEnv episode; the dataset's rows are the groups (`rollouts_per_example` episodes each,
same task instance, seeds row*1000 + k).

The rubric's reward function reads the episode's reward (our RewardSpec over the run folder's
detail_report.json); weight-0 metrics report the components (task, s1..s5, agentic, overall).
An infra episode (reward None: ended by us or the provider) is never scored 0: the rollout's
`error` is set to a `vf.InfraError` (verifiers' own mark for a rollout that failed for
infrastructure reasons, which `max_retries` retries and which a trainer drops) and its reward is
NaN, so no mean can take it for an earned 0.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import math
from pathlib import Path
from typing import Any

try:
    import verifiers as vf
    from datasets import Dataset
    from verifiers.utils.message_utils import normalize_messages
except ImportError as exc:   # the optional extra (pyproject `[rl]`)
    raise ImportError("the verifiers adapter needs the optional extra: pip install 'automedbench[rl]' "
                      f"(verifiers 0.3.x); {exc}") from exc

from ...lifecycle import Usage
from ...runs.options import RunOptions
from ..env import EXTERNAL_AGENT, MedEnv, Step
from ..rewards import STAGES, RewardSpec

STATE_KEY = "automedbench"     # the rollout's facts in verifiers' state (and its output with state_columns)
COMPONENTS = ("task", *STAGES, "agentic", "overall")
SEED_STRIDE = 1000


def to_vf_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI tool schema as verifiers' provider-neutral tool definition."""
    fn = tool["function"]
    return {"name": fn["name"], "description": fn.get("description", ""), "parameters": fn.get("parameters", {})}


def to_openai_message(message: Any) -> dict[str, Any]:
    """verifiers' assistant message (a pydantic model) as the OpenAI chat message MedEnv.step takes."""
    out: dict[str, Any] = {"role": "assistant", "content": getattr(message, "content", None)}
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        out["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                             for c in calls]
    if getattr(message, "reasoning_content", None):
        out["reasoning_content"] = message.reasoning_content
    return out


def _usage(state: Any) -> Usage:
    """The last model call's usage, as verifiers recorded it, for the run's records."""
    response = state["trajectory"][-1].get("response") if state["trajectory"] else None
    if response is None:
        return Usage()
    u = response.usage
    return Usage(tokens_in=u.prompt_tokens if u else 0, tokens_out=u.completion_tokens if u else 0,
                 finish_reason=getattr(response.message, "finish_reason", None))


class MedVerifiersEnv(vf.MultiTurnEnv):  # type: ignore[misc]
    """One task (task id + tier) as a verifiers multi-turn tool environment (module doc)."""

    def __init__(self, task_id: str, tier: str = "lite", *, reward: RewardSpec | dict[str, Any] | str | None = None,
                 out_dir: Path | str = "episodes", options: RunOptions | None = None, num_examples: int = 1,
                 max_turns: int | None = None, agent_name: str = EXTERNAL_AGENT, **kwargs: Any):
        self.task_id, self.tier, self.agent_name = task_id, tier, agent_name
        self.reward_spec = RewardSpec.load(reward)
        self.out_dir = Path(out_dir)
        self.run_options = options or RunOptions()
        self.episode_max_turns = max_turns
        # checked now (unknown task/tier, unstaged data, judge): a user error before any rollout
        probe = MedEnv(task_id, tier, reward=self.reward_spec, out_dir=self.out_dir, options=self.run_options)
        self.task_id = probe.task_id
        self._counters: dict[int, itertools.count[int]] = {}
        self._episodes: dict[str, MedEnv] = {}
        rows = [{"prompt": [{"role": "user", "content": f"{self.task_id} ({tier})"}], "example_id": i,
                 "info": {"task_id": self.task_id, "tier": tier, "group": i}}
                for i in range(num_examples)]
        funcs = [self.reward_fn] + [self._metric(c) for c in COMPONENTS]
        rubric = vf.Rubric(funcs=funcs, weights=[1.0] + [0.0] * len(COMPONENTS))
        super().__init__(eval_dataset=Dataset.from_list(rows), rubric=rubric, env_id="automedbench", **kwargs)

    # ---- the episode ---------------------------------------------------------------------------
    def _seed(self, group: int) -> int:
        counter = self._counters.setdefault(group, itertools.count())
        return group * SEED_STRIDE + next(counter)

    async def setup_state(self, state: Any) -> Any:
        """Open the rollout's episode: its own MedEnv, sandbox and run folder; the prompt and
        the tools the model sees are the episode's."""
        group = int(state["info"].get("group", state["example_id"]))
        seed = self._seed(group)
        # the policy is the model verifiers asks, with its sampling arguments (run.json's agent
        # configuration and config hash: docs/rl.md "Which policy")
        model = state.get("model")
        sampling = state.get("sampling_args")
        env = await asyncio.to_thread(MedEnv, self.task_id, self.tier, reward=self.reward_spec, out_dir=self.out_dir,
                                      options=self.run_options, max_turns=self.episode_max_turns,
                                      agent_name=self.agent_name, model=model if isinstance(model, str) else None,
                                      policy_settings={"framework": "verifiers",
                                                       **({"sampling_args": json.loads(json.dumps(sampling, default=str))}
                                                          if sampling else {})})
        obs = await env.areset(seed, episode={"group": f"verifiers-{group}", "framework": "verifiers"})
        self._episodes[state["trajectory_id"]] = env
        state["prompt"] = normalize_messages(obs.messages, field_name="automedbench.prompt")
        state["tool_defs"] = self._normalize_tool_defs([to_vf_tool(t) for t in obs.tools]) or []
        state[STATE_KEY] = {"run_dir": obs.run_dir, "episode_id": obs.episode_id, "seed": seed, "group": group,
                            "reward": None, "infra": None, "end_reason": None, "components": None}
        if obs.done and obs.final is not None:   # the sandbox could not start
            self._record(state, obs.final)
        return state

    async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
        """The last assistant message goes to MedEnv.step; its tool results come back. When the
        episode ends they are verifiers' final env response (which stops the rollout)."""
        env = self._episodes[state["trajectory_id"]]
        step = await env.astep(to_openai_message(messages[-1]), _usage(state))
        # a nudge, a continue prompt or a refusal is a user message (no call to answer)
        tool_messages = [vf.ToolMessage(tool_call_id=m["tool_call_id"], content=m["content"]) if m["role"] == "tool"
                         else vf.UserMessage(content=m["content"]) for m in step.tool_messages]
        if step.done:
            self._record(state, step)
            state["final_env_response"] = tool_messages
        return tool_messages

    def _record(self, state: Any, step: Step) -> None:
        c = step.components
        facts = state[STATE_KEY]
        facts.update(reward=step.reward, end_reason=step.info.get("end_reason"), infra=c.infra if c else True,
                     components=c.model_dump(mode="json") if c else None)
        if step.reward is None:   # ended by us or the provider: verifiers' infrastructure mark
            cause = state.get("error")
            state["error"] = vf.InfraError(f"automedbench episode {facts['episode_id']} ended as infrastructure "
                                           f"({facts['end_reason']}): drop it, never score it 0"
                                           + (f"; cause: {cause!r}" if cause is not None else ""))
        if state.get("final_env_response") is None:
            state["final_env_response"] = []

    @vf.cleanup  # type: ignore[untyped-decorator]
    async def close_episode(self, state: Any) -> None:
        """A rollout verifiers stopped before the episode ended (its own turn limit, timeout, a
        model error) is closed here: a model error is the provider's (infrastructure)."""
        env = self._episodes.pop(state["trajectory_id"], None)
        if env is None or env.done:
            return
        error = state.get("error")
        reason = "provider_error" if error is not None else "agent_finished"
        final = await env.aclose(reason, f"verifiers stopped the rollout: {error!r}" if error is not None else "")
        if final is not None:
            self._record(state, final)

    # ---- the rubric ----------------------------------------------------------------------------
    @staticmethod
    async def reward_fn(state: Any) -> float:
        """The episode's reward (RewardSpec over its run folder's scores); NaN for infra."""
        reward = state.get(STATE_KEY, {}).get("reward")
        return math.nan if reward is None else float(reward)

    @staticmethod
    def _metric(name: str) -> Any:
        async def metric(state: Any) -> float:
            comps = state.get(STATE_KEY, {}).get("components") or {}
            value = comps.get(name)
            return math.nan if value is None else float(value)
        metric.__name__ = name
        return metric


def load_environment(task_id: str, tier: str = "lite", *, out_dir: str | Path = "episodes",
                     reward: RewardSpec | dict[str, Any] | str | None = None, options: RunOptions | None = None,
                     num_examples: int = 1, max_turns: int | None = None, agent_name: str = EXTERNAL_AGENT,
                     **kwargs: Any) -> MedVerifiersEnv:
    """verifiers' entry point (`vf.load_environment("automedbench.rl.adapters.verifiers_env", ...)`)."""
    return MedVerifiersEnv(task_id, tier, reward=reward, out_dir=out_dir, options=options,
                           num_examples=num_examples, max_turns=max_turns, agent_name=agent_name, **kwargs)
