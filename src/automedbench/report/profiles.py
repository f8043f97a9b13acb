"""The task score under a chosen scoring profile, one row per run (docs/scoring-profiles.md).
`score`, `run` and `sweep` print it with `--profile reference`; the default profile ("ours") is
the task score the runs table already shows."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich import box
from rich.table import Table

from ..runs.models import DetailReport
from ..tracks.profile import PROFILES
from .aggregate import Stat, aggregate
from .site import filter_views


def check_profile(profile: str) -> str:
    if profile not in PROFILES:
        raise ValueError(f"unknown scoring profile {profile!r}: choose one of {', '.join(PROFILES)}")
    return profile


def profile_value(report: DetailReport, profile: str) -> tuple[float | None, str]:
    """(task score under `profile`, its definition or why it is null). Reports written before
    profiles existed carry only ours."""
    if profile == "ours":
        return report.task.score, report.task.metric_name
    found = report.task.profile_scores.get(profile)
    if found is None:
        return None, "not recorded: re-score the run (`automedbench score RUN`) to add it"
    return found.score, found.note if found.score is None else found.definition


def profile_table(reports: Iterable[DetailReport], profile: str) -> Table:
    table = Table(title=f"task score, profile '{profile}'", box=box.SIMPLE_HEAD)
    for col in ("run", "task", "ours", profile, "definition / why null"):
        table.add_column(col, overflow="fold")
    for r in reports:
        value, why = profile_value(r, profile)
        ours = "-" if r.task.score is None else f"{r.task.score:.4f}"
        table.add_row(r.run.run_id, r.run.task, ours, "null" if value is None else f"{value:.4f}", why)
    return table


def with_profile(reports: Iterable[DetailReport], profile: str) -> list[DetailReport]:
    """Copies of `reports` whose task score is the `profile`'s (the board's switch; the overall
    score, medal and rating stay ours). "ours" returns them unchanged."""
    check_profile(profile)
    out = []
    for r in reports:
        if profile == "ours":
            out.append(r)
            continue
        value, _ = profile_value(r, profile)
        out.append(r.model_copy(update={"task": r.task.model_copy(update={"score": value})}))
    return out


def _stat(s: Stat) -> dict[str, Any]:
    return {"mean": None if s.mean is None else round(float(s.mean), 4), "n": s.n}


def profile_switch(reports: Sequence[DetailReport]) -> dict:
    """What the board's profile toggle needs (docs/site.md "Scoring profile"): per profile, the
    task score of every agent row of every filter view, of every task x tier group and of every
    run. Only the task column switches; overall, medal and rating stay ours."""
    reports = list(reports)
    views: dict[str, dict] = {}
    groups: dict[str, dict] = {}
    runs: dict[str, dict] = {}
    for p in PROFILES:
        reps = with_profile(reports, p)
        board = aggregate(reps)
        views[p] = {key: {a["agent"]: a["task_score"] for a in rows}
                    for key, rows in filter_views(reps, board).items()}
        groups[p] = {f"{g.agent}|{g.task}|{g.tier}": _stat(g.task_score) for g in board.groups}
        runs[p] = {r.run.run_id: profile_value(r, p)[0] for r in reports}
    return {"profiles": list(PROFILES), "task_by_profile": {"views": views, "groups": groups, "runs": runs}}
