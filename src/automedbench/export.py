"""Export a run to other tools' formats.

    export_inspect(run_dir, out_file)     an Inspect AI eval log, so `inspect view` opens it:
                                          Inspect's zip format when out_file ends in .eval,
                                          JSON otherwise (.json)
    automedbench export RUN_DIR --format inspect [--out FILE]

The Inspect log has one sample per run: the sample's messages are the run's conversation
(system prompt, every assistant message with its tool calls, every tool result), its scores
are overall, agentic, task and S1..S5 (null stages are left out, not 0), and its metadata
holds the fired error codes with their evidence, the per-case metrics and the judge. Each
model call of the trace becomes a model event with its tokens, latency and cost. The log is
written by hand against Inspect's log schema (version 2), so exporting needs no
inspect_ai install; tests read the file back with inspect_ai's own `read_eval_log`.
"""
from __future__ import annotations

import json
import uuid
import zipfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from . import __version__
from .runs.layout import RunFiles, write_json_atomic
from .runs.models import UNSCORED_END_REASONS, DetailReport
from .runs.record import RunFileError, RunRecord

INSPECT_LOG_VERSION = 2
FORMATS = ("inspect",)


class ExportError(ValueError):
    """The run directory cannot be exported (no report, unknown format). One line."""


def _load(run: RunRecord | Path) -> tuple[DetailReport, dict, dict, list[dict]]:
    """The report (required), conversation, run.json and trace lines, through RunRecord
    (docs/run_record.md "Reading a run folder"): a bad conversation or run.json is left out."""
    run_dir = run.dir if isinstance(run, RunRecord) else run
    try:
        rec = run if isinstance(run, RunRecord) else RunRecord.open(run)
        report = rec.report
    except RunFileError as exc:
        raise ExportError(f"{exc.path}: unreadable report ({exc.why})") from None
    if report is None:
        raise ExportError(f"{run_dir}: not a scored run directory (no detail_report.json)")
    try:
        c = rec.conversation
        conv = c.model_dump(mode="json") if c is not None else {"system_prompt": "", "messages": []}
    except RunFileError:
        conv = {"system_prompt": "", "messages": []}
    try:
        m = rec.meta
        meta = m.model_dump(mode="json") if m is not None else {}
    except RunFileError:
        meta = {}
    try:
        lines = rec.trace_lines
    except RunFileError:
        lines = []
    return report, conv, meta, lines


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)


def _messages(conv: dict, kickoff: str) -> list[dict]:
    """OpenAI-style messages -> Inspect ChatMessage dicts."""
    out: list[dict] = [{"role": "system", "content": conv.get("system_prompt") or "", "source": "input"}]
    names: dict[str, str] = {}
    msgs = conv.get("messages") or []
    if not any(m.get("role") == "user" for m in msgs):
        out.append({"role": "user", "content": kickoff, "source": "input"})
    for m in msgs:
        role = m.get("role")
        if role == "assistant":
            calls = []
            for tc in m.get("tool_calls") or []:
                fn = tc.get("function") or {}
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except ValueError:
                    args = {"raw": fn.get("arguments")}
                if not isinstance(args, dict):
                    args = {"value": args}
                names[tc.get("id", "")] = fn.get("name", "")
                calls.append({"id": tc.get("id", ""), "function": fn.get("name", ""), "arguments": args,
                              "type": "function"})
            msg: dict[str, Any] = {"role": "assistant", "content": _text(m.get("content")), "source": "generate"}
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
        elif role == "tool":
            out.append({"role": "tool", "content": _text(m.get("content")), "tool_call_id": m.get("tool_call_id"),
                        "function": names.get(m.get("tool_call_id") or "", None)})
        elif role in ("user", "system"):
            out.append({"role": role, "content": _text(m.get("content"))})
    return out


def _model_events(lines: list[dict], model: str, started: str) -> list[dict]:
    """trace.jsonl's model calls as Inspect model events (tokens in/out, latency, cost)."""
    try:
        t0 = datetime.fromisoformat(started.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        t0 = None
    events: list[dict] = []
    for ev in lines:
        if ev.get("type") != "model_call":
            continue
        t = float(ev.get("t") or 0)
        tin, tout = int(ev.get("tokens_in") or 0), int(ev.get("tokens_out") or 0)
        event: dict[str, Any] = {
            "event": "model", "working_start": t, "model": model, "input": [], "tools": [], "tool_choice": "auto",
            "config": {}, "output": {"model": model, "choices": [], "time": ev.get("duration_s"),
                                     "usage": {"input_tokens": tin, "output_tokens": tout, "total_tokens": tin + tout}},
            "working_time": ev.get("duration_s"),
            "metadata": {"turn": ev.get("turn"), "cost_usd": ev.get("cost_usd"), "tokens_cached": ev.get("tokens_cached")}}
        if t0 is not None:
            event["timestamp"] = (t0 + timedelta(seconds=t)).isoformat()
        events.append(event)
    return events


def _score(value: float | None, explanation: str = "") -> dict:
    return {"value": value, "explanation": explanation}


def inspect_log(run: RunRecord | Path | str) -> dict:
    """The Inspect eval log (as a dict) for one run directory, or its record (the site's, read once)."""
    r, conv, meta, lines = _load(run if isinstance(run, RunRecord) else Path(run))
    model = r.run.model or f"automedbench/{r.run.agent}"
    scores: dict[str, dict] = {}
    if r.overall is not None:
        scores["overall"] = _score(r.overall, f"medal {r.medal}, rating {r.rating}")
    if r.agentic is not None:
        scores["agentic"] = _score(r.agentic, "weighted S1..S5 over active stages " + ",".join(r.active_stages))
    scores["task"] = _score(r.task.score, f"{r.task.metric_name}; completion {r.task.completion_rate:.2f}")
    for sid, st in r.stages.items():
        if st.score is not None:
            scores[sid] = _score(st.score, st.rationale)
    metrics = {name: {"name": "mean", "value": s["value"], "params": {}} for name, s in scores.items()}
    kickoff = f"Task {r.run.task} ({r.run.tier} tier)"
    # a run nobody's score (infrastructure, provider, interrupted: runs/models.py) is an Inspect error
    status = "error" if r.run.end_reason in UNSCORED_END_REASONS else "success"
    started = r.run.started_at
    sample = {
        "id": r.run.run_id, "epoch": 1, "input": kickoff, "target": "",
        "messages": _messages(conv, kickoff),
        "output": {"model": model, "choices": [], "usage": {
            "input_tokens": r.run.tokens_in, "output_tokens": r.run.tokens_out,
            "total_tokens": r.run.tokens_in + r.run.tokens_out}},
        "scores": {name: {**s, "metadata": {}} for name, s in scores.items()},
        # the scaffold that drove the run and its model, apart (docs/leaderboard.md "Scaffold and model")
        "metadata": {"agent": r.run.agent, "scaffold": r.run.scaffold, "model": r.run.model, "task": r.run.task, "tier": r.run.tier, "track": r.run.track,
                     "end_reason": r.run.end_reason, "submitted": r.run.submitted, "turns": r.run.turns,
                     "wall_time_s": r.run.wall_time_s, "cost_usd": r.run.cost_usd, "sandbox": r.run.sandbox,
                     "errors": [e.model_dump(mode="json") for e in r.errors],
                     "violations": [v.model_dump(mode="json") for v in r.violations],
                     "per_case": [c.model_dump(mode="json") for c in r.task.per_case],
                     "judge": r.judge.model_dump(mode="json"), "flags": r.flags, "disqualified": r.disqualified},
        "total_time": r.run.wall_time_s,
        "events": _model_events(lines, model, started),
    }
    if status == "error":
        sample["error"] = {"message": f"run ended: {r.run.end_reason}", "traceback": "", "traceback_ansi": ""}
    return {
        "version": INSPECT_LOG_VERSION,
        "status": status,
        "eval": {
            "eval_id": uuid.uuid5(uuid.NAMESPACE_URL, f"automedbench:{r.run.run_id}").hex,
            "run_id": r.run.run_id, "created": started, "task": f"automedbench/{r.run.task}",
            "task_id": f"{r.run.task}-{r.run.tier}", "task_version": 0, "task_attribs": {},
            "task_args": {"tier": r.run.tier},
            "solver": r.run.agent,
            "dataset": {"name": meta.get("dataset") or r.run.task, "samples": 1, "sample_ids": [r.run.run_id],
                        "shuffled": False},
            "model": model, "model_args": {}, "config": {},
            "packages": {"automedbench": __version__},
            "metadata": {"harness": "automedbench", "harness_version": __version__, "schema_version": r.schema_version,
                         "scaffold": r.run.scaffold},
        },
        "plan": {"name": "automedbench", "steps": [{"solver": r.run.agent, "params": {"tier": r.run.tier}}],
                 "config": {}},
        "results": {"total_samples": 1, "completed_samples": 1 if status == "success" else 0,
                    "scores": [{"name": "automedbench", "scorer": "automedbench", "params": {},
                                "metrics": metrics}]},
        "stats": {"started_at": started, "completed_at": started,
                  "model_usage": {model: {"input_tokens": r.run.tokens_in, "output_tokens": r.run.tokens_out,
                                          "total_tokens": r.run.tokens_in + r.run.tokens_out}}},
        "samples": [sample],
    }


def write_eval_zip(log: dict, out: Path) -> None:
    """Inspect's .eval format: a zip with header.json (the log without samples), one
    samples/<id>_epoch_<n>.json per sample and summaries.json (what `inspect view` lists)."""
    samples = log.get("samples") or []
    header = {k: v for k, v in log.items() if k != "samples"}
    summaries = [{"id": s["id"], "epoch": s["epoch"], "input": s["input"], "target": s["target"],
                  "scores": s.get("scores"), "metadata": {}, "model_usage": {}, "error": (s.get("error") or {}).get("message")}
                 for s in samples]
    tmp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps(header))
        for smp in samples:
            zf.writestr(f"samples/{smp['id']}_epoch_{smp['epoch']}.json", json.dumps(smp))
        zf.writestr("summaries.json", json.dumps(summaries))
    tmp.replace(out)


def export_inspect(run_dir: Path | str, out_file: Path | str | None = None) -> Path:
    """Write the run's Inspect eval log; default RUN_DIR/inspect.json. A path ending in .eval
    gets Inspect's zip format, any other path JSON. Returns the file."""
    out = Path(out_file) if out_file else Path(run_dir) / "inspect.json"
    log = inspect_log(run_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".eval":
        write_eval_zip(log, out)
    else:
        write_json_atomic(out, log)
    return out


def export(run_dir: Path | str, fmt: str, out_file: Path | str | None = None) -> Path:
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r} (choose: {', '.join(FORMATS)})")
    return export_inspect(run_dir, out_file)


def run_dirs_under(paths: list[Path | str]) -> list[Path]:
    """The scored run directories among `paths`: a run directory itself, or every run under a
    folder (a sweep root), hidden folders (`.attempts/`, `.superseded/`) left out."""
    found: dict[Path, None] = {}
    for p in map(Path, paths):
        if not p.exists():
            raise ExportError(f"{p}: no such file or directory")
        if RunFiles(p).report.is_file():
            found[p] = None
            continue
        for rep in sorted(p.rglob(RunFiles.REPORT)):
            if not any(part.startswith(".") for part in rep.relative_to(p).parts[:-1]):
                found[rep.parent] = None
    if not found:
        raise ExportError(f"no scored run (detail_report.json) under {', '.join(str(p) for p in paths)}")
    return list(found)


def export_many(paths: list[Path | str], fmt: str, out: Path | str | None = None) -> list[Path]:
    """Export every run among `paths` (run directories or sweep roots). One run and `out`: that
    file. Several: each into `out/<run_id>.json` when `out` is given, else RUN_DIR/inspect.json."""
    dirs = run_dirs_under(paths)
    if out is not None and len(dirs) == 1 and not Path(out).is_dir():
        return [export(dirs[0], fmt, out)]
    written = []
    for d in dirs:
        target = None
        if out is not None:
            run_id = _load(d)[0].run.run_id
            target = Path(out) / f"{run_id}.json"
        written.append(export(d, fmt, target))
    return written
