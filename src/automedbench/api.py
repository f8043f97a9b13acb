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
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from .agents import scripted_agents
from .data import dataset_paths
from .datasets import all_datasets
from .errors import InfrastructureError, UserError, one_line
from .lifecycle import (  # noqa: F401  (the API's names for the lifecycle's entry points)
    Prepared,
    SelfJudgeError,
    check_judge_ready,
    check_self_judge,
    check_sweep,
    default_backend,
    ensure_dataset,
    prepare_run,
    rescore,
    run_one,
)
from .lifecycle.sweep import run_sweep as run_cells
from .lifecycle.sweep import validate as validate_cells
from .tracks.base import pick_reference_method
from .report import collect_reports, write_leaderboard
from .report.calibration import default_calibration_files
from .report.collect import ReportList
from .runs.models import INFRA_END_REASONS, DetailReport
from .runs.options import RunOptions
from .runs.preflight import check_endpoints as check_agent_endpoints
from .runs.sweep import Cell, CellResult, SweepConfigError, SweepEvent, SweepSpec, load_sweep_file
from .runs.trace import slowest_execution
from .sandbox.docker.backend import score_in_container
from .sandbox.doctor import machine_report as _machine_report
from .scoring.judge import get_judge
from .scoring.judge_eval import CalibrationMissing, EvalReport, evaluate, evaluate_heldout, saved_path
from .scoring.judge_eval.metamorphic import VariantResult, evaluate_metamorphic
from .scoring.score_run import JudgeFailed, load_meta, score_run
from .tasks import Task, discover, get_task

log = logging.getLogger(__name__)

# the built-in scripted agents the demo runs on every task marked `demo: true`
DEMO_AGENTS = ["reference", "careless", "empty", "pilot-no-inspect", "words-no-work"]


def demo_tasks(tasks_dirs: list[Path] | None = None) -> list[str]:
    """Task ids marked `demo: true` (one per track): the demo's default cells."""
    return sorted(t.id for t in discover(tasks_dirs).values() if t.demo)


def machine_report() -> dict[str, Any]:
    """What this machine supports before any run (`automedbench doctor`, docs/sandbox.md
    "Doctor"): backends, network on for a root and a non-root harness, GPUs, Docker."""
    return _machine_report()


def score(run_dir: Path | str, *, force: bool = False, answer_judge: str | None = None,
          agent_configs: list[Path] | None = None) -> DetailReport:
    """Re-score a saved run from its workspace outputs (no agent); rewrites detail_report.json.
    An interrupted run raises RunIncompleteError (a UserError) unless `force`. `answer_judge`
    overrides the LLM answer judge recorded in run.json (if the track uses one)."""
    return rescore(run_dir, force=force, answer_judge=answer_judge, agent_configs=agent_configs)


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
    check_judge_ready(j)
    dirs = [Path(d) for d in run_dirs]
    for d in dirs:
        meta = load_meta(d)   # every path is a run directory before the first paid call
        check_self_judge(meta.run.model, j, allow_self_judge)
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
    """Measure a judge on the calibration set (docs/judge.md; its trajectories are the repository's
    calibration/ folder, CalibrationMissing without it): per rubric item n,
    accuracy, Cohen's kappa (weighted for the S3 ladder), confusion, disagreements, and
    whether the floors are met. Returns scoring.judge_eval.EvalReport.

    `record`: keep it as the judge's last measurement under <home>/calibration/, which the
    leaderboard footer shows (docs/site.md); a folder that cannot be written is logged, not fatal."""
    j = get_judge(judges, agent_configs)
    check_judge_ready(j)
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
    check_judge_ready(j)
    return evaluate_metamorphic(j)


def judge_heldout(judges: list[str] | None = None, agent_configs: list[Path] | None = None
                  ) -> dict[str, EvalReport]:
    """The judge on the held-out set (docs/judge.md "Held-out set"), one report per part (dev,
    sealed, sealed-2 .. sealed-11: calibration.HELDOUT_PARTS), each against its floors."""
    j = get_judge(judges, agent_configs)
    check_judge_ready(j)
    return evaluate_heldout(j)


def calibration_json(rep: EvalReport) -> str:
    """A judge measurement as saved under <home>/calibration/ and by `judge-eval --save`."""
    return json.dumps(rep.as_dict(), indent=1, default=str)


# ---- sweeps (runs/sweep.py does the work) ------------------------------------------------

def check_endpoints(agents: list[str], agent_configs: list[Path] | None = None) -> None:
    """One tiny request per LLM agent among `agents` (scripted ones have no endpoint); a
    configuration error (refused connection, 401/403/404, unknown model) is a UserError naming
    the URL, status and a hint (docs/llm.md)."""
    check_agent_endpoints(agents, agent_configs, frozenset(scripted_agents()))


def validate_sweep(spec: SweepSpec) -> None:
    """Every user error of a sweep file before anything runs (lifecycle/sweep.py)."""
    validate_cells(spec)


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
    """Every cell of `spec` under `root`, crash-safe and resumable (lifecycle/sweep.py)."""
    return run_cells(spec, root, workers=workers, executor=executor, address=address, force=force,
                     resume=resume, gpus=gpus, on_event=on_event, poll_s=poll_s)


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
                             else judge_calibration,
                             tasks_dirs=spec.options.tasks_dir_paths)   # the boards' task.yaml, as the runs read it
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
    # the heuristic judge's calibration, measured now so the demo board's footer shows it (docs/site.md);
    # an installed package without the repository's calibration/ folder shows it as not measured
    t_cal = time.monotonic()
    try:
        judge_eval(["heuristic"])
        steps.append(("measure the heuristic judge (judge-eval)", time.monotonic() - t_cal))
    except CalibrationMissing as exc:
        log.warning("the heuristic judge is not measured for the demo board: %s", exc)
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
           judge_calibration: list[Path] | None = None, tasks_dirs: list[Path] | None = None) -> Path:
    """The leaderboard site of `reports` (api.collect) in `out_dir`; returns its index.html.
    `judge_calibration`: `judge-eval --save` files for the footer (default: every file under
    <home>/calibration/, docs/site.md); a missing one is a UserError. `tasks_dirs`: folders of
    your own tasks, so their boards show each task's title and dataset (docs/your-task.md)."""
    for f in judge_calibration or []:
        if not f.is_file():
            raise UserError(f"--judge-calibration {f}: no such file")
    for d in tasks_dirs or []:
        if not Path(d).is_dir():
            raise UserError(f"--tasks-dir {d}: no such folder")
    return write_leaderboard(reports, out_dir, profile=profile,
                             judge_calibration=judge_calibration or default_calibration_files(),
                             tasks_dirs=[Path(d) for d in tasks_dirs] if tasks_dirs else None)
