"""A stage-segmented digest of a run's trace for an LLM judge (pure functions): every stage
represented, the budget spent by priority, long code and outputs cut in the middle
(docs/llm.md "The digest"). `render_full(trace)` is the unabridged trajectory in the same line
format (for comparisons: bench/judge_digest.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby
from typing import Callable, Iterable, TypedDict

from ...runs.models import TraceEvent
from ..rubric import load_rubric

_QUIET_WARNINGS = {"provider_retry"}


class RunFacts(TypedDict):
    """The run-level counts the digest's header shows (docs/judge.md)."""

    turns: int
    model_calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: float
    end_reason: str | None
    submitted: bool
    retries: int              # provider retries (quiet warnings, not steps)


@dataclass
class Step:
    index: int
    stage: str
    kind: str                  # exec | submit | violation | error | warning
    call_index: int | None = None
    turn: int | None = None
    language: str | None = None
    code: str = ""
    exit_code: int | None = None
    duration_s: float | None = None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    message: str = ""
    sub: str = ""              # event kind (violation/error/warning kind)
    priority: int = 4
    pilot: bool = False
    wrote: list[str] = field(default_factory=list)     # the sandbox's observed effects (docs/judge.md)
    read: list[str] = field(default_factory=list)
    read_back: list[str] = field(default_factory=list)
    # the harness's checks of the outputs it wrote (docs/judge.md "Per-output checks"), one line each
    checks: list[str] = field(default_factory=list)
    effects: bool = False

    @property
    def failed(self) -> bool:
        return self.kind == "exec" and (self.timed_out or (self.exit_code not in (0, None)))


def _clip(text: str, limit: int) -> str:
    text = text or ""
    if len(text) <= limit:
        return text
    if limit < 40:
        return text[:limit]
    half = (limit - 30) // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half} chars elided ...]\n{text[-half:]}"


def _tail(text: str, limit: int) -> str:
    text = (text or "").rstrip()
    return text if len(text) <= limit else "[...]" + text[-limit:]


def _first_code_line(code: str) -> str:
    for line in (code or "").splitlines():
        s = line.strip()
        if s and not (s.startswith("#") and len(s) < 40 and "S" in s.upper()[:12]):
            return s[:100]
    return ""


def collect_steps(trace: Iterable[TraceEvent]) -> tuple[list[Step], RunFacts]:
    """Trace events -> ordered steps (+ run facts for the header)."""
    collector = _StepCollector()
    for ev in trace:
        collector.add(ev)
    _prioritise(collector.steps)
    return collector.steps, collector.facts


class _StepCollector:
    """Reads a trace one event at a time; one method per event type, each stating what that
    event adds to the steps or the run facts. An event without a stage belongs to the stage of
    the last event that had one (S1 before any)."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.by_call: dict[int, Step] = {}
        self.facts: RunFacts = {"turns": 0, "model_calls": 0, "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0,
                                "end_reason": None, "submitted": False, "retries": 0}
        self.stage = "s1"

    def add(self, ev: TraceEvent) -> None:
        if ev.stage:
            self.stage = ev.stage
        if ev.turn:
            self.facts["turns"] = max(self.facts["turns"], ev.turn)
        handler = self._HANDLERS.get(ev.type)
        if handler is not None:
            handler(self, ev)

    def _step(self, ev: TraceEvent, kind: str, *, language: str | None = None, code: str = "",
              message: str = "", sub: str = "") -> Step:
        st = Step(len(self.steps), ev.stage or self.stage, kind, ev.call_index, ev.turn, language, code,
                  message=message, sub=sub)
        self.steps.append(st)
        return st

    def _model_call(self, ev: TraceEvent) -> None:
        """A model call is no step: it adds to the call count, tokens and cost."""
        self.facts["model_calls"] += 1
        self.facts["tokens_in"] += ev.tokens_in or 0
        self.facts["tokens_out"] += ev.tokens_out or 0
        self.facts["cost_usd"] += ev.cost_usd or 0.0

    def _tool_call(self, ev: TraceEvent) -> None:
        """A tool call opens an exec step, found again by its call index."""
        st = self._step(ev, "exec", language=ev.language, code=ev.code or "")
        if ev.call_index is not None:
            self.by_call[ev.call_index] = st

    def _execution(self, ev: TraceEvent) -> None:
        """An execution completes its call's step (exit code, duration, output, observed
        effects); one whose call was never seen gets a step of its own."""
        called = self.by_call.get(ev.call_index) if ev.call_index is not None else None
        if called is None:
            called = self._step(ev, "exec", language=ev.language, code=ev.code or "")
        called.exit_code, called.duration_s = ev.exit_code, ev.duration_s
        called.stdout, called.stderr, called.timed_out = ev.stdout or "", ev.stderr or "", bool(ev.timed_out)
        if ev.effects is not None:
            called.effects = True
            called.wrote = [w.path for w in ev.effects.written]
            called.read = list(ev.effects.read)
            called.read_back = list(ev.effects.read_back)
        for ch in ev.output_checks or []:
            facts = "; ".join(f"{k} {v}" for cf in ch.facts.values() for k, v in cf["facts"].items()
                              if k in ("shape", "size", "rows", "length"))
            called.checks.append(f"{ch.path}: {'passes' if ch.passed else 'FAILS: ' + ch.problem}"
                                 + (f" ({facts})" if facts else ""))

    def _submit(self, ev: TraceEvent) -> None:
        """submit_results is a step of S5 unless the event says its stage, and marks the run submitted."""
        self.facts["submitted"] = True
        self.steps.append(Step(len(self.steps), ev.stage or "s5", "submit", ev.call_index, ev.turn,
                               message="submit_results called"))

    def _violation_or_error(self, ev: TraceEvent) -> None:
        """A violation or error is a step of its own, except bad tool arguments of a known
        call: they become that call's message and make it failed (exit -1 unless it had one)."""
        if ev.type == "error" and ev.kind == "bad_tool_arguments" and ev.call_index in self.by_call:
            called = self.by_call[ev.call_index]
            called.message = ev.message or ""
            called.exit_code = called.exit_code or -1
            return
        self._step(ev, ev.type, message=ev.message or "", sub=ev.kind or "")

    def _warning(self, ev: TraceEvent) -> None:
        """A warning is a step, except a provider retry, which is only counted."""
        if ev.kind in _QUIET_WARNINGS:
            self.facts["retries"] += 1
            return
        self._step(ev, "warning", message=ev.message or "", sub=ev.kind or "")

    def _run_end(self, ev: TraceEvent) -> None:
        """The end of the run gives its end reason."""
        self.facts["end_reason"] = ev.kind or (ev.data or {}).get("end_reason") or ev.message

    _HANDLERS: dict[str, Callable[[_StepCollector, TraceEvent], None]] = {
        "model_call": _model_call, "tool_call": _tool_call, "execution": _execution, "submit": _submit,
        "violation": _violation_or_error, "error": _violation_or_error, "warning": _warning, "run_end": _run_end}


def _prioritise(steps: list[Step]) -> None:
    pilot_done = False
    prev_failed = False
    for st in steps:
        if st.kind in ("violation", "submit") or (st.kind == "error"):
            st.priority = 0
        elif st.kind == "exec" and st.stage == "s3" and not pilot_done:
            st.pilot, st.priority, pilot_done = True, 0, True
        elif st.failed:
            st.priority = 1
        elif st.kind == "exec" and prev_failed:
            st.priority = 3
        elif st.kind == "warning":
            st.priority = 5
        if st.kind == "exec":
            prev_failed = st.failed
    # first / last exec of each stage segment
    for seg in _segments(steps):
        execs = [s for s in seg if s.kind == "exec"]
        for s in execs[:1] + execs[-1:]:
            s.priority = min(s.priority, 2)


def _segments(steps: list[Step]) -> list[list[Step]]:
    """The runs of consecutive steps of one stage."""
    return [list(seg) for _, seg in groupby(steps, key=lambda st: st.stage)]


# detail levels: (code chars, stdout chars, stderr tail chars, paths of the effects and checks
# shown); level 0 = one line only
_LEVELS = {1: (500, 300, 300, 4), 2: (1800, 1400, 900, 12)}


def render_step(st: Step, level: int) -> str:
    tag = f"#{st.call_index if st.call_index is not None else '-'} [{st.stage.upper()}]"
    if st.kind == "exec":
        status = "TIMED OUT" if st.timed_out else f"exit={st.exit_code}"
        dur = f" ({st.duration_s:.1f}s)" if st.duration_s is not None else ""
        flag = " PILOT" if st.pilot else ""
        head = f"{tag} {st.language or '?'} {status}{dur}{flag} | {_first_code_line(st.code)}"
        if st.message:
            head += f" | {st.message[:160]}"
        if st.effects:
            head += f" | wrote {len(st.wrote)}, read {len(st.read)} files"
        if level == 0:
            return head
        code_n, out_n, err_n, n = _LEVELS[level]
        parts = [head, "  code:\n" + _indent(_clip(st.code, code_n))]
        if st.effects and (st.wrote or st.read):
            parts.append("  effects (observed by the sandbox): wrote " + _paths(st.wrote, n) + "; read " + _paths(st.read, n)
                         + ("; read back what it wrote: " + _paths(st.read_back, n) if st.read_back else ""))
        if st.checks:
            parts.append("  harness's check of the outputs written (not the agent's words):\n"
                         + _indent("\n".join(st.checks[:n])))
        if st.stdout.strip():
            parts.append("  stdout:\n" + _indent(_clip(st.stdout.rstrip(), out_n)))
        if st.stderr.strip():
            parts.append("  stderr:\n" + _indent(_tail(st.stderr, err_n)))
        return "\n".join(parts)
    label = {"submit": "SUBMIT", "violation": "VIOLATION", "error": "ERROR", "warning": "warning"}[st.kind]
    sub = f" ({st.sub})" if st.sub else ""
    limit = 160 if level == 0 else 600
    return f"{tag} {label}{sub}: {_clip(st.message, limit)}".rstrip()


def _paths(paths: list[str], n: int) -> str:
    if not paths:
        return "nothing"
    return ", ".join(paths[:n]) + (f" (+{len(paths) - n} more)" if len(paths) > n else "")


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _header(steps: list[Step], facts: RunFacts) -> str:
    execs = [s for s in steps if s.kind == "exec"]
    failed = sum(s.failed for s in execs)
    lines = [f"RUN DIGEST: {facts['turns']} model turns, {len(execs)} code executions ({failed} failed), "
             f"tokens in/out {facts['tokens_in']}/{facts['tokens_out']}, "
             f"submitted: {'yes' if facts['submitted'] else 'no'}"
             + (f", end reason: {facts['end_reason']}" if facts["end_reason"] else "")
             + (f", provider retries: {facts['retries']}" if facts["retries"] else ""),
             "Stages (calls attributed by the harness):"]
    for sid, name in _stage_names().items():
        se = [s for s in execs if s.stage == sid]
        other = [s for s in steps if s.stage == sid and s.kind in ("violation", "error", "submit")]
        if not se and not other:
            lines.append(f"  {sid.upper()} {name}: no calls")
            continue
        f = sum(s.failed for s in se)
        extra = ", ".join(f"{sum(1 for o in other if o.kind == k)} {k}" for k in ("submit", "violation", "error")
                          if any(o.kind == k for o in other))
        idx = [s.call_index for s in se if s.call_index is not None]
        span = f", calls #{min(idx)}-#{max(idx)}" if idx else ""
        lines.append(f"  {sid.upper()} {name}: {len(se)} executions ({f} failed){span}" + (f"; {extra}" if extra else ""))
    pilot = next((s for s in steps if s.pilot), None)
    lines.append(f"Pilot (first S3 execution): call #{pilot.call_index}" if pilot
                 else "Pilot: no execution was attributed to S3")
    return "\n".join(lines)


def _stage_names() -> dict[str, str]:
    """Stage id -> name, in order, from the rubric (scoring/rubric.yaml owns them)."""
    return {sid: st.name for sid, st in load_rubric().stages.items()}


def _omitted(hidden: list[Step]) -> str:
    execs = [s for s in hidden if s.kind == "exec"]
    f = sum(s.failed for s in execs)
    other = len(hidden) - len(execs)
    return (f"  [... {len(execs)} executions omitted ({f} failed)" + (f", {other} notes" if other else "") + " ...]")


def _render(header: str, steps: list[Step], levels: dict[int, int], hidden: set[int],
            render: Callable[[Step, int], str] = render_step) -> str:
    out = [header]
    for seg in _segments(steps):
        out.append(f"=== {seg[0].stage.upper()} {_stage_names().get(seg[0].stage, '')} ===")
        run: list[Step] = []
        for st in seg:
            if st.index in hidden:
                run.append(st)
                continue
            if run:
                out.append(_omitted(run))
                run = []
            out.append(render(st, levels.get(st.index, 0)))
        if run:
            out.append(_omitted(run))
    return "\n".join(out)


ROUTINE_RUN = 8      # a run of more routine steps than this keeps only its ends
ROUTINE_KEEP = 2


def _routine_runs(steps: list[Step]) -> set[int]:
    hidden: set[int] = set()
    for seg in _segments(steps):
        for routine, group in groupby(seg, key=lambda st: st.priority >= 3 and st.kind == "exec"):
            run = list(group)
            if routine and len(run) > ROUTINE_RUN:
                hidden |= {s.index for s in run[ROUTINE_KEEP:-ROUTINE_KEEP]}
    return hidden


def _fair_key(steps: list[Step]) -> Callable[[Step], tuple[int, int, int]]:
    rank: dict[int, int] = {}
    seen: dict[tuple[int, str], int] = {}
    for st in steps:
        k = (st.priority, st.stage)
        rank[st.index] = seen.get(k, 0)
        seen[k] = rank[st.index] + 1
    return lambda s: (s.priority, rank[s.index], s.index)


def build_digest(trace: Iterable[TraceEvent], budget_chars: int = 24000) -> str:
    """The whole run in at most `budget_chars` characters, every stage represented."""
    steps, facts = collect_steps(list(trace))
    header = _header(steps, facts)
    if not steps:
        return _clip(header + "\n(no tool calls in the trace)", budget_chars)
    levels: dict[int, int] = {}
    # 1. reserve detail for the evidence that matters most: pilot, violations, errors,
    #    submit, then failed executions -- up to half of the budget
    reserve = budget_chars // 2
    used = 0
    for st in sorted((s for s in steps if s.priority <= 1), key=lambda s: (s.priority, s.index)):
        extra = len(render_step(st, 1)) - len(render_step(st, 0))
        if used + extra <= reserve:
            levels[st.index] = 1
            used += extra
    # 2. long runs of routine steps (successful, not first/last of a stage) keep their
    #    first and last two; then, if one line per step still does not fit, hide the least
    #    important steps (binary search for the fewest); every stage segment keeps its most
    #    important step
    hidden: set[int] = _routine_runs(steps) if len(_render(header, steps, levels, set())) > budget_chars // 3 else set()
    if len(_render(header, steps, levels, hidden)) > budget_chars:
        keep = {min(seg, key=lambda s: (s.priority, s.index)).index for seg in _segments(steps)} | set(levels)
        order = sorted((s for s in steps if s.index not in keep and s.index not in hidden),
                       key=lambda s: (-s.priority, -s.index))
        lo, hi = 0, len(order)
        while lo < hi:
            mid = (lo + hi) // 2
            if len(_render(header, steps, levels, hidden | {s.index for s in order[:mid]})) <= budget_chars:
                hi = mid
            else:
                lo = mid + 1
        hidden = hidden | {s.index for s in order[:lo]}
    # 3. spend what is left on more detail, most important first; within one priority the
    #    stages take turns (each stage's 1st step, then each stage's 2nd, ...)
    total = len(_render(header, steps, levels, hidden))
    visible = sorted((s for s in steps if s.index not in hidden), key=_fair_key(steps))
    for level in (1, 2):
        for st in visible:
            cur = levels.get(st.index, 0)
            if cur >= level:
                continue
            delta = len(render_step(st, level)) - len(render_step(st, cur))
            if total + delta <= budget_chars:
                levels[st.index] = level
                total += delta
    text = _render(header, steps, levels, hidden)
    return text if len(text) <= budget_chars else _clip(text, budget_chars)


def render_full(trace: Iterable[TraceEvent]) -> str:
    """The unabridged trajectory: every step with its complete code and outputs."""
    steps, facts = collect_steps(list(trace))
    return _render(_header(steps, facts), steps, {}, set(), _full_step)


def _full_step(st: Step, _level: int) -> str:
    """One step of `render_full`: an execution with nothing cut, any other step at the highest level."""
    if st.kind != "exec":
        return render_step(st, 2)
    parts = [render_step(st, 0), "  code:\n" + _indent(st.code)]
    if st.wrote or st.read:
        parts.append("  effects (observed by the sandbox): wrote " + _paths(st.wrote, len(st.wrote))
                     + "; read " + _paths(st.read, len(st.read)))
    if st.stdout.strip():
        parts.append("  stdout:\n" + _indent(st.stdout.rstrip()))
    if st.stderr.strip():
        parts.append("  stderr:\n" + _indent(st.stderr.rstrip()))
    return "\n".join(parts)
