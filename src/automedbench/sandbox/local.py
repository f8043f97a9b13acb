"""`local` backend: runs agent code as a plain subprocess. It isolates NOTHING.

Kept for debugging on machines without bubblewrap. Every run using it is marked
`sandbox: local (no isolation)` in its report and on the leaderboard. The environment is
still scrubbed so API keys do not leak by accident.
"""
from __future__ import annotations

import logging
import sys
from contextlib import ExitStack

from . import advisory
from .base import ExecResult, SandboxSpec, base_env, command_for, run_process
from .inputs import private_inputs
from .observe.effects import EffectsRecorder, observe
from .observe.fanotify import CallProcess
from .stage import open_stage

LOCAL_LABEL = "local (no isolation)"
LOCAL_WARNING = ("sandbox backend 'local' isolates nothing: agent code runs with your "
                 "permissions and can read private references. Use it only for debugging.")
# one clean log line (the CLI formats it), not a Python warning with a source line
log = logging.getLogger("automedbench.sandbox")


class LocalSandbox:
    name = LOCAL_LABEL
    isolated = False

    def __init__(self, spec: SandboxSpec):
        log.warning(LOCAL_WARNING)
        self.spec = spec
        self.workspace_dir = str(spec.workspace.resolve())
        self.python = sys.executable
        self._call = CallProcess()   # the running call's process (its reads are the call's)
        self.effects: EffectsRecorder | None = None
        # a step that fails releases the ones before it (docs/sandbox.md "Opening and closing")
        with ExitStack() as opening:
            # its own copy of the inputs, so its recorded reads are its own (inputs.py)
            self._stage = open_stage(opening, "amb-local-", 0o700)   # sweeps what killed harnesses left
            self.inputs = private_inputs(spec.public_dir.resolve(), self._stage)
            self.data_dir = str(self.inputs.path)
            (spec.workspace / ".tmp").mkdir(parents=True, exist_ok=True)
            if spec.record_effects:
                # the agent sees host paths here, so inside paths are the host paths
                self.effects = EffectsRecorder((self.workspace_dir, self.workspace_dir),
                                               (self.data_dir, self.data_dir),
                                               reads_shared=not self.inputs.private, is_ours=self._call.is_ours)
                opening.callback(self.effects.close)
            self._resources: ExitStack | None = opening.pop_all()

    def execute(self, language: str, code: str, timeout_s: float | None = None) -> ExecResult:
        env = base_env(self.spec, home=self.workspace_dir, tmp=self.workspace_dir + "/.tmp")
        (self.spec.workspace / ".tmp").mkdir(parents=True, exist_ok=True)
        env["PATH"] = f"{sys.prefix}/bin:" + env["PATH"]
        if self.effects is not None:
            self.effects.begin()
        self._call.begin()
        try:
            result = run_process(command_for(language, code, self.python), env=env,
                                 cwd=self.workspace_dir, timeout_s=timeout_s or self.spec.timeout_s,
                                 cap=self.spec.output_cap, on_start=self._call.started,
                                 on_output=self.effects.saw_output if self.effects is not None else None)
        finally:
            self._call.end()
        # local isolates nothing: a process left running can still write after this
        # point, and the agent's own reads outside these two directories are not seen
        observe(self.effects, result)
        result.warnings.extend(advisory.scan(language, code))
        return result


    def close(self) -> None:
        resources, self._resources = getattr(self, "_resources", None), None
        if resources is not None:
            self.effects = None
            resources.close()

    def __del__(self) -> None:
        # a caller that never closes (a notebook, a test) still leaves no copy of the inputs behind
        try:
            self.close()
        except Exception:
            pass
