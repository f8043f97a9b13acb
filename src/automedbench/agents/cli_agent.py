"""CLI agents behind the model gateway (docs/agents.md "CLI agents behind the gateway").

An agent entry of `kind: cli` runs an agent's own command-line program INSIDE the sandbox, as one
long process, and answers its model requests through the gateway (gateway/): a Unix socket in a
folder bound read-only into the sandbox, reached over TCP through the forwarder on the sandbox's
own 127.0.0.1. The entry's key stays in the harness; the agent is given a placeholder.

The CLI supported today is mini-swe-agent's own `mini` (its CLI, DefaultAgent, LocalEnvironment and
trajectory file), with its OpenAI-compatible request model pointed at the gateway.

Its calls: every command it ran is recorded as one call, as our loop's `execute_code(bash)`. The
gateway sees the turn boundaries: reply k named the commands (its `bash` tool calls); request k+1
carries their results as the agent reports them; what the commands did to the files is what the
host observed between the two (the sandbox's effects recorder and decoy watcher, read at each
boundary). The last reply's commands have no next request: their results come from the agent's
own trajectory file, which its wrapper hands to the gateway when the agent has ended, and which
is also checked against the calls recorded (a mismatch is a warning in the trace).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from ..errors import InfrastructureError, UserError
from ..llm.client import ChatClient, ProviderError
from ..llm.registry import AgentConfig
from ..gateway import FORWARDER_SOURCE, ChatMeter, Gateway, GatewayRefusal
from ..gateway.meter import Metered
from ..sandbox import advisory, open_sandbox
from ..sandbox.base import ExecResult, SandboxError
from ..sandbox.isolated import charge   # the decoy's charge, as every isolating backend applies it
from ..sandbox.runtime import _closure, _copy_dists, _locked, cache_root, make_world_readable
from .base import AgentContext, AgentOutcome, RunStopped, ToolBox
from .mini_swe_agent import SUBMIT_COMMAND, SUBMIT_WORD, _SUBMIT_ALONE, load_mini, scaffold_settings
from .stage_labels import label
from .turns import TurnRules, Turns

NAME = "cli"
CLI = "mini-swe-agent"
INSIDE = "/opt/amb-gateway"            # the gateway's folder inside: socket, forwarder, settings
INSIDE_SITE = "/opt/amb-cli-agent"     # the CLI agent's installed packages, read-only
PORT = 18080                           # the forwarder's port on the sandbox's own loopback
SOCKET = "gateway.sock"
NO_WALL_LIMIT_S = 86400.0              # the CLI's whole run when the run has no wall-time limit
PLACEHOLDER_KEY = "amb-gateway-no-key"  # what the agent is given for a key: the real one stays outside
# what mini-swe-agent's CLI imports on its way (its declared dependencies less litellm, its default
# model library, which the gateway model replaces, and datasets/textual/openai, which only its
# benchmark runners and inspector import)
CLI_IMPORTS = ("jinja2", "platformdirs", "prompt-toolkit", "pydantic", "python-dotenv", "pyyaml", "requests",
               "rich", "tenacity", "typer")
_RC = re.compile(r"<returncode>(-?\d+)</returncode>")
_OUT = re.compile(r"<output>\n?(.*)</output>", re.S)

# mini-swe-agent's OpenAI-compatible request model (its OpenRouter model: requests, its tool-call
# parsing and format errors) with the URL and key from the environment the wrapper sets
GATEWAY_MODEL = '''
import os
from minisweagent.models.openrouter_model import OpenRouterModel


class GatewayModel(OpenRouterModel):
    def __init__(self, **kwargs):
        kwargs.setdefault("cost_tracking", "ignore_errors")
        super().__init__(**kwargs)
        self._api_url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
        self._api_key = os.environ.get("OPENAI_API_KEY", "")
'''


class CliAgentError(UserError, ValueError):
    """The CLI agent cannot be installed into the sandbox, or not in this sandbox (a user error)."""


def cli_install() -> Path:
    """mini-swe-agent and the packages its CLI imports, copied once from the harness's environment
    into a cache folder that is bound read-only into the sandbox (its default model library,
    litellm, is left out: the gateway model replaces it)."""
    try:
        dist = metadata.distribution("mini-swe-agent")
    except metadata.PackageNotFoundError:
        raise CliAgentError("kind: cli needs the mini-swe-agent package in the harness's environment "
                            "(docs/agents.md \"Installing\")") from None
    closure = _closure(CLI_IMPORTS)
    if closure is None:
        raise CliAgentError(f"kind: cli: a package mini-swe-agent's CLI imports is missing from the harness's "
                            f"environment ({', '.join(CLI_IMPORTS)}); pip install 'automedbench[mini-swe-agent]'")
    dists = {**closure, "mini-swe-agent": dist}
    key = hashlib.sha256(json.dumps(sorted((n, d.version) for n, d in dists.items())).encode()).hexdigest()[:12]
    root = cache_root() / "cli-agents" / f"mini-swe-agent-{key}"
    if (root / "site").is_dir():
        return root
    with _locked(root.with_name(root.name + ".lock")):
        if not (root / "site").is_dir():
            tmp = root.with_name(root.name + ".tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            (tmp / "site").mkdir(parents=True)
            _copy_dists(dists, tmp / "site")
            make_world_readable(tmp)
            tmp.rename(root)
    return root


def _quoted(text: str) -> str:
    """Our text inside a Jinja template of mini-swe-agent, shown as it is."""
    return "{% raw %}" + text.replace("{% endraw %}", "{% endraw %}{{ '{% endraw %}' }}{% raw %}") + "{% endraw %}"


def cli_settings(config: AgentConfig, system_prompt: str, context: AgentContext, timeout_s: float,
                 command_env: dict[str, str] | None = None) -> dict[str, Any]:
    """mini-swe-agent's YAML for its CLI: the same agent templates as kind mini-swe-agent (ours
    rendered in), our gateway model, its local environment in the workspace. `command_env` is set
    for each command it runs over what the CLI itself was given (its packages and the gateway's
    address are the CLI's, not the commands')."""
    settings = scaffold_settings(config, load_mini())
    agent = dict(settings.get("agent", {}))
    for key in ("system_template", "instance_template"):
        text = str(agent.get(key, ""))
        for var, value in (("system_prompt", system_prompt), ("workspace_dir", context.workspace_dir),
                           ("data_dir", context.data_dir), ("submit_command", SUBMIT_COMMAND)):
            shown = _quoted(value)
            text = re.sub(r"\{\{\s*" + var + r"\s*\}\}", shown.replace("\\", "\\\\"), text)
        agent[key] = text
    agent.update(agent_class="default", mode="yolo", confirm_exit=False)
    model = {**settings.get("model", {}), "model_class": "amb_gateway_model.GatewayModel",
             "model_name": config.model, "cost_tracking": "ignore_errors"}
    env = {"environment_class": "local", "cwd": context.workspace_dir, "timeout": int(max(1, timeout_s)),
           "env": {"OPENAI_BASE_URL": "", "OPENAI_API_KEY": "", **(command_env or {})}}
    return {"agent": agent, "model": model, "environment": env}


def wrapper_script(port: int = PORT) -> str:
    """The sandbox command: the forwarder, the agent's CLI, then its trajectory to the gateway."""
    sock = f"{INSIDE}/{SOCKET}"
    env = {"PYTHONPATH": f"{INSIDE_SITE}/site:{INSIDE}:${{PYTHONPATH:-}}", "MSWEA_GLOBAL_CONFIG_DIR": "/tmp/mini",
           "MSWEA_CONFIGURED": "true", "MSWEA_SILENT_STARTUP": "1", "MSWEA_COST_TRACKING": "ignore_errors",
           "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": PLACEHOLDER_KEY}
    exports = " ".join(f'{k}="{v}"' for k, v in env.items())
    return f"""export {exports}
mkdir -p /tmp/mini
python3 {INSIDE}/forwarder.py serve {port} {sock} > /tmp/mini/forwarder.log 2>&1 &
FWD=$!
for i in $(seq 100); do grep -q ready /tmp/mini/forwarder.log 2>/dev/null && break; sleep 0.05; done
python3 -m minisweagent.run.mini -c {INSIDE}/mini.yaml -t "$(cat {INSIDE}/task.txt)" -o /tmp/mini/trajectory.json \
  --exit-immediately -y > /tmp/mini/cli.log 2>&1
rc=$?
tail -c 4000 /tmp/mini/cli.log
python3 {INSIDE}/forwarder.py post {sock} /amb/upload/trajectory.json /tmp/mini/trajectory.json
kill $FWD 2>/dev/null
exit $rc
"""


@dataclass
class _Pending:
    """The commands of the reply the agent is acting on, and when the reply went out."""
    actions: list[tuple[str, str]]        # (tool_call_id, command)
    sent: float


class _Boundaries:
    """The harness's side of the turn boundaries: the calls of each reply, recorded when the next
    request (or the end) shows their results, with what the host observed in between."""

    def __init__(self, tools: ToolBox, box: Any, source: dict[str, Any]):
        self.tools, self.box, self.source = tools, box, source
        self.pending: _Pending | None = None
        self.seen = 0                     # request messages already in the conversation
        self.recorded: list[str] = []
        self.unavailable = ""             # why the last boundary's effects were not recorded

    def observed(self) -> tuple[dict[str, Any] | None, list[tuple[str, str]], Any]:
        """The effects and decoy events since the last boundary; the recorders start anew."""
        watcher, effects = self.box.watcher, self.box.effects
        events = watcher.drain()
        openers = watcher.take_openers()
        fx = None
        if effects is not None:
            try:
                fx = effects.end()
            except (OSError, SandboxError) as exc:   # as the backends do: the call records no effects
                self.unavailable = f"effects not recorded: {exc}"
            else:
                # the order's output positions are the agent process's, not the command's: none
                # kept (the judge reads the call as one piece: docs/judge.md "Order inside a call")
                fx["order"] = None
            effects.begin()
        return fx, events, openers

    def before(self, request: dict[str, Any]) -> None:
        messages = request["messages"]
        tools = self.tools
        if self.seen == 0 and messages:
            tools.conversation.system_prompt = str(messages[0].get("content") or "")
            self.seen = 1
            # what the CLI's start did is no command's: read, and recorded as a warning if anything
            fx, events, _ = self.observed()
            if events or (fx and (fx.get("written") or fx.get("deleted"))):
                tools.trace.emit("warning", turn=tools.turns, kind="cli_start_effects",
                                 message="the agent's CLI changed files or touched the decoy before its first "
                                         "request; charged to no call",
                                 data={"effects": fx, "decoy_events": [list(e) for e in events]})
        pending, self.pending = self.pending, None
        if pending is not None:
            fx, events, openers = self.observed()
            answers = {m.get("tool_call_id"): i for i, m in enumerate(messages)
                       if isinstance(m, dict) and m.get("role") == "tool"}
            duration = time.monotonic() - pending.sent
            for n, (call_id, command) in enumerate(pending.actions):
                last = n == len(pending.actions) - 1
                where = answers.get(call_id)
                text = str(messages[where].get("content") or "") if where is not None else ""
                result = _result(text, duration if last else 0.0, fx if last else None)
                if last:
                    charge(result, events, self.box.watcher.attributed, openers)
                    if self.unavailable:
                        result.warnings.append({"kind": "effects_unavailable", "message": self.unavailable})
                        self.unavailable = ""
                try:
                    note = self.record(command, result)
                except RunStopped as stop:
                    raise GatewayRefusal(stop.reason, "disqualified") from None
                if note and where is not None:   # the model sees the warning, as in our loop
                    messages[where] = {**messages[where], "content": f"{note}\n{text}"}
        for m in messages[self.seen:]:
            if isinstance(m, dict) and m.get("role") in ("user", "tool"):
                tools.add_message({k: m[k] for k in ("role", "content", "tool_call_id") if k in m})
        self.seen = len(messages)

    def replied(self, metered: Metered) -> None:
        message = metered.reply.message
        calls = message.get("tool_calls") or []
        out: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
        if calls:
            out["tool_calls"] = calls
        self.tools.add_message(out)
        self.seen += 1
        actions = []
        for c in calls:
            fn = c.get("function") if isinstance(c, dict) else None
            if isinstance(fn, dict) and fn.get("name") == "bash":
                try:
                    command = json.loads(fn.get("arguments") or "{}").get("command")
                except (ValueError, AttributeError):
                    command = None
                if isinstance(command, str):
                    actions.append((str(c.get("id")), command))
        self.pending = _Pending(actions, time.monotonic()) if actions else None

    def record(self, command: str, result: ExecResult) -> str:
        """One call of the agent, recorded as our loop records `execute_code(bash)` after it ran
        (agents/base.py): stage, effects, per-output checks, kept files, violation policy."""
        tools = self.tools
        tools.calls += 1
        self.recorded.append(command)
        stage, declared = label(command, tools.stage)
        tools.stage = stage
        tools.trace.emit("tool_call", turn=tools.turns, call_index=tools.calls, stage=stage, kind="execute_code",
                         language="bash", code=command, data={"stage_declared": declared, "source": self.source})
        result.warnings.extend(advisory.scan("bash", command))
        checks = tools._check_outputs(result)
        tools._keep_files(result)
        tools.trace.emit("execution", turn=tools.turns, call_index=tools.calls, stage=stage, language="bash",
                         exit_code=result.exit_code, duration_s=round(result.duration_s, 4), stdout=result.stdout,
                         stderr=result.stderr, timed_out=result.timed_out, effects=result.effects,
                         output_checks=checks)
        for w in result.warnings:
            tools.trace.emit("warning", call_index=tools.calls, kind=w.get("kind", "advisory"),
                             message=w.get("message", ""), data=w)
        tools.last_result = result
        return tools._apply_violations(result) if result.violations else ""

    def finish(self, final: ExecResult, trajectory: list[dict[str, Any]]) -> bool:
        """The last reply's commands, once the agent has ended: calls whose results come from its
        trajectory, and the submission. mini submits from inside a command (its output starts with
        the word), so the submitting command has no result in the trajectory but its exit message
        says Submitted: the command alone is our `submit_results()` only (as kind mini-swe-agent);
        with other work before the word it is a call too, with the rest of its output as mini
        kept it. Without a trajectory, the command alone still submits. Returns whether it did."""
        pending, self.pending = self.pending, None
        if pending is None:
            return False
        results = {m.get("tool_call_id"): m.get("extra") or {} for m in trajectory if m.get("role") == "tool"}
        ends = [m for m in trajectory if m.get("role") == "exit"]
        end = (ends[-1].get("extra") or {}) if ends else {}
        submitted = end.get("exit_status") == "Submitted" or (not trajectory and len(pending.actions) == 1
                                                                  and bool(_SUBMIT_ALONE.fullmatch(pending.actions[0][1])))
        for n, (call_id, command) in enumerate(pending.actions):
            last = n == len(pending.actions) - 1
            effects = {**final.effects, "order": None} if last and final.effects else None
            if call_id not in results and submitted:
                if not _SUBMIT_ALONE.fullmatch(command):
                    output = f"{SUBMIT_WORD}\n{end.get('submission') or ''}"
                    try:
                        self.record(command, ExecResult(0, output, "", final.duration_s, effects=effects,
                                                        violations=final.violations))
                    except RunStopped:
                        return False
                self.tools.submit_results()
                return True
            extra = results.get(call_id, {})
            rc = extra.get("returncode")
            result = ExecResult(int(rc) if rc is not None else -1, str(extra.get("raw_output", "")), "",
                                final.duration_s if last else 0.0, timed_out=final.timed_out if last else False,
                                violations=final.violations if last else [], effects=effects)
            try:
                self.record(command, result)
            except RunStopped:
                return False
        return False


def _write_folder(folder: Path, settings: dict[str, Any], task: str) -> None:
    """The gateway folder's files, readable by the sandbox's user: the forwarder, mini's gateway
    model, the CLI's settings and the task text (the socket joins them when the gateway starts)."""
    for name, text in (("forwarder.py", FORWARDER_SOURCE), ("amb_gateway_model.py", GATEWAY_MODEL),
                       ("mini.yaml", yaml.safe_dump(settings)), ("task.txt", task)):
        (folder / name).write_text(text)
        os.chmod(folder / name, 0o644)


def _result(text: str, duration: float, effects: dict[str, Any] | None) -> ExecResult:
    """A command's result as mini-swe-agent rendered it for the model (its observation template)."""
    rc = _RC.search(text)
    out = _OUT.search(text)
    # its local environment's time limit: the command was killed (subprocess.TimeoutExpired)
    timed_out = rc is not None and rc.group(1) == "-1" and "timed out after" in text[:rc.start()]
    return ExecResult(int(rc.group(1)) if rc else -1, out.group(1) if out else text, "", duration,
                      timed_out=timed_out, effects=effects)


def _trajectory(raw: bytes | None) -> list[dict[str, Any]]:
    try:
        data = json.loads(raw or b"")
    except ValueError:
        return []
    messages = data.get("messages") if isinstance(data, dict) else None
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


class CliAgent:
    """An agent entry of kind cli: the agent's CLI in the sandbox, its model behind the gateway."""

    def __init__(self, config: AgentConfig):
        self.config = config
        self.name = config.name
        self.model = config.model
        self.last_meter: ChatMeter | None = None

    def check_ready(self) -> None:
        self.config.check_ready(role="agent")
        scaffold_settings(self.config, load_mini())
        cli_install()

    def rules(self) -> TurnRules:
        lim = self.config.limits
        return TurnRules(max_turns=lim.max_turns, max_total_tokens=lim.max_total_tokens, max_cost_usd=lim.max_cost_usd)

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        cfg, sandbox = self.config, tools.sandbox
        spec = getattr(sandbox, "spec", None)
        if sandbox.name != "bwrap" or spec is None:
            # never the agent's fault: the run ends infra_error (docs/agents.md "Limits of this path")
            raise InfrastructureError(f"kind: cli runs its agent inside the bwrap sandbox (this run's is "
                                      f"{sandbox.name!r}): run it with --sandbox bwrap", detail="cli_needs_bwrap")
        mini = load_mini()
        install = cli_install()
        if cfg.limits.wall_time_s:
            own = time.monotonic() + cfg.limits.wall_time_s
            tools.deadline = own if tools.deadline is None else min(tools.deadline, own)
        # the CLI's whole run is bounded by the run's wall time (a day without one); each command
        # by the task's limit per execution, as each call of our loop (mini's own `timeout`)
        whole = NO_WALL_LIMIT_S if tools.deadline is None else max(1.0, tools.deadline - time.monotonic())
        per_command = min(spec.timeout_s, whole)
        source = {"scaffold": CLI, "version": mini.version, "action": "bash", "path": "cli-gateway",
                  "calls_from": "gateway"}
        tools.call_source = source
        # the turn boundary's checks are our loop's (agents/turns.py); Turns also opens the conversation
        turns = Turns(tools, system_prompt, context.kickoff, self.rules())
        tools.conversation.messages.clear()

        def on_retry(info: dict[str, Any]) -> None:
            tools.trace.emit("warning", turn=tools.turns, kind="provider_retry",
                             message=f"model request failed ({info['problem'][:200]}); retry "
                                     f"{info['attempt']} in {info['delay_s']:.2f} s", data=info)

        def failed(exc: ProviderError) -> None:
            if exc.reason == "wall_time":
                tools.trace.emit("warning", turn=tools.turns, kind="limit", message=exc.message)
                return
            tools.trace.emit("error", turn=tools.turns, kind="infrastructure", message=exc.message,
                             data={"reason": exc.reason, "fault": exc.fault, "status": exc.status,
                                   "attempts": exc.attempts, "model": cfg.model, "base_url": cfg.base_url})

        folder = Path(tempfile.mkdtemp(prefix="amb-gw-"))
        os.chmod(folder, 0o700)   # only the harness, then only the sandbox's user (below)
        client = ChatClient(cfg, on_retry=on_retry)
        box = None
        try:
            binds = [*spec.extra_ro_binds, (str(folder), INSIDE), (str(install), INSIDE_SITE)]
            box = open_sandbox(sandbox.name, replace(spec, extra_ro_binds=binds))
            # the commands get the sandbox's own PYTHONPATH back (the CLI's packages are on the CLI's)
            env_of = getattr(box, "env", None)
            inside_env: dict[str, str] = env_of() if callable(env_of) else {}
            # an empty task would make mini ask for one on its terminal
            _write_folder(folder, cli_settings(cfg, system_prompt, context, per_command,
                                               {"PYTHONPATH": inside_env.get("PYTHONPATH", "")}),
                          context.kickoff or " ")
            # the folder is the socket's gate: the sandbox's user (a root harness's dropped uid,
            # else the harness's own) may enter it, no other host user may reach the gateway
            owner = getattr(box, "drop_to", None)
            if owner is not None:
                os.chown(folder, owner, -1)
            bounds = _Boundaries(tools, box, source)

            def record(m: Metered) -> None:
                r = m.reply
                tools.record_model_call(tokens_in=r.tokens_in, tokens_out=r.tokens_out, cost_usd=m.cost_usd,
                                        duration_s=r.duration_s, tokens_cached=r.tokens_cached,
                                        finish_reason=r.finish_reason, attempts=r.attempts,
                                        usage_estimated=r.usage_estimated or None, scaffold=CLI, path="cli-gateway")
                bounds.replied(m)

            def at_limit() -> str | None:
                return turns.end if turns.at_limit() else None

            meter = ChatMeter(cfg, client, at_limit=at_limit, before=bounds.before, begin_turn=tools.begin_turn,
                              record=record, failed=failed, deadline=lambda: tools.deadline)
            self.last_meter = meter   # its counts outlive the run (bench/gateway_overhead.py reads them)
            gateway = Gateway(folder / SOCKET, cfg.model, meter)
            with gateway:
                final = box.execute("bash", wrapper_script(), timeout_s=whole)
            if meter.fault is not None:
                raise InfrastructureError(f"the gateway failed at a turn boundary: {type(meter.fault).__name__}: "
                                          f"{meter.fault}", detail="harness_error") from meter.fault
            if meter.requests == 0:
                # the CLI ended before its model was asked anything: no action of the model's, so
                # never the agent's fault (its settings, its packages, the forwarder)
                raise InfrastructureError(f"the agent's CLI ended before its first model request (exit "
                                          f"{final.exit_code}): {final.stdout[-1500:]}{final.stderr[-500:]}",
                                          detail="cli_failed")
            trajectory = _trajectory(gateway.uploads.get("trajectory.json"))
            submitted = meter.ended is None and bounds.finish(final, trajectory)
            self._check_trajectory(tools, bounds, trajectory, final)
        finally:
            client.close()
            if box is not None:
                box.close()
            shutil.rmtree(folder, ignore_errors=True)
        reason = ("disqualified" if tools.disqualified else "submitted" if submitted else meter.ended
                  or ("wall_time" if final.timed_out else "agent_finished"))
        return AgentOutcome(end_reason=reason, model=cfg.model)

    @staticmethod
    def _check_trajectory(tools: ToolBox, bounds: _Boundaries, trajectory: list[dict[str, Any]],
                          final: ExecResult) -> None:
        """The agent's own trajectory against the calls recorded from the gateway's view."""
        actions = [a.get("command") for m in trajectory if m.get("role") == "assistant"
                   for a in (m.get("extra") or {}).get("actions") or [] if isinstance(a, dict)]
        recorded = [c for c in bounds.recorded]
        if tools.submitted:
            recorded.append(SUBMIT_COMMAND)
        if not trajectory:
            tools.trace.emit("warning", turn=tools.turns, kind="cli_trajectory_missing",
                             message="the agent left no trajectory: its calls are the gateway's view only",
                             data={"exit_code": final.exit_code, "cli_log_tail": final.stdout[-2000:]})
        elif [a for a in actions if not _SUBMIT_ALONE.fullmatch(str(a))] != \
                [c for c in recorded if not _SUBMIT_ALONE.fullmatch(c)]:
            tools.trace.emit("warning", turn=tools.turns, kind="cli_trajectory_mismatch",
                             message="the agent's trajectory names other commands than the calls recorded",
                             data={"trajectory": actions[:50], "recorded": recorded[:50]})


__all__ = ["CliAgent", "CliAgentError", "cli_install", "cli_settings", "wrapper_script"]
