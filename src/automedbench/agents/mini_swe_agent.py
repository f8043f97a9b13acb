"""mini-swe-agent in our sandbox (docs/agents.md "mini-swe-agent").

An agent entry of `kind: mini-swe-agent` runs mini-swe-agent's own loop (its `DefaultAgent`:
templates, step and cost limits, format errors, its way of ending) with two parts of ours:

- `SandboxEnvironment`, its Environment: each bash action is one `ToolBox.execute_code("bash",
  command)`, so it is recorded with its effects, stage, output checks and violation policy exactly
  as a bash call of our own loop; its submit command (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`
  alone) is our `submit_results()`, recorded as the submission and not run;
- `EndpointModel`, its Model: the entry's OpenAI-compatible endpoint through our ChatClient
  (retries, deadline, key read in the harness only), with tokens, cost and the entry's limits
  counted per request as our loop counts them.

mini-swe-agent is an optional package installed without its dependencies (it would pull litellm,
which this project does not use: docs/agents.md "Installing"); it is imported when such an agent
is checked or run.
"""
from __future__ import annotations

import json
import os
import platform
import re
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

from .. import yamlfile
from ..errors import UserError
from ..llm.client import ChatClient, ProviderError
from ..llm.registry import AgentConfig
from .base import AgentContext, AgentOutcome, ToolBox, clip_middle

NAME = "mini-swe-agent"
BUILTIN_SETTINGS = Path(__file__).with_name("mini_swe_agent.yaml")
SUBMIT_WORD = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
SUBMIT_COMMAND = f"echo {SUBMIT_WORD}"
# its submit action, as its prompts ask for it (alone in the call), quoted or not
_SUBMIT_ALONE = re.compile(r"\s*echo\s+(['\"]?)" + SUBMIT_WORD + r"\1\s*")
# the settings of its own YAML we take: the agent's, and the model's rendering templates
_SECTIONS = {"agent": None, "model": frozenset({"observation_template", "format_error_template"})}
_REFUSED = {"environment": "the environment is AutoMedBench's sandbox",
            "run": "the task comes from AutoMedBench (automedbench run --task)"}
# mini-swe-agent's exit statuses with an end reason of ours; any other (its step or cost limit,
# repeated format errors) ends the run agent_finished, the status kept as its detail
_EXITS = {"Submitted": "submitted", "TimeExceeded": "wall_time"}


class MiniSweAgentError(UserError, ValueError):
    """The package is missing or the scaffold's settings cannot be used (a user error)."""


@dataclass(frozen=True)
class _Mini:
    """The parts of mini-swe-agent we use, imported once it is needed."""
    version: str
    default_agent: Any
    agent_config: Any
    format_error: type[Exception]
    submitted: type[Exception]
    bash_tool: dict[str, Any]
    parse_actions: Any
    observations: Any


def load_mini() -> _Mini:
    """Import mini-swe-agent, or say how to install it."""
    # its import prints a banner to stdout unless told to be silent
    os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
    try:
        from minisweagent import __version__
        from minisweagent.agents.default import AgentConfig as MiniAgentConfig
        from minisweagent.agents.default import DefaultAgent
        from minisweagent.exceptions import FormatError, Submitted
        from minisweagent.models.utils.actions_toolcall import (
            BASH_TOOL,
            format_toolcall_observation_messages,
            parse_toolcall_actions,
        )
    except ImportError as exc:
        raise MiniSweAgentError(
            f"kind: mini-swe-agent needs the mini-swe-agent package ({exc}); install it without its "
            "dependencies: pip install --no-deps 'mini-swe-agent==2.4.6' python-dotenv platformdirs "
            "(docs/agents.md \"mini-swe-agent\")") from None
    return _Mini(__version__, DefaultAgent, MiniAgentConfig, FormatError, Submitted, BASH_TOOL,
                 parse_toolcall_actions, format_toolcall_observation_messages)


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = yamlfile.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise MiniSweAgentError(f"{path}: cannot read mini-swe-agent's settings: {exc}") from None
    if not isinstance(raw, dict):
        raise MiniSweAgentError(f"{path}: expected a mapping with 'agent:' and/or 'model:'")
    for key, value in raw.items():
        if key in _REFUSED:
            raise MiniSweAgentError(f"{path}: section '{key}' cannot be used here: {_REFUSED[key]}; remove it")
        if key not in _SECTIONS:
            raise MiniSweAgentError(f"{path}: unknown section '{key}'; only {', '.join(_SECTIONS)}")
        if not isinstance(value, dict):
            raise MiniSweAgentError(f"{path}: section '{key}' must be a mapping")
        allowed = _SECTIONS[key]
        extra = sorted(set(value) - allowed) if allowed is not None else []
        if extra:
            raise MiniSweAgentError(f"{path}: model setting(s) {extra} cannot be used here: the endpoint, "
                                    "sampling and limits are the agent entry's (temperature, max_tokens, "
                                    f"extra_body, limits); only {', '.join(sorted(allowed or ()))}")
    return raw


def scaffold_settings(config: AgentConfig, mini: _Mini) -> dict[str, dict[str, Any]]:
    """The built-in settings with the entry's file merged over them, checked by mini-swe-agent's
    own AgentConfig (a missing template or a bad limit is refused before the run)."""
    merged: dict[str, dict[str, Any]] = {k: dict(v) for k, v in _read(BUILTIN_SETTINGS).items()}
    if config.scaffold_config:
        for key, value in _read(Path(config.scaffold_config)).items():
            merged.setdefault(key, {}).update(value)
    try:
        mini.agent_config(**merged.get("agent", {}))
    except Exception as exc:   # noqa: BLE001 -- pydantic's error, as one line for the user
        where = config.scaffold_config or BUILTIN_SETTINGS
        raise MiniSweAgentError(f"{where}: section 'agent': {exc}".replace("\n", " ")) from None
    return merged


class SandboxEnvironment:
    """mini-swe-agent's Environment: its bash actions as recorded calls of the run's ToolBox."""

    def __init__(self, tools: ToolBox, context: AgentContext, mini: _Mini, result_chars: int):
        self.tools = tools
        self.context = context
        self.mini = mini
        self.result_chars = result_chars
        self.config = SimpleNamespace(cwd=context.workspace_dir)

    def execute(self, action: dict[str, Any], cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        """Run one action. `cwd` and `timeout` are mini-swe-agent's: each call starts in the
        workspace and runs under the task's time limit per execution (docs/agents.md)."""
        command = str(action.get("command", ""))
        if _SUBMIT_ALONE.fullmatch(command):
            self._submit()
        text = self.tools.execute_code("bash", command)
        result = self.tools.last_result
        if result is None:   # refused before it ran (a training call of an inference-only task)
            return {"output": "", "returncode": -1, "exception_info": text}
        output = clip_middle(result.stdout + result.stderr, self.result_chars)
        notes = [n for n in (self.tools.last_note, "TIMED OUT: the execution was killed at the time limit."
                             if result.timed_out else "") if n]
        out = {"output": output, "returncode": result.exit_code, "exception_info": "\n".join(notes)}
        lines = output.lstrip().splitlines()
        if lines and lines[0].strip() == SUBMIT_WORD and result.exit_code == 0:
            self._submit()   # its own rule: a call whose output starts with the word submits
        return out

    def _submit(self) -> None:
        self.tools.submit_results()
        raise self.mini.submitted({"role": "exit", "content": "",
                                   "extra": {"exit_status": "Submitted", "submission": ""}})

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {**platform.uname()._asdict(), "cwd": self.context.workspace_dir,
                "data_dir": self.context.data_dir, "workspace_dir": self.context.workspace_dir,
                "submit_command": SUBMIT_COMMAND, **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"config": {"environment": {"workspace_dir": self.context.workspace_dir},
                                    "environment_type": f"{__name__}.{type(self).__name__}"}}}


class _Ended(Exception):
    """Raised from a model query to end the run with `reason` (a limit, a provider fault)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class EndpointModel:
    """mini-swe-agent's Model: one chat request per query to the entry's endpoint, with its
    `bash` tool; each request is a turn of the ToolBox, counted and limited as our loop's."""

    def __init__(self, config: AgentConfig, client: ChatClient, tools: ToolBox, mini: _Mini,
                 settings: dict[str, Any]):
        self.entry = config
        self.client = client
        self.tools = tools
        self.mini = mini
        self.config = SimpleNamespace(model_name=config.model, **settings)
        self._opened = False

    def _limit(self) -> str | None:
        lim, tools = self.entry.limits, self.tools
        if lim.max_turns is not None and tools.turns >= lim.max_turns:
            return "max_turns"
        if lim.max_total_tokens is not None and tools.tokens_in + tools.tokens_out >= lim.max_total_tokens:
            return "max_tokens"
        if lim.max_cost_usd is not None and tools.cost_usd >= lim.max_cost_usd:
            return "max_cost"
        return None

    def query(self, messages: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        tools = self.tools
        reason = self._limit()
        if reason:
            tools.trace.emit("warning", turn=tools.turns, kind="limit", message=f"run limit reached: {reason}",
                             data={"tokens": tools.tokens_in + tools.tokens_out, "cost_usd": tools.cost_usd})
            raise _Ended(reason)
        tools.begin_turn()
        if not self._opened:   # the system message and task as mini-swe-agent rendered them
            self._opened = True
            tools.conversation.system_prompt = str(messages[0].get("content") or "")
            tools.add_message({"role": "user", "content": messages[1].get("content")})
        wire = [{k: v for k, v in m.items() if k != "extra"} for m in messages]
        try:
            reply = self.client.complete(wire, tools=[self.mini.bash_tool], deadline=tools.deadline)
        except ProviderError as exc:
            if exc.reason == "wall_time":
                tools.trace.emit("warning", turn=tools.turns, kind="limit", message=exc.message)
            else:
                tools.trace.emit("error", turn=tools.turns, kind="infrastructure", message=exc.message,
                                 data={"reason": exc.reason, "fault": exc.fault, "status": exc.status,
                                       "attempts": exc.attempts, "model": self.entry.model,
                                       "base_url": self.entry.base_url})
            raise _Ended(exc.reason) from None
        cost = self.entry.pricing.cost(reply.tokens_in, reply.tokens_out, reply.tokens_cached)
        tools.record_model_call(tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, cost_usd=cost,
                                duration_s=reply.duration_s, tokens_cached=reply.tokens_cached,
                                finish_reason=reply.finish_reason, attempts=reply.attempts,
                                usage_estimated=reply.usage_estimated or None, scaffold=NAME)
        # content "" beside tool calls, never null (some servers refuse null: agents/replies.py)
        message: dict[str, Any] = {"role": "assistant", "content": reply.message.get("content") or ""}
        calls = reply.message.get("tool_calls") or []
        if calls:
            message["tool_calls"] = calls
        tools.add_message(message)
        extra = {"cost": cost, "timestamp": time.time()}
        try:
            actions = self.mini.parse_actions(
                [_call(c) for c in calls], format_error_template=self.config.format_error_template,
                template_kwargs={"finish_reason": reply.finish_reason})
        except self.mini.format_error as exc:
            self._refused(exc, calls, extra)
            raise
        return {**message, "extra": {"actions": actions, **extra}}

    def _refused(self, exc: Any, calls: list[Any], extra: dict[str, Any]) -> None:
        """A reply mini-swe-agent cannot act on: its answer to the model is recorded, as our loop
        records a refused call (tool_call_rejected)."""
        answer = exc.messages[0]
        answer.setdefault("extra", {}).update(extra)
        self.tools.trace.emit("warning", turn=self.tools.turns, stage=self.tools.stage, kind="tool_call_rejected",
                              message=str(answer.get("content", ""))[:600],
                              data={"form": "tool_calls", "tool": None, "scaffold": NAME,
                                    "excerpt": json.dumps(calls)[:600]})
        self.tools.add_message({"role": "user", "content": answer.get("content", "")})

    def format_message(self, **kwargs: Any) -> dict[str, Any]:
        return dict(kwargs)

    def format_observation_messages(self, message: dict[str, Any], outputs: list[dict[str, Any]],
                                    template_vars: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = self.mini.observations(
            actions=message.get("extra", {}).get("actions", []), outputs=outputs,
            observation_template=self.config.observation_template, template_vars=template_vars)
        for r in results:
            self.tools.add_message({k: v for k, v in r.items() if k != "extra"})
        return results

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {**vars(self.config), **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"config": {"model": {"model_name": self.entry.model, "base_url": self.entry.base_url},
                                    "model_type": f"{__name__}.{type(self).__name__}"}}}


def _call(wire: Any) -> Any:
    """A tool call as mini-swe-agent's parser reads it (attributes, as the SDK's objects have)."""
    if not isinstance(wire, dict):
        return SimpleNamespace(id=None, function=SimpleNamespace(name=None, arguments=None))
    raw = wire.get("function")
    fn: dict[str, Any] = raw if isinstance(raw, dict) else {}
    return SimpleNamespace(id=wire.get("id"), function=SimpleNamespace(name=fn.get("name"),
                                                                       arguments=fn.get("arguments")))


class MiniSweAgent:
    """An agent entry of kind mini-swe-agent: its loop, our sandbox, our endpoint client."""

    def __init__(self, config: AgentConfig):
        self.config = config
        self.name = config.name
        self.model = config.model

    def check_ready(self) -> None:
        """Unset key variables, a missing package, or settings it refuses: user errors, now."""
        self.config.check_ready(role="agent")
        scaffold_settings(self.config, load_mini())

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        cfg, mini = self.config, load_mini()
        settings = scaffold_settings(cfg, mini)
        if cfg.limits.wall_time_s:
            own = time.monotonic() + cfg.limits.wall_time_s
            tools.deadline = own if tools.deadline is None else min(tools.deadline, own)
        tools.call_source = {"scaffold": NAME, "version": mini.version, "action": "bash"}

        def on_retry(info: dict[str, Any]) -> None:
            tools.trace.emit("warning", turn=tools.turns, kind="provider_retry",
                             message=f"model request failed ({info['problem'][:200]}); retry "
                                     f"{info['attempt']} in {info['delay_s']:.2f} s", data=info)

        client = ChatClient(cfg, on_retry=on_retry)
        model = EndpointModel(cfg, client, tools, mini, settings.get("model", {}))
        env = SandboxEnvironment(tools, context, mini, cfg.tool_result_chars)
        agent = mini.default_agent(model, env, **settings.get("agent", {}))
        try:
            exit_info = agent.run(task=context.kickoff, system_prompt=system_prompt)
        except _Ended as ended:
            return AgentOutcome(end_reason=ended.reason, model=cfg.model)
        finally:
            client.close()
        status = str(exit_info.get("exit_status", ""))
        return AgentOutcome(end_reason=_EXITS.get(status, f"{NAME}: {status or 'ended'}"), model=cfg.model)


__all__ = ["MiniSweAgent", "MiniSweAgentError", "SandboxEnvironment", "EndpointModel", "load_mini",
           "scaffold_settings"]
