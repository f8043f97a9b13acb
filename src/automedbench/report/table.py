"""A rich terminal table of individual runs, for the CLI after a sweep or the demo."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from ..number_format import score_text
from ..runs.models import DetailReport
from .aggregate import STAGES, Leaderboard, is_unisolated


def _score(v: float | None, *, bold: bool = False, digits: int = 1) -> Text:
    """A score x100, rounded as every page rounds it (number_format.py: the CLI and the index agree)."""
    if v is None:
        return Text("—", style="dim")
    style = "green" if v >= 0.7 else "yellow" if v >= 0.3 else "red"
    return Text(score_text(v, digits), style=f"bold {style}" if bold else style)


_MEDAL_STYLE = {"good": "bold green", "okay": "yellow", "none": "dim"}
_RATING_STYLE = {"A": "bold green", "B": "green", "C": "yellow", "F": "bold red"}

# Layouts by terminal width. Scores never wrap or get cut ("66…"): names fold instead, and
# narrower terminals drop the run-dir column (the CLI prints run dirs itself), then show
# whole numbers and leave the medal to the rating it maps to.
WIDE, MEDIUM = 150, 100


def runs_table(reports: Iterable[DetailReport], run_dirs: Mapping[str, Path | str] | None = None,
               *, title: str | None = "AutoMedBench runs", width: int | None = None) -> Table:
    """One row per run: agent, task, tier, S1..S5, agentic, task, overall, medal, rating, run dir.

    Scores are shown ×100; a null stage shows "—". `width` is the console width the table must
    fit (default: wide, 200): ≥ 150 shows everything; ≥ 100 drops the run-dir column; below,
    scores are whole numbers and the medal column is dropped (it fits 80 columns). `run_dirs`
    maps run_id -> directory; when omitted and `reports` came from `collect_reports`, its
    `run_dirs` are used. All cell text is literal (rich markup in an agent name is not
    interpreted). Runs that are nobody's score are marked: [infra] (infrastructure ended
    them), [interrupted], [DQ].
    """
    if run_dirs is None:
        run_dirs = getattr(reports, "run_dirs", None) or {}
    width = width or 200
    show_dir, show_medal = width >= WIDE, width >= MEDIUM
    digits = 1 if width >= MEDIUM else 0
    table = Table(title=title, show_lines=False, header_style="bold", box=box.SIMPLE_HEAD,
                  pad_edge=False, collapse_padding=True)
    table.add_column("agent", overflow="fold", ratio=2, min_width=6)
    table.add_column("task", overflow="fold", ratio=2, min_width=6)
    table.add_column("tier", overflow="fold", min_width=4)
    num: dict[str, Any] = {"justify": "right", "no_wrap": True}
    for s in STAGES:
        table.add_column(s.upper(), **num)
    table.add_column("agentic" if show_medal else "agt", **num)
    table.add_column("task score" if show_medal else "tsk", **num)
    table.add_column("overall" if show_medal else "all", **num)
    if show_medal:
        table.add_column("medal", no_wrap=True)
    table.add_column("rating" if show_medal else "rt", justify="center", no_wrap=True)
    if show_dir:
        table.add_column("run dir", overflow="fold", ratio=3)
    for r in reports:
        agent = Text(r.run.agent)
        if r.disqualified:
            agent.append(" [DQ]", style="bold red")
        if "infra_error" in r.flags:
            agent.append(" [infra]", style="bold magenta")
        if "interrupted" in r.flags:
            agent.append(" [interrupted]", style="bold magenta")
        if is_unisolated(r.run.sandbox):
            agent.append(" [no isolation]", style="yellow")
        row = [agent, Text(r.run.task), Text(r.run.tier),
               *[_score(r.stages[s].score if s in r.stages else None, digits=digits) for s in STAGES],
               _score(r.agentic, digits=digits), _score(r.task.score, digits=digits),
               _score(r.overall, bold=True, digits=digits)]
        if show_medal:
            row.append(Text(r.medal, style=_MEDAL_STYLE.get(r.medal, "")))
        row.append(Text(r.rating or "—", style=_RATING_STYLE.get(r.rating or "", "dim")))
        if show_dir:
            rd = run_dirs.get(r.run.run_id)
            row.append(Text(str(rd) if rd is not None else "—", style="dim" if rd is None else ""))
        table.add_row(*row)
    return table


def agents_table(board: Leaderboard, *, title: str | None = "AutoMedBench leaderboard (per agent)") -> Table:
    """A compact per-agent table: the row's agent, scaffold and model, overall with its
    stratified 95 % CI, agentic, task, S1..S5, complete runs and the infra / judge-incomplete
    counts."""
    table = Table(title=title, header_style="bold")
    table.add_column("agent", overflow="fold")
    table.add_column("scaffold", overflow="fold")
    table.add_column("model", overflow="fold")
    table.add_column("overall", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("agentic", justify="right")
    table.add_column("task", justify="right")
    for s in STAGES:
        table.add_column(s.upper(), justify="right")
    table.add_column("runs", justify="right")
    for a in board.agents:
        o = a.overall
        ci = "—" if o.ci_low is None or o.ci_high is None else \
            ("n=1" if o.n1 else f"{score_text(o.ci_low, 0)}–{score_text(o.ci_high, 0)}")
        runs = f"{a.n_complete}" + (f" +{a.infra_runs} infra" if a.infra_runs else "") \
            + (f" +{a.judge_incomplete} judge" if a.judge_incomplete else "")
        table.add_row(Text(a.agent), Text(a.scaffold), Text(a.model or "—", style="" if a.model else "dim"),
                      _score(o.mean, bold=True), Text(ci), _score(a.agentic.mean),
                      _score(a.task_score.mean), *[_score(a.stages[s].mean) for s in STAGES], Text(runs))
    return table
