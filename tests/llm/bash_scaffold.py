"""The scripted replies both bash-only scaffold tests give (mini-swe-agent in our sandbox,
tests/llm/test_mini_swe_agent.py; its CLI behind the gateway, tests/llm/test_cli_gateway.py),
and the same calls as our own loop's replies, so the two paths can be compared call for call."""
from __future__ import annotations

from automedbench.agents import AgentContext
from automedbench.agents.mini_swe_agent import SUBMIT_COMMAND
from automedbench.tasks import get_task

from .fake_openai import call, completion, usage


def agent_context(task_id: str, tier: str) -> AgentContext:
    """What the agent is told inside bwrap (lifecycle/session.py builds it the same way)."""
    task = get_task(task_id)
    return AgentContext(task_id=task.id, tier=tier, data_dir="/data/public", workspace_dir="/workspace",
                        kickoff="", output_files=task.output_files, input_files=task.input_files, track=task.track,
                        track_options=task.options, candidates=list(task.tiers.standard.candidates),
                        target_keywords=list(task.target_keywords))


def as_bash(language: str, code: str) -> str:
    """A call as one bash command (the scaffold has bash only): Python through a here-document,
    under the call's own stage tag."""
    if language == "bash":
        return code
    tag = code.splitlines()[0] if code.lstrip().startswith("#") else "# python"
    return f"{tag}\npython3 - <<'AMB_PY'\n{code}\nAMB_PY"


def scripted_usage(i: int) -> dict:
    return usage(1000 + 100 * i, 50 + i, cached=500)


def loop_script(commands: list[str]) -> list[dict]:
    """Our loop's replies: each command through execute_code(bash), then submit_results."""
    return [completion(tool_calls=[call("execute_code", {"language": "bash", "code": c})], usage_=scripted_usage(i))
            for i, c in enumerate(commands)] + \
        [completion(tool_calls=[call("submit_results", {})], usage_=scripted_usage(len(commands)))]


def bash_tool_script(commands: list[str]) -> list[dict]:
    """mini-swe-agent's replies: each command through its bash tool, then its submit command."""
    return [completion(f"step {i}", tool_calls=[call("bash", {"command": c})], usage_=scripted_usage(i))
            for i, c in enumerate(commands)] + \
        [completion("done", tool_calls=[call("bash", {"command": SUBMIT_COMMAND})],
                    usage_=scripted_usage(len(commands)))]
