"""Agents by name: agent classes from the one registry (`AGENT_CLASSES`: the built-in scripted and
calibration agents, plug-ins of the entry-point group `automedbench.agents`; docs/architecture.md
"One registry"), then LLM agents, which are data: entries of the YAML endpoint registry
(llm/registry.py), each run by the class of its `kind`: `LLMAgent` (our loop) or an outside
scaffold's (`MiniSweAgent`), or an agent's own CLI behind the model gateway (`CliAgent`, docs/agents.md)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..llm.registry import AgentConfig, load_agent_configs
from ..plugins import Registry
from .cli_agent import CliAgent
from .base import Agent, AgentContext, AgentOutcome, RunStopped, ToolBox
from .llm import LLMAgent
from .mini_swe_agent import MiniSweAgent
from .scripted import SCRIPTED_AGENTS
from .traits import TRAIT_AGENTS  # the judge's calibration agents (docs/judge.md)


class AgentError(UserError, ValueError):
    pass


AgentFactory = Callable[[], Agent]

# an endpoint entry's `kind` -> the agent that runs it (llm/registry.py AGENT_KINDS names them)
ENTRY_KINDS: dict[str, Callable[[AgentConfig], Agent]] = {"llm": LLMAgent, "mini-swe-agent": MiniSweAgent,
                                                           "cli": CliAgent}


def _agent_class(obj: Any, where: str) -> AgentFactory:
    """An agent class (or factory) builds an agent with no arguments; it needs no endpoint entry."""
    if not callable(obj) or (isinstance(obj, type) and not callable(getattr(obj, "run", None))):
        raise AgentError(f"{where}: not an agent class (a class with run(system_prompt, context, tools), "
                         "built with no arguments)")
    return obj


AGENT_CLASSES: Registry[AgentFactory] = Registry(
    "agent", group="automedbench.agents", validate=_agent_class, error=AgentError)
for _name, _cls in SCRIPTED_AGENTS.items():
    AGENT_CLASSES.add(_name, _cls)
for _name, _cls in TRAIT_AGENTS.items():
    AGENT_CLASSES.add(_name, _cls, description=f"judge calibration: {getattr(_cls, 'trait', '')}")


def scripted_agents() -> dict[str, AgentFactory]:
    """The agents built from a class (no endpoint, no registry entry): built-ins and plug-ins."""
    return dict(AGENT_CLASSES.items())


def agent_names(agent_configs: list[Path] | None = None) -> list[str]:
    return list(scripted_agents()) + list(load_agent_configs(agent_configs))


def get_agent(name: str, agent_configs: list[Path] | None = None) -> Agent:
    """An agent class by name, else an LLM agent from the endpoint registry (built-in + files)."""
    if name in AGENT_CLASSES:
        return AGENT_CLASSES.get(name)()
    configs = load_agent_configs(agent_configs)
    if name in configs:
        return ENTRY_KINDS[configs[name].kind](configs[name])
    raise AgentError(f"unknown agent {name!r}; known: {', '.join(agent_names(agent_configs))}")


def check_ready(agent: Agent) -> None:
    """Raise a user error (naming the env var) if `agent` cannot start, e.g. an LLM agent
    whose `api_key_env` is unset. Call it before the first turn (docs/faults.md). Scripted agents
    need nothing."""
    ready = getattr(agent, "check_ready", None)
    if callable(ready):
        ready()


__all__ = ["AGENT_CLASSES", "Agent", "AgentContext", "AgentOutcome", "AgentError", "RunStopped", "ToolBox",
           "check_ready", "get_agent", "agent_names"]
