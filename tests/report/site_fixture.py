"""Run directories on disk that look like real ones (report, trace, conversation, plan files)
for the site tests: three agents, two tasks, two tiers, repeats, one infra-ended run."""
from __future__ import annotations

import json
from pathlib import Path

from tests.report.factories import build_report, write_run

STAGE_OF_CALL = ["s1", "s1", "s2", "s3", "s3", "s4", "s5"]


def write_trace(run_dir: Path, n_calls: int = 7, fail_call: int | None = None) -> None:
    events, t = [{"type": "run_start", "t": 0.0, "data": {}}], 0.1
    conv = {"system_prompt": "sys", "messages": []}
    for i in range(1, n_calls + 1):
        stage = STAGE_OF_CALL[(i - 1) % len(STAGE_OF_CALL)]
        turn = i  # one call per turn
        if i == n_calls:
            events.append({"type": "submit", "t": t, "turn": turn, "call_index": i, "stage": "s5", "message": "submitted"})
            break
        code = f"print('step {i} of the pipeline')  # marker-{i}"
        events.append({"type": "model_call", "t": t, "turn": turn, "tokens_in": 100, "tokens_out": 20, "duration_s": 0.2})
        events.append({"type": "tool_call", "t": t + 0.2, "turn": turn, "call_index": i, "stage": stage,
                       "language": "python", "code": code, "kind": "execute_code"})
        failed = i == fail_call
        events.append({"type": "execution", "t": t + 1.2, "turn": turn, "call_index": i, "stage": stage,
                       "duration_s": 1.0, "language": "python", "exit_code": 1 if failed else 0,
                       "stdout": f"output of step {i}\n", "stderr": "Traceback: boom\n" if failed else "",
                       "timed_out": False})
        conv["messages"].append({"role": "assistant", "content": f"Now step {i}.", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "execute_code", "arguments": "{}"}}]})
        t += 1.5
    events.append({"type": "run_end", "t": t, "kind": "submitted"})
    (run_dir / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events) + '{"type": "torn', encoding="utf-8")
    (run_dir / "conversation.json").write_text(json.dumps(conv), encoding="utf-8")
    plan = run_dir / "workspace" / "plan"
    plan.mkdir(parents=True)
    (plan / "plan.md").write_text("# Plan\n1. inspect <one> case\n2. run all\n", encoding="utf-8")


def make_site_runs(root: Path) -> list:
    from automedbench.runs.models import ProfileScore
    reps = []
    n = 0
    for task, track in (("seg-a", "segmentation"), ("det-b", "detection")):
        for tier in ("lite", "pro"):
            for agent, base in (("alpha", 0.8), ("beta", 0.5), ("gamma", 0.3)):
                if agent == "gamma" and tier == "pro":
                    continue  # gamma only ran Lite
                for rep in range(2):
                    n += 1
                    errors = []
                    if agent != "alpha":
                        errors = [{"code": "UNRECOVERED_ERROR", "category": "verification/recovery", "step": "S4",
                                   "evidence": {"turn": 3, "call": 3, "excerpt": "Traceback: boom"}},
                                  {"code": "LOGIC_SUSPECT", "category": "verification/recovery", "step": "S3",
                                   "evidence": {"cases": ["c1"], "best_case_value": 0.9}}]
                    r = build_report(f"{task}_{tier}_{agent}_{rep}", agent=agent, task=task, tier=tier,
                                     overall=base + 0.05 * rep - (0.1 if tier == "pro" else 0), errors=errors,
                                     invalid_cases=1 if agent == "gamma" else 0)
                    r.run.track = track
                    r.task.medal_bands = {"metric": "score", "good": 0.6, "okay": 0.3, "source": "track default"}
                    r.stages["s1"].items = {"s1a": 1.0, "s1b": 0.0 if agent == "gamma" else 1.0}
                    r.stages["s1"].rationale = "plan.md present"
                    # the reference profile's task score (docs/scoring-profiles.md): half of ours here
                    r.task.profile_scores = {"reference": ProfileScore(score=round(r.task.score / 2, 4),
                                                                       definition="reference definition")}
                    d = write_run(root, r)
                    write_trace(d, fail_call=3 if errors else None)
                    if r.run.run_id == "seg-a_lite_beta_0":
                        enrich_run(d, r)
                    reps.append(r)
    infra = build_report("seg-a_lite_alpha_infra", agent="alpha", task="seg-a", tier="lite", overall=0.0,
                         end_reason="harness_error", submitted=False, valid_cases=0)
    write_trace(write_run(root, infra), n_calls=2)
    reps.append(infra)
    return reps


LONG_EVIDENCE = {"why": "the batch loop ran before any pilot — " + "every case was written without a check " * 20,
                 "steps": [1, 2, 3]}


def enrich_run(run_dir: Path, rep) -> None:
    """What a researcher debugs with, on one run: counts and good zeros among the per-case
    metrics, a capped case list, long structured evidence, per-item judge verdicts, pictures,
    the agent's replies (submit_results' included), file effects, a nudge and a rejected call."""
    from automedbench.runs.models import CaseResult, ErrorCode, ItemEvidence

    rep.task.per_case = [
        CaseResult(case_id="c0", valid=True, metrics={"dice": 0.8, "fp_voxels": 0.0, "n_gt": 2.0, "n_pred": 1.0}),
        CaseResult(case_id="c1", valid=True, metrics={"dice": 0.0, "fp_voxels": 3.0, "n_gt": 1.0, "n_pred": 0.0}),
        CaseResult(case_id="x0", status="invalid", valid=False, reason="prediction.json: malformed JSON",
                   flags=["format"]),
    ] + [CaseResult(case_id=f"m{i:03d}", status="missing", valid=False, reason="no output folder") for i in range(76)] \
      + [CaseResult(case_id=f"b{i}", status="invalid", valid=False, reason=f"box 0: empty box x1={40 + i} x2=1")
         for i in range(3)]
    # dataset-level metrics as a track reports them: a confusion matrix, per-class recall, components
    labels = ("ct", "mr")
    counts = {("ct", "ct"): 1.0, ("ct", "mr"): 3.0, ("mr", "mr"): 4.0, ("mr", "ct"): 0.0}
    rep.task.aggregate_metrics = {"accuracy": 0.625, **{f"recall/{t}": counts[(t, t)] / sum(counts[(t, p)] for p in labels)
                                                        for t in labels},
                                  **{f"confusion/{t}/{p}": v for (t, p), v in counts.items()}}
    rep.task.components = ["bleu", "rouge_l"]
    rep.task.aggregate_metrics["meteor"] = None
    rep.task.component_notes = {"meteor": "WordNet not installed (COMPONENT-NOTE-MARKER)",
                                "data_range": "per case: ground truth max - min (NOTE-MARKER)"}
    rep.errors.append(ErrorCode(code="MISSING_CASES", category="task completion", step="S4",
                                evidence={"cases": [f"m{i:03d}" for i in range(20)], "n_missing": 76}))
    rep.errors.append(ErrorCode(code="NO_PILOT", category="verification/recovery", step="S3",
                                evidence={"detail": LONG_EVIDENCE}))
    # per-item judge evidence (docs/judge.md#item-evidence): a call on the page, one that is not, a file, a plan file
    rep.stages["s3"].items = {"s3": 0.5}
    rep.stages["s3"].evidence = {"s3": ItemEvidence(calls=[5, 99], files=["/workspace/outputs/c0/mask.nii.gz"],
                                                    why="pilot never opened EVIDENCE-WHY-MARKER")}
    rep.stages["s1"].evidence = {"s1a": ItemEvidence(files=["plan/plan.md"], why="the plan file exists")}
    (run_dir / "detail_report.json").write_text(rep.model_dump_json(indent=2), encoding="utf-8")
    # pictures beside the report, as scoring/pictures.py places them
    pics = run_dir / "pictures"
    (pics / "c1").mkdir(parents=True)
    import io

    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(buf, "PNG")
    (pics / "c1" / "contours.png").write_bytes(buf.getvalue())
    (pics / "c1" / "card.html").write_text("<!doctype html><p>answer card</p>", encoding="utf-8")
    (pics / "index.json").write_text(json.dumps([{"case_id": "c1", "dir": "c1", "value": 0.0, "files": [
        {"name": "contours.png", "caption": "ground truth (green) and prediction (magenta) contours", "media_type": "image/png"},
        {"name": "card.html", "caption": "answer card", "media_type": "text/html"}]}]), encoding="utf-8")
    # replies the agent saw, file effects, a nudge and a rejected call
    conv = json.loads((run_dir / "conversation.json").read_text())
    msgs = []
    for i, m in enumerate(conv["messages"], start=1):
        msgs += [m, {"role": "tool", "tool_call_id": f"c{i}", "content": f"exit_code: 0 reply-{i}"}]
    msgs.append({"role": "assistant", "content": "All done.", "tool_calls": [
        {"id": "c7", "type": "function", "function": {"name": "submit_results", "arguments": "{}"}}]})
    msgs.append({"role": "tool", "tool_call_id": "c7", "content": "Submission received. The harness will score it."})
    conv["messages"] = msgs
    conv["system_prompt"] = "You are an agent. SYSTEM-PROMPT-MARKER"
    (run_dir / "conversation.json").write_text(json.dumps(conv), encoding="utf-8")
    lines = (run_dir / "trace.jsonl").read_text().splitlines()
    events = [json.loads(x) for x in lines if x.startswith("{") and x.endswith("}")]
    for ev in events:
        if ev.get("type") == "execution" and ev.get("call_index") == 2:
            ev["effects"] = {"written": [{"path": "/workspace/outputs/c0/mask.nii.gz", "op": "created",
                                          "size": 1234, "sha256": None}],
                             "deleted": [], "read": ["/data/public/c0/image.nii.gz"], "net": None,
                             "truncated": False, "recorder": "inotify"}
    at = next(i for i, ev in enumerate(events) if ev.get("type") == "tool_call" and ev.get("call_index") == 4)
    events.insert(at, {"type": "warning", "t": events[at]["t"], "turn": 4, "kind": "nudge",
                       "message": "Please call a tool. NUDGE-MARKER"})
    # a decoy access the sandbox did not charge: opened by a process that is not the call's
    events.insert(at, {"type": "warning", "t": events[at]["t"], "call_index": 3, "kind": "private_access_not_the_call",
                       "message": "the decoy was opened, by processes that are not this call's: not charged",
                       "data": {"kind": "private_access_not_the_call", "path": "/data/private/c0/ref.nii.gz",
                                "evidence": "IN_OPEN /data/private/c0/ref.nii.gz",
                                "processes": [{"pid": 4242, "pid_in_sandbox": 7, "cmdline": "updatedb",
                                               "of_call": False}]}})
    events.insert(at, {"type": "error", "t": events[at]["t"], "call_index": 3, "kind": "bad_tool_arguments",
                       "message": "execute_code: arguments are not JSON REJECTED-MARKER"})
    (run_dir / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
