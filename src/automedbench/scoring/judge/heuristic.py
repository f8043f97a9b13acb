"""Heuristic judge for S1..S3 — offline, deterministic, evidence from workspace + trace.

It applies the rubric ids of scoring/rubric.yaml with documented rules (one function per
stage below). It never sees the task score. The LLM judge (scoring/judge/llm.py) uses the
same interface and ids.
"""
from __future__ import annotations

import re
import struct
from pathlib import Path

from ...runs.models import StageResult, TraceEvent
from ..rubric import load_rubric
from .base import JudgeEvidence

_STEP_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*+]|\|)\s+\S", re.MULTILINE)
# Generic evidence patterns; each track adds its own (TrackWording.judge_patterns).
_INSPECT_GENERIC = [r"\.shape", r"np\.unique", r"unique\(", r"\.sum\(", r"\.max\(", r"\.min\(", r"\bdtype\b",
                    r"describe", r"head -c", r"\.mean\(", r"json\.load", r"read_csv", r"\blen\("]
_INPUT_CHECK_GENERIC = [r"\.shape", r"\bdtype\b", r"intensity", r"percentile", r"\.size\b", r"\.mode\b",
                        r"json\.load"]


def _patterns(ev: JudgeEvidence, kind: str, generic: list[str]) -> re.Pattern:
    extra = ev.task.track_impl.wording.judge_patterns.get(kind, [])  # type: ignore[call-overload]
    return re.compile("|".join([*generic, *extra]), re.IGNORECASE)


def _png_size(path: Path) -> tuple[int, int] | None:
    """Width/height of a real PNG, or None. Reads the IHDR only."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def _executions(trace: list[TraceEvent]) -> list[TraceEvent]:
    return [e for e in trace if e.type == "execution"]


def _codes(trace: list[TraceEvent]) -> dict[int, str]:
    return {e.call_index: e.code or "" for e in trace if e.type == "tool_call" and e.call_index is not None}


class HeuristicJudge:
    backend = "heuristic"
    model = None
    version = "2"

    def judge(self, ev: JudgeEvidence) -> dict[str, StageResult | None]:
        return {"s1": self._s1(ev), "s2": self._s2(ev), "s3": self._s3(ev)}

    # ---- S1 Plan ---------------------------------------------------------------------
    def _s1(self, ev: JudgeEvidence) -> StageResult:
        rubric = load_rubric().stages["s1"]
        plan_md = ev.workspace / "plan" / "plan.md"
        text = plan_md.read_text(errors="replace") if plan_md.is_file() else ""
        has_plan = bool(text.strip())
        steps = len(_STEP_LINE.findall(text))
        low = text.lower()
        target_words = [w.lower() for w in ev.task.target_keywords]
        fits = has_plan and (not target_words or all(w in low for w in target_words))
        cands = ev.task.tiers.standard.candidates
        mentioned = [c for c in cands if c.lower() in low]
        table_rows = len(re.findall(r"^\s*\|(?!\s*-)", text, re.MULTILINE)) - 1  # minus header
        png = _png_size(ev.workspace / "plan" / "plan.png")
        items = {
            "s1a": float(has_plan),
            "s1b": float(has_plan and steps >= 3),
            "s1c": float(fits),
            "s1d": float(has_plan and (len(mentioned) >= 3 or table_rows >= 3)),
            "s1e": float(png is not None),
            "s1f": float(png is not None and png[0] >= 200 and png[1] >= 100),
        }
        na = rubric.not_applicable_in(ev.tier)
        for item in na:   # not asked in this tier: left out of the mean, never passed
            items.pop(item, None)
        why = (f"plan.md {'present' if has_plan else 'missing'}; {steps} step lines; target words "
               f"{target_words} {'found' if fits else 'not all found'}; candidates named {mentioned}, "
               f"table rows {max(table_rows, 0)}; plan.png {'%dx%d' % png if png else 'missing/invalid'}"
               f"{'; not applicable in ' + ev.tier + ': ' + ','.join(na) if na else ''}"
               "; (heuristic: plot content not inspected, size only)")
        return StageResult(score=rubric.score(items), items=items, rationale=why)

    # ---- S2 Setup ----------------------------------------------------------------------
    def _s2(self, ev: JudgeEvidence) -> StageResult:
        rubric = load_rubric().stages["s2"]
        execs = _executions(ev.trace)
        codes = _codes(ev.trace)
        setup = [e for e in execs if e.stage == "s2"]
        ok_setup = [e for e in setup if e.exit_code == 0]
        failed_setup = [e for e in setup if e.exit_code != 0]
        before_batch = [e for e in execs if e.stage in ("s1", "s2", "s3")]
        _INPUT_CHECK = _patterns(ev, "input_check", _INPUT_CHECK_GENERIC)
        input_checked = any(_INPUT_CHECK.search(codes.get(e.call_index, "")) and e.exit_code == 0
                            and "/data" in codes.get(e.call_index, "") + (e.stdout or "")
                            for e in before_batch) or any(
            _INPUT_CHECK.search(codes.get(e.call_index, "")) and e.exit_code == 0 for e in setup)
        loaded = any(e.exit_code == 0 and (e.stdout or "").strip() for e in setup)
        items = {
            "s2a": float(bool(ok_setup)),
            "s2b": float(input_checked),
            "s2c": float(bool(ok_setup)),
            # no credit for "few failures" when nothing was attempted at all
            "s2d": float(bool(setup) and len(failed_setup) <= 5),
            "s2e": float(loaded),
        }
        why = (f"{len(setup)} setup executions ({len(failed_setup)} failed); input properties checked: "
               f"{input_checked}; a setup call confirmed the runtime with output: {loaded}")
        return StageResult(score=rubric.score(items), items=items, rationale=why)

    # ---- S3 Validate -----------------------------------------------------------------
    def _s3(self, ev: JudgeEvidence) -> StageResult:
        rubric = load_rubric().stages["s3"]
        execs = _executions(ev.trace)
        codes = _codes(ev.trace)
        first_batch = next((e.call_index for e in execs if e.stage == "s4"), None)
        _INSPECT = _patterns(ev, "inspect", _INSPECT_GENERIC)
        pre = [e for e in execs if e.stage == "s3" and (first_batch is None or e.call_index < first_batch)]
        pilot_ok = [e for e in pre if e.exit_code == 0 and "outputs" in codes.get(e.call_index, "")]
        inspected = [e for e in pre if e.exit_code == 0 and _INSPECT.search(codes.get(e.call_index, ""))
                     and "outputs" in codes.get(e.call_index, "")]
        failed_then_fixed = any(e.exit_code != 0 for e in pre) and bool(pilot_ok)
        if pilot_ok and inspected:
            value, why = 1.0, "a single-case pilot ran before the batch and its output was inspected"
        elif pilot_ok or inspected:
            value, why = 0.5, ("a pilot ran but its output was not inspected" if pilot_ok
                               else "outputs were inspected but no pilot preceded the batch")
        else:
            value, why = 0.0, ("no single-case pilot before the batch" if first_batch is not None
                               else "no single-case pilot (and no batch ran)")
        if failed_then_fixed:
            why += "; a failing pilot was fixed and re-run"
        items = {"s3": value}
        return StageResult(score=rubric.score(items), items=items,
                           rationale=f"{why} (pilot calls {[e.call_index for e in pilot_ok]}, "
                                     f"inspection calls {[e.call_index for e in inspected]}, "
                                     + (f"batch starts at call {first_batch})" if first_batch is not None
                                        else "no batch ran)"))
