"""Inspect AI's sandbox provider `automedbench` (docs/agents.md "Inspect AI").

Each Inspect sample opens one AutoMedBench run (lifecycle open_run: run.json, trace, our bwrap,
Docker or local sandbox with the task's data mounted read-only) in `sample_init`, and every
`exec`, `read_file` and `write_file` of Inspect's tools is one `ToolBox.execute_code` call of
that run: recorded with its effects, stage, per-output checks and the violation policy exactly
as a call of our own loop. Inspect's model calls are recorded as the run's model turns when the
next call (or the scorer) sees them. The scorer (scorer.py) closes and scores the run; a sample
that never reached it is closed here at cleanup.
"""
from __future__ import annotations

import base64
import binascii
import secrets
import shlex
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal, overload

import anyio
from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.log._samples import sample_active
from inspect_ai.util import (
    ExecResult,
    LimitExceededError,
    OutputLimitExceededError,
    SandboxEnvironment,
    SandboxEnvironmentConfigType,
    SandboxUserUnsupportedError,
    sandboxenv,
)
from inspect_ai.util._sandbox.environment import RootAccess
from pydantic import BaseModel

from ...agents.base import RunStopped, ToolBox
from ...lifecycle import OpenRun, close_run, open_run, prepare_run, score
from ...runs.layout import new_run_id
from ...runs.models import DetailReport
from ...runs.options import RunOptions

NAME = "automedbench"
SCAFFOLD = "inspect-ai"
# Inspect's own bash() and python() tools run these; each becomes one call of that language
_BASH_PREFIXES = (["bash", "--login", "-c"], ["bash", "-c"], ["/bin/bash", "-c"], ["sh", "-c"], ["/bin/sh", "-c"])
_PYTHON_STDIN = ("python3 -", "python -")


def _inspect_version() -> str:
    try:
        return version("inspect_ai")
    except PackageNotFoundError:   # pragma: no cover - it is imported above
        return "unknown"


class AutoMedBenchConfig(BaseModel, frozen=True):
    """The sandbox's configuration, as the Inspect task (task.py) sets it: which AutoMedBench
    task and tier the sample runs, the run options (runs/options.py: sandbox backend, network,
    judges, data, time limit per call) and where the run folder goes (None: beside Inspect's
    log). Frozen and flat: Inspect keeps configurations in a set."""
    task: str
    tier: str = "lite"
    sandbox: str | None = None
    network: bool | None = None
    judges: tuple[str, ...] = ()
    data_root: str | None = None
    tasks_dirs: tuple[str, ...] = ()
    exec_timeout_s: float = 600.0
    out_dir: str | None = None

    def run_options(self) -> RunOptions:
        return RunOptions(sandbox=self.sandbox, network=self.network, judges=list(self.judges) or None,
                          data_root=self.data_root, tasks_dirs=list(self.tasks_dirs) or None,
                          exec_timeout_s=self.exec_timeout_s)


@dataclass
class InspectAgent:
    """The agent of the run as run.json records it: Inspect's model behind Inspect's solver
    (docs/agents.md "Inspect AI", what is recorded)."""
    model: str | None
    solver: str | None = None
    name: str = SCAFFOLD

    def configuration(self) -> dict[str, Any]:
        return {"kind": SCAFFOLD, "name": self.name, "model": self.model, "solver": self.solver,
                "inspect_ai": _inspect_version()}

    def run(self, system_prompt: str, context: Any, tools: ToolBox) -> Any:
        raise RuntimeError("an Inspect AI run is driven by Inspect (inspect eval), not by the lifecycle's act()")


@dataclass
class _Progress:
    model_events: set[str] = field(default_factory=set)   # Inspect's model events already recorded as turns
    submitted: bool = False


def _run_folder(config: AutoMedBenchConfig, run_id: str) -> Path:
    """`out_dir/<run id>`, else `<Inspect's log folder>/automedbench/<run id>` (a local log
    folder; else ./runs)."""
    if config.out_dir:
        return Path(config.out_dir) / run_id
    active = sample_active()
    where = active.log_location if active is not None else ""
    if where and "://" not in where:
        return Path(where).resolve().parent / NAME / run_id
    return Path("runs") / run_id


@sandboxenv(name=NAME)
class AutoMedBenchSandbox(SandboxEnvironment):
    """One AutoMedBench run seen as an Inspect sandbox (module doc)."""

    # the agent runs as the sandbox's own unprivileged user: Inspect's root probe is answered
    # without a call (a probe would be a recorded call the agent never made)
    _root_access = RootAccess("unusable", "AutoMedBench sandboxes run commands as one unprivileged user")

    def __init__(self, run: OpenRun) -> None:
        super().__init__()
        self.run = run
        self.progress = _Progress()
        self.report: DetailReport | None = None
        self._lock = anyio.Lock()   # calls run one at a time, each recorded whole

    # ---- the lifecycle -----------------------------------------------------------------------
    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return AutoMedBenchConfig(**config)

    @classmethod
    async def sample_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                          metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        if not isinstance(config, AutoMedBenchConfig):
            raise ValueError("the automedbench sandbox is configured by its Inspect task "
                             "(automedbench/automedbench -T task=ID -T tier=TIER): docs/agents.md \"Inspect AI\"")
        active = sample_active()
        agent = InspectAgent(model=active.model if active is not None else None,
                             solver=active.agent_name if active is not None else None)
        options = config.run_options()
        prep = await anyio.to_thread.run_sync(prepare_run, config.task, config.tier, agent, options)
        run_id = new_run_id(SCAFFOLD, prep.task.id, config.tier)
        where = _run_folder(config, run_id)
        run = await anyio.to_thread.run_sync(lambda: open_run(prep, config.tier, SCAFFOLD, where, options, run_id))
        if run.box is not None:
            run.box.call_source = {"scaffold": SCAFFOLD, "version": _inspect_version(), "action": "exec"}
        return {"default": cls(run)}

    @classmethod
    async def sample_cleanup(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                             environments: dict[str, SandboxEnvironment], interrupted: bool) -> None:
        """A sample that never reached the scorer (an error, a cancellation) still leaves a
        closed, scored run folder: ended `interrupted` when Inspect cancelled it, else as the
        harness's fault (infra_error), never the agent's."""
        for env in environments.values():
            if isinstance(env, AutoMedBenchSandbox) and not env.run.closed:
                info = env.run.info
                if info.end_reason is None:
                    info.end_reason = "interrupted" if interrupted else "infra_error"
                    info.end_detail = "inspect_cancelled" if interrupted else "inspect_sample_error"
                    env.run.trace.emit("error", kind="interrupted" if interrupted else "infrastructure",
                                       message="Inspect ended the sample before its scorer ran")
                await anyio.to_thread.run_sync(env.close_and_score)

    def close_and_score(self) -> DetailReport:
        """Close the run (sandbox down, records final, the judge's experiments) and score it
        (task score, S1-S5, error codes: detail_report.json). Once."""
        if self.report is None:
            run = self.run
            if run.info.end_reason is None:
                run.info.end_reason = "submitted" if self.progress.submitted else "agent_finished"
            close_run(run)
            self.report = score(run)
        return self.report

    # ---- Inspect's model turns ------------------------------------------------------------------
    def sync_turns(self) -> None:
        """Record each model call Inspect made since the last look as one turn of the run
        (tokens and cost as Inspect counted them). A turn past the run's turn or time limit
        ends the run (RunStopped)."""
        box = self.run.box
        if box is None:
            return
        for event in list(transcript().events):
            if not isinstance(event, ModelEvent) or event.pending:
                continue
            key = event.uuid or f"object-{id(event)}"   # the transcript gives each event its uuid
            if key in self.progress.model_events:
                continue
            self.progress.model_events.add(key)
            box.begin_turn()
            usage = event.output.usage if event.output is not None else None
            box.record_model_call(
                tokens_in=usage.input_tokens if usage else 0, tokens_out=usage.output_tokens if usage else 0,
                cost_usd=float(usage.total_cost or 0.0) if usage else 0.0,
                duration_s=float(event.working_time or 0.0),
                tokens_cached=usage.input_tokens_cache_read if usage else None,
                scaffold=SCAFFOLD, model=event.model,
                finish_reason=event.output.stop_reason if event.output is not None else None)

    def _ended(self) -> LimitExceededError:
        """Inspect told that the run has ended: the sample stops at a `custom` limit, as at one
        of Inspect's own (its task group cancelled, the scorer still runs), and the error the
        call raises says why."""
        error = LimitExceededError("custom", value=1, limit=1,
                                   message=f"AutoMedBench ended the run: {self.run.info.end_reason}")
        active = sample_active()
        if active is not None and active.tg is not None:
            active.limit_exceeded(error)
        return error

    async def _call(self, language: str, code: str, action: str) -> Any:
        """One recorded call of the run's ToolBox; its sandbox result (None: refused unrun), the
        harness's note on it and the text our loop would show. The run ended under the agent (a
        limit, a disqualification: RunStopped, recorded as lifecycle/policy.py faults_recorded
        records it) ends the sample."""
        run, box = self.run, self.run.box
        if box is None or run.ended:
            raise self._ended()
        async with self._lock:
            try:
                self.sync_turns()
                box.call_source = {"scaffold": SCAFFOLD, "version": _inspect_version(), "action": action}
                text = await anyio.to_thread.run_sync(box.execute_code, language, code)
            except RunStopped as stop:
                run.info.end_reason = stop.reason
                raise self._ended() from None
            return box.last_result, box.last_note, text

    # ---- the three calls -----------------------------------------------------------------------
    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        if user is not None:
            raise SandboxUserUnsupportedError(f"the automedbench sandbox runs every call as its one user, not {user!r}")
        language, code = as_call(cmd, input, cwd, env)
        result, note, text = await self._call(language, code, "exec")
        if result is None:   # refused before it ran (training code in an inference-only task)
            return ExecResult(False, 1, "", text)
        if result.timed_out:
            raise TimeoutError(f"the call was killed at the task's time limit ({result.duration_s:.0f} s)")
        stderr = result.stderr + (("\n" if result.stderr else "") + note if note else "")
        return ExecResult(result.exit_code == 0, result.exit_code, result.stdout, stderr)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        path = shlex.quote(file)
        code = (f"if [ -d {path} ]; then echo 'is a directory' >&2; exit 21; fi; "
                f"base64 -w0 -- {path}")
        result, note, shown = await self._call("bash", code, "read_file")
        if result is None:
            raise PermissionError(shown)
        _raise_for(result.exit_code, result.stderr + note, file)
        cap = self.run.spec.output_cap
        if len(result.stdout.encode()) >= cap or "characters elided" in result.stdout:
            raise OutputLimitExceededError(limit_str=f"{cap * 3 // 4} bytes", truncated_output=None)
        try:
            data = base64.b64decode(result.stdout.strip(), validate=True)
        except binascii.Error as exc:
            raise OutputLimitExceededError(limit_str=f"{cap * 3 // 4} bytes", truncated_output=None) from exc
        return data.decode("utf-8") if text else data

    async def write_file(self, file: str, contents: str | bytes) -> None:
        data = contents.encode("utf-8") if isinstance(contents, str) else contents
        path, end = shlex.quote(file), _delimiter("AMB_B64")
        body = base64.encodebytes(data).decode()
        code = (f"if [ -d {path} ]; then echo 'is a directory' >&2; exit 21; fi; "
                f"mkdir -p -- \"$(dirname -- {path})\" && base64 -d > {path} <<'{end}'\n{body}{end}")
        result, note, shown = await self._call("bash", code, "write_file")
        if result is None:
            raise PermissionError(shown)
        _raise_for(result.exit_code, result.stderr + note, file)


def _raise_for(exit_code: int, stderr: str, file: str) -> None:
    """A failed read or write as the exception Inspect's API names."""
    if exit_code == 0:
        return
    if exit_code == 21 or "Is a directory" in stderr:
        raise IsADirectoryError(f"{file}: is a directory")
    if "No such file" in stderr:
        raise FileNotFoundError(f"{file}: no such file")
    raise PermissionError(f"{file}: {stderr.strip()[:400] or f'exit status {exit_code}'}")


def _delimiter(word: str) -> str:
    return f"{word}_{secrets.token_hex(4)}"


def as_call(cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
            env: dict[str, str] | None = None) -> tuple[str, str]:
    """Inspect's exec request as (language, code) of one call of ours: its bash() tool's
    `bash --login -c CMD` is bash CMD, its python() tool's `bash --login -c 'python3 -'` with the
    code on stdin is python CODE, so the trace holds what the model wrote; anything else is
    one bash command line (stdin as a here-document, cwd and env as its first commands)."""
    if not cwd and not env:
        for prefix in _BASH_PREFIXES:
            if cmd[:len(prefix)] == prefix and len(cmd) == len(prefix) + 1:
                if input is None:
                    return "bash", cmd[-1]
                if cmd[-1].strip() in _PYTHON_STDIN and isinstance(input, str):
                    return "python", input
        if len(cmd) == 3 and cmd[0] in ("python3", "python") and cmd[1] == "-c" and input is None:
            return "python", cmd[2]
    line = shlex.join(cmd)
    if input is not None:
        raw = input.encode("utf-8") if isinstance(input, str) else input
        end = _delimiter("AMB_IN")
        line = f"base64 -d <<'{end}' | {line}\n{base64.encodebytes(raw).decode()}{end}"
    lead = "".join(f"export {k}={shlex.quote(v)}; " for k, v in (env or {}).items() if k.isidentifier())
    if cwd:
        lead += f"cd {shlex.quote(cwd)} && "
    return "bash", lead + line
