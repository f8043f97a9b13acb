"""Policies for the RL tests: module-level and picklable, so a process pool or Ray can run them.

`ReplayPolicy` replays a fixed list of assistant messages (recorded from a `run`, or written as a
scripted model would send them): the next message is the one after as many assistant messages
as the conversation already holds. It answers nothing from the tool results: an honest replay."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from automedbench.run_files import RunFiles
from tests.llm.fake_openai import call
from tests.llm.scripted_llm import agent_script

DATA = "/data/public"     # the data folder as the bwrap sandbox shows it


def assistant_messages(run_dir: Path | str) -> list[dict[str, Any]]:
    """The assistant messages of a recorded run, in order (its conversation.json)."""
    conv = json.loads(RunFiles(run_dir).conversation.read_text())
    return [{k: v for k, v in m.items() if k in ("role", "content", "tool_calls")}
            for m in conv["messages"] if m["role"] == "assistant"]


def scripted_llm_messages() -> list[dict[str, Any]]:
    """tests/llm/scripted_llm.py's trajectory (plan, setup, pilot, batch, submit) as messages."""
    return [r["json"]["choices"][0]["message"] for r in agent_script(DATA)]


def looks_and_submits() -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": "",
             "tool_calls": [call("execute_code", {"language": "bash", "code": f"# S1\nls {DATA}"})]},
            {"role": "assistant", "content": "", "tool_calls": [call("submit_results", {})]}]


class ReplayPolicy:
    def __init__(self, scripts: list[list[dict[str, Any]]], script: int = 0):
        self.scripts = scripts
        self.script = script

    def for_seed(self, seed: int | None) -> ReplayPolicy:
        """Seed s plays script s mod len(scripts)."""
        return ReplayPolicy(self.scripts, (seed or 0) % len(self.scripts))

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        n = sum(1 for m in messages if m["role"] == "assistant")
        script = self.scripts[self.script]
        return script[n] if n < len(script) else {"role": "assistant", "content": "done"}


class SomeSeedsDown:
    """Seeds in `down` ask an OpenAI-compatible endpoint that refuses connections (a provider
    outage, for real: the client's retries, then provider_unavailable); the others replay."""

    def __init__(self, replay: ReplayPolicy, down: set[int], dead_url: str):
        self.replay, self.down, self.dead_url = replay, down, dead_url

    def for_seed(self, seed: int | None) -> Any:
        from automedbench.rl import OpenAIPolicy
        if seed in self.down:
            return OpenAIPolicy(self.dead_url, "nobody", max_retries=1, timeout_s=2,
                                retry={"backoff_base_s": 0.01, "backoff_max_s": 0.02})
        return self.replay.for_seed(seed)
