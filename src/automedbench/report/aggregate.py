"""Aggregate detail reports into leaderboard numbers. Pure functions: no I/O.

Everything here stays on the reports' own scale, [0, 1]; multiplying by 100 is a display
concern (HTML page, terminal table).

Rules (docs/leaderboard.md#the-rules-of-the-numbers states them in prose):
- a run is *complete* when it ended normally and its judge scored every judged stage. Runs
  that ended on an infrastructure fault (`UNSCORED_END_REASONS`: the harness, the sandbox, the
  provider, an interruption) and `judge_incomplete` runs are **counted** beside the row
  (`infra_runs`, `judge_incomplete`) and never averaged in: a judge outage must not raise an
  agent's agentic score, a crashed sandbox must not lower it. Every mean, failure rate and
  average (turns, time, tokens, cost) is over complete runs only;
- an agent's rows are keyed by its scaffold (`run.scaffold`: our loop, mini-swe-agent, a CLI,
  Inspect AI's solver, ...), its model, its name AND the hash of its effective configuration
  (`run.config_hash`: endpoint, model, sampling, limits), so the same model under two scaffolds
  is two rows, each showing its scaffold and its model (docs/leaderboard.md "Scaffold and
  model"). When one name covers several configurations each gets its own row, labelled
  `name [hash]`, and `config_notes` says so;
- likewise a task's runs are keyed by its id AND its definition's hash (`versions.task_hash`):
  runs of two versions of a task are two tasks, labelled `id [hash]`, never one mean; the
  note names the fields that differ (from `versions.task_fields` / `config_fields`);
- groups: (agent, task, tier). A group's statistics are over its repeats: sample standard
  deviation (ddof=1) and a percentile bootstrap 95 % CI of the mean (2000 resamples, fixed
  seed, independent of input order). With one value the CI is that value and `n1` is set;
- an agent's row is the mean over its tasks of the per-task means (a task's mean is the mean
  of its task × tier group means), so a task with many repeats does not outweigh one with
  few; its CI is a bootstrap stratified by task × tier (repeats are resampled within each
  group, then the same means are taken), so it measures the uncertainty of that mean, not
  the spread between tasks;
- a `null` score (stage not scorable, overall not computable) is left out of that column;
  every statistic carries the number of runs it is over (`n`);
- failure = the run did not submit (`run.submitted` False) or no case has a valid output;
- error codes are counted per agent by category; codes flagged `infrastructure` (harness or
  provider faults) are never counted against the agent and are listed separately.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, Field

from .. import __version__
from ..runs.models import UNKNOWN_SCAFFOLD, UNSCORED_END_REASONS, DetailReport, StageId
from ..scoring.error_codes import error_table
from ..scoring.rubric import STAGES as RUBRIC_STAGES
from ..scoring.rubric import load_rubric
from ..tasks.model import TIERS

LEADERBOARD_SCHEMA_VERSION = "2.3"   # 2.1: component_sets per group; 2.2: task_profile; 2.3: scaffold, model
# stages, tiers and error categories are read from the YAML that owns them (one place per fact)
# the rubric YAML must list exactly these stages, in this order (scoring/rubric.py checks it on load)
STAGES: tuple[StageId, ...] = RUBRIC_STAGES
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261126
CI_LEVEL = 0.95
TIER_ORDER = TIERS
# docs/faults.md#error-codes, in the order the page shows them (scoring/error_codes.yaml); unknown ones follow, sorted.
ERROR_CATEGORIES = tuple(error_table()["categories"])


class Stat(BaseModel):
    """Mean of the non-null values, with spread. All None when n == 0."""

    mean: float | None = None
    std: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0
    n1: bool = False  # exactly one value: no spread, the CI is the point itself
    n_strata: int = 0  # agent rows: task x tier groups the stratified mean is over


class ErrorHistogram(BaseModel):
    by_category: dict[str, int] = Field(default_factory=dict)       # agent-attributable
    by_code: dict[str, int] = Field(default_factory=dict)           # agent-attributable
    infrastructure: dict[str, int] = Field(default_factory=dict)    # code -> count, not held against the agent
    runs_with_errors: int = 0                                       # runs with >= 1 agent-attributable code
    total: int = 0                                                  # agent-attributable codes fired


class GroupStats(BaseModel):
    agent: str
    task: str | None = None      # None for the per-agent rows
    tier: str | None = None
    n_runs: int                  # every run, complete or not
    n_complete: int = 0          # runs in the means
    infra_runs: int = 0          # ended on an infrastructure fault: counted, not averaged
    # the row's scaffold and model (rows are keyed by both: module doc); `models` lists the model too
    scaffold: str = UNKNOWN_SCAFFOLD
    model: str | None = None
    models: list[str] = Field(default_factory=list)
    overall: Stat
    agentic: Stat
    task_score: Stat
    stages: dict[StageId, Stat]
    avg_turns: float
    avg_wall_time_s: float
    avg_tokens: float            # tokens_in + tokens_out
    avg_cost_usd: float
    failures: int
    failure_rate: float
    disqualified: int
    judge_incomplete: int
    unisolated_runs: int         # runs whose sandbox isolated nothing (backend `local`)
    sandboxes: list[str] = Field(default_factory=list)
    medals: dict[str, int] = Field(default_factory=dict)
    ratings: dict[str, int] = Field(default_factory=dict)
    run_ids: list[str] = Field(default_factory=list)
    # the task-metric components the runs were scored with (e.g. "a+b+c", as the track names them); more than one
    # set means the task scores are not comparable, and the pages say so (docs/leaderboard.md)
    component_sets: list[str] = Field(default_factory=list)
    # the effective agent configurations (run.config_hash) behind this row: one, unless runs of an older
    # harness (no hash) are mixed in
    config_hashes: list[str] = Field(default_factory=list)

    @property
    def mixed_components(self) -> bool:
        return len(self.component_sets) > 1


class AgentStats(GroupStats):
    tasks: list[str] = Field(default_factory=list)
    tiers: list[str] = Field(default_factory=list)
    errors: ErrorHistogram = Field(default_factory=ErrorHistogram)


class BootstrapInfo(BaseModel):
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: int = BOOTSTRAP_SEED
    level: float = CI_LEVEL
    method: str = "percentile bootstrap of the mean"


class Leaderboard(BaseModel):
    schema_version: str = LEADERBOARD_SCHEMA_VERSION
    n_runs: int
    agents: list[AgentStats]            # sorted by overall mean, best first
    groups: list[GroupStats]            # one per agent x task x tier
    tasks: list[str]
    tiers: list[str]
    error_categories: list[str]         # columns for the per-agent error table
    bootstrap: BootstrapInfo = Field(default_factory=BootstrapInfo)
    generated_at: str | None = None     # set by write_leaderboard; aggregate() leaves it None
    # which scoring profile the task scores come from (docs/scoring-profiles.md); "ours" by default
    task_profile: str = "ours"
    harness_version: str = ""
    rubric_version: str = ""
    judges: list[str] = Field(default_factory=list)           # judge backends/models over the runs
    metrics: dict[str, list[str]] = Field(default_factory=dict)  # task -> metric names used
    infra_runs: int = 0
    judge_incomplete_runs: int = 0
    # agent names that cover more than one effective configuration (each shown as its own row)
    config_notes: list[str] = Field(default_factory=list)


# ---- small pure helpers -----------------------------------------------------------------

def is_unisolated(sandbox: str | None) -> bool:
    """True for backends that isolate nothing (`local`, recorded as 'local (no isolation)')."""
    s = (sandbox or "").strip().lower()
    return s.startswith("local") or "no isolation" in s or s in ("", "none")


def is_failure(r: DetailReport) -> bool:
    """No final submission: submit was not called, or not one case has a valid output."""
    return (not r.run.submitted) or not any(c.valid for c in r.task.per_case)


def is_judge_incomplete(r: DetailReport) -> bool:
    return bool(r.judge.judge_incomplete) or "judge_incomplete" in r.flags


def is_infra(r: DetailReport) -> bool:
    """Ended on a fault of the harness, sandbox or provider, or interrupted (docs/faults.md)."""
    return (r.run.end_reason in UNSCORED_END_REASONS
            or any(f in ("infra_error", "interrupted") for f in r.flags))


def is_complete(r: DetailReport) -> bool:
    """Counts in the leaderboard's means (docs/leaderboard.md#the-rules-of-the-numbers)."""
    return not is_infra(r) and not is_judge_incomplete(r)


def stratified_bootstrap(strata: Mapping[tuple[str, str], Sequence[float]], *,
                         resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                         level: float = CI_LEVEL) -> tuple[float, float, float]:
    """(mean, ci_low, ci_high) of the mean over tasks of per-task means, where a task's mean
    is the mean of its (task, tier) strata means. Repeats are resampled within each stratum.
    Deterministic and independent of the order of strata and values."""
    keys = sorted(k for k, v in strata.items() if len(v))
    if not keys:
        raise ValueError("stratified_bootstrap needs at least one value")
    rng = np.random.default_rng(seed)
    point: dict[str, list[float]] = {}
    boot: dict[str, list[np.ndarray]] = {}
    for k in keys:
        x = np.sort(np.asarray(strata[k], dtype=float))
        point.setdefault(k[0], []).append(float(x.mean()))
        idx = rng.integers(0, x.size, size=(resamples, x.size))
        boot.setdefault(k[0], []).append(x[idx].mean(axis=1))
    mean = float(np.mean([np.mean(v) for v in point.values()]))
    per_task = np.stack([np.mean(np.stack(v), axis=0) for v in boot.values()])
    means = per_task.mean(axis=0)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    # a bootstrap of identical values must give the point itself, not float noise around it
    lo, hi = min(float(lo), mean), max(float(hi), mean)
    return mean, lo, hi


def summarize_stratified(pairs: Iterable[tuple[tuple[str, str], float | None]], *, ci: bool = True) -> Stat:
    """Stat of the task-stratified mean over ((task, tier), value) pairs; nulls left out.
    ci=False: the mean and counts only (no bootstrap), for quick filtered views."""
    strata: dict[tuple[str, str], list[float]] = {}
    for key, value in pairs:
        if value is not None and math.isfinite(value):
            strata.setdefault(key, []).append(float(value))
    n = sum(len(v) for v in strata.values())
    if n == 0:
        return Stat()
    if not ci:
        per_task: dict[str, list[float]] = {}
        for (task, _tier), values in strata.items():
            per_task.setdefault(task, []).append(float(np.mean(values)))
        mean = float(np.mean([np.mean(v) for v in per_task.values()]))
        return Stat(mean=mean, n=n, n1=n == 1, n_strata=len(strata))
    mean, lo, hi = stratified_bootstrap(strata)
    if n == 1:
        return Stat(mean=mean, ci_low=mean, ci_high=mean, n=1, n1=True, n_strata=1)
    std = float(np.std([x for v in strata.values() for x in v], ddof=1))  # descriptive spread of runs
    return Stat(mean=mean, std=std, ci_low=lo, ci_high=hi, n=n, n_strata=len(strata))


def bootstrap_ci(values: Sequence[float], *, resamples: int = BOOTSTRAP_RESAMPLES,
                 seed: int = BOOTSTRAP_SEED, level: float = CI_LEVEL) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean. Deterministic and independent of value order."""
    x = np.sort(np.asarray(values, dtype=float))
    if x.size == 0:
        raise ValueError("bootstrap_ci needs at least one value")
    if x.size == 1 or np.all(x == x[0]):
        return float(x[0]), float(x[0])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(resamples, x.size))
    means = x[idx].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def summarize(values: Iterable[float | None]) -> Stat:
    """Stat over the non-null, finite values (a NaN is treated like a null)."""
    xs = [float(v) for v in values if v is not None and math.isfinite(v)]
    if not xs:
        return Stat()
    arr = np.asarray(xs, dtype=float)
    mean = float(arr.mean())
    if arr.size == 1:
        return Stat(mean=mean, std=None, ci_low=mean, ci_high=mean, n=1, n1=True)
    lo, hi = bootstrap_ci(xs)
    return Stat(mean=mean, std=float(arr.std(ddof=1)), ci_low=lo, ci_high=hi, n=int(arr.size))


def _mean(xs: Sequence[float]) -> float:
    """Plain mean for counters (turns, time, tokens, cost); non-finite values are ignored."""
    ys = [float(x) for x in xs if math.isfinite(x)]
    return float(np.mean(ys)) if ys else 0.0


def _tier_key(t: str) -> tuple[int, str]:
    t_low = t.lower()
    return (TIER_ORDER.index(t_low) if t_low in TIER_ORDER else len(TIER_ORDER), t_low)


def _score_key(g: GroupStats) -> tuple:
    """Best first; a group without any overall goes last."""
    o, a = g.overall.mean, g.agentic.mean
    return (o is None, -(o or 0.0), a is None, -(a or 0.0), g.agent)


_Row = TypeVar("_Row", bound=GroupStats)


def scaffold_name(r: DetailReport) -> str:
    """The run's scaffold; "unknown" for a report that records none (read without its run folder)."""
    return r.run.scaffold or UNKNOWN_SCAFFOLD


def _stage_score(stage: StageId) -> Callable[[DetailReport], float | None]:
    return lambda r: r.stages[stage].score if stage in r.stages else None


def _group_stats(runs: list[DetailReport], agent: str, task: str | None, tier: str | None,
                 cls: type[_Row], ci_for: Iterable[str] | None = None, **extra: Any) -> _Row:
    done = [r for r in runs if is_complete(r)]
    if task is None:  # an agent's row: the task-stratified mean (module doc)
        want_ci = None if ci_for is None else set(ci_for)
        def stat(get: Callable[[DetailReport], float | None], name: str = "overall") -> Stat:
            return summarize_stratified([((r.run.task, r.run.tier), get(r)) for r in done],
                                        ci=want_ci is None or name in want_ci)
    else:
        def stat(get: Callable[[DetailReport], float | None], name: str = "overall") -> Stat:
            return summarize(get(r) for r in done)
    failures = sum(is_failure(r) for r in done)
    return cls(
        agent=agent, task=task, tier=tier, n_runs=len(runs), n_complete=len(done),
        infra_runs=sum(is_infra(r) for r in runs),
        # one of each per row: agent_labels gives each (scaffold, model) of a name its own label
        scaffold=scaffold_name(runs[0]), model=runs[0].run.model,
        models=sorted({r.run.model for r in runs if r.run.model}),
        overall=stat(lambda r: r.overall),
        agentic=stat(lambda r: r.agentic, "agentic"),
        task_score=stat(lambda r: r.task.score, "task_score"),
        stages={s: stat(_stage_score(s), s) for s in STAGES},
        avg_turns=_mean([r.run.turns for r in done]),
        avg_wall_time_s=_mean([r.run.wall_time_s for r in done]),
        avg_tokens=_mean([r.run.tokens_in + r.run.tokens_out for r in done]),
        avg_cost_usd=_mean([r.run.cost_usd for r in done]),
        failures=failures,
        failure_rate=(failures / len(done)) if done else 0.0,
        disqualified=sum(bool(r.disqualified) for r in done),
        judge_incomplete=sum(is_judge_incomplete(r) and not is_infra(r) for r in runs),
        unisolated_runs=sum(is_unisolated(r.run.sandbox) for r in runs),
        sandboxes=sorted({r.run.sandbox for r in runs}),
        medals=dict(sorted(Counter(r.medal for r in done).items())),
        ratings=dict(sorted(Counter(r.rating or "unrated" for r in done).items())),
        run_ids=[r.run.run_id for r in runs],
        component_sets=sorted({"+".join(sorted(r.task.components)) for r in done if r.task.components}),
        config_hashes=sorted({r.run.config_hash for r in runs if r.run.config_hash}),
        **extra,
    )


def error_histogram(runs: Iterable[DetailReport]) -> ErrorHistogram:
    by_cat: Counter[str] = Counter()
    by_code: Counter[str] = Counter()
    infra: Counter[str] = Counter()
    runs_with = 0
    for r in runs:
        if is_infra(r):  # a run the harness ended: its codes are not the agent's
            infra.update(e.code for e in r.errors)
            continue
        agent_codes = [e for e in r.errors if not e.infrastructure]
        runs_with += bool(agent_codes)
        for e in r.errors:
            if e.infrastructure:
                infra[e.code] += 1
            else:
                by_cat[e.category] += 1
                by_code[e.code] += 1
    return ErrorHistogram(by_category=dict(sorted(by_cat.items())),
                          by_code=dict(sorted(by_code.items())),
                          infrastructure=dict(sorted(infra.items())),
                          runs_with_errors=runs_with, total=sum(by_cat.values()))


def _identity(r: DetailReport) -> tuple[str, str, str]:
    """What one row of an agent stands for: its configuration hash, its scaffold, its model."""
    return ((r.run.config_hash or "unrecorded")[:8], scaffold_name(r), r.run.model or "")


def agent_labels(runs: Iterable[DetailReport]) -> dict[str, str]:
    """run_id -> the row it belongs to: the agent's name, or `name [hash]` when that name covers
    more than one effective configuration (module doc); `name [scaffold, model]` where the hash
    does not tell them apart (runs of a harness that recorded no hash), `name [hash, scaffold,
    model]` where neither alone does. Each label stands for one (scaffold, model)."""
    runs = list(runs)
    idents: dict[str, set[tuple[str, str, str]]] = {}
    for r in runs:
        idents.setdefault(r.run.agent, set()).add(_identity(r))

    def label(r: DetailReport) -> str:
        mine = idents[r.run.agent]
        if len(mine) == 1:
            return r.run.agent
        h, scaffold, model = _identity(r)
        if len({i[0] for i in mine}) == len(mine):
            return f"{r.run.agent} [{h}]"
        what = f"{scaffold}, {model or 'no model'}"
        return f"{r.run.agent} [{what}]" if len({i[1:] for i in mine}) == len(mine) else f"{r.run.agent} [{h}, {what}]"
    return {r.run.run_id: label(r) for r in runs}


def _task_version(r: DetailReport) -> str:
    return (r.versions.get("task_hash") or "unrecorded")[:8]


def task_labels(runs: Iterable[DetailReport]) -> dict[str, str]:
    """run_id -> the task it counts for: its id, or `id [task hash]` when runs of that id were
    made with more than one definition of the task (module doc)."""
    runs = list(runs)
    versions: dict[str, set[str]] = {}
    for r in runs:
        versions.setdefault(r.run.task, set()).add(_task_version(r))
    return {r.run.run_id: r.run.task if len(versions[r.run.task]) == 1
            else f"{r.run.task} [{_task_version(r)}]" for r in runs}


def split_task_versions(runs: Iterable[DetailReport]) -> list[DetailReport]:
    """The runs, each counted under its task label (task_labels): two versions, two tasks."""
    runs = list(runs)
    label = task_labels(runs)
    return [r if label[r.run.run_id] == r.run.task else
            r.model_copy(update={"run": r.run.model_copy(update={"task": label[r.run.run_id]})}) for r in runs]


def _digests(text: str | None) -> dict[str, str] | None:
    if not text:
        return None
    return dict(part.rsplit(":", 1) for part in text.split(";") if ":" in part)


def differing_fields(recorded: Iterable[str | None]) -> str:
    """'fields that differ: a, b' from the per-field digests of each version, or why unknown."""
    maps = [_digests(t) for t in recorded]
    if any(m is None for m in maps):
        return "the fields that differ were not recorded (runs scored before this was kept; re-score them)"
    keys = set().union(*maps)   # type: ignore[arg-type]
    diff = sorted(k for k in keys if len({m.get(k) for m in maps if m is not None}) > 1)
    return f"fields that differ: {', '.join(diff)}" if diff else "no field differs in what was recorded"


def config_notes(runs: Iterable[DetailReport]) -> list[str]:
    """One sentence per agent name that covers more than one effective configuration, and per
    task id whose runs used more than one definition of the task; each names what differs."""
    runs = list(runs)
    configs: dict[str, dict[str, str | None]] = {}
    tasks: dict[str, dict[str, str | None]] = {}
    for r in runs:
        configs.setdefault(r.run.agent, {})[(r.run.config_hash or "unrecorded")[:8]] = r.versions.get("config_fields")
        tasks.setdefault(r.run.task.split(" [")[0], {})[_task_version(r)] = r.versions.get("task_fields")
    notes = [f"agent {name!r} covers {len(hs)} configurations ({', '.join(sorted(hs))}): one row each, "
             f"labelled name [configuration hash]; {differing_fields(hs.values())} (run.json agent_config)"
             for name, hs in sorted(configs.items()) if len(hs) > 1]
    notes += [f"task {tid!r} was run in {len(vs)} versions ({', '.join(sorted(vs))}): one row each, labelled "
              f"task [task hash], never one mean; {differing_fields(vs.values())} (run.json task_snapshot)"
              for tid, vs in sorted(tasks.items()) if len(vs) > 1]
    return notes


def agent_rows(reports: Iterable[DetailReport], ci_for: Iterable[str] = ("overall",)) -> list[AgentStats]:
    """Only the per-agent rows, with bootstrap CIs only for `ci_for` (the site's filtered views)."""
    runs = split_task_versions(sorted(reports, key=lambda r: r.run.run_id))
    label = agent_labels(runs)
    by_agent: dict[str, list[DetailReport]] = {}
    for r in runs:
        by_agent.setdefault(label[r.run.run_id], []).append(r)
    rows = [_group_stats(rs, agent, None, None, cls=AgentStats, ci_for=ci_for) for agent, rs in by_agent.items()]
    rows.sort(key=_score_key)
    return rows


def aggregate(reports: Iterable[DetailReport]) -> Leaderboard:
    """Leaderboard numbers for `reports` (see module doc). Input order does not matter."""
    original = sorted(reports, key=lambda r: r.run.run_id)
    runs = split_task_versions(original)
    label = agent_labels(runs)

    by_agent: dict[str, list[DetailReport]] = {}
    by_group: dict[tuple[str, str, str], list[DetailReport]] = {}
    for r in runs:
        by_agent.setdefault(label[r.run.run_id], []).append(r)
        by_group.setdefault((label[r.run.run_id], r.run.task, r.run.tier), []).append(r)

    agents = [
        _group_stats(rs, agent, None, None, cls=AgentStats,
                     tasks=sorted({r.run.task for r in rs}),
                     tiers=sorted({r.run.tier for r in rs}, key=_tier_key),
                     errors=error_histogram(rs))
        for agent, rs in by_agent.items()
    ]
    agents.sort(key=_score_key)

    groups = [_group_stats(rs, a, t, tr, cls=GroupStats) for (a, t, tr), rs in by_group.items()]
    groups.sort(key=lambda g: (g.task or "", _tier_key(g.tier or ""), *_score_key(g)))

    seen_cats = {c for a in agents for c in a.errors.by_category}
    categories = list(ERROR_CATEGORIES) + sorted(seen_cats - set(ERROR_CATEGORIES))

    return Leaderboard(
        n_runs=len(runs), agents=agents, groups=groups,
        tasks=sorted({r.run.task for r in runs}),
        tiers=sorted({r.run.tier for r in runs}, key=_tier_key),
        error_categories=categories,
        harness_version=_recorded(runs, "harness_scored") or _harness_version(),
        rubric_version=_recorded(runs, "rubric") or _rubric_version(),
        judges=sorted({judge_name(r) for r in runs}),
        metrics={t: sorted({r.task.metric_name for r in runs if r.run.task == t}) for t in sorted({r.run.task for r in runs})},
        infra_runs=sum(is_infra(r) for r in runs),
        judge_incomplete_runs=sum(is_judge_incomplete(r) and not is_infra(r) for r in runs),
        config_notes=config_notes(original),
    )


def judge_name(r: DetailReport) -> str:
    j = r.judge
    return j.backend + (f":{j.model}" if j.model else "") + (f" v{j.version}" if j.version else "")


def _recorded(runs: Sequence[DetailReport], key: str) -> str:
    """The versions the reports say they were scored with ('1, 2' when they differ)."""
    seen = sorted({str((getattr(r, "versions", None) or {}).get(key)) for r in runs
                   if (getattr(r, "versions", None) or {}).get(key)})
    return ", ".join(seen)


def _harness_version() -> str:
    return __version__


def _rubric_version() -> str:
    try:
        return str(load_rubric().version)
    except Exception:  # noqa: BLE001 - a page without the rubric version still renders
        return "unknown"
