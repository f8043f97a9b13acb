"""`automedbench` command line: a thin layer over automedbench.api.

User errors (unknown task/tier/agent, unstaged data, not a run directory) print one clear
line and exit 2. Agent failures never make the CLI fail: they are scored and recorded.
"""
from __future__ import annotations

import json
import logging
import sys
import warnings
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from . import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="AutoMedBench: run LLM coding agents on medical-AI research tasks and score "
                       "the artifact and the workflow (S1 Plan .. S5 Submit).")
tasks_app = typer.Typer(no_args_is_help=True, help="List and describe tasks.")
data_app = typer.Typer(no_args_is_help=True, help="Build embedded datasets or stage official ones.")
agents_app = typer.Typer(no_args_is_help=True, help="List configured agents.")
app.add_typer(tasks_app, name="tasks")
app.add_typer(data_app, name="data")
app.add_typer(agents_app, name="agents")
try:
    from .sandbox.cli import sandbox_app
    app.add_typer(sandbox_app, name="sandbox", help="Run one execution in a fresh sandbox, as an agent would.")
except ImportError:  # pragma: no cover - only while the sandbox CLI is absent
    pass

# Piped output (CI logs, `| tee`) gets wide tables instead of 80 squeezed columns.
out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 200)


def _user_errors():
    from .agents import AgentError
    from .data import DatasetError
    from .prompts.render import PromptError
    from .sandbox import SandboxError
    from .scoring.score_run import RunDirError
    from .tasks import TaskError
    return (TaskError, AgentError, DatasetError, RunDirError, PromptError, SandboxError, FileNotFoundError)


def _fail(msg: str) -> None:
    err.print(f"[bold red]error:[/] {msg}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _net(value: Optional[str]) -> Optional[bool]:
    if value is None:
        return None
    if value not in ("on", "off"):
        _fail(f"--network must be 'on' or 'off', not {value!r}")
    return value == "on"


TasksDir = typer.Option(None, "--tasks-dir", help="Extra folder of task folders (repeatable).")
DataRoot = typer.Option(None, "--data-root", help="Where datasets live (default $AUTOMEDBENCH_DATA or ~/.cache/automedbench/data).")
AgentCfg = typer.Option(None, "--agent-config", help="Extra agent registry YAML (repeatable).")


@app.callback()
def _main(version: bool = typer.Option(False, "--version", help="Print the version."),
          verbose: bool = typer.Option(False, "-v", "--verbose")) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if version:
        out.print(__version__)
        raise typer.Exit()


# ---- run / sweep / demo -------------------------------------------------------------

@app.command()
def run(task: str = typer.Option(..., "--task"), tier: str = typer.Option("lite", "--tier"),
        agent: str = typer.Option(..., "--agent"), out_dir: Path = typer.Option(Path("runs"), "--out"),
        sandbox: Optional[str] = typer.Option(None, "--sandbox", help="bwrap (default when available) | docker | local"),
        network: Optional[str] = typer.Option(None, "--network", help="on | off (default: the task's setting)"),
        judge: Optional[list[str]] = typer.Option(None, "--judge", help="Judge name(s); default heuristic."),
        data_root: Optional[Path] = DataRoot, tasks_dir: Optional[list[Path]] = TasksDir,
        agent_config: Optional[list[Path]] = AgentCfg) -> None:
    """Run one (task, tier, agent) cell and print its run directory."""
    from . import api
    from .report import runs_table
    from .runs.models import DetailReport
    try:
        run_dir = api.run_one(task, tier, agent, out_dir, sandbox=sandbox, network=_net(network),
                              data_root=data_root, tasks_dirs=tasks_dir, agent_configs=agent_config, judges=judge)
    except _user_errors() as exc:
        _fail(str(exc))
    report = DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())
    err.print(runs_table([report], {report.run.run_id: run_dir}))
    print(run_dir)


def _do_sweep(tasks, tiers, agents, out_dir, repeats, workers, resume, leaderboard_dir, **kw) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from . import api
    from .report import collect_reports, runs_table, write_leaderboard
    n = len(tasks) * len(tiers) * len(agents) * repeats
    failures = []
    with Progress(TextColumn("[bold]sweep"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, transient=False) as bar:
        job = bar.add_task("", total=n)

        def progress(cell, run_dir, error):
            bar.update(job, advance=1, description=f"{cell.task}/{cell.tier}/{cell.agent}#{cell.repeat}"
                                                   + (" [red]FAILED[/]" if error else ""))
            if error:
                failures.append((cell, error))
        try:
            results = api.sweep(tasks, tiers, agents, out_dir, repeats=repeats, workers=workers,
                                resume=resume, progress=progress, **kw)
        except _user_errors() as exc:
            bar.stop()
            _fail(str(exc))
    reports = collect_reports([Path(run_dir) for _, run_dir, _ in results])
    out.print(runs_table(reports))
    for cell, error in failures:
        err.print(f"[red]cell {cell.task}/{cell.tier}/{cell.agent}#{cell.repeat} failed:[/] {error}")
    site = write_leaderboard(collect_reports([Path(out_dir)]), leaderboard_dir or Path(out_dir) / "leaderboard")
    out.print(f"\nRun directories: [bold]{Path(out_dir).resolve()}[/]")
    out.print(f"Leaderboard:     [bold]{site.resolve()}[/]  (open in a browser; JSON and CSV beside it)")


@app.command()
def sweep(task: list[str] = typer.Option(..., "--task"), tier: list[str] = typer.Option(["lite"], "--tier"),
          agent: list[str] = typer.Option(..., "--agent"), out_dir: Path = typer.Option(Path("runs"), "--out"),
          repeats: int = typer.Option(1, "--repeats", min=1), workers: int = typer.Option(1, "--workers", min=1),
          resume: bool = typer.Option(True, "--resume/--no-resume", help="Skip cells that already have a report."),
          sandbox: Optional[str] = typer.Option(None, "--sandbox"),
          network: Optional[str] = typer.Option(None, "--network"),
          judge: Optional[list[str]] = typer.Option(None, "--judge"),
          data_root: Optional[Path] = DataRoot, tasks_dir: Optional[list[Path]] = TasksDir,
          agent_config: Optional[list[Path]] = AgentCfg) -> None:
    """Run every task × tier × agent × repeat (resumable), then write the leaderboard."""
    _do_sweep(task, tier, agent, out_dir, repeats, workers, resume, None, sandbox=sandbox, network=_net(network),
              judges=judge, data_root=data_root, tasks_dirs=tasks_dir, agent_configs=agent_config)




@app.command()
def demo(out_dir: Path = typer.Option(Path("demo_out"), "--out"),
         workers: int = typer.Option(2, "--workers", min=1),
         tier: list[str] = typer.Option(["lite"], "--tier"),
         sandbox: Optional[str] = typer.Option(None, "--sandbox"),
         data_root: Optional[Path] = DataRoot) -> None:
    """Build the embedded datasets, run the built-in agents through S1..S5, score, and print
    where the results and the leaderboard are."""
    from .api import DEMO_AGENTS, demo_tasks, ensure_dataset
    from .tasks import get_task
    tasks = demo_tasks()
    for t in tasks:
        paths = ensure_dataset(get_task(t), data_root)
        err.print(f"dataset for {t}: {paths.root}")
    _do_sweep(tasks, tier, DEMO_AGENTS, out_dir / "runs", 1, workers, False, out_dir / "leaderboard",
              sandbox=sandbox, network=False, data_root=data_root)
    out.print("Full matrix: automedbench sweep " + " ".join(f"--task {t}" for t in sorted(_all_task_ids()))
              + " --tier lite --tier standard --tier pro --agent reference --agent careless --agent empty")


def _all_task_ids() -> list[str]:
    from .tasks import discover
    return list(discover())


# ---- score / judge / report ---------------------------------------------------------

@app.command()
def score(run_dirs: list[Path] = typer.Argument(..., help="Run directories to re-score.")) -> None:
    """Re-score saved runs from their workspace outputs alone (no agent); rewrites detail_report.json."""
    from . import api
    from .report import runs_table
    reports = []
    for d in run_dirs:
        try:
            reports.append(api.score(d))
        except _user_errors() as exc:
            _fail(str(exc))
    out.print(runs_table(reports, {r.run.run_id: d for r, d in zip(reports, run_dirs)}))


@app.command()
def judge(run_dirs: list[Path] = typer.Argument(...), judge: list[str] = typer.Option(["heuristic"], "--judge"),
          agent_config: Optional[list[Path]] = AgentCfg) -> None:
    """Re-judge S1..S3 of saved runs without re-running the agent (cached)."""
    from . import api
    from .report import runs_table
    try:
        reports = api.judge(run_dirs, judge, agent_config)
    except (*_user_errors(), ValueError) as exc:
        _fail(str(exc))
    out.print(runs_table(reports, {r.run.run_id: d for r, d in zip(reports, run_dirs)}))


@app.command()
def report(paths: list[Path] = typer.Argument(..., help="Run directories or folders holding them."),
           out_dir: Path = typer.Option(Path("leaderboard"), "--out")) -> None:
    """Aggregate saved runs into a leaderboard (HTML + JSON + CSV)."""
    from .report import collect_reports, write_leaderboard
    reports = collect_reports(paths)  # skipped reports are logged and shown on the page
    site = write_leaderboard(reports, out_dir)
    out.print(f"{len(reports)} runs -> {site.resolve()}")


# ---- tasks / data / prompt / agents -------------------------------------------------

def _task_json(t, data_root) -> dict:
    from .data import dataset_paths
    paths = dataset_paths(t.dataset, data_root)
    d = t.model_dump(mode="json")
    d["folder"] = str(t.folder)
    d["dataset_staged"] = paths.is_staged()
    d["case_ids"] = paths.case_ids() if paths.is_staged() else []
    d["public_dir"] = str(paths.public) if paths.is_staged() else None
    d["private_dir"] = str(paths.private) if paths.is_staged() else None
    return d


@tasks_app.command("list")
def tasks_list(as_json: bool = typer.Option(False, "--json"), tasks_dir: Optional[list[Path]] = TasksDir,
               data_root: Optional[Path] = DataRoot) -> None:
    from rich.table import Table

    from .tasks import discover
    try:
        tasks = discover(tasks_dir)
    except _user_errors() as exc:
        _fail(str(exc))
    if as_json:
        print(json.dumps([_task_json(t, data_root) for t in tasks.values()], indent=2))
        return
    table = Table("task", "track", "dataset", "staged", "title")
    for t in tasks.values():
        table.add_row(t.id, t.track, t.dataset, "yes" if _task_json(t, data_root)["dataset_staged"] else "no", t.title)
    out.print(table)


@tasks_app.command("show")
def tasks_show(task: str, as_json: bool = typer.Option(False, "--json"),
               tasks_dir: Optional[list[Path]] = TasksDir, data_root: Optional[Path] = DataRoot) -> None:
    from .tasks import get_task
    try:
        t = get_task(task, tasks_dir)
    except _user_errors() as exc:
        _fail(str(exc))
    d = _task_json(t, data_root)
    if as_json:
        print(json.dumps(d, indent=2))
    else:
        import yaml
        out.print(yaml.safe_dump(d, sort_keys=False, allow_unicode=True))


@data_app.command("stage")
def data_stage(name: str, source: Optional[Path] = typer.Option(None, "--source", help="Local copy of an official dataset."),
               force: bool = typer.Option(False, "--force"), limit: Optional[int] = typer.Option(None, "--limit"),
               download: bool = typer.Option(False, "--download", help="Fetch from the official source (network)."),
               data_root: Optional[Path] = DataRoot) -> None:
    """Build an embedded dataset or stage an official one into <data_root>/<name>."""
    from .data.registry import stage
    options = {k: v for k, v in {"source": source, "limit": limit, "download": download or None}.items() if v}
    try:
        paths = stage(name, data_root, force=force, **options)
    except (*_user_errors(), TypeError) as exc:
        _fail(str(exc))
    print(paths.root)


@data_app.command("list")
def data_list(data_root: Optional[Path] = DataRoot) -> None:
    from rich.table import Table

    from .data import dataset_paths
    from .data.registry import DATASETS
    table = Table("dataset", "kind", "staged", "path", "description")
    for name, info in DATASETS.items():
        p = dataset_paths(name, data_root)
        table.add_row(name, info.kind, "yes" if p.is_staged() else "no", str(p.root), info.description)
    out.print(table)


@app.command()
def prompt(task: str, tier: str = typer.Option("lite", "--tier"), tasks_dir: Optional[list[Path]] = TasksDir) -> None:
    """Print the exact rendered system prompt of a task and tier (as the bwrap sandbox lays it out)."""
    from .prompts.render import render_prompt
    from .tasks import check_tier, get_task
    try:
        print(render_prompt(get_task(task, tasks_dir), check_tier(tier)), end="")
    except _user_errors() as exc:
        _fail(str(exc))


@agents_app.command("list")
def agents_list(agent_config: Optional[list[Path]] = AgentCfg, as_json: bool = typer.Option(False, "--json")) -> None:
    """Scripted agents and LLM agents from the registry (built-in examples + --agent-config files)."""
    from rich.table import Table

    from .agents.registry import list_agents
    try:
        rows = list_agents(agent_config)
    except _user_errors() as exc:
        _fail(str(exc))
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table("agent", "kind", "model", "base_url", "key env (set?)", "$ in/out per Mtok", "source")
    for r in rows:
        key = "" if not r["api_key_env"] else f"{r['api_key_env']} ({'yes' if r['key_set'] else 'no'})"
        price = "" if r["input_per_mtok"] is None else f"{r['input_per_mtok']:g} / {r['output_per_mtok']:g}"
        table.add_row(r["name"], r["kind"], r["model"] or "", r["base_url"] or "", key, price, str(r["source"]))
    out.print(table)


def main() -> None:
    warnings.simplefilter("default", RuntimeWarning)
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
