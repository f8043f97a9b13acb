"""open and close: a run's records (run.json, trace, conversation) and its sandbox.

    run = open_run(prep, tier, agent_name, run_dir, options)   # records begun, sandbox up
    ...act (lifecycle/act.py)...
    close_run(run)                                             # sandbox closed, records final

A sandbox that cannot start ends the run `infra_error` inside open_run (the run is still
closed and scored null, never charged to the agent); close_run is safe to call twice.
"""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..agents import AgentContext, ToolBox
from ..data import sha256_file
from ..errors import one_line
from ..llm.registry import Limits
from ..prompts.render import kickoff_message, render_prompt
from ..runs.blobs import BlobStore
from ..runs.effective_config import agent_configuration, config_hash, effective_limits
from ..runs.layout import RunFiles, RunMeta, new_run_id, now_iso, write_json_atomic
from ..runs.models import UNSCORED_END_REASONS, Conversation, RunInfo, scaffold_of
from ..runs.options import RunOptions
from ..runs.trace import TraceWriter
from ..sandbox import SandboxError, SandboxSpec, open_sandbox
from ..sandbox.base import Sandbox
from ..scoring.output_checks import OutputChecks
from ..scoring.judge import HEURISTIC as HEURISTIC_JUDGE
from ..scoring.rubric import load_rubric
from ..scoring.score_run import task_hash
from ..tracks import get_track
from .experiments import experiments_enabled, run_experiments
from .policy import faults_recorded
from .prepare import Prepared


@dataclass
class OpenRun:
    """One run between open and close: what it records and what it acts through."""
    prep: Prepared
    tier: str
    agent_name: str
    files: RunFiles
    info: RunInfo
    meta: RunMeta
    trace: TraceWriter
    spec: SandboxSpec
    options: RunOptions
    cases: list[dict[str, Any]]                          # the dataset manifest's cases
    t0: float = field(default_factory=time.monotonic)    # the agent's clock (from the sandbox being ready)
    sandbox: Sandbox | None = None
    conversation: Conversation | None = None
    box: ToolBox | None = None
    context: AgentContext | None = None
    closed: bool = False

    @property
    def ended(self) -> bool:
        return self.info.end_reason is not None


def _begin_records(prep: Prepared, tier: str, agent_name: str, run_dir: Path, options: RunOptions,
                   run_id: str, limits: Limits | None = None, episode: dict[str, Any] | None = None) -> OpenRun:
    """run.json (what will run, with its effective limits) and an empty trace, before the sandbox."""
    task, agent, data = prep.task, prep.agent, prep.data
    agent_conf = agent_configuration(agent)
    if agent_conf["kind"] == "scripted":
        agent_conf["name"] = agent_name
    files = RunFiles(run_dir)
    files.workspace.mkdir(parents=True, exist_ok=True)
    for stale in (files.trace, files.judge, files.report, files.experiments):
        stale.unlink(missing_ok=True)  # a re-used cell directory starts clean
    shutil.rmtree(files.blobs, ignore_errors=True)
    spec = SandboxSpec(public_dir=data.public, workspace=files.workspace,
                       network=task.network if options.network is None else options.network,
                       timeout_s=options.exec_timeout_s)
    # what actually runs: the tighter of the task's, the agent entry's and the caller's limits
    # (docs/llm.md "What run.json records", docs/rl.md "Limits")
    applied = effective_limits(task, agent, exec_timeout_s=options.exec_timeout_s, network=spec.network,
                               caller=limits)
    # the scaffold that drives the run, from its configuration's kind (docs/agents.md "Scaffold and model")
    info = RunInfo(run_id=run_id, agent=agent_name, model=agent.model, scaffold=scaffold_of(agent_conf),
                   task=task.id, track=task.track, tier=tier, started_at=now_iso(), sandbox=prep.backend,
                   config_hash=config_hash(agent_conf))
    snapshot = task.snapshot()
    cases = data.load_manifest()["cases"]
    meta = RunMeta(run=info, dataset=task.dataset, dataset_root=str(data.root.resolve()),
                   tasks_dirs=[str(Path(p).resolve()) for p in (options.tasks_dirs or [])],
                   case_ids=[c["case_id"] for c in cases],
                   task_snapshot=snapshot, task_hash=task_hash(task.hashed_snapshot()),
                   manifest_sha256=sha256_file(data.manifest), harness_version=__version__,
                   rubric_version=str(load_rubric().version), judges=list(options.judges or []) or [HEURISTIC_JUDGE],
                   answer_judge=options.answer_judge,
                   limits=applied, agent_config=agent_conf, agent_config_hash=info.config_hash,
                   episode=episode)
    write_json_atomic(files.meta, meta)
    t_setup = time.monotonic()
    return OpenRun(prep, tier, agent_name, files, info, meta, TraceWriter(files.trace, t_setup), spec, options,
                   cases, t0=t_setup)


def _start_sandbox(run: OpenRun) -> None:
    """The sandbox, the conversation with its system prompt, the ToolBox with the run's limits,
    and the agent's context; `run_start` names the paths the agent sees (effects are recorded
    in them: the judge's facts, docs/judge.md)."""
    task, tier, limits = run.prep.task, run.tier, run.meta.limits
    try:
        sb = open_sandbox(run.prep.backend, run.spec)
    except Exception as exc:
        raise SandboxError(f"sandbox {run.prep.backend!r} could not start: {one_line(exc)}",
                           detail="sandbox_start_failed") from exc
    run.sandbox = sb
    # the agent's clock starts when its sandbox is ready: a one-time runtime build is setup
    run.info.setup_time_s = round(time.monotonic() - run.t0, 3)
    run.t0 = run.trace.t0 = time.monotonic()
    run.info.sandbox = sb.name
    system_prompt = render_prompt(task, tier, data_dir=sb.data_dir, workspace_dir=sb.workspace_dir,
                                  exec_timeout_s=int(run.options.exec_timeout_s), network=run.spec.network)
    run.conversation = Conversation(system_prompt=system_prompt)
    data = run.prep.data
    # the harness's per-output checks after each call (docs/judge.md)
    checker = OutputChecks(get_track(task.track), task.options, run.cases, data.private,
                           workspace=(run.files.workspace, sb.workspace_dir), public=(data.public, sb.data_dir))
    blobs = BlobStore(run.files.blobs, run.files.workspace, sb.workspace_dir)
    run.box = ToolBox(sb, run.trace, run.conversation, deadline=run.t0 + limits["time_limit_s"],
                      max_turns=limits["max_turns"], block_training=task.block_training, output_checker=checker,
                      keep_files=blobs.keep)
    run.context = AgentContext(task_id=task.id, tier=tier, data_dir=sb.data_dir,
                               workspace_dir=sb.workspace_dir, kickoff=kickoff_message(task, tier),
                               output_files=task.output_files, input_files=task.input_files,
                               track=task.track, track_options=task.options,
                               candidates=list(task.tiers.standard.candidates),
                               target_keywords=list(task.target_keywords))
    run.trace.emit("run_start", data={"task": task.id, "tier": tier, "agent": run.agent_name, "sandbox": sb.name,
                                      "setup_time_s": run.info.setup_time_s, "data_dir": sb.data_dir,
                                      "workspace_dir": sb.workspace_dir})


def open_run(prep: Prepared, tier: str, agent_name: str, run_dir: Path | str, options: RunOptions,
             run_id: str | None = None, *, limits: Limits | None = None,
             episode: dict[str, Any] | None = None) -> OpenRun:
    """Begin the records in `run_dir` and start the sandbox. A fault while opening ends the
    run (recorded); an interrupt closes it and propagates. `run_id`: a new one when None.
    `limits`: the caller's, tightening the task's and the agent's (recorded in run.json's
    `limits`, applied by the ToolBox and the loop); `episode`: what run.json records of an RL
    episode (docs/rl.md)."""
    run_id = run_id or new_run_id(agent_name, prep.task.id, tier)
    run = _begin_records(prep, tier, agent_name, Path(run_dir), options, run_id, limits, episode)
    try:
        with faults_recorded(run, "open"):
            _start_sandbox(run)
    except KeyboardInterrupt:
        close_run(run)
        raise
    return run


def close_run(run: OpenRun) -> None:
    """Close the sandbox and write the final records: the conversation, the ToolBox's counts
    (turns, tokens, cost, violations), the agent's wall time, `run_end`. A run nobody ended
    (an outside driver that stopped stepping) ends `agent_finished`."""
    if run.closed:
        return
    run.closed = True
    try:
        if run.sandbox is not None:
            with faults_recorded(run, "close"):
                run.sandbox.close()
    finally:
        _write_final_records(run)
    # an unscored run (ours or the provider's fault, interrupted) or a disqualified one has no
    # workflow to judge: no replays
    if run.sandbox is not None and experiments_enabled() and not run.meta.disqualified \
            and run.info.end_reason not in UNSCORED_END_REASONS:
        # the judge's experiments: after the agent's clock stopped, never the agent's time
        run_experiments(run.files.dir, run.prep.task, run.prep.backend, run.prep.data.public)


def _write_final_records(run: OpenRun) -> None:
    info, box = run.info, run.box
    if info.end_reason is None:
        info.end_reason = "agent_finished"
    if run.conversation is not None:
        write_json_atomic(run.files.conversation, run.conversation)
    if box is not None:
        info.turns, info.submitted = box.turns, box.submitted
        info.tokens_in, info.tokens_out, info.cost_usd = box.tokens_in, box.tokens_out, round(box.cost_usd, 6)
        run.meta.disqualified = box.disqualified
        run.meta.violations = box.violations
    info.wall_time_s = round(time.monotonic() - run.t0, 3)
    run.trace.emit("run_end", kind=info.end_reason, data={"turns": info.turns, "submitted": info.submitted,
                                                          "end_detail": info.end_detail})
    run.trace.close()
    write_json_atomic(run.files.meta, run.meta)
