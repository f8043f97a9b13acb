"""Write the leaderboard: leaderboard.json, leaderboard.csv, stage plots and the static site
(index.html, per-task boards, run pages, comparison, error analysis — see report/site.py).

The site is static: its own CSS/JS in assets/, no CDN, nothing fetched, works from file://.
Every string that comes from a report (agent names, task names, warnings, tool output) is
HTML-escaped, and JSON embedded in a page cannot close its <script> element.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup

from ..number_format import fixed, score_text
from ..runs.models import DetailReport
from ..scoring.rubric import Rubric, load_rubric
from . import site
from .aggregate import STAGES, GroupStats, Leaderboard, Stat, aggregate, is_failure, split_task_versions
from .analyze import write_analysis_page
from .baseline import BASELINE_TITLE, is_baseline, profile_label
from .calibration import footer_rows, load_calibrations
from .site import tojson_safe
from .profiles import check_profile, profile_switch, with_profile

if TYPE_CHECKING:   # jinja2 is imported when a page is written (docs/testing.md "CLI start-up")
    from jinja2 import Environment

PLOT_PREFIX = "stage_profile_"

CSV_COLUMNS: list[str] = (
    # scaffold and model: the row's, each its own column (docs/leaderboard.md "Scaffold and model");
    # added after the columns of leaderboard schema 2.2, which keep their places
    ["agent", "task", "tier", "n_runs", "models", "scaffold", "model"]
    + [f"{k}_{f}" for k in ("overall", "agentic", "task_score")
       for f in ("mean", "std", "ci_low", "ci_high", "n")]
    + [f"{s}_{f}" for s in STAGES for f in ("mean", "n")]
    + ["avg_turns", "avg_wall_time_s", "avg_tokens", "avg_cost_usd", "failure_rate",
       "failures", "disqualified", "judge_incomplete", "unisolated_runs", "sandboxes"]
    # rank: position within its task x tier by overall mean (docs/leaderboard.md); medal / rating:
    # the most frequent over the complete runs, with every count in medals / ratings
    + ["rank", "medal", "rating", "medals", "ratings", "config_hashes"]
)


# ---- display helpers (scores are x100 here and only here) -------------------------------

def fmt_score(v: float | None) -> str:
    """A score x100, rounded as the CLI and site.js round it (number_format.py)."""
    return score_text(v)


def fmt_ci(s: Stat) -> str:
    if s.n == 0 or s.ci_low is None or s.ci_high is None:
        return "—"
    if s.n1:
        return "n=1"
    if round(s.ci_low, 4) == round(s.ci_high, 4):   # every repeat the same: no spread was measured
        return f"{score_text(s.ci_low)} (identical repeats)"
    return f"{score_text(s.ci_low)}–{score_text(s.ci_high)}"


def fmt_duration(sec: float) -> str:
    sec = int(round(sec))
    if sec < 60:
        return f"{sec}s"
    if sec < 3600:
        return f"{sec // 60}m {sec % 60:02d}s"
    return f"{sec // 3600}h {(sec % 3600) // 60:02d}m"


def fmt_tokens(n: float) -> str:
    if n >= 1e6:
        return f"{n / 1e6:.2f}M"
    if n >= 1e3:
        return f"{n / 1e3:.1f}k"
    return f"{n:.0f}"


def fmt_cost(c: float) -> str:
    return f"${c:.2f}" if c >= 0.01 or c == 0 else f"${c:.4f}"


def fmt_pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def heat(v: float | None) -> str:
    """Inline background for a score cell: red (0) -> amber -> green (1); grey for null."""
    if v is None:
        return "background:#eceff1;color:#4b5563"
    v = min(max(float(v), 0.0), 1.0)
    return f"background:hsl({v * 120:.0f},65%,{86 - 6 * abs(v - 0.5):.0f}%)"


def stat_title(s: Stat, label: str) -> str:
    if s.n == 0:
        return f"{label}: no scored runs"
    parts = [f"{label}: mean {fmt_score(s.mean)} over n={s.n}"]
    if s.std is not None:
        parts.append(f"sd {score_text(s.std)}")
    parts.append("95% CI " + fmt_ci(s) if not s.n1 else "single run, no spread")
    return "; ".join(parts)


def _env(rubric: Rubric) -> Environment:
    """The site's templates, with the stages' ids, names and weights and Overall's two weights
    taken from `rubric` (the one place they are defined: scoring/rubric.yaml, docs/site.md
    "Stages come from the rubric")."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(loader=PackageLoader("automedbench.report", "templates"),
                      autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters.update(score=fmt_score, ci=fmt_ci, duration=fmt_duration, tokens=fmt_tokens,
                       cost=fmt_cost, pct=fmt_pct, heat=heat, fixed=fixed,
                       tojson_safe=lambda v: Markup(tojson_safe(v)))  # escaped for <script> by tojson_safe
    env.globals.update(is_baseline=is_baseline, BASELINE_TITLE=BASELINE_TITLE, profile_label=profile_label)
    env.globals.update(stat_title=stat_title, STAGES=STAGES,
                       STAGE_NAMES={s: r.name for s, r in rubric.stages.items()}, STAGE_WEIGHTS=rubric.weights(),
                       OVERALL_WEIGHTS=rubric.overall,
                       stage_data=site.stage_data(rubric), STAGE_WORDS=_stage_words(rubric))
    return env


def _stage_words(rubric: Rubric) -> dict[str, str]:
    """How the pages' sentences name groups of stages, from the rubric (never written in a
    template): all of them ("S1–S5"), the judged ones ("S1–S3"), the deterministic ones
    ("S4 and S5") and the ladder stage(s) ("S3")."""
    def span(ids: list[str]) -> str:
        return f"{ids[0].upper()}–{ids[-1].upper()}" if len(ids) > 1 else "".join(i.upper() for i in ids)

    def listed(ids: list[str]) -> str:
        return " and ".join(filter(None, [", ".join(i.upper() for i in ids[:-1]), *(i.upper() for i in ids[-1:])]))
    unjudged = [s for s in rubric.stages if s not in rubric.judged]
    return {"all": span(list(rubric.stages)), "judged": span(rubric.judged), "deterministic": listed(unjudged),
            "ladder": listed([s for s, st in rubric.stages.items() if st.kind == "ladder"])}


# ---- writers ------------------------------------------------------------------------------

def _most_frequent(counts: dict[str, int]) -> str:
    return max(sorted(counts), key=lambda k: counts[k]) if counts else ""


def _csv_row(g: GroupStats, rank: int | str = "") -> dict[str, object]:
    row: dict[str, object] = {"rank": rank, "agent": g.agent, "scaffold": g.scaffold, "model": g.model or "",
                              "task": g.task, "tier": g.tier,
                              "n_runs": g.n_runs, "models": ";".join(g.models),
                              "medal": _most_frequent(g.medals), "rating": _most_frequent(g.ratings),
                              "medals": ";".join(f"{k}:{v}" for k, v in g.medals.items()),
                              "ratings": ";".join(f"{k}:{v}" for k, v in g.ratings.items()),
                              "config_hashes": ";".join(g.config_hashes)}
    for key, st in (("overall", g.overall), ("agentic", g.agentic), ("task_score", g.task_score)):
        for f in ("mean", "std", "ci_low", "ci_high", "n"):
            val = getattr(st, f)
            row[f"{key}_{f}"] = "" if val is None else val
    for s in STAGES:
        st = g.stages[s]
        row[f"{s}_mean"] = "" if st.mean is None else st.mean
        row[f"{s}_n"] = st.n
    row.update(avg_turns=g.avg_turns, avg_wall_time_s=g.avg_wall_time_s,
               avg_tokens=g.avg_tokens, avg_cost_usd=g.avg_cost_usd,
               failure_rate=g.failure_rate, failures=g.failures,
               disqualified=g.disqualified, judge_incomplete=g.judge_incomplete,
               unisolated_runs=g.unisolated_runs, sandboxes=";".join(g.sandboxes))
    return row


def write_csv(board: Leaderboard, path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
        w.writeheader()
        ranks: dict[tuple[str | None, str | None], int] = {}
        for g in board.groups:   # sorted by task, tier, then best overall first (aggregate.py)
            key = (g.task, g.tier)
            ranks[key] = ranks.get(key, 0) + 1
            w.writerow(_csv_row(g, ranks[key] if g.overall.mean is not None else ""))
    return path


def write_leaderboard(reports: Iterable[DetailReport], out_dir: Path | str, *,
                      warnings: Sequence[str] | None = None,
                      title: str = "AutoMedBench leaderboard",
                      generated_at: str | None = None, analysis_plots: bool | None = None,
                      profile: str = "ours", judge_calibration: Iterable[Path] | None = None,
                      rubric: Rubric | None = None, tasks_dirs: list[Path] | None = None) -> Path:
    """Aggregate `reports` and write the site into `out_dir`; returns the index.html path.

    `warnings` (e.g. reports skipped while collecting) are shown on the page; when omitted
    and `reports` came from `collect_reports`, its warnings are used. `judge_calibration`:
    `judge-eval --save` files for the footer (report/calibration.py); none = "not measured".
    `rubric`: the stages' names and weights the pages show; none = scoring/rubric.yaml.
    `analysis_plots`: draw the analysis page's figures; none = unless AUTOMEDBENCH_ANALYSIS_PLOTS=0.
    `tasks_dirs`: folders of task definitions besides the installed ones and $AUTOMEDBENCH_TASKS
    (a task board's title, description and dataset come from its task.yaml).
    """
    rubric = rubric or load_rubric()
    reports = reports if isinstance(reports, list) else list(reports)   # a ReportList keeps its warnings
    if warnings is None:
        warnings = list(getattr(reports, "warnings", []))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stamp = generated_at or datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    check_profile(profile)
    switch = profile_switch(reports)   # every profile's task scores, for the page's toggle
    if profile != "ours":   # the task column from another scoring profile (docs/scoring-profiles.md)
        reports = with_profile(reports, profile)
        title = f"{title} — task score: {profile} profile"
    board = aggregate(reports).model_copy(update={"generated_at": stamp, "task_profile": profile})
    calibrations, cal_warnings = load_calibrations(list(judge_calibration or []))
    warnings = list(warnings) + cal_warnings

    (out / "leaderboard.json").write_text(
        json.dumps(board.model_dump(mode="json"), indent=2, allow_nan=False) + "\n",
        encoding="utf-8")
    write_csv(board, out / "leaderboard.csv")

    # The per-agent stage-profile PNGs of earlier versions repeated the table; the index now
    # draws S1-S5 bars inline and analysis.html has the distributions. Remove stale ones.
    for old in out.glob(f"{PLOT_PREFIX}*.png"):
        old.unlink()
    run_dirs = dict(getattr(reports, "run_dirs", {}) or {})
    # two versions of a task are two tasks on every page, as on the board (aggregate.py)
    reports = split_task_versions(reports)
    task_track = {r.run.task: r.run.track for r in reports}
    common = {"generated_at": stamp, "prov": board,
              "nav_tasks": [{"id": t, "slug": site.task_slug(t)} for t in board.tasks]}
    env = _env(rubric)
    extra = site.write_site(reports, out, env=env, board=board, common=common, run_dirs=run_dirs, rubric=rubric,
                           tasks_dirs=tasks_dirs)
    write_analysis_page(reports, out, env=env, common=common, plots=analysis_plots)
    views = site.filter_views(reports, board)
    agent_rows = {a.agent: a for a in board.agents}
    complete = [r for r in reports if site.run_status(r) == "complete"]
    n = len(complete) or 1
    summary = {"runs": len(reports), "complete": len(complete),
               "avg_turns": sum(r.run.turns for r in complete) / n,
               "avg_time": sum(r.run.wall_time_s for r in complete) / n,
               "avg_tokens": sum(r.run.tokens_in + r.run.tokens_out for r in complete) / n,
               "avg_cost": sum(r.run.cost_usd for r in complete) / n,
               "failure_rate": sum(is_failure(r) for r in complete) / n}
    index = out / "index.html"
    index.write_text(env.get_template("leaderboard.html.j2").render(
        **common, root="", page="index", board=board, warnings=list(warnings), title=title,
        agent_rows=agent_rows, unisolated_agents=[a.agent for a in board.agents if a.unisolated_runs],
        tracks=sorted(set(task_track.values())), task_track=task_track,
        task_slug={t: site.task_slug(t) for t in board.tasks},
        summary=summary, judge_calibration=footer_rows(board.judges, calibrations), board_data={"views": views, "task_track": task_track, "error_categories": list(board.error_categories),
                              "stages": site.stage_data(rubric), "profile": profile, **switch,
                              "baseline_agents": sorted(a.agent for a in board.agents if is_baseline(a.agent))}, **extra), encoding="utf-8")
    return index


def write_analysis_site(reports: Sequence[DetailReport], out: Path | str, *, plots: bool = True) -> Path:
    """The analysis page on its own (`automedbench analyze --out`): the site's templates, styles
    and navigation around analyze.write_analysis_page."""
    out = Path(out)
    board = aggregate(reports)
    common = {"generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "prov": board,
              "nav_tasks": [{"id": t, "slug": site.task_slug(t)} for t in board.tasks]}
    out.mkdir(parents=True, exist_ok=True)
    rubric = load_rubric()
    site._copy_static(out, rubric)
    return write_analysis_page(reports, out, env=_env(rubric), common=common, plots=plots)
