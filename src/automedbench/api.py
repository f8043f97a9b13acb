"""The Python API. The CLI (cli/) is a thin layer over these functions.

    run_one(task, tier, agent, out_dir, options)   one cell -> its DetailReport (report.run_dir: the run directory)
    sweep(tasks, tiers, agents, out_dir, options)  many cells, resumable, in a process pool
    score(run_dir)                                 re-score a saved run from its workspace alone
    judge(run_dirs, judges)                        re-judge saved runs (S1..S3) without the agent
    report(collect(paths), out_dir)                leaderboard from run directories

`options` is one RunOptions (runs/options.py): the one list of a run's options.
"""
from __future__ import annotations

import json
import logging
import shutil
import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, SimpleNamespace
from typing import Any, Callable, Iterable, Iterator, NoReturn

from . import __version__
from .agents import Agent, AgentContext, RunStopped, ToolBox, get_agent, scripted_agents
from .agents import check_ready as check_agent_ready
from .data import DatasetError, DatasetPaths, dataset_paths, sha256_file
from .datasets import DATASETS, all_datasets, stage
from .errors import InfrastructureError, RunInterrupted, UserError, one_line
from .llm.answer_judge import get_answer_judge
from .prompts.render import kickoff_message, render_prompt
from .report import collect_reports, write_leaderboard
from .report.calibration import default_calibration_files
from .report.collect import ReportList
from .runs.effective_config import agent_configuration, config_hash, effective_limits
from .runs.layout import RunFiles, RunMeta, new_run_id, now_iso, write_json_atomic
from .runs.models import (
    INFRA_END_REASONS,
    Conversation,
    DetailReport,
    RunInfo,
    is_end_reason,
)
from .runs.preflight import check_endpoints as check_agent_endpoints
from .runs.preflight import check_scripted_methods
from .tracks.base import pick_reference_method
from .runs.options import RunOptions
from .runs.sweep import Cell, CellResult, SweepChecks, SweepConfigError, SweepEvent, SweepSpec, load_sweep_file
from .runs.sweep import run_sweep as run_cells
from .runs.sweep import validate as validate_cells
from .runs.trace import TraceWriter, slowest_execution
from .sandbox import DEFAULT_BACKEND, SandboxError, SandboxSpec, check_backend, open_sandbox
from .sandbox.docker import score_in_container
from .sandbox.doctor import machine_report as _machine_report
from .sandbox.runtime import runtime_package_names
from .scoring.errors import PROVIDER_DETAILS
from .scoring.judge import Judge, get_judge
from .scoring.judge.calibration import EvalReport, evaluate, evaluate_heldout, saved_path
from .scoring.judge.calibration.metamorphic import VariantResult, evaluate_metamorphic
from .scoring.rubric import load_rubric
from .scoring.judge import HEURISTIC as HEURISTIC_JUDGE
from .scoring.score_run import JudgeFailed, load_meta, score_run, task_hash
from .scoring.output_checks import OutputChecks
from .tracks import get_track
from .tasks import Task, check_tier, discover, get_task

log = logging.getLogger(__name__)

# agent end reasons that are the model provider's fault: recorded as infra_error + detail


# the built-in scripted agents the demo runs on every task marked `demo: true`
DEMO_AGENTS = ["reference", "careless", "empty", "pilot-no-inspect", "words-no-work"]


def demo_tasks(tasks_dirs: list[Path] | None = None) -> list[str]:
    """Task ids marked `demo: true` (one per track): the demo's default cells."""
    return sorted(t.id for t in discover(tasks_dirs).values() if t.demo)


def machine_report() -> dict[str, Any]:
    """What this machine supports before any run (`automedbench doctor`, docs/sandbox.md
    "Doctor"): backends, network on for a root and a non-root harness, GPUs, Docker."""
    return _machine_report()


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


def _check_llm_ready(obj: object, role: str) -> None:
    """An LLM agent or judge whose key/header variables are unset is a user error, found
    before the first turn or paid call (AgentConfigError is a UserError)."""
    config = getattr(obj, "config", None)
    if config is not None and hasattr(config, "check_ready"):
        config.check_ready(role=role)   # LLMConfigError naming every unset variable
    for sub in getattr(obj, "judges", None) or []:   # a judge panel
        _check_llm_ready(sub, role)


@dataclass
class Prepared:
    """Everything a run needs, checked before anything runs (user errors, docs/faults.md)."""
    task: Task
    agent: Agent
    judge: Judge
    backend: str
    data: DatasetPaths


class SelfJudgeError(UserError):
    """The judge's model is the agent's model (docs/judge.md "No self-judging")."""


def _same_model(a: str | None, b: str | None) -> bool:
    """Model ids name the same model: equal ignoring case and a provider prefix
    (`openai/gpt-4o` is `gpt-4o`)."""
    if not a or not b:
        return False
    return a.strip().lower().rsplit("/", 1)[-1] == b.strip().lower().rsplit("/", 1)[-1]


def check_self_judge(agent: object, judge: object, allow: bool = False) -> None:
    """A judge (or a member of a judge panel) whose model is the agent's model grades its own
    work: a user error unless `allow` (--allow-self-judge)."""
    agent_model = getattr(agent, "model", None)
    members = list(getattr(judge, "judges", None) or [judge])
    same = [getattr(j, "model", None) for j in members if _same_model(agent_model, getattr(j, "model", None))]
    if same and not allow:
        raise SelfJudgeError(f"the judge's model {same[0]!r} is the agent's model {agent_model!r}: a model would "
                             "grade its own work. Pick another judge, or pass --allow-self-judge")


def prepare_run(task_id: str, tier: str, agent_name: str, options: RunOptions | None = None, *,
                command: str = "run") -> Prepared:
    """Check a run can start: task, tier, agent (and its API key), judge(s) (and theirs; not the
    agent's own model unless `options.allow_self_judge`), sandbox backend, data staged. Raises
    UserError before any agent turn or paid call. `command` ("run" or "sweep") words a refusal
    as the command that was run would (runs/preflight.py)."""
    options = options or RunOptions()
    agent_configs = options.agent_config_paths
    task = get_task(task_id, options.tasks_dir_paths)
    check_tier(tier)
    agent = get_agent(agent_name, agent_configs)
    check_agent_ready(agent)    # an LLM agent whose key/header variables are unset: a user error
    # a scripted agent with no method here would only crash (runs/preflight.py)
    check_scripted_methods([Cell(task.id, tier, agent_name, 0)], {task.id: task}, command=command)
    judge = get_judge(options.judges, agent_configs)
    _check_llm_ready(judge, "judge")
    check_self_judge(agent, judge, options.allow_self_judge)
    if options.answer_judge:   # unknown name or unset key: a user error now, not after the agent's turns
        get_answer_judge(options.answer_judge, agent_configs)
    backend = options.sandbox or default_backend()
    # network on that this machine cannot give is a user error now, never a lost run (netcheck.py)
    check_backend(backend, network=task.network if options.network is None else options.network)
    data = ensure_dataset(task, options.data_root)
    return Prepared(task, agent, judge, backend, data)


@contextmanager
def _interrupts_as_exceptions() -> Iterator[None]:
    """SIGTERM raises RunInterrupted (like Ctrl-C raises KeyboardInterrupt), so a killed run
    still closes its records. Only the main thread can own signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: FrameType | None) -> NoReturn:
        raise RunInterrupted("SIGTERM")
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _end_as_infra(info: RunInfo, trace: TraceWriter, detail: str, exc: BaseException) -> None:
    info.end_reason, info.end_detail = "infra_error", detail
    trace.emit("error", kind="infrastructure", message=f"{type(exc).__name__}: {one_line(exc)}",
               data={"detail": detail})
    log.error("run %s: infrastructure fault (%s): %s", info.run_id, detail, one_line(exc))


def _agent_end(info: RunInfo, reason: str | None) -> None:
    """Record the agent's end reason; provider faults become infra_error (detail kept), an
    end reason the schema does not know is kept as detail of agent_finished."""
    if reason in PROVIDER_DETAILS:
        info.end_reason, info.end_detail = "infra_error", reason
    elif is_end_reason(reason):
        info.end_reason = reason
    else:
        info.end_reason, info.end_detail = "agent_finished", str(reason)


def run_one(task_id: str, tier: str, agent_name: str, out_dir: Path | str = "runs",
            options: RunOptions | None = None, *, run_dir: Path | str | None = None) -> DetailReport:
    """Run one (task, tier, agent) cell end to end and score it. Returns its DetailReport;
    `report.run_dir` is the run directory (run.json, trace, conversation, workspace), created
    under `out_dir` unless `run_dir` names it. `options`: sandbox, network, judges, data...
    (runs/options.py; the defaults when None).

    User errors (unknown task/tier/agent/judge/backend, missing key, unstaged data) raise
    UserError before anything runs. Agent faults (crash, limits, violations) end the run and
    are recorded; the run is still scored. A sandbox that cannot start or dies, or a provider
    that stays down, ends the run as `infra_error` (scored null, never charged to the agent).
    Ctrl-C / SIGTERM close the run as `interrupted`, unscored, and raise RunInterrupted."""
    options = options or RunOptions()
    prep = prepare_run(task_id, tier, agent_name, options)
    exec_timeout_s, network, judges = options.exec_timeout_s, options.network, options.judges
    task, agent, data, backend = prep.task, prep.agent, prep.data, prep.backend
    manifest = data.load_manifest()

    agent_conf = agent_configuration(agent)
    if agent_conf["kind"] == "scripted":
        agent_conf["name"] = agent_name
    run_id = new_run_id(agent_name, task.id, tier)
    run_dir = Path(run_dir) if run_dir else Path(out_dir) / run_id
    files = RunFiles(run_dir)
    files.workspace.mkdir(parents=True, exist_ok=True)
    for stale in (files.trace, files.judge, files.report):
        stale.unlink(missing_ok=True)  # a re-used cell directory starts clean

    spec = SandboxSpec(public_dir=data.public, workspace=files.workspace,
                       network=task.network if network is None else network, timeout_s=exec_timeout_s)
    t_setup = time.monotonic()
    t0 = t_setup
    # what actually runs: the tighter of the task's and the agent entry's limits (docs/llm.md)
    limits = effective_limits(task, agent, exec_timeout_s=exec_timeout_s, network=spec.network)
    info = RunInfo(run_id=run_id, agent=agent_name, model=getattr(agent, "model", None), task=task.id,
                   track=task.track, tier=tier, started_at=now_iso(), sandbox=backend,
                   config_hash=config_hash(agent_conf))
    snapshot = task.snapshot()
    meta = RunMeta(run=info, dataset=task.dataset, dataset_root=str(data.root.resolve()),
                   tasks_dirs=[str(Path(p).resolve()) for p in (options.tasks_dirs or [])],
                   case_ids=[c["case_id"] for c in manifest["cases"]],
                   task_snapshot=snapshot, task_hash=task_hash(snapshot),
                   manifest_sha256=sha256_file(data.manifest), harness_version=__version__,
                   rubric_version=str(load_rubric().version), judges=list(judges or []) or [HEURISTIC_JUDGE],
                   answer_judge=options.answer_judge,
                   limits=limits, agent_config=agent_conf, agent_config_hash=info.config_hash)
    write_json_atomic(files.meta, meta)
    trace = TraceWriter(files.trace, t_setup)
    box = conversation = None
    interrupted: KeyboardInterrupt | None = None
    with _interrupts_as_exceptions():
        try:
            try:
                sb = open_sandbox(backend, spec)
            except Exception as exc:
                raise SandboxError(f"sandbox {backend!r} could not start: {one_line(exc)}",
                                   detail="sandbox_start_failed") from exc
            # the agent's clock starts when its sandbox is ready: a one-time runtime build is setup
            info.setup_time_s = round(time.monotonic() - t_setup, 3)
            t0 = trace.t0 = time.monotonic()
            info.sandbox = sb.name
            try:
                system_prompt = render_prompt(task, tier, data_dir=sb.data_dir, workspace_dir=sb.workspace_dir,
                                              exec_timeout_s=int(exec_timeout_s), network=spec.network)
                conversation = Conversation(system_prompt=system_prompt)
                checker = OutputChecks(get_track(task.track), task.options, manifest["cases"], data.private,
                                       workspace=(files.workspace, sb.workspace_dir), public=(data.public, sb.data_dir))
                box = ToolBox(sb, trace, conversation, deadline=t0 + limits["time_limit_s"], max_turns=limits["max_turns"],
                              block_training=task.block_training, output_checker=checker)
                context = AgentContext(task_id=task.id, tier=tier, data_dir=sb.data_dir,
                                       workspace_dir=sb.workspace_dir, kickoff=kickoff_message(task, tier),
                                       output_files=task.output_files, input_files=task.input_files,
                                       track=task.track, track_options=task.options,
                                       candidates=list(task.tiers.standard.candidates),
                                       target_keywords=list(task.target_keywords))
                # the paths the agent sees: effects are recorded in them (the judge's facts, docs/judge.md)
                trace.emit("run_start", data={"task": task.id, "tier": tier, "agent": agent_name, "sandbox": sb.name,
                                              "setup_time_s": info.setup_time_s, "data_dir": sb.data_dir,
                                              "workspace_dir": sb.workspace_dir})
                try:
                    outcome = agent.run(system_prompt, context, box)
                    _agent_end(info, outcome.end_reason)
                    info.model = outcome.model or info.model
                except RunStopped as stop:
                    info.end_reason = stop.reason
                except InfrastructureError as exc:   # the sandbox died under the agent
                    _end_as_infra(info, trace, exc.detail if exc.detail != "sandbox_failed" else "sandbox_died", exc)
                except Exception as exc:  # a crashed agent must not crash the sweep
                    info.end_reason = "agent_crash"
                    trace.emit("error", kind="agent_crash", message=f"{type(exc).__name__}: {exc}",
                               data={"traceback": traceback.format_exc()[-4000:]})
            finally:
                sb.close()
        except InfrastructureError as exc:   # the sandbox could not start
            _end_as_infra(info, trace, exc.detail, exc)
        except Exception as exc:
            _end_as_infra(info, trace, "harness_error", exc)
        except KeyboardInterrupt as exc:   # Ctrl-C, or SIGTERM through RunInterrupted
            interrupted = exc
            info.end_reason = "interrupted"
            info.end_detail = exc.signal_name if isinstance(exc, RunInterrupted) else "SIGINT"
            trace.emit("error", kind="interrupted", message=f"run interrupted by {info.end_detail}")
        finally:
            if conversation is not None:
                write_json_atomic(files.conversation, conversation)
            if box is not None:
                info.turns, info.submitted = box.turns, box.submitted
                info.tokens_in, info.tokens_out, info.cost_usd = box.tokens_in, box.tokens_out, round(box.cost_usd, 6)
                meta.disqualified = box.disqualified
                meta.violations = box.violations
            info.wall_time_s = round(time.monotonic() - t0, 3)
            trace.emit("run_end", kind=info.end_reason, data={"turns": info.turns, "submitted": info.submitted,
                                                              "end_detail": info.end_detail})
            trace.close()
            write_json_atomic(files.meta, meta)
    if interrupted is not None:
        raise RunInterrupted(info.end_detail or "SIGINT", str(run_dir)) from None

    return score_run(run_dir, judge=prep.judge, agent_configs=options.agent_config_paths,
                     container_scorer=score_in_container)


def score(run_dir: Path | str, *, force: bool = False, answer_judge: str | None = None,
          agent_configs: list[Path] | None = None) -> DetailReport:
    """Re-score a saved run from its workspace outputs (no agent); rewrites detail_report.json.
    An interrupted run raises RunIncompleteError (a UserError) unless `force`. `answer_judge`
    overrides the LLM answer judge recorded in run.json (if the track uses one)."""
    return score_run(Path(run_dir), force=force, answer_judge=answer_judge, agent_configs=agent_configs,
                     container_scorer=score_in_container)


class JudgeRunsFailed(InfrastructureError):
    """Some runs could not be re-judged; their saved verdicts were kept. `reports` holds the
    runs that were, `failures` (run_dir, one-line reason) the others."""

    detail = "judge_failed"

    def __init__(self, reports: list[DetailReport], failures: list[tuple[str, str]]):
        super().__init__(f"{len(failures)} run(s) could not be re-judged; their saved verdicts were kept")
        self.reports, self.failures = reports, failures


def judge(run_dirs: Iterable[Path | str], judges: list[str], agent_configs: list[Path] | None = None,
          allow_self_judge: bool = False) -> list[DetailReport]:
    """Re-judge S1..S3 of saved runs. Unknown judge or missing key, or a judge sharing a run's
    agent model (unless `allow_self_judge`): UserError before any call. A judge that fails on
    a run (unreachable, unparseable) never replaces its saved verdicts; JudgeRunsFailed is
    raised at the end, carrying the runs that were re-judged."""

    j = get_judge(judges, agent_configs)
    _check_llm_ready(j, "judge")
    dirs = [Path(d) for d in run_dirs]
    for d in dirs:
        meta = load_meta(d)   # every path is a run directory before the first paid call
        check_self_judge(SimpleNamespace(model=meta.run.model), j, allow_self_judge)
    reports, failures = [], []
    for d in dirs:
        try:
            report = score_run(d, judge=j, container_scorer=score_in_container)
        except JudgeFailed as exc:
            failures.append((str(d), one_line(exc)))
            continue
        if report.judge.judge_incomplete and report.run.end_reason not in INFRA_END_REASONS:
            why = (f"{d}: judge could not judge every stage ({report.judge.error}); "
                   "no verdicts were saved before, so the null stages are recorded")
            failures.append((str(d), why))
        reports.append(report)
    if failures:
        raise JudgeRunsFailed(reports, failures)
    return reports


def judge_eval(judges: list[str] | None = None, agent_configs: list[Path] | None = None, *,
               record: bool = True) -> EvalReport:
    """Measure a judge on the packaged calibration set (docs/judge.md): per rubric item n,
    accuracy, Cohen's kappa (weighted for the S3 ladder), confusion, disagreements, and
    whether the floors are met. Returns scoring.judge.calibration.EvalReport.

    `record`: keep it as the judge's last measurement under <home>/calibration/, which the
    leaderboard footer shows (docs/site.md); a folder that cannot be written is logged, not fatal."""
    j = get_judge(judges, agent_configs)
    _check_llm_ready(j, "judge")
    rep = evaluate(j)
    if record:
        target = saved_path(rep.judge)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(calibration_json(rep) + "\n")
            rep.saved_to = target
        except OSError as exc:
            log.warning("could not keep the calibration in %s: %s", target, exc)
    return rep


def judge_metamorphic(judges: list[str] | None = None, agent_configs: list[Path] | None = None
                      ) -> list[VariantResult]:
    """The judge on metamorphic variants of the calibration trajectories (docs/judge.md
    "Metamorphic variants"): substance kept, every verdict must stay; substance removed, the
    named item must drop. Returns one result per variant; `metamorphic_failures` says which fail."""
    j = get_judge(judges, agent_configs)
    _check_llm_ready(j, "judge")
    return evaluate_metamorphic(j)


def judge_heldout(judges: list[str] | None = None, agent_configs: list[Path] | None = None
                  ) -> dict[str, EvalReport]:
    """The judge on the held-out set (docs/judge.md "Held-out set"), one report per part: "dev"
    and "sealed" (never tuned against), each against the held-out floors."""
    j = get_judge(judges, agent_configs)
    _check_llm_ready(j, "judge")
    return evaluate_heldout(j)


def calibration_json(rep: EvalReport) -> str:
    """A judge measurement as saved under <home>/calibration/ and by `judge-eval --save`."""
    return json.dumps(rep.as_dict(), indent=1, default=str)


# ---- sweeps (runs/sweep.py does the work) ------------------------------------------------

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


def check_endpoints(agents: list[str], agent_configs: list[Path] | None = None) -> None:
    """One tiny request per LLM agent among `agents` (scripted ones have no endpoint); a
    configuration error (refused connection, 401/403/404, unknown model) is a UserError naming
    the URL, status and a hint (docs/llm.md)."""
    check_agent_endpoints(agents, agent_configs, frozenset(scripted_agents()))


def sweep_checks() -> SweepChecks:
    """What runs/sweep.py needs from above the runs layer: check_sweep, the scripted agents'
    names and the agent runtime's packages (docs/architecture.md, "Layers")."""
    return SweepChecks(check=check_sweep, scripted=frozenset(scripted_agents()),
                       runtime_packages=runtime_package_names)


def validate_sweep(spec: SweepSpec) -> None:
    """Every user error of a sweep file before anything runs (runs/sweep.py with sweep_checks)."""
    validate_cells(spec, sweep_checks())


def sweep_spec(config: Path | None = None, *, tasks: list[str] | None = None, tiers: list[str] | None = None,
               agents: list[str] | None = None, repeats: int | None = None, retries: int | None = None,
               options: RunOptions | None = None) -> SweepSpec:
    """The sweep `automedbench sweep` asks for: a sweep file, or lists of tasks, tiers and
    agents (not both). Each option `options` sets (the command line's flags) overrides the
    file's, with its paths made absolute (docs/sweeps.md). Raises SweepConfigError."""
    if config is not None:
        if tasks or agents or tiers or repeats:
            raise SweepConfigError("give either SWEEP.yaml or --task/--agent/--tier/--repeats, not both")
        spec = load_sweep_file(config)
    else:
        if not tasks or not agents:
            raise SweepConfigError("give SWEEP.yaml, or at least one --task and one --agent")
        spec = SweepSpec(agents=agents, tasks=tasks, tiers=tiers or ["lite"], repeats=repeats or 1)
    merged = spec.options.overridden_by((options or RunOptions()).resolved())
    return spec.model_copy(update={"options": merged, **({"retries": retries} if retries is not None else {})})


def run_sweep(spec: SweepSpec, root: Path | str, *, workers: int | None = None, executor: str | None = None,
              address: str | None = None, force: bool = False, resume: bool = True, gpus: list[str] | None = None,
              on_event: Callable[[SweepEvent], None] | None = None, poll_s: float = 0.5) -> list[CellResult]:
    """runs/sweep.py's `run_sweep` with this module's run_one and sweep_checks() handed in (the
    runs layer does not import the API)."""
    return run_cells(spec, root, run=run_one, checks=sweep_checks(), workers=workers, executor=executor,
                     address=address, force=force, resume=resume, gpus=gpus, on_event=on_event, poll_s=poll_s)


def sweep(tasks: list[str], tiers: list[str], agents: list[str], out_dir: Path | str = "runs",
          options: RunOptions | None = None, *, repeats: int = 1, workers: int = 1, resume: bool = True,
          executor: str = "local", address: str | None = None, retries: int = 2, force: bool = False,
          progress: Callable[[Cell, str, str | None], None] | None = None,
          on_event: Callable[[SweepEvent], None] | None = None) -> list[tuple[Cell, str, str | None]]:
    """Run every (task, tier, agent, repeat) cell, crash-safe and resumable (see
    `automedbench.runs.sweep`), each with `options` (its paths made absolute). Returns (cell,
    run_dir, error-or-None) for every cell; `progress` is called once per finished or skipped cell."""
    spec = SweepSpec(agents=agents, tasks=tasks, tiers=tiers, repeats=repeats, retries=retries,
                     options=(options or RunOptions()).resolved())

    def relay(ev: SweepEvent) -> None:
        if on_event:
            on_event(ev)
        if progress and ev.kind in ("skip", "finish") and ev.cell is not None and ev.result is not None:
            progress(ev.cell, str(ev.result.run_dir), ev.result.error)
    results = run_sweep(spec, out_dir, workers=workers, executor=executor, address=address, force=force,
                        resume=resume, on_event=relay)
    return [(r.cell, str(r.run_dir), r.error) for r in results]


# ---- orchestration: sweep then site, and the demo ---------------------------------------

@dataclass
class SweepOutcome:
    """A finished sweep and the site built from its root."""
    results: list[CellResult]          # one per cell, in matrix order
    reports: ReportList                # this sweep's runs (their directories in reports.run_dirs)
    site: Path                         # the site's index.html
    site_s: float                      # seconds the site took to build

    @property
    def scored(self) -> list[DetailReport]:
        return [r for r in self.reports if r.overall is not None]

    @property
    def infra(self) -> list[CellResult]:
        """Cells whose last attempt ended on an infrastructure fault (not the agent's)."""
        return [r for r in self.results if r.status == "infra"]

    @property
    def unscored(self) -> list[CellResult]:
        """Cells that failed or ended on an infrastructure fault."""
        return [r for r in self.results if r.status in ("failed", "infra")]

    @property
    def ok(self) -> bool:
        """Every cell scored or skipped, and at least one run scored: else `sweep` exits 1
        (docs/sweeps.md)."""
        return bool(self.scored) and not self.unscored


def sweep_and_report(spec: SweepSpec, out_dir: Path | str, *, site_dir: Path | str | None = None,
                     workers: int | None = None, executor: str | None = None, address: str | None = None,
                     force: bool = False, resume: bool = True, on_event: Callable[[SweepEvent], None] | None = None,
                     judge_calibration: list[Path] | None = None) -> SweepOutcome:
    """Validate (user errors before any run), run the sweep crash-safely, then build the site
    over everything under the sweep root. The CLI's `sweep` and `demo` are thin layers over this."""
    results = run_sweep(spec, out_dir, workers=workers, executor=executor, address=address, force=force,
                        resume=resume, on_event=on_event)
    t_site = time.monotonic()
    everything = collect_reports([Path(out_dir)])   # read once: the site's input, and this sweep's rows
    site = write_leaderboard(everything, Path(site_dir) if site_dir else Path(out_dir) / "leaderboard",
                             judge_calibration=default_calibration_files() if judge_calibration is None
                             else judge_calibration)
    site_s = time.monotonic() - t_site
    by_dir = {d.resolve(): rep for rep in everything if (d := everything.run_dirs.get(rep.run.run_id))}
    mine = [rep for r in results if r.status != "failed" and (rep := by_dir.get(Path(r.run_dir).resolve()))]
    reports = ReportList(mine, run_dirs={rep.run.run_id: everything.run_dirs[rep.run.run_id] for rep in mine})
    return SweepOutcome(results, reports, Path(site), site_s)


@dataclass
class DemoOutcome:
    sweep: SweepOutcome
    datasets: dict[str, Path]          # task -> its built dataset
    steps: list[tuple[str, float]]     # (step, seconds): datasets, sweep, site
    total_s: float
    slowest_call: str                  # the longest tool call of the sweep, '' if none (runs/trace.py)

    @property
    def slowest_step(self) -> tuple[str, float]:
        return max(self.steps, key=lambda s: s[1])


def demo(out_dir: Path | str = "demo_out", *, workers: int = 2, repeats: int = 2, tiers: list[str] | None = None,
         sandbox: str | None = None, data_root: Path | str | None = None,
         on_dataset: Callable[[str, Path], None] | None = None,
         on_event: Callable[[SweepEvent], None] | None = None) -> DemoOutcome:
    """Build the embedded datasets of the demo tasks (one per track), sweep the built-in agents
    over them (network off, `repeats` per cell so the CIs mean something), build the site."""
    out_dir = Path(out_dir)
    t0 = time.monotonic()
    datasets = {}
    for t in demo_tasks():
        datasets[t] = ensure_dataset(get_task(t), data_root).root
        if on_dataset:
            on_dataset(t, datasets[t])
    steps = [("build the datasets", time.monotonic() - t0)]
    # the heuristic judge's calibration, measured now so the demo board's footer shows it (docs/site.md)
    t_cal = time.monotonic()
    judge_eval(["heuristic"])
    steps.append(("measure the heuristic judge (judge-eval)", time.monotonic() - t_cal))
    options = RunOptions(sandbox=sandbox, network=False, data_root=data_root).resolved()
    spec = SweepSpec(agents=list(DEMO_AGENTS), tasks=list(datasets), tiers=list(tiers or ["lite"]), repeats=repeats,
                     options=options)
    t1 = time.monotonic()
    outcome = sweep_and_report(spec, out_dir / "runs", site_dir=out_dir / "leaderboard", workers=workers,
                               resume=False, force=True, on_event=on_event)
    steps.append((f"sweep of {len(outcome.results)} runs ({workers} workers)", time.monotonic() - t1 - outcome.site_s))
    steps.append(("build the site", outcome.site_s))
    slowest = slowest_execution([Path(r.run_dir) for r in outcome.results])
    return DemoOutcome(outcome, datasets, steps, time.monotonic() - t0, slowest)


# ---- tasks, datasets and saved runs, for the commands that list and report them ----------

def task_info(task: Task, data_root: Path | str | None = None) -> dict[str, Any]:
    """A task as `tasks show` / `tasks list --json` print it: its YAML fields, folder, whether
    its dataset is staged, case ids and where its public/private data are."""
    paths = dataset_paths(task.dataset, data_root)
    staged = paths.is_staged()
    d = task.model_dump(mode="json")
    d["folder"] = str(task.folder)
    d["dataset_staged"] = staged
    d["case_ids"] = paths.case_ids() if staged else []
    d["public_dir"] = str(paths.public) if staged else None
    d["private_dir"] = str(paths.private) if staged else None
    d["reference_methods"] = reference_methods_info(task)
    return d


def reference_methods_info(task: Task) -> list[dict[str, Any]]:
    """The track's classical methods for `tasks show`: what each needs, whether it fits this
    task, and which one the scripted `reference` agent runs here (docs/your-task.md section 5)."""
    chosen, _ = pick_reference_method(task.track_impl, task.options)
    rows = []
    for m in task.track_impl.reference_methods():
        missing = m.fits(task.options)
        rows.append({"method": m.file, "does": m.summary, "needs": m.needs,
                     "fits": "yes" if missing is None else f"no: needs {missing}",
                     "runs_as_reference": m.file == chosen})
    return rows


def task_ids_by_data(tasks_dirs: list[Path] | None = None) -> tuple[list[str], list[str]]:
    """(tasks whose dataset is built offline, tasks that need an official dataset staged)."""
    datasets = all_datasets()
    offline: list[str] = []
    official: list[str] = []
    for t in sorted(discover(tasks_dirs).values(), key=lambda t: t.id):
        info = datasets.get(t.dataset)
        (offline if info is not None and info.kind == "demo" else official).append(t.id)
    return offline, official


def collect(paths: list[Path]) -> ReportList:
    """The saved runs under `paths` for `report` and `analyze`. A missing path, or no run
    report at all, is a UserError; unreadable reports are skipped and listed in `warnings`."""
    for p in paths:
        if not p.exists():
            raise UserError(f"{p}: no such file or directory")
    logging.getLogger("automedbench.report.collect").setLevel(logging.ERROR)   # the warnings go on the page
    reports = collect_reports(paths)
    if not reports:
        skipped = [w for w in reports.warnings if "skipped" in w]
        raise UserError(f"no run reports (detail_report.json) under {', '.join(str(p) for p in paths)}"
                        + (f"; {len(skipped)} unreadable, first: {skipped[0]}" if skipped else ""))
    return reports


def report(reports: ReportList, out_dir: Path | str = "leaderboard", *, profile: str = "ours",
           judge_calibration: list[Path] | None = None) -> Path:
    """The leaderboard site of `reports` (api.collect) in `out_dir`; returns its index.html.
    `judge_calibration`: `judge-eval --save` files for the footer (default: every file under
    <home>/calibration/, docs/site.md); a missing one is a UserError."""
    for f in judge_calibration or []:
        if not f.is_file():
            raise UserError(f"--judge-calibration {f}: no such file")
    return write_leaderboard(reports, out_dir, profile=profile,
                             judge_calibration=judge_calibration or default_calibration_files())
