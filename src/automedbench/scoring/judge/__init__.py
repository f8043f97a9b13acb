"""Judges for S1..S3: judge classes from the one registry (`JUDGES`: heuristic, the offline
default, and plug-ins of the entry-point group `automedbench.judges`), llm (any OpenAI-compatible
endpoint from the agent registry), and a panel of several with agreement statistics."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ...llm.registry import load_agent_configs
from .base import JUDGES, BareJudge, Judge, JudgeBase, JudgeError, JudgeEvidence, as_judge
from .heuristic import HeuristicJudge
from .llm import LLMJudge
from .panel import JudgePanel

HEURISTIC = "heuristic"


def get_judge(names: list[str] | None = None, agent_configs: list[Path] | None = None, **llm_options: Any) -> Judge:
    """None / [] / ["heuristic"] -> HeuristicJudge; one registry name -> LLMJudge;
    several names -> JudgePanel (names may include "heuristic").
    `llm_options` go to every LLMJudge (cache_dir=, use_cache=, retries=, digest_budget=)."""
    names = [n for n in (names or []) if n] or [HEURISTIC]
    judges = [_one(n, agent_configs, llm_options) for n in names]
    return judges[0] if len(judges) == 1 else JudgePanel(judges)


def _one(name: str, agent_configs: list[Path] | None, llm_options: dict[str, Any]) -> Judge:
    if name in JUDGES:
        return as_judge(JUDGES.get(name)())
    configs = load_agent_configs(agent_configs)
    if name not in configs:
        raise JudgeError(f"unknown agent/judge {name!r}; judge classes: {', '.join(JUDGES.names())}; "
                         f"LLM judges (agent registry): {', '.join(sorted(configs)) or 'none'}")
    return LLMJudge(configs[name], **llm_options)


__all__ = ["BareJudge", "HeuristicJudge", "JUDGES", "Judge", "JudgeBase", "JudgeError", "JudgeEvidence", "as_judge",
           "get_judge"]
