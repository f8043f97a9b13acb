"""Append-only trace.jsonl writer: one TraceEvent per line, flushed as it happens so a
crashed run still leaves its trace."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .models import EventType, TraceEvent
from .record import RunFileError, RunRecord, parse_trace_lines, validate_trace


class TraceWriter:
    def __init__(self, path: Path, t0: float | None = None):
        self.path = path
        self.t0 = t0 if t0 is not None else time.monotonic()
        self._fh = open(path, "a", encoding="utf-8")

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def emit(self, type: EventType, **fields: Any) -> TraceEvent:
        event = TraceEvent(type=type, t=round(self.elapsed(), 4), **fields)
        self._fh.write(event.model_dump_json(exclude_none=True) + "\n")
        self._fh.flush()
        return event

    def close(self) -> None:
        self._fh.close()


def read_trace(path: Path) -> list[TraceEvent]:
    """Events of a saved trace file; a torn last line (crash mid-write) is skipped, as
    RunRecord.trace reads it (runs/record.py), for a trace that is not in a run folder's place."""
    if not path.is_file():
        return []
    return validate_trace(parse_trace_lines(path.read_bytes().decode("utf-8", errors="replace"))[0])[0]


def slowest_execution(run_dirs: list[Path]) -> str:
    """'agent task/tier S4 call 5: 9.8 s' for the longest execution over the runs, or '' (a
    run directory without its run.json or trace is passed over)."""
    best = (0.0, "")
    for d in run_dirs:
        try:
            rec = RunRecord.open(d)
            meta = rec.meta
            events = rec.trace
        except RunFileError:
            continue
        if meta is None:
            continue
        run = meta.run
        for ev in events:
            if ev.type == "execution" and (ev.duration_s or 0) > best[0]:
                best = (ev.duration_s or 0.0, f"{run.agent} {run.task}/{run.tier} {(ev.stage or '?').upper()} "
                                              f"call {ev.call_index}: {ev.duration_s:.1f} s")
    return best[1]


def infra_error_message(run_dir: Path | str) -> str:
    """The message of the infrastructure error that ended a run (URL, status, hint), from its
    trace, or '' when there is none."""
    try:
        events = RunRecord.open(run_dir).trace
    except RunFileError:
        return ""
    for ev in reversed(events):
        if ev.type == "error" and ev.kind == "infrastructure" and ev.message:
            return str(ev.message)
    return ""
