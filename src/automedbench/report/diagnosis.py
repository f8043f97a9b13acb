"""What a run page diagnoses: where the points went, the task's dataset-level metrics, and the
decoy accesses not charged (docs/site.md "Run page", "Task diagnostics", "Honest numbers").

    points_lost(r, rubric, judge_rows, error_rows, case_rows) -> {parts, worst, other_codes, infra_codes}
    task_diagnostics(r) -> {flat, per_class, matrices, components, missing, notes}
    uncharged_accesses(trace events) -> [{kind, why, path, evidence, processes, call_index}]

Each part of the score (the task, each stage) is shown with the points of Overall it would add
were it perfect (computed with the scoring's own formulas, so the parts add up to 100 − Overall
when the formula is linear), the rubric items it lost with the calls and files the judge cited,
and the error codes of its step, each linked to its call. The worst cases come with their
reason: invalid ones grouped by reason, then the valid ones that cost the task score most
(case_ranking.py), each with every component of the score.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..runs.models import DetailReport, StageResult, TaskResult
from ..scoring.overall import overall_score
from ..scoring.rubric import Rubric
from ..scoring.stages import agentic_score
from .case_ranking import worst_valid
from ..number_format import COUNT, VALUE_DIGITS, fixed, metric_kind, metric_text
NUMBERS = re.compile(r"\d+(?:\.\d+)?")
WORST_VALID = 5      # lowest valid cases listed
INVALID_GROUPS = 4   # reasons listed for invalid cases (the rest summed)
IDS_SHOWN = 6        # case ids listed per reason


def _gain(r: DetailReport, rubric: Rubric, stage: str | None) -> float | None:
    """Points of Overall (0-100) the run would gain if `stage` (None: the task) were perfect:
    the scoring's formulas applied to the run's parts, with and without that part perfect."""
    stages: dict[str, StageResult | None] = {str(k): v for k, v in r.stages.items()}
    now = overall_score(agentic_score(stages, rubric)[0], r.task.score, rubric)
    if r.overall is None or now is None:
        return None
    if stage is None:
        perfect = overall_score(r.agentic, 1.0, rubric)
    else:
        st = stages.get(stage)
        if st is None or st.score is None:
            return None
        perfect = overall_score(agentic_score({**stages, stage: st.model_copy(update={"score": 1.0})}, rubric)[0],
                                r.task.score, rubric)
    return None if perfect is None else max(0.0, 100.0 * (perfect - now))


def case_writers(calls: Sequence[dict]) -> dict[str, int]:
    """Path component -> the first call whose observed effects wrote a file under it, so a
    case's output folder (outputs/<case>/...) leads to the call that wrote it."""
    where: dict[str, int] = {}
    for c in calls:
        for w in (c.get("effects") or {}).get("written", []):
            for part in str(w.get("path", "")).strip("/").split("/")[:-1]:
                where.setdefault(part, c["index"])
    return where


def _grouped(cases: list[dict]) -> list[dict]:
    """Cases with one reason (numbers aside: whatever coordinates or counts it quotes) as one
    group, largest first: its reason, its first IDS_SHOWN ids, all of them and its count
    (docs/site.md "Totals and groups")."""
    groups: dict[str, list[dict]] = {}
    for c in cases:
        groups.setdefault(NUMBERS.sub("#", c["why"] or c["status"]), []).append(c)
    out = []
    for key, members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        first = members[0]
        why = first["why"] or first["status"]
        ids = [c["case_id"] for c in members]
        out.append({"why": why + (" (numbers differ per case)" if len(ids) > 1 and key != why else ""),
                    "ids": ids[:IDS_SHOWN], "all": ids, "n": len(ids), "metric": first["head"],
                    "value": first["shown"].get(first["head"]) if first["head"] else None})
    return out


def _worst(cases: list[dict], task: TaskResult) -> dict[str, Any]:
    invalid = _grouped([c for c in cases if not c["valid"]])
    # ranked by what each costs the task score, every component shown (case_ranking.py)
    ranked = worst_valid(task, cases, len(cases))
    by_id = {c["case_id"]: c for c in cases}
    below = [by_id[w["case_id"]] for w in ranked["cases"]]
    # identical failures are one row with their count (76 placeholder answers, not 5 rows of one)
    same = [g for g in _grouped([c for c in below if c["why"]]) if g["n"] > 1][:INVALID_GROUPS]
    grouped = {cid for g in same for cid in g["all"]}
    low = [w for w in ranked["cases"] if w["case_id"] not in grouped][:WORST_VALID]
    # the groups past INVALID_GROUPS are summed in the row and listed whole under "+N more"
    return {"invalid": invalid[:INVALID_GROUPS], "invalid_rest": sum(g["n"] for g in invalid[INVALID_GROUPS:]),
            "invalid_more": invalid[INVALID_GROUPS:],
            "n_invalid": sum(g["n"] for g in invalid), "n_cases": len(cases), "valid_groups": same,
            "n_grouped": len(grouped), "n_valid_below": len(below),
            "by_cost": ranked["by_cost"], "components": ranked["components"], "n_scored": ranked["n_scored"],
            "valid": low}


def points_lost(r: DetailReport, rubric: Rubric, judge: list[dict], errors: list[dict], cases: list[dict]) -> dict:
    """Per part of the score: what it cost, the items it lost (with their citations) and the
    error codes of its step (with where they point). Infrastructure codes are listed apart."""
    parts: list[dict] = []
    by_step: dict[str, list[dict]] = {}
    for e in errors:
        by_step.setdefault("infra" if e["infrastructure"] else str(e["step"]).lower(), []).append(e)
    parts.append({"id": "task", "label": "Task", "name": r.task.metric_name, "score": r.task.score,
                  "gain": _gain(r, rubric, None), "lost": [], "rationale": "", "codes": by_step.pop("task", [])})
    stages: dict[str, StageResult] = {str(k): v for k, v in r.stages.items()}
    for sid in rubric.stages:
        st = stages.get(sid)
        items = [j for j in judge if j["kind"] == "item" and j["stage"] == sid
                 and j["verdict"] is not None and j["verdict"] < 1]
        parts.append({"id": sid, "label": sid.upper(), "name": rubric.stages[sid].name,
                      "score": st.score if st else None, "gain": _gain(r, rubric, sid), "lost": items,
                      "rationale": (st.rationale if st else "") if not items else "",
                      "codes": by_step.pop(sid, [])})
    other = [e for k, es in by_step.items() if k != "infra" for e in es]
    return {"parts": parts, "other_codes": other, "infra_codes": by_step.get("infra", []), "worst": _worst(cases, r.task)}


def is_count(name: str, values: list[float]) -> bool:
    """A count, printed as an integer: every value whole, and some above 1 or a count's name
    (docs/site.md "Run page": never "1.000" for one box; number_format.metric_kind)."""
    return metric_kind(name, values) == COUNT


def _num(v: float | None, whole: bool) -> str:
    return "—" if v is None else (f"{int(v):d}" if whole else fixed(v, VALUE_DIGITS))


def task_diagnostics(r: DetailReport) -> dict[str, Any]:
    """The task's dataset-level metrics as a researcher reads them: names `a/b/c` are a matrix
    (rows b, columns c: a confusion matrix `confusion/<true>/<predicted>`), names `a/b` a
    per-class column `a`, the rest plain numbers; and the score's components, computed or not
    with why (docs/site.md "Task diagnostics")."""
    flat: list[tuple[str, str]] = []
    per_class: dict[str, dict[str, float | None]] = {}
    cells: dict[str, dict[tuple[str, str], float | None]] = {}
    for name, v in r.task.aggregate_metrics.items():
        parts = name.split("/")
        if len(parts) == 3:
            cells.setdefault(parts[0], {})[(parts[1], parts[2])] = v
        elif len(parts) == 2:
            per_class.setdefault(parts[0], {})[parts[1]] = v
        else:
            flat.append((name, metric_text(name, v)))
    matrices = []
    for name, m in cells.items():
        rows = list(dict.fromkeys(k[0] for k in m))
        cols = list(dict.fromkeys(k[1] for k in m))
        whole = all(v is None or float(v).is_integer() for v in m.values())
        top = max([v for v in m.values() if v is not None] + [1e-9])
        matrices.append({"name": name, "rows": rows, "cols": cols, "top": top,
                         "cells": [[{"v": m.get((a, b)), "shown": _num(m.get((a, b)), whole), "diag": a == b}
                                    for b in cols] for a in rows]})
    classes = list(dict.fromkeys(c for vals in per_class.values() for c in vals))
    table = {"columns": list(per_class), "rows": [
        {"cls": c, "cells": [_num(per_class[g].get(c), False) for g in per_class]} for c in classes]}
    # a note about a metric the report has no value for says why it was not computed; the
    # others explain how a number was made (data range, not requested by the task)
    agg, notes = r.task.aggregate_metrics, r.task.component_notes
    missing = {k: v for k, v in notes.items() if k in agg and agg[k] is None}
    return {"flat": flat, "per_class": table if classes else None, "matrices": matrices,
            "components": list(r.task.components), "missing": missing,
            "notes": {k: v for k, v in notes.items() if k not in missing}}


# decoy accesses the sandbox recorded but did not charge (docs/sandbox.md "Whose decoy
# accesses"): listed beside the violations, each with why it was not charged
UNCHARGED = {"private_access_unattributed": "unattributed: the decoy lies on a host path any host process reaches",
             "private_access_not_the_call": "disputed: opened only by processes that are not the call's"}


def uncharged_accesses(events: list[dict]) -> list[dict]:
    """The trace's decoy accesses that were recorded as warnings, not violations."""
    rows = []
    for ev in events:
        if ev.get("type") == "warning" and ev.get("kind") in UNCHARGED:
            raw = ev.get("data")
            data: dict = raw if isinstance(raw, dict) else {}
            rows.append({"kind": str(ev["kind"]), "why": UNCHARGED[str(ev["kind"])], "path": data.get("path"),
                         "evidence": str(data.get("evidence") or ev.get("message") or "")[:2000],
                         "processes": [p for p in data.get("processes") or [] if isinstance(p, dict)][:10],
                         "call_index": ev.get("call_index")})
    return rows
