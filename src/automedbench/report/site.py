"""The static site: overall leaderboard, per-task boards, one page per run, run comparison.

    write_site(reports, out_dir, board=aggregate(reports), plots=..., warnings=...)

Layout (every link relative, so it works from file:// and any static host):

    index.html              overall board: filters (track/task/tier), sortable tables, all runs
    tasks/<task>.html       one board per task with a tier picker, its runs, compare boxes
    runs/<slug>.html        one page per run (timeline, tool calls, plan, judge, cases, codes)
    runs/<slug>.js          the run's report as data, loaded on demand by compare.html
    runs/<slug>/plan.png    the run's plan diagram, copied
    compare.html            two runs of a task side by side (loads runs/<slug>.js on demand)
    analysis.html           the error analysis (written by report/analyze.py)
    assets/site.css, site.js

The index holds only summary rows, so it stays small with thousands of runs; run pages are
separate files opened on demand. Data embedded in pages is JSON with `<`, `>` and `&`
escaped, so no report string can close a <script> element.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ..runs.models import DetailReport
from ..scoring.errors import code_texts as error_code_texts
from ..scoring.rubric import load_rubric
from .aggregate import STAGES, Leaderboard, agent_rows, is_infra, is_judge_incomplete

STATIC_FILES = ("site.css", "site.js")
CALL_TEXT_LIMIT = 20_000  # characters of code/stdout/stderr shown per call (the trace itself is bounded too)


def run_slug(run_id: str) -> str:
    """A file-safe name for a run id (ids from a report are untrusted)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", run_id).strip("-.")[:120]
    if slug != run_id or not slug:
        slug = f"{slug or 'run'}-{hashlib.sha256(run_id.encode()).hexdigest()[:8]}"
    return slug


def task_slug(task: str) -> str:
    return run_slug(task)


def run_status(r: DetailReport) -> str:
    if is_infra(r):
        return "infra"
    if is_judge_incomplete(r):
        return "judge incomplete"
    return "complete"


def tojson_safe(value: Any) -> str:
    """JSON for an inline <script type="application/json"> element."""
    text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


# ---- reading a run directory (tolerant: every file is optional) -----------------------------

def read_trace(run_dir: Path | None) -> list[dict]:
    if run_dir is None:
        return []
    path = Path(run_dir) / "trace.jsonl"
    events = []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue  # a torn last line (the run was killed) is not fatal
                if isinstance(ev, dict):
                    events.append(ev)
    except OSError:
        return []
    return events


def _assistant_texts(run_dir: Path | None) -> dict[str, str]:
    """tool_call id -> the assistant text that came with it (the model's reasoning, if any)."""
    if run_dir is None:
        return {}
    try:
        conv = json.loads((Path(run_dir) / "conversation.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, str] = {}
    n = 0
    for m in conv.get("messages") or []:
        if m.get("role") != "assistant":
            continue
        text = m.get("content") if isinstance(m.get("content"), str) else ""
        for _tc in m.get("tool_calls") or []:
            n += 1
            if text:
                out[str(n)] = text[:4000]
    return out


def _clip(s: str | None) -> str:
    if not s:
        return ""
    return s if len(s) <= CALL_TEXT_LIMIT else s[:CALL_TEXT_LIMIT] + f"\n… [{len(s) - CALL_TEXT_LIMIT} more characters]"


def calls_from_trace(events: list[dict], texts: dict[str, str] | None = None,
                     wall_time_s: float = 0.0) -> tuple[list[dict], float]:
    """One row per tool call (with its execution's result), and the time span for the timeline."""
    calls: dict[int, dict] = {}
    flagged: dict[int, list[str]] = {}
    for ev in events:
        idx = ev.get("call_index")
        kind = ev.get("type")
        if kind == "tool_call" and idx is not None:
            calls[idx] = {"index": idx, "turn": ev.get("turn"), "stage": ev.get("stage"), "t": float(ev.get("t") or 0),
                          "tool": ev.get("kind") or "tool", "language": ev.get("language"), "code": _clip(ev.get("code")),
                          "duration": 0.0, "exit_code": None, "stdout": "", "stderr": "", "timed_out": False,
                          "result": "", "text": (texts or {}).get(str(idx), "")}
        elif kind == "execution" and idx in calls:
            c = calls[idx]
            c.update(duration=float(ev.get("duration_s") or 0), exit_code=ev.get("exit_code"),
                     stdout=_clip(ev.get("stdout")), stderr=_clip(ev.get("stderr")), timed_out=bool(ev.get("timed_out")))
            if ev.get("stage") and not c["stage"]:
                c["stage"] = ev.get("stage")
        elif kind == "submit" and idx is not None:
            c = calls.setdefault(idx, {"index": idx, "turn": ev.get("turn"), "stage": "s5", "t": float(ev.get("t") or 0),
                                       "tool": "submit_results", "language": None, "code": "", "duration": 0.0,
                                       "exit_code": None, "stdout": "", "stderr": "", "timed_out": False,
                                       "result": "", "text": (texts or {}).get(str(idx), "")})
            c["result"] = _clip(ev.get("message") or json.dumps(ev.get("data") or {})[:2000])
        elif kind in ("violation", "warning") and idx is not None:
            flagged.setdefault(idx, []).append(ev.get("kind") or kind)
    rows = sorted(calls.values(), key=lambda c: c["index"])
    last_t = max([c["t"] + c["duration"] for c in rows] + [float(e.get("t") or 0) for e in events] + [wall_time_s, 1e-6])
    seen_turns: set = set()
    for c in rows:
        c["flags"] = flagged.get(c["index"], [])
        c["failed"] = c["exit_code"] not in (None, 0) or c["timed_out"]
        c["left"] = 100.0 * c["t"] / last_t
        c["width"] = max(0.25, 100.0 * c["duration"] / last_t)
        c["first_of_turn"] = c["turn"] not in seen_turns
        seen_turns.add(c["turn"])
    return rows, last_t


_CALL_REF = re.compile(r"\bcalls? \[?([\d, ]+)\]?")


def evidence_links(ev: dict, step: str, known_calls: set, turns: set) -> list[dict]:
    """Where a code's evidence points in the run page: the turn, the call(s), the case rows,
    the plan; S1-S3 codes without a pointer link to the judge's verdicts."""
    links: list[dict] = []

    def add(target: str, label: str) -> None:
        if all(link["target"] != target for link in links):
            links.append({"target": target, "label": label})
    if isinstance(ev.get("turn"), int) and ev["turn"] in turns:
        add(f"turn-{ev['turn']}", f"turn {ev['turn']}")
    idxs = [ev.get("call")] + list(ev.get("calls") or [])
    for text in (ev.get("rationale"), ev.get("excerpt")):  # "pilot calls [], batch starts at call 3"
        if isinstance(text, str):
            for m in _CALL_REF.finditer(text):
                idxs += [int(x) for x in re.findall(r"\d+", m.group(1))]
    for i in idxs:
        if isinstance(i, int) and i in known_calls:
            add(f"call-{i}", f"call {i}")
    for c in ev.get("cases") or []:
        cid = c.get("case_id") if isinstance(c, dict) else c
        if isinstance(cid, str):
            add(f"case-{cid}", cid)
    if step == "S1":
        add("plan", "plan")
    if not links and step in ("S1", "S2", "S3"):
        add("judge", "judge verdicts")
    return links


def error_rows(r: DetailReport, calls: list[dict], code_texts: dict[str, str]) -> list[dict]:
    """Each fired code with its evidence and links to the turn/call/case/plan it points at."""
    known_calls = {c["index"] for c in calls}
    turns = {c["turn"] for c in calls}
    rows = []
    for e in r.errors:
        ev = dict(e.evidence or {})
        shown = [(k, v if isinstance(v, str) else json.dumps(v)[:600]) for k, v in ev.items() if k != "what"]
        rows.append({"code": e.code, "step": e.step, "category": e.category, "infrastructure": e.infrastructure,
                     "text": ev.get("what") or code_texts.get(e.code, ""), "evidence": shown,
                     "links": evidence_links(ev, e.step, known_calls, turns)})
    return rows


def case_rows(r: DetailReport) -> tuple[list[dict], list[str]]:
    """Per-case metrics, a status, and a reason for every zero."""
    names: list[str] = []
    for c in r.task.per_case:
        for m in c.metrics:
            if m not in names:
                names.append(m)
    rows = []
    for c in r.task.per_case:
        status = c.status
        zeros = [m for m, v in c.metrics.items() if v == 0]
        if not c.valid:
            why = c.reason or f"{status}: scored 0"
        elif zeros:
            why = c.reason or "valid output; " + ", ".join(zeros) + " = 0 against the reference (no overlap)"
        else:
            why = c.reason
        rows.append({"case_id": c.case_id, "status": str(status), "metrics": c.metrics, "why": why})
    return rows, names


def _rubric_items() -> dict[str, str]:
    try:
        return {i: d for s in load_rubric().stages.values() for i, d in s.items.items()}
    except Exception:  # noqa: BLE001 - a page without item descriptions still renders
        return {}


def item_rationale(stage, item: str) -> str:
    """A per-item rationale when the judge gave one (`item_rationales`), else the stage's."""
    per_item = getattr(stage, "item_rationales", None) or {}
    return per_item.get(item) or stage.rationale


# ---- views for the index's filters ----------------------------------------------------------

def _r(v):
    return None if v is None else round(float(v), 4)


def _compact(a) -> dict:
    """What the index's agent table shows, rounded: keeps the page small with many views."""
    def st(s, full=False):
        d = {"mean": _r(s.mean), "n": s.n}
        if full:
            d.update(ci_low=_r(s.ci_low), ci_high=_r(s.ci_high), n1=s.n1)
        return d
    return {"agent": a.agent, "models": a.models, "overall": st(a.overall, True), "agentic": st(a.agentic),
            "task_score": st(a.task_score), "stages": {k: st(v) for k, v in a.stages.items()},
            "avg_turns": _r(a.avg_turns), "avg_wall_time_s": _r(a.avg_wall_time_s), "avg_tokens": _r(a.avg_tokens),
            "avg_cost_usd": _r(a.avg_cost_usd), "failure_rate": _r(a.failure_rate), "n_runs": a.n_runs,
            "n_complete": a.n_complete, "infra_runs": a.infra_runs, "judge_incomplete": a.judge_incomplete,
            "disqualified": a.disqualified, "unisolated_runs": a.unisolated_runs}


def filter_views(reports: Sequence[DetailReport], board: Leaderboard) -> dict[str, list[dict]]:
    """Agent rows for every filter the index offers: key 'track|task|tier' ('*' = all).
    Filtered views bootstrap only the overall CI (the only interval the table shows)."""
    keys: set[tuple[str, str, str]] = {("*", "*", "*")}
    for r in reports:
        tr, tk, ti = r.run.track, r.run.task, r.run.tier
        keys |= {(tr, "*", "*"), (tr, tk, "*"), ("*", "*", ti), (tr, "*", ti), (tr, tk, ti)}
    views: dict[str, list[dict]] = {}
    for tr, tk, ti in sorted(keys):
        if (tr, tk, ti) == ("*", "*", "*"):
            agents = board.agents
        else:
            sel = [r for r in reports if (tr == "*" or r.run.track == tr) and (tk == "*" or r.run.task == tk)
                   and (ti == "*" or r.run.tier == ti)]
            agents = agent_rows(sel)
        views[f"{tr}|{tk}|{ti}"] = [_compact(a) for a in agents]
    return views


# ---- writing ---------------------------------------------------------------------------------

def _copy_static(out: Path) -> None:
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    for name in STATIC_FILES:
        data = resources.files("automedbench.report").joinpath("static", name).read_bytes()
        (assets / name).write_bytes(data)


def run_row(r: DetailReport) -> dict:
    return {"run_id": r.run.run_id, "slug": run_slug(r.run.run_id), "agent": r.run.agent, "task": r.run.task,
            "tier": r.run.tier, "track": r.run.track, "overall": r.overall, "agentic": r.agentic,
            "task_score": r.task.score, "rating": r.rating or "—", "n_codes": sum(not e.infrastructure for e in r.errors),
            "codes": [e.code for e in r.errors], "turns": r.run.turns, "wall": r.run.wall_time_s,
            "status": run_status(r),
            "stages": {s: (r.stages[s].score if s in r.stages else None) for s in STAGES}}


def write_run_page(env, r: DetailReport, run_dir: Path | None, out: Path, common: dict,
                   rubric_items: dict[str, str], code_texts: dict[str, str]) -> Path:
    slug = run_slug(r.run.run_id)
    events = read_trace(run_dir)
    calls, span = calls_from_trace(events, _assistant_texts(run_dir), r.run.wall_time_s)
    cases, metric_names = case_rows(r)
    plan_md = plan_png = None
    if run_dir is not None:
        ws = Path(run_dir) / "workspace" / "plan"
        try:
            if (ws / "plan.md").is_file() and not (ws / "plan.md").is_symlink():
                plan_md = (ws / "plan.md").read_text(encoding="utf-8", errors="replace")[:50_000]
            png = ws / "plan.png"
            if png.is_file() and not png.is_symlink() and png.stat().st_size < 10_000_000:
                (out / "runs" / slug).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(png, out / "runs" / slug / "plan.png")
                plan_png = f"{slug}/plan.png"
        except OSError:
            pass
    html = env.get_template("run.html.j2").render(
        **common, root="../", page="run", title=f"{r.run.agent} · {r.run.task} · {r.run.tier} · {r.run.run_id}",
        r=r, status=run_status(r), calls=calls, span=span, has_trace=bool(events),
        errors=error_rows(r, calls, code_texts), cases=cases, metric_names=metric_names,
        plan_md=plan_md, plan_png=plan_png, rubric_items=rubric_items, item_rationale=item_rationale,
        task_slug=task_slug(r.run.task))
    page = out / "runs" / f"{slug}.html"
    page.write_text(html, encoding="utf-8")
    data = json.loads(r.model_dump_json())
    (out / "runs" / f"{slug}.js").write_text(f"AMB_RUN({tojson_safe(data)});\n", encoding="utf-8")
    return page


def write_site(reports: Sequence[DetailReport], out: Path, *, env, board: Leaderboard, common: dict,
               run_dirs: dict[str, Path] | None = None) -> dict[str, Any]:
    """Pages other than index.html (which leaderboard.py renders with the same `common`)."""
    _copy_static(out)
    for sub in ("runs", "tasks"):
        if (out / sub).is_dir():
            shutil.rmtree(out / sub)  # pages of runs no longer in the set
        (out / sub).mkdir(parents=True)
    rubric_items, code_texts = _rubric_items(), error_code_texts()
    for r in reports:
        write_run_page(env, r, (run_dirs or {}).get(r.run.run_id), out, common, rubric_items, code_texts)
    for t in board.tasks:
        rs = [r for r in reports if r.run.task == t]
        tiers = [ti for ti in board.tiers if any(r.run.tier == ti for r in rs)]
        groups = {ti: [g for g in board.groups if g.task == t and g.tier == ti] for ti in tiers}
        runs = {ti: [run_row(r) for r in sorted(rs, key=lambda r: (r.run.agent, r.run.run_id)) if r.run.tier == ti]
                for ti in tiers}
        html = env.get_template("task.html.j2").render(
            **common, root="../", page=f"task:{t}", title=f"{t} · AutoMedBench", task=t,
            track=rs[0].run.track if rs else "", n_runs=len(rs), tiers=tiers, groups=groups, runs=runs,
            metrics=sorted({r.task.metric_name for r in rs}))
        (out / "tasks" / f"{task_slug(t)}.html").write_text(html, encoding="utf-8")
    compare_index = [{"id": r.run.run_id, "agent": r.run.agent, "task": r.run.task, "tier": r.run.tier}
                     for r in sorted(reports, key=lambda r: (r.run.task, r.run.tier, r.run.agent, r.run.run_id))]
    (out / "compare.html").write_text(env.get_template("compare.html.j2").render(
        **common, root="", page="compare", title="Compare runs · AutoMedBench", runs=compare_index), encoding="utf-8")
    return {"run_rows": [run_row(r) for r in sorted(reports, key=lambda r: (r.run.task, r.run.tier, r.run.agent, r.run.run_id))]}
