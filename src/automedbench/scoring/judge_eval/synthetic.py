"""Synthetic long traces (seeded) for testing and benchmarking the judge digest: a struggling run
(failed installs, a pilot bug fixed, a long verbose cohort loop) with a marker string per stage.
Beside the judge, not in it: nothing here decides a verdict."""
from __future__ import annotations

import random

from ...run_files import WorkspaceNames
from ...runs.models import TraceEvent

MARKERS = {"s1": "PLAN_WRITTEN", "s2": "ModuleNotFoundError", "s3": "PILOT_SHAPE_OK",
           "s4": "CASE_DONE", "s5": "VERIFIED_ALL"}


def synthetic_trace(*, setup_calls: int = 20, cohort_calls: int = 60, log_chars: int = 6000,
                    seed: int = 0) -> list[TraceEvent]:
    rng = random.Random(seed)
    ev: list[TraceEvent] = []
    t = 0.0
    call = 0
    turn = 0

    def noise(n: int) -> str:
        words = ["loading", "tensor", "epoch", "volume", "spacing", "resample", "INFO", "cuda", "batch", "ok"]
        return " ".join(rng.choice(words) for _ in range(n // 6))

    def step(stage: str, lang: str, code: str, out: str, err: str = "", rc: int = 0) -> None:
        nonlocal t, call, turn
        turn += 1
        call += 1
        t += 1.0
        ev.append(TraceEvent(type="model_call", t=t, turn=turn, tokens_in=2000 + 50 * turn, tokens_out=300,
                             cost_usd=0.001, duration_s=1.0))
        ev.append(TraceEvent(type="tool_call", t=t, turn=turn, call_index=call, stage=stage,
                             kind="execute_code", language=lang, code=code))
        ev.append(TraceEvent(type="execution", t=t + 0.5, turn=turn, call_index=call, stage=stage, language=lang,
                             exit_code=rc, duration_s=0.5, stdout=out, stderr=err, timed_out=False))

    step("s1", "bash", "# S1\nls /data/public | head", "case_001\ncase_002\n" + noise(800))
    plan, outputs = WorkspaceNames.PLAN_MD, WorkspaceNames.OUTPUTS
    step("s1", "python", f"# S1\nopen('{plan}','w').write(PLAN)\nprint('PLAN_WRITTEN')",
         f"PLAN_WRITTEN {plan} (2 kB)")
    for i in range(setup_calls):
        if i % 7 == 3:
            step("s2", "python", f"# S2\nimport nnunetv2  # attempt {i}", "",
                 "Traceback (most recent call last):\n  File \"<string>\", line 2\n"
                 "ModuleNotFoundError: No module named 'nnunetv2'", rc=1)
        else:
            step("s2", "bash", f"# S2\npip install pkg{i}==1.{i}", noise(log_chars))
    step("s2", "python", "# S2\nimport torch; print(torch.cuda.is_available())", "True")
    step("s3", "python", "# S3\nseg = predict('case_001'); print(seg.shape, seg.max())",
         "(512, 512, 90) 0.0\n" + noise(log_chars // 2))
    step("s3", "python", "# S3\nassert seg.max() > 0", "", "AssertionError: empty mask (threshold bug)", rc=1)
    step("s3", "python", "# S3\nseg = predict('case_001', threshold=0.5); print('PILOT_SHAPE_OK', seg.shape)",
         "PILOT_SHAPE_OK (512, 512, 90) labels [0 1 2]")
    ev.append(TraceEvent(type="violation", t=t + 1, turn=turn, call_index=call, stage="s3", kind="private_access",
                         message="tried to read /data/private/case_001"))
    for i in range(cohort_calls):
        step("s4", "python", f"# S4\nfor c in cases[{i}::{cohort_calls}]: run(c)",
             noise(log_chars // 2) + f"\nCASE_DONE case_{i:03d}")
    step("s5", "bash", f"# S5\nls {outputs} | wc -l && python check.py", "VERIFIED_ALL 60/60 outputs valid")
    ev.append(TraceEvent(type="submit", t=t + 2, turn=turn + 1, call_index=call + 1, stage="s5"))
    ev.append(TraceEvent(type="run_end", t=t + 3, kind="submitted"))
    return ev
