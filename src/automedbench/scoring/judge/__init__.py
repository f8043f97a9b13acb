"""Judges for S1..S3: heuristic (offline default), llm (any OpenAI-compatible endpoint
from the agent registry), and a panel of several with agreement statistics."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ...llm.registry import get_agent_config
from .base import Judge, JudgeEvidence
from .heuristic import HeuristicJudge
from .llm import LLMJudge
from .panel import JudgePanel

HEURISTIC = "heuristic"


def get_judge(names: list[str] | None = None, agent_configs: list[Path] | None = None,
              **llm_options: Any) -> Judge:
    """None / [] / ["heuristic"] -> HeuristicJudge; one registry name -> LLMJudge;
    several names -> JudgePanel (names may include "heuristic").
    `llm_options` go to every LLMJudge (cache_dir=, use_cache=, retries=, digest_budget=)."""
    names = [n for n in (names or []) if n]
    if not names:
        names = [HEURISTIC]
    judges = [_one(n, agent_configs, llm_options) for n in names]
    if len(judges) == 1:
        return judges[0]
    return JudgePanel(judges)


def _one(name: str, agent_configs: list[Path] | None, llm_options: dict[str, Any]) -> Judge:
    if name == HEURISTIC:
        return HeuristicJudge()
    return LLMJudge(get_agent_config(name, agent_configs), **llm_options)


__all__ = ["Judge", "JudgeEvidence", "get_judge"]
