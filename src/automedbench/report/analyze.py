"""The paper's error analysis over saved runs: where do agents fail?

    result = analyze(collect_reports(["runs/"]))     # pure: an Analysis model
    write_analysis_page(reports, "site/", ...)        # analysis.html + PNG/SVG plots
    automedbench analyze runs/ [--json out.json] [--out site/]

What it computes (over runs that ended normally: infrastructure-ended runs are the harness's,
not the agent's; agent-attributable codes only — codes flagged `infrastructure` are left out):
- the share of fired codes by category and by step (S1..S5);
- per agent and stage, the distribution of stage scores (mean, quartiles) and the weakest stage;
- the overall-score gap between runs with at least one fired code and clean runs
  (mean overall of each group, and `1 - with / clean`; the paper reports 48 % lower);
- the most frequent codes, each with example evidence and links to the runs.
"""
from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, Field

from ..runs.models import DetailReport
from ..scoring.error_codes import code_texts
from ..scoring.rubric import load_rubric
from .aggregate import ERROR_CATEGORIES, STAGES, agent_labels, is_infra
from .site import run_slug

if TYPE_CHECKING:   # matplotlib is imported when a figure is drawn
    from jinja2 import Environment
    from matplotlib.figure import Figure

STEPS = ("S1", "S2", "S3", "S4", "S5")
EXAMPLES_PER_CODE = 3


class Share(BaseModel):
    count: int
    share: float                 # of all agent-attributable codes fired


class Dist(BaseModel):
    n: int = 0
    mean: float | None = None
    median: float | None = None
    q1: float | None = None
    q3: float | None = None
    values: list[float] = Field(default_factory=list)


class AgentStages(BaseModel):
    agent: str
    stages: dict[str, Dist]
    weakest: str | None          # stage with the lowest mean


class Gap(BaseModel):
    runs_with_codes: int
    clean_runs: int
    mean_with_codes: float | None
    mean_clean: float | None
    relative_gap: float | None   # 1 - with/clean: 0.48 = runs with a code score 48 % lower


class Example(BaseModel):
    run_id: str
    agent: str
    task: str
    tier: str
    page: str                    # relative link from the site root: runs/<slug>.html#<target>
    evidence: str


class CodeStat(BaseModel):
    code: str
    category: str
    step: str
    count: int
    runs: int
    text: str = ""
    examples: list[Example] = Field(default_factory=list)


class Analysis(BaseModel):
    n_runs: int
    n_analyzed: int              # runs not ended by an infrastructure fault
    n_infra_excluded: int
    total_codes: int
    by_category: dict[str, Share]
    by_step: dict[str, Share]
    agents: list[AgentStages]
    gap: Gap
    top_codes: list[CodeStat]


def _dist(values: list[float]) -> Dist:
    if not values:
        return Dist()
    a = np.asarray(values, dtype=float)
    q1, med, q3 = np.quantile(a, [0.25, 0.5, 0.75])
    return Dist(n=a.size, mean=float(a.mean()), median=float(med), q1=float(q1), q3=float(q3),
                values=[round(float(v), 4) for v in sorted(values)])


EXAMPLE_LIMIT = 300   # characters of evidence per example


def _evidence_text(evidence: dict) -> str:
    """An example's evidence, readable: strings as they are, lists of names joined, structures
    as JSON without \\u escapes; past EXAMPLE_LIMIT cut at a word, marked with an ellipsis."""
    parts = []
    for k, v in evidence.items():
        if k == "what":
            continue
        if isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v):
            v = ", ".join(str(x) for x in v)
        parts.append(f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}")
    text = "; ".join(parts) or str(evidence.get("what", ""))
    if len(text) <= EXAMPLE_LIMIT:
        return text
    cut = text.rfind(" ", 0, EXAMPLE_LIMIT)
    return text[:cut if cut > EXAMPLE_LIMIT // 2 else EXAMPLE_LIMIT].rstrip(" ;,") + " …"


def _link_target(evidence: dict, step: str) -> str:
    if isinstance(evidence.get("turn"), int):
        return f"turn-{evidence['turn']}"
    if isinstance(evidence.get("call"), int):
        return f"call-{evidence['call']}"
    calls = evidence.get("calls") or []
    if calls and isinstance(calls[0], int):
        return f"call-{calls[0]}"
    cases = evidence.get("cases") or []
    if cases:
        c = cases[0]
        cid = c.get("case_id") if isinstance(c, dict) else c
        return f"case-{cid}"
    return "errors"


def analyze(reports: Sequence[DetailReport], code_texts: dict[str, str] | None = None) -> Analysis:
    runs = sorted(reports, key=lambda r: r.run.run_id)
    done = [r for r in runs if not is_infra(r)]
    cats: Counter[str] = Counter()
    steps: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    code_runs: dict[str, set[str]] = defaultdict(set)
    meta: dict[str, tuple[str, str]] = {}
    examples: dict[str, list[Example]] = defaultdict(list)
    with_codes: list[float] = []
    clean: list[float] = []
    for r in done:
        agent_codes = [e for e in r.errors if not e.infrastructure]
        if r.overall is not None:
            (with_codes if agent_codes else clean).append(r.overall)
        for e in agent_codes:
            cats[e.category] += 1
            steps[e.step.upper()] += 1
            codes[e.code] += 1
            code_runs[e.code].add(r.run.run_id)
            meta[e.code] = (e.category, e.step.upper())
            if len(examples[e.code]) < EXAMPLES_PER_CODE and r.run.run_id not in {x.run_id for x in examples[e.code]}:
                examples[e.code].append(Example(
                    run_id=r.run.run_id, agent=r.run.agent, task=r.run.task, tier=r.run.tier,
                    page=f"runs/{run_slug(r.run.run_id)}.html#{_link_target(e.evidence or {}, e.step)}",
                    evidence=_evidence_text(e.evidence or {})))
    total = sum(cats.values())
    order = list(ERROR_CATEGORIES) + sorted(set(cats) - set(ERROR_CATEGORIES))
    by_category = {c: Share(count=cats[c], share=cats[c] / total if total else 0.0) for c in order}
    by_step = {s: Share(count=steps[s], share=steps[s] / total if total else 0.0)
               for s in list(STEPS) + sorted(set(steps) - set(STEPS))}
    agents = []
    # one entry per leaderboard row: an agent's name, split by configuration, scaffold and model as
    # the board splits it (docs/leaderboard.md "Rows that are never mixed")
    label = agent_labels(done)
    for agent in sorted(set(label.values())):
        rs = [r for r in done if label[r.run.run_id] == agent]
        stages: dict[str, Dist] = {
            s: _dist([score for r in rs if (st := r.stages.get(s)) is not None and (score := st.score) is not None])
            for s in STAGES}
        scored = [(d.mean, s) for s, d in stages.items() if d.mean is not None]
        tied = len({round(m, 9) for m, _ in scored}) <= 1  # no stage stands out
        agents.append(AgentStages(agent=agent, stages=stages, weakest=None if tied else min(scored)[1]))
    mw = float(np.mean(with_codes)) if with_codes else None
    mc = float(np.mean(clean)) if clean else None
    gap = Gap(runs_with_codes=len(with_codes), clean_runs=len(clean), mean_with_codes=mw, mean_clean=mc,
              relative_gap=(1 - mw / mc) if (mw is not None and mc) else None)
    texts = code_texts or {}
    top = [CodeStat(code=c, category=meta[c][0], step=meta[c][1], count=n, runs=len(code_runs[c]),
                    text=texts.get(c, ""), examples=examples[c])
           for c, n in sorted(codes.items(), key=lambda kv: (-kv[1], kv[0]))]   # every code fired, none cut off
    return Analysis(n_runs=len(runs), n_analyzed=len(done), n_infra_excluded=len(runs) - len(done),
                    total_codes=total, by_category=by_category, by_step=by_step, agents=agents, gap=gap,
                    top_codes=top)


# ---- plots (matplotlib, Agg canvas, no pyplot state) ------------------------------------------

# each stage's colour, from scoring/rubric.yaml (the same as the site's)
STAGE_COLORS = {sid: st.color for sid, st in load_rubric().stages.items()}


def _fig(w: float, h: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(w, h), dpi=130)
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, base: Path) -> list[str]:
    fig.tight_layout()
    fig.savefig(base.with_suffix(".png"), format="png", metadata={"Software": None})
    fig.savefig(base.with_suffix(".svg"), format="svg", metadata={"Date": None})
    return [base.with_suffix(".png").name, base.with_suffix(".svg").name]


def write_plots(a: Analysis, out_dir: Path) -> dict[str, str]:
    """Paper-ready figures; returns plot id -> PNG path relative to the site root."""
    out_dir.mkdir(parents=True, exist_ok=True)
    plots: dict[str, str] = {}
    # 1. share of fired codes by category
    fig = _fig(5.2, 2.8)
    ax = fig.add_subplot(1, 1, 1)
    cats = [c for c, s in a.by_category.items()]
    shares = [a.by_category[c].share * 100 for c in cats]
    ax.barh(range(len(cats)), shares, color="#1f6feb")
    ax.set_yticks(range(len(cats)), cats, fontsize=7)
    ax.invert_yaxis()
    for i, v in enumerate(shares):
        ax.text(v + 0.5, i, f"{v:.1f}%", va="center", fontsize=6.5)
    ax.set_xlabel(f"share of fired error codes (%) · n = {a.total_codes}", fontsize=7)
    ax.set_xlim(0, max(shares + [10]) * 1.18)
    ax.tick_params(axis="x", labelsize=7)
    ax.spines[["top", "right"]].set_visible(False)
    _save(fig, out_dir / "codes_by_category")
    plots["by_category"] = f"{out_dir.name}/codes_by_category.png"
    # 2. by step
    fig = _fig(3.6, 2.4)
    ax = fig.add_subplot(1, 1, 1)
    steps = list(a.by_step)
    vals = [a.by_step[s].share * 100 for s in steps]
    ax.bar(range(len(steps)), vals, color=[STAGE_COLORS.get(s.lower(), "#94a3b8") for s in steps])
    ax.set_xticks(range(len(steps)), steps, fontsize=7)
    ax.set_ylabel("share of codes (%)", fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    ax.spines[["top", "right"]].set_visible(False)
    _save(fig, out_dir / "codes_by_step")
    plots["by_step"] = f"{out_dir.name}/codes_by_step.png"
    # 3. per-agent stage distributions
    n = max(1, len(a.agents))
    fig = _fig(min(2.2 * n + 1, 12), 2.6)
    for i, ag in enumerate(a.agents):
        ax = fig.add_subplot(1, n, i + 1)
        data = [[v * 100 for v in ag.stages[s].values] or [np.nan] for s in STAGES]
        bp = ax.boxplot(data, patch_artist=True, widths=0.6, showfliers=True)
        for patch, s in zip(bp["boxes"], STAGES):
            patch.set_facecolor(STAGE_COLORS[s])
            patch.set_alpha(0.75)
        ax.set_xticks(range(1, len(STAGES) + 1), [s.upper() for s in STAGES], fontsize=6.5)
        ax.set_ylim(-5, 105)
        ax.tick_params(axis="y", labelsize=6.5)
        ax.set_title(ag.agent.replace("$", r"\$")[:28] + (f"\nweakest {ag.weakest.upper()}" if ag.weakest else ""),
                     fontsize=7)
        ax.spines[["top", "right"]].set_visible(False)
    _save(fig, out_dir / "stage_distributions")
    plots["stages"] = f"{out_dir.name}/stage_distributions.png"
    # 4. overall gap
    fig = _fig(3.0, 2.4)
    ax = fig.add_subplot(1, 1, 1)
    labels = [f"clean\n(n={a.gap.clean_runs})", f"≥1 code\n(n={a.gap.runs_with_codes})"]
    vals = [(a.gap.mean_clean or 0) * 100, (a.gap.mean_with_codes or 0) * 100]
    ax.bar([0, 1], vals, color=["#15803d", "#b91c1c"])
    ax.set_xticks([0, 1], labels, fontsize=7)
    ax.set_ylabel("mean overall", fontsize=7)
    ax.set_ylim(0, 105)
    ax.tick_params(axis="y", labelsize=7)
    if a.gap.relative_gap is not None:
        ax.set_title(f"{a.gap.relative_gap * 100:.0f}% lower with a fired code", fontsize=7.5)
    ax.spines[["top", "right"]].set_visible(False)
    _save(fig, out_dir / "overall_gap")
    plots["gap"] = f"{out_dir.name}/overall_gap.png"
    return plots


def plots_wanted() -> bool:
    """Whether the analysis figures are drawn when the caller does not say: yes, unless
    AUTOMEDBENCH_ANALYSIS_PLOTS=0 (matplotlib's figures are ~2 s of every site rebuild;
    docs/leaderboard.md)."""
    return os.environ.get("AUTOMEDBENCH_ANALYSIS_PLOTS", "1").strip().lower() not in ("0", "false", "no", "off")


def write_analysis_page(reports: Sequence[DetailReport], out: Path | str, *, env: Environment, common: dict[str, Any],
                        plots: bool | None = None) -> Path:
    """analysis.html + analysis.json + plots under <out>/analysis/, rendered with the site's
    template environment and common page values (leaderboard.write_leaderboard and, for
    `analyze --out`, leaderboard.write_analysis_site hand them in). `plots` None: plots_wanted()."""
    plots = plots_wanted() if plots is None else plots
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    result = analyze(reports, code_texts())
    (out / "analysis.json").write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    for old in (out / "analysis").glob("*.*") if (out / "analysis").is_dir() else ():
        old.unlink()
    figures = write_plots(result, out / "analysis") if (plots and result.n_runs) else {}
    page = out / "analysis.html"
    page.write_text(env.get_template("analysis.html.j2").render(
        **common, root="", page="analysis", title="Error analysis · AutoMedBench", a=result, plots=figures,
        plots_off=not plots,
        STAGES=STAGES), encoding="utf-8")
    return page


def _mean_median(d: Dist) -> str:
    """'62 (60)': the mean and median ×100, or a dash when the stage has no score."""
    if d.mean is None or d.median is None:
        return "—"
    return f"{d.mean * 100:.0f} ({d.median * 100:.0f})"


def print_tables(a: Analysis, console: Any) -> None:
    """The analysis as rich tables on the terminal (fits 80 columns)."""
    from rich.table import Table
    console.print(f"[bold]Error analysis[/] · {a.n_analyzed} runs analysed"
                  + (f", {a.n_infra_excluded} infrastructure-ended excluded" if a.n_infra_excluded else "")
                  + f" · {a.total_codes} agent-attributable codes fired")
    t = Table("category", "codes", "share", title="Fired codes by category")
    for c, s in a.by_category.items():
        t.add_row(c, str(s.count), f"{s.share * 100:.1f}%")
    console.print(t)
    t = Table("step", "codes", "share", title="Fired codes by step")
    for step, share in a.by_step.items():
        t.add_row(step, str(share.count), f"{share.share * 100:.1f}%")
    console.print(t)
    t = Table("agent", *[s.upper() for s in STAGES], "weakest", title="Stage score, mean (median) ×100")
    for ag in a.agents:
        t.add_row(ag.agent, *[_mean_median(ag.stages[s]) for s in STAGES],
                  (ag.weakest or "—").upper())
    console.print(t)
    g = a.gap
    if g.relative_gap is not None and g.mean_with_codes is not None and g.mean_clean is not None:
        console.print(f"Runs with ≥1 fired code: mean overall {g.mean_with_codes * 100:.1f} (n={g.runs_with_codes}) vs "
                      f"clean {g.mean_clean * 100:.1f} (n={g.clean_runs}): [bold]{g.relative_gap * 100:.0f}% lower[/]")
    else:
        console.print(f"Overall gap: not computable (runs with codes: {g.runs_with_codes}, clean: {g.clean_runs})")
    t = Table("code", "step", "category", "fired", "runs", "example", title=f"Codes fired ({len(a.top_codes)}), most frequent first")
    for stat in a.top_codes:
        ex = stat.examples[0] if stat.examples else None
        t.add_row(stat.code, stat.step, stat.category, str(stat.count), str(stat.runs),
                  f"{ex.run_id}: {ex.evidence[:60]}" if ex else "")
    console.print(t)
