"""Fire error codes (scoring/error_codes.yaml) from the evidence of a scored run.

Each rule below is a small function of (trace, stages, task result); the table of codes,
steps and categories is data. Evidence names the turn/call and an excerpt."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from ..runs.models import (
    INFRA_END_REASONS,
    ErrorCode,
    StageResult,
    TaskResult,
    TraceEvent,
)
from ..tracks.base import TrackScoring


@lru_cache(maxsize=1)
def error_table() -> dict:
    return yaml.safe_load(Path(__file__).with_name("error_codes.yaml").read_text())


def code_texts() -> dict[str, str]:
    """code -> its one-line explanation (error_codes.yaml `text`), for pages and analyses."""
    return {code: entry.get("text", "") for code, entry in error_table()["codes"].items()}


# end_detail values (api.run_one) that mean the model provider, not the sandbox, failed
PROVIDER_DETAILS = {"provider_error", "provider_unavailable"}
BUDGET_END_REASONS = {"max_turns", "max_tokens", "max_cost"}

# a case scoring below this fraction of the best case is suspicious (see LOGIC_SUSPECT): the
# default is declared once, on the track seam (TrackScoring.logic_drop, docs/tracks.md); a track
# whose honest cases vary more (free text) sets its own
LOGIC_DROP = TrackScoring.logic_drop


def make_error(code: str, *, step: str | None = None, **evidence) -> ErrorCode:
    """`step` overrides the table's step where the evidence shows the stage (tool-calling codes)."""
    spec = error_table()["codes"][code]
    return ErrorCode(code=code, category=spec["category"], step=step or spec["step"],
                     evidence={"what": spec["text"], **evidence},
                     infrastructure=bool(spec.get("infrastructure", False)))


def _excerpt(text: str | None, n: int = 200) -> str:
    text = (text or "").strip()
    return text if len(text) <= n else text[: n // 2] + " … " + text[-n // 2:]


def detect_errors(trace: list[TraceEvent], stages: dict[str, StageResult | None], task: TaskResult,
                  *, submitted: bool, end_reason: str | None, workspace: Path,
                  all_trivial: bool = False, end_detail: str | None = None,
                  logic_drop: float = LOGIC_DROP, logic_metric: str | None = "") -> list[ErrorCode]:
    """`logic_metric`: the per-case metric compared across cases for LOGIC_SUSPECT ("" = the
    track's first per-case metric; None = the track has no per-case metric for which one case far
    below the others means a bug — it may flag cases from its aggregate instead)."""
    fired: list[ErrorCode] = []
    # a run cut short by the provider, the harness or the user is not the agent's missing submission
    infra_end = end_reason in INFRA_END_REASONS or end_reason in ("interrupted", None)
    execs = [e for e in trace if e.type == "execution"]

    if not (workspace / "plan" / "plan.md").is_file():
        fired.append(make_error("PLAN_MISSING", path="plan/plan.md"))
    elif stages.get("s1") and stages["s1"].items.get("s1b") == 0:
        fired.append(make_error("PLAN_NO_STEPS"))

    failed_setup = [e for e in execs if e.stage == "s2" and e.exit_code != 0]
    if len(failed_setup) > 5:
        fired.append(make_error("SETUP_RETRIES", calls=[e.call_index for e in failed_setup]))

    s3 = stages.get("s3")
    if s3 is not None and s3.score is not None:
        if s3.score == 0:
            first_batch = next((e.call_index for e in execs if e.stage == "s4"), None)
            fired.append(make_error("NO_PILOT", rationale=s3.rationale,
                                    batch=("no batch ran" if first_batch is None
                                           else f"the batch started at call {first_batch} without a checked pilot")))
        elif s3.score == 0.5:
            fired.append(make_error("PILOT_NOT_INSPECTED", rationale=s3.rationale))

    # a failure never followed by any successful execution
    last_ok = max((e.call_index or 0 for e in execs if e.exit_code == 0), default=0)
    unrecovered = [e for e in execs if e.exit_code not in (0, None) and (e.call_index or 0) > last_ok]
    if unrecovered and not infra_end:     # the provider/harness ended the run before it could recover
        e = unrecovered[0]
        fired.append(make_error("UNRECOVERED_ERROR", turn=e.turn, call=e.call_index, excerpt=_excerpt(e.stderr)))

    # Cases far below the best case on the track's first per-case metric (its most stable one):
    # the signature of wrong labels, orientation or units on some cases.
    def case_value(c):
        if logic_metric:
            return c.metrics.get(logic_metric)
        return next(iter(v for v in c.metrics.values() if v is not None), None)
    primary = [(c.case_id, case_value(c)) for c in task.per_case if c.valid] if logic_metric is not None else []
    values = [v for _, v in primary if v is not None]
    if len(values) >= 3 and max(values) >= 0.5:
        best = max(values)
        low = [cid for cid, v in primary if v is not None and v < logic_drop * best]
        if low and not any("logic_suspect" in c.flags for c in task.per_case):
            fired.append(make_error("LOGIC_SUSPECT", cases=low, best_case_value=round(best, 4)))

    missing = [c.case_id for c in task.per_case if c.status == "missing"]
    if missing and submitted and not infra_end:
        fired.append(make_error("MISSING_CASES", cases=missing[:20], n_missing=len(missing)))
    invalid = [(c.case_id, c.reason) for c in task.per_case if c.status == "invalid"]
    if invalid:
        fired.append(make_error("FORMAT_INVALID", cases=[{"case_id": c, "reason": r} for c, r in invalid[:20]],
                                n_invalid=len(invalid)))   # the count beside the capped list: "+N more"
    if not submitted and not infra_end:
        fired.append(make_error("NOT_SUBMITTED", end_reason=end_reason))
    elif submitted and not any(c.valid for c in task.per_case):   # the call must have happened
        fired.append(make_error("SUBMITTED_NOTHING"))
    broken = [(c.case_id, c.reason) for c in task.per_case if c.status == "reference_error"]
    if broken:  # our private reference could not be read: a harness fault, never the agent's
        fired.append(make_error("INFRA_REFERENCE", cases=[{"case_id": c, "reason": r} for c, r in broken[:20]],
                                n_excluded=len(broken)))

    if end_reason == "wall_time" or any(e.timed_out for e in execs):
        fired.append(make_error("TIMEOUT", end_reason=end_reason,
                                calls=[e.call_index for e in execs if e.timed_out]))
    flagged: dict[str, list[str]] = {}
    for flag, code in (error_table().get("case_flag_codes") or {}).items():
        cases = [c.case_id for c in task.per_case if flag in c.flags]
        if cases:
            flagged.setdefault(code, []).extend(cases)
    if all_trivial:
        flagged.setdefault("PLACEHOLDER_OUTPUT", []).extend(c.case_id for c in task.per_case if c.valid)
    for code, cases in flagged.items():
        fired.append(make_error(code, cases=sorted(set(cases))[:20], n_cases=len(set(cases))))
    from ..sandbox.guard import escaping_links
    links = escaping_links(workspace) if workspace.is_dir() else []
    if links:
        fired.append(make_error("ESCAPING_SYMLINK", links=[l["evidence"] for l in links[:20]]))
    violations = [e for e in trace if e.type == "violation"]
    if violations:
        fired.append(make_error("SANDBOX_VIOLATION", calls=[e.call_index for e in violations],
                                excerpt=_excerpt(violations[0].message)))
    training = [e for e in trace if e.type == "warning" and e.kind == "training_detected"]
    if training:
        fired.append(make_error("TRAINING_DETECTED", calls=[e.call_index for e in training],
                                excerpt=_excerpt(training[0].message)))
    if end_reason in BUDGET_END_REASONS:
        fired.append(make_error("BUDGET_EXHAUSTED", end_reason=end_reason))
    fired += _tool_calling_errors(trace)
    provider = end_reason in PROVIDER_DETAILS or (end_reason == "infra_error" and end_detail in PROVIDER_DETAILS)
    fault = next((e for e in trace if e.type == "error" and e.kind == "infrastructure"), None)
    if provider and fault is not None and (fault.data or {}).get("fault") == "request_rejected":
        # an interop fault between harness and server (e.g. a field the server refuses), not an outage
        fired.append(make_error("INFRA_REQUEST_REJECTED", end_reason=end_reason, detail=end_detail or end_reason,
                                excerpt=_excerpt(fault.message)))
    elif provider:
        fired.append(make_error("INFRA_PROVIDER", end_reason=end_reason, detail=end_detail or end_reason,
                                excerpt=_excerpt(fault.message if fault else "")))
    elif end_reason in ("harness_error", "infra_error"):
        code = "INFRA_SANDBOX" if (end_detail or "").startswith("sandbox") else "INFRA_HARNESS"
        fired.append(make_error(code, detail=end_detail, excerpt=_excerpt(fault.message if fault else "")))
    if end_reason in ("interrupted", None):
        fired.append(make_error("RUN_INTERRUPTED", end_reason=end_reason, detail=end_detail))
    if end_reason == "agent_crash":
        crash = next((e for e in trace if e.type == "error" and e.kind == "agent_crash"), None)
        fired.append(make_error("INFRA_AGENT_CRASH", excerpt=_excerpt(crash.message if crash else "")))
    from .rubric import load_rubric
    unjudged = [s for s in load_rubric().judged if stages.get(s) is None]
    if unjudged:
        fired.append(make_error("INFRA_JUDGE", stages=unjudged))
    return fired


# trace events of the LLM loop (agents/llm.py) -> tool-calling codes. Plain nudges only: a reply
# cut at the token limit ("continue") is not a format failure, and a nudge that answers rejected
# tool-call text is counted once, as TOOL_CALL_REJECTED.
_TOOL_CALL_EVENTS = {
    "TOOL_CALL_TEXT_ONLY": lambda e: e.kind == "nudge" and not (e.data or {}).get("rejected"),
    "TOOL_CALL_REJECTED": lambda e: e.kind in ("tool_call_rejected", "bad_tool_arguments"),
    "TOOL_CALL_TRUNCATED": lambda e: e.kind == "tool_call_truncated",
    "TOOL_UNKNOWN": lambda e: e.kind == "unknown_tool",
}


def _tool_calling_errors(trace: list[TraceEvent]) -> list[ErrorCode]:
    """One code per kind of tool-calling failure, with the turns, a count and the first
    excerpt as evidence; its step is the stage the run was in at the first occurrence."""
    out: list[ErrorCode] = []
    replies = {e.turn: e for e in trace if e.type == "warning" and e.kind == "text_reply"}
    for code, match in _TOOL_CALL_EVENTS.items():
        hits = [e for e in trace if e.type in ("warning", "error") and match(e)]
        if not hits:
            continue
        first = hits[0]
        if code == "TOOL_CALL_TEXT_ONLY":   # the evidence is the reply that was nudged, not the nudge
            first = replies.get(first.turn, first)
        data = first.data or {}
        excerpt = data.get("excerpt") or data.get("raw") or first.message
        out.append(make_error(code, step=(first.stage or "s1").upper(), turns=sorted({e.turn for e in hits}),
                              count=len(hits), turn=first.turn, excerpt=_excerpt(excerpt),
                              **({"reason": first.message} if code != "TOOL_CALL_TEXT_ONLY" else {})))
    return out
