"""Fire error codes (scoring/error_codes.yaml) from the evidence of a scored run.

Each rule below is a small function of the run's evidence (RunEvidence: trace, stages, task result),
listed in RULES; the table of codes, steps and categories is data. Evidence names the turn/call and an excerpt."""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from .. import yamlfile
from ..run_files import WorkspaceNames
from ..runs.models import (
    BUDGET_END_REASONS,
    UNSCORED_END_REASONS,
    CaseResult,
    ErrorCode,
    StageResult,
    TaskResult,
    TraceEvent,
)
from ..tracks.base import TrackScoring
from .rubric import load_rubric
from .workspace_guard import escaping_links


@lru_cache(maxsize=1)
def error_table() -> dict:
    return yamlfile.safe_load(Path(__file__).with_name("error_codes.yaml").read_text())


def code_texts() -> dict[str, str]:
    """code -> its one-line explanation (error_codes.yaml `text`), for pages and analyses."""
    return {code: entry.get("text", "") for code, entry in error_table()["codes"].items()}


# end_detail values (api.run_one) that mean the model provider, not the sandbox, failed
PROVIDER_DETAILS = {"provider_error", "provider_unavailable"}

# a case scoring below this fraction of the best case is suspicious (see LOGIC_SUSPECT): the
# default is declared once, on the track seam (TrackScoring.logic_drop, docs/tracks.md); a track
# whose honest cases vary more (free text) sets its own
LOGIC_DROP = TrackScoring.logic_drop


def make_error(code: str, *, step: str | None = None, **evidence: Any) -> ErrorCode:
    """`step` overrides the table's step where the evidence shows the stage (tool-calling codes)."""
    spec = error_table()["codes"][code]
    return ErrorCode(code=code, category=spec["category"], step=step or spec["step"],
                     evidence={"what": spec["text"], **evidence},
                     infrastructure=bool(spec.get("infrastructure", False)))


def _excerpt(text: str | None, n: int = 200) -> str:
    text = (text or "").strip()
    return text if len(text) <= n else text[: n // 2] + " … " + text[-n // 2:]


@dataclass(frozen=True)
class RunEvidence:
    """What the fault rules read about one finished run."""

    trace: list[TraceEvent]
    stages: Mapping[str, StageResult | None]
    task: TaskResult
    submitted: bool
    end_reason: str | None
    end_detail: str | None
    workspace: Path
    all_trivial: bool
    logic_drop: float
    logic_metric: str | None

    @cached_property
    def execs(self) -> list[TraceEvent]:
        return [e for e in self.trace if e.type == "execution"]

    @cached_property
    def infra_end(self) -> bool:
        """Cut short by the provider, the harness or the user: not the agent's missing submission."""
        return self.end_reason is None or self.end_reason in UNSCORED_END_REASONS

    def fault(self, kind: str) -> TraceEvent | None:
        return next((e for e in self.trace if e.type == "error" and e.kind == kind), None)


def detect_errors(trace: list[TraceEvent], stages: Mapping[str, StageResult | None], task: TaskResult,
                  *, submitted: bool, end_reason: str | None, workspace: Path,
                  all_trivial: bool = False, end_detail: str | None = None,
                  logic_drop: float = LOGIC_DROP, logic_metric: str | None = "") -> list[ErrorCode]:
    """Every error code the run fires, rule by rule (RULES, in the order of the report).
    `logic_metric`: the per-case metric compared across cases for LOGIC_SUSPECT ("" = the
    track's first per-case metric; None = the track has no per-case metric for which one case far
    below the others means a bug — it may flag cases from its aggregate instead)."""
    run = RunEvidence(trace, stages, task, submitted, end_reason, end_detail, workspace, all_trivial,
                      logic_drop, logic_metric)
    return [code for rule in RULES for code in rule(run)]


def _plan(run: RunEvidence) -> list[ErrorCode]:
    if not (run.workspace / WorkspaceNames.PLAN_MD).is_file():
        return [make_error("PLAN_MISSING", path=WorkspaceNames.PLAN_MD)]
    if (plan := run.stages.get("s1")) is not None and plan.items.get("s1b") == 0:
        return [make_error("PLAN_NO_STEPS")]
    return []


def _setup(run: RunEvidence) -> list[ErrorCode]:
    failed = [e for e in run.execs if e.stage == "s2" and e.exit_code != 0]
    return [make_error("SETUP_RETRIES", calls=[e.call_index for e in failed])] if len(failed) > 5 else []


def _pilot(run: RunEvidence) -> list[ErrorCode]:
    s3 = run.stages.get("s3")
    if s3 is None or s3.score is None:
        return []
    if s3.score == 0:
        first_batch = next((e.call_index for e in run.execs if e.stage == "s4"), None)
        return [make_error("NO_PILOT", rationale=s3.rationale,
                           batch=("no batch ran" if first_batch is None
                                  else f"the batch started at call {first_batch} without a checked pilot"))]
    if s3.score == 0.5:
        return [make_error(_partial_pilot_code(s3.rationale), rationale=s3.rationale)]
    return []


# the offline judge's S3 rationale states its facts as "pilot: yes (...)" and "inspection: no (...)"
# (judge/heuristic.py `_why`)
_SAID = re.compile(r"(?:^|; )(pilot|inspection|superseded look): (yes|no) \(")


def _partial_pilot_code(rationale: str) -> str:
    """The code naming what an S3 of 0.5 lacked, so it never contradicts the verdict beside it
    (docs/faults.md "S3's codes"): no pilot at all (outputs were only looked at after the
    batch), a pilot nobody looked at, a look at a pilot whose outputs the batch did not submit,
    or a look whose finding was not carried through. A judge whose rationale does not state
    these facts gets PILOT_NOT_INSPECTED."""
    said = dict(_SAID.findall(rationale))
    if said.get("pilot") == "no":
        return "NO_PILOT"
    if said.get("pilot") == "yes" and said.get("inspection") == "yes":
        return "PILOT_UNRESOLVED"
    if said.get("pilot") == "yes" and said.get("superseded look") == "yes":
        return "PILOT_SUPERSEDED"
    return "PILOT_NOT_INSPECTED"


def _unrecovered(run: RunEvidence) -> list[ErrorCode]:
    """A failure never followed by a successful execution (unless the provider or the harness
    ended the run before the agent could recover)."""
    last_ok = max((e.call_index or 0 for e in run.execs if e.exit_code == 0), default=0)
    unrecovered = [e for e in run.execs if e.exit_code not in (0, None) and (e.call_index or 0) > last_ok]
    if not unrecovered or run.infra_end:
        return []
    e = unrecovered[0]
    return [make_error("UNRECOVERED_ERROR", turn=e.turn, call=e.call_index, excerpt=_excerpt(e.stderr))]


def _logic(run: RunEvidence) -> list[ErrorCode]:
    """Cases far below the best case on the track's first per-case metric (its most stable one):
    the signature of wrong labels, orientation or units on some cases."""
    if run.logic_metric is None:
        return []

    def case_value(c: CaseResult) -> float | None:
        if run.logic_metric:
            return c.metrics.get(run.logic_metric)
        return next(iter(v for v in c.metrics.values() if v is not None), None)
    metric = run.logic_metric or next((m for c in run.task.per_case if c.valid for m in c.metrics), "")
    primary = [(c.case_id, case_value(c)) for c in run.task.per_case if c.valid]
    values = [v for _, v in primary if v is not None]
    if len(values) < 3 or max(values) < 0.5:
        return []
    best = max(values)
    low = [cid for cid, v in primary if v is not None and v < run.logic_drop * best]
    if low and not any("logic_suspect" in c.flags for c in run.task.per_case):
        return [make_error("LOGIC_SUSPECT", cases=low, metric=metric, best_case_value=round(best, 4))]
    return []


def _cases(run: RunEvidence) -> list[ErrorCode]:
    """Missing and invalid cases, no submission, an empty one, unreadable references."""
    fired = []
    per_case = run.task.per_case
    missing = [c.case_id for c in per_case if c.status == "missing"]
    if missing and run.submitted and not run.infra_end:
        fired.append(make_error("MISSING_CASES", cases=missing[:20], n_missing=len(missing)))
    invalid = [(c.case_id, c.reason) for c in per_case if c.status == "invalid"]
    if invalid:
        fired.append(make_error("FORMAT_INVALID", cases=[{"case_id": c, "reason": r} for c, r in invalid[:20]],
                                n_invalid=len(invalid)))   # the count beside the capped list: "+N more"
    if not run.submitted and not run.infra_end:
        fired.append(make_error("NOT_SUBMITTED", end_reason=run.end_reason))
    elif run.submitted and not any(c.valid for c in per_case):   # the call must have happened
        fired.append(make_error("SUBMITTED_NOTHING"))
    broken = [(c.case_id, c.reason) for c in per_case if c.status == "reference_error"]
    if broken:  # our private reference could not be read: a harness fault, never the agent's
        fired.append(make_error("INFRA_REFERENCE", cases=[{"case_id": c, "reason": r} for c, r in broken[:20]],
                                n_excluded=len(broken)))
    return fired


def _timeout(run: RunEvidence) -> list[ErrorCode]:
    if run.end_reason == "wall_time" or any(e.timed_out for e in run.execs):
        return [make_error("TIMEOUT", end_reason=run.end_reason, calls=[e.call_index for e in run.execs if e.timed_out])]
    return []


def _case_flags(run: RunEvidence) -> list[ErrorCode]:
    """Flags a track set on cases -> the codes error_codes.yaml `case_flag_codes` maps them to."""
    flagged: dict[str, list[str]] = {}
    for flag, code in (error_table().get("case_flag_codes") or {}).items():
        cases = [c.case_id for c in run.task.per_case if flag in c.flags]
        if cases:
            flagged.setdefault(code, []).extend(cases)
    if run.all_trivial:
        flagged.setdefault("PLACEHOLDER_OUTPUT", []).extend(c.case_id for c in run.task.per_case if c.valid)
    return [make_error(code, cases=sorted(set(cases))[:20], n_cases=len(set(cases))) for code, cases in flagged.items()]


def _integrity(run: RunEvidence) -> list[ErrorCode]:
    """Escaping symlinks left in the workspace, sandbox violations, training detected."""
    fired = []
    links = escaping_links(run.workspace) if run.workspace.is_dir() else []
    if links:
        fired.append(make_error("ESCAPING_SYMLINK", links=[l["evidence"] for l in links[:20]]))
    violations = [e for e in run.trace if e.type == "violation"]
    if violations:
        fired.append(make_error("SANDBOX_VIOLATION", calls=[e.call_index for e in violations],
                                excerpt=_excerpt(violations[0].message)))
    training = [e for e in run.trace if e.type == "warning" and e.kind == "training_detected"]
    if training:
        fired.append(make_error("TRAINING_DETECTED", calls=[e.call_index for e in training],
                                excerpt=_excerpt(training[0].message)))
    return fired


def _budget(run: RunEvidence) -> list[ErrorCode]:
    return [make_error("BUDGET_EXHAUSTED", end_reason=run.end_reason)] if run.end_reason in BUDGET_END_REASONS else []


def _tool_calling(run: RunEvidence) -> list[ErrorCode]:
    return _tool_calling_errors(run.trace)


def _infrastructure(run: RunEvidence) -> list[ErrorCode]:
    """The provider, the harness or the sandbox ended the run."""
    end_reason, end_detail = run.end_reason, run.end_detail
    provider = end_reason in PROVIDER_DETAILS or (end_reason == "infra_error" and end_detail in PROVIDER_DETAILS)
    fault = run.fault("infrastructure")
    if provider and fault is not None and (fault.data or {}).get("fault") == "request_rejected":
        # an interop fault between harness and server (e.g. a field the server refuses), not an outage
        return [make_error("INFRA_REQUEST_REJECTED", end_reason=end_reason, detail=end_detail or end_reason,
                           excerpt=_excerpt(fault.message))]
    if provider:
        return [make_error("INFRA_PROVIDER", end_reason=end_reason, detail=end_detail or end_reason,
                           excerpt=_excerpt(fault.message if fault else ""))]
    if end_reason in ("harness_error", "infra_error"):
        code = "INFRA_SANDBOX" if (end_detail or "").startswith("sandbox") else "INFRA_HARNESS"
        return [make_error(code, detail=end_detail, excerpt=_excerpt(fault.message if fault else ""))]
    return []


def _ending(run: RunEvidence) -> list[ErrorCode]:
    """Interrupted by the user, or the agent itself crashed."""
    if run.end_reason in ("interrupted", None):
        return [make_error("RUN_INTERRUPTED", end_reason=run.end_reason, detail=run.end_detail)]
    if run.end_reason == "agent_crash":
        crash = run.fault("agent_crash")
        return [make_error("INFRA_AGENT_CRASH", excerpt=_excerpt(crash.message if crash else ""))]
    return []


def _judge(run: RunEvidence) -> list[ErrorCode]:
    unjudged = [s for s in load_rubric().judged if run.stages.get(s) is None]
    return [make_error("INFRA_JUDGE", stages=unjudged)] if unjudged else []


# the rules in the order their codes appear in a report
RULES: tuple[Callable[[RunEvidence], list[ErrorCode]], ...] = (
    _plan, _setup, _pilot, _unrecovered, _logic, _cases, _timeout, _case_flags, _integrity, _budget,
    _tool_calling, _infrastructure, _ending, _judge,
)


# trace events of the LLM loop (agents/llm.py) -> tool-calling codes. Plain nudges only: a reply
# cut at the token limit ("continue") is not a format failure, and a nudge that answers rejected
# tool-call text is counted once, as TOOL_CALL_REJECTED.
_TOOL_CALL_EVENTS: dict[str, Callable[[TraceEvent], bool]] = {
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
