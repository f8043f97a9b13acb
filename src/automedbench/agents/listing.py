"""`automedbench agents list`: scripted agents and the LLM agents of the endpoint registry
(`automedbench.llm.registry`) in one table."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..llm.registry import load_agent_configs
from . import AGENT_CLASSES


def list_agents(extra_files: list[Path] | None = None) -> list[dict[str, Any]]:
    """Rows for `automedbench agents list`: name, kind, model, base_url, key env, set?, pricing,
    source (origin: built-in, a plug-in's distribution, or the YAML file), description."""
    rows: list[dict[str, Any]] = []
    for entry in AGENT_CLASSES.entries():
        rows.append({"name": entry.name, "kind": "scripted", "model": None, "base_url": None,
                     "api_key_env": None, "key_set": None, "input_per_mtok": None,
                     "output_per_mtok": None, "vision": False, "source": entry.origin,
                     "description": entry.description})
    for cfg in load_agent_configs(extra_files).values():
        rows.append({"name": cfg.name, "kind": cfg.kind, "model": cfg.model, "base_url": cfg.base_url,
                     "api_key_env": cfg.api_key_env,
                     "key_set": (bool(os.environ.get(cfg.api_key_env)) if cfg.api_key_env else None),
                     "input_per_mtok": cfg.pricing.input_per_mtok, "output_per_mtok": cfg.pricing.output_per_mtok,
                     "vision": cfg.vision, "source": cfg.source, "description": cfg.description})
    return rows
