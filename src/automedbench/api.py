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
from pathlib import Path
from typing import Callable, Iterable

from .agents import AgentContext, RunStopped, ToolBox, get_agent
from .data import DatasetError, dataset_paths
from .prompts.render import kickoff_message, render_prompt
from .runs.layout import RunFiles, RunMeta, new_run_id, now_iso, write_json_atomic
from .runs.models import Conversation, DetailReport, RunInfo
from .runs.sweep import Cell, RunOptions, SweepSpec, run_sweep
from .runs.trace import TraceWriter
from .sandbox import SandboxSpec, open_sandbox
from .scoring.score_run import score_run
from .tasks import Task, check_tier, get_task

log = logging.getLogger(__name__)


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


def _lesion_positive(manifest: dict) -> list[bool] | None:
    flags = [c.get("lesion_positive") for c in manifest["cases"]]
    return None if any(f is None for f in flags) else [bool(f) for f in flags]


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
    meta = RunMeta(run=info, dataset=task.dataset, dataset_root=str(data.root.resolve()),
                   tasks_dirs=[str(Path(p).resolve()) for p in (tasks_dirs or [])],
                   case_ids=[c["case_id"] for c in manifest["cases"]],
                   lesion_positive=_lesion_positive(manifest))
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
                               input_files=task.input_files,
                               options={**task.track_options, "candidates": task.tiers.standard.candidates})
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


# ---- sweeps (runs/sweep.py does the work) ------------------------------------------------

def sweep(tasks: list[str], tiers: list[str], agents: list[str], out_dir: Path | str = "runs", *,
          repeats: int = 1, workers: int = 1, resume: bool = True, executor: str = "local",
          address: str | None = None, retries: int = 2, force: bool = False,
          progress: Callable[[Cell, str, str | None], None] | None = None,
          on_event: Callable | None = None, **run_options) -> list[tuple[Cell, str, str | None]]:
    """Run every (task, tier, agent, repeat) cell, crash-safe and resumable (see
    `automedbench.runs.sweep`). `run_options` are run_one's (sandbox, network, judges,
    data_root, tasks_dirs, agent_configs, exec_timeout_s). Returns (cell, run_dir,
    error-or-None) for every cell; `progress` is called once per finished or skipped cell."""
    opts = {k: v for k, v in run_options.items() if v is not None}
    for key in ("tasks_dirs", "agent_configs"):
        if key in opts:
            opts[key] = [str(Path(p).resolve()) for p in opts[key]]
    if "data_root" in opts:
        opts["data_root"] = str(Path(opts["data_root"]).resolve())
    spec = SweepSpec(agents=agents, tasks=tasks, tiers=tiers, repeats=repeats, retries=retries,
                     options=RunOptions(**opts))

    def relay(ev):
        if on_event:
            on_event(ev)
        if progress and ev.kind in ("skip", "finish"):
            progress(ev.cell, str(ev.result.run_dir), ev.result.error)
    results = run_sweep(spec, out_dir, workers=workers, executor=executor, address=address, force=force,
                        resume=resume, on_event=relay)
    return [(r.cell, str(r.run_dir), r.error) for r in results]
