"""Scripted runs for the judge's experiments tests (docs/judge.md "Experiments"): agents whose
calls are the reference workflow with one step replaced, and one run of them through the real
loop and bwrap sandbox with the experiments' mode set. Shared by tests/test_judge_experiments*.py
and tests/test_plausibility_relations.py (a plain helper module: docs/testing.md "Layout")."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from automedbench.agents.base import AgentContext, AgentOutcome, ToolBox
from automedbench.agents.scripted import ReferenceAgent, _methods
from automedbench.api import run_one
from automedbench.runs.options import RunOptions
from automedbench.scoring.experiments import load_experiments
from automedbench.tasks import get_task

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap not installed (make sysdeps installs it)")

PLAN = ("python", "# S1 plan\nimport pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
                  "pathlib.Path('plan/plan.md').write_text('1. load\\n2. run method.py\\n3. save')\n")


class LookAgent(ReferenceAgent):
    """The reference workflow with its look at the pilot replaced by another (`LOOK`, a function
    of the agent's context giving (language, code))."""

    look = staticmethod(lambda context: ("python", "print('no look')"))

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        methods = _methods(context)
        self.call(tools, "python", "# S1 plan\nimport pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
                                   "pathlib.Path('plan/plan.md').write_text('1. load\\n2. run method.py\\n3. save')\n")
        self.call(tools, "python", methods.setup_code(context.data_dir))
        self.call(tools, "python", methods.pilot_code(context.data_dir))
        self.call(tools, *self.look(context))
        self.call(tools, "python", methods.batch_code(context.data_dir, careless=False))
        self.submit(tools)
        return AgentOutcome("submitted")


def look_agent(name: str, look) -> type:
    return type("Look_" + name.replace("-", "_"), (LookAgent,), {"name": name, "look": staticmethod(look)})


def steps_agent(name: str, steps) -> type:
    """A scripted agent whose calls are `steps(context, methods)`: (language, code) pairs."""

    class StepsAgent(ReferenceAgent):
        def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
            for language, code in steps(context, _methods(context)):
                self.call(tools, language, code)
            self.submit(tools)
            return AgentOutcome("submitted")

    return type("Steps_" + name.replace("-", "_"), (StepsAgent,), {"name": name})


def looks_after_pilot(looks):
    """Steps for `steps_agent`: the plan, the setup, a pilot, then `looks(context)` ((language,
    code) pairs), then the batch."""
    def steps(c, m):
        return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
                *looks(c), ("python", m.batch_code(c.data_dir, careless=False))]
    return steps


def run_scripted(task_id: str, agent: str, tmp_path: Path, monkeypatch, staged_once, mode: str = "all"):
    """One lite run of `agent` in bwrap with $AUTOMEDBENCH_EXPERIMENTS=`mode`: (report, experiments)."""
    monkeypatch.setenv("AUTOMEDBENCH_EXPERIMENTS", mode)
    staged_once(get_task(task_id).dataset, os.environ["AUTOMEDBENCH_DATA"])
    report = run_one(task_id, "lite", agent, tmp_path, RunOptions(sandbox="bwrap"))
    assert report.run.end_reason == "submitted", report.run
    experiments = load_experiments(report.run_dir)
    assert experiments is not None and experiments.error is None, experiments
    return report, experiments
