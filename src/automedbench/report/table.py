"""A rich terminal table of individual runs, for the CLI after a sweep or the demo."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from rich.table import Table
from rich.text import Text

from ..runs.models import DetailReport
from .aggregate import STAGES, is_unisolated


def _score(v: float | None, *, bold: bool = False) -> Text:
    if v is None:
        return Text("—", style="dim")
    style = "green" if v >= 0.7 else "yellow" if v >= 0.3 else "red"
    return Text(f"{v * 100:.1f}", style=f"bold {style}" if bold else style)


_MEDAL_STYLE = {"good": "bold green", "okay": "yellow", "none": "dim"}
_RATING_STYLE = {"A": "bold green", "B": "green", "C": "yellow", "F": "bold red"}


def runs_table(reports: Iterable[DetailReport], run_dirs: Mapping[str, Path | str] | None = None,
               *, title: str | None = "AutoMedBench runs") -> Table:
    """One row per run: agent, task, tier, S1..S5, agentic, task, overall, medal, rating, run dir.

    Scores are shown ×100; a null stage shows "—". `run_dirs` maps run_id -> directory; when
    omitted and `reports` came from `collect_reports`, its `run_dirs` are used. All cell text
    is literal (rich markup in an agent name is not interpreted).
    """
    if run_dirs is None:
        run_dirs = getattr(reports, "run_dirs", None) or {}
    table = Table(title=title, show_lines=False, header_style="bold")
    table.add_column("agent", overflow="fold")
    table.add_column("task", overflow="fold")
    table.add_column("tier")
    for s in STAGES:
        table.add_column(s.upper(), justify="right")
    table.add_column("agentic", justify="right")
    table.add_column("task score", justify="right")
    table.add_column("overall", justify="right")
    table.add_column("medal")
    table.add_column("rating", justify="center")
    table.add_column("run dir", overflow="fold")
    for r in reports:
        agent = Text(r.run.agent)
        if r.disqualified:
            agent.append(" [DQ]", style="bold red")
        if is_unisolated(r.run.sandbox):
            agent.append(" [no isolation]", style="yellow")
        rd = run_dirs.get(r.run.run_id)
        table.add_row(
            agent, Text(r.run.task), Text(r.run.tier),
            *[_score(r.stages[s].score if s in r.stages else None) for s in STAGES],
            _score(r.agentic), _score(r.task.score), _score(r.overall, bold=True),
            Text(r.medal, style=_MEDAL_STYLE.get(r.medal, "")),
            Text(r.rating, style=_RATING_STYLE.get(r.rating, "")),
            Text(str(rd) if rd is not None else "—", style="dim" if rd is None else ""),
        )
    return table


def agents_table(board, *, title: str | None = "AutoMedBench leaderboard (per agent)") -> Table:
    """A compact per-agent table (fits ~100 columns): overall with its stratified 95 % CI,
    agentic, task, S1..S5, complete runs and the infra / judge-incomplete counts."""
    table = Table(title=title, header_style="bold")
    table.add_column("agent", overflow="fold")
    table.add_column("overall", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("agentic", justify="right")
    table.add_column("task", justify="right")
    for s in STAGES:
        table.add_column(s.upper(), justify="right")
    table.add_column("runs", justify="right")
    for a in board.agents:
        o = a.overall
        ci = "—" if o.ci_low is None else ("n=1" if o.n1 else f"{o.ci_low * 100:.0f}–{o.ci_high * 100:.0f}")
        runs = f"{a.n_complete}" + (f" +{a.infra_runs} infra" if a.infra_runs else "") \
            + (f" +{a.judge_incomplete} judge" if a.judge_incomplete else "")
        table.add_row(Text(a.agent), _score(o.mean, bold=True), Text(ci), _score(a.agentic.mean),
                      _score(a.task_score.mean), *[_score(a.stages[s].mean) for s in STAGES], Text(runs))
    return table
