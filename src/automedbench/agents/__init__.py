"""Agents by name: the built-in scripted agents, then LLM agents from the YAML registry."""
from __future__ import annotations

from pathlib import Path

from ..errors import UserError
from ..llm.registry import load_agent_configs
from .base import Agent, AgentContext, AgentOutcome, RunStopped, ToolBox
from .llm import LLMAgent
from .scripted import SCRIPTED_AGENTS
from .traits import TRAIT_AGENTS  # the judge's calibration agents (docs/judge.md)


class AgentError(UserError, ValueError):
    pass


def scripted_agents() -> dict[str, type]:
    return {**SCRIPTED_AGENTS, **TRAIT_AGENTS}


def agent_names(agent_configs: list[Path] | None = None) -> list[str]:
    return list(scripted_agents()) + list(load_agent_configs(agent_configs))


def get_agent(name: str, agent_configs: list[Path] | None = None) -> Agent:
    """A scripted agent by name, else an LLM agent from the registry (built-in + files)."""
    scripted = scripted_agents()
    if name in scripted:
        return scripted[name]()
    configs = load_agent_configs(agent_configs)
    if name in configs:
        return LLMAgent(configs[name])
    raise AgentError(f"unknown agent {name!r}; known: {', '.join(agent_names(agent_configs))}")


def check_ready(agent: Agent) -> None:
    """Raise a user error (naming the env var) if `agent` cannot start, e.g. an LLM agent
    whose `api_key_env` is unset. Call it before the first turn (docs/faults.md). Scripted agents
    need nothing."""
    ready = getattr(agent, "check_ready", None)
    if callable(ready):
        ready()


__all__ = ["Agent", "AgentContext", "AgentOutcome", "AgentError", "RunStopped", "ToolBox",
           "check_ready", "get_agent", "agent_names"]
