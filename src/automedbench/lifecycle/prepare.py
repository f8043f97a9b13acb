"""prepare: everything a run needs, checked before anything runs (user errors, docs/faults.md):
task, tier, agent and its key, judge(s) and theirs, not the agent's own model as judge, the
sandbox backend (and network), the data staged. Also the sweep's version of the same checks."""
from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..agents import Agent, get_agent, scripted_agents
from ..agents import check_ready as check_agent_ready
from ..data import DatasetError, DatasetPaths, dataset_paths
from ..datasets import DATASETS, stage
from ..llm.answer_judge import get_answer_judge
from ..runs.options import RunOptions
from ..runs.preflight import check_scripted_methods
from ..runs.sweep import Cell
from ..sandbox import DEFAULT_BACKEND, check_backend
from ..scoring.judge import Judge, get_judge
from ..tasks import Task, check_tier, get_task
from .policy import check_judge_ready, check_self_judge

log = logging.getLogger(__name__)


@dataclass
class Prepared:
    """Everything a run needs, checked before anything runs."""
    task: Task
    agent: Agent
    judge: Judge
    backend: str
    data: DatasetPaths


def default_backend() -> str:
    """bwrap when its binary is installed, else `local` — which warns loudly and marks every
    report `local (no isolation)`."""
    if DEFAULT_BACKEND == "bwrap" and shutil.which("bwrap") is None:
        log.warning("bubblewrap (bwrap) is not installed: falling back to the 'local' backend, which "
                    "isolates NOTHING. Install it with: sudo apt-get install bubblewrap")
        return "local"
    return DEFAULT_BACKEND


def ensure_dataset(task: Task, data_root: Path | str | None = None) -> DatasetPaths:
    """The task's dataset, building embedded demo datasets on first use."""
    paths = dataset_paths(task.dataset, data_root)
    if paths.is_staged():
        return paths
    info = DATASETS.get(task.dataset)
    if info is None:
        raise DatasetError(f"task {task.id!r} needs unknown dataset {task.dataset!r}")
    if info.kind != "demo":
        raise DatasetError(f"dataset {task.dataset!r} is not staged under {paths.root}; "
                           f"run `automedbench data stage {task.dataset} --source DIR` first")
    return stage(task.dataset, data_root)


def prepare_run(task_id: str, tier: str, agent: str | Agent, options: RunOptions | None = None, *,
                command: str = "run") -> Prepared:
    """Check a run can start. Raises UserError before any agent turn or paid call. `agent`: an
    agent's name (a scripted agent or an entry of the endpoint registry), or an agent object of
    the caller's (an RL episode's policy, with its own `name` and `model`: docs/rl.md "Which
    policy")."""
    options = options or RunOptions()
    agent_configs = options.agent_config_paths
    task = get_task(task_id, options.tasks_dir_paths)
    check_tier(tier)
    if isinstance(agent, str):
        agent_name, agent = agent, get_agent(agent, agent_configs)
        # a scripted agent with no method here would only crash (runs/preflight.py)
        # `command` ("run" or "sweep") words a refusal as the command that was run would (runs/preflight.py)
        check_scripted_methods([Cell(task.id, tier, agent_name, 0)], {task.id: task}, command=command)
    check_agent_ready(agent)    # an LLM agent whose key/header variables are unset: a user error
    judge = get_judge(options.judges, agent_configs)
    check_judge_ready(judge)
    check_self_judge(agent.model, judge, options.allow_self_judge)
    if options.answer_judge:   # unknown name or unset key: a user error now, not after the agent's turns
        get_answer_judge(options.answer_judge, agent_configs)
    backend = options.sandbox or default_backend()
    # network on that this machine cannot give is a user error now, never a lost run (netcheck.py)
    check_backend(backend, network=task.network if options.network is None else options.network)
    data = ensure_dataset(task, options.data_root)
    return Prepared(task, agent, judge, backend, data)


def check_sweep(tasks: list[str], tiers: list[str], agents: list[str], options: RunOptions) -> None:
    """Every user error of a sweep before any cell runs. None of prepare_run's checks depends
    on the combination, so each task (and its data), tier and agent is checked once, not
    once per (task, tier, agent)."""
    if not (tasks and tiers and agents):
        return
    for t in tasks:
        prepare_run(t, tiers[0], agents[0], options, command="sweep")
    for tier in tiers[1:]:
        check_tier(tier)
    for a in agents[1:]:
        prepare_run(tasks[0], tiers[0], a, options, command="sweep")


def scripted_agent_names() -> frozenset[str]:
    """The agents with no endpoint (built-in and plug-in scripted agents)."""
    return frozenset(scripted_agents())
