"""Refuse, before any cell runs, what cannot work (docs/sweeps.md "Refused before any cell"):

- an LLM agent whose endpoint has a configuration error (refused connection, HTTP
  401/403/404, unknown model): one check per agent, llm/check.py;
- a scripted agent on a task whose track has no scripted method for it;
- a cell asking for more GPUs than the machine (or cluster) offers;
- an LLM agent on a lite tier whose pinned requirements the sandbox cannot install (network
  off) and the agent runtime does not have.
Each is a user error naming the cell(s); nothing is run.

The runs layer knows neither the agents nor the sandbox (docs/architecture.md, "Layers"): which
agents are scripted and which packages the agent runtime holds are handed in by the caller
(the sweep scheduler, lifecycle/sweep.py).
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any, Callable

from ..errors import UserError
from ..llm.check import preflight
from ..llm.registry import load_agent_configs
from ..tracks.base import pick_reference_method


class ImpossibleCellError(UserError, ValueError):
    """A cell that cannot produce a meaningful run; the message names it and why."""


def _cells_text(keys: list[str]) -> str:
    return ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")


def llm_configs(agent_names: Iterable[str], agent_configs: list[Path] | None,
                scripted: Collection[str]) -> list[Any]:
    """The registry entries of the LLM agents among `agent_names` (the `scripted` ones have none)."""
    names = [n for n in dict.fromkeys(agent_names) if n not in scripted]
    if not names:
        return []
    configs = load_agent_configs(agent_configs)
    return [configs[n] for n in names if n in configs]


def check_endpoints(agent_names: Iterable[str], agent_configs: list[Path] | None,
                    scripted: Collection[str]) -> None:
    """One tiny request per LLM agent; EndpointConfigError (a UserError) on a configuration error."""
    configs = llm_configs(agent_names, agent_configs, scripted)
    if configs:
        preflight(configs)


# scripted agents that need the track's methods (others, e.g. `empty`, run on any task)
_NEEDS_METHODS = ("reference", "careless")


def check_scripted_methods(cells: Iterable[Any], tasks: dict[str, Any], *, command: str = "sweep") -> None:
    """A scripted agent that writes outputs with the track's scripted methods cannot run on a
    task whose track has none that fits (tracks/base.py pick_reference_method): refuse those
    cells (they would end `agent_crash`), saying what each method is missing and the way out
    in the words of `command` ("run": --agent; "sweep": exclude:)."""
    bad: dict[str, list[str]] = {}
    agents: list[str] = []
    for c in cells:
        if c.agent not in _NEEDS_METHODS:
            continue
        task = tasks[c.task]
        if task.track_impl.scripted_methods(task.options) is None:
            bad.setdefault(task.id, []).append(c.key)
            agents.append(c.agent)
    if not bad:
        return
    why = "; ".join(f"task {tid}: {_missing(tasks[tid])}" for tid in bad)
    if command == "run":
        raise ImpossibleCellError(
            f"`automedbench run --agent {agents[0]}` cannot run here: no classical method of the task's track "
            f"fits it ({why}); change the task's track_options as that says (docs/your-task.md section 5), "
            "or run an LLM agent with `--agent NAME`")
    keys = [k for ks in bad.values() for k in ks]
    raise ImpossibleCellError(
        f"cell(s) {_cells_text(keys)}: the scripted agent has no method for the task ({why}); "
        "drop these cells with `exclude:`, change the task's track_options as said "
        "(docs/your-task.md section 5), or use an LLM agent")


def _missing(task: Any) -> str:
    """What each of the track's methods is missing for `task`, or that the track has none."""
    reasons = pick_reference_method(task.track_impl, task.options)[1]
    return "; ".join(reasons) if reasons else f"track {task.track!r} lists no classical method"


def check_gpus(cells: Iterable[Any], resources_of: Callable[[Any], Any], pool_check: Callable[[Any], str | None]) -> None:
    """Cells whose resource request the executor can never satisfy (e.g. a GPU on a machine without one)."""
    bad: dict[str, list[str]] = {}
    for c in cells:
        why = pool_check(resources_of(c))
        if why:
            bad.setdefault(why, []).append(c.key)
    if bad:
        raise ImpossibleCellError("; ".join(f"cell(s) {_cells_text(keys)} {why}" for why, keys in bad.items())
                                  + " (set `resources`/`task_resources` in the sweep file, or run on a GPU machine)")


def _canon(name: str) -> str:
    """A distribution's normalised name (PEP 503), as sandbox/runtime.py lists the runtime's."""
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def check_requirements(cells: Iterable[Any], tasks: dict[str, Any], network: bool | None,
                       sandbox: str | None = None, *, have: set[str] | None,
                       scripted: Collection[str] = ()) -> None:
    """Lite cells whose pinned requirements cannot be installed (network off) and are not in the
    agent runtime (`have`: its distributions, sandbox/runtime.py `runtime_package_names`). Not
    checked for the docker backend (its image is the runtime) or a prepared runtime whose
    packages cannot be listed (`have` None). `scripted` agents install nothing."""
    if sandbox == "docker" or have is None:
        return
    bad = []
    for c in cells:
        task = tasks[c.task]
        if c.agent in scripted:
            continue
        net = task.network if network is None else network
        if c.tier != "lite" or net:
            continue
        for line in task.tiers.lite.requirements:
            name = line.split(";")[0].split("[")[0]
            for sep in ("==", ">=", "<=", "~=", ">", "<", "!="):
                name = name.split(sep)[0]
            name = _canon(name)
            if name and name not in have:
                bad.append(f"{c.key} needs {name}")
                break
    if bad:
        raise ImpossibleCellError(f"{_cells_text(bad)}, which the agent runtime lacks and the sandbox "
                                  "cannot install with the network off (turn the network on or add the "
                                  "package to the runtime)")
