"""`automedbench` command line: a thin layer over automedbench.api.

User errors (unknown task/tier/agent, unstaged data, not a run directory) print one clear
line and exit 2. Agent failures never make the CLI fail: they are scored and recorded.
"""
from __future__ import annotations

import json
import json as _json
import logging
import os
import sys
import warnings
from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
import yaml
from rich.console import Console
from typer import core as typer_core

from . import __version__, api, cli_lists
from .agents import scripted_agents
from .agents.registry import list_agents
from .data import dataset_paths
from .data.from_folder import stage_from_folder, stage_summary, verify_dataset
from .datasets import all_datasets, stage
from .datasets import describe as describe_datasets
from .errors import RunInterrupted, UserError, one_line
from .export import ExportError, export_many
from .progress import SweepProgress
from .llm.check import check_endpoint, infra_message
from .llm.registry import get_agent_config
from .prompts.render import render_prompt
from .report import aggregate, collect_reports, runs_table, write_leaderboard
from .report.analyze import analyze as run_analysis
from .report.analyze import print_tables
from .report.calibration import default_calibration_files
from .report.leaderboard import write_analysis_site
from .report.profiles import check_profile, profile_table
from .report.table import agents_table
from .runs.executors import ExecutorError, executor_names
from .runs.sweep import RunOptions, SweepConfigError, SweepSpec, load_sweep_file
from .runs.trace import slowest_execution
from .sandbox.cli import sandbox_app
from .scoring.errors import code_texts
from .scoring.judge.calibration import render_table
from .tasks import check_tier, discover, get_task
from .tasks.model import TIERS


def _plain_type_labels() -> None:
    """Recent typer prints Python types in help (`<bool>` beside every flag, `<list[Path]>`
    beside repeatable options). A flag takes no value, so show none; a value shows its
    metavar, else click's classic upper-case name (TEXT, PATH, INTEGER)."""

    def label(self, ctx):
        if self.metavar is not None:
            return self.metavar
        if getattr(self, "is_flag", False):
            return None
        text = str(self.display_type(ctx)).strip("<>").removeprefix("list[").removesuffix("]")
        return {"str": "TEXT", "int": "INTEGER", "float": "FLOAT"}.get(text, text.upper())

    for cls in ("TyperOption", "TyperArgument"):
        if hasattr(getattr(typer_core, cls, None), "display_type_rich"):
            getattr(typer_core, cls).display_type_rich = label


_plain_type_labels()

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="AutoMedBench: run LLM coding agents on medical-AI research tasks and score "
                       "the artifact and the workflow (S1 Plan .. S5 Submit).")
tasks_app = typer.Typer(no_args_is_help=True, help="List and describe tasks.")
data_app = typer.Typer(no_args_is_help=True, help="Build embedded datasets or stage official ones.")
agents_app = typer.Typer(no_args_is_help=True, help="List configured agents.")
app.add_typer(tasks_app, name="tasks")
app.add_typer(data_app, name="data")
app.add_typer(agents_app, name="agents")
app.add_typer(sandbox_app, name="sandbox", help="Run one execution in a fresh sandbox, as an agent would; list backends.")
cli_lists.mount(app, sandbox_app)   # `tracks|judges|executors|sandbox list` (docs/architecture.md "One registry")

# Piped output (CI logs, `| tee`) gets wide tables instead of 80 squeezed columns, unless
# $COLUMNS says how wide; a terminal's own width is always respected (tables fit 80 columns).
def _console(stream) -> Console:
    fixed = stream.isatty() or os.environ.get("COLUMNS", "").isdigit()
    return Console(file=stream, width=None if fixed else 200)


out = _console(sys.stdout)
err = _console(sys.stderr)


def _user_errors() -> tuple[type[BaseException], ...]:
    """One class (errors.UserError: unknown task/tier/agent/judge/backend, missing key,
    unstaged data, not a run directory...) plus a missing file named on the command line."""
    return (UserError, FileNotFoundError)


def _fail(msg: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {one_line(Exception(msg))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _net(value: Optional[str]) -> Optional[bool]:
    if value is None:
        return None
    if value not in ("on", "off"):
        _fail(f"--network must be 'on' or 'off', not {value!r}")
    return value == "on"


def _tiers_metavar() -> str:
    return "|".join(TIERS)


TIERS_METAVAR = _tiers_metavar()   # --tier shows its choices


# Every option names what it takes (metavar) instead of a Python type, and says what it does.
TasksDir = typer.Option(None, "--tasks-dir", metavar="DIR", help="Extra folder of task folders (repeatable).")
DataRoot = typer.Option(None, "--data-root", metavar="DIR",
                        help="Where datasets live (default $AUTOMEDBENCH_DATA or ~/.cache/automedbench/data).")
AgentCfg = typer.Option(None, "--agent-config", metavar="FILE", help="Extra agent registry YAML (repeatable).")
TIER_HELP = "Tier: how much help the agent gets (lite = model named, standard = candidates, pro = background only)."
SANDBOX_HELP = ("Sandbox backend: bwrap (default when installed) | docker | local (isolates nothing) | a plug-in's "
                "(`automedbench sandbox list`).")
NETWORK_HELP = "Network inside the sandbox: on | off (default: the task's setting)."
JUDGE_HELP = "S1-S3 judge: heuristic (default), another judge class or an agent-registry name (`judges list`); repeat for a panel."
ProfileOpt = typer.Option("ours", "--profile", metavar="ours|reference",
                          help="Also print the task score under this scoring profile: 'reference' = the published "
                               "reference's definition (docs/scoring-profiles.md). Both are always saved.")


def _print_version(value: bool) -> None:
    if value:
        print(f"automedbench {__version__}")
        raise typer.Exit()
ANSWER_JUDGE_HELP = ("Registry name of an LLM answer judge, for tracks that grade free-text answers; "
                     "verdicts are cached; an answer it cannot judge is null, never 0.")


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="Print the version and exit."),
          verbose: bool = typer.Option(False, "-v", "--verbose", help="Log progress (INFO level).")) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")


# ---- run / sweep / demo -------------------------------------------------------------

def _check_profile(profile: str) -> None:
    try:
        check_profile(profile)
    except ValueError as exc:
        _fail(str(exc))


def _print_profile(reports, profile: str, console) -> None:
    """The runs' task score under a non-default scoring profile (docs/scoring-profiles.md)."""
    if profile != "ours" and reports:
        console.print(profile_table(reports, profile))


@app.command()
def run(task: str = typer.Option(..., "--task", metavar="TASK", help="Task id (see `automedbench tasks list`)."),
        tier: str = typer.Option("lite", "--tier", metavar=TIERS_METAVAR, help=TIER_HELP),
        agent: str = typer.Option(..., "--agent", metavar="AGENT", help="Scripted or registry agent (see `agents list`)."),
        out_dir: Path = typer.Option(Path("runs"), "--out", metavar="DIR", help="Folder the run directory is created in."),
        sandbox: Optional[str] = typer.Option(None, "--sandbox", metavar="BACKEND", help=SANDBOX_HELP),
        network: Optional[str] = typer.Option(None, "--network", metavar="on|off", help=NETWORK_HELP),
        judge: Optional[list[str]] = typer.Option(None, "--judge", metavar="NAME", help=JUDGE_HELP),
        answer_judge: Optional[str] = typer.Option(None, "--answer-judge", metavar="NAME", help=ANSWER_JUDGE_HELP),
        data_root: Optional[Path] = DataRoot, tasks_dir: Optional[list[Path]] = TasksDir,
        agent_config: Optional[list[Path]] = AgentCfg, profile: str = ProfileOpt,
        allow_self_judge: bool = typer.Option(False, "--allow-self-judge",
                                              help="Let a judge share the agent's model (refused by default).")) -> None:
    """Run one (task, tier, agent) cell and print its run directory."""
    _check_profile(profile)
    try:
        options = RunOptions(sandbox=sandbox, network=_net(network), judges=judge, answer_judge=answer_judge,
                             data_root=str(data_root) if data_root else None,
                             tasks_dirs=[str(p) for p in tasks_dir] if tasks_dir else None,
                             agent_configs=[str(p) for p in agent_config] if agent_config else None,
                             allow_self_judge=allow_self_judge)
        api.check_endpoints([agent], agent_config)   # a configuration error stops here (docs/llm.md)
        report = api.run_one(task, tier, agent, out_dir, **options.run_kwargs())
    except _user_errors() as exc:
        _fail(str(exc))
    except RunInterrupted as exc:
        err.print(f"interrupted ({exc.signal_name}): run closed as end_reason 'interrupted', not scored: "
                  f"{exc.run_dir}", highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None
    run_dir = report.run_dir
    err.print(runs_table([report], {report.run.run_id: run_dir}, width=err.width))
    _print_profile([report], profile, err)
    print(run_dir)
    if "infra_error" in report.flags:   # recorded, not the agent's fault, but the user must know
        why = infra_message(run_dir)
        err.print(f"[bold red]infrastructure fault:[/] {report.run.end_detail}: the run is recorded as "
                  "'infra_error' (not scored, left out of rankings)" + (f"\n  {why}" if why else ""),
                  highlight=False, soft_wrap=True)
        raise typer.Exit(1)


def _do_sweep(spec, out_dir, *, workers=None, executor=None, address=None, force=False, resume=True,
              leaderboard_dir=None, compact=False, profile="ours"):
    """Print around api.sweep_and_report: the progress bar, a table, failures, where things are."""
    try:
        api.validate_sweep(spec)   # a user error is one line, before the progress bar
    except (*_user_errors(), SweepConfigError, ExecutorError) as exc:
        _fail(str(exc))
    with SweepProgress(err) as progress:
        try:
            outcome = api.sweep_and_report(spec, out_dir, site_dir=leaderboard_dir, workers=workers, executor=executor,
                                           address=address, force=force, resume=resume, on_event=progress)
        except (*_user_errors(), SweepConfigError, ExecutorError) as exc:
            progress.stop()
            _fail(str(exc))
    reports = outcome.reports
    out.print(agents_table(aggregate(reports)) if compact else runs_table(reports, width=out.width))
    _print_profile(reports, profile, out)
    for r in progress.failed:
        err.print(f"[red]cell {r.cell.key} failed:[/] {r.error}", highlight=False)
    for r in (r for r in outcome.results if r.status == "infra"):
        err.print(f"[yellow]cell {r.cell.key} ended on an infrastructure fault ({r.end_reason}) after "
                  f"{r.attempts} attempt(s); not counted against the agent[/]", highlight=False)
    out.print(f"\nRun directories: [bold]{Path(out_dir).resolve()}[/]")
    # a sweep that scored nothing announces no board; failed or infra-ended cells exit 1 (docs/sweeps.md)
    scored = [r for r in reports if r.overall is not None]
    if scored:
        out.print(f"Leaderboard:     [bold]{outcome.site.resolve()}[/]  (open in a browser; JSON and CSV beside it)")
    else:
        err.print("[bold red]no run of this sweep was scored:[/] no leaderboard to announce", highlight=False)
    unscored = [r for r in outcome.results if r.status in ("failed", "infra")]
    if unscored or not scored:
        err.print(f"{len(unscored)} of {len(outcome.results)} cell(s) failed or ended on an infrastructure fault; "
                  f"{len(scored)} run(s) scored", highlight=False)
        raise typer.Exit(1)
    return outcome


@app.command()
def sweep(config: Optional[Path] = typer.Argument(None, metavar="SWEEP.yaml", help="SWEEP.yaml: agents, tasks, tiers, repeats, "
                                                          "include/exclude, options (see docs/sweeps.md)."),
          task: Optional[list[str]] = typer.Option(None, "--task", metavar="TASK",
                                                   help="Task id (repeatable); instead of SWEEP.yaml."),
          tier: Optional[list[str]] = typer.Option(None, "--tier", metavar=TIERS_METAVAR, help=TIER_HELP + " Repeatable."),
          agent: Optional[list[str]] = typer.Option(None, "--agent", metavar="AGENT", help="Agent name (repeatable)."),
          out_dir: Optional[Path] = typer.Option(None, "--out", metavar="DIR",
                                                 help="Sweep root (default: the file's `out`, else runs/)."),
          repeats: Optional[int] = typer.Option(None, "--repeats", min=1, metavar="N", help="Runs per task x tier x agent cell."),
          workers: Optional[int] = typer.Option(None, "--workers", min=1, metavar="N",
                                                help="Runs in parallel (CPU slots of the local pool)."),
          executor: Optional[str] = typer.Option(None, "--executor", metavar="NAME", help="Where runs execute: local (default) | ray | a plug-in's (`executors list`)."),
          address: Optional[str] = typer.Option(None, "--address", metavar="ADDR", help="Ray cluster address (with --executor ray)."),
          retries: Optional[int] = typer.Option(None, "--retries", "--infra-retries", min=0, metavar="N",
                                                help="Re-run a cell the sandbox or provider ended, up to N times (default 2)."),
          force: bool = typer.Option(False, "--force", help="Adopt a changed configuration on an existing sweep root."),
          resume: bool = typer.Option(True, "--resume/--no-resume", help="Skip cells that already finished."),
          sandbox: Optional[str] = typer.Option(None, "--sandbox", metavar="BACKEND", help=SANDBOX_HELP),
          network: Optional[str] = typer.Option(None, "--network", metavar="on|off", help=NETWORK_HELP),
          judge: Optional[list[str]] = typer.Option(None, "--judge", metavar="NAME", help=JUDGE_HELP),
          answer_judge: Optional[str] = typer.Option(None, "--answer-judge", metavar="NAME", help=ANSWER_JUDGE_HELP),
          data_root: Optional[Path] = DataRoot, tasks_dir: Optional[list[Path]] = TasksDir,
          agent_config: Optional[list[Path]] = AgentCfg, profile: str = ProfileOpt) -> None:
    """Run every agent × task × tier × repeat (crash-safe, resumable), then write the leaderboard."""
    if executor is not None and executor not in executor_names():
        _fail(f"--executor must be one of {', '.join(executor_names())} (`automedbench executors list`), not {executor!r}")
    try:
        if config is not None:
            if task or agent or tier or repeats:
                _fail("give either SWEEP.yaml or --task/--agent/--tier/--repeats, not both")
            spec = load_sweep_file(config)
        else:
            if not task or not agent:
                _fail("give SWEEP.yaml, or at least one --task and one --agent")
            spec = SweepSpec(agents=agent, tasks=task, tiers=tier or ["lite"], repeats=repeats or 1)
        opts = spec.options.model_dump()
        over = {"sandbox": sandbox, "network": _net(network), "judges": judge, "answer_judge": answer_judge,
                "data_root": str(data_root.resolve()) if data_root else None,
                "tasks_dirs": [str(p.resolve()) for p in tasks_dir] if tasks_dir else None,
                "agent_configs": [str(p.resolve()) for p in agent_config] if agent_config else None}
        opts.update({k: v for k, v in over.items() if v is not None})
        spec = spec.model_copy(update={"options": RunOptions(**opts),
                                       **({"retries": retries} if retries is not None else {})})
    except SweepConfigError as exc:
        _fail(str(exc))
    root = out_dir or (Path(spec.out) if spec.out else Path("runs"))
    _check_profile(profile)
    _do_sweep(spec, root, workers=workers, executor=executor, address=address, force=force, resume=resume,
              profile=profile)




@app.command()
def demo(out_dir: Path = typer.Option(Path("demo_out"), "--out"),
         workers: int = typer.Option(2, "--workers", min=1),
         repeats: int = typer.Option(2, "--repeats", min=1, help="Runs per agent x task x tier (CIs need >= 2)."),
         tier: list[str] = typer.Option(["lite"], "--tier", metavar=TIERS_METAVAR, help=TIER_HELP + " Repeatable."),
         sandbox: Optional[str] = typer.Option(None, "--sandbox", metavar="BACKEND", help=SANDBOX_HELP),
         data_root: Optional[Path] = DataRoot) -> None:
    """Build the embedded datasets, sweep the built-in agents over the demo tasks (repeats),
    build the leaderboard site, and print its path, a compact table and the slowest step."""
    with SweepProgress(err) as progress:
        try:
            result = api.demo(out_dir, workers=workers, repeats=repeats, tiers=tier, sandbox=sandbox,
                              data_root=data_root, on_event=progress,
                              on_dataset=lambda t, root: err.print(f"dataset for {t}: {root}", highlight=False))
        except _user_errors() as exc:
            progress.stop()
            _fail(str(exc))
    sweep = result.sweep
    out.print(agents_table(aggregate(sweep.reports)))
    for r in progress.failed:
        err.print(f"[red]cell {r.cell.key} failed:[/] {r.error}", highlight=False)
    out.print(f"\nRun directories: [bold]{(Path(out_dir) / 'runs').resolve()}[/]")
    out.print(f"Leaderboard:     [bold]{sweep.site.resolve()}[/]  (open in a browser; JSON and CSV beside it)")
    slow = slowest_execution([Path(r.run_dir) for r in sweep.results])
    name, secs = max(result.steps, key=lambda s: s[1])
    out.print(f"\nDemo done in {result.total_s:.0f} s. Slowest step: [bold]{name}[/] ({secs:.0f} s)"
              + (f"; slowest tool call: {slow}" if slow else ""))
    offline, official = _task_ids_by_data()
    out.print("Full matrix on the embedded data: automedbench sweep " + " ".join(f"--task {t}" for t in offline)
              + " --tier lite --tier standard --tier pro --agent reference --agent careless --agent empty")
    out.print(f"Official-data tasks ({', '.join(official)}) need `automedbench data stage DATASET --source DIR` first.")
    print(sweep.site.resolve())


def _task_ids_by_data() -> tuple[list[str], list[str]]:
    """(tasks whose dataset is built offline, tasks that need an official dataset staged)."""
    datasets = all_datasets()
    offline: list[str] = []
    official: list[str] = []
    for t in sorted(discover().values(), key=lambda t: t.id):
        info = datasets.get(t.dataset)
        (offline if info is not None and info.kind == "demo" else official).append(t.id)
    return offline, official


# ---- score / judge / report ---------------------------------------------------------

@app.command()
def score(run_dirs: list[Path] = typer.Argument(..., metavar="RUN_DIR...", help="Run directories to re-score."),
          force: bool = typer.Option(False, "--force",
                                     help="Also score interrupted runs (their report is flagged 'interrupted')."),
          answer_judge: Optional[str] = typer.Option(None, "--answer-judge", metavar="NAME", help=ANSWER_JUDGE_HELP),
          agent_config: Optional[list[Path]] = AgentCfg, profile: str = ProfileOpt) -> None:
    """Re-score saved runs from their workspace outputs alone (no agent); rewrites detail_report.json."""
    _check_profile(profile)
    reports, dirs = [], {}
    for d in run_dirs:
        try:
            reports.append(api.score(d, force=force, answer_judge=answer_judge, agent_configs=agent_config))
            dirs[reports[-1].run.run_id] = d
        except _user_errors() as exc:
            _fail(str(exc))
    out.print(runs_table(reports, dirs, width=out.width))
    _print_profile(reports, profile, out)


@app.command()
def judge(run_dirs: list[Path] = typer.Argument(..., metavar="RUN_DIR...", help="Run directories to re-judge."),
          judge: list[str] = typer.Option(["heuristic"], "--judge", metavar="NAME", help=JUDGE_HELP),
          agent_config: Optional[list[Path]] = AgentCfg,
          allow_self_judge: bool = typer.Option(False, "--allow-self-judge",
                                                help="Let a judge share a run's agent model (refused by default).")) -> None:
    """Re-judge S1..S3 of saved runs without re-running the agent (cached). A judge that fails
    (unreachable, unparseable) never replaces saved verdicts: the command says why and exits 1."""
    failures: list[tuple[str, str]] = []
    try:
        reports = api.judge(run_dirs, judge, agent_config, allow_self_judge=allow_self_judge)
    except _user_errors() as exc:
        _fail(str(exc))
    except api.JudgeRunsFailed as exc:
        reports, failures = exc.reports, exc.failures
    if reports:
        # each report knows its own directory: runs whose judge failed are left out of `reports`
        out.print(runs_table(reports, {r.run.run_id: r.run_dir for r in reports}, width=out.width))
    for _, why in failures:
        err.print(f"[bold red]judge failed:[/] {why}", highlight=False, soft_wrap=True)
    if failures:
        raise typer.Exit(1)


@app.command("judge-eval")
def judge_eval(judge: list[str] = typer.Option(["heuristic"], "--judge", metavar="NAME", help=JUDGE_HELP),
               as_json: bool = typer.Option(False, "--json", help="Print JSON instead of the table."),
               save: Optional[Path] = typer.Option(None, "--save", metavar="FILE",
                                                   help="Also write the JSON result to FILE (`report "
                                                        "--judge-calibration FILE` shows it in the footer)."),
               agent_config: Optional[list[Path]] = AgentCfg) -> None:
    """Measure a judge against the packaged hand-labelled trajectories (docs/judge.md). Exits 1
    when a floor is not met or an adversarial trajectory is credited above its label. Each run
    also keeps the judge's last measurement under <home>/calibration/, where `report` finds it
    for the leaderboard footer (docs/site.md)."""
    try:
        rep = api.judge_eval(judge, agent_config)
    except _user_errors() as exc:
        _fail(str(exc))
    text = _json.dumps(rep.as_dict(), indent=1, default=str)
    if save is not None:
        save.parent.mkdir(parents=True, exist_ok=True)
        save.write_text(text + "\n")
    print(text if as_json else render_table(rep))
    kept = [str(p) for p in (rep.saved_to, save) if p is not None]
    if kept:
        err.print(f"calibration saved to {', '.join(kept)}")
    if rep.floor_failures:
        raise typer.Exit(1)


@app.command()
def report(paths: list[Path] = typer.Argument(..., metavar="PATH...", help="Run directories or folders holding them."),
           out_dir: Path = typer.Option(Path("leaderboard"), "--out", metavar="DIR",
                                        help="Where the site (index.html, task boards, run pages) is written."),
           profile: str = typer.Option("ours", "--profile", metavar="ours|reference",
                                       help="Scoring profile the board opens with; the page can switch "
                                            "(docs/scoring-profiles.md)."),
           judge_calibration: Optional[list[Path]] = typer.Option(
               None, "--judge-calibration", metavar="FILE",
               help="A `judge-eval --save` result for the footer (repeatable); default: every file under "
                    "<home>/calibration/ (docs/site.md).")) -> None:
    """Aggregate saved runs into the leaderboard site (index.html, task boards, run pages,
    comparison, error analysis) plus leaderboard.json and .csv."""
    _check_profile(profile)
    reports = _collect_or_fail(paths)
    if reports.warnings:
        err.print(f"[yellow]{len(reports.warnings)} path(s)/report(s) skipped; listed on the page[/]")
    for f in judge_calibration or []:
        if not f.is_file():
            _fail(f"--judge-calibration {f}: no such file")
    site = write_leaderboard(reports, out_dir, profile=profile,
                             judge_calibration=judge_calibration or default_calibration_files())
    out.print(f"{len(reports)} runs -> {site.resolve()}")


def _collect_or_fail(paths: list[Path]):
    for p in paths:
        if not p.exists():
            _fail(f"{p}: no such file or directory")
    logging.getLogger("automedbench.report.collect").setLevel(logging.ERROR)
    reports = collect_reports(paths)
    if not reports:
        skipped = [w for w in reports.warnings if "skipped" in w]
        _fail(f"no run reports (detail_report.json) under {', '.join(str(p) for p in paths)}"
              + (f"; {len(skipped)} unreadable, first: {skipped[0]}" if skipped else ""))
    return reports


@app.command()
def analyze(paths: list[Path] = typer.Argument(..., metavar="PATH...", help="Run directories or folders holding them."),
            json_out: Optional[Path] = typer.Option(None, "--json", help="Write the analysis as JSON to this file ('-' = stdout)."),
            site: Optional[Path] = typer.Option(None, "--out", help="Write analysis.html with PNG/SVG plots into this folder.")) -> None:
    """The error analysis: fired codes by category and step, stage score distributions per agent,
    the overall gap between runs with a fired code and clean runs, the most frequent codes."""
    reports = _collect_or_fail(paths)
    result = run_analysis(reports, code_texts())
    if json_out is not None and str(json_out) == "-":
        print(result.model_dump_json(indent=2))
        return
    print_tables(result, out)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
        out.print(f"JSON: {json_out.resolve()}")
    if site is not None:
        page = write_analysis_site(reports, site)
        out.print(f"Page: {page.resolve()}")


@app.command()
def export(run_dirs: list[Path] = typer.Argument(..., metavar="PATH...",
                                                 help="Scored run directories, or folders holding them (a sweep root)."),
           fmt: str = typer.Option("inspect", "--format", help="inspect (an Inspect AI eval log, for `inspect view`)."),
           out_file: Optional[Path] = typer.Option(None, "--out", help="One run: the output file; several: a folder "
                                                                       "(default: RUN_DIR/inspect.json each); a file name ending in .eval "
                                                                       "gets Inspect's zip format.")) -> None:
    """Export runs to another tool's format."""
    try:
        paths = export_many(list(run_dirs), fmt, out_file)
    except ExportError as exc:
        _fail(str(exc))
    for path in paths:
        print(path)


# ---- tasks / data / prompt / agents -------------------------------------------------

def _task_json(t, data_root) -> dict:
    paths = dataset_paths(t.dataset, data_root)
    d = t.model_dump(mode="json")
    d["folder"] = str(t.folder)
    d["dataset_staged"] = paths.is_staged()
    d["case_ids"] = paths.case_ids() if paths.is_staged() else []
    d["public_dir"] = str(paths.public) if paths.is_staged() else None
    d["private_dir"] = str(paths.private) if paths.is_staged() else None
    return d


@tasks_app.command("list")
def tasks_list(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."), tasks_dir: Optional[list[Path]] = TasksDir,
               data_root: Optional[Path] = DataRoot) -> None:
    """Tasks (built-in and from --tasks-dir / $AUTOMEDBENCH_TASKS): track, dataset, staged?"""
    from rich.table import Table

    try:
        tasks = discover(tasks_dir)
    except _user_errors() as exc:
        _fail(str(exc))
    if as_json:
        print(json.dumps([_task_json(t, data_root) for t in tasks.values()], indent=2))
        return
    known = all_datasets()
    table = Table("task", "track", "dataset", "staged", "title")
    unknown = []
    for t in tasks.values():
        staged = _task_json(t, data_root)["dataset_staged"]
        if not staged and t.dataset not in known:   # neither built in nor staged: no run can start
            unknown.append(t)
        table.add_row(t.id, t.track, t.dataset, "yes" if staged else
                      ("[red]unknown dataset[/]" if t.dataset not in known else "no"), t.title)
    out.print(table)
    for t in unknown:
        err.print(f"[yellow]task {t.id}: dataset {t.dataset!r} is neither built in nor staged; stage yours with "
                  f"`automedbench data stage {t.dataset} --from-folder DIR --task {t.id}` (docs/your-task.md)[/]",
                  highlight=False, soft_wrap=True)


@tasks_app.command("show")
def tasks_show(task: str = typer.Argument(..., metavar="TASK", help="Task id."),
               as_json: bool = typer.Option(False, "--json", help="Print JSON instead of YAML."),
               tasks_dir: Optional[list[Path]] = TasksDir, data_root: Optional[Path] = DataRoot) -> None:
    """One task: its YAML, folder, case ids and where its public/private data are."""
    try:
        t = get_task(task, tasks_dir)
    except _user_errors() as exc:
        _fail(str(exc))
    d = _task_json(t, data_root)
    if as_json:
        print(json.dumps(d, indent=2))
    else:
        out.print(yaml.safe_dump(d, sort_keys=False, allow_unicode=True))


@data_app.command("stage")
def data_stage(name: str = typer.Argument(..., metavar="DATASET", help="Dataset name (see `data list`)."),
               source: Optional[Path] = typer.Option(None, "--source", metavar="DIR",
                                                     help="Local copy of an official dataset."),
               force: bool = typer.Option(False, "--force", help="Rebuild even if already staged."),
               limit: Optional[int] = typer.Option(None, "--limit", metavar="N", help="Stage at most N cases."),
               download: bool = typer.Option(False, "--download", help="Fetch from the official source (network)."),
               from_folder: Optional[Path] = typer.Option(None, "--from-folder", metavar="DIR",
                                                          help="Your own data: a plain folder (docs/your-task.md)."),
               task: Optional[str] = typer.Option(None, "--task", metavar="TASK",
                                                  help="With --from-folder: the task the data is for (its track "
                                                       "and track_options say what a case holds)."),
               tasks_dir: Optional[list[Path]] = TasksDir,
               data_root: Optional[Path] = DataRoot) -> None:
    """Build an embedded dataset, stage an official one, or stage your own folder (--from-folder)
    into DATA_ROOT/DATASET."""
    if from_folder is not None:
        if not task:
            _fail("--from-folder needs --task TASK: the task's track and track_options say what a case holds "
                  "(docs/your-task.md)")
        try:
            result = stage_from_folder(name, from_folder, get_task(task, tasks_dir), data_root, force=force)
        except _user_errors() as exc:
            _fail(str(exc))
        err.print(f"{name}: {result.summary()}", highlight=False, soft_wrap=True)
        print(result.paths.root)
        return
    options: dict[str, Any] = {k: v for k, v in {"source": source, "limit": limit, "download": download or None}.items() if v}
    try:
        paths = stage(name, data_root, force=force, **options)
    except (UserError, FileNotFoundError, TypeError) as exc:   # TypeError: an option the builder does not take
        _fail(str(exc))
    err.print(f"{name}: {stage_summary(paths.load_manifest())}", highlight=False, soft_wrap=True)
    print(paths.root)


@data_app.command("verify")
def data_verify(name: str = typer.Argument(..., metavar="DATASET", help="A staged dataset."),
                tasks_dir: Optional[list[Path]] = TasksDir, data_root: Optional[Path] = DataRoot) -> None:
    """Check a staged dataset: every file matches its manifest hash, every case has its folders,
    and (staged from a folder) every reference still loads for its task. Exit 1 on a problem."""
    try:
        problems = verify_dataset(name, data_root, load_task=lambda t: get_task(t, tasks_dir))
        n = len(dataset_paths(name, data_root).case_ids())
    except _user_errors() as exc:
        _fail(str(exc))
    for p in problems[:20]:
        err.print(f"[red]problem:[/] {p}", highlight=False, soft_wrap=True)
    if problems:
        err.print(f"{name}: {len(problems)} problem(s) in {n} cases", highlight=False)
        raise typer.Exit(1)
    out.print(f"{name}: {n} cases, every file matches the manifest", highlight=False)


@data_app.command("list")
def data_list(data_root: Optional[Path] = DataRoot,
              as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """Known datasets (every track's, plug-ins'), their kind (demo / official), origin and whether they are staged."""
    from rich.table import Table

    rows = describe_datasets()
    for r in rows:
        p = dataset_paths(r["name"], data_root)
        r.update(staged=p.is_staged(), path=str(p.root))
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table("dataset", "kind", "staged", "origin", "path", "description")
    for r in rows:
        table.add_row(r["name"], r["kind"], "yes" if r["staged"] else "no", r["origin"], r["path"], r["description"])
    out.print(table)


@app.command()
def prompt(task: str = typer.Argument(..., metavar="TASK", help="Task id."),
           tier: str = typer.Option("lite", "--tier", metavar=TIERS_METAVAR, help=TIER_HELP), tasks_dir: Optional[list[Path]] = TasksDir) -> None:
    """Print the exact rendered system prompt of a task and tier (as the bwrap sandbox lays it out)."""
    try:
        print(render_prompt(get_task(task, tasks_dir), check_tier(tier)), end="")
    except _user_errors() as exc:
        _fail(str(exc))


@agents_app.command("list")
def agents_list(agent_config: Optional[list[Path]] = AgentCfg,
                as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """Agent classes (scripted, calibration, plug-ins) and LLM agents from the registry (built-in
    examples + --agent-config files)."""
    from rich.table import Table
    from rich.text import Text

    try:
        rows = list_agents(agent_config)
    except _user_errors() as exc:
        _fail(str(exc))
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table("agent", "kind", "model", "base_url", "key env (set?)", "$ in/out per Mtok", "source", "description")
    for r in rows:
        key = "" if not r["api_key_env"] else f"{r['api_key_env']} ({'yes' if r['key_set'] else 'no'})"
        price = "" if r["input_per_mtok"] is None else f"{r['input_per_mtok']:g} / {r['output_per_mtok']:g}"
        table.add_row(r["name"], r["kind"], r["model"] or "", r["base_url"] or "", key, price, str(r["source"]),
                      Text(r["description"] or ""))
    out.print(table)


@agents_app.command("check")
def agents_check(names: list[str] = typer.Argument(..., metavar="NAME...", help="Registry agent names."),
                 agent_config: Optional[list[Path]] = AgentCfg,
                 as_json: bool = typer.Option(False, "--json", help="Print JSON instead of lines.")) -> None:
    """Send one tiny request and one tool-call request to each agent's endpoint: reachable?
    which model answered? native tool calls? how fast? Exit 2 on a configuration error."""
    for n in [n for n in names if n in scripted_agents()]:
        out.print(f"{n}: a scripted agent (no endpoint to check)", highlight=False)
    try:
        checks = [check_endpoint(get_agent_config(n, agent_config)) for n in names if n not in scripted_agents()]
    except _user_errors() as exc:
        _fail(str(exc))
    if as_json:
        print(json.dumps([c.as_dict() for c in checks], indent=2))
    for c in checks if not as_json else []:
        if c.ok:
            tools = {True: "yes", False: "no (text replies only)", None: "not checked"}[c.tool_calls]
            out.print(f"[green]ok[/] {c.name}: {c.base_url} reachable, model {c.answered_model or c.model!r} "
                      f"answered in {c.latency_s:.2f} s; tool calling: {tools}", highlight=False, soft_wrap=True)
            for note in c.notes:
                out.print(f"   note: {note}", highlight=False, soft_wrap=True)
        else:
            kind = "configuration error" if c.config_error else "not usable now"
            err.print(f"[bold red]{kind}:[/] {c.message()}", highlight=False, soft_wrap=True)
    if any(c.config_error for c in checks):
        raise typer.Exit(2)
    if not all(c.ok for c in checks):
        raise typer.Exit(1)


def main() -> None:
    warnings.simplefilter("default", RuntimeWarning)
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
