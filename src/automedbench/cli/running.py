"""`run`, `sweep` and `demo`: run cells and print what they gave (docs/cli.md).

The API and what it runs on (the lifecycle, the report, the sweep) are imported by the command
as it runs, not with this module: `automedbench run --help` and a flag error need only typer
(docs/cli.md "Start-up")."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from .common import (
    ANSWER_JUDGE_HELP,
    JUDGE_HELP,
    NETWORK_HELP,
    SANDBOX_HELP,
    TIER_HELP,
    TIERS_METAVAR,
    AgentCfg,
    DataRoot,
    ProfileOpt,
    TasksDir,
    check_profile_or_fail,
    err,
    fail,
    out,
    parse_network,
    print_profile,
    user_errors,
)

if TYPE_CHECKING:
    from ..runs.options import RunOptions
    from ..runs.sweep import SweepSpec

app = typer.Typer()


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
    from .. import api
    from ..errors import RunInterrupted
    from ..report import runs_table
    from ..runs.trace import infra_error_message
    check_profile_or_fail(profile)
    options = _run_options(sandbox, network, judge, answer_judge, data_root, tasks_dir, agent_config, allow_self_judge)
    try:
        api.check_endpoints([agent], options.agent_config_paths)   # a configuration error stops here (docs/llm.md)
        report = api.run_one(task, tier, agent, out_dir, options)
    except user_errors() as exc:
        fail(str(exc))
    except RunInterrupted as exc:
        err.print(f"interrupted ({exc.signal_name}): run closed as end_reason 'interrupted', not scored: "
                  f"{exc.run_dir}", highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None
    run_dir = report.run_dir
    err.print(runs_table([report], {report.run.run_id: run_dir}, width=err.width))
    print_profile([report], profile, err)
    print(run_dir)
    if "infra_error" in report.flags:   # recorded, not the agent's fault, but the user must know
        why = infra_error_message(run_dir)
        err.print(f"[bold red]infrastructure fault:[/] {report.run.end_detail}: the run is recorded as "
                  "'infra_error' (not scored, left out of rankings)" + (f"\n  {why}" if why else ""),
                  highlight=False, soft_wrap=True)
        raise typer.Exit(1)


def _run_options(sandbox: str | None, network: str | None, judge: list[str] | None, answer_judge: str | None,
                 data_root: Path | None, tasks_dir: list[Path] | None, agent_config: list[Path] | None,
                 allow_self_judge: bool = False) -> RunOptions:
    """The run options the flags of `run` and `sweep` give (an unset flag leaves its default)."""
    from ..runs.options import RunOptions
    return RunOptions(sandbox=sandbox, network=parse_network(network), judges=judge or None, answer_judge=answer_judge,
                      data_root=data_root, tasks_dirs=tasks_dir or None, agent_configs=agent_config or None,
                      allow_self_judge=allow_self_judge)


def _sweep_and_print(spec: SweepSpec, out_dir: Path, *, workers: int | None = None, executor: str | None = None,
                     address: str | None = None, force: bool = False, resume: bool = True,
                     profile: str = "ours") -> None:
    """Print around api.sweep_and_report: the progress bar, a table, failures, where things are."""
    from .. import api
    from ..progress import SweepProgress
    from ..report import runs_table
    try:
        api.validate_sweep(spec)   # a user error is one line, before the progress bar
    except user_errors() as exc:   # SweepConfigError and ExecutorError are UserErrors
        fail(str(exc))
    with SweepProgress(err) as progress:
        try:
            outcome = api.sweep_and_report(spec, out_dir, workers=workers, executor=executor,
                                           address=address, force=force, resume=resume, on_event=progress)
        except user_errors() as exc:   # SweepConfigError and ExecutorError are UserErrors
            progress.stop()
            fail(str(exc))
    reports = outcome.reports
    out.print(runs_table(reports, width=out.width))
    print_profile(reports, profile, out)
    for r in progress.failed:
        err.print(f"[red]cell {r.cell.key} failed:[/] {r.error}", highlight=False)
    for r in outcome.infra:
        err.print(f"[yellow]cell {r.cell.key} ended on an infrastructure fault ({r.end_reason}) after "
                  f"{r.attempts} attempt(s); not counted against the agent[/]", highlight=False)
    out.print(f"\nRun directories: [bold]{Path(out_dir).resolve()}[/]")
    # a sweep that scored nothing announces no board; failed or infra-ended cells exit 1 (docs/sweeps.md)
    if outcome.scored:
        out.print(f"Leaderboard:     [bold]{outcome.site.resolve()}[/]  (open in a browser; JSON and CSV beside it)")
    else:
        err.print("[bold red]no run of this sweep was scored:[/] no leaderboard to announce", highlight=False)
    if not outcome.ok:
        err.print(f"{len(outcome.unscored)} of {len(outcome.results)} cell(s) failed or ended on an infrastructure "
                  f"fault; {len(outcome.scored)} run(s) scored", highlight=False)
        raise typer.Exit(1)


@app.command()
def sweep(config: Optional[Path] = typer.Argument(None, metavar="SWEEP.yaml", help="The sweep file: agents, tasks, tiers, repeats, "
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
    from .. import api
    from ..runs.executors import executor_names
    from ..runs.sweep import SweepConfigError
    if executor is not None and executor not in executor_names():
        fail(f"--executor must be one of {', '.join(executor_names())} (`automedbench executors list`), not {executor!r}")
    try:
        spec = api.sweep_spec(config, tasks=task, tiers=tier, agents=agent, repeats=repeats, retries=retries,
                              options=_run_options(sandbox, network, judge, answer_judge, data_root, tasks_dir,
                                                   agent_config))
    except SweepConfigError as exc:
        fail(str(exc))
    root = out_dir or (Path(spec.out) if spec.out else Path("runs"))
    check_profile_or_fail(profile)
    _sweep_and_print(spec, root, workers=workers, executor=executor, address=address, force=force, resume=resume,
                     profile=profile)


@app.command()
def demo(out_dir: Path = typer.Option(Path("demo_out"), "--out", metavar="DIR", help="Folder for the runs and the leaderboard."),
         workers: int = typer.Option(2, "--workers", min=1, metavar="N", help="Runs in parallel."),
         repeats: int = typer.Option(2, "--repeats", min=1, metavar="N", help="Runs per agent x task x tier (CIs need >= 2)."),
         tier: list[str] = typer.Option(["lite"], "--tier", metavar=TIERS_METAVAR, help=TIER_HELP + " Repeatable."),
         sandbox: Optional[str] = typer.Option(None, "--sandbox", metavar="BACKEND", help=SANDBOX_HELP),
         data_root: Optional[Path] = DataRoot) -> None:
    """Build the embedded datasets, sweep the built-in agents over the demo tasks (repeats),
    build the leaderboard site, and print its path, a compact table and the slowest step."""
    from .. import api
    from ..progress import SweepProgress
    from ..report import aggregate
    from ..report.table import agents_table
    with SweepProgress(err) as progress:
        try:
            result = api.demo(out_dir, workers=workers, repeats=repeats, tiers=tier, sandbox=sandbox,
                              data_root=data_root, on_event=progress,
                              on_dataset=lambda t, root: err.print(f"dataset for {t}: {root}", highlight=False))
        except user_errors() as exc:
            progress.stop()
            fail(str(exc))
    sweep = result.sweep
    out.print(agents_table(aggregate(sweep.reports)))
    for r in progress.failed:
        err.print(f"[red]cell {r.cell.key} failed:[/] {r.error}", highlight=False)
    out.print(f"\nRun directories: [bold]{(Path(out_dir) / 'runs').resolve()}[/]")
    out.print(f"Leaderboard:     [bold]{sweep.site.resolve()}[/]  (open in a browser; JSON and CSV beside it)")
    name, secs = result.slowest_step
    out.print(f"\nDemo done in {result.total_s:.0f} s. Slowest step: [bold]{name}[/] ({secs:.0f} s)"
              + (f"; slowest tool call: {result.slowest_call}" if result.slowest_call else ""))
    offline, official = api.task_ids_by_data()
    out.print("Full matrix on the embedded data: automedbench sweep " + " ".join(f"--task {t}" for t in offline)
              + " --tier lite --tier standard --tier pro --agent reference --agent careless --agent empty")
    out.print(f"Official-data tasks ({', '.join(official)}) need `automedbench data stage DATASET --source DIR` first.")
    print(sweep.site.resolve())
