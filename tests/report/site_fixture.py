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
                    r.stages["s1"].items = {"s1a": 1.0, "s1b": 0.0 if agent == "gamma" else 1.0}
                    r.stages["s1"].rationale = "plan.md present"
                    d = write_run(root, r)
                    write_trace(d, fail_call=3 if errors else None)
                    reps.append(r)
    infra = build_report("seg-a_lite_alpha_infra", agent="alpha", task="seg-a", tier="lite", overall=0.0,
                         end_reason="harness_error", submitted=False, valid_cases=0)
    write_trace(write_run(root, infra), n_calls=2)
    reps.append(infra)
    return reps
