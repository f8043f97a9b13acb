"""The static site: overall leaderboard, per-task boards, one page per run, run comparison.

    write_site(reports, out_dir, board=aggregate(reports), plots=..., warnings=...)

Layout (every link relative, so it works from file:// and any static host):

    index.html              overall board: filters (track/task/tier), sortable tables, all runs
    tasks/<task>.html       one board per task with a tier picker, its runs, compare boxes
    runs/<slug>.html        one page per run (timeline, tool calls, plan, judge, cases, codes)
    runs/<slug>.js          the run's report as data, loaded on demand by compare.html
    runs/<slug>/plan.png    the run's plan diagram, copied
    runs/<slug>/pics/...    the run's per-case pictures (scoring/pictures.py), copied
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
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import Environment

from .. import yamlfile
from ..export import ExportError, inspect_log
from ..run_files import RunFiles, WorkspaceNames
from ..runs.models import DetailReport
from ..runs.record import RunFileError, RunRecord
from ..scoring.error_codes import code_texts as error_code_texts
from ..scoring.error_codes import error_table
from ..scoring.rubric import Rubric, load_rubric
from ..tasks import discover
from ..number_format import metric_kind, metric_text
from .diagnosis import case_writers, points_lost, task_diagnostics, uncharged_accesses
from .baseline import agent_label, is_baseline
from .cards import INLINE_LIMIT, card_page
from .raw import raw_record
from .aggregate import STAGES, AgentStats, Leaderboard, Stat, agent_rows, is_infra, is_judge_incomplete

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
# through RunRecord (docs/run_record.md "Reading a run folder"): a file that is absent or does
# not read leaves its part of the page out

def read_trace(run: RunRecord | Path | None) -> list[dict]:
    """The trace's lines, unvalidated (events of other harness versions are shown too)."""
    if run is None:
        return []
    try:
        return (run if isinstance(run, RunRecord) else RunRecord(run)).trace_lines
    except RunFileError:
        return []


def read_conversation(run: RunRecord | Path | None) -> dict:
    if run is None:
        return {}
    try:
        conv = (run if isinstance(run, RunRecord) else RunRecord(run)).conversation
    except RunFileError:
        return {}
    return conv.model_dump(mode="json") if conv is not None else {}


def _content(c: Any) -> str:
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in c)
    return ""


def conversation_parts(conv: dict) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """From conversation.json: tool_call number -> the assistant text that came with it, tool
    call number -> the reply the agent saw (submit_results' reply included), and the assistant
    messages in order (text only; the k-th is turn k's)."""
    texts: dict[str, str] = {}
    replies: dict[str, str] = {}
    said: list[str] = []
    ids: dict[str, int] = {}
    n = 0
    for m in conv.get("messages") or []:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "assistant":
            text = _content(m.get("content"))
            said.append(text[:8000])
            for tc in m.get("tool_calls") or []:
                n += 1
                if isinstance(tc, dict) and tc.get("id"):
                    ids[str(tc["id"])] = n
                if text:
                    texts[str(n)] = text[:4000]
        elif m.get("role") == "tool" and str(m.get("tool_call_id")) in ids:
            replies[str(ids[str(m.get("tool_call_id"))])] = _content(m.get("content"))[:4000]
    return texts, replies, said


def _clip(s: str | None) -> str:
    if not s:
        return ""
    return s if len(s) <= CALL_TEXT_LIMIT else s[:CALL_TEXT_LIMIT] + f"\n… [{len(s) - CALL_TEXT_LIMIT} more characters]"


def calls_from_trace(events: list[dict], texts: dict[str, str] | None = None,
                     wall_time_s: float = 0.0, replies: dict[str, str] | None = None) -> tuple[list[dict], float]:
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
                     stdout=_clip(ev.get("stdout")), stderr=_clip(ev.get("stderr")), timed_out=bool(ev.get("timed_out")),
                     effects=effects_view(ev.get("effects")), checks=checks_view(ev.get("output_checks")),
                     units_written=units_written(ev.get("output_checks"), ev.get("effects")))
            if ev.get("stage") and not c["stage"]:
                c["stage"] = ev.get("stage")
        elif kind == "submit" and idx is not None:
            c = calls.setdefault(idx, {"index": idx, "turn": ev.get("turn"), "stage": "s5", "t": float(ev.get("t") or 0),
                                       "tool": "submit_results", "language": None, "code": "", "duration": 0.0,
                                       "exit_code": None, "stdout": "", "stderr": "", "timed_out": False,
                                       "result": "", "text": (texts or {}).get(str(idx), "")})
            # the reply the agent saw (conversation.json), else the event's own message; never "{}"
            c["result"] = _clip((replies or {}).get(str(idx)) or ev.get("message")
                                or (json.dumps(ev["data"], ensure_ascii=False)[:2000] if ev.get("data") else "")
                                or "submitted (no reply recorded)")
        elif kind in ("violation", "warning") and idx is not None:
            flagged.setdefault(idx, []).append(ev.get("kind") or kind)
    rows = sorted(calls.values(), key=lambda c: c["index"])
    last_t = max([c["t"] + c["duration"] for c in rows] + [float(e.get("t") or 0) for e in events] + [wall_time_s, 1e-6])
    seen_turns: set = set()
    for c in rows:
        c.setdefault("effects", None)
        c.setdefault("checks", [])
        c.setdefault("units_written", len(c["checks"]))
        c["flags"] = flagged.get(c["index"], [])
        c["failed"] = c["exit_code"] not in (None, 0) or c["timed_out"]
        c["left"] = 100.0 * c["t"] / last_t
        c["width"] = max(0.25, 100.0 * c["duration"] / last_t)
        c["first_of_turn"] = c["turn"] not in seen_turns
        seen_turns.add(c["turn"])
    return rows, last_t


def effects_view(eff: Any) -> dict | None:
    """A call's observed file effects (written / deleted / read), for the run page; None when
    the sandbox did not observe them (docs/site.md "Run page")."""
    if not isinstance(eff, dict):
        return None
    written = [w for w in eff.get("written") or [] if isinstance(w, dict)]
    out = {"written": [{"path": str(w.get("path", "")), "op": str(w.get("op", "")), "size": w.get("size")}
                       for w in written[:200]],
           "deleted": [str(x) for x in (eff.get("deleted") or [])[:200]],
           "read": [str(x) for x in (eff.get("read") or [])[:200]],
           "read_back": [str(x) for x in (eff.get("read_back") or [])[:200]],
           # how many each list holds in the trace: the page shows the first 200 and says "+N more"
           "n": {k: len(eff.get(k) or []) for k in ("written", "deleted", "read", "read_back")},
           "truncated": bool(eff.get("truncated")),   # the recorder itself kept only part of a list
           "recorder": str(eff.get("recorder") or "")}
    return out if out["written"] or out["deleted"] or out["read"] else None


def checks_view(checks: Any) -> list[dict]:
    """The harness's check of each output unit the call wrote (docs/judge.md "Per-output
    checks"): the unit, whether it passed, the problem, and its shape/size/rows as written."""
    out = []
    for ch in checks if isinstance(checks, list) else []:
        if not isinstance(ch, dict):
            continue
        passed = bool(ch.get("valid")) and ch.get("non_trivial") is not False and not ch.get("copy_of_input") \
            and not ch.get("implausible")
        facts = [f"{k} {'×'.join(str(d) for d in v) if isinstance(v, list) else v}"
                 for cf in (ch.get("facts") or {}).values() if isinstance(cf, dict)
                 for k, v in (cf.get("facts") or {}).items() if k in ("shape", "size", "rows", "length")]
        out.append({"path": str(ch.get("path", "")), "passed": passed, "problem": str(ch.get("problem") or ""),
                    "facts": "; ".join(dict.fromkeys(facts))})
    return out


def units_written(checks: Any, eff: Any) -> int:
    """How many output units the call wrote, of which the harness checked a few (it checks at
    most MAX_UNITS_PER_CALL per call): the folders (per-case layouts) or files (a cohort file)
    of the written files named like those it checked. The page says "k of n checked"
    (docs/site.md "Totals and groups")."""
    rows = [ch for ch in checks if isinstance(ch, dict)] if isinstance(checks, list) else []
    files = [str(f) for ch in rows for f in (ch.get("files") or {})]
    names = {PurePosixPath(f).name for f in files}
    cohort = any(str(ch.get("path")) in (ch.get("files") or {}) for ch in rows)
    written = (eff.get("written") or []) if isinstance(eff, dict) else []
    units = {p if cohort else str(PurePosixPath(p).parent)
             for w in written if isinstance(w, dict) and w.get("op") != "transient"
             and PurePosixPath(p := str(w.get("path", ""))).name in names}
    return max(len(units), len(rows))


NOTE_LABELS = {"nudge": "nudge", "text_reply": "text reply (no tool call)", "bad_tool_arguments": "rejected call",
               "limit": "run limit", "provider_retry": "provider retry", "infrastructure": "infrastructure"}
def transcript(events: list[dict], calls: list[dict], said: list[str]) -> list[dict]:
    """The run in order: model calls (tokens, latency, cost), the assistant's text, tool calls
    with their results, harness notes (nudges, rejected calls, limits) and violations."""
    by_index = {c["index"]: c for c in calls}
    out: list[dict] = []
    shown_text: set[int] = set()
    for ev in events:
        kind, turn = ev.get("type"), ev.get("turn")
        if kind == "model_call":
            out.append({"kind": "model", "turn": turn, "t": float(ev.get("t") or 0),
                        "tokens_in": int(ev.get("tokens_in") or 0), "tokens_out": int(ev.get("tokens_out") or 0),
                        "duration": float(ev.get("duration_s") or 0), "cost": float(ev.get("cost_usd") or 0)})
            # the turn's assistant message; its text is shown once, before its calls
            k = (turn or 0) - 1
            if isinstance(turn, int) and 0 <= k < len(said) and said[k] and turn not in shown_text:
                shown_text.add(turn)
                out.append({"kind": "text", "turn": turn, "text": said[k]})
        elif kind == "tool_call" and ev.get("call_index") in by_index:
            out.append({"kind": "call", "call": by_index[ev["call_index"]]})
        elif kind == "submit" and ev.get("call_index") in by_index and by_index[ev["call_index"]]["tool"] == "submit_results":
            out.append({"kind": "call", "call": by_index[ev["call_index"]]})
        elif kind in ("warning", "error", "violation"):
            label = NOTE_LABELS.get(str(ev.get("kind")), str(ev.get("kind") or kind))
            msg = ev.get("message") or (json.dumps(ev.get("data"), ensure_ascii=False)[:1000] if ev.get("data") else "")
            out.append({"kind": "note", "turn": turn, "level": "bad" if kind != "warning" else "warn",
                        "label": label, "message": _clip(str(msg or ev.get("path") or ""))})
    for c in calls:  # calls without a tool_call event (older traces) still appear
        if not any(e["kind"] == "call" and e["call"] is c for e in out):
            out.append({"kind": "call", "call": c})
    for e in out:
        if e["kind"] == "call":
            e["call"]["text"] = "" if e["call"]["turn"] in shown_text else e["call"]["text"]
    return out


EVIDENCE_LIMIT = 600


def evidence_value(v: Any) -> dict:
    """One evidence value as text: strings as they are, structures as readable JSON (no \\u
    escapes); past EVIDENCE_LIMIT characters cut at a word boundary, the rest one click away."""
    if isinstance(v, str):
        text = v
    elif isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v):
        text = ", ".join(str(x) for x in v)
    else:
        text = json.dumps(v, ensure_ascii=False, indent=1 if isinstance(v, (dict, list)) else None)
    if len(text) <= EVIDENCE_LIMIT:
        return {"short": text, "full": None}
    cut = text.rfind(" ", 0, EVIDENCE_LIMIT)
    cut = cut if cut > EVIDENCE_LIMIT // 2 else EVIDENCE_LIMIT
    return {"short": text[:cut].rstrip() + " …", "full": text}


# the cases a code's capped evidence list stands for, read back from the per-case results by the
# rule the scorer fired it on (scoring/error_codes.py _cases, _case_flags)
_STATUS_OF_CODE = {"MISSING_CASES": "missing", "FORMAT_INVALID": "invalid", "INFRA_REFERENCE": "reference_error"}


def _all_cases_of(code: str, shown: list[str], total: int, r: DetailReport) -> list[str] | None:
    """Every case behind a code whose evidence names only the first of them, so "+N more" can
    link to all (docs/site.md "Totals and groups"); None when the per-case results do not give
    back exactly `total` cases including the ones shown (then no list is claimed)."""
    per_case = r.task.per_case
    if code in _STATUS_OF_CODE:
        found = [c.case_id for c in per_case if c.status == _STATUS_OF_CODE[code]]
    else:
        flags = {f for f, c in (error_table().get("case_flag_codes") or {}).items() if c == code}
        found = sorted({c.case_id for c in per_case if flags & set(c.flags)})
        if code == "PLACEHOLDER_OUTPUT" and len(found) != total:   # every valid output trivial
            found = sorted(c.case_id for c in per_case if c.valid)
    return found if len(found) == total and set(shown) <= set(found) else None


def _case_list(ev: dict, key: str, r: DetailReport, code: str = "") -> dict | None:
    """A list of cases in the evidence, with "+N more" when the scorer capped it, and then all
    of them (`all`) when the per-case results give them back."""
    items = ev.get(key)
    if not isinstance(items, list) or not items:
        return None
    ids = [c.get("case_id") if isinstance(c, dict) else c for c in items]
    reasons = {c.get("case_id"): c.get("reason") for c in items if isinstance(c, dict) and c.get("reason")}
    total = max([len(ids)] + [int(v) for k, v in ev.items() if k.startswith("n_") and isinstance(v, (int, float))
                              and not isinstance(v, bool)])
    shown = [str(i) for i in ids if i is not None]
    more = max(0, total - len(ids))
    return {"ids": shown, "reasons": reasons, "more": more,
            "all": _all_cases_of(code, shown, total, r) if more else None}


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


def error_rows(r: DetailReport, calls: list[dict], code_texts: dict[str, str],
               writers: dict[str, int] | None = None) -> list[dict]:
    """Each fired code with its evidence and links to the turn/call/case/plan it points at; a
    code about cases also links to the calls that wrote those cases' outputs (`writers`)."""
    known_calls = {c["index"] for c in calls}
    turns = {c["turn"] for c in calls}
    rows = []
    for e in r.errors:
        ev = dict(e.evidence or {})
        cases = _case_list(ev, "cases", r, e.code)
        shown = [(k, evidence_value(v)) for k, v in ev.items()
                 if k != "what" and not (k == "cases" and cases) and not (cases and k.startswith("n_"))]
        links = [link for link in evidence_links(ev, e.step, known_calls, turns)
                 if not (cases and link["target"].startswith("case-"))]
        known = writers or {}
        wrote = sorted({known[cid] for cid in (cases or {}).get("ids", []) if cid in known})
        for i in wrote[:3]:
            if all(link["target"] != f"call-{i}" for link in links):
                links.append({"target": f"call-{i}", "label": f"call {i} (wrote the outputs)"})
        rows.append({"code": e.code, "step": e.step, "category": e.category, "infrastructure": e.infrastructure,
                     "text": ev.get("what") or code_texts.get(e.code, ""), "evidence": shown, "cases": cases,
                     "links": links})
    return rows


def _metric_kinds(r: DetailReport, names: list[str]) -> dict[str, str]:
    """What each metric's numbers are in this run (number_format.metric_kind): a count prints
    as an integer, a flag as yes/no, a value with 3 decimals (docs/site.md "One number format")."""
    return {m: metric_kind(m, [v for c in r.task.per_case if (v := c.metrics.get(m)) is not None]) for m in names}


def case_rows(r: DetailReport, pictures: dict[str, list[dict]] | None = None,
              writers: dict[str, int] | None = None) -> tuple[list[dict], list[str]]:
    """Per-case metrics, a status, the track's reason or flags, the case's pictures and the
    call that wrote its output folder (`writers`, diagnosis.case_writers), when observed.

    A valid case is explained as a zero only when its headline metric (the track's first
    per-case metric, higher is better: docs/tracks.md) is 0; a zero elsewhere (a count of
    spurious outputs, a placeholder flag) is often the good outcome and is not called a failure."""
    names: list[str] = []
    for c in r.task.per_case:
        for m in c.metrics:
            if m not in names:
                names.append(m)
    kinds = _metric_kinds(r, names)
    rows = []
    for c in r.task.per_case:
        status = str(c.status)
        head = next(iter(c.metrics), None)
        if not c.valid:
            why = c.reason or f"{status}: scored 0"
        elif head is not None and c.metrics[head] == 0:
            why = c.reason or f"valid output, but {head} = 0 against the ground truth"
        else:
            why = c.reason
        flags = [f for f in c.flags if f and f != why]
        shown = {m: (None if v is None else metric_text(m, v, kinds.get(m))) for m, v in c.metrics.items()}
        rows.append({"case_id": c.case_id, "status": status, "valid": c.valid, "metrics": c.metrics, "shown": shown,
                     "why": why, "flags": flags, "zero": head is not None and c.metrics.get(head) == 0,
                     "head": head, "writer": (writers or {}).get(c.case_id),
                     "pictures": (pictures or {}).get(c.case_id, [])})
    return rows, names


def _file_targets(calls: list[dict], plan_md: bool, plan_png: bool) -> dict[str, str]:
    """Where a cited file can be seen on the run page: the plan section for plan files, else
    the first call whose observed effects wrote or read it (docs/site.md "Run page")."""
    where: dict[str, str] = {}
    for c in calls:
        eff = c.get("effects") or {}
        for path in [w["path"] for w in eff.get("written", [])] + list(eff.get("read", [])):
            where.setdefault(path, f"call-{c['index']}")
    for name, shown, anchor in ((WorkspaceNames.PLAN_MD, plan_md, "plan-md"), (WorkspaceNames.PLAN_PNG, plan_png, "plan-png")):
        for key in (name, "/workspace/" + name):
            if key not in where:
                where[key] = anchor if shown else "plan"
    return where


def judge_rows(r: DetailReport, rubric_items: dict[str, str], calls: Sequence[dict] = (),
               plan_md: bool = False, plan_png: bool = False) -> list[dict]:
    """One row per stage (its score and its own rationale), then one per item with the item's
    own reason only (never the stage's repeated, never another item's) and links to the calls
    and files its evidence cites (StageResult.evidence, docs/judge.md#item-evidence). A cited
    call or file the page cannot show is listed without a link."""
    known = {c["index"] for c in calls}
    files_at = _file_targets(list(calls), plan_md, plan_png)
    rows: list[dict] = []
    for s in STAGES:
        st = r.stages.get(s)
        rows.append({"stage": s, "kind": "stage", "score": st.score if st else None,
                     "rationale": (st.rationale if st else "") or ("" if st else "not scored")})
        if st is None:
            continue
        per_item = getattr(st, "item_rationales", None) or {}
        for item, v in (st.items or {}).items():
            ev = st.evidence.get(item)
            rows.append({
                "stage": s, "kind": "item", "item": item, "what": rubric_items.get(item, ""), "verdict": v,
                "rationale": (ev.why if ev else "") or per_item.get(item, ""),
                "calls": [{"index": c, "target": f"call-{c}" if c in known else None} for c in (ev.calls if ev else [])],
                "files": [{"path": f, "target": files_at.get(f)} for f in (ev.files if ev else [])],
            })
    return rows


def read_pictures(run_dir: Path | None, out: Path, slug: str) -> dict[str, list[dict]]:
    """The run's pictures (pictures/index.json beside its report), copied under runs/<slug>/pics/;
    case_id -> [{src (relative to runs/), caption, media_type}]."""
    if run_dir is None:
        return {}
    src_root = RunFiles(run_dir).pictures
    try:
        index = json.loads((src_root / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found: dict[str, list[dict]] = {}
    for entry in index if isinstance(index, list) else []:
        if not isinstance(entry, dict):
            continue
        d = str(entry.get("dir", ""))
        for f in entry.get("files") or []:
            name = str(f.get("name", ""))
            if not d or not name or "/" in d + name or d.startswith(".") or name.startswith("."):
                continue
            src = src_root / d / name
            try:
                if src.is_symlink() or not src.is_file() or src.stat().st_size > 2_000_000:
                    continue
                (out / "runs" / slug / "pics" / d).mkdir(parents=True, exist_ok=True)
                card = None
                if f.get("media_type") == "text/html":   # a page of its own: titled (cards.py)
                    card = card_page(src.read_text(encoding="utf-8", errors="replace"),
                                     f"{entry.get('case_id')}: {f.get('caption', '')}")
                    (out / "runs" / slug / "pics" / d / name).write_text(card, encoding="utf-8")
                else:
                    shutil.copyfile(src, out / "runs" / slug / "pics" / d / name)
            except OSError:
                continue
            found.setdefault(str(entry.get("case_id")), []).append(
                {"src": f"{slug}/pics/{d}/{name}", "caption": str(f.get("caption", "")), "html": card is not None,
                 "doc": card if card is not None and len(card.encode()) <= INLINE_LIMIT else None})
    return found


def raw_links(run_dir: Path | None, out: Path, slug: str, inspect_file: str | None) -> list[dict]:
    """Links to the run's own records, placed inside the site folder (raw.py), relative to the
    run page: they work from file:// and from a server that serves the site folder alone."""
    links = raw_record(run_dir, out, slug)
    if inspect_file:
        links.append({"href": inspect_file, "label": "Inspect log (.json)"})
    return links


def stage_data(rubric: Rubric) -> list[dict[str, Any]]:
    """The stages as the pages' data carries them to site.js, in the rubric's order: id (the key
    of every report's `stages`), the label shown, name and weight. The script knows no stage of
    its own (docs/site.md "Stages come from the rubric")."""
    return [{"id": sid, "label": sid.upper(), "name": st.name, "weight": st.weight} for sid, st in rubric.stages.items()]


def _rubric_items(rubric: Rubric) -> dict[str, str]:
    return {i: d for s in rubric.stages.values() for i, d in s.items.items()}


# ---- views for the index's filters ----------------------------------------------------------

def _r(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


def _compact(a: AgentStats) -> dict[str, Any]:
    """What the index's agent table shows, rounded: keeps the page small with many views."""
    def st(s: Stat, full: bool = False) -> dict[str, Any]:
        # scores unrounded: the page rounds once, as the CLI does (docs/site.md "One number format")
        d: dict[str, Any] = {"mean": s.mean, "n": s.n}
        if full:
            d.update(ci_low=s.ci_low, ci_high=s.ci_high, n1=s.n1)
        return d
    return {"agent": a.agent, "scaffold": a.scaffold, "model": a.model, "models": a.models, "overall": st(a.overall, True), "agentic": st(a.agentic),
            "task_score": st(a.task_score), "stages": {k: st(v) for k, v in a.stages.items()},
            "avg_turns": _r(a.avg_turns), "avg_wall_time_s": _r(a.avg_wall_time_s), "avg_tokens": _r(a.avg_tokens),
            "avg_cost_usd": _r(a.avg_cost_usd), "failure_rate": _r(a.failure_rate), "n_runs": a.n_runs,
            "n_complete": a.n_complete, "infra_runs": a.infra_runs, "judge_incomplete": a.judge_incomplete,
            "disqualified": a.disqualified, "unisolated_runs": a.unisolated_runs,
            "errors": {"by_category": dict(a.errors.by_category), "total": a.errors.total,
                       "runs_with_errors": a.errors.runs_with_errors, "infrastructure": dict(a.errors.infrastructure)}}


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

def stage_css(rubric: Rubric) -> str:
    """Each stage's colour from the rubric, as the classes site.js puts on bars, stage labels and
    transcript calls (the stylesheet names no stage: docs/site.md "Stages come from the rubric").
    Ids and colours were checked by the rubric loader (`#rrggbb`), so they are safe in CSS."""
    rules = [f":root {{ {' '.join(f'--{sid}:{st.color};' for sid, st in rubric.stages.items())} }}"]
    for sid in rubric.stages:
        rules.append(f".bars span.{sid}, .stage-{sid} {{ background:var(--{sid}); }} "
                     f"details.call.{sid} {{ border-left-color:var(--{sid}); }}")
    return "/* written from scoring/rubric.yaml at build time */\n" + "\n".join(rules) + "\n"


def _copy_static(out: Path, rubric: Rubric | None = None) -> None:
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    for name in STATIC_FILES:
        data = resources.files("automedbench.report").joinpath("static", name).read_bytes()
        (assets / name).write_bytes(data)
    (assets / "stages.css").write_text(stage_css(rubric or load_rubric()), encoding="utf-8")


def run_row(r: DetailReport) -> dict:
    return {"run_id": r.run.run_id, "slug": run_slug(r.run.run_id), "agent": r.run.agent, "task": r.run.task,
            "tier": r.run.tier, "track": r.run.track, "overall": r.overall, "agentic": r.agentic,
            "task_score": r.task.score, "rating": r.rating or "—", "n_codes": sum(not e.infrastructure for e in r.errors),
            "codes": [e.code for e in r.errors], "turns": r.run.turns, "wall": r.run.wall_time_s,
            "status": run_status(r),
            "stages": {s: (r.stages[s].score if s in r.stages else None) for s in STAGES}}


def write_run_page(env: Environment, r: DetailReport, run_dir: Path | None, out: Path, common: dict,
                   rubric_items: dict[str, str], code_texts: dict[str, str], rubric: Rubric | None = None) -> Path:
    slug = run_slug(r.run.run_id)
    rubric = rubric or load_rubric()
    record = RunRecord(run_dir) if run_dir is not None else None   # each file read once for the page
    events = read_trace(record)
    conv = read_conversation(record)
    texts, replies, said = conversation_parts(conv)
    calls, span = calls_from_trace(events, texts, r.run.wall_time_s, replies)
    pictures = read_pictures(run_dir, out, slug)
    writers = case_writers(calls)
    cases, metric_names = case_rows(r, pictures, writers)
    plan_md = plan_png = None
    inspect_file = None
    if run_dir is not None:
        md, png = RunFiles(run_dir).plan_md, RunFiles(run_dir).plan_png
        try:
            if md.is_file() and not md.is_symlink():
                plan_md = md.read_text(encoding="utf-8", errors="replace")[:50_000]
            if png.is_file() and not png.is_symlink() and png.stat().st_size < 10_000_000:
                (out / "runs" / slug).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(png, out / "runs" / slug / png.name)
                plan_png = f"{slug}/{png.name}"
        except OSError:
            pass
        try:  # the run as an Inspect log, one click away (export.py)
            (out / "runs" / slug).mkdir(parents=True, exist_ok=True)
            (out / "runs" / slug / "inspect.json").write_text(json.dumps(inspect_log(record or Path(run_dir))), encoding="utf-8")
            inspect_file = f"{slug}/inspect.json"
        except (ExportError, OSError, ValueError):
            inspect_file = None
    judge = judge_rows(r, rubric_items, calls, plan_md is not None, plan_png is not None)
    errors = error_rows(r, calls, code_texts, writers)
    html = env.get_template("run.html.j2").render(
        **common, root="../", page="run", title=f"{r.run.agent} · {r.run.task} · {r.run.tier} · {r.run.run_id}",
        r=r, status=run_status(r), calls=calls, span=span, has_trace=bool(events),
        entries=transcript(events, calls, said), system_prompt=_content(conv.get("system_prompt"))[:100_000],
        errors=errors, cases=cases, metric_names=metric_names, points=points_lost(r, rubric, judge, errors, cases),
        n_pictured=sum(1 for c in cases if c["pictures"]),
        judge=judge,
        raw=raw_links(run_dir, out, slug, inspect_file), uncharged=uncharged_accesses(events),
        diag=task_diagnostics(r),
        plan_md=plan_md, plan_png=plan_png, task_slug=task_slug(r.run.task))
    page = out / "runs" / f"{slug}.html"
    page.write_text(html, encoding="utf-8")
    data = json.loads(r.model_dump_json())
    data["pictures"] = {cid: [dict(p, src="runs/" + p["src"]) for p in ps] for cid, ps in pictures.items()}
    data["slug"] = slug
    (out / "runs" / f"{slug}.js").write_text(f"AMB_RUN({tojson_safe(data)});\n", encoding="utf-8")
    return page


def installed_tasks(tasks_dirs: list[Path] | None = None) -> dict[str, Any]:
    """The task definitions this installation knows, with those in `tasks_dirs` (`report
    --tasks-dir`: a researcher's own tasks, docs/your-task.md), discovered once per site build."""
    try:
        return dict(discover(tasks_dirs))
    except Exception:  # noqa: BLE001 - boards then describe tasks from their runs only
        return {}


def task_about(task_id: str, reports: Sequence[DetailReport], tasks: dict[str, Any] | None = None) -> dict:
    """What a task board says about its task: title, description, dataset (task.yaml), the
    number of expected cases and the medal bands (from its runs' reports)."""
    about: dict[str, Any] = {"title": "", "description": "", "dataset": "", "case_unit": "", "cases": None, "bands": None}
    t = (tasks if tasks is not None else installed_tasks()).get(task_id)
    if t is not None:  # a task no longer installed: the board still renders from its runs
        about.update(title=t.title, description=t.description, dataset=t.dataset, case_unit=t.case_unit)
    counts = [len(r.task.per_case) - len(r.task.excluded_cases) for r in reports if r.task.per_case]
    if counts:
        about["cases"] = max(counts)
    bands = next((r.task.medal_bands for r in reports if r.task.medal_bands), None)
    about["bands"] = bands
    return about


def write_reference_pages(env: Environment, out: Path, common: dict, rubric: Rubric | None = None) -> None:
    """rubric.html, tiers.html and rules.html, generated from the YAML that owns each
    (scoring/rubric.yaml, prompts/tiers.yaml, scoring/error_codes.yaml): never a second copy."""
    rubric = rubric or load_rubric()
    stages = []
    for sid, st in rubric.stages.items():
        stages.append({"id": sid, "name": st.name, "weight": st.weight, "kind": st.kind, "judged": st.judged,
                       "not_applicable": st.not_applicable, "allowed": list(st.allowed),
                       "item_rows": [{"id": i, "text": t, "not_in": [ti for ti, ids in st.not_applicable.items() if i in ids]}
                                     for i, t in st.items.items()]})
    page = env.get_template("reference.html.j2")
    ids = list(rubric.stages)
    span = f"{ids[0].upper()}–{ids[-1].upper()}"
    (out / "rubric.html").write_text(page.render(
        **common, root="", page="rubric", title="Rubric: what each stage checks", subtitle=f"{span}, the items the judge scores",
        source="scoring/rubric.yaml", kind="rubric", stages=stages, rubric_version=rubric.version), encoding="utf-8")
    (out / "tiers.html").write_text(page.render(
        **common, root="", page="tiers", title="Tiers: how much help the agent gets", subtitle="same data, same metric",
        source="prompts/tiers.yaml", kind="tiers",
        tiers=yamlfile.safe_load(resources.files("automedbench.prompts").joinpath("tiers.yaml").read_text(encoding="utf-8"))), encoding="utf-8")
    table = error_table()
    codes = [{"code": c, "step": e.get("step", ""), "text": e.get("text", ""), "category": e.get("category", ""),
              "infrastructure": bool(e.get("infrastructure"))} for c, e in table["codes"].items()]
    cats = ["integrity"] + [c for c in table["categories"] if c != "integrity"]
    groups = [(cat, [c for c in codes if c.get("category") == cat]) for cat in cats]
    (out / "rules.html").write_text(page.render(
        **common, root="", page="rules", title="Rules and error codes", subtitle="what fires, what counts, what disqualifies",
        source="scoring/error_codes.yaml", kind="rules", code_groups=[g for g in groups if g[1]]), encoding="utf-8")


def write_site(reports: Sequence[DetailReport], out: Path, *, env: Environment, board: Leaderboard, common: dict,
               run_dirs: dict[str, Path] | None = None, rubric: Rubric | None = None,
               tasks_dirs: list[Path] | None = None) -> dict[str, Any]:
    """Pages other than index.html (which leaderboard.py renders with the same `common`);
    `rubric` (default scoring/rubric.yaml) names the stages and their items; `tasks_dirs`:
    folders of task definitions besides the installed ones (the task boards' title and dataset)."""
    rubric = rubric or load_rubric()
    _copy_static(out, rubric)
    for sub in ("runs", "tasks"):
        if (out / sub).is_dir():
            shutil.rmtree(out / sub)  # pages of runs no longer in the set
        (out / sub).mkdir(parents=True)
    rubric_items, code_texts = _rubric_items(rubric), error_code_texts()
    write_reference_pages(env, out, common, rubric)
    known_tasks = installed_tasks(tasks_dirs)
    for r in reports:
        write_run_page(env, r, (run_dirs or {}).get(r.run.run_id), out, common, rubric_items, code_texts, rubric)
    for t in board.tasks:
        rs = [r for r in reports if r.run.task == t]
        tiers = [ti for ti in board.tiers if any(r.run.tier == ti for r in rs)]
        groups = {ti: [g for g in board.groups if g.task == t and g.tier == ti] for ti in tiers}
        runs = {ti: [run_row(r) for r in sorted(rs, key=lambda r: (r.run.agent, r.run.run_id)) if r.run.tier == ti]
                for ti in tiers}
        html = env.get_template("task.html.j2").render(
            **common, root="../", page=f"task:{t}", title=f"{t} · AutoMedBench", task=t, about=task_about(t, rs, known_tasks),
            track=rs[0].run.track if rs else "", n_runs=len(rs), tiers=tiers, groups=groups, runs=runs,
            metrics=sorted({r.task.metric_name for r in rs}))
        (out / "tasks" / f"{task_slug(t)}.html").write_text(html, encoding="utf-8")
    compare_index = [{"id": r.run.run_id, "slug": run_slug(r.run.run_id), "agent": r.run.agent, "task": r.run.task,
                      "tier": r.run.tier, "label": agent_label(r.run.agent), "baseline": is_baseline(r.run.agent)}
                     for r in sorted(reports, key=lambda r: (r.run.task, r.run.tier, r.run.agent, r.run.run_id))]
    (out / "compare.html").write_text(env.get_template("compare.html.j2").render(
        **common, root="", page="compare", title="Compare runs · AutoMedBench",
        compare_data={"runs": compare_index, "stages": stage_data(rubric)},
        baseline_agents=sorted({r.run.agent for r in reports if is_baseline(r.run.agent)})), encoding="utf-8")
    return {"run_rows": [run_row(r) for r in sorted(reports, key=lambda r: (r.run.task, r.run.tier, r.run.agent, r.run.run_id))]}
