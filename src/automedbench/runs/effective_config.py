"""The effective configuration of a run: what was actually applied, not how it was asked for.

docs/sweeps.md ("What the lock holds") and docs/llm.md ("What run.json records") state the
rules this module implements:

- an agent's effective configuration is its registry entry with every default filled in
  (endpoint, model, temperature, max_tokens, extra_body, headers as written, limits, retry,
  pricing, ...), minus what does not change what runs: the file it came from and its prose
  description. The API key never appears; only the NAME of its environment variable does;
- a scripted agent's effective configuration is its name and kind;
- an agent that states its own configuration (`configuration()`: an RL episode's outside
  policy, docs/rl.md "Which policy") is recorded and hashed as it states it;
- the limits a run ran under are the tighter of the task's, the agent entry's and the
  caller's (`max_turns`, time limit), plus the ones a task does not set (tokens, cost);
- `config_hash` is a short sha256 of the canonical JSON of a configuration: the same
  configuration reached another way (a flag or a file, an env var or an option) hashes the
  same, any changed value hashes differently.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from ..data import data_root
from ..llm.registry import Limits, load_agent_configs
from ..tasks import get_task

# fields of an agent entry that do not change what runs (where it came from, its prose)
_NOT_CONFIGURATION = frozenset({"source", "description"})


def config_hash(config: Any) -> str:
    """16 hex digits of the sha256 of the canonical JSON of `config`."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def agent_configuration(agent: object) -> dict[str, Any]:
    """The effective configuration of an agent object (an LLM agent, a scripted one, or one
    that states its own with a `configuration()` method)."""
    own = getattr(agent, "configuration", None)
    if callable(own):
        return dict(own())
    config = getattr(agent, "config", None)
    if config is not None and hasattr(config, "model_dump"):
        data = config.model_dump(mode="json", exclude=set(_NOT_CONFIGURATION))
        return {"kind": "llm", **data}
    return {"kind": "scripted", "name": getattr(agent, "name", None) or type(agent).__name__}


def agent_configuration_by_name(name: str, agent_configs: list[Path] | None = None, *,
                                scripted: Collection[str] = ()) -> dict[str, Any]:
    """agent_configuration() of the agent `name` without building it: a `scripted` name (these
    come first, as in agents.get_agent) is its name, a registry entry its configuration. A name
    that is neither is a scripted agent too: a sweep has refused unknown agents before it
    computes its lock (runs/sweep.py validate)."""
    configs = load_agent_configs(agent_configs)
    if name in scripted or name not in configs:
        return {"kind": "scripted", "name": name}
    return {"kind": "llm", **configs[name].model_dump(mode="json", exclude=set(_NOT_CONFIGURATION))}


def judge_configuration(judges: list[str] | None, agent_configs: list[Path] | None = None) -> list[dict[str, Any]]:
    """The effective configuration of the S1-S3 judge (or panel): one entry per judge,
    'heuristic' as its name, an LLM judge as its registry entry (as for agents), another judge
    class (a plug-in of the judge registry, docs/architecture.md "One registry") by its name. An
    unknown name never gets here: the sweep checks every judge before it writes the lock."""
    names = [n for n in (judges or []) if n] or ["heuristic"]
    configs = load_agent_configs(agent_configs)
    out: list[dict[str, Any]] = []
    for n in names:
        if n == "heuristic":
            out.append({"kind": "heuristic", "name": n})
        elif n in configs:
            out.append({"kind": "llm", **configs[n].model_dump(mode="json", exclude=set(_NOT_CONFIGURATION))})
        else:
            out.append({"kind": "class", "name": n})
    return out


def _tighter(a: Any, b: Any) -> Any:
    return a if b is None else b if a is None else min(a, b)


def effective_limits(task: Any, agent: object, *, exec_timeout_s: float, network: bool,
                     caller: Limits | None = None) -> dict[str, Any]:
    """The limits a run runs under: the tighter of the task's, the agent entry's and the
    caller's (`caller`: open_run's overrides, an RL episode's, docs/rl.md "Limits");
    `set_by` says which one set the turn and time limits."""
    sources = [("agent", getattr(getattr(agent, "config", None), "limits", None)), ("caller", caller)]
    max_turns, time_limit_s = task.max_turns, task.time_limit_s
    set_by = {"max_turns": "task", "time_limit_s": "task"}
    out: dict[str, Any] = {}
    for who, limits in sources:
        if limits is None:
            continue
        if limits.max_turns is not None and limits.max_turns < max_turns:
            max_turns, set_by["max_turns"] = limits.max_turns, who
        if limits.wall_time_s is not None and limits.wall_time_s < time_limit_s:
            time_limit_s, set_by["time_limit_s"] = limits.wall_time_s, who
        out["max_total_tokens"] = _tighter(out.get("max_total_tokens"), limits.max_total_tokens)
        out["max_cost_usd"] = _tighter(out.get("max_cost_usd"), limits.max_cost_usd)
    out.update({"time_limit_s": time_limit_s, "max_turns": max_turns, "exec_timeout_s": exec_timeout_s,
                "network": network, "set_by": set_by})
    return out


def describe_change(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """'agents.x.temperature: 0.2 -> 0.9' for every leaf that differs (sorted, at most 8)."""
    changes: list[str] = []

    def walk(a: Any, b: Any, path: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b), key=str):
                walk(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
        elif a != b:
            changes.append(f"{path}: {json.dumps(a, default=str)} -> {json.dumps(b, default=str)}")
    walk(old, new, prefix)
    return changes[:8] + ([f"... {len(changes) - 8} more"] if len(changes) > 8 else [])


# options of a sweep that are ways of FINDING a configuration (files, folders), replaced in the
# lock by what they resolve to (docs/sweeps.md "What the lock holds")
_LOCATORS = ("agent_configs", "tasks_dirs", "data_root", "judges")


def sweep_lock_config(spec: Any, cells: Sequence[Any], scripted: Collection[str]) -> dict[str, Any]:
    """What a sweep root is locked to: its cells (expand_cells(spec)), the options that change
    results, and the effective configuration of every agent, judge and task (not the paths they
    came from). `scripted`: the scripted agents' names (handed in: runs does not import agents)."""
    o = spec.options
    agent_files = [Path(p) for p in o.agent_configs] if o.agent_configs else None
    task_dirs = [Path(p) for p in o.tasks_dirs] if o.tasks_dirs else None
    agents = list(dict.fromkeys(c.agent for c in cells))
    tasks = sorted({c.task for c in cells})
    return {
        "cells": [c.key for c in cells],
        "options": {k: v for k, v in o.lock_options().items() if k not in _LOCATORS},
        "agents": {a: agent_configuration_by_name(a, agent_files, scripted=scripted) for a in agents},
        "judges": judge_configuration(o.judges, agent_files),
        "tasks": {t: config_hash(get_task(t, task_dirs).snapshot()) for t in tasks},
        "data_root": str(data_root(o.data_root).resolve()),
    }
