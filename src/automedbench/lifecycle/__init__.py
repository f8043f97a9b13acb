"""The run lifecycle: one package owns a run (docs/architecture.md "The run lifecycle").

    prep = prepare_run(task, tier, agent, options)     # user errors, before anything runs
    run = open_run(prep, tier, agent, run_dir, options) # records begun, sandbox up
    act(run)                 # the agent's policy is asked turn after turn (a scripted agent acts), or
    driver = RunDriver(run); driver.step(message)       # a caller hands one message at a time
    close_run(run)                                      # sandbox closed, records final
    report = score(run)                                 # detail_report.json

`run_one` is the five in a row; `sweep.run_sweep` runs many through it. The API and the CLI
call this package; it calls down into agents, sandbox, scoring and the judge.
"""
from .act import RunDriver, RunEndedError, StepResult, Usage, act
from .policy import SelfJudgeError, check_judge_ready, check_self_judge
from .prepare import Prepared, check_sweep, default_backend, ensure_dataset, prepare_run
from .run import rescore, run_one, score
from .session import OpenRun, close_run, open_run

__all__ = ["OpenRun", "Prepared", "RunDriver", "RunEndedError", "SelfJudgeError", "StepResult", "Usage",
           "act", "check_judge_ready", "check_self_judge", "check_sweep", "close_run", "default_backend",
           "ensure_dataset", "open_run", "prepare_run", "rescore", "run_one", "score"]
