"""mini-swe-agent's own scripted model drives our environment (issue 43, done when: "mini-swe-agent's
deterministic model"): its DefaultAgent with its DeterministicToolcallModel (mini-swe-agent's test
model, replies given in advance) and our SandboxEnvironment (each bash action one recorded call of
the run's ToolBox, agents/mini_swe_agent.py), in a run the lifecycle opens, closes and scores in
bwrap. The honest reference trajectory earns the task score and S1-S5 our loop earns for the same
commands (the loopback scripted server); the record names mini-swe-agent as the calls' source and
the run's scaffold. The only part of the test's own is the turn count around mini's model: its
scripted model asks no endpoint, so the test begins each turn on the ToolBox as our EndpointModel does."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from automedbench import api
from automedbench.agents import AgentContext, ToolBox
from automedbench.agents.base import AgentOutcome
from automedbench.agents.mini_swe_agent import SUBMIT_COMMAND, SandboxEnvironment, load_mini, scaffold_settings
from automedbench.agents.scripted import reference_calls
from automedbench.lifecycle import act, close_run, open_run, prepare_run, score
from automedbench.llm.registry import AgentConfig
from automedbench.runs.layout import new_run_id
from automedbench.runs.models import DetailReport
from automedbench.runs.trace import read_trace

from .bash_scaffold import agent_context, as_bash, loop_script

pytest.importorskip("minisweagent", reason="mini-swe-agent is not installed (make test installs it: docs/agents.md)")
from minisweagent.models.test_models import DeterministicToolcallModel, make_toolcall_output  # noqa: E402

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning")]

TASK, TIER = "brain-lesion-seg", "lite"


def _replies(commands: list[str]) -> list[dict[str, Any]]:
    """mini-swe-agent's scripted replies: each command through its bash tool, then its submit command."""
    out = []
    for i, command in enumerate([*commands, SUBMIT_COMMAND]):
        call_id = f"call_{i}"
        tool_call = {"id": call_id, "type": "function",
                     "function": {"name": "bash", "arguments": json.dumps({"command": command})}}
        out.append(make_toolcall_output(f"step {i}", [tool_call], [{"command": command, "tool_call_id": call_id}]))
    return out


class _Turns:
    """mini-swe-agent's DeterministicToolcallModel, each query one turn of the run's ToolBox."""

    def __init__(self, model: DeterministicToolcallModel, tools: ToolBox):
        self.model, self.tools = model, tools
        self.config = model.config

    def query(self, messages: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        self.tools.begin_turn()
        return self.model.query(messages, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)


class DeterministicMini:
    """The run's agent: mini-swe-agent's DefaultAgent, its scripted model, our environment."""
    name = "mini-deterministic"
    model = "deterministic_toolcall"

    def __init__(self, commands: list[str]):
        self.commands = commands
        self.exit: dict[str, Any] = {}

    def configuration(self) -> dict[str, Any]:
        return {"kind": "mini-swe-agent", "name": self.name, "model": self.model}

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        mini = load_mini()
        entry = AgentConfig(name=self.name, kind="mini-swe-agent", model=self.model, base_url="http://127.0.0.1:9/v1")
        settings = scaffold_settings(entry, mini)   # the built-in templates kind mini-swe-agent runs with
        tools.call_source = {"scaffold": "mini-swe-agent", "version": mini.version, "action": "bash"}
        model = _Turns(DeterministicToolcallModel(outputs=_replies(self.commands)), tools)
        env = SandboxEnvironment(tools, context, mini, 16000)
        self.exit = mini.default_agent(model, env, **settings["agent"]).run(task=context.kickoff,
                                                                            system_prompt=system_prompt)
        return AgentOutcome(end_reason="submitted" if self.exit.get("exit_status") == "Submitted" else "agent_finished",
                            model=self.model)


@pytest.fixture
def lesion_data(tmp_path, staged_once):
    root = tmp_path / "data"
    staged_once("mni-brain-lesion", root, n_cases=3)
    return root


@pytest.mark.slow
def test_the_reference_commands_earn_the_same_through_mini_swe_agents_deterministic_model(fake_openai, lesion_data,
                                                                                        tmp_path):
    commands = [as_bash(lang, code) for lang, code in reference_calls(agent_context(TASK, TIER))]
    cfg = tmp_path / "agents.yaml"
    cfg.write_text(f"agents:\n  - name: loop-fake\n    model: fake-coder\n    base_url: {fake_openai.url}\n"
                   "    retry: {max_retries: 0}\n")
    options = api.RunOptions(sandbox="bwrap", data_root=lesion_data, network=False, agent_configs=[cfg],
                             exec_timeout_s=120)
    fake_openai.push(*loop_script(commands))
    loop = api.run_one(TASK, TIER, "loop-fake", tmp_path / "loop", options)

    agent = DeterministicMini(commands)
    prep = prepare_run(TASK, TIER, agent, options)
    run_id = new_run_id(agent.name, TASK, TIER)
    run = open_run(prep, TIER, agent.name, tmp_path / "mini" / run_id, options, run_id)
    try:
        act(run)
    finally:
        close_run(run)
    mini: DetailReport = score(run)

    assert agent.exit.get("exit_status") == "Submitted"
    assert loop.run.end_reason == mini.run.end_reason == "submitted"
    assert loop.task.completion_rate == 1.0 and loop.task.score > 0.6 and loop.stages["s3"].score == 1.0
    assert mini.task.score == loop.task.score and mini.task.per_case == loop.task.per_case
    assert {s: (st.score, st.items) for s, st in mini.stages.items()} == \
        {s: (st.score, st.items) for s, st in loop.stages.items()}
    assert mini.agentic == loop.agentic and mini.overall == loop.overall
    assert {e.code for e in mini.errors} == {e.code for e in loop.errors}
    assert mini.run.turns == loop.run.turns == len(commands) + 1

    # the record: every call mini-swe-agent's, with the effects our loop's calls had
    run_dir = Path(run.files.dir)
    trace = read_trace(run_dir / "trace.jsonl")
    calls = [e for e in trace if e.type == "tool_call"]
    assert [e.code for e in calls] == commands
    assert all(e.data["source"]["scaffold"] == "mini-swe-agent" for e in calls)
    loop_execs = [e for e in read_trace(loop.run_dir / "trace.jsonl") if e.type == "execution"]
    execs = [e for e in trace if e.type == "execution"]
    assert [(e.stage, e.exit_code, sorted(w.path for w in e.effects.written)) for e in execs] == \
        [(e.stage, e.exit_code, sorted(w.path for w in e.effects.written)) for e in loop_execs]
    assert json.loads((run_dir / "run.json").read_text())["run"]["scaffold"] == mini.run.scaffold == "mini-swe-agent"
