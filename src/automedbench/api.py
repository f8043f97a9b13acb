"""The Python API. The CLI (cli.py) is a thin layer over these functions.

    run_one(task, tier, agent, out_dir)   one cell -> run directory (scored)
    sweep(tasks, tiers, agents, ...)      many cells, resumable, in a process pool
    score(run_dir)                        re-score a saved run from its workspace alone
    judge(run_dirs, judges)               re-judge saved runs (S1..S3) without the agent
    report(paths, out_dir)                leaderboard from run directories
"""
from __future__ import annotations

import logging
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .agents import AgentContext, RunStopped, ToolBox, get_agent
from .data import DatasetError, dataset_paths
from .prompts.render import kickoff_message, render_prompt
from .runs.layout import RunFiles, RunMeta, new_run_id, now_iso, write_json_atomic
from .runs.models import Conversation, DetailReport, RunInfo
from .runs.trace import TraceWriter
from .sandbox import SandboxSpec, open_sandbox
from .scoring.score_run import score_run
from .tasks import Task, check_tier, get_task

log = logging.getLogger(__name__)


# the built-in scripted agents the demo runs on every task marked `demo: true`
DEMO_AGENTS = ["reference", "careless", "empty"]


def demo_tasks(tasks_dirs: list[Path] | None = None) -> list[str]:
    """Task ids marked `demo: true` (one per track): the demo's default cells."""
    from .tasks import discover
    return sorted(t.id for t in discover(tasks_dirs).values() if t.demo)


def default_backend() -> str:
    """bwrap when its binary is installed, else `local` — which warns loudly and marks every
    report `local (no isolation)`."""
    import shutil

    from .sandbox import DEFAULT_BACKEND
    if DEFAULT_BACKEND == "bwrap" and shutil.which("bwrap") is None:
        log.warning("bubblewrap (bwrap) is not installed: falling back to the 'local' backend, which "
                    "isolates NOTHING. Install it with: sudo apt-get install bubblewrap")
        return "local"
    return DEFAULT_BACKEND


def ensure_dataset(task: Task, data_root: Path | str | None = None):
    """The task's dataset, building embedded demo datasets on first use."""
    paths = dataset_paths(task.dataset, data_root)
    if paths.is_staged():
        return paths
    from .data.registry import DATASETS, stage
    info = DATASETS.get(task.dataset)
    if info is None:
        raise DatasetError(f"task {task.id!r} needs unknown dataset {task.dataset!r}")
    if info.kind != "demo":
        raise DatasetError(f"dataset {task.dataset!r} is not staged under {paths.root}; "
                           f"run `automedbench data stage {task.dataset} --source DIR` first")
    return stage(task.dataset, data_root)


def run_one(task_id: str, tier: str, agent_name: str, out_dir: Path | str = "runs", *,
            run_dir: Path | None = None, sandbox: str | None = None, network: bool | None = None,
            data_root: Path | str | None = None, tasks_dirs: list[Path] | None = None,
            agent_configs: list[Path] | None = None, judges: list[str] | None = None,
            exec_timeout_s: float = 600.0) -> Path:
    """Run one (task, tier, agent) cell end to end and score it. Returns the run directory.

    Agent faults (crash, limits, violations) end the run and are recorded; the run is
    still scored. Only user errors (unknown task/tier/agent, unstaged official data) raise."""
    task = get_task(task_id, tasks_dirs)
    check_tier(tier)
    agent = get_agent(agent_name, agent_configs)
    data = ensure_dataset(task, data_root)
    manifest = data.load_manifest()
    backend = sandbox or default_backend()

    run_id = new_run_id(agent_name, task.id, tier)
    run_dir = Path(run_dir) if run_dir else Path(out_dir) / run_id
    files = RunFiles(run_dir)
    files.workspace.mkdir(parents=True, exist_ok=True)
    for stale in (files.trace, files.judge, files.report):
        stale.unlink(missing_ok=True)  # a re-used cell directory starts clean

    spec = SandboxSpec(public_dir=data.public, workspace=files.workspace,
                       network=task.network if network is None else network, timeout_s=exec_timeout_s)
    t0 = time.monotonic()
    info = RunInfo(run_id=run_id, agent=agent_name, model=getattr(agent, "model", None), task=task.id,
                   track=task.track, tier=tier, started_at=now_iso(), sandbox=backend)
    from . import __version__
    from .data import sha256_file
    from .scoring.rubric import load_rubric
    from .scoring.score_run import task_hash
    snapshot = task.snapshot()
    meta = RunMeta(run=info, dataset=task.dataset, dataset_root=str(data.root.resolve()),
                   tasks_dirs=[str(Path(p).resolve()) for p in (tasks_dirs or [])],
                   case_ids=[c["case_id"] for c in manifest["cases"]],
                   task_snapshot=snapshot, task_hash=task_hash(snapshot),
                   manifest_sha256=sha256_file(data.manifest), harness_version=__version__,
                   rubric_version=str(load_rubric().version), judges=list(judges or []) or None,
                   limits={"time_limit_s": task.time_limit_s, "max_turns": task.max_turns,
                           "exec_timeout_s": exec_timeout_s, "network": spec.network})
    write_json_atomic(files.meta, meta)
    trace = TraceWriter(files.trace, t0)
    box = None
    try:
        sb = open_sandbox(backend, spec)
        info.sandbox = sb.name
        system_prompt = render_prompt(task, tier, data_dir=sb.data_dir, workspace_dir=sb.workspace_dir,
                                      exec_timeout_s=int(exec_timeout_s), network=spec.network)
        conversation = Conversation(system_prompt=system_prompt)
        box = ToolBox(sb, trace, conversation, deadline=t0 + task.time_limit_s, max_turns=task.max_turns,
                      block_training=task.block_training)
        context = AgentContext(task_id=task.id, tier=tier, data_dir=sb.data_dir, workspace_dir=sb.workspace_dir,
                               kickoff=kickoff_message(task, tier), output_files=task.output_files,
                               input_files=task.input_files, track=task.track, track_options=task.options,
                               candidates=list(task.tiers.standard.candidates),
                               target_keywords=list(task.target_keywords))
        trace.emit("run_start", data={"task": task.id, "tier": tier, "agent": agent_name, "sandbox": sb.name})
        try:
            outcome = agent.run(system_prompt, context, box)
            info.end_reason = outcome.end_reason
            info.model = outcome.model or info.model
        except RunStopped as stop:
            info.end_reason = stop.reason
        except Exception as exc:  # a crashed agent must not crash the sweep
            info.end_reason = "agent_crash"
            trace.emit("error", kind="agent_crash", message=f"{type(exc).__name__}: {exc}",
                       data={"traceback": traceback.format_exc()[-4000:]})
        finally:
            sb.close()
        write_json_atomic(files.conversation, conversation)
    except Exception as exc:  # the harness side failed (sandbox could not start...)
        info.end_reason = "harness_error"
        trace.emit("error", kind="infrastructure", message=f"{type(exc).__name__}: {exc}")
        log.error("run %s: harness error: %s", run_id, exc)
    finally:
        if box is not None:
            info.turns, info.submitted = box.turns, box.submitted
            info.tokens_in, info.tokens_out, info.cost_usd = box.tokens_in, box.tokens_out, round(box.cost_usd, 6)
            meta.disqualified = box.disqualified
            meta.violations = box.violations
        info.wall_time_s = round(time.monotonic() - t0, 3)
        trace.emit("run_end", kind=info.end_reason, data={"turns": info.turns, "submitted": info.submitted})
        trace.close()
        write_json_atomic(files.meta, meta)

    from .scoring.judge import get_judge
    score_run(run_dir, judge=get_judge(judges, agent_configs))
    return run_dir


def score(run_dir: Path | str) -> DetailReport:
    """Re-score a saved run from its workspace outputs (no agent); rewrites detail_report.json."""
    return score_run(Path(run_dir))


def judge(run_dirs: Iterable[Path | str], judges: list[str], agent_configs: list[Path] | None = None) -> list[DetailReport]:
    from .scoring.judge import get_judge
    j = get_judge(judges, agent_configs)
    return [score_run(Path(d), judge=j) for d in run_dirs]


# ---- sweeps ------------------------------------------------------------------------

@dataclass(frozen=True)
class Cell:
    task: str
    tier: str
    agent: str
    repeat: int

    def dir(self, root: Path) -> Path:
        return root / self.task / self.tier / self.agent / f"rep{self.repeat}"


def _run_cell(cell: Cell, root: str, kwargs: dict) -> tuple[Cell, str, str | None]:
    try:
        path = run_one(cell.task, cell.tier, cell.agent, run_dir=cell.dir(Path(root)), **kwargs)
        return cell, str(path), None
    except Exception as exc:  # one bad cell never stops a sweep
        return cell, str(cell.dir(Path(root))), f"{type(exc).__name__}: {exc}"


def sweep(tasks: list[str], tiers: list[str], agents: list[str], out_dir: Path | str = "runs", *,
          repeats: int = 1, workers: int = 1, resume: bool = True,
          progress: Callable[[Cell, str, str | None], None] | None = None, **kwargs) -> list[tuple[Cell, str, str | None]]:
    """Run every (task, tier, agent, repeat) cell. With resume, cells whose run directory
    already holds a detail_report.json are skipped, so an interrupted sweep picks up where it
    stopped. Returns (cell, run_dir, error-or-None) for every cell."""
    root = Path(out_dir)
    for t in tasks:        # fail fast on user errors, before any work
        task = get_task(t, kwargs.get("tasks_dirs"))
        ensure_dataset(task, kwargs.get("data_root"))
    for tier in tiers:
        check_tier(tier)
    for a in agents:
        get_agent(a, kwargs.get("agent_configs"))
    cells = [Cell(t, tier, a, r) for t in tasks for tier in tiers for a in agents for r in range(repeats)]
    results, todo = [], []
    for cell in cells:
        if resume and RunFiles(cell.dir(root)).report.is_file():
            results.append((cell, str(cell.dir(root)), None))
            if progress:
                progress(cell, str(cell.dir(root)), None)
        else:
            todo.append(cell)
    if workers <= 1:
        for cell in todo:
            res = _run_cell(cell, str(root), kwargs)
            results.append(res)
            if progress:
                progress(*res)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(_run_cell, cell, str(root), kwargs) for cell in todo]
            for fut in as_completed(futures):
                res = fut.result()
                results.append(res)
                if progress:
                    progress(*res)
    order = {c: i for i, c in enumerate(cells)}
    return sorted(results, key=lambda r: order[r[0]])
