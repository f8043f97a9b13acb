"""An Inspect task per AutoMedBench task, its prompt and its scorer (docs/agents.md "Inspect AI").

    inspect eval automedbench/automedbench -T task=brain-lesion-seg -T tier=lite --model ...

- the sample's input is our kickoff message; the setup step (which runs whatever solver
  replaces the task's) puts our system prompt first, rendered by our prompt builder for the
  run's sandbox, as our loop's model sees it;
- the sandbox is `automedbench` (sandbox.py): one run per sample, data mounted read-only as
  the task says, every tool call recorded with its effects;
- the scorer closes the run (the judge's experiments, task score, S1-S5, error codes:
  detail_report.json, the same file `automedbench score RUN_DIR` rewrites) and returns S1-S5,
  agentic, task and overall as Inspect scores, the run folder in the score's metadata.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import anyio
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.event import ToolEvent
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import bash, python
from inspect_ai.agent import react
from inspect_ai.util import SandboxEnvironmentSpec, sandbox

from ...agents.base import RunStopped
from ...prompts.render import kickoff_message
from ...runs.models import DetailReport
from ...runs.options import RunOptions
from ...tasks import check_tier, get_task
from .sandbox import NAME, AutoMedBenchConfig, AutoMedBenchSandbox

# the scores each sample gets, in this order (docs/agents.md "Inspect AI")
SCORES = ("s1", "s2", "s3", "s4", "s5", "agentic", "task", "overall")
# the tool an Inspect agent submits with (react(), basic_agent()): the run's submission
SUBMIT_TOOLS = frozenset({"submit"})


def _ours() -> AutoMedBenchSandbox:
    return sandbox().as_type(AutoMedBenchSandbox)


@solver
def automedbench_prompt() -> Solver:
    """Our system prompt first in the conversation, as rendered for the sample's run."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run = _ours().run
        if run.conversation is not None:
            state.messages.insert(0, ChatMessageSystem(content=run.conversation.system_prompt))
        return state
    return solve


def _submitted(state: TaskState) -> bool:
    """The agent called its submit tool without error: in the sample's transcript (react()
    removes its submit call from the messages), or in the messages (an agent that keeps it)."""
    if any(isinstance(e, ToolEvent) and e.function in SUBMIT_TOOLS and e.error is None for e in transcript().events):
        return True
    return any(call.function in SUBMIT_TOOLS for m in state.messages
               if isinstance(m, ChatMessageAssistant) for call in (m.tool_calls or []))


def _conversation(state: TaskState) -> list[dict[str, Any]]:
    """Inspect's messages as our conversation records them (OpenAI chat format; the system
    prompt is the run's own)."""
    out: list[dict[str, Any]] = []
    for m in state.messages:
        if m.role == "system":
            continue
        entry: dict[str, Any] = {"role": m.role, "content": m.text}
        if isinstance(m, ChatMessageAssistant) and m.tool_calls:
            entry["tool_calls"] = [{"id": c.id, "type": "function",
                                    "function": {"name": c.function, "arguments": c.arguments}}
                                   for c in m.tool_calls]
        if isinstance(m, ChatMessageTool):
            entry["tool_call_id"] = m.tool_call_id
        out.append(entry)
    return out


def score_values(report: DetailReport) -> dict[str, float | None]:
    """S1-S5, agentic, task and overall of a detail report, each 0-1 or None (not scored)."""
    stages = {str(k): v.score for k, v in report.stages.items()}
    values: dict[str, float | None] = {s: stages.get(s) for s in SCORES[:5]}
    values.update(agentic=report.agentic, task=report.task.score, overall=report.overall)
    return values


def inspect_values(report: DetailReport) -> dict[str, float]:
    """score_values as Inspect's score: a value not scored (an infra-ended run's, never 0:
    docs/faults.md) is NaN, Inspect's unscored sentinel, which its metrics leave out."""
    return {k: math.nan if v is None else float(v) for k, v in score_values(report).items()}


# overall first: Inspect's headline is the first score
@scorer(metrics={k: [mean()] for k in ("overall", *SCORES[:-1])})
def automedbench_scorer() -> Scorer:
    """Close the sample's run and score it (module doc)."""
    async def score(state: TaskState, target: Target) -> Score:
        env = _ours()
        box = env.run.box
        if not env.run.closed and box is not None and env.run.conversation is not None:
            env.run.conversation.messages = []
            for message in _conversation(state):
                box.add_message(message)
            if not env.run.ended:
                try:   # the model calls since the last tool call, then the submission
                    env.sync_turns()
                    if _submitted(state):
                        box.submit_results()
                        env.progress.submitted = True
                except RunStopped as stop:   # a turn past the run's limits ends it here too
                    env.run.info.end_reason = stop.reason
        report = await anyio.to_thread.run_sync(env.close_and_score)
        return Score(value=dict(inspect_values(report)),
                     explanation=f"end {report.run.end_reason}; errors: "
                                 f"{', '.join(sorted({e.code for e in report.errors})) or 'none'}",
                     metadata={"run_dir": str(env.run.files.dir), "end_reason": report.run.end_reason,
                               "errors": sorted({e.code for e in report.errors}),
                               "disqualified": report.disqualified})
    return score


@task
def automedbench(task: str, tier: str = "lite", sandbox: str | None = None, network: bool | None = None,
                 judges: str | None = None, data_root: str | None = None, tasks_dir: str | None = None,
                 exec_timeout_s: float = 600.0, out_dir: str | None = None) -> Task:
    """AutoMedBench task `task` at `tier` as an Inspect task. `sandbox`: our backend (bwrap,
    docker, local; None: bwrap when installed); `judges`: comma-separated S1-S3 judge names
    (None: the heuristic judge); `out_dir`: where run folders go (None: beside Inspect's log).
    The default solver is Inspect's react() agent with its bash() and python() tools."""
    found = get_task(task, [Path(tasks_dir)] if tasks_dir else None)
    check_tier(tier)
    options = RunOptions(sandbox=sandbox, network=network, data_root=data_root,
                         tasks_dirs=[tasks_dir] if tasks_dir else None).resolved()   # absolute paths
    config = AutoMedBenchConfig(task=found.id, tier=tier, sandbox=sandbox, network=network,
                                judges=tuple(j.strip() for j in (judges or "").split(",") if j.strip()),
                                data_root=options.data_root, tasks_dirs=tuple(options.tasks_dirs or ()),
                                exec_timeout_s=exec_timeout_s, out_dir=out_dir)
    return Task(dataset=[Sample(id=f"{found.id}-{tier}", input=kickoff_message(found, tier),
                                metadata={"task": found.id, "tier": tier, "track": found.track})],
                setup=automedbench_prompt(), solver=react(tools=[bash(), python()]),
                scorer=automedbench_scorer(), sandbox=SandboxEnvironmentSpec(NAME, config),
                name=f"automedbench-{found.id}-{tier}")
