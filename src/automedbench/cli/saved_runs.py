"""Commands over saved runs: `score`, `judge`, `judge-eval`, `report`, `analyze`, `export`
(docs/cli.md)."""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Optional

import typer

from .. import api
from ..export import ExportError, export_many
from ..report import runs_table
from ..report.analyze import analyze as run_analysis
from ..report.analyze import print_tables
from ..report.collect import ReportList
from ..report.leaderboard import write_analysis_site
from ..runs.models import DetailReport
from ..scoring.error_codes import code_texts
from ..scoring.judge_eval import heldout_part_names, render_table
from ..scoring.judge_eval.metamorphic import metamorphic_failures, render_metamorphic
from .common import (
    ANSWER_JUDGE_HELP,
    JUDGE_HELP,
    AgentCfg,
    ProfileOpt,
    TasksDir,
    check_profile_or_fail,
    err,
    fail,
    out,
    print_profile,
    user_errors,
)

app = typer.Typer()


@app.command()
def score(run_dirs: list[Path] = typer.Argument(..., metavar="RUN_DIR", help="Run directories to re-score."),
          force: bool = typer.Option(False, "--force",
                                     help="Also score interrupted runs (their report is flagged 'interrupted')."),
          answer_judge: Optional[str] = typer.Option(None, "--answer-judge", metavar="NAME", help=ANSWER_JUDGE_HELP),
          agent_config: Optional[list[Path]] = AgentCfg, profile: str = ProfileOpt) -> None:
    """Re-score saved runs from their workspace outputs alone (no agent); rewrites detail_report.json."""
    check_profile_or_fail(profile)
    reports: list[DetailReport] = []
    dirs: dict[str, Path] = {}
    for d in run_dirs:
        try:
            reports.append(api.score(d, force=force, answer_judge=answer_judge, agent_configs=agent_config))
            dirs[reports[-1].run.run_id] = d
        except user_errors() as exc:
            fail(str(exc))
    out.print(runs_table(reports, dirs, width=out.width))
    print_profile(reports, profile, out)


@app.command()
def judge(run_dirs: list[Path] = typer.Argument(..., metavar="RUN_DIR", help="Run directories to re-judge."),
          judge: list[str] = typer.Option(["heuristic"], "--judge", metavar="NAME", help=JUDGE_HELP),
          agent_config: Optional[list[Path]] = AgentCfg,
          allow_self_judge: bool = typer.Option(False, "--allow-self-judge",
                                                help="Let a judge share a run's agent model (refused by default).")) -> None:
    """Re-judge S1..S3 of saved runs without re-running the agent (cached). A judge that fails
    (unreachable, unparseable) never replaces saved verdicts: the command says why and exits 1."""
    failures: list[tuple[str, str]] = []
    try:
        reports = api.judge(run_dirs, judge, agent_config, allow_self_judge=allow_self_judge)
    except user_errors() as exc:
        fail(str(exc))
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
               metamorphic: bool = typer.Option(False, "--metamorphic",
                                                help="Also run the metamorphic variants of the trajectories "
                                                     "(substance kept / removed; docs/judge.md)."),
               heldout: bool = typer.Option(False, "--heldout",
                                            help="Also measure it on the held-out set, each part apart "
                                                 "(dev, sealed, sealed-2 .. sealed-11: docs/judge.md \"Held-out set\")."),
               agent_config: Optional[list[Path]] = AgentCfg) -> None:
    """Measure a judge against the hand-labelled calibration trajectories (docs/judge.md). Exits 1
    when a floor is not met or an adversarial trajectory is credited above its label (with
    --metamorphic: or a variant fails; with --heldout: or a held-out floor is missed). Each run
    also keeps the judge's last measurement under <home>/calibration/, where `report` finds it
    for the leaderboard footer (docs/site.md)."""
    try:
        rep = api.judge_eval(judge, agent_config)
        variants = api.judge_metamorphic(judge, agent_config) if metamorphic else None
        parts = api.judge_heldout(judge, agent_config) if heldout else {}
    except user_errors() as exc:
        fail(str(exc))
    text = api.calibration_json(rep)
    if save is not None:
        save.parent.mkdir(parents=True, exist_ok=True)
        save.write_text(text + "\n")
    if as_json:
        print(text if variants is None and not parts else json.dumps(
            {"calibration": json.loads(text), "metamorphic": [asdict(v) for v in variants or []],
             "heldout": {p: r.as_dict() for p, r in parts.items()}}, indent=1, default=str))
    else:
        print(render_table(rep) + ("" if variants is None else "\n\n" + render_metamorphic(variants))
              + "".join(f"\n\nheld-out set, {p} part ({heldout_part_names().get(p, '')}):\n"
                        + render_table(r) for p, r in parts.items()))
    kept = [str(p) for p in (rep.saved_to, save) if p is not None]
    if kept:
        err.print(f"calibration saved to {', '.join(kept)}")
    if rep.floor_failures or (variants is not None and metamorphic_failures(variants)) \
            or any(r.floor_failures for r in parts.values()):
        raise typer.Exit(1)


@app.command()
def report(paths: list[Path] = typer.Argument(..., metavar="PATH", help="Run directories or folders holding them."),
           out_dir: Path = typer.Option(Path("leaderboard"), "--out", metavar="DIR",
                                        help="Where the site (index.html, task boards, run pages) is written."),
           profile: str = typer.Option("ours", "--profile", metavar="ours|reference",
                                       help="Scoring profile the board opens with; the page can switch "
                                            "(docs/scoring-profiles.md)."),
           judge_calibration: Optional[list[Path]] = typer.Option(
               None, "--judge-calibration", metavar="FILE",
               help="A `judge-eval --save` result for the footer (repeatable); default: every file under "
                    "<home>/calibration/ (docs/site.md)."),
           tasks_dir: Optional[list[Path]] = TasksDir) -> None:
    """Aggregate saved runs into the leaderboard site (index.html, task boards, run pages,
    comparison, error analysis) plus leaderboard.json and .csv."""
    check_profile_or_fail(profile)
    reports = _collect_or_fail(paths)
    if reports.warnings:
        err.print(f"[yellow]{len(reports.warnings)} path(s)/report(s) skipped; listed on the page[/]")
    try:
        site = api.report(reports, out_dir, profile=profile, judge_calibration=judge_calibration,
                          tasks_dirs=tasks_dir)
    except user_errors() as exc:
        fail(str(exc))
    out.print(f"{len(reports)} runs -> {site.resolve()}")


def _collect_or_fail(paths: list[Path]) -> ReportList:
    try:
        return api.collect(paths)
    except user_errors() as exc:
        fail(str(exc))


@app.command()
def analyze(paths: list[Path] = typer.Argument(..., metavar="PATH", help="Run directories or folders holding them."),
            json_out: Optional[Path] = typer.Option(None, "--json", metavar="FILE", help="Write the analysis as JSON to this file ('-' = stdout)."),
            site: Optional[Path] = typer.Option(None, "--out", metavar="DIR", help="Write analysis.html with PNG/SVG plots into this folder.")) -> None:
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
def export(run_dirs: list[Path] = typer.Argument(..., metavar="PATH",
                                                 help="Scored run directories, or folders holding them (a sweep root)."),
           fmt: str = typer.Option("inspect", "--format", metavar="FORMAT", help="inspect (an Inspect AI eval log, for `inspect view`)."),
           out_file: Optional[Path] = typer.Option(None, "--out", metavar="PATH", help="One run: the output file; several: a folder "
                                                                       "(default: RUN_DIR/inspect.json each); a file name ending in .eval "
                                                                       "gets Inspect's zip format.")) -> None:
    """Export runs to another tool's format."""
    try:
        paths = export_many(list(run_dirs), fmt, out_file)
    except ExportError as exc:
        fail(str(exc))
    for path in paths:
        print(path)
