"""Judges by name: `heuristic` (offline default) or LLM judges from the agent registry."""
from __future__ import annotations

from pathlib import Path


def get_judge(names: list[str] | None = None, agent_configs: list[Path] | None = None):
    if not names or names == ["heuristic"]:
        from .heuristic import HeuristicJudge
        return HeuristicJudge()
    raise ValueError(f"LLM judges {names} are not available in this build (only 'heuristic')")
